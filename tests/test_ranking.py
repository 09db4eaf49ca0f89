"""Ranking (issue 11): one analyser for notes and queries, BM25F over FTS5 candidates, index statistics."""

from __future__ import annotations

import sqlite3

from conftest import git
from jacked_vault.context import Context
from jacked_vault.document import render_note
from jacked_vault.notes import AddRequest, add
from jacked_vault.search.index import SearchIndex
from jacked_vault.search.query import Filters
from jacked_vault.search.porter import stem
from jacked_vault.search.ranking import analyse, query_terms
from jacked_vault.search.service import search
from jacked_vault.write.create import build_note

# Words that exercise every Porter step (and some that must pass through unchanged).
WORDS = """
caresses ponies ties caress cats feed agreed plastered bled motoring sing conflated troubled sized hopping
tanned falling hissing fizzed failing filing happy sky relational conditional rational valenci hesitanci
digitizer conformabli radicalli differentli vileli analogousli vietnamization predication operator feudalism
decisiveness hopefulness callousness formaliti sensitiviti sensibiliti triplicate formative formalize
electriciti electrical hopeful goodness revival allowance inference airliner gyroscopic adjustable defensible
irritant replacement adjustment dependent adoption homologou communism activate angulariti homologous
effective bowdlerize probate rate cease controll roll generalization oscillators parsing parser serializer
deprecated deprecation werkzeug jinja templates environment undefined is as a i by eed ied ies sses ing ed
""".split()


def _add(ctx: Context, title: str, body: str = "plain body", **kw):
    return add(ctx, AddRequest(title=title, body=body, group=kw.pop("group", "tools"), **kw))


def _ids(ctx: Context, query: str, **filters) -> list[str]:
    return [d.id for d in search(ctx, query, Filters(**filters)).results]


def test_porter_stems_exactly_like_sqlite():
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(w, tokenize = 'porter ascii')")
    db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)")
    db.executemany("INSERT INTO t(rowid, w) VALUES(?, ?)", list(enumerate(WORDS)))
    theirs = {WORDS[doc]: term for doc, term in db.execute("SELECT doc, term FROM v")}
    assert {word: stem(word) for word in WORDS} == theirs


def test_analyser_splits_identifiers_and_folds_case_and_accents():
    assert analyse("parse_form_data FormDataParser HTTPServer rfc2231 Café naïve") == [
        "pars", "form", "data", "form", "data", "parser", "http", "server", "rfc", "2231", "cafe", "naiv",
    ]  # fmt: skip
    assert analyse("commit a3dff80 token tok0x1") == ["commit", "a3dff80", "token", "tok0x1"]  # ids stay whole


def test_an_opaque_id_finds_only_its_note(ctx: Context):
    hit = _add(ctx, "Build a3dff80 broke the wheel")
    _add(ctx, "Build a3dff81 fixed it")
    _add(ctx, "Version 3 of the wheel")
    assert _ids(ctx, "a3dff80") == [hit.note.id]


def test_query_drops_stopwords_unless_nothing_else_is_left():
    assert query_terms("How do I rotate the keys? The keys!") == ["rotat", "kei"]
    assert query_terms("to be or not to be") == ["to", "be", "or", "not"]


def test_stopword_heavy_query_finds_the_note_first(ctx: Context):
    _add(ctx, "How do I make the most of it", body="a talk about habits")
    _add(ctx, "Lint config", body="ruff only")
    hit = _add(ctx, "Reproducible builds", body="pin every version")
    assert _ids(ctx, "how do I make the build reproducible")[0] == hit.note.id


def test_stopword_only_query_still_finds_notes(ctx: Context):
    hit = _add(ctx, "The who", body="a band")
    assert _ids(ctx, "the who") == [hit.note.id]


def test_snake_case_and_camel_case_identifiers_match_their_words(ctx: Context):
    lazy = _add(ctx, "Form data parsing is lazy", body="streams large uploads")
    parser = _add(ctx, "Use FormDataParser for uploads", body="never read the whole body")
    _add(ctx, "Unrelated", body="nothing")
    assert _ids(ctx, "parse_form_data")[0] == lazy.note.id
    assert _ids(ctx, "form parser")[0] == parser.note.id
    assert set(_ids(ctx, "FormData")) == {lazy.note.id, parser.note.id}


def test_long_body_does_not_swamp_a_short_title_match(ctx: Context):
    words = "deployment windows on-call rotation release trains staging canary rollback pager".split()
    _plant(ctx, [("tools", f"Filler {n}", " ".join(words[(n + k) % 10] for k in range(30))) for n in range(20)])
    essay = _add(ctx, "Retry budget", body=" ".join(words[k % 10] for k in range(600)))
    mention = _add(ctx, "Incident notes", body=" ".join(["retry"] + words * 3))
    assert _ids(ctx, "retry") == [essay.note.id, mention.note.id]


def test_equal_scores_newest_first_then_id(ctx: Context):
    older = _add(ctx, "Omega same", body="same")
    newer = _add(ctx, "Omega same", body="same")
    assert _ids(ctx, "omega") == [newer.note.id, older.note.id]


def _plant(ctx: Context, notes: list[tuple[str, str, str]]) -> None:
    """Write (group, title, body) notes straight into the vault and commit them at once."""
    root = ctx.vault.root
    for n, (group, title, body) in enumerate(notes):
        note = build_note(title=title, body=body, kind="note", scope="group", group=group, repos=[], source_harness="t", origin="cli")
        folder = root / "groups" / group / "note"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"planted-{n}.md").write_bytes(render_note(note))
    git(root, "add", "-A")
    git(root, "commit", "-qm", "planted")


def test_common_terms_fill_the_list_when_rarer_ones_find_too_few(ctx: Context):
    _plant(ctx, [("busy", f"Alpha {n}", "alpha everywhere") for n in range(110)] + [("rare", "Alpha zeta", "zeta here")])
    zeta = _ids(ctx, "alpha zeta")
    assert len(zeta) == 20 and search(ctx, "alpha zeta", Filters()).results[0].title == "Alpha zeta"
    assert len(_ids(ctx, "alpha zeta", group="busy")) == 20  # no zeta in this group: alpha alone still finds


def test_a_query_of_only_common_words_over_many_matches_ranks_a_bounded_pool(ctx: Context, monkeypatch):
    from jacked_vault.search import ranking

    _plant(ctx, [("busy", f"Alpha beta {n}", "alpha beta " * (1 + n % 7)) for n in range(300)])
    full = search(ctx, "alpha beta", Filters(limit=10)).results
    monkeypatch.setattr(ranking, "FULL_RANK_MAX", 100)  # 600 matches: over it, every term common
    seen: list[str] = []
    real = ranking._candidates
    monkeypatch.setattr(ranking, "_candidates", lambda *a, **kw: seen.append("ranked" if kw.get("ranked", True) else "pool") or real(*a, **kw))
    pooled = search(ctx, "alpha beta", Filters(limit=10)).results
    assert seen == ["pool"] and len(full) == len(pooled) == 10
    assert [d.score for d in pooled] == sorted((d.score for d in pooled), reverse=True)  # still re-scored by BM25F
    assert max(d.score for d in pooled) <= max(d.score for d in full)


def _statistics(index: SearchIndex) -> tuple:
    db = index.db
    stats = db.execute("SELECT docs, title, tags, body FROM terms_stats").fetchone()
    terms = db.execute("SELECT d.path, t.title, t.tags, t.body FROM docs_terms t JOIN docs d ON d.rowid = t.rowid ORDER BY d.path").fetchall()
    return stats, terms


def test_field_statistics_are_kept_incrementally_and_equal_a_rebuild(ctx: Context):
    notes = [_add(ctx, f"Sigma note {n}", body="word " * (n + 1), tags=("t",) * (n % 2)) for n in range(5)]
    root = ctx.vault.root
    git(root, "rm", "-q", notes[2].rel)
    git(root, "commit", "-qm", "remove one by hand")
    _ids(ctx, "sigma")  # catches the index up by diff
    index = SearchIndex(ctx.vault)
    incremental = _statistics(index)
    assert incremental[0] == (4, 4 * 3, 2, 1 + 2 + 4 + 5)  # documents, then terms in titles, tags, bodies
    index.rebuild()
    assert _statistics(index) == incremental
    index.close()
