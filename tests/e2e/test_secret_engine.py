"""The secret engine (issue 34.1): the RE2 set of prefilters is a superset of every exact rule,
and no input shape feeds the exact rules more than a fixed multiple of its length (counted in
bytes, never timed)."""

from __future__ import annotations

import base64
import random
import re
import string
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import re2
from helpers import secret_joints as joined_oracle
from helpers import secret_shapes as shapes
from helpers.secret_samples import ALNUM, FAMILIES, NEAR_MISSES, token_lines
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jacked_vault.safety import secrets
from jacked_vault.safety.text import compiled

KIB = 1024
# Bytes fed to the exact `re` rules (all views, every rule the set let through) per byte of input.
EXACT_BYTES_PER_BYTE = 64
# Bytes of all views together per byte of input: none of the worst shapes needs its windows of
# joined lines built (no token rule can match in them), and none of them decodes.
VIEW_BYTES_PER_BYTE = 1
# Value checks run (a rule's `check` on a match) per KiB of input: once a kind is found, a rule's
# further matches are not checked unless a later generic rule of another kind still reads them.
CHECKS_PER_KIB = 1


def _exact_matches(text: str) -> Iterator[tuple[int, bytes, frozenset[int]]]:
    """(rule index, matched bytes, the rules the engine let through) for every exact match of
    every rule in every view of `text`, whatever the engine said."""
    for view, _ in secrets._views(text):
        data = view.encode("utf-8", "surrogatepass")
        lower = data.lower()
        candidates = secrets._candidates(data, lower)
        for index, rule in enumerate(secrets._RULES):
            for match in rule.pattern.finditer(lower if rule.fold else data):
                yield index, match.group(), candidates


def _options() -> Any:
    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    return options


PREFILTERS = [re2.compile(rule.prefilter, _options()) for rule in secrets._RULES]


def _assert_superset(text: str) -> None:
    for index, matched, candidates in _exact_matches(text):
        rule = secrets._RULES[index]
        assert index in candidates, f"{rule.kind}: the set missed {matched[:60]!r}"
        assert PREFILTERS[index].fullmatch(matched), f"{rule.kind}: prefilter misses {matched[:60]!r}"


CORPUS = [text for texts in FAMILIES.values() for text in texts] + [
    text for text in NEAR_MISSES.values() if isinstance(text, str)
]


def test_the_set_never_gives_up_on_the_corpus() -> None:
    plain, _, folded, _ = secrets._engine()
    for text in CORPUS:
        data = text.encode("utf-8", "surrogatepass")
        assert 0 in plain.Match(data) and 0 in folded.Match(data.lower())


def test_prefilters_are_a_superset_on_the_secret_and_near_miss_corpus() -> None:
    for text in CORPUS:
        _assert_superset(text)


def test_prefilters_are_a_superset_on_split_shapes() -> None:
    rng = random.Random(34)
    makers = [make for makers in shapes.FAMILIES.values() for make in makers] + shapes.NEAR_MISSES
    for make in makers:
        for _ in range(4):
            _assert_superset(shapes.split_shape(rng, make(rng)))


# Fragments every rule starts with or needs, among token characters, blanks, quotes and breaks.
_FRAGMENTS = [
    "ghp_",
    "github_pat_",
    "glpat-",
    "xoxb-",
    "sk-",
    "sk-ant-",
    "sk_live_",
    "AKIA",
    "AIza",
    "eyJ",
    "hf_",
    "npm_",
    "SG.",
    "MII",
    "MD",
    "b3BlbnNzaC1rZXktdjEA",
    "-----BEGIN ",
    "PRIVATE KEY-----",
    "password",
    "passwd",
    "pwd",
    "secret",
    "token",
    "api_key",
    "key-",
    "heroku_api_key",
    "dd_api_key",
    "mysql -p",
    "redis-cli -a ",
    "cookie: ",
    "machine h login u password ",
    "://u:",
    "@host.com",
    "localhost:5432:",
    "--password ",
    "--token ",
    "-u ",
    "authorization: bearer ",
    " is ",
    " = ",
    ": ",
    "12345678:",
    "hvs.",
    "s.",
    "shpat_",
    "dop_v1_",
    "PuTTY-User-Key-File-2:",
    "AGE-SECRET-KEY-1",
    "\\n",
    "%3D",
    "\n",
    "\n  ",
    '" +\n "',
    " ",
    '"',
    "'",
    "=",
]
_TEXTS = st.lists(
    st.one_of(st.sampled_from(_FRAGMENTS), st.text(alphabet=ALNUM + "+/=_.-:@", min_size=1, max_size=40)),
    max_size=30,
).map("".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_TEXTS)
def test_prefilters_are_a_superset_on_generated_text(text: str) -> None:
    _assert_superset(text)


def _assert_joining_told(text: str) -> None:
    """When `_may_join` says no token rule may match in the windows of joined lines, none does
    (an exact match of a token rule, the key body's only when its check passes)."""
    clean = secrets._decoded(text)
    lines = compiled(secrets._TRAILING_BLANKS).sub("", clean)
    joined = secrets._rejoined(lines) if "\n" in lines else None
    if joined is None or secrets._may_join(lines):
        return
    windows = "\n\x00\n".join(batch for batch, _ in joined[1])  # every batch
    data = windows.encode("utf-8", "surrogatepass")
    for rule in secrets._RULES:
        if rule.fallback:
            continue
        for match in rule.pattern.finditer(data.lower() if rule.fold else data):
            told = rule is not secrets._KEY_BODY or secrets._der_private_key(match.group().decode())
            assert not told, f"{rule.kind}: {match.group()[:60]!r} in a window, not told"


def test_every_key_body_the_rule_finds_starts_a_run_the_joining_test_reads() -> None:
    rng = random.Random(36)
    pbe = [bytes.fromhex("2a864886f70d0105"), bytes.fromhex("2a864886f70d010c01")]
    for _ in range(3000):
        length = rng.choice([bytes([rng.randrange(0x80)]), bytes([0x81, rng.randrange(256)]),
                             bytes([0x82, rng.randrange(256), rng.randrange(256)])])  # fmt: skip
        algorithm = bytes([0x30, rng.randrange(0x80), 0x06, rng.randrange(256)]) + rng.choice(pbe)
        version = bytes([0x02, 0x01, rng.randrange(2), rng.choice([0x30, 0x02, 0x04])])
        der = b"\x30" + length + rng.choice([version, algorithm]) + rng.randbytes(60)
        body = base64.b64encode(der).decode().rstrip("=")
        if not secrets._KEY_BODY.pattern.fullmatch(body.encode()) or not secrets._der_private_key(body):
            continue
        breaks = sorted(rng.sample(range(1, 70), 5))
        marked = "".join("\x00" * (at in breaks) + char for at, char in enumerate(body))
        found = compiled(secrets._KEY_BODY_RUN).match(marked)
        assert found, marked[:40]
        assert secrets._der_private_key("M" + found[1].replace("\x00", ""))


def test_the_windows_are_skipped_only_when_no_token_rule_may_match() -> None:
    rng = random.Random(35)
    makers = [make for makers in shapes.FAMILIES.values() for make in makers] + shapes.NEAR_MISSES
    texts = CORPUS + [shapes.split_shape(rng, make(rng)) for make in makers for _ in range(4)]
    for text in texts:
        _assert_joining_told(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_TEXTS)
def test_the_windows_are_skipped_only_when_no_token_rule_may_match_generated(text: str) -> None:
    _assert_joining_told(text)


def _lines(size: int, line: str) -> str:
    return (line * (size // len(line) + 1))[:size]


def _worst_shapes(size: int) -> dict[str, str]:
    """The shapes that cost most per byte (bench/bench_secrets.py times the same ones)."""
    rng = random.Random(7)

    def rand(n: int) -> str:
        return "".join(rng.choice(ALNUM) for _ in range(n))

    return {
        "token lines": token_lines(size),
        "short token lines": "\n".join(rand(3) for _ in range(size // 4)),
        "long run": rand(size),
        "split quoted lines": "".join(f'"{rand(10)}" +\n' for _ in range(size // 15)),
        "password lines": "".join(f"password = x{rand(6)}1\n" for _ in range(size // 20)),
        "mysql words": _lines(size, "mysql x "),
        "redis-cli words": _lines(size, "redis-cli x "),
        "heroku name": _lines(size, "herokukey"),
        "cookie header": "cookie: " + rand(size),
        "short lines mixed": "\n".join(rand(rng.randint(1, 19)) for _ in range(size // 11)),
        "base64 lines": "\n".join(base64.b64encode(rng.randbytes(57)).decode() for _ in range(size // 77)),
        "sk- words": "".join("sk-" + rand(3) for _ in range(size // 6)),
    }


class _Counting:
    """A compiled rule that counts the bytes it is given."""

    def __init__(self, pattern: re.Pattern[bytes], counter: list[int]) -> None:
        self.pattern, self.counter = pattern, counter
        self.groupindex = pattern.groupindex

    def finditer(self, data: bytes) -> Iterator[re.Match[bytes]]:
        self.counter[0] += len(data)
        return self.pattern.finditer(data)


def _counted(check: Callable[[str], bool], counter: list[int]) -> Callable[[str], bool]:
    """`check`, counting its calls."""

    def counted(value: str) -> bool:
        counter[0] += 1
        return check(value)

    return counted


@pytest.mark.parametrize("shape", list(_worst_shapes(KIB)))
def test_no_shape_feeds_the_exact_rules_more_than_a_multiple_of_its_length(
    shape: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = _worst_shapes(64 * KIB)[shape]
    counter, checks = [0], [0]
    for rule in secrets._RULES:
        monkeypatch.setitem(vars(rule), "pattern", _Counting(rule.pattern, counter))
        if rule.check is not None:
            monkeypatch.setitem(vars(rule), "check", _counted(rule.check, checks))
    assert secrets.scan_text(text) in ([], ["password or secret assignment"], ["OpenAI API key"])
    views = sum(len(view) for view, _ in secrets._views(text))
    assert views <= VIEW_BYTES_PER_BYTE * len(text), views / len(text)
    assert counter[0] <= EXACT_BYTES_PER_BYTE * len(text), counter[0] / len(text)
    assert checks[0] <= CHECKS_PER_KIB * len(text) // KIB, checks[0]


# Shapes in which a token rule's prefilter hits the joined lines, so windows are built: short
# token-like lines that join into `AKIA` + 16 (everywhere, or in a few places), quoted halves.
# Windows of joined lines built per KiB of input, and bytes of the joined view per byte.
WINDOWS_PER_KIB = 16
JOINED_BYTES_PER_BYTE = 5


def _hit_shapes(size: int) -> dict[str, str]:
    rng = random.Random(8)

    def rand(n: int, alphabet: str = ALNUM) -> str:
        return "".join(rng.choice(alphabet) for _ in range(n))

    sparse = [rand(10) for _ in range(size // 11)]
    for at in range(0, len(sparse) - 1, 300):
        sparse[at : at + 2] = ["AKIA" + rand(6, shapes.UPPER_DIGITS), rand(10, shapes.UPPER_DIGITS)]
    # another kind on two lines near the end, found only once the access key id is (its windows
    # still built though those of a kind found are not)
    upper = ["AKIA" + rand(6, shapes.UPPER_DIGITS) for _ in range(size // 11)]
    upper[-40:-38] = ["sk_live_" + rand(10), rand(10)]
    return {
        "token lines, hit": "\n".join("AKIA" + rand(6) for _ in range(size // 11)),
        "upper token lines": "\n".join("AKIA" + rand(6, shapes.UPPER_DIGITS) for _ in range(size // 11)),
        "token lines, a few hits": "\n".join(sparse),
        "quoted lines, hit": "".join(f'"AKIA{rand(6)}" +\n' for _ in range(size // 15)),
        "bare quoted lines, hit": "".join(f'"AKIA{rand(6)}"\n' for _ in range(size // 13)),
        "indented lines, hit": "\n".join("  AKIA" + rand(6) for _ in range(size // 13)),
        "upper token lines, another kind": "\n".join(upper),
    }


@pytest.mark.parametrize("shape", list(_hit_shapes(KIB)))
def test_the_windows_of_shapes_a_token_rule_hits_are_bounded(shape: str) -> None:
    """Counted over every batch of windows a scan reads (built until every kind they may hold
    is found)."""
    text = _hit_shapes(64 * KIB)[shape]
    found: set[str] = set()
    windows = []
    for view, context in secrets._views(text, found):
        secrets._findings_in(view, context, found)
        if context is not None:
            windows.append(view)
    joined = "\n\x00\n".join(windows)
    assert joined.count("\x00") + 1 <= WINDOWS_PER_KIB * len(text) // KIB, joined.count("\x00")
    assert len(joined) <= JOINED_BYTES_PER_BYTE * len(text), len(joined) / len(text)
    assert sorted(found) == secrets.scan_text(text)


@pytest.mark.parametrize("shape", list(_hit_shapes(KIB)))
def test_hit_shapes_get_the_verdict_every_window_gives(shape: str) -> None:
    text = _hit_shapes(8 * KIB)[shape]
    assert secrets.scan_text(text) == joined_oracle.scan_text(text)


# Shapes in which a token rule's core hits on every line but no window holds a secret: the AWS
# documentation key on every line (its windows glue two of them, no match), ids of the same shape
# (every line may start an access key id, none ends where one must), and halves that join into an
# access key id that is a placeholder (a check on every other line). Every window of every line
# is read, so the cost is per line: the rules' cores are searched once per stretch of lines (a
# chunk of the series), never once per line, and a value is checked once however many windows
# hold it.
CORE_SEARCHES_PER_KIB = 1


def _placeholder_shapes(size: int) -> dict[str, str]:
    rng = random.Random(9)

    def rand(n: int) -> str:
        return "".join(rng.choice(shapes.UPPER_DIGITS) for _ in range(n))

    doc = "AKIA" + "IOSFODNN7EXAMPLE"
    return {
        "documentation key lines": "\n".join([doc] * (size // 21)),
        "quoted documentation keys": "".join(f'"{doc}" +\n' for _ in range(size // 25)),
        "example ids": "\n".join("AKIAEXAMPLE" + shapes.UPPER_DIGITS[i % 36] for i in range(size // 13)),
        "placeholder halves": "\n".join(f"AKIA{rand(6)}\nEXAMPLE{rand(3)}" for _ in range(size // 22)),
    }


class _CountingCore:
    """A rule's RE2 core that counts its searches."""

    def __init__(self, core: Any, counter: list[int]) -> None:
        self.core, self.counter = core, counter

    def search(self, *args: Any) -> Any:
        self.counter[0] += 1
        return self.core.search(*args)


@pytest.mark.parametrize("shape", list(_placeholder_shapes(KIB)))
def test_placeholder_shapes_search_the_cores_per_stretch_of_lines_not_per_line(
    shape: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = _placeholder_shapes(64 * KIB)[shape]
    searches = [0]
    for rule in secrets._RULES:
        monkeypatch.setitem(vars(rule), "core", _CountingCore(rule.core, searches))
    assert secrets.scan_text(text) == []
    assert searches[0] <= CORE_SEARCHES_PER_KIB * len(text) // KIB, searches[0]


@pytest.mark.parametrize("shape", list(_placeholder_shapes(KIB)))
def test_placeholder_shapes_get_the_verdict_every_window_gives(shape: str) -> None:
    text = _placeholder_shapes(8 * KIB)[shape]
    assert secrets.scan_text(text) == joined_oracle.scan_text(text) == []


def test_a_kind_found_in_one_series_leaves_the_next_series_read() -> None:
    """A series longer than one stretch whose only rule's kind is found in its first stretch stops
    there; the series after it, a token of another kind split in two lines between words it would
    be glued to (so only a window of its two lines holds it), is still read."""
    rng = random.Random(5)

    def rand(n: int, alphabet: str = string.ascii_lowercase) -> str:
        return "".join(rng.choice(alphabet) for _ in range(n))

    first = ["prefixword", "AKIA" + rand(6, shapes.UPPER_DIGITS), rand(10, shapes.UPPER_DIGITS)]
    first += [rand(12) for _ in range(2 * secrets._STRETCH)]
    second = ["prefixword", "ghp_" + rand(18, ALNUM), rand(18, ALNUM), "suffixword"]
    text = "\n".join(first) + "\n\n" + "\n".join(second)
    assert secrets.scan_text(text) == joined_oracle.scan_text(text) == ["AWS access key", "GitHub token"]


def _long_texts(count: int) -> list[str]:
    """Texts of up to four series of up to ~90 joined lines (more than one stretch), blank lines
    between them, each with up to two tokens of several kinds split in two lines, bare or quoted,
    some series indented."""
    rng = random.Random(47)
    lower, upper, alnum = string.ascii_lowercase, shapes.UPPER_DIGITS, ALNUM

    def rand(n: int, alphabet: str = lower) -> str:
        return "".join(rng.choice(alphabet) for _ in range(n))

    makers = [
        lambda: "AK" + "IA" + rand(16, upper),
        lambda: "gh" + "p_" + rand(36, alnum),
        lambda: "sk" + "_live_" + rand(24, alnum),
        lambda: "np" + "m_" + rand(36, alnum),
        lambda: "gl" + "pat-" + rand(20, alnum),
        lambda: "AI" + "za" + rand(35, alnum),
    ]
    texts = []
    for _ in range(count):
        blocks = []
        for _ in range(rng.randint(1, 4)):
            lines = [rand(rng.randint(8, 14), rng.choice([lower, alnum, upper])) for _ in range(rng.randint(1, 90))]
            for _ in range(rng.randint(0, 2)):
                token = rng.choice(makers)()
                cut, at, quote = rng.randint(1, len(token) - 1), rng.randint(0, len(lines)), rng.choice(["", '"'])
                lines[at:at] = [f"{quote}{token[:cut]}{quote}", f"{quote}{token[cut:]}{quote}"]
            indent = rng.choice(["", "", "  "])
            blocks.append("\n".join(indent + line for line in lines))
        texts.append("\n\n".join(blocks))
    return texts


def test_long_texts_of_several_series_get_the_verdict_every_window_gives() -> None:
    texts = _long_texts(60)
    assert sum(len(joined_oracle.scan_text(text)) > 1 for text in texts) >= 20  # several kinds: each series read
    for text in texts:
        assert secrets.scan_text(text) == joined_oracle.scan_text(text), text[:80]


def test_long_series_of_quoted_lines_get_the_verdict_every_window_gives() -> None:
    # every line quoted, each joint a quote, a break and a quote (`_Joints.trim`): the windows of
    # each stretch are cut from the lines around its breaks, through many stretches
    rng = random.Random(53)

    def rand(n: int) -> str:
        return "".join(rng.choice(shapes.UPPER_DIGITS) for _ in range(n))

    texts = []
    for _ in range(40):
        lines = [rng.choice("\"'`") + rand(rng.randint(1, 12)) + '"' for _ in range(rng.randint(40, 200))]
        token = rng.choice(["AK" + "IA" + rand(16), "gh" + "p_" + rand(36)])
        cuts = sorted(rng.sample(range(1, len(token)), rng.randint(1, 2)))  # in two or three lines
        at = rng.randint(0, len(lines) - 3)
        for offset, (start, end) in enumerate(zip([0, *cuts], [*cuts, len(token)], strict=True)):
            lines[at + offset] = f'"{token[start:end]}"'
        if rng.random() < 0.3:
            lines.insert(rng.randint(0, len(lines)), "")  # a break that is no joint: two series
        texts.append("\n".join(lines))
    assert all(secrets._joints(text).trim == 1 for text in texts)
    assert sum(bool(joined_oracle.scan_text(text)) for text in texts) >= 20
    for text in texts:
        assert secrets.scan_text(text) == joined_oracle.scan_text(text), text[:80]


def _split_texts() -> list[str]:
    rng = random.Random(37)
    makers = [make for makers in shapes.FAMILIES.values() for make in makers] + shapes.NEAR_MISSES
    return CORPUS + [shapes.split_shape(rng, make(rng)) for make in makers for _ in range(4)]


def _trimmed(text: str) -> str:
    return compiled(secrets._TRAILING_BLANKS).sub("", secrets._decoded(text))


def test_joints_are_the_ones_the_regexes_find() -> None:
    texts = _split_texts() + list(_hit_shapes(4 * KIB).values()) + list(_worst_shapes(4 * KIB).values())
    for text in texts:
        lines = _trimmed(text)
        assert list(secrets._joints(lines)[0]) == joined_oracle.joints(lines), text[:80]


def test_short_lines_inside_long_stretches_of_whole_lines_are_joined_as_the_regexes_join_them() -> None:
    # `_joints` reads a stretch of more than MAX_SPLIT_LINES whole short lines as one series too
    # long; one broken by a blank line, a line of 20 or a line that is not one run is read through
    rng = random.Random(11)

    def short() -> str:
        return "".join(rng.choice(ALNUM) for _ in range(rng.randint(3, 9))) + str(rng.randint(0, 9))

    long_stretch = [short() for _ in range(secrets.MAX_SPLIT_LINES + 30)]
    for breaker in ("", "a" * secrets.SPLIT_TOKEN, "ab cd"):
        text = "\n".join([*long_stretch[:40], breaker, *long_stretch[40:]])
        joints = list(secrets._joints(text)[0])
        assert joints == joined_oracle.joints(text), repr(breaker)
        assert len(joints) >= 39, repr(breaker)  # the 40 lines before the breaker are one series
    for text in ("\n".join(long_stretch), "\n".join([*long_stretch[:40], "  x1", *long_stretch[40:]])):
        assert list(secrets._joints(text)[0]) == joined_oracle.joints(text)  # one series, too long


_LINE_SOUP = st.lists(
    st.one_of(
        st.sampled_from(["\n", "\n  ", "\n\t", " ", "\t", '"', "'", "`", "+", " + ", "AKIA", "é", "!", "0"]),
        st.text(alphabet=ALNUM + "+/=_.-:", min_size=1, max_size=25),
    ),
    max_size=40,
).map("".join)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(_LINE_SOUP, _TEXTS))
def test_joints_are_the_ones_the_regexes_find_generated(text: str) -> None:
    lines = _trimmed(text)
    assert list(secrets._joints(lines)[0]) == joined_oracle.joints(lines)


def test_verdicts_are_the_ones_every_window_gives() -> None:
    for text in _split_texts():
        assert secrets.scan_text(text) == joined_oracle.scan_text(text), text[:80]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(_LINE_SOUP, _TEXTS))
def test_verdicts_are_the_ones_every_window_gives_generated(text: str) -> None:
    assert secrets.scan_text(text) == joined_oracle.scan_text(text)
