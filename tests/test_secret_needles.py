"""A secret rule runs only where one of its needles occurs (safety/secrets.py `_needles`): the
literal strings one of which every match of its pattern holds, read off the parse of the pattern
itself. The reading must be sound (a needle absent means no match), so: its answers on patterns
whose needles are known, every rule's matches on every sample of its kind hold a needle, and the
scan with needles finds exactly what the scan without them finds, on tokens, near misses and
split shapes (tests/test_secret_shapes.py's generators)."""

from __future__ import annotations

import pytest

from jacked_vault.safety import secrets
from jacked_vault.safety.secrets import _needles, scan_text
from helpers.secret_shapes import FAMILIES, NEAR_MISSES, PROSE, Rng, split_shape


@pytest.mark.parametrize(
    ("regex", "needles"),
    [
        (rb"gh[pousr]_[A-Za-z0-9]{36}", (b"gho_", b"ghp_", b"ghr_", b"ghs_", b"ghu_")),
        (rb"(?<![A-Za-z0-9])AKIA[A-Z0-9]{16}", (b"akia",)),  # lowercased: the text is looked at lowercased
        (rb"(?i)Secret_Key\s*=", (b"secret_key",)),
        (rb"(?:abc)?defg", (b"defg",)),  # an optional part is not in every match
        (rb"(?:xyz|uvw)[0-9]+", (b"uvw", b"xyz")),  # one alternative or the other
        (rb"(?:xyz|)[0-9]+", None),  # an empty alternative: nothing is certain
        (rb"(?=token)[a-z]+", None),  # a lookahead's literal is not a run of the match
        (rb"(?:ab){2,}cd", (b"ab",)),  # the repeat's item holds the longer needle set (its shortest: 2)
        (rb"a\db", None),  # a category ends a run; single letters are not needles
        (rb"v[0-9]_", tuple(b"v%d_" % n for n in range(10))),  # a run through a small class: each spelling
        (rb"x*y?", None),
        (rb"(?P<v>hooks\.slack\.com/)", (b"hooks.slack.com/",)),
    ],
)
def test_needles_read_off_a_pattern(regex: bytes, needles: tuple[bytes, ...] | None) -> None:
    assert _needles(regex) == needles


def _samples(rng: Rng, count: int) -> list[str]:
    return [prefix + token + suffix for makers in FAMILIES.values() for make in makers
            for prefix, token, suffix in (make(rng) for _ in range(count))]  # fmt: skip


def test_every_match_of_every_rule_holds_one_of_its_needles() -> None:
    texts = _samples(Rng(4242), 25) + [split_shape(Rng(n), make(Rng(n))) for n, make in enumerate(NEAR_MISSES)]
    checked = 0
    for rule in secrets._RULES:
        if rule.needles is None:
            continue
        for text in texts:
            data = text.encode()
            for match in rule.pattern.finditer(data.lower() if rule.fold else data):
                checked += 1
                assert any(needle in match.group().lower() for needle in rule.needles), (rule.kind, match.group())
    assert checked > 900


def _without_needles(text: str, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    with monkeypatch.context() as patch:
        for rule in secrets._RULES:
            patch.setitem(vars(rule), "needles", None)
        return scan_text(text)


def test_the_scan_with_needles_finds_what_the_scan_without_them_finds(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = Rng(4343)
    texts = _samples(rng, 8)
    texts += [split_shape(rng, make(rng)) for makers in FAMILIES.values() for make in makers for _ in range(6)]
    texts += [split_shape(rng, make(rng)) for make in NEAR_MISSES for _ in range(10)]
    texts += [f"{prose} {text.upper()}" for prose, text in zip(PROSE * 40, texts[:200], strict=False)]
    found = 0
    for text in texts:
        with_needles = scan_text(text)
        assert with_needles == _without_needles(text, monkeypatch), text
        found += bool(with_needles)
    assert found > 300 and len(texts) - found > 50  # both secrets and clean texts were compared


def test_a_text_holding_no_needle_runs_only_the_rules_without_needles() -> None:
    text = "We agreed to keep the retry budget small and to log every timeout once."
    low = text.encode().lower()
    assert not any(needle in low for rule in secrets._RULES for needle in rule.needles or ())
    ran = [rule for rule in secrets._RULES if rule.needles is None]
    assert 0 < len(ran) < len(secrets._RULES) // 4
    assert scan_text(text) == []
