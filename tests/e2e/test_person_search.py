"""Who reads at the CLI (issue 33.3, SPEC 7): a person (no harness: no `JACKED_MEMORY_HARNESS`, no
`--target`) sees notes of every target, each hit marked with its targets (text) and carrying them
(`--json`); a harness still sees only `all` and its own. A search that finds nothing says how many
hits the filters that narrowed it would give without them. The real CLI in a subprocess.
Every surface crossed with every hidden note: tests/e2e/test_read_policy.py (`cli-search-person`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_cli

PERSON = {"JACKED_MEMORY_HARNESS": ""}


def _ok(*args: str, vault: Path, **env: str):
    done = run_cli("memory", *args, vault=vault, **env)
    assert done.code == 0, done.out + done.err
    return done


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    path = tmp_path / "vault"
    _ok("init", "--no-scan", vault=path)
    _ok("add", "--group", "tools", "--title", "Parser plan for everyone", "--body", "The parser is shared.", vault=path)
    _ok("handoff", "--from", "claude", "--target", "codex", "--group", "tools", "--title", "Finish the parser",
        "--body", "Tests in tests/test_parse.py fail on CRLF.", vault=path)  # fmt: skip
    return path


@pytest.mark.parametrize("words", [["parser"], []], ids=["search", "listing"])
def test_a_person_sees_every_target_each_hit_marked(vault: Path, words: list[str]):
    text = _ok("search", *words, vault=vault, **PERSON).out
    line = next(line for line in text.splitlines() if "Finish the parser" in line)
    assert "for codex" in line
    shared = next(line for line in text.splitlines() if "Parser plan for everyone" in line)
    assert "for codex" not in shared
    hits = {r["title"]: r for r in _ok("search", *words, "--json", vault=vault, **PERSON).json["results"]}
    assert hits["Finish the parser"]["targets"] == ["codex"]
    assert hits["Parser plan for everyone"]["targets"] == ["all"]


@pytest.mark.parametrize(("harness", "sees"), [("claude", False), ("codex", True)])
def test_a_harness_still_sees_only_all_and_its_own(vault: Path, harness: str, sees: bool):
    for how in ({"JACKED_MEMORY_HARNESS": harness}, {**PERSON, "target": harness}):
        target = how.pop("target", None)
        args = ("search", "parser", "--json", *(["--target", target] if target else []))
        titles = [r["title"] for r in _ok(*args, vault=vault, **how).json["results"]]
        assert ("Finish the parser" in titles) is sees and "Parser plan for everyone" in titles


def test_a_search_with_no_hit_says_what_the_narrowing_filters_hide(vault: Path):
    _ok("add", "--scope", "user", "--title", "Zebra crossing in user scope", "--body", "Zebra.", vault=vault)
    _ok("add", "--group", "ops", "--title", "Zebra runbook for ops", "--kind", "runbook", "--body", "Zebra.",
        vault=vault)  # fmt: skip
    nothing = _ok("search", "zebra", "--group", "tools", vault=vault, **PERSON)
    assert nothing.out.splitlines()[0] == "no matches in group tools; 1 without --group"
    as_json = _ok("search", "zebra", "--group", "tools", "--json", vault=vault, **PERSON).json
    assert as_json["results"] == [] and as_json["elsewhere"] == [{"asking": "without --group", "hits": 1}]
    kinds = _ok("search", "zebra", "--kind", "fact", vault=vault, **PERSON).out.splitlines()[0]
    assert kinds == "no matches; 1 without --kind"
    user = _ok("search", "crossing", vault=vault, **PERSON).out.splitlines()[0]
    assert user == "no matches; 1 with --scope user"
    assert _ok("search", "zeppelin", vault=vault, **PERSON).out.splitlines()[0] == "no matches"
    assert _ok("search", "zeppelin", "--json", vault=vault, **PERSON).json["elsewhere"] == []


def test_a_candidate_is_counted_for_include_candidates(vault: Path, tmp_path: Path):
    from jacked_vault.context import Context
    from jacked_vault.notes import AddRequest, add

    ctx = Context.create(vault=str(vault), cwd=tmp_path, harness="tester")
    add(ctx, AddRequest(title="Okapi candidate", body="Okapi.", group="tools", status="candidate"))
    said = _ok("search", "okapi", vault=vault, **PERSON).out.splitlines()[0]
    assert said == "no matches; 1 with --include-candidates"
