"""The door matrix (issue 17, "The matrices, generated"): every door of `jacked_vault.registry.DOORS`
crossed with every rule of `registry.RULES`.

A cell is either not applicable (the door says why, in the registry) or runs this module's driver
for (door, rule); a cell without a driver FAILS, so a door added to the registry without drivers,
or registered without passing every cell, fails here. Each driver uses the door's real entry:
the CLI in a subprocess, the MCP server through its client, the real session-end and pre-compact
hooks (whose detached drain is waited for) with a real distiller executable, a real `git merge`
and `capture-merge` for post-merge, migrate from a real `.remember/`, the transitions, `hot set`,
`group map`, `rollup`, `init`, `doctor --repair` of planted files, and for the arrival doors a
hostile commit pushed with plain git by a third clone to a real bare remote.

A cell that fails because the product lets something through is listed in KNOWN_HOLES: it is
xfail(strict) and expects exactly `KnownHole`, so any other failure in it still fails, and the
day the hole is closed the cell passes and the strict xfail says to remove the entry.

What every cell asserts is that the hostile input is refused (locally, with a coded error) or
quarantined (arriving) and that nothing leaked or changed: no commit, no file, no token in any
history, working tree, search index or output, no note shown as reviewed without a person's
accept, no commit without its audit line, no note's value rewritten, nothing written outside
the vault.
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
import shutil
import string
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC
from functools import cached_property
from pathlib import Path

import pytest
from conftest import CliResult, git, make_repo, run_cli, snapshot, write_machine_config
from helpers.state import state_dir
from helpers.sync_world import forge_audit

from jacked_vault import registry
from jacked_vault.context import Context
from jacked_vault.notes import AddRequest, add

_rng = random.Random(20261201)
AWS = "AK" + "IA" + "".join(_rng.choice(string.ascii_uppercase + string.digits) for _ in range(16))
NEEDLE = AWS[:12]  # what must never be stored or printed (a zero-width space may follow it)
SLACK_SLUG = (
    "xo"
    + "xb-"
    + "".join(_rng.choice(string.digits) for _ in range(10))
    + "-"
    + "".join(_rng.choice(string.digits) for _ in range(13))
    + "-"
    + "".join(_rng.choice(string.ascii_lowercase + string.digits) for _ in range(24))
)

# How a token hides: raw, behind a JSON escape (finding 2), percent-encoded, split by a zero-width
# space, split over two lines (the line before ends in prose).
HIDINGS = {
    "raw": f"deploy log {AWS} end",
    "json-escape": '{"log":"ok\\n' + AWS + '"}',
    "percent": f"GET /callback?key%3D{AWS}&x=1",
    "zero-width": f"deploy key {AWS[:12]}\u200b{AWS[12:]} end",
    "split-lines": f"deploy\n{AWS[:12]}\n{AWS[12:]} end",
}
SECRET_RULES = tuple(r for r in registry.RULES if r.startswith("secret:"))
assert {r.split(":", 1)[1] for r in SECRET_RULES} == set(HIDINGS), "a hiding the registry names and this module lacks"

REJECTED_TITLE, REJECTED_BODY = "Use tabs for indentation", "Always indent Python with tabs."
INVALID_TITLE = "Overlong " + "t" * 200  # 209 characters: over the 200-character limit
CONTROL_BODY = "a body with a bell \x07 in it"
CLAIMED = "Claimed review"  # the title of every note that claims `trust: reviewed` by itself
REWRITTEN = "Force-push to main is fine."  # what a rewrite of a note's value says


# == the scene of a local door =====================================================================


@dataclass
class World:
    """A vault and a code repo (`github.com/acme/api`, a solo group `api`), made on first use."""

    tmp: Path

    @cached_property
    def vault(self) -> Path:
        from jacked_vault.write.init import init_vault

        path = self.tmp / "vault"
        init_vault(path)
        return path

    @cached_property
    def repo(self) -> Path:
        path = self.tmp / "code" / "api"
        path.mkdir(parents=True)
        make_repo(path, "git@github.com:acme/api.git")
        return path

    def ctx(self, harness: str = "tester") -> Context:
        return Context.create(vault=str(self.vault), cwd=self.repo, harness=harness)

    def cli(self, *args: str, stdin: str | None = None) -> CliResult:
        return run_cli("memory", *args, vault=self.vault, cwd=self.repo, stdin=stdin)

    def head(self) -> str:
        return git(self.vault, "rev-parse", "HEAD").strip()

    def outside(self, name: str = "outside") -> Path:
        """A folder outside the vault that a planted symlink points at."""
        path = self.tmp / name
        path.mkdir(exist_ok=True)
        return path


@dataclass
class Outcome:
    """What one submission through a note door did: `code` is the refusal's code (None: a note
    was created), `out` everything the door printed or answered."""

    code: str | None
    out: str


def code_of(error_code: str | None) -> str | None:
    return error_code.removeprefix("JACKED_MEMORY_") if error_code else None


def note_files(root: Path) -> dict[str, bytes]:
    """Every note file of the vault's working tree (episodic, index, hot excluded)."""
    from jacked_vault.store.layout import Store, classify_path

    store = Store(root)
    out = {}
    for path in root.rglob("*.md"):
        rel = str(path.relative_to(root))
        if (
            ".git" not in path.parts
            and ".jacked" not in path.parts
            and classify_path(store, rel) == "note"
            and path.is_file()
        ):
            out[rel] = path.read_bytes()
    return out


def recall(root: Path, *words: str, cwd: Path | None = None) -> list[dict]:
    """Every note search gives for `words`, whatever its status, as a reader with no harness sees it."""
    statuses = [a for s in ("candidate", "active", "rejected", "superseded") for a in ("--status", s)]
    result = run_cli("memory", "search", *words, *statuses, "--all", "--limit", "200", "--json", vault=root, cwd=cwd)
    assert result.code == 0, result.out + result.err
    return [r for r in result.json["results"] if r["tier"] == "note"]


def stored_anywhere(root: Path, needle: str, *, history: str | None = "--all") -> list[str]:
    """Where `needle` is stored: the vault's history (`history`: the revisions `git log -p` walks),
    its working tree and machine-local state (the search index, queue, log), quarantine aside."""
    found = []
    if history and needle in git(root, "log", "-p", *history.split()):
        found.append("git history")
    for path in root.rglob("*"):
        rel = path.relative_to(root)
        if not path.is_file() or path.is_symlink() or rel.parts[0] == ".git" or "quarantine" in rel.parts:
            continue
        text = path.read_bytes().decode("utf-8", "ignore").replace("\u200b", "")
        if needle in text or (path.name.startswith("index.sqlite") and needle.lower() in text.lower()):
            found.append(str(rel))
    return found


def assert_kept_out(world: World, *outputs: str) -> None:
    assert stored_anywhere(world.vault, NEEDLE) == []
    for text in outputs:
        assert NEEDLE not in text.replace("\u200b", "")


def commits_since(root: Path, since: str) -> list[str]:
    return git(root, "rev-list", "HEAD", "--not", since).split()


def assert_audited(root: Path, since: str | list[str], *, made: bool = True) -> None:
    """Every commit after `since` (revisions) carries `Memory-Audit:`, the chains verify, and doctor
    finds no audit problem. `made`: the door made at least one commit."""
    from jacked_vault.store import audit

    commits = git(root, "rev-list", "HEAD", "--not", *([since] if isinstance(since, str) else since)).split()
    assert commits or not made, "the door made no commit"
    for commit in commits:
        message = git(root, "log", "-1", "--format=%B", commit)
        assert "\nMemory-Audit: " in message, f"a commit without its audit line: {message!r}"
    assert audit.verify(root).problems == []
    report = run_cli("memory", "doctor", "--json", vault=root)
    assert report.json["audit_problems"] == [], report.out


def assert_unreviewed(root: Path, *words: str, cwd: Path | None = None, expect: int = 1) -> list[dict]:
    found = recall(root, *words, cwd=cwd)
    assert len(found) >= expect, found
    assert {r["trust"] for r in found} == {"unreviewed"}, found
    return found


def plant_symlink(at: Path, outside: Path) -> None:
    """Replace the folder `at` by a symlink to `outside`, which holds a copy of what it held."""
    if at.exists():
        shutil.copytree(at, outside, dirs_exist_ok=True, symlinks=True)
        shutil.rmtree(at)
    at.parent.mkdir(parents=True, exist_ok=True)
    at.symlink_to(outside, target_is_directory=True)


def tree_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _reject_value(world: World, title: str = REJECTED_TITLE, body: str = REJECTED_BODY) -> str:
    note = add(world.ctx(), AddRequest(title=title, body=body))
    assert world.cli("reject", note.note.id, "--reason", "we use spaces").code == 0
    return note.note.id


def _render(
    title: str, body: str, *, group: str = "api", kind: str = "note", origin: str = "cli", **changes
) -> tuple[str, bytes, str]:
    """(note id, rendered bytes, file stem) of a note built as the tool would, with `changes`."""
    from jacked_vault.document import render_note, slugify_title
    from jacked_vault.write.create import build_note

    note = build_note(
        title=title, body=body, kind=kind, scope="group", group=group, repos=[], source_harness="x", origin=origin
    )
    note = dataclasses.replace(note, **changes)
    return note.id, render_note(note), slugify_title(title)


def _with_title(data: bytes, title: str) -> bytes:
    """A rendered note whose title field says `title` (no validation: the bytes a hand would write)."""
    import re

    return re.sub(rb'^title: ".*"$', f"title: {json.dumps(title)}".encode(), data, count=1, flags=re.MULTILINE)


# == the note doors: one way to submit a note through each ========================================


def submit_cli(world: World, *args: str, stdin: str | None = None) -> Outcome:
    result = world.cli(*args, "--json", stdin=stdin)
    out = result.out + result.err
    if result.code == 0:
        return Outcome(None, out)
    return Outcome(code_of(result.json["error"]["code"]), out)


def submit_add(world: World, title: str, body: str, kind: str = "note", *extra: str) -> Outcome:
    return submit_cli(world, "add", "--title", title, "--kind", kind, "--body", body, *extra)


def submit_add_body_file(world: World, title: str, body: str, kind: str = "note", *extra: str) -> Outcome:
    path = world.tmp / f"body-{uuid.uuid4().hex[:8]}.md"
    path.write_text(body)
    return submit_cli(world, "add", "--title", title, "--kind", kind, "--body-file", str(path), *extra)


def submit_add_stdin(world: World, title: str, body: str, kind: str = "note", *extra: str) -> Outcome:
    return submit_cli(world, "add", "--title", title, "--kind", kind, "--stdin", *extra, stdin=body)


def submit_handoff(world: World, title: str, body: str, kind: str = "handoff", *extra: str) -> Outcome:
    target = "codex" if kind == "handoff" else "Not A Harness!"  # handoff has no --kind: an invalid target instead
    return submit_cli(
        world, "handoff", "--from", "claude", "--target", target, "--title", title, "--body", body, *extra
    )


def mcp_call(world: World, tool: str, arguments: dict) -> tuple[bool, dict]:
    from helpers.mcp_server import call, inproc, run
    from mcp import Client

    async def go():
        async with Client(inproc(world.vault, world.repo)) as client:
            return await call(client, tool, arguments)

    return run(go)


def submit_mcp(world: World, title: str, body: str, kind: str = "note", **extra) -> Outcome:
    is_error, payload = mcp_call(world, "memory_save", {"title": title, "body": body, "kind": kind, **extra})
    out = json.dumps(payload, ensure_ascii=False)
    if not is_error:
        return Outcome(None, out)
    assert payload["error"]["code"] == "MEMORY_WRITE_REJECTED", payload
    return Outcome(code_of(payload["error"].get("reason")) or "MEMORY_WRITE_REJECTED", out)


def submit_carry(world: World, title: str, body: str, kind: str = "note", **changes) -> Outcome:
    """A note committed by hand (its bytes as given, never validated) in an old clone on this
    machine, then `carry --from` it into the world's vault (issue 32.6); the refusal's code is the
    one `carry` gives the note."""
    from jacked_vault.write.init import init_vault

    old = world.tmp / f"old-{uuid.uuid4().hex[:8]}"
    init_vault(old)
    _, data, _ = _render("Placeholder", "PLACEHOLDER-BODY", **changes)
    data = _with_title(data, title).replace(b"PLACEHOLDER-BODY", body.encode())
    data = data.replace(b'kind: "note"', f"kind: {json.dumps(kind)}".encode(), 1)
    rel = "groups/api/note/carried.md"
    (old / rel).parent.mkdir(parents=True, exist_ok=True)
    (old / rel).write_bytes(data)
    git(old, "add", rel)
    git(old, "commit", "-qm", "by hand")
    result = world.cli("carry", "--from", str(old), "--json")
    out = result.out + result.err
    if result.code:
        return Outcome(code_of(result.json["error"]["code"]), out)
    if result.json["carried"]:
        return Outcome(None, out)
    refused = result.json["not_carried"]
    return Outcome(refused[0]["code"] if refused else "NOTHING CARRIED", out)


def _distiller_answering(world: World, answer: dict) -> None:
    script = world.tmp / "distiller.py"
    reply = world.tmp / "answer.json"
    reply.write_text(json.dumps(answer))
    script.write_text(f"import sys\nsys.stdin.read()\nsys.stdout.write(open({str(reply)!r}).read())\n")
    write_machine_config({"distill": {"command": [sys.executable, str(script)], "timeout_s": 20}})


def drain_capture(world: World, event: str, answer: dict) -> Outcome:
    """A session capture through its real entry: `jacked _hook session-end` (or `pre-compact`) with
    the harness's payload on stdin, which queues a marker and starts `jacked _hook drain` detached;
    the drain is waited for (its one `hook=drain` log line), with a real distiller executable
    giving `answer`. The note's refusal is read from the vault's log."""
    import time

    from helpers.capture import Builder

    _distiller_answering(world, answer)
    session = str(uuid.uuid4())
    transcript = Builder(world.repo, session=session).realistic().write(world.tmp / "claude" / f"{session}.jsonl")
    payload = {
        "session_id": session,
        "transcript_path": str(transcript),
        "cwd": str(world.repo),
        "hook_event_name": event,
    }
    payload.update({"reason": "exit"} if event == "SessionEnd" else {"trigger": "auto", "custom_instructions": ""})
    cache = state_dir(world.vault)
    symlinked = cache.is_symlink()
    log = cache / "log"
    seen = len(log.read_text().splitlines()) if log.exists() and not symlinked else 0
    before = set(note_files(world.vault))
    hook = "session-end" if event == "SessionEnd" else "pre-compact"
    result = run_cli(
        "_hook", hook, "--vault", str(world.vault), vault=world.vault, cwd=world.repo, stdin=json.dumps(payload)
    )
    assert result.code == 0, "a hook always exits 0"
    lines: list[str] = []
    if not symlinked:  # else the hook refuses to queue: no drain starts
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            lines = log.read_text().splitlines()[seen:] if log.exists() else []
            if any(" hook=drain " in line for line in lines):
                break
            time.sleep(0.05)
        else:
            raise AssertionError(f"the detached drain never ended: {lines}")
    text = "\n".join(lines) + result.out + result.err
    if set(note_files(world.vault)) - before:
        return Outcome(None, text)
    refused = [
        line.split("distilled note refused (")[1].split(")")[0] for line in lines if "distilled note refused (" in line
    ]
    if refused:
        return Outcome(refused[0], text)
    errors = re.findall(r"VaultError\(([A-Z_]+)\)", text)  # the capture failed (the drain keeps the marker)
    if symlinked:
        return Outcome(
            "UNSAFE_PATH" if not lines else "ERROR", text
        )  # a hook fails open: nothing queued, nothing written
    return Outcome(errors[0] if errors else "DISTILLER", text)  # else the distiller's answer was refused as it arrived


def _capture_door(event: str):
    def submit(world: World, title: str, body: str, kind: str = "decision", **note_extra) -> Outcome:
        note = {"kind": kind, "title": title, "body": body, "tags": [], **note_extra}
        return drain_capture(world, event, {"episodic": "Worked on the deploy notes.", "note": note})

    return submit


NOTE_DOORS: dict[str, Callable[..., Outcome]] = {
    "add": submit_add,
    "add-body-file": submit_add_body_file,
    "add-stdin": submit_add_stdin,
    "handoff": submit_handoff,
    "mcp-save": submit_mcp,
    "carry": submit_carry,
    "session-end": _capture_door("SessionEnd"),
    "pre-compact": _capture_door("PreCompact"),
}
CAPTURES = ("session-end", "pre-compact")
KIND_OF = {
    "handoff": "handoff",
    "session-end": "decision",
    "pre-compact": "decision",
}  # the folder a door's note lands in


def merge_in(world: World, subject: str, body: str, branch: str = "feat") -> str:
    """A real `git merge --no-ff` of a feature branch in the code repo; the merge commit's sha."""
    git(world.repo, "checkout", "-q", "-b", branch)
    (world.repo / f"{branch}.txt").write_text(f"{branch}\n")
    git(world.repo, "add", f"{branch}.txt")
    git(world.repo, "commit", "-qm", "feature")
    git(world.repo, "checkout", "-q", "main")
    git(world.repo, "merge", "-q", "--no-ff", branch, "-m", subject, "-m", body)
    return git(world.repo, "rev-parse", "HEAD").strip()


def capture_merge(world: World, sha: str) -> CliResult:
    return world.cli("capture-merge", "--repo", str(world.repo), "--commit", sha, "--no-gh", "--json")


def remember(world: World, files: dict[str, str]) -> Path:
    source = world.repo / ".remember"
    source.mkdir(exist_ok=True)
    for name, text in files.items():
        (source / name).write_text(text)
    return source


# == the drivers ===================================================================================

Driver = Callable[..., None]
DRIVERS: dict[tuple[str, str], Driver] = {}


def drives(doors: str | tuple[str, ...], rules: str | tuple[str, ...]) -> Callable[[Driver], Driver]:
    """Register `fn` as the driver of each (door, rule); rule "secret" stands for every hiding (the
    driver is then called with the hidden token's text)."""
    doors = (doors,) if isinstance(doors, str) else doors
    rules = (rules,) if isinstance(rules, str) else rules
    expanded = [r for rule in rules for r in (SECRET_RULES if rule == "secret" else (rule,))]

    def register(fn: Driver) -> Driver:
        for door in doors:
            for rule in expanded:
                assert (door, rule) not in DRIVERS, f"two drivers for {door}-{rule}"
                DRIVERS[(door, rule)] = fn
        return fn

    return register


# -- schema: invalid input refused with a coded error, nothing written ----------------------------


@drives(tuple(NOTE_DOORS), "schema")
def schema_note_door(world: World, door: str) -> None:
    submit = NOTE_DOORS[door]
    kind = KIND_OF.get(door, "note")
    cases = [("unknown kind", "Deploy notes", "plain", "bogus"), ("title over 200", INVALID_TITLE, "plain", kind),
             ("control character", "Deploy notes", CONTROL_BODY, kind)]  # fmt: skip
    for what, title, body, k in cases:
        before = snapshot(world.vault)
        notes = note_files(world.vault)
        outcome = submit(world, title, body, k)
        assert outcome.code, f"{what}: accepted"
        assert note_files(world.vault) == notes, what
        if door in CAPTURES:  # the session's deterministic entry is still written; no note, no bad byte
            assert "\x07" not in git(world.vault, "log", "-p", "--all") and "t" * 200 not in git(
                world.vault, "log", "--all", "--format=%B"
            )
        else:
            assert outcome.code in ("VALIDATION", "USAGE"), (what, outcome.out)
            assert snapshot(world.vault) == before, what


@drives("post-merge", "schema")
def schema_post_merge(world: World, door: str) -> None:
    """A merge message is free text: capture refuses what the gate would (nothing invalid is ever
    written): control and bidi characters and an overlong subject never reach a committed note."""
    title = "Deploy " + "s" * 300 + " \x1b[31m red"
    sha = merge_in(world, "Merge pull request #7 from acme/feat", f"{title}\n\nBody \x07 with a bell\u202e and bidi")
    assert all(c in git(world.repo, "log", "-1", "--format=%B", sha) for c in "\x07\x1b\u202e")
    result = capture_merge(world, sha)
    assert result.code == 0, result.out + result.err
    assert [m["action"] for m in result.json["merges"]] == ["created"], result.out
    for rel, data in note_files(world.vault).items():
        text = data.decode()
        assert not any(c in text for c in "\x07\x1b\u202e"), rel
    report = world.cli("doctor", "--json").json
    assert report["invalid_files"] == [] and report["ok"], report
    assert all(len(r["title"]) <= 200 for r in recall(world.vault, cwd=world.repo))


@drives("migrate", "schema")
def schema_migrate(world: World, door: str) -> None:
    remember(
        world,
        {
            "core-memories.md": f"## Deploy\n{CONTROL_BODY}\n",
            "today-2026-11-19.md": "## 09:00 | main\nbad \x1b[2J escape\n",
        },
    )
    before = snapshot(world.vault)
    result = world.cli("migrate", "--json")
    assert result.code == 0, result.err
    assert {f["action"] for f in result.json["files"]} == {"skipped"}, result.json["files"]
    assert snapshot(world.vault) == before


@drives("transition", "schema")
def schema_transition(world: World, door: str) -> None:
    note = add(world.ctx(), AddRequest(title="Some idea", body="plain", status="candidate"))
    newer = add(world.ctx(), AddRequest(title="Newer idea", body="plain"))
    before = snapshot(world.vault)
    for args in (
        ["reject", note.note.id, "--reason", "bad \x07 reason"],
        ["reject", note.note.id, "--reason", "r" * 5000],
        ["expire", newer.note.id, "--at", "not a time"],
        ["expire", newer.note.id, "--at", "1999-01-01"],
        ["supersede", note.note.id, "--by", newer.note.id],
        ["accept", "mem_not_an_id"],
    ):
        result = world.cli(*args, "--json")
        assert result.code != 0, args
        assert code_of(result.json["error"]["code"]) in ("VALIDATION", "USAGE", "NOT_FOUND"), (args, result.out)
        assert snapshot(world.vault) == before, args


@drives("hot-set", "schema")
def schema_hot_set(world: World, door: str) -> None:
    before = snapshot(world.vault)
    for body in ("x" * 5000, CONTROL_BODY, "   "):
        result = world.cli("hot", "set", "--body", body, "--json")
        assert code_of(result.json["error"]["code"]) == "VALIDATION", result.out
        assert snapshot(world.vault) == before


@drives("config", "schema")
def schema_config(world: World, door: str) -> None:
    before = snapshot(world.vault)
    for args in (["github.com/acme/api", "Bad Group!"], ["not an identity", "team"], ["github.com/acme/api", "g" * 80]):
        result = world.cli("group", "map", *args, "--json")
        assert code_of(result.json["error"]["code"]) in ("VALIDATION", "CONFIG"), result.out
        assert snapshot(world.vault) == before


def planted_day(world: World, text: str, day: str = "2026-11-20") -> Path:
    """A past day file put in the vault's working tree by hand (never committed)."""
    path = world.vault / "groups" / "api" / "episodic" / "github.com__acme__api" / f"today-{day}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(f"# {day}\n\n## 09:00 | main\n{text}\n".encode())
    return path


@drives("rollup", "schema")
def schema_rollup(world: World, door: str) -> None:
    """Day files rollup reads from the working tree: one that is not valid text is refused, with
    its path, and nothing is committed or moved."""
    for day, text in (("2026-11-20", CONTROL_BODY), ("2026-11-21", "escape \x1b[2J here")):
        path = planted_day(world, text, day)
        before = snapshot(world.vault)
        result = world.cli("rollup", "--today", "2026-11-28", "--json")
        assert result.code == 1 and code_of(result.json["error"]["code"]) == "VALIDATION", result.out
        assert snapshot(world.vault) == before
        path.unlink()


def _fresh_repo(world: World, files: dict[str, bytes]) -> Path:
    """A folder that is a git repository with no commit yet (init commits what it finds there)."""
    folder = world.tmp / f"new-{uuid.uuid4().hex[:6]}"
    folder.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(folder)], check=True)
    for rel, data in files.items():
        (folder / rel).write_bytes(data)
    return folder


def _visible(folder: Path) -> dict[str, bytes]:
    return {rel: data for rel, data in tree_of(folder).items() if not rel.startswith((".git/", ".jacked/"))}


@drives("init", "schema")
def schema_init(world: World, door: str) -> None:
    """A README.md or vault.json already in the folder is committed by init as it is: invalid, it
    is refused, nothing is committed and no file appears."""
    for files in ({"README.md": CONTROL_BODY.encode()}, {"vault.json": b'{"version": 1, "groups": {"Bad Group!": {}}}'},
                  {"vault.json": b"not json"}):  # fmt: skip
        folder = _fresh_repo(world, files)
        result = run_cli("memory", "--vault", str(folder), "init", "--no-scan", "--json", cwd=world.tmp)
        assert result.code == 1 and code_of(result.json["error"]["code"]) in ("VALIDATION", "CONFIG"), result.out
        assert _visible(folder) == files and git(folder, "rev-list", "--all") == ""


@drives("init", "secret")
def secret_init(world: World, door: str, text: str) -> None:
    folder = _fresh_repo(world, {"README.md": f"# Our vault\n\n{text}\n".encode()})
    result = run_cli("memory", "--vault", str(folder), "init", "--no-scan", "--json", cwd=world.tmp)
    assert result.code == 1 and code_of(result.json["error"]["code"]) == "SECRET", result.out
    assert set(_visible(folder)) == {"README.md"} and git(folder, "rev-list", "--all") == ""
    assert NEEDLE not in result.out + result.err
    assert [p for p in stored_anywhere(folder, NEEDLE, history=None) if p != "README.md"] == []


@drives("rollup", "secret")
def secret_rollup(world: World, door: str, text: str) -> None:
    path = planted_day(world, text)
    before = snapshot(world.vault)
    result = world.cli("rollup", "--today", "2026-11-28", "--json")
    assert result.code == 1 and code_of(result.json["error"]["code"]) == "SECRET", result.out
    assert snapshot(world.vault) == before
    assert NEEDLE not in result.out + result.err + git(world.vault, "log", "-p", "--all")
    assert [p for p in stored_anywhere(world.vault, NEEDLE) if p != str(path.relative_to(world.vault))] == []


@drives("repair", "schema")
def schema_repair(world: World, door: str) -> None:
    _, data, _ = _render("Planted", "plain")
    plants = {"groups/api/note/bad-title.md": _with_title(data, INVALID_TITLE),
              "groups/api/note/bad-kind.md": data.replace(b'kind: "note"', b'kind: "bogus"'),
              "groups/api/note/bad-body.md": data.replace(b"plain", CONTROL_BODY.encode()),
              "groups/api/hot.md": b"a bell \x07 in hot.md\n"}  # fmt: skip
    for rel, content in plants.items():
        (world.vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (world.vault / rel).write_bytes(content)
    head = world.head()
    result = world.cli("doctor", "--repair", "--json")
    for rel in plants:
        assert not (world.vault / rel).exists(), f"{rel}: an invalid stray file is moved to quarantine"
        assert any(r["path"] == rel for r in result.json["quarantine"]), rel
        assert rel not in git(world.vault, "ls-files")
    assert_audited(world.vault, head, made=False)


# -- secret:*: the token appears nowhere ------------------------------------------------------------


@drives(("add", "add-body-file", "add-stdin", "handoff", "mcp-save", "carry"), "secret")
def secret_note_door(world: World, door: str, text: str) -> None:
    add(world.ctx(), AddRequest(title="Existing", body="already here"))
    before = snapshot(world.vault)
    outcome = NOTE_DOORS[door](world, "Deploy notes", text, KIND_OF.get(door, "note"))
    assert outcome.code == "SECRET", outcome.out
    assert snapshot(world.vault) == before
    assert_kept_out(world, outcome.out, world.cli("search", "deploy", "--all").out)


@drives(CAPTURES, "secret")
def secret_capture(world: World, door: str, text: str) -> None:
    """The distiller's answer (the episodic sentence and the note) carries the token: the answer is
    refused as it arrives (a retry queued) or the note by the gate; the entry is the deterministic one."""
    event = "SessionEnd" if door == "session-end" else "PreCompact"
    answer = {
        "episodic": f"Sentence {text}"[:300].replace("\n", " "),
        "note": {"kind": "decision", "title": "Deploy", "body": text, "tags": []},
    }
    outcome = drain_capture(world, event, answer)
    assert outcome.code, "a note holding a secret was created"
    assert "SECRET" in outcome.out.upper(), outcome.out
    assert list(world.vault.glob("groups/api/episodic/*/today-*.md")), "the deterministic entry is written"
    assert_kept_out(world, outcome.out, world.cli("search", "deploy", "--all").out)


@drives("post-merge", "secret")
def secret_post_merge(world: World, door: str, text: str) -> None:
    sha = merge_in(world, "Merge pull request #7 from acme/feat", f"Deploy\n\n{text}")
    result = capture_merge(world, sha)
    assert result.code == 0, result.out + result.err
    (outcome,) = result.json["merges"]
    assert outcome["action"] == "created" and outcome["dropped"], outcome
    assert_kept_out(world, result.out + result.err, world.cli("search", "deploy", "--all").out)


@drives("migrate", "secret")
def secret_migrate(world: World, door: str, text: str) -> None:
    remember(world, {"core-memories.md": f"## Deploy\n{text}\n", "today-2026-11-19.md": f"## 09:00 | main\n{text}\n"})
    result = world.cli("migrate", "--json")
    assert result.code == 0, result.err
    assert {f["action"] for f in result.json["files"]} == {"skipped"}, result.json["files"]
    assert_kept_out(world, result.out + result.err, world.cli("search", "deploy", "--all").out)


@drives("transition", "secret")
def secret_transition(world: World, door: str, text: str) -> None:
    note = add(world.ctx(), AddRequest(title="Some idea", body="plain", status="candidate"))
    before = snapshot(world.vault)
    result = world.cli("reject", note.note.id, "--reason", text, "--json")
    assert code_of(result.json["error"]["code"]) in ("SECRET", "VALIDATION"), result.out
    outputs = [result.out + result.err]
    for args in (
        ["accept", text],
        ["expire", f"mem_{text}"],
        ["supersede", note.note.id, "--by", text],
    ):  # a token given as an id
        result = world.cli(*args, "--json")
        assert result.code != 0, result.out
        outputs.append(result.out + result.err)
    assert snapshot(world.vault) == before
    assert_kept_out(world, *outputs)


@drives("hot-set", "secret")
def secret_hot_set(world: World, door: str, text: str) -> None:
    before = snapshot(world.vault)
    result = world.cli("hot", "set", "--body", text, "--json")
    assert code_of(result.json["error"]["code"]) == "SECRET", result.out
    assert snapshot(world.vault) == before
    assert_kept_out(world, result.out + result.err)


@drives("config", "secret")
def secret_config(world: World, door: str, text: str) -> None:
    """vault.json's free-form values are repo identities (and group slugs): a token hidden in one is
    refused, as a secret or as no identity at all, and never echoed."""
    before = snapshot(world.vault)
    for repo in (f"github.com/acme/{text}", f"github.com/{text.replace(' ', '-')}/api"):
        result = world.cli("group", "map", repo, "team", "--json")
        assert code_of(result.json["error"]["code"]) in ("SECRET", "VALIDATION", "USAGE"), result.out
        assert_kept_out(world, result.out + result.err)
        assert NEEDLE.lower() not in (world.vault / "vault.json").read_text() + result.out
    assert snapshot(world.vault) == before


@drives("repair", "secret")
def secret_repair(world: World, door: str, text: str) -> None:
    _, data, _ = _render("Planted", "plain")
    path = world.vault / "groups" / "api" / "note" / "planted.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.replace(b"plain", text.encode()))
    hot = world.vault / "groups" / "api" / "hot.md"  # a hand edit of hot.md holding it too
    hot.write_text(f"Working on the deploy.\n{text}\n")
    result = world.cli("doctor", "--repair", "--json")
    assert not path.exists() and not hot.exists(), (
        "a stray file with a secret is never committed, it is moved to quarantine"
    )
    assert {r["path"] for r in result.json["quarantine"]} >= {"groups/api/note/planted.md", "groups/api/hot.md"}, (
        result.out
    )
    assert_kept_out(
        world, result.out + result.err, world.cli("doctor", "--json").out, world.cli("search", "deploy", "--all").out
    )


# -- tombstone: a rejected value is not brought back ------------------------------------------------


@drives(("add", "add-body-file", "add-stdin", "handoff"), "tombstone")
def tombstone_person(world: World, door: str) -> None:
    """A person's create is refused unless `--allow-rejected` (a trivial variant is the same value)."""
    kind = KIND_OF.get(door, "note")
    _reject_value(world)
    before = snapshot(world.vault)
    outcome = NOTE_DOORS[door](world, REJECTED_TITLE + ".", REJECTED_BODY.rstrip("."), kind)
    assert outcome.code == "TOMBSTONED", outcome.out
    assert snapshot(world.vault) == before
    if door != "handoff":
        assert NOTE_DOORS[door](world, REJECTED_TITLE + ".", REJECTED_BODY, kind, "--allow-rejected").code is None
    else:  # handoff has no override: a rejected value needs `add --allow-rejected`
        assert "--allow-rejected" not in run_cli("memory", "handoff", "--help").out


@drives(("mcp-save", "session-end", "pre-compact"), "tombstone")
def tombstone_agent(world: World, door: str) -> None:
    _reject_value(world)
    notes = note_files(world.vault)
    outcome = NOTE_DOORS[door](world, REJECTED_TITLE + "!", "always indent python with TABS", KIND_OF.get(door, "note"))
    assert outcome.code == "TOMBSTONED", outcome.out
    assert note_files(world.vault) == notes


@drives("carry", "tombstone")
def tombstone_carry(world: World, door: str) -> None:
    """A value rejected here is not carried back from an old clone, and carry has no override."""
    _reject_value(world)
    before = snapshot(world.vault)
    outcome = submit_carry(world, REJECTED_TITLE + "!", REJECTED_BODY.lower())
    assert outcome.code == "TOMBSTONED", outcome.out
    assert snapshot(world.vault) == before
    assert "--allow-rejected" not in run_cli("memory", "carry", "--help").out


@drives("post-merge", "tombstone")
def tombstone_post_merge(world: World, door: str) -> None:
    """A merge's note, rejected, is never captured again: not while the rejected note is there, and
    not once it is gone (removed as an accepted deletion would: only its tombstone is left)."""
    sha = merge_in(world, "Merge pull request #7 from acme/feat", "Use tabs\n\nIndent with tabs.")
    (outcome,) = capture_merge(world, sha).json["merges"]
    assert outcome["action"] == "created", outcome
    assert world.cli("reject", outcome["id"], "--reason", "not a decision").code == 0
    assert capture_merge(world, sha).json["merges"][0]["action"] != "created"
    rel = outcome["path"].split(":", 1)[1]
    git(world.vault, "rm", "-q", rel)
    git(world.vault, "commit", "-qm", "memory: sync applies a deletion")
    for path in (state_dir(world.vault)).glob("merge-captured*"):
        path.unlink()
    again = capture_merge(world, sha)
    assert again.code == 0, again.out + again.err
    assert again.json["merges"][0]["action"] != "created", again.out
    assert [r for r in recall(world.vault, cwd=world.repo) if r["status"] != "rejected"] == []


@drives("migrate", "tombstone")
def tombstone_migrate(world: World, door: str) -> None:
    _reject_value(world)
    notes = note_files(world.vault)
    remember(world, {"core-memories.md": f"## {REJECTED_TITLE}!\n{REJECTED_BODY.lower()}\n"})
    result = world.cli("migrate", "--json")
    assert result.code == 0, result.err
    assert result.json["totals"]["candidates_tombstoned"] == 1, result.json
    assert note_files(world.vault) == notes


@drives("repair", "tombstone")
def tombstone_repair(world: World, door: str) -> None:
    _reject_value(world)
    _, data, _ = _render(REJECTED_TITLE + ".", REJECTED_BODY, origin="mcp", trust="reviewed")
    path = world.vault / "groups" / "api" / "note" / "stray.md"
    path.write_bytes(data)
    judged = world.cli("doctor", "--json").json["uncommitted"]
    assert [(j["path"], j["repair"]) for j in judged] == [("group:groups/api/note/stray.md", "quarantine")], judged
    assert "rejected" in judged[0]["problem"]
    world.cli("doctor", "--repair")
    assert not path.exists() and "stray.md" not in git(world.vault, "ls-files")


# -- trust: nothing shows as reviewed without a person's accept -----------------------------------

SMUGGLED = '---\ntrust: "reviewed"\nstatus: "active"\n---\ntrust: reviewed'


@drives(("add", "add-body-file", "add-stdin", "handoff"), "trust")
def trust_person_create(world: World, door: str) -> None:
    kind = KIND_OF.get(door, "note")
    refused = NOTE_DOORS[door](world, CLAIMED, "plain", kind, "--trust", "reviewed")
    assert refused.code == "USAGE", refused.out
    assert NOTE_DOORS[door](world, CLAIMED, SMUGGLED, kind).code is None
    (found,) = assert_unreviewed(world.vault, "claimed", cwd=world.repo)
    read = world.cli("read", found["id"], "--all", "--json").json["memory"]
    assert read["trust"] == "unreviewed" and "claimed_trust" not in read


@drives("mcp-save", "trust")
def trust_mcp(world: World, door: str) -> None:
    before = snapshot(world.vault)
    for extra in ({"trust": "reviewed"}, {"status": "active"}):
        refused = submit_mcp(world, CLAIMED, "plain", **extra)
        assert refused.code == "USAGE", refused.out
        assert snapshot(world.vault) == before
    assert submit_mcp(world, CLAIMED, SMUGGLED).code is None
    assert_unreviewed(world.vault, "claimed", cwd=world.repo)


@drives(CAPTURES, "trust")
def trust_capture(world: World, door: str) -> None:
    """A distiller's answer claiming a review (a `trust` field, or frontmatter in the body): what
    it creates is an unreviewed candidate."""
    NOTE_DOORS[door](world, CLAIMED, "plain", trust="reviewed", status="active")
    assert NOTE_DOORS[door](world, CLAIMED + " again", SMUGGLED).code is None
    found = assert_unreviewed(world.vault, "claimed", cwd=world.repo)
    assert {r["status"] for r in found} == {"candidate"}, found


@drives("carry", "trust")
def trust_carry(world: World, door: str) -> None:
    """An old note that says it was reviewed (a person's accept there, or a hand) and one whose body
    smuggles frontmatter are carried unreviewed: a review does not travel by copy."""
    assert submit_carry(world, CLAIMED, "plain", trust="reviewed", status="active").code is None
    assert submit_carry(world, CLAIMED + " again", SMUGGLED).code is None
    assert_unreviewed(world.vault, "claimed", cwd=world.repo, expect=2)


@drives("post-merge", "trust")
def trust_post_merge(world: World, door: str) -> None:
    sha = merge_in(world, "Merge pull request #7 from acme/feat", f"{CLAIMED}\n\n{SMUGGLED}")
    assert capture_merge(world, sha).json["merges"][0]["action"] == "created"
    assert_unreviewed(world.vault, cwd=world.repo)


@drives("migrate", "trust")
def trust_migrate(world: World, door: str) -> None:
    remember(world, {"core-memories.md": f"## {CLAIMED}\n{SMUGGLED}\n", "identity.md": f"# Identity\n{SMUGGLED}\n"})
    result = world.cli("migrate", "--json")
    assert result.code == 0, result.err
    found = assert_unreviewed(world.vault, cwd=world.repo, expect=2)
    assert {r["status"] for r in found} == {"candidate"}


@drives("transition", "trust")
def trust_transition(world: World, door: str) -> None:
    """A note committed by hand claiming `reviewed` stays unreviewed through expire and reject;
    only a person's accept makes a note reviewed."""
    for n, op in enumerate(("expire", "reject")):
        note_id, data, stem = _render(f"{CLAIMED} {n}", "plain", trust="reviewed")
        rel = f"groups/api/note/{stem}.md"
        (world.vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (world.vault / rel).write_bytes(data)
        git(world.vault, "add", rel)
        git(world.vault, "commit", "-qm", "memory(accept): by hand")
        result = world.cli(op, note_id, *(["--reason", "no"] if op == "reject" else []), "--json")
        assert result.code == 0 and result.json["trust"] == "unreviewed", result.out  # its own answer too
        read = world.cli("read", note_id, "--all", "--json").json["memory"]
        assert read["trust"] == "unreviewed" and read["claimed_trust"] == "reviewed", read
    accepted = add(world.ctx(), AddRequest(title="Accepted by a person", body="plain", status="candidate"))
    assert world.cli("accept", accepted.note.id).code == 0
    assert {r["id"]: r["trust"] for r in recall(world.vault, cwd=world.repo)}[accepted.note.id] == "reviewed"


@drives("repair", "trust")
def trust_repair(world: World, door: str) -> None:
    note_id, data, _ = _render(CLAIMED, "plain", trust="reviewed")
    path = world.vault / "groups" / "api" / "note" / "claimed.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    result = world.cli("doctor", "--repair", "--json")
    assert result.code == 0, result.out
    assert "groups/api/note/claimed.md" in git(world.vault, "ls-files"), "a valid stray note is committed by repair"
    (found,) = assert_unreviewed(world.vault, "claimed", cwd=world.repo)  # what it claims is not what it is worth
    assert found["id"] == note_id
    assert any(u["id"] == note_id for u in world.cli("doctor", "--json").json["unproven_reviews"])


# -- audit: every commit a door makes carries its audit line ---------------------------------------


@drives(tuple(NOTE_DOORS), "audit")
def audit_note_door(world: World, door: str) -> None:
    head = world.head()
    outcome = NOTE_DOORS[door](world, "Audited note", "plain", KIND_OF.get(door, "note"))
    assert outcome.code is None, outcome.out
    assert_audited(world.vault, head)


@drives("post-merge", "audit")
def audit_post_merge(world: World, door: str) -> None:
    head = world.head()
    sha = merge_in(world, "Merge pull request #7 from acme/feat", "Audited\n\nplain")
    assert capture_merge(world, sha).json["merges"][0]["action"] == "created"
    assert_audited(world.vault, head)


@drives("migrate", "audit")
def audit_migrate(world: World, door: str) -> None:
    head = world.head()
    remember(world, {"core-memories.md": "## Deploy\nplain\n", "today-2026-11-19.md": "## 09:00 | main\nDid things.\n"})
    assert world.cli("migrate", "--json").code == 0
    assert_audited(world.vault, head)


@drives("rollup", "audit")
def audit_rollup(world: World, door: str) -> None:
    head = rolled_days(world)
    result = world.cli("rollup", "--today", "2026-11-28", "--json")
    assert result.code == 0, result.out + result.err
    assert_audited(world.vault, head)


def rolled_days(world: World) -> str:
    """Two past day files committed through the tool; HEAD before the rollup."""
    from datetime import datetime

    from jacked_vault.episodic.entries import Entry, append_entry

    ctx = world.ctx()
    for day in (10, 26):
        when = datetime(2026, 11, day, 9, 0, tzinfo=UTC)
        append_entry(
            ctx.vault,
            Entry("api", "github.com/acme/api", when, "main", f"Worked on day {day}."),
            harness="tester",
            origin="cli",
        )
    return world.head()


@drives("transition", "audit")
def audit_transition(world: World, door: str) -> None:
    a = add(world.ctx(), AddRequest(title="One", body="plain", status="candidate"))
    b = add(world.ctx(), AddRequest(title="Two", body="plain", status="candidate"))
    c = add(world.ctx(), AddRequest(title="Three", body="plain"))
    head = world.head()
    for args in (
        ["accept", a.note.id],
        ["reject", b.note.id, "--reason", "no"],
        ["supersede", c.note.id, "--by", a.note.id],  # while a holds (a supersede by an expired note is refused)
        ["expire", a.note.id],
    ):
        result = world.cli(*args, "--json")
        assert result.code == 0, (args, result.out)
    assert len(commits_since(world.vault, head)) == 4
    assert_audited(world.vault, head)


@drives("hot-set", "audit")
def audit_hot_set(world: World, door: str) -> None:
    head = world.head()
    assert world.cli("hot", "set", "--body", "Working on the parser.").code == 0
    assert_audited(world.vault, head)


@drives("config", "audit")
def audit_config(world: World, door: str) -> None:
    head = world.head()
    assert world.cli("group", "map", "github.com/acme/api", "platform", "--json").code == 0
    assert world.cli("group", "unmap", "github.com/acme/api", "--json").code == 0
    assert_audited(world.vault, head)


@drives("init", "audit")
def audit_init(world: World, door: str) -> None:
    vault = world.tmp / "new-vault"
    result = run_cli("memory", "--vault", str(vault), "init", "--no-scan", "--json", cwd=world.tmp)
    assert result.code == 0 and result.json["created"], result.out + result.err
    assert_audited(vault, [])


@drives("repair", "audit")
def audit_repair(world: World, door: str) -> None:
    """Repair's own commits (a valid stray note committed, a hand edit quarantined, index.md
    regenerated) carry their audit lines."""
    note = add(world.ctx(), AddRequest(title="Committed", body="plain"))
    head = world.head()
    _, data, _ = _render("Valid stray", "plain")
    (world.vault / "groups/api/note/valid-stray.md").write_bytes(data)
    (world.vault / note.rel).write_text((world.vault / note.rel).read_text() + "\nedited by hand\n")
    (world.vault / "groups/api/index.md").write_text("# stale\n")
    result = world.cli("doctor", "--repair", "--json")
    assert result.code == 0, result.out
    assert "groups/api/note/valid-stray.md" in git(world.vault, "ls-files")
    assert_audited(world.vault, head)


# -- create-only: a door never rewrites a note's value ------------------------------------------


@drives(tuple(NOTE_DOORS), "create-only")
def create_only_note_door(world: World, door: str) -> None:
    """A note committed at the name the new note would take, and a stray file planted at the next
    one: neither is replaced; the new note takes a free name."""
    kind = KIND_OF.get(door, "note")
    title = "Deploy notes"
    existing = add(world.ctx(), AddRequest(title=title, body="the committed one", kind=kind))
    folder = world.vault / existing.rel.rsplit("/", 1)[0]
    stray = folder / "deploy-notes-2.md"
    stray.write_bytes(b"a stray file, not ours\n")
    committed = (world.vault / existing.rel).read_bytes()
    days = {p: p.read_bytes() for p in world.vault.glob("groups/*/episodic/*/*.md")}
    outcome = NOTE_DOORS[door](world, title, "a different body", kind)
    assert outcome.code is None, outcome.out
    assert (world.vault / existing.rel).read_bytes() == committed and stray.read_bytes() == b"a stray file, not ours\n"
    assert (folder / "deploy-notes-3.md").is_file()
    for path, data in days.items():  # day files only grow
        assert path.read_bytes().startswith(data)


@drives("post-merge", "create-only")
def create_only_post_merge(world: World, door: str) -> None:
    first = merge_in(world, "Merge pull request #7 from acme/feat", "Deploy\n\nfirst")
    assert capture_merge(world, first).json["merges"][0]["action"] == "created"
    notes = note_files(world.vault)
    second = merge_in(world, "Merge pull request #7 from acme/feat", "Deploy\n\nsecond", branch="feat2")
    assert capture_merge(world, second).json["merges"][0]["action"] == "created"
    assert capture_merge(world, first).json["merges"][0]["action"] != "created", "captured once"
    after = note_files(world.vault)
    assert {rel: after[rel] for rel in notes} == notes and len(after) == len(notes) + 1


@drives("migrate", "create-only")
def create_only_migrate(world: World, door: str) -> None:
    from datetime import datetime

    from jacked_vault.episodic.entries import Entry, append_entry

    when = datetime(2026, 11, 19, 9, 0, tzinfo=UTC)
    rel, _ = append_entry(
        world.ctx().vault,
        Entry("api", "github.com/acme/api", when, "main", "The vault's own entry."),
        harness="t",
        origin="cli",
    )
    own = (world.vault / rel).read_bytes()
    remember(
        world, {"today-2026-11-19.md": "## 10:00 | main\nThe plugin's entry.\n", "recent.md": "not rollup's shape\n"}
    )
    result = world.cli("migrate", "--json")
    assert result.code == 0, result.err
    assert (world.vault / rel).read_bytes() == own
    targets = [f["target"] for f in result.json["files"] if f["action"] != "skipped"]
    assert all(".migrated" in t for t in targets), targets


@drives("transition", "create-only")
def create_only_transition(world: World, door: str) -> None:
    """Transitions commit the committed blob; a hand edit of the working file is quarantined."""
    from jacked_vault.store import audit

    for op, extra in (("accept", []), ("reject", ["--reason", "no"]), ("expire", []), ("supersede", None)):
        note = add(
            world.ctx(),
            AddRequest(
                title=f"Target {op}",
                body="the committed text",
                status="candidate" if op in ("accept", "reject") else "active",
            ),
        )
        if extra is None:
            newer = add(world.ctx(), AddRequest(title="Newer", body="newer"))
            extra = ["--by", newer.note.id]
        path = world.vault / note.rel
        path.write_text(path.read_text().replace("the committed text", REWRITTEN) + f"\nappended by hand: {AWS}\n")
        result = world.cli(op, note.note.id, *extra, "--json")
        assert result.code == 0, result.out + result.err
        assert result.json["quarantined"], "the hand edit is kept aside and reported"
        assert AWS not in path.read_text() and "the committed text" in path.read_text()
        assert REWRITTEN not in git(world.vault, "show", f"HEAD:{note.rel}")
        assert_kept_out(world, result.out)
    assert audit.verify(world.vault).problems == []


@drives("repair", "create-only")
def create_only_repair(world: World, door: str) -> None:
    note = add(world.ctx(), AddRequest(title="Committed", body="the committed text"))
    path = world.vault / note.rel
    committed = path.read_bytes()
    path.write_bytes(committed.replace(b"the committed text", REWRITTEN.encode()))
    result = world.cli("doctor", "--repair", "--json")
    assert result.code == 0, result.out
    assert path.read_bytes() == committed == git(world.vault, "show", f"HEAD:{note.rel}").encode()
    assert any(r["path"] == note.rel for r in result.json["quarantine"])


# -- containment: a symlink in the way, or a path outside the layout --------------------------------


SYMLINKED = [
    "groups/api",
    ".git/jacked",
]  # the folders every local door's writes go through, each replaced by a symlink in turn


def assert_contained(
    world: World,
    run: Callable[[], CliResult | Outcome],
    *,
    folders: list[str] | None = None,
    codes=("UNSAFE_PATH",),
    same_head: bool = True,
) -> None:
    """For each folder in the way: replaced by a symlink to a folder outside the vault (holding a
    copy of what it held), the door is refused with a coded error, and nothing outside changes.
    `same_head`: nothing is committed either (a capture still commits its session entry elsewhere;
    then no commit touches the folder)."""
    for rel in folders or SYMLINKED:
        at = world.vault / rel
        outside = world.outside(f"outside-{rel.replace('/', '-')}")
        plant_symlink(at, outside)
        before, head = tree_of(outside), world.head()
        result = run()
        assert tree_of(outside) == before, f"{rel}: written outside the vault through a symlink"
        if isinstance(result, CliResult):
            code = code_of(result.json["error"]["code"]) if result.code else None
        else:
            code = result.code
        assert code in codes, (rel, result)
        if same_head:
            assert world.head() == head
        else:
            assert rel not in git(world.vault, "diff", "--name-only", head, "HEAD"), rel
        at.unlink()
        shutil.copytree(outside, at, symlinks=True)
        shutil.rmtree(outside)


@drives(tuple(NOTE_DOORS), "containment")
def containment_note_door(world: World, door: str) -> None:
    add(world.ctx(), AddRequest(title="Existing", body="already here"))
    submit = NOTE_DOORS[door]
    kind = KIND_OF.get(door, "note")
    codes = ("UNSAFE_PATH",)
    assert_contained(world, lambda: submit(world, "Contained", "plain", kind), codes=codes)
    assert_contained(
        world,
        lambda: submit(world, "Contained", "plain", kind),
        folders=[f"groups/api/{kind}"],
        codes=codes,
        same_head=door not in CAPTURES,
    )


@drives("post-merge", "containment")
def containment_post_merge(world: World, door: str) -> None:
    add(world.ctx(), AddRequest(title="Existing", body="already here", kind="decision"))
    n = iter(range(100))

    def run():
        sha = merge_in(
            world,
            f"Merge pull request #{next(n)} from acme/feat",
            "Contained\n\nplain",
            branch=f"f{uuid.uuid4().hex[:6]}",
        )
        return capture_merge(world, sha)

    assert_contained(world, run, folders=["groups/api", ".git/jacked", "groups/api/decision"])


@drives("migrate", "containment")
def containment_migrate(world: World, door: str) -> None:
    from datetime import datetime

    from jacked_vault.episodic.entries import Entry, append_entry

    append_entry(
        world.ctx().vault,
        Entry("api", "github.com/acme/api", datetime(2026, 11, 1, 9, tzinfo=UTC), "main", "Own."),
        harness="t",
        origin="cli",
    )
    remember(
        world,
        {"today-2026-11-19.md": "## 10:00 | main\nThe plugin's entry.\n", "core-memories.md": "## Deploy\nplain\n"},
    )
    assert_contained(
        world,
        lambda: world.cli("migrate", "--json"),
        folders=["groups/api", ".git/jacked", "groups/api/episodic/github.com__acme__api"],
    )
    source = world.repo / ".remember"  # a source that is a symlink is never read
    real = world.outside("remember-real")
    shutil.move(source, real / ".remember")
    source.symlink_to(real / ".remember", target_is_directory=True)
    head = world.head()
    result = world.cli("migrate", "--json")
    assert world.head() == head, result.out


@drives("rollup", "containment")
def containment_rollup(world: World, door: str) -> None:
    rolled_days(world)

    def run() -> CliResult:  # refused, or (a folder it walks) skipped and said so
        result = world.cli("rollup", "--today", "2026-11-28", "--json")
        if result.code == 0:
            assert [s["reason"] for s in result.json["skipped"]] == ["symlink, never followed"], result.out
        return result

    assert_contained(
        world,
        run,
        folders=["groups/api", ".git/jacked", "groups/api/episodic/github.com__acme__api"],
        codes=("UNSAFE_PATH", None),
    )


@drives("transition", "containment")
def containment_transition(world: World, door: str) -> None:
    ids = [add(world.ctx(), AddRequest(title=f"Idea {n}", body="plain", status="candidate")).note.id for n in range(3)]
    calls = iter(
        [
            ["accept", ids[0]],
            ["reject", ids[1], "--reason", "no"],
            ["expire", ids[2]],
            ["accept", ids[2]],
            ["reject", ids[0], "--reason", "no"],
            ["expire", ids[1]],
        ]
    )
    assert_contained(
        world, lambda: world.cli(*next(calls), "--json"), folders=["groups/api", ".git/jacked", "groups/api/note"]
    )


@drives("hot-set", "containment")
def containment_hot_set(world: World, door: str) -> None:
    world.cli("hot", "set", "--body", "first")
    assert_contained(world, lambda: world.cli("hot", "set", "--body", "second", "--json"))


@drives("config", "containment")
def containment_config(world: World, door: str) -> None:
    assert_contained(
        world, lambda: world.cli("group", "map", "github.com/acme/api", "platform", "--json"), folders=[".git/jacked"]
    )
    outside = world.outside("outside-config")
    (outside / "vault.json").write_bytes((world.vault / "vault.json").read_bytes())
    (world.vault / "vault.json").unlink()
    (world.vault / "vault.json").symlink_to(outside / "vault.json")
    before, head = tree_of(outside), world.head()
    result = world.cli("group", "map", "github.com/acme/api", "platform", "--json")
    assert code_of(result.json["error"]["code"]) == "UNSAFE_PATH", result.out
    assert tree_of(outside) == before and world.head() == head


@drives("init", "containment")
def containment_init(world: World, door: str) -> None:
    """A new vault whose state folder `.git/jacked` (or a folder of its layout) is a symlink: init is
    refused and writes nothing through it."""
    for planted in (".git/jacked", "groups"):
        name = planted.strip(".").replace("/", "-")
        vault = world.tmp / f"new-{name}"
        vault.mkdir()
        subprocess.run(["git", "init", "-q", "-b", "main", str(vault)], check=True)
        outside = world.outside(f"outside-init-{name}")
        (vault / planted).symlink_to(outside, target_is_directory=True)
        result = run_cli("memory", "--vault", str(vault), "init", "--no-scan", "--json", cwd=world.tmp)
        assert tree_of(outside) == {}, f"{planted}: written outside the vault through a symlink"
        if planted == ".git/jacked":
            assert code_of(result.json["error"]["code"]) == "UNSAFE_PATH", result.out


@drives("repair", "containment")
def containment_repair(world: World, door: str) -> None:
    """Planted symlinks are never followed, moved or committed; a file outside the layout is never
    committed; a symlinked folder in the way refuses the repair."""
    outside = world.outside()
    (outside / "secret.md").write_text("outside the vault\n")
    link = world.vault / "groups" / "api" / "note" / "ln.md"
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside / "secret.md")
    for rel in ("scripts/run.sh", "groups/api/evil/x.md", "groups/Bad Group/note/x.md"):
        (world.vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (world.vault / rel).write_text("planted\n")
    result = world.cli("doctor", "--repair", "--json")
    assert link.is_symlink() and (outside / "secret.md").read_text() == "outside the vault\n"
    tracked = git(world.vault, "ls-files")
    assert (
        "ln.md" not in tracked and "scripts" not in tracked and "evil" not in tracked and "Bad Group" not in tracked
    ), result.out
    link.unlink()
    add(world.ctx(), AddRequest(title="Existing", body="already here"))
    _, data, _ = _render("Stray", "plain")

    def run() -> CliResult | Outcome:  # refused, or the symlink reported (never followed) and the repair not ok
        (world.vault / "groups/api/note/stray.md").write_bytes(data)
        result = world.cli("doctor", "--repair", "--json")
        if result.code and "error" not in result.json:
            assert not result.json["ok"] and "vault:groups/api/note" in result.json["skipped_symlinks"], result.out
            return Outcome("REPORTED", result.out)
        return result

    assert_contained(world, run, folders=[".git/jacked", "groups/api/note"], codes=("UNSAFE_PATH", "REPORTED"))


# == a person's review: edit-as-new (on a real terminal), forget =====================================


def candidate(world: World, kind: str = "note") -> str:
    """A candidate waiting for review (made through the library: setup), the only one in the queue."""
    return add(
        world.ctx(),
        AddRequest(
            title=f"Candidate {uuid.uuid4().hex[:6]}", body="the candidate's text", kind=kind, status="candidate"
        ),
    ).note.id


def submit_edit_as_new(
    world: World, title: str, body: str, kind: str = "note", *extra: str, waiting: str | None = None
) -> Outcome:
    """`memory review` on a real pty, answering e(dit-as-new) for the candidate `waiting` (default:
    a fresh one): the title at its prompt, the body from $EDITOR (a program that writes it), then
    q(uit) when a refusal asks again."""
    from conftest import cli_env
    from helpers.terminal import drive

    waiting = waiting or candidate(world, kind)
    edited = world.tmp / f"edited-{uuid.uuid4().hex[:6]}.md"
    edited.write_bytes(body.encode())
    editor = world.tmp / f"editor-{uuid.uuid4().hex[:6]}.py"
    editor.write_text(f"import shutil, sys\nshutil.copyfile({str(edited)!r}, sys.argv[1])\n")
    before = set(note_files(world.vault))
    env = cli_env(world.vault, EDITOR=f"{sys.executable} {editor}")
    code, out, shown = drive(["memory", "review"], [b"e\n", title.encode() + b"\n", b"q\n"], env=env, cwd=world.repo)
    text = out + shown.decode("utf-8", "replace")
    assert code == 0 or "[JACKED_MEMORY_" in text, text
    if set(note_files(world.vault)) - before:
        assert f"edit {waiting} -> " in out, text
        return Outcome(None, text)
    errors = re.findall(r"\[JACKED_MEMORY_([A-Z_]+)\]", text)
    return Outcome(errors[0] if errors else "NO EDIT", text)


NOTE_DOORS["edit-as-new"] = submit_edit_as_new
drives("edit-as-new", "audit")(audit_note_door)
drives("edit-as-new", "create-only")(create_only_note_door)


@drives("edit-as-new", "schema")
def schema_edit_as_new(world: World, door: str) -> None:
    """Its inputs are a title and a body: invalid, empty or unchanged, refused with a coded error
    (the review asks again), and nothing written."""
    waiting = candidate(world)
    before = snapshot(world.vault)
    for title, body in (
        (INVALID_TITLE, "a better text"),
        ("Better", CONTROL_BODY),
        ("Better", "   "),
        (None, "the candidate's text"),
    ):
        title = title or next(r["title"] for r in recall(world.vault, cwd=world.repo) if r["id"] == waiting)
        outcome = submit_edit_as_new(world, title, body, waiting=waiting)
        assert outcome.code in ("VALIDATION", "USAGE"), outcome.out
        assert snapshot(world.vault) == before


@drives("edit-as-new", "secret")
def secret_edit_as_new(world: World, door: str, text: str) -> None:
    waiting = candidate(world)
    before = snapshot(world.vault)
    for title, body in (("Deploy notes", text), (text, "a better text")):
        if "\n" in title:
            continue  # a title is one line typed at a prompt
        outcome = submit_edit_as_new(world, title, body, waiting=waiting)
        assert outcome.code == "SECRET", outcome.out
        assert snapshot(world.vault) == before
        assert_kept_out(world, outcome.out.replace(f"|{title}", "|"))  # the terminal echoes what the person typed
    assert_kept_out(world, world.cli("search", "deploy", "--all").out)


@drives("edit-as-new", "tombstone")
def tombstone_edit_as_new(world: World, door: str) -> None:
    _reject_value(world)
    waiting = candidate(world)
    before = snapshot(world.vault)
    outcome = submit_edit_as_new(world, REJECTED_TITLE + ".", REJECTED_BODY.lower(), waiting=waiting)
    assert outcome.code == "TOMBSTONED", outcome.out
    assert snapshot(world.vault) == before


@drives("edit-as-new", "containment")
def containment_edit_as_new(world: World, door: str) -> None:
    """The edit writes the new note, the candidate's reject and its tombstone: a symlink in the way
    of any of them refuses it (or, the candidate's own folder, hides the candidate: nothing to edit)."""
    waiting = candidate(world)
    run = lambda: submit_edit_as_new(world, "Contained", "a better text", waiting=waiting)  # noqa: E731
    assert_contained(world, run, folders=[".git/jacked", "tombstones"])
    assert_contained(world, run, folders=["groups/api/note"], codes=("UNSAFE_PATH", "NO EDIT"))


@drives("edit-as-new", "trust")
def trust_edit_as_new(world: World, door: str) -> None:
    """The new note is a person's, active and unreviewed (a review is an accept, not an edit)."""
    assert submit_edit_as_new(world, CLAIMED, SMUGGLED).code is None
    (found,) = assert_unreviewed(world.vault, "claimed", cwd=world.repo)
    assert found["status"] == "active"


def submit_forget(world: World, note_id: str) -> CliResult:
    return world.cli("forget", note_id, "--json")


@drives("forget", "schema")
def schema_forget(world: World, door: str) -> None:
    add(world.ctx(), AddRequest(title="Existing", body="already here"))
    before = snapshot(world.vault)
    for note_id in ("mem_20261129_01jdz5k6x9f3q8w2v7n4m1c0ab", "not-an-id", "mem_../../vault.json", ""):
        result = submit_forget(world, note_id)
        assert result.code != 0 and code_of(result.json["error"]["code"]) in ("NOT_FOUND", "USAGE", "VALIDATION"), (
            result.out
        )
        assert snapshot(world.vault) == before


@drives("forget", "secret")
def secret_forget(world: World, door: str, text: str) -> None:
    """Its one input is an id: a token given as one is refused, never echoed. A note committed by
    hand that holds the token is refused by the index, so forget does not find it (it answers
    INCOMPLETE, naming the path and the code, never the text) and writes nothing."""
    note_id, data, _ = _render("Deploy keys", text)
    rel = "groups/api/note/deploy-keys.md"
    (world.vault / rel).parent.mkdir(parents=True, exist_ok=True)
    (world.vault / rel).write_bytes(data)
    git(world.vault, "add", rel)
    git(world.vault, "commit", "-qm", "committed by hand")
    before = snapshot(world.vault)
    outputs = []
    for given in (text, note_id):
        result = submit_forget(world, given)
        assert result.code != 0 and code_of(result.json["error"]["code"]) in ("SECRET", "NOT_FOUND", "INCOMPLETE"), (
            result.out
        )
        assert snapshot(world.vault) == before
        outputs.append(result.out + result.err)
    for out in outputs:
        assert NEEDLE not in out.replace("\u200b", "")
    assert [p for p in stored_anywhere(world.vault, NEEDLE, history=None) if p != rel] == []


@drives("forget", "tombstone")
def tombstone_forget(world: World, door: str) -> None:
    """A forgotten value is tombstoned as forgotten: no door brings it back, not even a person's
    `add --allow-rejected` (issue 31.5)."""
    note = add(world.ctx(), AddRequest(title=REJECTED_TITLE, body=REJECTED_BODY))
    result = submit_forget(world, note.note.id)
    assert result.code == 0 and result.json["tombstoned"], result.out
    assert not (world.vault / note.rel).exists()
    before = snapshot(world.vault)
    assert submit_add(world, REJECTED_TITLE + ".", REJECTED_BODY.lower()).code == "TOMBSTONED"
    assert submit_mcp(world, REJECTED_TITLE + "!", REJECTED_BODY).code == "TOMBSTONED"
    assert submit_add(world, REJECTED_TITLE, REJECTED_BODY, "note", "--allow-rejected").code == "TOMBSTONED"
    assert snapshot(world.vault) == before


@drives("forget", "audit")
def audit_forget(world: World, door: str) -> None:
    note = add(world.ctx(), AddRequest(title="Taken back", body="should never have been saved"))
    head = world.head()
    result = submit_forget(world, note.note.id)
    assert result.code == 0, result.out
    assert f"Memory-Forget: {note.note.id}" in git(world.vault, "log", "-1", "--format=%B")
    assert_audited(world.vault, head)


@drives("forget", "create-only")
def create_only_forget(world: World, door: str) -> None:
    """Forget removes the named note (and its live twins: the same value), nothing else: every other
    note keeps its bytes; a hand edit of the forgotten note's working copy is said, never silently lost."""
    keep = [
        add(world.ctx(), AddRequest(title=f"Keep {n}", body=f"kept {n}", group=group))
        for n, group in enumerate(("api", "web"))
    ]
    kept = {n.rel: (world.vault / n.rel).read_bytes() for n in keep}
    gone = add(world.ctx(), AddRequest(title="Taken back", body="should never have been saved"))
    (world.vault / gone.rel).write_text((world.vault / gone.rel).read_text() + "\nedited by hand\n")
    result = submit_forget(world, gone.note.id)
    assert result.code == 0 and result.json["dropped_working_changes"] is True, result.out
    assert not (world.vault / gone.rel).exists()
    assert {rel: (world.vault / rel).read_bytes() for rel in kept} == kept
    changed = git(world.vault, "diff", "--name-status", "HEAD~1", "HEAD").split("\n")
    assert [line.split() for line in changed if "/note/" in line] == [["D", gone.rel]], changed


@drives("forget", "containment")
def containment_forget(world: World, door: str) -> None:
    """Forget deletes: through a symlinked folder it would delete outside the vault. Refused."""
    ids = [add(world.ctx(), AddRequest(title=f"Taken back {n}", body=f"text {n}")).note.id for n in range(4)]
    calls = iter(ids)
    assert_contained(
        world,
        lambda: submit_forget(world, next(calls)),
        folders=["groups/api", ".git/jacked", "groups/api/note", "tombstones"],
    )


# == the arrival doors ===============================================================================

ARRIVALS = ("sync-ff", "sync-merge", "session-start-pull", "init-from", "remote-set-adopt", "remote-set-join")
FIRST = "groups/tools/note/first-note.md"
HOSTILE_MACHINE = "m-hostile"


class Remote:
    """A real bare remote holding the history of `laptop` (a vault used through the tool), a
    `hostile` plain-git clone of it that pushes what anyone with push access could, and the
    receiving vault of the door under test (`receiver`; for init-from, the folder it clones into)."""

    def __init__(self, tmp: Path, door: str) -> None:
        from jacked_vault.sync import push, set_remote

        self.tmp, self.door = tmp, door
        self.remote = tmp / "remote.git"
        subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(self.remote)], check=True)
        self.url = f"file://{self.remote}"
        self.laptop = self._vault("laptop")
        set_remote(self.laptop, self.url)
        add(self.laptop, AddRequest(title="First note", body="From the laptop.", group="tools"))
        push(self.laptop)
        self.hostile = tmp / "hostile"
        subprocess.run(["git", "clone", "-q", self.url, str(self.hostile)], check=True, capture_output=True)
        self.receiver = tmp / "receiver"
        if door in ("sync-ff", "sync-merge", "session-start-pull"):
            ctx = self._vault("receiver")
            assert set_remote(ctx, self.url).adopted
        elif door == "remote-set-adopt":
            self._vault("receiver")
        elif door == "remote-set-join":
            ctx = self._vault("receiver")
            add(ctx, AddRequest(title="My private note", body="Only on this machine.", group="personal"))
        self.tip: str | None = None  # the remote's head when the door ran
        self.head_before: str | None = None

    @classmethod
    def copied(cls, template: Remote, tmp: Path) -> Remote:
        """The scene `template` holds, copied into `tmp` (a few hundred small files: much cheaper
        than building it), its clones pointed at the copy's remote."""
        shutil.copytree(template.tmp, tmp, symlinks=True, dirs_exist_ok=True)
        scene = cls.__new__(cls)
        scene.__dict__.update(template.__dict__)
        scene.tmp, scene.remote, scene.url = tmp, tmp / "remote.git", f"file://{tmp / 'remote.git'}"
        scene.hostile, scene.receiver = tmp / "hostile", tmp / "receiver"
        scene.laptop = Context.create(vault=str(tmp / "laptop"), cwd=tmp / "laptop-work", harness="laptop")
        for clone in (tmp / "laptop", scene.hostile, scene.receiver):
            if "origin" in (git(clone, "remote") if (clone / ".git").exists() else ""):
                git(clone, "remote", "set-url", "origin", scene.url)
        return scene

    def _vault(self, name: str) -> Context:
        from jacked_vault.write.init import init_vault

        init_vault(self.tmp / name)
        work = self.tmp / f"{name}-work"
        work.mkdir(exist_ok=True)
        return Context.create(vault=str(self.tmp / name), cwd=work, harness=name)

    def receiver_ctx(self) -> Context:
        return Context.create(vault=str(self.receiver), cwd=self.tmp / "receiver-work", harness="receiver")

    def laptop_sync(self) -> None:
        from jacked_vault.sync import sync

        sync(self.laptop)

    def push(
        self,
        files: dict[str, bytes | str | None],
        message: str = "hostile change",
        *,
        audit: dict[str, str] | None = None,
    ) -> str:
        """Commit `files` (None: removed; a Path: a symlink to it) in the hostile clone and push.
        `audit`: rel -> note id, an audit line forged for each, as a well-prepared attacker would."""

        clone = self.hostile
        git(clone, "fetch", "-q", "origin")
        git(clone, "reset", "-q", "--hard", "origin/main")
        for rel, content in files.items():
            path = clone / rel
            if content is None:
                git(clone, "rm", "-rq", rel)
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, Path):
                path.symlink_to(content)
            else:
                path.write_bytes(content.encode() if isinstance(content, str) else content)
            git(clone, "add", "-f", rel)
        if audit:
            git(clone, "add", "-f", forge_audit(clone, audit, machine=HOSTILE_MACHINE))
        git(clone, "commit", "-qm", message)
        git(clone, "push", "-q", "origin", "main")
        return git(clone, "rev-parse", "HEAD").strip()

    def push_note(
        self,
        title: str,
        body: str,
        *,
        audited: bool = True,
        rel: str | None = None,
        data: bytes | None = None,
        **changes,
    ) -> tuple[str, str]:
        """A new note pushed by the hostile clone (with a forged audit line unless not `audited`)."""
        note_id, rendered, stem = _render(title, body, group="tools", **changes)
        rel = rel or f"groups/tools/note/{stem}.md"
        self.push({rel: data if data is not None else rendered}, audit={rel: note_id} if audited else None)
        return note_id, rel

    def run(self) -> CliResult:
        """The door, through its real entry, in a subprocess."""
        self.tip = git(self.remote, "rev-parse", "main").strip()
        if self.door == "sync-merge":  # the receiving vault diverges first
            add(self.receiver_ctx(), AddRequest(title="Local only", body="Not pushed yet.", group="tools"))
        if (self.receiver / ".git").exists():
            self.head_before = git(self.receiver, "rev-parse", "HEAD").strip()
        work = self.tmp / "receiver-work"
        work.mkdir(exist_ok=True)
        if self.door in ("sync-ff", "sync-merge"):
            return run_cli("memory", "sync", "--json", vault=self.receiver)
        if self.door == "session-start-pull":
            payload = {"session_id": "s1", "cwd": str(work), "hook_event_name": "SessionStart", "source": "startup"}
            pulls = len(self._pull_lines())
            result = run_cli("_hook", "session-start", vault=self.receiver, stdin=json.dumps(payload))
            waited = 0.0  # a loaded machine can run out the cap: the pull then ends in the background (issue 34.3)
            while self.state() == "timeout" and len(self._pull_lines()) == pulls and waited < 120:
                time.sleep(0.2)
                waited += 0.2
            return result
        if self.door == "init-from":
            return run_cli("memory", "--vault", str(self.receiver), "init", "--from", self.url, "--json", cwd=self.tmp)
        if self.door == "remote-set-adopt":
            return run_cli("memory", "remote", "set", self.url, "--json", vault=self.receiver)
        return run_cli("memory", "remote", "set", self.url, "--join", "--json", vault=self.receiver)

    def shared(self) -> None:
        """What the receiver committed on top of the arrivals reaches the remote (the session-start
        pull never pushes; the next sync would), so the next arrival is a plain fast-forward again."""
        git(self.receiver, "push", "-q", "origin", "HEAD:main")

    def ran(self) -> CliResult:
        """The door run, and it went through (an arrival that fails the gate is quarantined, not an error)."""
        result = self.run()
        assert result.code == 0, result.out + result.err
        if self.door == "session-start-pull":
            assert self.state() in ("ok", "quarantined"), self.state()
            return result
        answer = result.json  # the door that ran is the door under test
        expected = {
            "sync-ff": ("action", "fast-forward"),
            "sync-merge": ("action", "merged"),
            "init-from": ("created", True),
            "remote-set-adopt": ("adopted", True),
            "remote-set-join": ("joined", True),
        }[self.door]
        assert answer[expected[0]] == expected[1], answer
        return result

    def _pull_lines(self) -> list[str]:
        """The receiver's log lines of the detached `_hook pull` (each ends one background pull)."""
        log = state_dir(self.receiver) / "log"
        return [line for line in log.read_text().splitlines() if "hook=pull " in line] if log.is_file() else []

    def state(self) -> str:
        from jacked_vault.store.sync_state import read_state

        return read_state(self.receiver).result

    def quarantined(self) -> set[tuple[str, str]]:
        """(path, code) of every arrival kept out (the receiver's quarantine records)."""
        path = state_dir(self.receiver) / "quarantine" / "records.jsonl"
        records = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
        return {(r["path"], r["reason"].split(":", 1)[0]) for r in records if r["source"] == "sync"}

    def in_head(self, rel: str) -> bool:
        return (
            subprocess.run(
                ["git", "-C", str(self.receiver), "cat-file", "-e", f"HEAD:{rel}"], capture_output=True, check=False
            ).returncode
            == 0
        )

    def assert_not_taken(self, rel: str, code: str | None = None) -> None:
        assert not (self.receiver / rel).exists() and not self.in_head(rel), f"{rel} was taken"
        if code:
            assert (rel, code) in self.quarantined(), self.quarantined()

    def own_commits(self) -> list[str]:
        """The commits the door made here (the remote's history at the door's run excluded)."""
        return git(
            self.receiver, "rev-list", "HEAD", "--not", self.tip, *([self.head_before] if self.head_before else [])
        ).split()


_SCENES: dict[str, Remote] = {}  # door -> the arrival scene built once per session, copied into each cell


@dataclass
class Cell:
    """What a driver gets: the local world, or (arrival doors) the remote scene, made on first use."""

    tmp: Path
    door: str
    factory: pytest.TempPathFactory

    @cached_property
    def world(self) -> World:
        return World(self.tmp)

    @cached_property
    def remote(self) -> Remote:
        if self.door not in _SCENES:
            _SCENES[self.door] = Remote(self.factory.mktemp(f"scene-{self.door}"), self.door)
        return Remote.copied(_SCENES[self.door], self.tmp)


@drives(ARRIVALS, "schema")
def schema_arrival(remote: Remote) -> None:
    """Invalid notes (each with its own audit line, so only the gate can stop them) and an invalid
    hot.md arrive: each is quarantined by the gate, never taken."""

    def valid(n: int) -> bytes:
        return _render(f"Valid so far {n}", "plain", group="tools")[1]

    bad = {
        "groups/tools/note/overlong.md": _with_title(valid(1), INVALID_TITLE),
        "groups/tools/note/bad-kind.md": valid(2).replace(b'kind: "note"', b'kind: "bogus"'),
        "groups/tools/note/bad-body.md": valid(3).replace(b"plain", CONTROL_BODY.encode()),
        "groups/tools/note/wrong-folder.md": valid(4).replace(b'group: "tools"', b'group: "web"'),
        "groups/tools/hot.md": b"a bell \x07 in hot.md\n",
    }
    remote.push(bad, audit={rel: _note_id(data) for rel, data in bad.items() if "/note/" in rel})
    result = remote.ran()
    codes = dict(remote.quarantined())
    for rel in bad:
        remote.assert_not_taken(rel)
        assert codes.get(rel) not in (None, "UNAUDITED"), (rel, codes)
    assert recall(remote.receiver, "valid") == []
    assert "t" * 200 not in result.out


@drives(ARRIVALS, "secret")
def secret_arrival(remote: Remote, text: str) -> None:
    """A note holding the token (with a forged audit line, so only the scan can stop it) is kept
    out: not in the working tree, HEAD's tree, any commit this machine makes, the index or output.
    (The remote's own history holds it: that commit is not this machine's to rewrite.)"""
    _, rel = remote.push_note("Deploy keys", text)
    hot = "groups/tools/hot.md"
    remote.push({hot: f"# hot\n\n{text}\n"})
    result = remote.ran()
    remote.assert_not_taken(rel, "SECRET")
    outputs = [
        result.out,
        result.err,
        run_cli("memory", "search", "deploy", "--all", "--json", vault=remote.receiver).out,
    ]
    outputs.append(run_cli("memory", "doctor", "--json", vault=remote.receiver).out)
    assert stored_anywhere(remote.receiver, NEEDLE, history=None) == []
    assert (
        NEEDLE
        not in subprocess.run(
            ["git", "-C", str(remote.receiver), "grep", "-I", NEEDLE, "HEAD"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout
    )
    for commit in remote.own_commits():  # what this machine commits (its trees and messages), never the token
        assert NEEDLE not in git(remote.receiver, "log", "-1", "--format=%B", commit)
        grep = subprocess.run(
            ["git", "-C", str(remote.receiver), "grep", "-I", "-e", NEEDLE, commit],
            capture_output=True,
            text=True,
            check=False,
        )
        assert grep.stdout == "", grep.stdout
    for text_out in outputs:
        assert NEEDLE not in text_out.replace("\u200b", "")


@drives(ARRIVALS, "tombstone")
def tombstone_arrival(remote: Remote) -> None:
    """A value rejected (on the laptop, known here) arrives again as a new note with its audit line."""
    from jacked_vault.sync import sync
    from jacked_vault.write.transitions import transition

    note = add(remote.laptop, AddRequest(title=REJECTED_TITLE, body=REJECTED_BODY, group="tools"))
    transition(remote.laptop, note.note.id, "reject", reason="spaces")
    remote.laptop_sync()
    if remote.door in ("sync-ff", "sync-merge", "session-start-pull"):
        sync(remote.receiver_ctx())
    _, rel = remote.push_note(REJECTED_TITLE + ".", REJECTED_BODY.lower(), rel="groups/tools/note/tabs-again.md")
    _, claimed = remote.push_note(
        REJECTED_TITLE + "!", REJECTED_BODY, rel="groups/tools/note/tabs-reviewed.md", trust="reviewed"
    )  # no exemption
    remote.ran()
    for path in (
        rel,
        claimed,
    ):  # kept out, or (made before its machine knew, with its audit line) taken and rejected here
        if (path, "TOMBSTONED") not in remote.quarantined():
            assert b'status: "rejected"' in (remote.receiver / path).read_bytes(), path
            assert 'status: "rejected"' in git(remote.receiver, "show", f"HEAD:{path}"), path
        else:
            remote.assert_not_taken(path)
    live = [r for r in recall(remote.receiver, "tabs") if r["status"] != "rejected"]
    assert live == [], live
    if remote.door in (
        "sync-ff",
        "sync-merge",
        "session-start-pull",
    ):  # the value again, in the rejected note's own place
        stones = sorted(str(p.relative_to(remote.receiver)) for p in (remote.receiver / "tombstones").iterdir())
        remote.shared()
        _, data, _ = _render(REJECTED_TITLE, REJECTED_BODY, group="tools")
        remote.push({note.rel: data}, "bring it back", audit={note.rel: _note_id(data)})
        remote.run()
        live = [r for r in recall(remote.receiver, "tabs") if r["status"] != "rejected"]
        if live:
            raise KnownHole(
                f"{remote.door}: a rejected value arriving as another note in the rejected note's place "
                f"was taken: {live}"
            )
        assert stones


@drives(ARRIVALS, "trust")
def trust_arrival(remote: Remote) -> None:
    """A new note claiming `reviewed`, and a review of an existing note, both with audit lines but
    no accept behind them: taken, and unreviewed on every recall."""
    new_id, _ = remote.push_note(CLAIMED, "Taken, but not reviewed.", trust="reviewed")
    git(remote.hostile, "fetch", "-q", "origin")
    git(remote.hostile, "reset", "-q", "--hard", "origin/main")
    first = (remote.hostile / FIRST).read_bytes().replace(b'trust: "unreviewed"', b'trust: "reviewed"')
    remote.push({FIRST: first}, "memory(accept): First note", audit={FIRST: _note_id(first)})
    remote.ran()
    found = {r["id"]: r for r in recall(remote.receiver)}
    assert new_id in found and found[new_id]["trust"] == "unreviewed", found
    assert all(r["trust"] == "unreviewed" for r in found.values()), found
    read = run_cli("memory", "read", new_id, "--json", vault=remote.receiver).json["memory"]
    assert read["trust"] == "unreviewed" and read.get("claimed_trust") == "reviewed", read


@drives(ARRIVALS, "audit")
def audit_arrival(remote: Remote) -> None:
    """An honest arrival (notes and a transition made with the tool) is taken and every commit this
    machine makes carries its audit line; a note added or changed without its audit line is
    quarantined."""
    from jacked_vault.write.transitions import transition

    honest = add(remote.laptop, AddRequest(title="Honest note", body="Made with the tool.", group="tools"))
    declined = add(
        remote.laptop,
        AddRequest(
            title="Declined note", body="Rejected with the tool.", group="tools", status="candidate", origin="mcp"
        ),
    )
    transition(remote.laptop, declined.note.id, "reject", reason="no")
    remote.laptop_sync()
    _, planted = remote.push_note("Planted by hand", "No audit line.", audited=False)
    git(remote.hostile, "fetch", "-q", "origin")
    git(remote.hostile, "reset", "-q", "--hard", "origin/main")
    rejected = (remote.hostile / FIRST).read_bytes().replace(b'status: "active"', b'status: "rejected"')
    remote.push({FIRST: rejected}, "reject by hand")
    remote.ran()
    remote.assert_not_taken(planted, "UNAUDITED")
    assert (FIRST, "UNAUDITED") in remote.quarantined()
    if remote.receiver.joinpath(FIRST).exists():
        assert b'status: "rejected"' not in (remote.receiver / FIRST).read_bytes()
    found = {r["id"]: r["status"] for r in recall(remote.receiver)}
    assert found.get(honest.note.id) == "active" and found.get(declined.note.id) == "rejected", found
    assert_audited(remote.receiver, [remote.tip] + ([remote.head_before] if remote.head_before else []), made=False)


class KnownHole(AssertionError):
    """A cell's check that fails because the product lets something through (see KNOWN_HOLES)."""


def _note_id(data: bytes) -> str:
    return next(line.split('"')[1] for line in data.decode().splitlines() if line.startswith("id: "))


@drives(ARRIVALS, "create-only")
def create_only_arrival(remote: Remote) -> None:
    """An arriving rewrite of a note's title and body (with a forged audit line) is quarantined and
    the local bytes kept. A door into a store with no note of its own never lands on what is there
    (init --from into a non-empty folder, adoption over a vault with notes); there the remote's
    notes arrive as new ones, each judged with its audit line (a rewrite without one is kept out).
    A forged audit line makes a rewritten note a new one to such a machine, as it would any new
    note: the contract's create-only is about the notes a machine has."""
    door = remote.door
    if door == "remote-set-join":
        own = next((remote.receiver / "groups" / "personal" / "note").glob("*.md"))
        rel = str(own.relative_to(remote.receiver))
        before = own.read_bytes()
        rewritten = before.replace(b"Only on this machine.", REWRITTEN.encode())
        remote.push({rel: rewritten, rel.replace(".md", "-copy.md"): rewritten}, audit={rel: _note_id(before)})
        result = remote.run()
        assert own.read_bytes() == before
        if result.code == 0:
            assert git(remote.receiver, "show", f"HEAD:{rel}").encode() == before
        assert REWRITTEN not in json.dumps(recall(remote.receiver))
        return
    if door == "init-from":
        remote.receiver.mkdir()
        (remote.receiver / "mine.txt").write_text("mine\n")
        refused = remote.run()
        assert refused.code == 1 and code_of(refused.json["error"]["code"]) == "EXISTS", refused.out
        assert [p.name for p in remote.receiver.iterdir()] == ["mine.txt"] and (
            remote.receiver / "mine.txt"
        ).read_text() == "mine\n"
        shutil.rmtree(remote.receiver)
    if door == "remote-set-adopt":
        mine = add(remote.receiver_ctx(), AddRequest(title="Mine", body="Never replaced.", group="personal"))
        head = git(remote.receiver, "rev-parse", "HEAD")
        refused = remote.run()
        assert refused.code == 1 and "--join" in refused.out, refused.out
        assert git(remote.receiver, "rev-parse", "HEAD") == head and (remote.receiver / mine.rel).is_file()
        shutil.rmtree(remote.receiver)
        remote._vault("receiver")
    before = (remote.laptop.vault.root / FIRST).read_bytes()
    rewritten = before.replace(b'title: "First note"', b'title: "Deploy policy"').replace(
        b"From the laptop.", REWRITTEN.encode()
    )
    fresh = door in ("init-from", "remote-set-adopt")
    remote.push({FIRST: rewritten}, "policy update", audit=None if fresh else {FIRST: _note_id(before)})
    remote.ran()
    assert REWRITTEN not in json.dumps(recall(remote.receiver))
    if fresh:
        remote.assert_not_taken(FIRST, "UNAUDITED")
        return
    assert (FIRST, "NOT_A_TRANSITION") in remote.quarantined()
    assert (remote.receiver / FIRST).read_bytes() == before == git(remote.receiver, "show", f"HEAD:{FIRST}").encode()
    # another note (a new id, its audit line forged) in the place of one this machine has
    remote.shared()
    _, replacement, _ = _render("Deploy policy", REWRITTEN, group="tools")
    remote.push({FIRST: replacement}, "replace a note", audit={FIRST: _note_id(replacement)})
    remote.tip = None
    result = remote.run()
    assert result.code == 0 or door == "session-start-pull", result.out
    if (remote.receiver / FIRST).read_bytes() != before or REWRITTEN in json.dumps(recall(remote.receiver)):
        raise KnownHole(
            f"{door}: a note arriving with a new id at the path of a note this machine has replaced it, unreported"
        )


@drives(ARRIVALS, "containment")
def containment_arrival(remote: Remote) -> None:
    """A symlink, a path outside the layout or under `.jacked/`: the door stops before HEAD moves,
    and nothing is written outside the vault."""
    outside = remote.tmp / "outside"
    outside.mkdir()
    (outside / "target.md").write_text("outside the vault\n")
    remote.push(
        {
            "groups/tools/hot.md": outside / "target.md",
            "scripts/run.sh": "echo pwned\n",
            ".jacked/vault.local.json": "{}",
        }
    )
    result = remote.run()
    assert tree_of(outside) == {"target.md": b"outside the vault\n"}
    if remote.door == "session-start-pull":
        assert result.code == 0 and remote.state() == "refused", remote.state()
    else:
        assert result.code == 1 and code_of(result.json["error"]["code"]) == "SYNC", result.out
        assert "a symlink" in result.out and "outside the vault layout" in result.out
    if remote.door == "init-from":
        assert not remote.receiver.exists() and not [p for p in remote.tmp.iterdir() if ".jacked-clone-" in p.name]
        return
    assert git(remote.receiver, "rev-parse", "HEAD").strip() == remote.head_before
    assert not (remote.receiver / "scripts").exists() and not (remote.receiver / "groups/tools/hot.md").is_symlink()
    assert git(remote.receiver, "status", "--porcelain") == ""


# == cap: a file over its size cap, or a field over its bound (issue 31.6) ==========================

OVERSIZED_BODY = "deploy notes " * 6000  # 78,000 bytes: over a note body's 64 KiB


@drives(tuple(n for n in NOTE_DOORS if n not in CAPTURES and n != "edit-as-new"), "cap")
def cap_note_door(world: World, door: str) -> None:
    before = snapshot(world.vault)
    outcome = NOTE_DOORS[door](world, "Deploy notes", OVERSIZED_BODY, KIND_OF.get(door, "note"))
    assert outcome.code in ("VALIDATION", "USAGE"), outcome.out
    assert snapshot(world.vault) == before


@drives(CAPTURES, "cap")
def cap_capture(world: World, door: str) -> None:
    """A distilled note over the cap is refused (the session's entry is still written); no note."""
    notes = note_files(world.vault)
    outcome = NOTE_DOORS[door](world, "Deploy notes", OVERSIZED_BODY)
    assert outcome.code, outcome.out
    assert note_files(world.vault) == notes


@drives("edit-as-new", "cap")
def cap_edit_as_new(world: World, door: str) -> None:
    waiting = candidate(world)
    before = snapshot(world.vault)
    outcome = submit_edit_as_new(world, "Deploy notes", OVERSIZED_BODY, waiting=waiting)
    assert outcome.code in ("VALIDATION", "USAGE"), outcome.out
    assert snapshot(world.vault) == before


@drives("post-merge", "cap")
def cap_post_merge(world: World, door: str) -> None:
    """A merge message of any size makes a note within the caps (capture bounds what it copies)."""
    from jacked_vault.document import MAX_BODY_BYTES, MAX_TITLE

    sha = merge_in(world, "Merge pull request #7 from acme/feat", "Deploy " + "x" * 400 + "\n\n" + OVERSIZED_BODY)
    assert capture_merge(world, sha).json["merges"][0]["action"] == "created"
    for rel, data in note_files(world.vault).items():
        assert len(data) <= 128 * 1024, rel
    for found in recall(world.vault, cwd=world.repo):
        assert len(found["title"]) <= MAX_TITLE
    bodies = [run_cli("memory", "read", r["id"], "--all", "--json", vault=world.vault).json["memory"]["body"]
              for r in recall(world.vault, cwd=world.repo)]  # fmt: skip
    assert bodies and all(len(b.encode()) <= MAX_BODY_BYTES for b in bodies)
    assert world.cli("doctor", "--json").json["ok"]


@drives("migrate", "cap")
def cap_migrate(world: World, door: str) -> None:
    from jacked_vault.episodic.migrate import MAX_SOURCE_FILE

    remember(world, {"today-2026-11-19.md": "## 09:00 | main\n" + "Did things.\n" * (MAX_SOURCE_FILE // 12 + 10)})
    before = snapshot(world.vault)
    result = world.cli("migrate", "--json")
    assert result.code == 0, result.err
    assert [(f["action"], "cap" in f["reason"]) for f in result.json["files"]] == [("skipped", True)], result.out
    assert snapshot(world.vault) == before


@drives("rollup", "cap")
def cap_rollup(world: World, door: str) -> None:
    """A day file over the rollup's cap is left in place and said; nothing is committed for it."""
    from jacked_vault.episodic.rollup import MAX_DAY_BYTES

    path = planted_day(world, "Did things.\n" * (MAX_DAY_BYTES // 12 + 10))
    git(world.vault, "add", str(path.relative_to(world.vault)))
    git(world.vault, "commit", "-qm", "a big day, committed by hand")
    before = snapshot(world.vault)
    result = world.cli("rollup", "--today", "2026-11-28", "--json")
    assert result.code == 0, result.out + result.err
    skipped = [s for r in result.json["repos"] for s in r["skipped"]]
    assert [s["file"].rsplit("/", 1)[-1] for s in skipped] == [path.name], result.out
    assert "cap" in skipped[0]["reason"] and "day left in place" in skipped[0]["reason"], result.out
    assert snapshot(world.vault) == before


@drives("transition", "cap")
def cap_transition(world: World, door: str) -> None:
    note = add(world.ctx(), AddRequest(title="Some idea", body="plain", status="candidate"))
    before = snapshot(world.vault)
    result = world.cli("reject", note.note.id, "--reason", "r" * 5000, "--json")
    assert code_of(result.json["error"]["code"]) in ("VALIDATION", "USAGE"), result.out
    assert snapshot(world.vault) == before


@drives("hot-set", "cap")
def cap_hot_set(world: World, door: str) -> None:
    before = snapshot(world.vault)
    result = world.cli("hot", "set", "--body", "Working on the parser. " * 200, "--json")
    assert code_of(result.json["error"]["code"]) == "VALIDATION" and "cap" in result.out, result.out
    assert snapshot(world.vault) == before


@drives("config", "cap")
def cap_config(world: World, door: str) -> None:
    before = snapshot(world.vault)
    result = world.cli("group", "map", "github.com/acme/" + "a" * 3000, "team", "--json")
    assert code_of(result.json["error"]["code"]) in ("CONFIG", "VALIDATION", "USAGE"), result.out
    assert snapshot(world.vault) == before


@drives("init", "cap")
def cap_init(world: World, door: str) -> None:
    """A README.md already in the folder over its cap is refused; nothing is committed."""
    files = {"README.md": b"# Our vault\n" + b"about the vault\n" * 70_000}
    folder = _fresh_repo(world, files)
    result = run_cli("memory", "--vault", str(folder), "init", "--no-scan", "--json", cwd=world.tmp)
    assert result.code == 1 and code_of(result.json["error"]["code"]) in ("VALIDATION", "CONFIG"), result.out
    assert _visible(folder) == files and git(folder, "rev-list", "--all") == ""


@drives("repair", "cap")
def cap_repair(world: World, door: str) -> None:
    _, data, _ = _render("Planted", "plain")
    plants = {"groups/api/note/big.md": data.replace(b"plain", OVERSIZED_BODY.encode() * 2),
              "groups/api/hot.md": b"Working on the parser.\n" * 400}  # fmt: skip
    for rel, content in plants.items():
        (world.vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (world.vault / rel).write_bytes(content)
    result = world.cli("doctor", "--repair", "--json")
    for rel in plants:
        assert not (world.vault / rel).exists() and rel not in git(world.vault, "ls-files"), rel
        assert any(r["path"] == rel for r in result.json["quarantine"]), result.out


@drives(ARRIVALS, "cap")
def cap_arrival(remote: Remote) -> None:
    """A note and a hot.md over their caps (each with its audit line, so only the cap stops them)."""
    note_id, data, _ = _render("Deploy policy", "plain", group="tools")
    big = data.replace(b"plain", OVERSIZED_BODY.encode() * 2)
    files = {"groups/tools/note/deploy-policy.md": big, "groups/tools/hot.md": b"Working on the parser.\n" * 400}
    remote.push(files, audit={"groups/tools/note/deploy-policy.md": note_id, "groups/tools/hot.md": "hot_tools"})
    remote.ran()
    for rel in files:
        remote.assert_not_taken(rel, "TOO_LARGE")


# -- tombstone: hot.md and the day files rollup reads hold values too ------------------------------


@drives("hot-set", "tombstone")
def tombstone_hot_set(world: World, door: str) -> None:
    """hot.md may not hold a rejected value, as a titled part of its text (a first line and what
    follows it, or a heading and its section): refused, nothing written."""
    _reject_value(world)
    before = snapshot(world.vault)
    for body in (f"{REJECTED_TITLE}.\n{REJECTED_BODY.lower()}", f"Working.\n\n## {REJECTED_TITLE}\n{REJECTED_BODY}"):
        result = world.cli("hot", "set", "--body", body, "--json")
        assert code_of(result.json["error"]["code"]) == "TOMBSTONED", result.out
        assert snapshot(world.vault) == before


@drives("rollup", "tombstone")
def tombstone_rollup(world: World, door: str) -> None:
    """A day file planted by hand holding a rejected value as an entry is never rolled into recent.md."""
    _reject_value(world)
    path = planted_day(world, "Did things.")
    path.write_text(path.read_text() + f"\n## {REJECTED_TITLE}\n{REJECTED_BODY}\n")
    before = snapshot(world.vault)
    result = world.cli("rollup", "--today", "2026-11-28", "--json")
    assert result.code == 1 and code_of(result.json["error"]["code"]) == "TOMBSTONED", result.out
    assert snapshot(world.vault) == before


# == the shared files (issue 31.6): every kind of file the repository shares, on every arrival door ==

SHARED = {f.name: f for f in registry.SHARED_FILES}
EPISODIC_TEXTS = {  # an episodic file of each kind: what comes before the entry holding a title and a text
    "day-file": "# github.com/acme/tools — 2026-12-01\n\n## 10:00 | main\nWorked.\n\n##",
    "recent": "# Recent\n\n## 2026-12-01\n\n### 10:00 | main\nWorked.\n\n###",
    "archive-md": "# Archive\n\n## Week of 2026-11-30\n\n### 2026-12-01\n\n####",
    "core-memories": "# Core memories\n\n##",
}
HOT_HEADER = "# Hot: tools\n<!-- updated 2030-01-01T00:00:00.000Z by x -->\n\nWorking.\n\n##"


def shared_text(name: str, title: str, text: str) -> bytes:
    """A file of shared kind `name` that holds `title` and `text` as a titled part of it."""
    if name == "note":
        return _render(title, text, group="tools")[1]
    if name == "archived-note":  # closed (expired), as the librarian moves them
        closed = {"valid_from": "2025-01-01T00:00:00.000Z", "valid_until": "2025-06-01T00:00:00.000Z"}
        return _render(title, text, group="tools", **closed)[1]
    if name == "hot":
        return f"{HOT_HEADER} {title}\n{text}\n".encode()
    if name in ("readme", "archive-other"):
        return f"# Our vault\n\n## {title}\n{text}\n".encode()
    if name == "vault-json":
        return (json.dumps({"version": 1, "groups": {"tools": {"repos": [f"github.com/acme/{text}"]}}}) + "\n").encode()
    if name == "audit-log":
        record = {"ts": "2026-12-01T10:00:00.000Z", "op": "create", "id": "mem_x", "path": title, "sha256": "",
                  "prev": None, "harness": text, "origin": "cli"}  # fmt: skip
        return (json.dumps(record) + "\n").encode()
    if name in ("tombstones", "forgotten"):
        return ("0" * 64 + "\n").encode()
    return f"{EPISODIC_TEXTS[name]} {title}\n{text}\n".encode()


def oversized(name: str) -> bytes:
    """A file of shared kind `name` over its cap (layout's `gate.cap_for`), valid otherwise."""
    from jacked_vault.store.gate import cap_for

    cap = cap_for(SHARED[name].layout)
    if name in ("tombstones", "forgotten"):
        return ("0" * 64 + "\n").encode() * (cap // 65 + 1)
    if name == "audit-log":
        line = shared_text(name, "groups/tools/note/x.md", "x")
        return line * (cap // len(line) + 1)
    if name == "vault-json":
        return (json.dumps({"version": 1, "groups": {}, "pad": "x" * cap}) + "\n").encode()
    filler = "Worked on the deploy. " * (cap // 22 + 10)
    if name in NOTES:  # rendered small, then grown past the cap as a hand would (the renderer refuses it)
        return shared_text(name, "Deploy notes", "plain").replace(b"plain", filler.encode())
    return shared_text(name, "Deploy notes", filler)


STOPS = ("vault-json", "audit-log")  # kinds an arrival of which may stop the door (nothing moves)
QUARANTINED_AS = {"tombstone": "TOMBSTONED", "audit": "UNAUDITED", "secret": "SECRET", "cap": "TOO_LARGE"}
MARKDOWN = ("hot", "day-file", "recent", "archive-md", "core-memories", "readme", "archive-other")
NOTES = ("note", "archived-note")


def hostile_version(name: str, rule: str) -> bytes:
    """What a pusher sends as a file of shared kind `name` to try `rule`."""
    if rule == "tombstone":
        return shared_text(name, REJECTED_TITLE + ".", REJECTED_BODY.lower())
    if rule == "audit":
        return shared_text(name, "Deploy policy", REWRITTEN)
    if rule == "secret":
        return shared_text(name, "Deploy keys", HIDINGS["raw"])
    return oversized(name)


def _shared_round(remote: Remote, files: dict[str, bytes], rule: str) -> CliResult:
    """Push `files` (shared kind -> bytes, at each kind's example path), each with a forged audit
    line unless the rule is the audit rule itself, and run the door."""
    paths = {SHARED[name].example: data for name, data in files.items()}
    ids = {SHARED[name].example: _note_id(data) if name in NOTES else name for name, data in files.items()}
    remote.push(paths, f"hostile {', '.join(files)}", audit=None if rule == "audit" else ids)
    return remote.run()


def fresh_receiver(remote: Remote) -> None:
    """A receiving vault as the door's scene had it (init --from: none; adoption: a new vault; a
    join: a vault with a note of its own), for a door that judges a whole tree again."""
    shutil.rmtree(remote.receiver, ignore_errors=True)
    if remote.door == "remote-set-adopt":
        remote._vault("receiver")
    elif remote.door == "remote-set-join":
        ctx = remote._vault("receiver")
        add(ctx, AddRequest(title="My private note", body="Only on this machine.", group="personal"))


def _take_back(remote: Remote, rel: str, before: bytes | None) -> None:
    """The remote's head holds `rel` as it was before the round again."""
    git(remote.hostile, "fetch", "-q", "origin")
    git(remote.hostile, "reset", "-q", "--hard", "origin/main")
    now = (remote.hostile / rel).read_bytes() if (remote.hostile / rel).exists() else None
    if now != before:
        remote.push({rel: before}, "take it back")


def _head_bytes(root: Path, rel: str) -> bytes | None:
    shown = subprocess.run(["git", "-C", str(root), "show", f"HEAD:{rel}"], capture_output=True, check=False)
    return shown.stdout if shown.returncode == 0 else None


def _kept_out(remote: Remote, name: str, rule: str, data: bytes) -> None:
    """The arriving `data` of kind `name` was not taken (or, a note holding a rejected value made
    before its machine knew, taken rejected; a Markdown file holding one that this machine did not
    know before, taken with the value withheld from recall), and its quarantine said why."""
    rel = SHARED[name].example
    quarantined = dict(remote.quarantined())
    held = _head_bytes(remote.receiver, rel)
    if rule == "tombstone" and rel not in quarantined:
        if name in NOTES:
            assert held is not None and b'status: "rejected"' in held, (name, held)
        else:
            assert name in MARKDOWN and remote.door not in ("sync-ff", "sync-merge", "session-start-pull"), (
                f"{name}: a rejected value this machine knew was taken"
            )
        return
    assert quarantined.get(rel) == QUARANTINED_AS[rule], (name, quarantined)
    assert held != data, f"{name}: taken"
    working = remote.receiver / rel
    assert not working.exists() or working.read_bytes() != data, f"{name}: in the working tree"


@pytest.mark.parametrize(
    "door, rule", [pytest.param(d, r, id=f"{d}-{r}") for d in ARRIVALS for r in registry.FILE_RULES]
)
def test_every_arrival_keeps_every_file_rule_for_every_shared_file(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, door: str, rule: str
):
    """Every kind of file the repository shares (`registry.SHARED_FILES`), arriving through every
    door, is judged by every file rule that applies to it: a rejected value (with a forged audit
    line), no audit line, a secret (with one), over its cap (with one). It is kept out (quarantined,
    the local version kept; vault.json and audit logs may stop the door instead, nothing moving)
    and never recalled."""
    from jacked_vault.write.transitions import transition

    remote = Cell(tmp_path, door, tmp_path_factory).remote
    if rule == "tombstone":
        note = add(remote.laptop, AddRequest(title=REJECTED_TITLE, body=REJECTED_BODY, group="tools"))
        transition(remote.laptop, note.note.id, "reject", reason="spaces")
        remote.laptop_sync()
        if door in ("sync-ff", "sync-merge", "session-start-pull"):
            from jacked_vault.sync import sync

            sync(remote.receiver_ctx())
    applying = [f.name for f in registry.SHARED_FILES if rule not in f.not_applicable]
    files = {name: hostile_version(name, rule) for name in applying if name not in STOPS}
    remote.tip = None
    result = _shared_round(remote, files, rule)
    assert result.code == 0, result.out + result.err
    for name, data in files.items():
        _kept_out(remote, name, rule, data)
    words = {"tombstone": ["indent", "python"], "audit": ["force-push"], "secret": [NEEDLE]}
    if rule in words:  # an oversized file holds nothing to look for
        _not_recalled(remote, *words[rule])
    if door == "session-start-pull":
        remote.shared()  # what it kept out reaches the remote (the next sync would push it)
    for name in (n for n in applying if n in STOPS):
        rel = SHARED[name].example
        before = _head_bytes(remote.hostile, rel)
        if door in ("init-from", "remote-set-adopt", "remote-set-join"):
            fresh_receiver(remote)
        data = hostile_version(name, rule)
        stopped = _shared_round(remote, {name: data}, rule)
        if door == "session-start-pull":
            assert remote.state() in ("refused", "quarantined"), (name, remote.state())
        elif stopped.code != 0:
            assert code_of(stopped.json["error"]["code"]) == "SYNC" and rel in stopped.out, (name, stopped.out)
            assert not remote.receiver.exists() or _head_bytes(remote.receiver, rel) != data
        else:  # kept out instead: the local version kept
            _kept_out(remote, name, rule, data)
        _take_back(remote, rel, before)
        if door == "session-start-pull" and remote.state() == "quarantined":
            remote.shared()
    if rule == "secret":
        assert stored_anywhere(remote.receiver, NEEDLE, history=None) == [] if remote.receiver.exists() else True


def _not_recalled(remote: Remote, *words: str) -> None:
    """What search and `hot show` give a person for `words` holds none of the hostile texts."""
    results = run_cli("memory", "search", *words, "--all", "--limit", "100", "--json", vault=remote.receiver)
    assert results.code == 0, results.out + results.err
    hot = run_cli("memory", "hot", "show", "--group", "tools", vault=remote.receiver).out
    shown = (json.dumps([r for r in results.json["results"] if r["status"] != "rejected"]) + hot).lower()
    for text in (REJECTED_BODY.lower(), REWRITTEN.lower(), NEEDLE.lower()):
        assert text not in shown, text


def test_every_shared_file_kind_is_registered_with_its_layout():
    """The registry names every kind of file the layout has, each by an example path of that kind."""
    from jacked_vault.store.layout import Store, classify_path

    store = Store(Path("/nonexistent-vault"))
    for shared in registry.SHARED_FILES:
        assert classify_path(store, shared.example) == shared.layout, shared.name
        assert set(shared.not_applicable) <= set(registry.FILE_RULES), shared.name
        assert all(why.strip() for why in shared.not_applicable.values()), shared.name
    layouts = {"note", "hot", "index", "episodic", "audit", "tombstones", "config", "readme", "gitignore", "archive"}
    assert {s.layout for s in registry.SHARED_FILES} == layouts


# == the matrix =====================================================================================

DOORS = {door.name: door for door in registry.DOORS}

# Cells that fail because the product lets something through, until it is fixed: (door, rule) -> why.
KNOWN_HOLES: dict[tuple[str, str], str] = {}


def _cells():
    for door in registry.DOORS:
        for rule in registry.RULES:
            hole = KNOWN_HOLES.get((door.name, rule))
            marks = [pytest.mark.xfail(strict=True, raises=KnownHole, reason=hole)] if hole else []
            yield pytest.param(door.name, rule, id=f"{door.name}-{rule}", marks=marks)


@pytest.mark.parametrize("door, rule", list(_cells()))
def test_every_door_keeps_every_rule(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, door: str, rule: str):
    why = DOORS[door].not_applicable.get(rule)
    if why is not None:
        assert why.strip(), f"{door}: the registry marks {rule} not applicable without a reason"
        return
    driver = DRIVERS.get((door, rule))
    if driver is None:
        pytest.fail(
            f"no driver for door {door!r} x rule {rule!r}: "
            f"write one in tests/e2e/test_gate_doors.py (@drives({door!r}, {rule!r})), "
            f"or say in jacked_vault/registry.py why {rule} cannot apply to {door}"
        )
    cell = Cell(tmp_path, door, tmp_path_factory)
    args: list = [cell.remote] if door in ARRIVALS else [cell.world, door]
    if rule in SECRET_RULES:
        args.append(HIDINGS[rule.split(":", 1)[1]])
    driver(*args)


def test_every_driver_drives_a_registered_cell():
    cells = {(d.name, r) for d in registry.DOORS for r in registry.RULES if r not in d.not_applicable}
    assert set(DRIVERS) - cells == set(), (
        "a driver for a door or rule the registry no longer has (or marks not applicable)"
    )
    assert set(ARRIVALS) <= set(DOORS) and set(NOTE_DOORS) <= set(DOORS)


# == single tests: fields that are not the body (finding 5) ============================================


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


@pytest.mark.parametrize(
    "args",
    [
        ["--harness", SLACK_SLUG],
        ["--target", SLACK_SLUG],
        ["--tag", SLACK_SLUG],
        ["--repo", f"github.com/o/{SLACK_SLUG}"],
        ["--link", f"mem_{SLACK_SLUG}"],
    ],
    ids=["harness", "target", "tag", "repo", "link"],
)
def test_every_field_is_scanned_and_never_echoed(world: World, args: list[str]):
    result = world.cli("add", "--title", "Plain", "--body", "plain", *args, "--json")
    assert result.code == 1 and result.json["error"]["code"] == "JACKED_MEMORY_SECRET", result.out
    assert SLACK_SLUG[:16] not in result.out + result.err
    assert SLACK_SLUG[:16] not in git(world.vault, "log", "-p", "--all")


def test_a_validation_error_never_quotes_the_value(world: World):
    bad_link = "mem_https://admin:pw@db.example.com"
    result = world.cli("add", "--title", "Plain", "--body", "plain", "--link", bad_link, "--json")
    assert result.code == 1 and "admin:pw" not in result.out + result.err and "links[0]" in result.out


def test_group_map_scans_the_repo_it_writes_into_vault_json(world: World):
    result = world.cli("group", "map", f"github.com/o/{SLACK_SLUG}", "team", "--json")
    assert result.code == 1 and result.json["error"]["code"] == "JACKED_MEMORY_SECRET", result.out
    assert SLACK_SLUG[:16] not in git(world.vault, "log", "-p", "--all") + result.out


# -- tombstones: normalised (finding 8) ---------------------------------------------------------------


@pytest.mark.parametrize(
    "title, body",
    [
        (REJECTED_TITLE + ".", REJECTED_BODY),
        (REJECTED_TITLE, REJECTED_BODY.rstrip(".")),
        ("use TABS for   indentation!", REJECTED_BODY),
        ("Use tabs for inden\u200btation", REJECTED_BODY),
        ("Use tabs for inden\u00adtation", "Always indent Python with tabs\u2026"),
    ],
    ids=["trailing-period", "body-period", "case-space-punct", "zero-width", "soft-hyphen"],
)
def test_a_rejected_value_is_not_recreated_by_a_trivial_variant(world: World, title: str, body: str):
    _reject_value(world)
    result = world.cli("add", "--title", title, "--body", body, "--json")
    assert result.json["error"]["code"] == "JACKED_MEMORY_TOMBSTONED", result.out
    forced = world.cli("add", "--title", title, "--body", body, "--allow-rejected", "--json")
    assert forced.code == 0


@pytest.mark.parametrize("seed", range(5))
def test_the_ascii_fast_path_normalises_exactly_like_the_full_one(seed: int):
    """`normalise` skips NFKC and the format-character pass for ASCII; the result is the same."""
    import unicodedata

    from jacked_vault.store.tombstones import _NOT_WORD, normalise

    def full(text: str) -> str:
        text = unicodedata.normalize("NFKC", text)
        text = "".join(c for c in text if unicodedata.category(c) != "Cf").casefold()
        return _NOT_WORD.sub(" ", text).strip()

    rng = random.Random(seed)
    for _ in range(2000):
        text = "".join(rng.choice(string.printable) for _ in range(rng.randrange(0, 60)))
        assert normalise(text) == full(text)
    assert normalise("Use  FTS5 — now!") == full("Use  FTS5 — now!") == "use fts5 now"  # and the slow path


def test_the_fields_the_scan_skips_are_closed_by_the_schema():
    """The secret scan skips `CLOSED_FIELDS`: each must be a constant, an enum or a timestamp."""
    from jacked_vault.resources import data_file
    from jacked_vault.store.gate import CLOSED_FIELDS

    properties = json.loads(data_file("schemas", "note.schema.json").read_text(encoding="utf-8"))["properties"]
    for name in CLOSED_FIELDS:
        rule = properties[name]
        assert "const" in rule or "enum" in rule or rule.get("$ref") == "#/$defs/timestamp", name
    assert {"title", "body", "id", "group", "source_harness", "status_reason"}.isdisjoint(CLOSED_FIELDS)


# -- archive (issue 24.5): the librarian's move of closed notes to archive/ ------------------------


def _closed_note(world: World, title: str = "Closed idea", body: str = "the committed text") -> tuple[str, str]:
    """(id, path) of an active note, expired now: what `librarian archive --older-than 0` moves."""
    from jacked_vault.write.transitions import transition

    note = add(world.ctx(), AddRequest(title=title, body=body))
    transition(world.ctx(), note.note.id, "expire")
    return note.note.id, note.rel


@drives("archive", "schema")
def schema_archive(world: World, door: str) -> None:
    _closed_note(world)
    before = snapshot(world.vault)
    for args in (["--older-than", "-1"], ["--older-than", "soon"], ["--dry-run"]):
        result = world.cli("librarian", *(["archive"] if args != ["--dry-run"] else ["status"]), *args, "--json")
        assert result.code == 2 and code_of(result.json["error"]["code"]) == "USAGE", (args, result.out)
        assert snapshot(world.vault) == before, args


@drives("archive", "secret")
def secret_archive(world: World, door: str, text: str) -> None:
    """A token put into the working copy of a note being archived by hand is kept aside, never
    committed nor printed; the archived file is the committed one."""
    note_id, rel = _closed_note(world)
    path = world.vault / rel
    path.write_text(path.read_text() + f"\nappended by hand: {text}\n")
    result = world.cli("librarian", "archive", "--older-than", "0", "--json")
    assert result.code == 0 and [m["id"] for m in result.json["moved"]] == [note_id], result.out
    assert result.json["quarantined"], "the hand edit is kept aside and reported"
    assert git(world.vault, "show", f"HEAD:archive/{rel}") == git(world.vault, "show", f"HEAD~1:{rel}")
    assert_kept_out(world, result.out + result.err)


@drives("archive", "trust")
def trust_archive(world: World, door: str) -> None:
    """A note committed by hand claiming `reviewed`, archived, is still unreviewed where it is found."""
    from jacked_vault.write.transitions import transition

    note_id, data, stem = _render(CLAIMED, "plain", trust="reviewed")
    rel = f"groups/api/note/{stem}.md"
    (world.vault / rel).parent.mkdir(parents=True, exist_ok=True)
    (world.vault / rel).write_bytes(data)
    git(world.vault, "add", rel)
    git(world.vault, "commit", "-qm", "memory(accept): by hand")
    transition(world.ctx(), note_id, "expire")
    assert world.cli("librarian", "archive", "--older-than", "0").code == 0
    found = world.cli("search", "claimed", "--all", "--include-archived", "--json").json["results"]
    assert [(r["id"], r["archived"], r["trust"]) for r in found] == [(note_id, True, "unreviewed")], found
    read = world.cli("read", note_id, "--all", "--json").json["memory"]
    assert read["trust"] == "unreviewed" and read["claimed_trust"] == "reviewed", read


@drives("archive", "audit")
def audit_archive(world: World, door: str) -> None:
    for n in range(2):
        _closed_note(world, f"Closed {n}", f"text {n}")
    head = world.head()
    result = world.cli("librarian", "archive", "--older-than", "0", "--json")
    assert result.code == 0 and len(result.json["moved"]) == 2, result.out
    assert len(commits_since(world.vault, head)) == 1
    assert_audited(world.vault, head)


@drives("archive", "create-only")
def create_only_archive(world: World, door: str) -> None:
    """The archived file is the committed blob, byte for byte: a hand rewrite of the working copy is
    quarantined, and a file already at the archive path is never replaced (the note takes a free name)."""
    _note_id, rel = _closed_note(world)
    committed = (world.vault / rel).read_bytes()
    path = world.vault / rel
    path.write_text(path.read_text().replace("the committed text", REWRITTEN))
    taken = world.vault / "archive" / rel
    taken.parent.mkdir(parents=True)
    taken.write_bytes(b"a stray file, not ours\n")
    result = world.cli("librarian", "archive", "--older-than", "0", "--json")
    assert result.code == 0 and result.json["quarantined"], result.out
    moved = result.json["moved"][0]["to"].removeprefix("group:")
    assert moved != f"archive/{rel}" and (world.vault / moved).read_bytes() == committed
    assert taken.read_bytes() == b"a stray file, not ours\n" and REWRITTEN not in git(
        world.vault, "show", f"HEAD:{moved}"
    )


@drives("archive", "containment")
def containment_archive(world: World, door: str) -> None:
    _closed_note(world)
    assert_contained(world, lambda: world.cli("librarian", "archive", "--older-than", "0", "--json"),
                     folders=["groups/api", ".git/jacked", "groups/api/note", "archive"])  # fmt: skip
