"""The terminal reviews take exactly one of the keys they list (issue 18.11): `review` (a, r, s, e,
q) and the group review of `init` and `group suggest` (a, e, s). An answer that is not one of them,
as a letter or its whole word, asks again: `arduplicate` is not taken for accept, `x` neither
skips a candidate nor ends the group review with nothing written. Driven on a real pty."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import cli_env, git, make_repo, run_cli
from helpers.terminal import drive

from jacked_vault.context import Context
from jacked_vault.document import parse_note
from jacked_vault.notes import AddRequest, add

REVIEW_PROMPT = b"[a]ccept [r]eject [s]kip [e]dit-as-new [q]uit"


@pytest.mark.parametrize("unknown", [b"arduplicate", b"x", b"ss", b"accepted"])
def test_review_asks_again_on_an_answer_it_does_not_list(tmp_path: Path, unknown: bytes):
    vault = tmp_path / "vault"
    run_cli("memory", "init", "--no-scan", vault=vault)
    ctx = Context.create(vault=str(vault), cwd=tmp_path, harness="t")
    first = add(ctx, AddRequest(title="Keep it waiting", body="a candidate", group="tools", status="candidate"))
    second = add(ctx, AddRequest(title="Accept me", body="another candidate", group="tools", status="candidate"))
    head = git(vault, "rev-parse", "HEAD")
    code, out, shown = drive(
        ["memory", "review"], [unknown + b"\n", b"S\n", b"Accept\n"], env=cli_env(vault), cwd=tmp_path
    )
    assert code == 0, shown
    assert shown.count(REVIEW_PROMPT) == 3, shown  # asked again after the unknown answer, then once per candidate
    assert shown.count(b"please answer a, r, s, e, q (one letter, or its whole word)") == 1, shown
    statuses = {n.note.id: parse_note((vault / n.rel).read_bytes()).status for n in (first, second)}
    assert statuses == {first.note.id: "candidate", second.note.id: "active"}
    assert "1 decision(s) recorded" in out and git(vault, "rev-list", "--count", f"{head.strip()}..HEAD").strip() == "1"


@pytest.fixture
def repos_root(tmp_path: Path) -> Path:
    root = tmp_path / "Github"
    for name, url in [
        ("acme-api", "git@github.com:Acme/acme-api.git"),
        ("acme-web", "https://github.com/acme/acme-web.git"),
    ]:
        (root / name).mkdir(parents=True)
        make_repo(root / name, url)
    return root


@pytest.mark.parametrize("command", ["init", "group suggest"])
def test_the_group_review_asks_again_on_an_answer_it_does_not_list(tmp_path: Path, repos_root: Path, command: str):
    vault = tmp_path / "vault"
    if command != "init":
        run_cli("memory", "init", "--no-scan", vault=vault)
    argv = ["memory", *command.split(), "--root", str(repos_root)]
    code, out, shown = drive(argv, [b"x\n", b"accept\n"], env=cli_env(vault), cwd=tmp_path)
    assert code == 0, shown
    assert shown.count(b"[a]ccept, [e]dit name, [s]kip") == 2 and b"please answer a, e, s" in shown, shown
    assert sorted(json.loads((vault / "vault.json").read_text())["groups"]) == ["acme"]
    assert "accepted group acme" in out
