"""The gate's verdict cache (issue 21.2): the gate remembers, by the sha256 of the rules' code and
a note's bytes, that those bytes passed validation and the secret scan, so the search index and a
clone do not judge the same bytes twice. It never stands in for the path, size or tombstone
rules, never remembers a refusal, lives in this machine's `.git/jacked/` and survives a rebuild.

Real vaults, a real bare remote, the real gate; no mocks."""

from __future__ import annotations

import random
import string
import subprocess
from pathlib import Path

import pytest
from conftest import git

from jacked_vault.document import parse_note, render_note
from jacked_vault.errors import VaultError
from jacked_vault.notes import AddRequest, add
from jacked_vault.search.index import SearchIndex
from jacked_vault.store.gate import inspect, inspect_notes, verdict_key
from jacked_vault.store.tombstones import REJECTED, tombstone_hash
from jacked_vault.sync import push, set_remote
from jacked_vault.sync.clone import clone_vault
from jacked_vault.write.create import build_note

REL = "groups/tools/note/a-note.md"
TOKEN = "ghp_" + "".join(random.Random(7).choices(string.ascii_letters + string.digits, k=36))


def _note(body: str = "Retry the upload after a timeout.", group: str = "tools", origin: str = "mcp") -> bytes:
    note = build_note(
        title="A note",
        body=body,
        kind="note",
        scope="group",
        group=group,
        repos=[],
        source_harness="tester",
        origin=origin,
    )
    return render_note(note) if "ghp_" not in body else render_note(note).replace(b"PLACEHOLDER", TOKEN.encode())


def _keys(index: SearchIndex) -> set[bytes]:
    return {key for (key,) in index.db.execute("SELECT key FROM verdicts")}


def _rows(index: SearchIndex) -> tuple[list, list]:
    docs = index.db.execute(
        "SELECT path, id, title, status, trust, claim, summary, sha, thash, size FROM docs ORDER BY path"
    ).fetchall()
    return docs, index.db.execute("SELECT path, code FROM problems ORDER BY path").fetchall()


def test_a_pass_is_remembered_and_never_stands_in_for_the_path_or_tombstone_rules(ctx):
    index = SearchIndex(ctx.vault)
    verdicts = index.verdicts
    data = _note()
    assert not verdicts.passed(verdict_key("note", data))
    assert inspect(ctx.vault, REL, data, verdicts=verdicts).note.title == "A note"
    assert verdicts.passed(verdict_key("note", data))
    with pytest.raises(VaultError) as misplaced:  # the same bytes in another group's folder
        inspect(ctx.vault, "groups/other/note/a-note.md", data, verdicts=verdicts)
    assert misplaced.value.details["gate"] == "MISPLACED"
    with pytest.raises(VaultError) as stoned:  # the value was rejected since: the verdict does not help
        inspect(ctx.vault, REL, data, tombstoned=lambda _hash: True, new=True, verdicts=verdicts)
    assert stoned.value.code == "TOMBSTONED"
    assert verdict_key("note", data) != verdict_key("hot", data) != verdict_key("note", data + b"\n")
    verdicts.save()
    assert _keys(index) == {verdict_key("note", data)}
    index.close()


def test_a_refusal_is_never_remembered(ctx):
    index = SearchIndex(ctx.vault)
    data = _note(body="The token is PLACEHOLDER ghp_ for the deploy bot.")
    assert TOKEN.encode() in data
    for _ in range(2):  # refused each time: nothing recorded the first time
        with pytest.raises(VaultError) as refused:
            inspect(ctx.vault, REL, data, verdicts=index.verdicts)
        assert refused.value.code == "SECRET"
    index.verdicts.save()
    assert _keys(index) == set()
    index.close()


def test_a_rebuild_keeps_the_verdicts_and_indexes_the_same_rows_warm_as_cold(ctx):
    for i in range(5):
        add(ctx, AddRequest(title=f"Note {i}", body=f"Body {i} about the cache.", group="tools"))
    index = SearchIndex(ctx.vault)
    index.rebuild()
    cold, keys = _rows(index), _keys(index)
    assert len(cold[0]) >= 5 and len(keys) >= 5
    index.rebuild()  # every note's bytes known: judged by the verdicts, the same rows
    assert _rows(index) == cold and _keys(index) == keys
    index.db.execute("DELETE FROM verdicts")
    index.rebuild()
    assert _rows(index) == cold and _keys(index) == keys
    index.close()


def test_a_clone_judges_once_and_records_only_what_passed(ctx, tmp_path: Path):
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    set_remote(ctx, f"file://{remote}")
    add(ctx, AddRequest(title="Kept note", body="Passes the gate.", group="tools"))
    push(ctx)
    hostile = tmp_path / "hostile"
    subprocess.run(["git", "clone", "-q", f"file://{remote}", str(hostile)], check=True, capture_output=True)
    bad = _note(body="The token is PLACEHOLDER ghp_ for the deploy bot.")
    (hostile / "groups/tools/note").mkdir(parents=True, exist_ok=True)
    (hostile / REL).write_bytes(bad)
    git(hostile, "add", REL)
    git(hostile, "commit", "-qm", "a secret")
    git(hostile, "push", "-q", "origin", "main")

    cloned = clone_vault(f"file://{remote}", tmp_path / "second")
    assert [q["path"] for q in cloned.quarantined] == [REL]
    index = SearchIndex(cloned.store)
    keys = _keys(index)
    notes = [rel for rel, _ in index.db.execute("SELECT path, id FROM docs WHERE tier='note'")]
    good = [(cloned.store.root / rel).read_bytes() for rel in notes]
    assert notes and keys >= {verdict_key("note", data) for data in good}
    assert verdict_key("note", bad) not in keys
    warm = _rows(index)
    index.db.execute("DELETE FROM verdicts")
    index.rebuild()  # judged from scratch: the same index
    assert _rows(index) == warm
    index.close()


def _verdict(found: object) -> tuple:
    """A verdict told apart by what it says: the note's parse, or the refusal's code, gate code and message."""
    if isinstance(found, VaultError):
        return ("refused", found.code, found.details.get("gate"), found.message)
    assert not isinstance(found, Exception), f"only refusals: {found!r}"
    return ("passed", found.kind, found.note)


def test_a_batch_gets_the_verdict_each_file_gets_alone(ctx):
    """`inspect_notes` judges rule by rule over a batch (the workers of a build): every file's
    verdict is the one its own `inspect` gives, whatever else is in the batch, and the verdicts
    it records are the same."""
    valid, other = _note(), _note(body="Pin the runner image; the cache key changes with it.")
    secret = _note(body="The token is PLACEHOLDER ghp_ for the deploy bot.")
    batch = [
        (REL, valid),
        ("groups/tools/note/the-same-bytes.md", valid),  # twice in one batch
        ("groups/tools/note/a-secret.md", secret),
        ("groups/tools/note/broken.md", b"---\ntitle: [unclosed\n---\n\nbody\n"),
        ("groups/tools/note/not-utf8.md", b"---\n\xff\n---\n"),
        ("groups/other/note/misplaced.md", other),
        ("groups/tools/note/too-large.md", valid + b"x" * (1 << 20)),
        ("groups/tools/readme.txt", valid),  # not a note: no part of the layout
        ("groups/tools/hot.md", b"# Hot\n\nShort notes.\n"),  # not a note: its own rules
        ("groups/tools/note/another.md", other),
    ]
    stoned = {tombstone_hash(parse_note(other).title, parse_note(other).body)}

    def judged_alone(verdicts=None) -> list[tuple]:
        found = []
        for rel, data in batch:
            try:
                found.append(_verdict(inspect(ctx.vault, rel, data, tombstoned=None, verdicts=verdicts)))
            except VaultError as exc:
                found.append(_verdict(exc))
        return found

    alone = judged_alone()
    assert [verdict[0] for verdict in alone].count("passed") == 4  # the two valid, the hot.md, another
    # a parse's refusal is VALIDATION with no gate code (the index records it as INVALID)
    refused = {(verdict[1], verdict[2]) for verdict in alone if verdict[0] == "refused"}
    assert refused == {
        ("SECRET", "SECRET"),
        ("VALIDATION", None),
        ("VALIDATION", "MISPLACED"),
        ("VALIDATION", "TOO_LARGE"),
        ("UNSAFE_PATH", "OUTSIDE_LAYOUT"),
    }
    assert [_verdict(found) for found in inspect_notes(ctx.vault, batch)] == alone

    # with a tombstone: the note that holds its value is refused in the batch as alone
    def tombstoned(value: str) -> str | None:  # an oracle, as the index's
        return REJECTED if value in stoned else None

    batched = inspect_notes(ctx.vault, batch, tombstoned=tombstoned)
    for (rel, data), found in zip(batch, batched, strict=True):
        try:
            expected = _verdict(inspect(ctx.vault, rel, data, tombstoned=tombstoned))
        except VaultError as exc:
            expected = _verdict(exc)
        assert _verdict(found) == expected, rel
    assert _verdict(batched[-1])[2] == "TOMBSTONED"

    # the verdicts recorded: those of the files judged one at a time, and each pass carries its key
    index = SearchIndex(ctx.vault)
    batched = inspect_notes(ctx.vault, batch, verdicts=index.verdicts)
    index.verdicts.save()
    keys = _keys(index)
    index.close()
    for suffix in ("", "-wal", "-shm"):
        (ctx.vault.state / f"index.sqlite{suffix}").unlink(missing_ok=True)
    alone_index = SearchIndex(ctx.vault)
    assert [_verdict(found) for found in batched] == judged_alone(alone_index.verdicts)
    alone_index.verdicts.save()
    assert keys == _keys(alone_index) == {verdict_key("note", valid), verdict_key("note", other)}
    alone_index.close()
    assert [found.key for found in batched[:2]] == [verdict_key("note", valid)] * 2
