"""Golden tests: the human output of every command, pinned like git pins `git status`.

One session runs the real CLI in subprocesses on a vault built step by step (notes, a code repo
with a merge, episodic days, hooks, a remote), and each step's stdout, stderr and exit code are
compared with `tests/golden/<step>.txt` after normalising only what must vary: note ids
(numbered by first appearance), commit shas, timestamps, today's date, the temp folder and this
Python's paths. `JACKED_UPDATE_GOLDEN=1 pytest tests/e2e/test_golden.py` rewrites the files.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from conftest import CliResult, git, make_repo, run_cli

GOLDEN = Path(__file__).parents[1] / "golden"
FIXTURES = Path(__file__).parents[1] / "fixtures"
UPDATE = os.environ.get("JACKED_UPDATE_GOLDEN") == "1"


@dataclass
class Step:
    name: str
    args: tuple[str, ...]
    result: CliResult


class Session:
    """Runs CLI steps in order and normalises what they print."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.vault = tmp / "vault"
        self.code = tmp / "Github" / "api"
        self.steps: dict[str, Step] = {}
        self.ids: dict[str, str] = {}
        self.texts: dict[str, str] = {}
        self.env = {"XDG_CONFIG_HOME": str(tmp / "xdg"), "COLUMNS": "80", "JACKED_MEMORY_HARNESS": "claude"}

    def run(self, name: str, *args: str, cwd: Path | None = None, stdin: str | None = None, **env: str) -> CliResult:
        result = run_cli(*args, vault=self.vault, cwd=cwd or self.tmp, stdin=stdin, **{**self.env, **env})
        assert name not in self.steps, name
        self.steps[name] = Step(name, args, result)
        return result

    def normalise(self, text: str) -> str:
        for path in sorted({str(self.tmp), str(self.tmp.resolve())}, key=len, reverse=True):
            text = text.replace(path, "<TMP>")
        for path, label in ((sys.executable, "<PYTHON>"), (str(Path(sys.executable).parent), "<BIN>")):
            text = text.replace(path, label)
        text = re.sub(
            r"mem_\d{8}_[0-9a-z]{26}", lambda m: self.ids.setdefault(m.group(), f"<ID{len(self.ids) + 1}>"), text
        )
        text = re.sub(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z", "<TIME>", text)
        for today in {date.today().isoformat(), datetime.now(UTC).date().isoformat()}:
            text = text.replace(today, "<TODAY>")
        text = re.sub(r"<TODAY> \d{2}:\d{2}", "<TODAY> <HH:MM>", text)
        text = re.sub(r"jacked-backup-\d{8}-\d{6}(-\d+)?", "jacked-backup-<STAMP>", text)
        return re.sub(r"\b[0-9a-f]{40}\b|\b[0-9a-f]{10,12}\b", "<SHA>", text)

    def rendered(self, step: Step) -> str:
        out = [f"$ jacked {shlex.join(step.args)}"]
        if step.result.out:
            out.append(step.result.out.rstrip("\n"))
        if step.result.err:
            out += ["[stderr]", step.result.err.rstrip("\n")]
        out.append(f"[exit {step.result.code}]")
        return self.normalise("\n".join(out)) + "\n"


def _id(result: CliResult, title: str) -> str:
    return next(r["id"] for r in result.json["results"] if r["title"] == title)


def _scenes(s: Session) -> None:
    """Every command a person runs, in an order that builds the vault up."""
    tmp, vault, code = s.tmp, s.vault, s.code
    code.mkdir(parents=True)
    make_repo(code, "git@github.com:acme/api.git")
    make_repo(tmp / "Github" / "api-web", "git@github.com:acme/api-web.git")
    s.run("help", "--help")
    s.run("memory-help", "memory", "--help")
    s.run("init", "memory", "init", "--no-scan")
    s.run("init-again-scan", "memory", "init")
    s.run(
        "add",
        "memory",
        "add",
        "--kind",
        "decision",
        "--title",
        "Use SQLite FTS5 for search",
        "--tag",
        "search",
        "--tag",
        "sqlite",
        "--body",
        "It ships with Python. No server to run.",
        cwd=code,
    )
    first = _id(run_cli("memory", "search", "fts5", "--json", vault=vault, **s.env), "Use SQLite FTS5 for search")
    s.run(
        "add-linked",
        "memory",
        "add",
        "--title",
        "Index refresh diffs commits",
        "--link",
        first,
        "--body",
        "The index catches up by diffing trees.",
        cwd=code,
    )
    s.run(
        "handoff",
        "memory",
        "handoff",
        "--from",
        "claude",
        "--target",
        "codex",
        "--title",
        "Finish the parser",
        "--body",
        "Tests in tests/test_parse.py fail on CRLF.",
        cwd=code,
    )
    s.run("read", "memory", "read", first)
    s.run("search", "memory", "search", "fts5")
    s.run("search-newest", "memory", "search")
    s.run("search-nothing", "memory", "search", "zeppelin")
    s.run("search-nothing-narrowed", "memory", "search", "fts5", "--kind", "fact")  # says what --kind hides
    s.run("search-person", "memory", "search", JACKED_MEMORY_HARNESS="")  # a person: every target, marked
    s.run("search-bad-filter", "memory", "search", "--kind", "opinion", "x")
    s.run("read-missing", "memory", "read", "mem_20260101_absent")
    s.run("status", "memory", "status", cwd=code)
    s.run("hot-show-empty", "memory", "hot", "show", cwd=code)
    s.run("hot-set", "memory", "hot", "set", "--stdin", cwd=code, stdin="Wiring the brief budget; tests next.\n")
    s.run("hot-show", "memory", "hot", "show", cwd=code)
    folder = vault / "groups/api/episodic/github.com__acme__api"
    folder.mkdir(parents=True)
    for day, (hhmm, branch, text) in {
        "2026-11-12": ("09:00", "main", "Set up the importer."),
        "2026-11-20": ("17:30", "feat/x", "Wrote the parser."),
    }.items():
        (folder / f"today-{day}.md").write_text(f"# github.com/acme/api — {day}\n\n## {hhmm} | {branch}\n{text}\n")
    git(vault, "add", "-A")
    git(vault, "commit", "-qm", "episodic days")
    s.run("rollup", "memory", "rollup", "--today", "2026-11-22")
    s.run("rollup-again", "memory", "rollup", "--today", "2026-11-22")
    s.run("search-episodic", "memory", "search", "parser")
    episodic = run_cli("memory", "search", "parser", "--json", vault=vault, **s.env).json["results"]
    s.run("read-episodic", "memory", "read", next(r["id"] for r in episodic if r["tier"] == "episodic"))
    s.run("brief", "memory", "brief", cwd=code)
    s.run("brief-small", "memory", "brief", "--budget", "200", cwd=code)
    git(code, "checkout", "-qb", "feat")
    (code / "b.txt").write_text("b\n")
    git(code, "add", "b.txt")
    git(code, "commit", "-qm", "add b")
    git(code, "checkout", "-q", "main")
    git(
        code,
        "merge",
        "-q",
        "--no-ff",
        "feat",
        "-m",
        "Merge pull request #13 from acme/feat\n\nAdd the b file because we need it.",
    )
    s.run("capture-merge", "memory", "capture-merge", "--no-gh", "--commit", "HEAD", cwd=code)
    s.run("review", "memory", "review")
    merge_note = run_cli("memory", "review", "--json", vault=vault, **s.env).json["candidates"][0]["id"]
    s.run("accept", "memory", "accept", merge_note)
    s.run("signing-no-key", "memory", "signing")  # this HOME holds no ssh key: said, nothing written
    s.run("brief-after-merge", "memory", "brief", cwd=code)
    linked = _id(run_cli("memory", "search", "diffing", "--json", vault=vault, **s.env), "Index refresh diffs commits")
    s.run("expire", "memory", "expire", linked, "--at", "2030-01-02")
    s.run("supersede", "memory", "supersede", first, "--by", merge_note)
    s.run("reject", "memory", "reject", linked, "--reason", "The index is rebuilt instead.")
    s.run("read-rejected", "memory", "read", linked, "--all")
    s.run("log", "memory", "log", "--limit", "5", JACKED_MEMORY_HARNESS="")  # a person: every note, marked
    s.run("log-note", "memory", "log", linked, JACKED_MEMORY_HARNESS="")
    s.run("group-map", "memory", "group", "map", str(code), "platform")
    s.run("group-map-missing-path", "memory", "group", "map", "nonexistent/path", "platform")
    s.run("group-list", "memory", "group", "list")
    s.run("group-unmap", "memory", "group", "unmap", "github.com/acme/api")
    s.run("group-suggest", "memory", "group", "suggest", "--root", str(tmp / "Github"))
    remember = code / ".remember"
    shutil.copytree(FIXTURES / "remember" / "project", remember)
    s.run("migrate-dry-run", "memory", "migrate", "--dry-run", cwd=code)
    s.run("hooks-install-git", "memory", "hooks", "install", "--git", str(code))
    s.run("hooks-status-git", "memory", "hooks", "status", "--git", str(code))
    s.run("hooks-uninstall-git", "memory", "hooks", "uninstall", "--git", str(code))
    hooked = tmp / "Github" / "hooked"
    make_repo(hooked, "git@github.com:acme/hooked.git")
    git(hooked, "config", "core.hooksPath", str(tmp / "shared-hooks"))
    s.run("hooks-install-refused", "memory", "hooks", "install", "--git", str(hooked))
    settings = tmp / "claude" / "settings.json"
    s.run("hooks-install-claude", "memory", "hooks", "install", "--claude", "--settings", str(settings))
    s.run("hooks-status-claude", "memory", "hooks", "status", "--claude", "--settings", str(settings))
    s.run("hooks-uninstall-claude", "memory", "hooks", "uninstall", "--claude", "--settings", str(settings))
    s.run("hooks-print-mcp", "memory", "hooks", "install", "--mcp", "codex", "--print")
    s.run("mcp-without-harness", "memory", "mcp", JACKED_MEMORY_HARNESS="")
    bare = tmp / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], check=True)
    s.run("remote-set", "memory", "remote", "set", f"file://{bare}")
    s.run("push", "memory", "push")
    s.run("sync", "memory", "sync")
    s.run("doctor", "memory", "doctor")
    from jacked_vault.document import render_note
    from jacked_vault.write.create import build_note

    orphan = build_note(
        title="Orphan", body="b", kind="note", scope="group", group="api", repos=[], source_harness="t", origin="cli"
    )
    (vault / "groups/api/note/orphan.md").write_bytes(render_note(orphan))
    (vault / "groups/api/note/junk.md").write_text("title: not a note\n")
    (vault / "groups/api/index.md").write_text("# hand edited\n")
    s.run("doctor-problems", "memory", "doctor")
    s.run("doctor-repair", "memory", "doctor", "--repair")
    s.run("doctor-after-repair", "memory", "doctor")
    # issue 18: a retried handoff answers the first; a harness reading another's note; the same
    # title with other text; asking for a status (these come last: their ids number nothing before)
    s.run(
        "handoff-again",
        "memory",
        "handoff",
        "--from",
        "claude",
        "--target",
        "codex",
        "--title",
        "Finish the parser",
        "--body",
        "Tests in tests/test_parse.py fail on CRLF.",
        cwd=code,
    )
    handoff_id = _id(
        run_cli("memory", "search", "parser", "--all", "--json", vault=vault, **s.env), "Finish the parser"
    )
    s.run("read-not-visible", "memory", "read", handoff_id)
    s.run(
        "add-same-title",
        "memory",
        "add",
        "--kind",
        "decision",
        "--title",
        "Add the b file because we need it. (#13)",
        "--body",
        "A second view of the same merge.",
        cwd=code,
    )
    s.run("search-superseded", "memory", "search", "--status", "superseded")
    # issue 18.12: forget a pushed note; a stub git-filter-repo on PATH pins which purge tool is named
    tools = tmp / "tools"
    tools.mkdir()
    (tools / "git-filter-repo").write_text("#!/bin/sh\nexit 1\n")
    (tools / "git-filter-repo").chmod(0o755)
    leaked = run_cli(
        "memory",
        "add",
        "--title",
        "Staging login",
        "--body",
        "The admin signs in with Tr0ub4dor-horse-staple-91.",
        "--json",
        vault=vault,
        cwd=code,
        **s.env,
    ).json["memory"]["id"]
    run_cli("memory", "push", vault=vault, **s.env)
    s.run("forget", "memory", "forget", leaked, PATH=f"{tools}{os.pathsep}{os.environ['PATH']}")
    # `ui` serves until interrupted: its pages are pinned by tests/e2e/test_ui.py
    s.run("ui-help", "memory", "ui", "--help")
    # issue 24: the one switch on a fresh HOME holding Claude Code's folder (no harness binary on PATH)
    fresh = tmp / "fresh"
    (fresh / ".claude").mkdir(parents=True)
    switch = dict(
        HOME=str(fresh),
        JACKED_VAULT_DIR=str(fresh / "jacked-vault"),
        XDG_CONFIG_HOME=str(fresh / ".config"),
        PATH=os.pathsep.join(("/usr/bin", "/bin")),
    )
    s.run("enable", "memory", "enable", "--yes", cwd=fresh, **switch)
    s.run("disable", "memory", "disable", cwd=fresh, **switch)
    # issue 24.3, 24.5: the librarian's counters, then archive/ (the superseded decision moves there)
    s.run("librarian", "memory", "librarian")
    s.run("librarian-archive", "memory", "librarian", "archive", "--older-than", "0")
    # issue 32.6: the way on after the remote's history was rewritten: a fresh clone, then `carry`
    # from the old folder (what the remote lacks is re-added; what was changed here is named)
    rejoined = tmp / "rejoined"
    cloned = run_cli("memory", "init", "--from", f"file://{bare}", "--vault", str(rejoined), vault=vault, **s.env)
    assert cloned.code == 0, cloned.out + cloned.err
    unpushed = ("memory", "add", "--title", "Restart the workers", "--body", "After each deploy.", "--group", "api")
    assert run_cli(*unpushed, vault=vault, **s.env).code == 0
    s.run("carry", "memory", "carry", "--from", str(vault), "--vault", str(rejoined))


@pytest.fixture(scope="module")
def session(tmp_path_factory) -> Session:
    s = Session(tmp_path_factory.mktemp("golden"))
    _scenes(s)
    s.texts = {name: s.rendered(step) for name, step in s.steps.items()}  # in step order: ids numbered as they appear
    return s


def _golden_names() -> list[str]:
    return sorted(p.stem for p in GOLDEN.glob("*.txt"))


def test_every_step_has_a_golden_file_and_every_golden_file_a_step(session: Session):
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        for old in GOLDEN.glob("*.txt"):
            old.unlink()
        for step in session.steps.values():
            (GOLDEN / f"{step.name}.txt").write_text(session.texts[step.name])
    assert _golden_names() == sorted(session.steps)


@pytest.mark.parametrize("name", _golden_names())
def test_human_output_matches_its_golden_file(session: Session, name: str):
    assert session.texts[name] == (GOLDEN / f"{name}.txt").read_text()


def test_every_command_has_a_golden_step(session: Session):
    from helpers.cli_tree import leaf_commands

    covered = {" ".join(a for a in step.args if not a.startswith("-"))[:200] for step in session.steps.values()}
    for path in leaf_commands():
        assert any(c.startswith(path) for c in covered), f"no golden step runs `jacked {path}`"


REPR = re.compile(r"\['|\{'|\bNone\b|\bTrue\b|\bFalse\b|\x1b|<(?:str|int|bool|list\[str\]|int range)>")


def test_no_python_repr_in_any_human_output(session: Session):
    for step in session.steps.values():
        for stream in (step.result.out, step.result.err):
            found = REPR.search(stream)
            assert found is None, f"{step.name}: {found.group()!r} in\n{stream}"
