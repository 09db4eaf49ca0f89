"""Search: BM25F ranking, quoting, any-word matching, filters, as-of, incremental refresh, diagnostics."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import git

from jacked_vault.context import Context
from jacked_vault.notes import AddRequest, add
from jacked_vault.search.index import SearchIndex
from jacked_vault.search.policy import Viewer
from jacked_vault.search.query import Filters
from jacked_vault.search.service import search


def _add(ctx: Context, title: str, body: str = "plain body", **kw):
    return add(ctx, AddRequest(title=title, body=body, group=kw.pop("group", "tools"), **kw))


def _ids(ctx: Context, query: str, **filters) -> list[str]:
    return [d.id for d in search(ctx, query, Filters(**filters)).results]


def test_title_and_tags_rank_above_body(ctx: Context):
    for n in range(6):  # BM25 needs a corpus where the term is rare
        _add(ctx, f"Filler {n}", body="nothing relevant")
    body_hit = _add(ctx, "Unrelated heading", body="we talk about parquet files here at length")
    title_hit = _add(ctx, "Parquet layout", body="columns")
    tag_hit = _add(ctx, "Storage format", body="columns", tags=("parquet",))
    assert _ids(ctx, "parquet") == [title_hit.note.id, tag_hit.note.id, body_hit.note.id]


def test_any_word_matches_and_more_words_rank_first(ctx: Context):
    one = _add(ctx, "Redis cluster setup")
    both = _add(ctx, "Redis cache eviction")
    _add(ctx, "Postgres vacuum")
    assert _ids(ctx, "redis eviction") == [both.note.id, one.note.id]
    assert _ids(ctx, "redis nonexistentword") == [both.note.id, one.note.id]  # equal scores: newest first


@pytest.mark.parametrize(
    "query", ['"unbalanced', "AND OR NOT", "title:x", "a*", "(paren", "NEAR(a b)", "-", "^start", "col:"]
)
def test_user_text_is_never_fts_syntax(ctx: Context, query: str):
    """FTS5 operators, quotes and columns in a query are plain words: the note holding those words
    is found (no syntax error, no operator applied), the other is not; punctuation alone is no words
    (the newest notes first, as for an empty query)."""
    other = _add(ctx, "Something")
    holder = _add(ctx, "Quoted query", body=f"quoted: {query}")
    words = any(c.isalnum() for c in query)
    assert _ids(ctx, query) == ([holder.note.id] if words else [holder.note.id, other.note.id])


def test_stemming_matches_word_forms(ctx: Context):
    hit = _add(ctx, "Migrations must be reversible")
    assert _ids(ctx, "migration") == [hit.note.id]


def test_filters_kind_tag_group_repo_target(ctx: Context):
    a = _add(ctx, "Alpha lesson", kind="lesson", tags=("ci",), repos=("github.com/o/a",), targets=("codex",))
    b = _add(ctx, "Alpha decision", kind="decision", group="other", repos=("github.com/o/b",))
    assert _ids(ctx, "alpha", kinds=("lesson",)) == [a.note.id]
    assert _ids(ctx, "alpha", tags=("ci",)) == [a.note.id]
    assert _ids(ctx, "alpha", group="other") == [b.note.id]
    assert _ids(ctx, "alpha", repo="github.com/o/b") == [b.note.id]
    assert _ids(ctx, "alpha", target="claude") == [b.note.id]  # b targets all; a only codex
    assert set(_ids(ctx, "alpha", target="codex")) == {a.note.id, b.note.id}


def test_status_filter_and_candidates(ctx: Context):
    active = _add(ctx, "Gamma active")
    candidate = _add(ctx, "Gamma candidate", status="candidate")
    assert _ids(ctx, "gamma") == [active.note.id]
    assert set(_ids(ctx, "gamma", statuses=("active", "candidate"))) == {active.note.id, candidate.note.id}


def test_user_scope_only_when_asked(ctx: Context):
    group_note = _add(ctx, "Delta in group")
    user_note = add(ctx, AddRequest(title="Delta strategy", body="b", scope="user"))
    assert _ids(ctx, "delta") == [group_note.note.id]
    assert _ids(ctx, "delta", scopes=frozenset({"user"})) == [user_note.note.id]


def test_as_of_is_valid_time_and_known_at_is_record_time(ctx: Context):
    """Issue 9 finding 12: one time for both axes meant a backdated fact was never found."""
    old = _add(ctx, "Epsilon old rule", valid_from="2020-01-01T00:00:00.000Z")
    new = _add(ctx, "Epsilon new rule", supersedes=(old.note.id,), valid_from="2026-01-01T00:00:00.000Z")
    assert _ids(ctx, "epsilon") == [new.note.id]
    # Valid time: in 2021 the old rule held (the supersede ended it where the new one begins).
    assert _ids(ctx, "epsilon", as_of="2021-01-01T00:00:00.000Z") == [old.note.id]
    assert _ids(ctx, "epsilon", as_of="2026-06-01T00:00:00.000Z") == [new.note.id]
    # Record time: in 2021 the vault knew nothing; just before the new note, it knew the old one as active.
    assert _ids(ctx, "epsilon", known_at="2021-01-01T00:00:00.000Z") == []
    assert _ids(ctx, "epsilon", known_at=old.note.created_at) == [old.note.id]


def test_stable_order_for_equal_scores(ctx: Context):
    notes = [_add(ctx, "Zeta same", body="same") for _ in range(4)]
    first = _ids(ctx, "zeta")
    assert first == _ids(ctx, "zeta")
    assert set(first) == {n.note.id for n in notes}


def test_repo_group_ranks_first_on_ties(vault_path: Path, code_repo: Path):
    outside = Context.create(vault=str(vault_path), cwd=code_repo.parent, harness="t")
    other = add(outside, AddRequest(title="Theta same", body="same", group="aaa"))
    inside = Context.create(vault=str(vault_path), cwd=code_repo, harness="t")
    mine = add(inside, AddRequest(title="Theta same", body="same"))
    assert [d.id for d in search(inside, "theta", Filters()).results] == [mine.note.id, other.note.id]


def test_excerpt_shows_the_hit(ctx: Context):
    _add(ctx, "Iota", body="first sentence. " * 20 + "the needle is here. " + "filler words. " * 20)
    (hit,) = search(ctx, "needle", Filters()).results
    assert "**needle**" in hit.excerpt


def test_excerpts_are_the_snippets_a_full_text_index_of_every_document_gives(ctx: Context):
    """The index keeps each document's text unindexed and makes a search's excerpts from a table
    of only its results: they are FTS5's snippets over all the documents, in every case (a body
    hit far in, a title-only hit, accents, CJK, a stem, nothing the raw text matches)."""
    import sqlite3

    from jacked_vault.search.ranking import EXCERPT_TOKENIZER, _content_words, _match

    long_body = "first sentence here. " * 30 + "the needle sits in the middle. " + "filler words again. " * 30
    _add(ctx, "Needle in the title", body="no such word below")
    _add(ctx, "Iota", body=long_body)
    _add(ctx, "Café crème", body="Søren drank a café crème with the needles team")
    _add(ctx, "数据库 migration", body="数据库的索引 rebuilt after the migrations ran")
    _add(ctx, "PagerDuty rotation", body="the pager rotates weekly, " * 10)
    for n in range(5):
        _add(ctx, f"Filler {n}", body="nothing relevant " * (n + 1))
    index = SearchIndex(ctx.vault)
    try:
        index.refresh()
        rows = index.db.execute("SELECT doc, title, tags, body FROM docs_text").fetchall()
    finally:
        index.close()
    full = sqlite3.connect(":memory:")
    full.execute(f"CREATE VIRTUAL TABLE every USING fts5(title, tags, body, tokenize = '{EXCERPT_TOKENIZER}')")
    full.executemany("INSERT INTO every(rowid, title, tags, body) VALUES(?,?,?,?)", rows)
    bodies = {title: body for _, title, _, body in rows}
    checked, unmatched = 0, 0
    for query in ("needle", "cafe", "soren creme", "数据库", "migration", "pager", "duty", "rotation weekly", "filler"):
        words = _match(_content_words(query))
        for hit in search(ctx, query, Filters()).results:
            found = full.execute(
                "SELECT snippet(every, -1, '**', '**', '…', 24) FROM every WHERE every MATCH ? AND title = ?",
                (words, hit.title),
            ).fetchone()
            assert hit.excerpt == " ".join((found[0] if found else bodies[hit.title][:160]).split()), (query, hit.title)
            checked, unmatched = checked + 1, unmatched + (found is None)
    assert checked >= 12 and unmatched  # `duty` finds PagerDuty, which FTS5's tokenizer keeps whole: the body's start


def test_empty_query_lists_newest(ctx: Context):
    a = _add(ctx, "Kappa one")
    b = _add(ctx, "Kappa two")
    assert _ids(ctx, "")[:2] == [b.note.id, a.note.id]


def test_index_catches_up_with_commits_made_by_plain_git(ctx: Context):
    hit = _add(ctx, "Lambda")
    root = ctx.vault.root
    assert _ids(ctx, "lambda") == [hit.note.id]
    git(root, "rm", "-q", hit.rel)
    git(root, "commit", "-qm", "remove by hand")
    assert _ids(ctx, "lambda") == []


def test_deleting_the_index_loses_nothing(ctx: Context):
    hits = [_add(ctx, f"Mu {n}") for n in range(3)]
    os.unlink(ctx.vault.state / "index.sqlite")
    assert set(_ids(ctx, "mu")) == {h.note.id for h in hits}


def test_corrupt_index_is_rebuilt(ctx: Context):
    hit = _add(ctx, "Nu")
    index_file = ctx.vault.state / "index.sqlite"
    for suffix in ("-wal", "-shm"):
        Path(f"{index_file}{suffix}").unlink(missing_ok=True)
    index_file.write_bytes(b"this is not a database" * 100)
    assert _ids(ctx, "nu") == [hit.note.id]


def test_rebuild_equals_incremental(ctx: Context):
    for n in range(6):
        _add(ctx, f"Xi {n}", tags=(f"t{n}",))
    incremental = _ids(ctx, "xi")
    index = SearchIndex(ctx.vault)
    assert index.rebuild() == 6
    index.close()
    assert _ids(ctx, "xi") == incremental


def test_invalid_and_symlinked_committed_files_are_diagnosed_not_fatal(ctx: Context):
    good = _add(ctx, "Omicron good")
    root = ctx.vault.root
    bad = root / "groups" / "tools" / "note" / "broken.md"
    bad.write_text("---\nschema: nope\n---\n\nomicron\n")
    (root / "groups" / "tools" / "note" / "link.md").symlink_to("/etc/passwd")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "planted by hand")
    result = search(ctx, "omicron", Filters())
    assert [d.id for d in result.results] == [good.note.id]
    diag = result.diagnostics.to_json()
    assert diag["invalid_file_count"] == 1
    assert diag["invalid_files"] == [{"path": "group:groups/tools/note/broken.md", "code": "INVALID"}]
    assert diag["skipped_symlinks"] == 1


def test_project_scope_is_searched_from_inside_the_repo(vault_path: Path, code_repo: Path, tmp_path: Path):
    inside = Context.create(vault=str(vault_path), cwd=code_repo, harness="t")
    hit = add(inside, AddRequest(title="Pi private", body="b", scope="project"))
    assert [d.id for d in search(inside, "pi", Filters()).results] == [hit.note.id]
    assert search(inside, "pi", Filters()).results[0].to_json()["path"] == "project:note/pi-private.md"
    elsewhere = Context.create(vault=str(vault_path), cwd=tmp_path, harness="t")
    assert search(elsewhere, "pi", Filters()).results == []


def test_planted_secret_is_quarantined_never_indexed_or_printed(ctx: Context):
    from jacked_vault.document import render_note
    from jacked_vault.write.create import build_note

    root = ctx.vault.root
    token = "xoxb-" + "1234567890-1234567890123-" + "AbCdEfGhIjKlMnOpQrStUvWx"
    planted = build_note(
        title="Rho leak",
        body=f"use {token}",
        kind="note",
        scope="group",
        group="tools",
        repos=[],
        source_harness="x",
        origin="cli",
    )
    (root / "groups" / "tools" / "note").mkdir(parents=True)
    (root / "groups" / "tools" / "note" / "leak.md").write_bytes(render_note(planted))
    git(root, "add", "-A")
    git(root, "commit", "-qm", "planted by hand")
    result = search(ctx, "rho", Filters())
    assert result.results == []
    assert result.diagnostics.invalid_files == [{"path": "group:groups/tools/note/leak.md", "code": "SECRET"}]
    assert token not in str(result.diagnostics.to_json())


def test_changed_entries_matches_git_diff(ctx: Context):
    from jacked_vault.search.treediff import changed_entries
    from jacked_vault.store.git import open_repo

    root = ctx.vault.root
    notes = [_add(ctx, f"Sigma {n}", group=f"g{n % 3}") for n in range(6)]
    before = git(root, "rev-parse", "HEAD").strip()
    git(root, "rm", "-q", notes[0].rel)
    (root / notes[1].rel).write_text((root / notes[1].rel).read_text() + "\nmore\n")
    (root / "groups" / "g9" / "note").mkdir(parents=True)
    (root / "groups" / "g9" / "note" / "fresh.md").write_text("x")
    (root / "groups" / "g1" / "note" / "sub").mkdir()
    (root / "groups" / "g1" / "note" / "sub" / "deep.md").write_text("y")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "mixed changes")
    repo = open_repo(root)
    ours = {(rel, entry is None) for rel, entry in changed_entries(repo, repo[before].tree, repo.head.peel().tree)}
    theirs = git(root, "diff", "--name-status", before, "HEAD").splitlines()
    expected = {(line.split("\t")[1], line.startswith("D")) for line in theirs}
    assert ours == expected


def test_episodic_files_are_searchable_as_tier_episodic_and_never_block_read(ctx: Context):
    from datetime import datetime

    from jacked_vault.episodic.entries import Entry, append_entry

    note = _add(ctx, "Ordinary note")
    when = datetime(2026, 11, 28, 17, 30).astimezone()
    append_entry(
        ctx.vault,
        Entry("tools", "github.com/acme/api", when, "feat/x", "Tuned the quokka cache."),
        harness="t",
        origin="cli",
    )
    (hit,) = search(ctx, "quokka", Filters()).results
    assert (hit.tier, hit.group, hit.kind) == ("episodic", "tools", "progress")
    assert hit.to_json()["path"] == "group:groups/tools/episodic/github.com__acme__api/today-2026-11-28.md"
    root = ctx.vault.root
    big = root / "groups" / "tools" / "episodic" / "github.com__acme__api" / "archive.md"
    big.write_text("# Archive\n\n" + "## Week of 2025-01-06\nold entry text. \n" * 12000)  # ~400 KiB, over the note cap
    git(root, "add", "-A")
    git(root, "commit", "-qm", "a long archive")
    result = search(ctx, "entry", Filters())
    assert result.diagnostics.complete
    from jacked_vault.notes import read

    assert read(ctx, note.note.id, Viewer()).note.id == note.note.id
    from jacked_vault.doctor import doctor

    assert doctor(ctx).memory_count == 1


def test_derived_documents_read_by_their_id_as_files_not_notes(ctx: Context):
    """Every id search hands out, read opens: a hot.md hit reads as the file's text (no note fields)."""
    from jacked_vault.notes import read
    from jacked_vault.write.hot import set_hot

    set_hot(ctx, "Working on the walrus parser.", group="tools")
    (hit,) = search(ctx, "walrus", Filters()).results
    result = read(ctx, hit.id, Viewer())
    assert result.note is None and result.body == "Working on the walrus parser."
    assert result.to_json()["memory"]["tier"] == "hot" and result.display_path == hit.display_path


def test_an_index_made_by_older_rules_is_rebuilt_with_todays_terms(ctx: Context):
    """Issue 18.17: the analyser changed (CJK bigrams), so INDEX_RULES changed: an index file of
    another version (here: its old whole-run term and another schema mark) is built afresh."""
    hit = _add(ctx, "存储的决定", body="我们决定使用数据库存储记忆")
    assert _ids(ctx, "数据库") == [hit.note.id]
    _as_older_index(ctx, "body", "我们决定使用数据库存储记忆")
    assert _ids(ctx, "数据库") == [hit.note.id]


def _as_older_index(ctx: Context, column: str, stored: str) -> None:
    """Make the index file look built by older rules: `column` of docs_terms holds what the old
    analyser stored, and the schema mark is another."""
    import sqlite3

    db = sqlite3.connect(ctx.vault.state / "index.sqlite")
    with db:
        db.execute(f"UPDATE docs_terms SET {column} = ?", (stored,))
        db.execute("UPDATE meta SET value = 'older-rules' WHERE key = 'schema'")
    db.close()


def test_an_index_without_joined_compounds_is_rebuilt(ctx: Context):
    """Issue 33.1: compounds are indexed joined too (PagerDuty: pager duti pagerduti), so an index
    file holding only the parts and an older schema mark is built afresh: `pagerduty` finds it."""

    hit = _add(ctx, "Alerts go to PagerDuty", body="the rota")
    _as_older_index(ctx, "title", "alert go to pager duti")
    assert _ids(ctx, "pagerduty") == [hit.note.id]


def test_names_and_search_spell_latin_letters_in_ascii(ctx: Context):
    """Issue 18.17: `Søren` made the file `sren-…md` and `Soren` did not find it."""
    hit = _add(ctx, "Søren and Łukasz pick Straße naming", body="Þór reviewed it")
    assert hit.rel.endswith("/soren-and-lukasz-pick-strasse-naming.md")
    assert _ids(ctx, "Soren") == _ids(ctx, "lukasz strasse") == _ids(ctx, "thor") == [hit.note.id]
    assert _ids(ctx, "Søren") == [hit.note.id]


def test_search_hunter2_finds_no_note_for_its_digit(ctx: Context):
    """Issue 18.16: `search Hunter2` matched the token `2` in unrelated notes."""
    hit = _add(ctx, "The hunter2 joke", body="an old chat log")
    _add(ctx, "Release 2 notes", body="version 2 is out")
    assert _ids(ctx, "Hunter2") == [hit.note.id]


def test_search_leaves_the_callers_filters_as_given(ctx: Context):
    """The defaults a search fills in (scopes, the group to prefer) are its own: the caller's
    `Filters` is unchanged, so the same one can be asked again elsewhere with its own defaults."""
    hit = _add(ctx, "Parquet layout")
    filters = Filters()
    given = Filters()
    assert [d.id for d in search(ctx, "parquet", filters).results] == [hit.note.id]
    assert filters == given
