"""Issue 9's door matrix: every way bytes enter the vault × every hostile input.

Each door is the real entry path (the CLI in a subprocess, the MCP server through its client,
a capture with a real distiller executable, a real `git merge` for post-merge, migrate from a
real `.remember/`, each transition, hot set, group map, doctor --repair, a sync arrival pushed
by a second clone to a bare remote). Each hostile input must be refused or quarantined, and the
secret must appear nowhere: not in `git log -p --all`, not in the search index, not in the
queue or log files, not in anything printed.
"""

from __future__ import annotations

import json
import random
import string
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import git, make_repo, run_cli, write_machine_config
from jacked_vault.context import Context
from jacked_vault.errors import VaultError
from jacked_vault.notes import AddRequest, add

_rng = random.Random(20261201)
AWS = "AK" + "IA" + "".join(_rng.choice(string.ascii_uppercase + string.digits) for _ in range(16))
NEEDLE = AWS[:12]  # what must never be stored or printed (a zero-width space may follow it)
SLACK_SLUG = "xo" + "xb-" + "".join(_rng.choice(string.digits) for _ in range(10)) + "-" + "".join(
    _rng.choice(string.digits) for _ in range(13)
) + "-" + "".join(_rng.choice(string.ascii_lowercase + string.digits) for _ in range(24))

# How a token hides: raw, behind a JSON escape (finding 2), percent-encoded, split by a zero-width space.
HIDINGS = {
    "raw": f"deploy log {AWS} end",
    "json-escape": '{"log":"ok\\n' + AWS + '"}',
    "percent": f"GET /callback?key%3D{AWS}&x=1",
    "zero-width": f"deploy key {AWS[:12]}\u200b{AWS[12:]} end",
}


@dataclass
class World:
    tmp: Path
    vault: Path
    repo: Path

    def ctx(self, harness: str = "tester") -> Context:
        return Context.create(vault=str(self.vault), cwd=self.repo, harness=harness)

    def cli(self, *args: str, stdin: str | None = None):
        return run_cli("memory", *args, vault=self.vault, cwd=self.repo, stdin=stdin)


@pytest.fixture
def world(tmp_path: Path, vault_path: Path) -> World:
    repo = tmp_path / "code" / "api"
    repo.mkdir(parents=True)
    make_repo(repo, "git@github.com:acme/api.git")
    return World(tmp_path, vault_path, repo)


def stored_anywhere(world: World, needle: str, *, history: bool = True) -> list[str]:
    """Where `needle` is stored: the vault's history, its working tree, the index, queue and log."""
    found = []
    if history and needle in git(world.vault, "log", "-p", "--all"):
        found.append("git history")
    for path in world.vault.rglob("*"):
        if not path.is_file() or ".git" in path.relative_to(world.vault).parts or "quarantine" in path.parts:
            continue
        text = path.read_bytes().decode("utf-8", "ignore").replace("\u200b", "")
        if needle in text:
            found.append(str(path.relative_to(world.vault)))
    return found


def assert_kept_out(world: World, *outputs: str, history: bool = True) -> None:
    assert stored_anywhere(world, NEEDLE, history=history) == []
    for text in outputs:
        assert NEEDLE not in text.replace("\u200b", "")


# -- the doors -----------------------------------------------------------------------------------


def door_cli_add(world: World, text: str) -> str:
    result = world.cli("add", "--title", "Deploy notes", "--body", text, "--json")
    assert result.code == 1 and result.json["error"]["code"] == "JACKED_MEMORY_SECRET", result.out
    return result.out + result.err


def door_cli_stdin(world: World, text: str) -> str:
    result = world.cli("add", "--title", "Deploy notes", "--stdin", stdin=text)
    assert result.code == 1 and "JACKED_MEMORY_SECRET" in result.err, result.err
    return result.out + result.err


def door_handoff(world: World, text: str) -> str:
    result = world.cli("handoff", "--from", "claude", "--target", "codex", "--title", "Handoff", "--body", text, "--json")
    assert result.json["error"]["code"] == "JACKED_MEMORY_SECRET", result.out
    return result.out


def door_mcp_save(world: World, text: str) -> str:
    from mcp import Client

    from test_mcp import call, inproc, run

    async def go():
        async with Client(inproc(world.vault, world.repo)) as client:
            return await call(client, "memory_save", {"title": "Deploy notes", "body": text})

    is_error, payload = run(go)
    assert is_error and payload["error"]["reason"] == "JACKED_MEMORY_SECRET", payload
    return json.dumps(payload)


def _distiller_answering(world: World, answer: dict) -> None:
    script = world.tmp / "distiller.py"
    reply = world.tmp / "answer.json"
    reply.write_text(json.dumps(answer))
    script.write_text(f"import sys\nsys.stdin.read()\nsys.stdout.write(open({str(reply)!r}).read())\n")
    write_machine_config({"distill": {"command": [sys.executable, str(script)], "timeout_s": 20}})


def _capture(world: World, text: str, event: str) -> str:
    from jacked_vault.capture.session import capture_session
    from test_capture import Builder

    _distiller_answering(world, {"episodic": f"Sentence {text}"[:300].replace("\n", " "), "note": {"kind": "decision", "title": "Deploy", "body": text, "tags": []}})
    transcript = Builder(world.repo).realistic().write(world.tmp / "claude" / "t.jsonl")
    payload = {"session_id": "s1", "transcript_path": str(transcript), "cwd": str(world.repo), "hook_event_name": event}
    result = capture_session(world.ctx("claude"), payload)
    # The distiller's answer is scanned as it arrives (a retry is queued), or the note by the gate.
    assert result.note_id is None and "SECRET" in (result.note_refused, (result.fallback or "").upper()), result
    assert result.entry_path  # the deterministic entry, not the distilled sentence
    return result.summary()


def door_session_end(world: World, text: str) -> str:
    return _capture(world, text, "SessionEnd")


def door_pre_compact(world: World, text: str) -> str:
    return _capture(world, text, "PreCompact")


def door_post_merge(world: World, text: str) -> str:
    from jacked_vault.capture.merge import capture_merge

    git(world.repo, "checkout", "-q", "-b", "feat")
    (world.repo / "f.txt").write_text("f\n")
    git(world.repo, "add", "f.txt")
    git(world.repo, "commit", "-qm", "feature")
    git(world.repo, "checkout", "-q", "main")
    git(world.repo, "merge", "-q", "--no-ff", "feat", "-m", "Merge pull request #7 from acme/feat", "-m", f"Deploy\n\n{text}")
    sha = git(world.repo, "rev-parse", "HEAD").strip()
    report = capture_merge(world.ctx("git"), world.repo, merge_commit=sha, use_gh=False, use_distiller=False)
    (outcome,) = report.outcomes
    assert outcome.action == "created" and outcome.dropped, outcome
    return json.dumps(report.to_json())


def door_migrate(world: World, text: str) -> str:
    source = world.repo / ".remember"
    source.mkdir()
    (source / "core-memories.md").write_text(f"## Deploy\n{text}\n")
    result = world.cli("migrate", "--json")
    assert result.code == 0, result.err
    (file,) = [f for f in result.json["files"] if f["source"].endswith("core-memories.md")]
    assert file["action"] == "skipped", file
    return result.out + result.err


def door_reject_reason(world: World, text: str) -> str:
    note = add(world.ctx(), AddRequest(title="Some idea", body="plain", status="candidate"))
    result = world.cli("reject", note.note.id, "--reason", text.replace("\n", " "), "--json")
    assert result.json["error"]["code"] == "JACKED_MEMORY_SECRET", result.out
    return result.out


def door_hot_set(world: World, text: str) -> str:
    result = world.cli("hot", "set", "--body", text, "--json")
    assert result.json["error"]["code"] == "JACKED_MEMORY_SECRET", result.out
    return result.out


def door_repair(world: World, text: str) -> str:
    from jacked_vault.document import render_note
    from jacked_vault.write.create import build_note

    note = build_note(title="Planted", body="plain", kind="note", scope="group", group="api", repos=[], source_harness="x", origin="cli")
    path = world.vault / "groups" / "api" / "note" / "planted.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(render_note(note).replace(b"plain", text.encode()))
    result = world.cli("doctor", "--repair", "--json")
    assert not path.exists(), "a stray file with a secret is never committed, it is moved to quarantine"
    assert any(r["path"] == "groups/api/note/planted.md" for r in result.json["quarantine"])
    return result.out + result.err


DOORS = {
    "cli-add": door_cli_add,
    "cli-stdin": door_cli_stdin,
    "handoff": door_handoff,
    "mcp-save": door_mcp_save,
    "session-end": door_session_end,
    "pre-compact": door_pre_compact,
    "post-merge": door_post_merge,
    "migrate": door_migrate,
    "reject-reason": door_reject_reason,
    "hot-set": door_hot_set,
    "repair": door_repair,
}


@pytest.mark.parametrize("hiding", sorted(HIDINGS))
@pytest.mark.parametrize("door", sorted(DOORS))
def test_a_secret_enters_by_no_door(world: World, door: str, hiding: str):
    add(world.ctx(), AddRequest(title="Existing", body="already here"))
    output = DOORS[door](world, HIDINGS[hiding])
    assert_kept_out(world, output, world.cli("search", "deploy", "--all").out)


# -- fields that are not the body (finding 5) -----------------------------------------------------


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


# -- transitions commit the committed blob, never the working file (finding 3) --------------------


@pytest.mark.parametrize("op, extra", [("accept", []), ("reject", ["--reason", "no"]), ("expire", []), ("supersede", None)])
def test_a_transition_never_commits_a_hand_edit(world: World, op: str, extra: list[str] | None):
    note = add(world.ctx(), AddRequest(title="Target", body="the committed text", status="candidate" if op in ("accept", "reject") else "active"))
    if extra is None:
        newer = add(world.ctx(), AddRequest(title="Newer", body="newer"))
        extra = ["--by", newer.note.id]
    path = world.vault / note.rel
    path.write_text(path.read_text() + f"\nappended by hand: {AWS}\n")
    result = world.cli(op, note.note.id, *extra, "--json")
    assert result.code == 0, result.out + result.err
    assert result.json["quarantined"], "the hand edit is kept aside and reported"
    assert AWS not in path.read_text() and "the committed text" in path.read_text()
    assert_kept_out(world, result.out)
    from jacked_vault.store import audit

    assert audit.verify(world.vault).problems == []


# -- tombstones: normalised, every door, synced (finding 8) ---------------------------------------

REJECTED_TITLE, REJECTED_BODY = "Use tabs for indentation", "Always indent Python with tabs."


def _reject(world: World) -> None:
    note = add(world.ctx(), AddRequest(title=REJECTED_TITLE, body=REJECTED_BODY))
    assert world.cli("reject", note.note.id, "--reason", "we use spaces").code == 0


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
    _reject(world)
    result = world.cli("add", "--title", title, "--body", body, "--json")
    assert result.json["error"]["code"] == "JACKED_MEMORY_TOMBSTONED", result.out
    forced = world.cli("add", "--title", title, "--body", body, "--allow-rejected", "--json")
    assert forced.code == 0


def test_mcp_and_capture_never_recreate_a_rejected_value(world: World):
    from mcp import Client

    from jacked_vault.capture.session import capture_session
    from test_capture import Builder
    from test_mcp import call, inproc, run

    _reject(world)

    async def go():
        async with Client(inproc(world.vault, world.repo)) as client:
            return await call(client, "memory_save", {"title": REJECTED_TITLE + ".", "body": REJECTED_BODY})

    is_error, payload = run(go)
    assert is_error and payload["error"]["reason"] == "JACKED_MEMORY_TOMBSTONED"
    _distiller_answering(world, {"episodic": "Talked about tabs.", "note": {"kind": "convention", "title": REJECTED_TITLE + "!", "body": REJECTED_BODY, "tags": []}})
    transcript = Builder(world.repo).realistic().write(world.tmp / "claude" / "t.jsonl")
    payload = {"session_id": "s2", "transcript_path": str(transcript), "cwd": str(world.repo), "hook_event_name": "SessionEnd"}
    assert capture_session(world.ctx("claude"), payload).note_refused == "TOMBSTONED"


def test_repair_quarantines_a_stray_tombstoned_note(world: World):
    from jacked_vault.document import render_note
    from jacked_vault.write.create import build_note

    _reject(world)
    stray = build_note(title=REJECTED_TITLE + ".", body=REJECTED_BODY, kind="note", scope="group", group="api", repos=[], source_harness="x", origin="mcp")
    path = world.vault / "groups" / "api" / "note" / "stray.md"
    path.write_bytes(render_note(stray))
    judged = world.cli("doctor", "--json").json["uncommitted"]
    assert judged == [{"path": "group:groups/api/note/stray.md", "state": "new", "kind": "note", "repair": "quarantine", "problem": judged[0]["problem"]}]
    assert "rejected" in judged[0]["problem"]
    world.cli("doctor", "--repair")
    assert not path.exists() and "stray.md" not in git(world.vault, "ls-files")


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
