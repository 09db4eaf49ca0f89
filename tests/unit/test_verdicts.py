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

from jacked_vault.document import render_note
from jacked_vault.errors import VaultError
from jacked_vault.notes import AddRequest, add
from jacked_vault.search.index import SearchIndex
from jacked_vault.store.gate import inspect, verdict_key
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
