"""Issue 21.6: the brief reads only the asking group's rows (indexed queries, never a scan of
every note), so it stays flat as the vault grows. Checked on SQLite's own query plans."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import git, trace_index_statements

from jacked_vault.context import Context
from jacked_vault.document import render_note
from jacked_vault.notes import AddRequest, add
from jacked_vault.recall import brief
from jacked_vault.search.index import SearchIndex
from jacked_vault.search.policy import DEFAULT_SCOPES, reader
from jacked_vault.write.create import build_note
from jacked_vault.write.hot import set_hot

# A plan step reading a whole table or a whole index (SEARCH is a bounded lookup; the FTS5
# tables are read through their own index).
_FULL_SCAN = re.compile(r"^SCAN (?!.*VIRTUAL TABLE)(?!CONSTANT ROW)")
# A lookup of notes by something other than their group, row, id or path: every note of a status
# (the links of every active note were once counted that way, O(n): 7.6 ms at 100k notes).
_UNBOUNDED_DOCS = re.compile(r"^SEARCH (?:d|s|docs) USING (?:COVERING )?INDEX \w+ \((?!grp=|rowid=|id=|path[=>])")


# FTS5's own read of its configuration (a few rows whatever the vault holds), issued when a connection
# first reads the table or sees another connection's write (PRAGMA data_version): not a query of ours.
_FTS5_CONFIG = re.compile(r"^SELECT k, v FROM '\w+'\.'\w+_config'$")


def _plans(db, statements: list[str]) -> list[tuple[str, str]]:
    out = []
    for sql in statements:
        if not sql.lstrip().upper().startswith("SELECT") or _FTS5_CONFIG.match(sql.strip()):
            continue
        for row in db.execute(f"EXPLAIN QUERY PLAN {sql}"):
            out.append((sql, row[3]))
    return out


def test_the_brief_sections_read_only_the_groups_rows(vault_path: Path, code_repo: Path, monkeypatch):
    inside = Context.create(vault=str(vault_path), cwd=code_repo, harness="t")
    decision = add(inside, AddRequest(title="Use FTS5", kind="decision", body="FTS5 ships with Python."))
    add(inside, AddRequest(title="Index refresh", body="Diff based.", links=(decision.note.id,)))
    add(inside, AddRequest(title="Elsewhere", kind="decision", body="Another group.", group="other"))
    set_hot(inside, "Finishing the brief.")
    episodic = vault_path / "groups" / "api" / "episodic" / "github.com__acme__api"
    episodic.mkdir(parents=True)
    (episodic / "today-2026-11-28.md").write_text("## 17:30 | main\nWired the brief budget.\n")
    for i in range(30):  # enough rows for the planner to weigh a lookup of every note by status
        note = build_note(
            title=f"Note {i}",
            body=f"Body {i}.",
            kind="note",
            scope="group",
            group="api",
            repos=[],
            source_harness="t",
            origin="cli",
        )
        (vault_path / "groups" / "api" / "note" / f"note-{i}.md").write_bytes(render_note(note))
    git(vault_path, "add", "-A")
    git(vault_path, "commit", "-qm", "a day file, more notes")

    statements = trace_index_statements(monkeypatch)
    ctx = Context.create(vault=str(vault_path), cwd=code_repo, harness="t")
    index = SearchIndex(ctx.vault)
    index.refresh()
    statements.clear()
    sections = brief._sections(ctx, index.read, "api", "github.com/acme/api", reader("t", scopes=DEFAULT_SCOPES))
    index.read.group_index("api", 1, reader("t", scopes=DEFAULT_SCOPES))
    assert {s.label for s in sections} >= {
        "hot.md",
        "last episodic entry",
        "decisions",
        "index lines",
    }  # every query ran
    plans = _plans(index.db, statements)
    index.close()
    assert plans
    scans = [(sql[:120], step) for sql, step in plans if _FULL_SCAN.match(step) or _UNBOUNDED_DOCS.match(step)]
    assert scans == []
