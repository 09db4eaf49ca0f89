"""Text safety: check_text refuses controls/bidi; strip_terminal makes vault text safe to print."""

from __future__ import annotations

import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jacked_vault.errors import VaultError
from jacked_vault.safety.text import check_text, strip_terminal

C0 = [chr(c) for c in range(0x20) if chr(c) not in "\t\n\r"]
C1 = [chr(c) for c in range(0x80, 0xA0)]
BIDI = [chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))]
MARKER = "SECRET-ISH-VALUE"


def refused_in(char: str, *, multiline: bool) -> bool:
    """The contract, written independently of the implementation's regexes."""
    point = ord(char)
    allowed_breaks = "\t\n\r" if multiline else "\t"
    return (
        (point < 0x20 and char not in allowed_breaks)
        or 0x7F <= point <= 0x9F
        or 0x202A <= point <= 0x202E
        or 0x2066 <= point <= 0x2069
        or 0xD800 <= point <= 0xDFFF
        or point in (0xFFFE, 0xFFFF)
        or (not multiline and point in (0x2028, 0x2029))
    )


# --- check_text -------------------------------------------------------------------------


@pytest.mark.parametrize("multiline", [False, True])
@pytest.mark.parametrize(
    ("char", "kind"),
    [(c, "control character") for c in [*C0, "\x7f", *C1]]
    + [(c, "bidirectional control character") for c in BIDI]
    + [("\ud800", "surrogate code point"), ("\ufffe", "non-character"), ("\uffff", "non-character")],
)
def test_check_text_refuses_each_class(char: str, kind: str, multiline: bool) -> None:
    with pytest.raises(VaultError) as caught:
        check_text("title", f"{MARKER}{char}{MARKER}", multiline=multiline)
    error = caught.value
    assert error.code == "VALIDATION"
    assert error.message == f"title contains {kind} U+{ord(char):04X}"
    assert MARKER not in error.message


@pytest.mark.parametrize("char", ["\n", "\r", "\u2028", "\u2029"])
def test_single_line_refuses_line_breaks(char: str) -> None:
    with pytest.raises(VaultError, match=f"U\\+{ord(char):04X}"):
        check_text("title", f"a{char}b", multiline=False)
    check_text("body", f"a{char}b", multiline=True)


def test_allowed_whitespace_and_unicode() -> None:
    check_text("body", "line 1\r\nline 2\n\tindented", multiline=True)
    check_text("title", "tab\tinside", multiline=False)
    check_text("title", "Café 日本語 🎉 e\u0301 \u200d \ufeff \u00a0", multiline=False)


def test_first_refused_character_is_named() -> None:
    with pytest.raises(VaultError, match=r"^body contains control character U\+0007$"):
        check_text("body", "ok\x07then\x1b", multiline=True)


@given(st.text(), st.booleans())
def test_check_text_matches_the_contract(value: str, multiline: bool) -> None:
    expected_refusal = any(refused_in(c, multiline=multiline) for c in value)
    try:
        check_text("field", value, multiline=multiline)
    except VaultError as error:
        assert expected_refusal, error.message
    else:
        assert not expected_refusal


# --- strip_terminal ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("\x1b[31mred\x1b[0m plain", "red plain"),
        ("\x1b[1;32;40mbold\x1b[m", "bold"),
        ("\x1b[2J\x1b[Hcleared", "cleared"),
        ("\x1b[?25lhidden cursor", "hidden cursor"),
        ("\x9b31mC1 CSI", "C1 CSI"),
        ("\x1b]0;evil title\x07after", "after"),
        ("\x1b]2;evil title\x1b\\after", "after"),
        ("\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\", "link"),
        ("\x1b]8;;https://evil.example\x07link\x1b]8;;\x07", "link"),
        ("\x9d0;C1 title\x9cafter", "after"),
        ("\x1bPq#0;2;0;0;0\x1b\\sixel gone", "sixel gone"),
        ("\x1b_app command\x1b\\apc gone", "apc gone"),
        ("\x1bcreset", "reset"),
        ("\x1b(Bcharset", "charset"),
        ("trailing escape\x1b", "trailing escape"),
        ("esc before \x1bé letter", "esc before é letter"),
        ("a\x85b\x9fc\x80d", "abcd"),
        ("bell\x07 back\x08space nul\x00 del\x7f", "bell backspace nul del"),
        ("carriage\roverwrite", "carriageoverwrite"),
        ("bidi \u202eevil\u202c \u2066iso\u2069", "bidi evil iso"),
        ("keeps\ttabs\nand newlines\n", "keeps\ttabs\nand newlines\n"),
    ],
)
def test_strip_terminal(raw: str, clean: str) -> None:
    assert strip_terminal(raw) == clean


def test_unterminated_osc_leaves_no_escape() -> None:
    out = strip_terminal("\x1b]0;never terminated title")
    assert "\x1b" not in out
    assert out.endswith("never terminated title")


def test_plain_text_is_untouched() -> None:
    text = "Café 日本語 🎉 — [brackets] ;semi; 0;1 ]8;; done\n\tok"
    assert strip_terminal(text) == text


def unsafe_on_terminal(char: str) -> bool:
    """Controls except tab and LF, DEL, C1, bidi overrides/isolates."""
    return char not in "\t\n" and (ord(char) < 0x20 or char in C1 or char == "\x7f" or char in BIDI)


@given(st.text())
def test_strip_terminal_output_is_safe_and_stable(text: str) -> None:
    out = strip_terminal(text)
    assert not any(unsafe_on_terminal(c) for c in out)
    assert strip_terminal(out) == out


@given(st.text(alphabet=st.characters().filter(lambda c: not unsafe_on_terminal(c))))
def test_strip_terminal_keeps_text_without_controls(text: str) -> None:
    assert strip_terminal(text) == text


def test_strip_terminal_is_linear_on_hostile_input() -> None:
    hostile = ("\x9d" + "a" * 7) * 16_384 + ("\x1b]" + "b" * 6) * 16_384  # 256 KiB, no terminators
    start = time.perf_counter()
    out = strip_terminal(hostile)
    assert time.perf_counter() - start < 2.0
    assert "\x1b" not in out and "\x9d" not in out


def test_a_transcript_keeps_exactly_what_the_store_accepts_in_multiline_text():
    """capture.transcript.clean_text removes what check_text refuses in multi-line text, and
    nothing else (one owner of the list: safety.text)."""
    from jacked_vault.capture.transcript import clean_text

    every = "".join(chr(cp) for cp in range(0x110000))
    kept = clean_text(every)
    check_text("text", kept, multiline=True)  # what is kept is accepted
    removed = set(every) - set(kept)
    for char in removed:
        with pytest.raises(VaultError):
            check_text("text", char, multiline=True)
    # C0 but tab, LF and CR (29), DEL and C1 (33), bidi overrides and isolates (9), surrogates (2048), U+FFFE/F
    assert {"\t", "\n", "\r"} <= set(kept) and len(removed) == 29 + 33 + 9 + 2048 + 2
