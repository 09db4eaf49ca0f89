"""Reliability under SIGKILL and concurrency: real processes, real git repos, no mocks.

SPEC 5.1: a crash at any step leaves either nothing or a complete, valid file that
`doctor --repair` commits; never a partial file, never a lost commit. Concurrent writers
(two harnesses at once) both land.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pygit2
import pytest
from conftest import cli_env, git, run_cli
from helpers.faults import KILL_AT_WRITE

from jacked_vault.context import Context
from jacked_vault.document import parse_note
from jacked_vault.notes import read as read_note
from jacked_vault.search.policy import EVERYTHING
from jacked_vault.search.query import Filters
from jacked_vault.search.service import search as search_notes
from tests.helpers.state import state_dir

HELPER = Path(__file__).parents[1] / "helpers" / "add_loop.py"
TEMP_PREFIX = ".jacked-tmp-"


# -- child processes ---------------------------------------------------------------------------


class Child:
    """One `add_loop.py` subprocess whose stdout is collected by a thread, line by line."""

    def __init__(
        self, vault: Path, work: Path, prefix: str, count: int, harness: str, *, wait_go: bool = False
    ) -> None:
        args = [sys.executable, str(HELPER), str(vault), str(work), prefix, str(count), harness]
        if wait_go:
            args.append("--wait-go")
        self.proc = subprocess.Popen(
            args,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=work,
            env=cli_env(),
        )
        self.lines: list[str] = []  # complete lines only (a line cut by SIGKILL is dropped)
        self.ready = threading.Event()
        self.stderr = ""
        self._out = threading.Thread(target=self._read_out, daemon=True)
        self._err = threading.Thread(target=self._read_err, daemon=True)
        self._out.start()
        self._err.start()

    def _read_out(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if not line.endswith("\n"):
                continue
            if line == "READY\n":
                self.ready.set()
            self.lines.append(line)

    def _read_err(self) -> None:
        assert self.proc.stderr is not None
        self.stderr = self.proc.stderr.read()

    def wait_ready(self, timeout: float = 30) -> None:
        if not self.ready.wait(timeout):
            self.proc.kill()
            self.finish(timeout=10)
            raise AssertionError(f"child never became ready; rc={self.proc.returncode} stderr={self.stderr[-2000:]}")

    def go(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("go\n")
        self.proc.stdin.flush()

    def finish(self, timeout: float) -> int:
        rc = self.proc.wait(timeout=timeout)
        self._out.join(timeout)
        self._err.join(timeout)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        return rc

    @property
    def added(self) -> list[tuple[str, str]]:
        """(id, rel) for every add the child reported as returned."""
        out = []
        for line in self.lines:
            if line.startswith("ADDED "):
                _, note_id, rel = line.split()
                out.append((note_id, rel))
        return out


# -- checks ------------------------------------------------------------------------------------


def _walk_files(root: Path):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames:
            yield Path(dirpath) / name


def _partial_files(vault: Path, seen: dict | None = None) -> tuple[list[str], list[str]]:
    """(problems, temps): every `*.md` under groups/ must parse; every audit line is JSON.

    `seen` caches files already parsed, keyed by (path, size, mtime_ns), so the per-kill check
    does not re-parse hundreds of unchanged notes every round.
    """
    problems, temps = [], []
    for path in _walk_files(vault / "groups"):
        rel = str(path.relative_to(vault))
        if path.name.startswith(TEMP_PREFIX):
            temps.append(rel)
        elif path.name == "index.md":  # derived, replaced atomically: always whole
            text = path.read_text()
            if not (text.startswith("# ") and text.endswith("\n")):
                problems.append(f"{rel}: incomplete index.md")
        elif path.name.endswith(".md"):
            st = path.stat()
            key = (rel, st.st_size, st.st_mtime_ns)
            if seen is not None and key in seen:
                continue
            try:
                parse_note(path.read_bytes(), source=rel)
            except Exception as exc:
                problems.append(f"{rel}: {type(exc).__name__}: {exc}")
                continue
            if seen is not None:
                seen[key] = True
    for path in _walk_files(vault / "audit"):
        rel = str(path.relative_to(vault))
        if path.name.startswith(TEMP_PREFIX):
            temps.append(rel)
            continue
        data = path.read_bytes()
        if data and not data.endswith(b"\n"):
            problems.append(f"{rel}: audit file does not end with a newline (torn append)")
        for number, line in enumerate(data.decode("utf-8").splitlines(), 1):
            try:
                json.loads(line)
            except json.JSONDecodeError:
                problems.append(f"{rel}:{number}: audit line is not JSON")
    return problems, temps


def _temp_files_anywhere(vault: Path) -> list[str]:
    return [str(p.relative_to(vault)) for p in _walk_files(vault) if p.name.startswith(TEMP_PREFIX)]


def _fsck(vault: Path) -> None:
    proc = subprocess.run(["git", "-C", str(vault), "fsck", "--strict"], capture_output=True, text=True, timeout=120)
    bad = [
        line
        for line in (proc.stdout + proc.stderr).splitlines()
        if line.strip() and not line.startswith(("dangling ", "Checking ", "notice: "))
    ]
    assert proc.returncode == 0 and not bad, (
        f"git fsck --strict failed (rc={proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    )


def _assert_linear(vault: Path, expected_commits: int) -> None:
    assert int(git(vault, "rev-list", "--count", "HEAD")) == expected_commits
    assert git(vault, "rev-list", "--merges", "HEAD") == ""
    rows = [line.split() for line in git(vault, "rev-list", "--parents", "HEAD").splitlines()]
    assert len(rows) == expected_commits
    assert all(len(row) == 2 for row in rows[:-1]), "every commit but the root has exactly one parent"
    assert len(rows[-1]) == 1, "the init commit is the only root"


def _doctor_ok(vault: Path) -> dict:
    result = run_cli("memory", "doctor", "--json", vault=vault)
    report = result.json
    assert report["schema"] == "jacked.doctor.v1"
    assert result.code == 0 and report["ok"] is True, (
        f"doctor not ok (rc={result.code}):\n{json.dumps(report, indent=2)}\n{result.err}"
    )
    assert report["stale_temp_files"] == 0
    return report


def _token(title: str) -> str:
    return "tok" + title.replace("-", "x")


def _head_files(vault: Path, under: str) -> list[str]:
    return git(vault, "ls-tree", "-r", "--name-only", "HEAD", under).split()


def _assert_worktree_equals_head(vault: Path) -> None:
    """Every file on disk (but .git, where machine-local state lives) is in HEAD with the same bytes, and back."""
    repo = pygit2.Repository(str(vault))
    head = {}
    stack = [("", repo.head.peel().tree)]
    while stack:
        base, tree = stack.pop()
        for entry in tree:
            rel = f"{base}{entry.name}"
            if entry.type_str == "tree":
                stack.append((rel + "/", repo[entry.id]))
            else:
                head[rel] = repo[entry.id].data
    disk = {}
    for dirpath, dirnames, filenames in os.walk(vault):
        dirnames[:] = [d for d in dirnames if not (dirpath == str(vault) and d in (".git", ".jacked"))]
        for name in filenames:
            path = Path(dirpath) / name
            disk[str(path.relative_to(vault))] = path.read_bytes()
    assert sorted(set(disk) - set(head)) == [], "files on disk that are not in HEAD"
    assert sorted(set(head) - set(disk)) == [], "files in HEAD missing from disk"
    assert [rel for rel in head if head[rel] != disk[rel]] == [], "files whose content differs from HEAD"


def _assert_present_and_searchable(
    vault: Path, ctx: Context, added: list[tuple[str, str]], *, check_index: bool = True
) -> None:
    """Each reported note: file exists, parses, carries its id, is in HEAD, is read and found."""
    in_head = set(_head_files(vault, "groups"))
    in_index = set(git(vault, "ls-files", "groups").split())
    for note_id, rel in added:
        path = vault / rel
        assert path.is_file(), f"{note_id}: reported added but {rel} is missing"
        note = parse_note(path.read_bytes(), source=rel)
        assert note.id == note_id
        assert rel in in_head, f"{note_id}: {rel} is not in HEAD"
        assert rel in in_index or check_index is False, (
            f"{note_id}: {rel} is in HEAD but not in the git index (git ls-files)"
        )
        got = read_note(ctx, note_id, EVERYTHING)
        assert got.note.id == note_id and got.display_path == f"group:{rel}"
        hits = search_notes(ctx, _token(note.title), Filters(limit=5)).results
        assert [d.id for d in hits] == [note_id], f"search for {_token(note.title)} gave {[d.id for d in hits]}"


def _cli_read(vault: Path, note_id: str, rel: str) -> None:
    result = run_cli("memory", "read", note_id, "--json", vault=vault)
    assert result.code == 0, result.err
    body = result.json
    assert body["schema"] == "jacked.read.v1" and body["ok"] is True
    assert body["memory"]["id"] == note_id and body["path"] == f"group:{rel}"
    assert body["memory"]["body"] == parse_note((vault / rel).read_bytes()).body


def _seconds_per_add(vault: Path, work: Path, adds: int = 5) -> float:
    """Wall seconds one add takes in an `add_loop.py` child on this machine, at this moment."""
    child = Child(vault, work, "calibrate", adds, "torture")
    child.wait_ready()
    started = time.monotonic()
    rc = child.finish(timeout=120)
    assert rc == 0 and len(child.added) == adds, f"calibration child failed (rc={rc}): {child.stderr[-2000:]}"
    return (time.monotonic() - started) / adds


def _work(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return work


# -- 1. kill -9 torture ------------------------------------------------------------------------

ROUNDS = 30
SEED = 20240531


@pytest.mark.slow
def test_sigkill_torture_never_leaves_partial_files_or_loses_adds(vault_path: Path, tmp_path: Path):
    vault = vault_path
    work = _work(tmp_path)
    rng = random.Random(SEED)
    reported: list[tuple[str, str]] = []
    orphan_rounds = 0  # rounds whose kill left a new complete note on disk that is not in HEAD
    orphans: set[str] = set()
    audit_ahead_rounds = 0  # rounds whose kill left the audit file ahead of HEAD
    temp_rounds = 0  # rounds whose kill left a `.jacked-tmp-*` file
    parsed: dict = {}
    committed_before: set[str] = set()
    add_s = _seconds_per_add(vault, work)
    started = time.monotonic()

    for round_no in range(ROUNDS):
        child = Child(vault, work, f"r{round_no}", 0, "torture")
        child.wait_ready()
        # Kill points spread over about 0.3 to 5 adds, in this machine's add time now: under a
        # loaded machine a fixed window would kill most children before their first add returns.
        time.sleep(rng.uniform(0.3, 5.0) * add_s)
        child.proc.send_signal(signal.SIGKILL)
        rc = child.finish(timeout=30)
        assert rc == -signal.SIGKILL, f"round {round_no}: child died on its own (rc={rc}):\n{child.stderr[-3000:]}"
        reported += child.added

        # Before any repair: no note file is partial (each .md parses, or it is a temp file).
        problems, temps = _partial_files(vault, parsed)
        assert not problems, f"round {round_no}: partial files after SIGKILL: {problems}"
        temp_rounds += bool(temps)
        # Every add reported so far is committed already (repair only adds; it never has to rescue them).
        head_files = set(_head_files(vault, "groups"))
        missing = [rel for _, rel in child.added if rel not in head_files]
        assert not missing, f"round {round_no}: reported adds not in HEAD: {missing}"
        # Nothing committed earlier was lost: HEAD only ever grows.
        assert committed_before <= head_files, (
            f"round {round_no}: lost commits for {sorted(committed_before - head_files)}"
        )
        committed_before = head_files
        on_disk = {
            str(p.relative_to(vault))
            for p in _walk_files(vault / "groups")
            if p.name.endswith(".md") and p.name != "index.md"
        }
        orphan_rounds += bool(on_disk - head_files - orphans)
        orphans |= on_disk - head_files
        audit_ahead_rounds += bool(git(vault, "diff", "HEAD", "--name-only", "--", "audit").strip())

    torture_s = time.monotonic() - started
    assert len(reported) >= ROUNDS // 2, f"too few adds to be a meaningful torture: {len(reported)}"
    assert len({i for i, _ in reported}) == len(reported)
    print(
        f"\ntorture: {ROUNDS} kills in {torture_s:.1f}s, {len(reported)} reported adds, "
        f"rounds leaving: a new orphan note {orphan_rounds} ({len(orphans)} orphans before repair), "
        f"audit ahead of HEAD {audit_ahead_rounds}, temp file {temp_rounds}"
    )

    # (a) one repair
    repair = run_cli("memory", "doctor", "--repair", "--json", vault=vault)
    assert repair.out, f"doctor --repair printed nothing; stderr: {repair.err[-3000:]}"
    repair_report = repair.json
    assert repair_report["schema"] == "jacked.doctor.v1"
    assert repair.code == 0 and repair_report["ok"] is True, (
        f"repair left problems:\n{json.dumps(repair_report, indent=2)}\n{repair.err}"
    )
    assert {f"group:{rel}" for rel in orphans} <= set(repair_report["repaired"]), (
        "repair did not commit every orphan note"
    )

    # (b) the git repo is sound
    _fsck(vault)

    # (c) every reported add is present, valid, in HEAD, readable and searchable
    ctx = Context.create(vault=str(vault), cwd=work, harness="tester")
    # (the git index is checked at the end)
    _assert_present_and_searchable(vault, ctx, reported, check_index=False)
    for note_id, rel in [reported[0], reported[-1], *rng.sample(reported, 3)]:
        _cli_read(vault, note_id, rel)

    # (d) no partial file, no temp file; the working tree and HEAD hold the same notes
    problems, _ = _partial_files(vault)
    assert not problems, problems
    assert _temp_files_anywhere(vault) == []
    working = sorted(str(p.relative_to(vault)) for p in _walk_files(vault / "groups") if p.name.endswith(".md"))
    assert working == sorted(_head_files(vault, "groups"))
    ids = [parse_note((vault / rel).read_bytes()).id for rel in working if not rel.endswith("/index.md")]
    assert len(ids) == len(set(ids)), "duplicate ids in the vault"

    # (e, first half) the working tree equals HEAD: nothing modified, nothing uncommitted
    _assert_worktree_equals_head(vault)

    # (f) doctor is happy afterwards
    report = _doctor_ok(vault)
    assert report["memory_count"] == len(ids)

    # (g) the vault keeps working
    added = run_cli(
        "memory",
        "add",
        "--group",
        "g",
        "--title",
        "after the storm",
        "--body",
        "zebracrossing survives",
        "--json",
        vault=vault,
        cwd=work,
    )
    assert added.code == 0, added.err
    new_id = added.json["memory"]["id"]
    found = run_cli("memory", "search", "zebracrossing", "--json", vault=vault, cwd=work)
    assert found.code == 0, found.err
    assert [r["id"] for r in found.json["results"]] == [new_id]
    _doctor_ok(vault)
    _fsck(vault)

    # (e, second half) `git status --porcelain` is empty: the git index matches HEAD too
    # (a kill between the commit and the git-index write is re-staged by doctor --repair).
    assert git(vault, "status", "--porcelain", "--untracked-files=all") == ""


# -- 2. concurrency ----------------------------------------------------------------------------

WRITERS = 4
PER_WRITER = 25


def test_four_concurrent_writers_all_land_with_linear_history(vault_path: Path, tmp_path: Path):
    vault = vault_path
    work = _work(tmp_path)
    assert int(git(vault, "rev-list", "--count", "HEAD")) == 1
    children = [Child(vault, work, f"c{n}", PER_WRITER, f"writer{n}", wait_go=True) for n in range(WRITERS)]
    try:
        for child in children:
            child.wait_ready()
        for child in children:
            child.go()
        for n, child in enumerate(children):
            rc = child.finish(timeout=120)
            assert rc == 0, f"writer {n} failed (rc={rc}):\n{child.stderr[-3000:]}"
    finally:
        for child in children:
            if child.proc.poll() is None:
                child.proc.kill()
                child.proc.wait(timeout=10)

    reported = [pair for child in children for pair in child.added]
    for n, child in enumerate(children):
        assert len(child.added) == PER_WRITER, f"writer {n} reported {len(child.added)} adds"
    assert len({i for i, _ in reported}) == WRITERS * PER_WRITER
    assert len({rel for _, rel in reported}) == WRITERS * PER_WRITER

    notes = git(vault, "ls-files", "groups/*/*/*.md").split()
    assert len(notes) == WRITERS * PER_WRITER
    assert sorted(notes) == sorted(rel for _, rel in reported)
    _assert_linear(vault, 1 + WRITERS * PER_WRITER)
    # Each commit after init is one create: exactly one note, the group's index.md and the audit file.
    for sha in git(vault, "rev-list", "HEAD").split()[:-1]:
        changed = git(vault, "show", "--name-only", "--format=", sha).split()
        assert len(changed) == 3 and "groups/g/index.md" in changed, (sha, changed)
        assert sum(p.startswith("groups/") and not p.endswith("index.md") for p in changed) == 1, (sha, changed)

    ctx = Context.create(vault=str(vault), cwd=work, harness="tester")
    _assert_present_and_searchable(vault, ctx, reported)
    everything = run_cli("memory", "search", "reliabilityprobe", "--limit", "200", "--json", vault=vault, cwd=work)
    assert everything.code == 0, everything.err
    assert sorted(r["id"] for r in everything.json["results"]) == sorted(i for i, _ in reported)

    _fsck(vault)
    assert git(vault, "status", "--porcelain", "--untracked-files=all") == ""
    assert _temp_files_anywhere(vault) == []
    report = _doctor_ok(vault)
    assert report["memory_count"] == WRITERS * PER_WRITER


# -- 3. two harnesses at once through the CLI ---------------------------------------------------


def test_two_harnesses_adding_at_once_via_cli_both_land(vault_path: Path, tmp_path: Path):
    vault = vault_path
    work = _work(tmp_path)
    per = 5
    barrier = threading.Barrier(2)
    results: dict[str, list] = {"alpha": [], "beta": []}
    errors: list[BaseException] = []

    def writer(harness: str) -> None:
        try:
            barrier.wait(timeout=30)
            for n in range(per):
                args = [
                    "memory",
                    "add",
                    "--group",
                    "g",
                    "--title",
                    f"{harness} note {n}",
                    "--body",
                    f"written by {harness}",
                    "--json",
                ]
                if harness == "alpha":  # one harness named by flag, the other by environment
                    results[harness].append(run_cli(*args, "--harness", "alpha", vault=vault, cwd=work))
                else:
                    results[harness].append(run_cli(*args, vault=vault, cwd=work, JACKED_MEMORY_HARNESS="beta"))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(h,)) for h in results]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=180)
        assert not t.is_alive()
    assert not errors, errors

    ids = []
    for harness, runs in results.items():
        assert len(runs) == per
        for r in runs:
            assert r.code == 0, f"{harness}: rc={r.code} err={r.err}"
            body = r.json
            assert body["schema"] == "jacked.add.v1" and body["ok"] is True
            assert body["memory"]["source_harness"] == harness
            assert git(vault, "cat-file", "-t", body["commit"]).strip() == "commit"
            ids.append(body["memory"]["id"])
    assert len(set(ids)) == 2 * per

    log = git(vault, "log", "--format=%B")
    assert log.count("Memory-Harness: alpha\n") == per
    assert log.count("Memory-Harness: beta\n") == per
    for note_id in ids:
        assert log.count(f"Memory-Id: {note_id}\n") == 1
    _assert_linear(vault, 1 + 2 * per)
    assert len(git(vault, "ls-files", "groups/*/*/*.md").split()) == 2 * per
    _fsck(vault)
    assert git(vault, "status", "--porcelain", "--untracked-files=all") == ""
    _doctor_ok(vault)


# -- a kill between commit and git-index write, deterministically -------------------------------------------------

CRASH_AFTER_COMMIT = """
import os, signal, sys
from jacked_vault.context import Context
from jacked_vault.notes import AddRequest, add
from jacked_vault.store import git

# A real SIGKILL at one precise point: commit_files() stages the git index (git._stage) right
# after repo.create_commit() has moved the branch, so the process dies with the commit landed
# and the git index not yet written.
git._stage = lambda root, paths: os.kill(os.getpid(), signal.SIGKILL)
ctx = Context.create(vault=sys.argv[1], cwd=sys.argv[2], harness="crash")
add(ctx, AddRequest(title="crashed after commit", body="the commit landed", group="g"))
"""


def test_sigkill_between_commit_and_git_index_write_is_repaired(vault_path: Path, tmp_path: Path):
    vault = vault_path
    work = _work(tmp_path)
    script = tmp_path / "crash_after_commit.py"
    script.write_text(CRASH_AFTER_COMMIT)
    proc = subprocess.run(
        [sys.executable, str(script), str(vault), str(work)],
        cwd=work,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    if proc.returncode != -signal.SIGKILL:
        pytest.fail(f"the child was not killed at the injection point (rc={proc.returncode}): {proc.stderr}")
    rel = "groups/g/note/crashed-after-commit.md"
    if rel not in _head_files(vault, "groups"):
        pytest.fail("the commit should have landed before the kill")

    before = run_cli("memory", "doctor", "--json", vault=vault)
    assert before.code == 1 and f"group:{rel}" in before.json["git_index_stale"]
    repair = run_cli("memory", "doctor", "--repair", "--json", vault=vault)
    assert f"group:{rel}" in repair.json["repaired"]
    later = run_cli("memory", "add", "--group", "g", "--title", "later", "--body", "b", "--json", vault=vault, cwd=work)
    if repair.code != 0 or later.code != 0:
        pytest.fail(f"repair rc={repair.code} / add rc={later.code}: {repair.out}{repair.err}{later.err}")
    # SPEC-level state is fine: the note is committed, the working tree equals HEAD.
    try:
        _assert_worktree_equals_head(vault)
    except AssertionError as exc:
        pytest.fail(f"working tree differs from HEAD: {exc}")
    # Either doctor flags the stale git index, or the repair / the next create fixes it.
    status = git(vault, "status", "--porcelain", "--untracked-files=all")
    report = run_cli("memory", "doctor", "--json", vault=vault)
    assert status == "" or report.json["ok"] is False, f"git status is dirty but doctor says ok:\n{status}"
    assert status == "", status


# -- an interrupted transition is rolled back or completed, never taken for a hand edit --------------------------

NEXT_WRITES = ("accept", "reject", "add", "repair")


def _audit_lines(vault: Path, rel: str) -> list[dict]:
    """The committed audit lines (HEAD) about `rel`."""
    out = []
    for path in _head_files(vault, "audit"):
        out += [
            line for line in map(json.loads, git(vault, "show", f"HEAD:{path}").splitlines()) if line["path"] == rel
        ]
    return out


def _assert_settled(vault: Path, rel: str) -> None:
    """`rel` is exactly what its commits made it, each with its audit line; the tree equals HEAD."""
    from jacked_vault.store import audit

    _assert_worktree_equals_head(vault)
    commits = git(vault, "log", "--format=%H", "--", rel).split()
    lines = _audit_lines(vault, rel)
    assert len(lines) == len(commits), f"{rel}: {len(commits)} commit(s) but {len(lines)} audit line(s)"
    assert lines[-1]["sha256"] == audit.content_hash((vault / rel).read_bytes())
    assert audit.verify(vault).problems == []


@pytest.mark.slow
@pytest.mark.parametrize("op", ["accept", "reject", "add-supersedes"])
def test_a_kill_during_a_transition_is_rolled_back_or_completed_never_a_hand_edit(
    vault_path: Path, tmp_path: Path, op: str
):
    """Issue 17.14, SPEC 5.2: kill -9 the transition after each of its working-tree writes and
    right after its commit; the next write (accept, reject, add, doctor --repair) finishes the
    job: nothing is quarantined, the note is either fully transitioned (committed with its audit
    line) or exactly as before, and doctor is happy. Doctor, before that, calls nothing a hand edit."""
    from jacked_vault.notes import AddRequest, add

    vault, work = vault_path, _work(tmp_path)
    ctx = Context.create(vault=str(vault), cwd=work, harness="tester")
    script = tmp_path / "kill_at_write.py"
    script.write_text(KILL_AT_WRITE)
    points = [*range(1, 10), "commit"]
    killed = 0
    for round_no, point in enumerate(points):
        status = "active" if op == "add-supersedes" else "candidate"
        target = add(ctx, AddRequest(title=f"target {round_no}", body=f"body {round_no}", group="g", status=status))
        command = {
            "accept": ["memory", "accept", target.note.id],
            "reject": ["memory", "reject", target.note.id, "--reason", "not true"],
            "add-supersedes": [
                "memory",
                "add",
                "--group",
                "g",
                "--title",
                f"newer {round_no}",
                "--body",
                "b",
                "--supersedes",
                target.note.id,
            ],
        }[op]
        head = git(vault, "rev-parse", "HEAD")
        proc = subprocess.run(
            [sys.executable, str(script), str(vault), str(point), *command],
            cwd=work,
            env=cli_env(vault),
            capture_output=True,
            text=True,
            timeout=60,
        )
        if proc.returncode == 0 and point != "commit":
            assert git(vault, "rev-parse", "HEAD") != head, "the command finished: it committed"
            continue  # fewer writes than `point`: the kill points of this op are exhausted
        assert proc.returncode == -signal.SIGKILL, f"{op} at write {point}: rc={proc.returncode} {proc.stderr[-2000:]}"
        killed += 1
        assert (git(vault, "rev-parse", "HEAD") != head) == (point == "commit")

        before = run_cli("memory", "doctor", "--json", vault=vault, cwd=work).json
        judged = [
            u for u in before["uncommitted"] if u["repair"] == "quarantine" or "hand edit" in u.get("problem", "")
        ]
        assert judged == [], f"{op} killed at {point}: doctor calls the leftovers a hand edit: {judged}"
        assert not [p for p in before["audit_problems"] if p["code"] == "EDITED_OUTSIDE_TOOL"], before["audit_problems"]

        following = NEXT_WRITES[(killed - 1) % len(NEXT_WRITES)]
        nxt = {
            "accept": ["memory", "accept", target.note.id, "--json"],
            "reject": ["memory", "reject", target.note.id, "--reason", "noise", "--json"],
            "add": ["memory", "add", "--group", "g", "--title", f"unrelated {round_no}", "--body", "b", "--json"],
            "repair": ["memory", "doctor", "--repair", "--json"],
        }[following]
        result = run_cli(*nxt, vault=vault, cwd=work)
        if result.code != 0:  # the killed transition landed, so this one may no longer apply
            assert following in ("accept", "reject") and result.json["error"]["code"] == "JACKED_MEMORY_VALIDATION", (
                result.out + result.err
            )
        else:
            assert result.json.get("quarantined", []) == [], f"{following} after {op} killed at {point}: {result.out}"
        if following == "repair" and point != "commit":
            assert result.json["repaired"], "repair rolled the interrupted write back and said so"
        if point == "commit":  # the git index a kill after the commit left behind: repair re-stages it
            assert run_cli("memory", "doctor", "--repair", "--json", vault=vault, cwd=work).code == 0
        assert not (state_dir(vault) / "quarantine").exists(), (
            f"{following} after {op} killed at {point} quarantined something"
        )
        _assert_settled(vault, target.rel)
        _doctor_ok(vault)
    assert killed >= 4, (
        "a kill after each write of the transition (note, index.md, audit, tombstone) and after its commit"
    )


def test_an_edit_made_after_an_interrupted_transition_is_still_a_hand_edit(vault_path: Path, tmp_path: Path):
    """The rollback takes back only the bytes the killed write put there: doctor names its files
    as left by an interrupted write, and a person's edit of the note made since is kept in
    quarantine by the next transition, as ever, while that write's index.md goes back to HEAD."""
    from jacked_vault.notes import AddRequest, add

    vault, work = vault_path, _work(tmp_path)
    target = add(
        Context.create(vault=str(vault), cwd=work, harness="tester"),
        AddRequest(title="target", body="b", group="g", status="candidate"),
    )
    script = tmp_path / "kill_at_write.py"
    script.write_text(KILL_AT_WRITE)
    proc = subprocess.run(
        [sys.executable, str(script), str(vault), "2", "memory", "accept", target.note.id],
        cwd=work,
        env=cli_env(vault),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr[-2000:]
    assert git(vault, "status", "--porcelain").split() == ["M", "groups/g/index.md", "M", target.rel]

    report = run_cli("memory", "doctor", vault=vault, cwd=work)
    assert f"group:{target.rel}: modified, left by an interrupted write" in report.out
    assert "hand edit" not in report.out and "Traceback" not in report.out + report.err

    path = vault / target.rel
    edited = path.read_text() + "\nedited by a person\n"
    path.write_text(edited)
    result = run_cli("memory", "accept", target.note.id, "--json", vault=vault, cwd=work)
    assert result.code == 0, result.out + result.err
    [name] = result.json["quarantined"]
    assert (state_dir(vault) / "quarantine" / name).read_text() == edited
    assert not (state_dir(vault) / "journal.jsonl").exists()
    assert parse_note(path.read_bytes()).trust == "reviewed"
    _assert_settled(vault, target.rel)
    _doctor_ok(vault)
