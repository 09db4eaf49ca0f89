"""Ranking (issue 11): one analyser for notes and queries, BM25F over FTS5 candidates, index statistics."""

from __future__ import annotations

import re
import sqlite3

from conftest import git, trace_index_statements
from hypothesis import given, settings
from hypothesis import strategies as st

from jacked_vault.context import Context
from jacked_vault.document import render_note
from jacked_vault.notes import AddRequest, add
from jacked_vault.search import ranking
from jacked_vault.search.index import SearchIndex
from jacked_vault.search.porter import stem
from jacked_vault.search.query import Filters
from jacked_vault.search.ranking import analyse, query_terms
from jacked_vault.search.service import search
from jacked_vault.write.create import build_note

# Words that exercise every Porter step (and some that must pass through unchanged).
WORDS = [
    "caresses",
    "ponies",
    "ties",
    "caress",
    "cats",
    "feed",
    "agreed",
    "plastered",
    "bled",
    "motoring",
    "sing",
    "conflated",
    "troubled",
    "sized",
    "hopping",
    "tanned",
    "falling",
    "hissing",
    "fizzed",
    "failing",
    "filing",
    "happy",
    "sky",
    "relational",
    "conditional",
    "rational",
    "valenci",
    "hesitanci",
    "digitizer",
    "conformabli",
    "radicalli",
    "differentli",
    "vileli",
    "analogousli",
    "vietnamization",
    "predication",
    "operator",
    "feudalism",
    "decisiveness",
    "hopefulness",
    "callousness",
    "formaliti",
    "sensitiviti",
    "sensibiliti",
    "triplicate",
    "formative",
    "formalize",
    "electriciti",
    "electrical",
    "hopeful",
    "goodness",
    "revival",
    "allowance",
    "inference",
    "airliner",
    "gyroscopic",
    "adjustable",
    "defensible",
    "irritant",
    "replacement",
    "adjustment",
    "dependent",
    "adoption",
    "homologou",
    "communism",
    "activate",
    "angulariti",
    "homologous",
    "effective",
    "bowdlerize",
    "probate",
    "rate",
    "cease",
    "controll",
    "roll",
    "generalization",
    "oscillators",
    "parsing",
    "parser",
    "serializer",
    "deprecated",
    "deprecation",
    "werkzeug",
    "jinja",
    "templates",
    "environment",
    "undefined",
    "is",
    "as",
    "a",
    "i",
    "by",
    "eed",
    "ied",
    "ies",
    "sses",
    "ing",
    "ed",
]


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
    # a split word is its parts and then the whole, joined (issue 33.1: `formdataparser` finds it)
    assert analyse("parse_form_data FormDataParser HTTPServer rfc2231 Café naïve") == [
        "pars", "form", "data", "parseformdata", "form", "data", "parser", "formdatapars", "http", "server",
        "httpserver", "rfc", "2231", "rfc2231", "cafe", "naiv",
    ]  # fmt: skip
    assert analyse("Hunter2 SQLite x509") == ["hunter", "2", "hunter2", "sq", "lite", "sqlite", "x", "509", "x509"]
    assert analyse("commit a3dff80 token tok0x1") == ["commit", "a3dff80", "token", "tok0x1"]  # ids stay whole
    assert analyse("Søren Straße Łódź") == ["soren", "strass", "lodz"]  # transliterated like file names


def test_split_off_fragments_make_no_candidate_on_their_own():
    """Issue 18.16: `Hunter2` is hunter, 2 and hunter2; the fragment 2 only scores."""
    terms, anchors, wholes = ranking._query("Hunter2 x509 v2")
    assert terms == ["hunter", "2", "hunter2", "x", "509", "x509", "v", "v2"]
    assert anchors == ["hunter", "hunter2", "509", "x509", "v2"]
    assert wholes == {"hunter2": ("hunter", "2"), "x509": ("x", "509"), "v2": ("v", "2")}
    assert ranking._query("2") == (["2"], ["2"], {})  # a whole word is never a fragment


def test_a_split_query_word_scores_as_its_parts_or_its_whole_never_both():
    """Issue 33.1: `PagerDuty` in a query is pager, duti and pagerduti; a note holding all three
    scores what `pager duty` or `pagerduty` alone would give it, whichever is more."""
    query = ranking._query("PagerDuty out-of-band")
    assert query.wholes == {"pagerduti": ("pager", "duti"), "outofband": ("band",)}  # stopword parts dropped
    stats = ranking.Stats(10, (4.0, 1.0, 8.0), {"pager": 2, "duti": 3, "pagerduti": 1, "band": 4, "outofband": 1})
    held = ("alerts pager duti pagerduti", "", "")
    split, joined = ranking._query("pager duty out-of-band"), ranking._query("pagerduty out-of-band")
    assert stats.bm25f(query, held) == max(stats.bm25f(split, held), stats.bm25f(joined, held)) > 0


def test_a_split_off_digit_does_not_find_unrelated_notes(ctx: Context):
    hit = _add(ctx, "Hunter2 is the old joke", body="from an old chat log")
    _add(ctx, "Version 2 of the wheel", body="step 2 of 3")
    _add(ctx, "Retry 2 times", body="then give up")
    assert _ids(ctx, "Hunter2") == [hit.note.id]
    assert _ids(ctx, "sqlite") == [] and _ids(ctx, "hunter2") == [hit.note.id]


def test_an_identifier_held_whole_ranks_first(ctx: Context):
    whole = _add(ctx, "Chat logs", body="uses Hunter2 for the demo")
    apart = _add(ctx, "Chat log", body="uses hunter 2 for the demo")  # newer: first on a tie
    assert _ids(ctx, "Hunter2") == [whole.note.id, apart.note.id]
    lite = _add(ctx, "Store notes in SQLite", body="one file")
    assert _ids(ctx, "sqlite") == [lite.note.id]  # lowercase finds the camel-cased word


def test_analyser_segments_unspaced_chinese_and_japanese():
    """Issue 18.17: a CJK run is indexed as overlapping bigrams and its last character alone."""
    assert analyse("我们决定使用数据库") == ["我们", "们决", "决定", "定使", "使用", "用数", "数据", "据库", "库"]
    assert analyse("使用SQLite数据库。猫") == ["使用", "用", "sq", "lite", "sqlite", "数据", "据库", "库", "猫"]
    assert analyse("ﾃﾞｰﾀ") == analyse("データ") == ["デー", "ータ", "タ"]  # half-width kana, voicing kept
    assert query_terms("数据库 猫") == ["数据 据库", "猫*"]  # a phrase of bigrams; one character: a prefix
    assert analyse("데이터를 사용") == ["데이", "이터", "터를", "를", "사용", "용"]  # Hangul syllables stay whole
    assert analyse("２０２４年の計画・設定") == ["2024", "年の", "の計", "計画", "画", "設定", "定"]


def test_words_inside_unspaced_chinese_and_japanese_are_found(ctx: Context):
    zh = _add(ctx, "存储的决定", body="我们决定使用数据库存储记忆")
    ja = _add(ctx, "記憶の保存", body="記憶はデータベースに保存します")
    other = _add(ctx, "数据模型", body="数据很重要，库存不足")  # noqa: RUF001 - a Chinese comma; 数据 and 库 but never 数据库
    cat = _add(ctx, "宠物", body="我的猫很可爱")
    assert _ids(ctx, "数据库") == [zh.note.id]
    assert _ids(ctx, "データベース") == [ja.note.id]
    assert set(_ids(ctx, "数据")) == {zh.note.id, other.note.id}
    assert _ids(ctx, "猫") == [cat.note.id] and _ids(ctx, "爱") == [cat.note.id]  # inside and at the end of a run
    assert _ids(ctx, "记忆 数据库") == [zh.note.id]
    # an unspaced sentence nothing holds as such falls back to its bigrams, best overlap first
    assert _ids(ctx, "我们怎么存储记忆")[0] == zh.note.id


def test_an_opaque_id_finds_only_its_note(ctx: Context):
    hit = _add(ctx, "Build a3dff80 broke the wheel")
    _add(ctx, "Build a3dff81 fixed it")
    _add(ctx, "Version 3 of the wheel")
    assert _ids(ctx, "a3dff80") == [hit.note.id]


def test_query_drops_stopwords_unless_nothing_else_is_left():
    # and two neighbouring words of a short query joined, as a compound typed apart (issue 33.1)
    assert query_terms("How do I rotate the keys? The keys!") == ["rotat", "kei", "rotatekei"]
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
    words = [
        "deployment",
        "windows",
        "on-call",
        "rotation",
        "release",
        "trains",
        "staging",
        "canary",
        "rollback",
        "pager",
    ]
    _plant(ctx, [("tools", f"Filler {n}", " ".join(words[(n + k) % 10] for k in range(30))) for n in range(20)])
    essay = _add(ctx, "Retry budget", body=" ".join(words[k % 10] for k in range(600)))
    mention = _add(ctx, "Incident notes", body=" ".join(["retry"] + words * 3))
    assert _ids(ctx, "retry") == [essay.note.id, mention.note.id]


def test_equal_scores_newest_first_then_id(ctx: Context):
    older = _add(ctx, "Omega one", body="same one")  # equal scores, different notes
    newer = _add(ctx, "Omega two", body="same two")
    assert _ids(ctx, "omega") == [newer.note.id, older.note.id]


def _plant(ctx: Context, notes: list[tuple[str, str, str]]) -> None:
    """Write (group, title, body) notes straight into the vault and commit them at once."""
    root = ctx.vault.root
    for n, (group, title, body) in enumerate(notes):
        note = build_note(
            title=title, body=body, kind="note", scope="group", group=group, repos=[], source_harness="t", origin="cli"
        )
        folder = root / "groups" / group / "note"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"planted-{n}.md").write_bytes(render_note(note))
    git(root, "add", "-A")
    git(root, "commit", "-qm", "planted")


def test_common_terms_fill_the_list_when_rarer_ones_find_too_few(ctx: Context):
    _plant(
        ctx, [("busy", f"Alpha {n}", "alpha everywhere") for n in range(110)] + [("rare", "Alpha zeta", "zeta here")]
    )
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
    monkeypatch.setattr(
        ranking,
        "_candidates",
        lambda *a, **kw: seen.append("ranked" if kw.get("ranked", True) else "pool") or real(*a, **kw),
    )
    pooled = search(ctx, "alpha beta", Filters(limit=10)).results
    assert seen == ["pool"] and len(full) == len(pooled) == 10
    assert [d.score for d in pooled] == sorted((d.score for d in pooled), reverse=True)  # still re-scored by BM25F
    assert max(d.score for d in pooled) <= max(d.score for d in full)


def _statistics(index: SearchIndex) -> tuple:
    db = index.db
    stats = db.execute("SELECT docs, title, tags, body FROM terms_stats").fetchone()
    terms = db.execute(
        "SELECT d.path, t.title, t.tags, t.body FROM docs_terms t JOIN docs d ON d.rowid = t.rowid ORDER BY d.path"
    ).fetchall()
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


def test_past_the_bound_bm25_ranks_only_the_newest_matches(ctx: Context, monkeypatch):
    """Issue 21.6: a selective word in more notes than the bound is ranked in a window of the
    newest rowids, never over every match: the best matches, indexed first, are not candidates
    (ranking every match picks them), and the list is still full and ordered."""
    strong = set(sorted(map(str, range(300)))[:100])  # the gamma notes indexed first (paths sort as strings)
    _plant(ctx, [("busy", f"Gamma {n}", "gamma " * (5 if str(n) in strong else 1) + "filler") for n in range(300)]
           + [("busy", f"Filler {n}", "filler words only") for n in range(300, 1300)])  # fmt: skip
    monkeypatch.setattr(ranking, "FULL_RANK_MAX", 50)  # 300 gamma matches: over it
    picked: list[list[int]] = []
    real = ranking._candidates
    monkeypatch.setattr(ranking, "_candidates", lambda *a, **kw: picked.append(out := real(*a, **kw)) or out)
    results = search(ctx, "gamma filler", Filters(limit=10)).results
    assert len(results) == 10 and all(d.title.startswith("Gamma") for d in results)
    assert [d.score for d in results] == sorted((d.score for d in results), reverse=True)
    index = SearchIndex(ctx.vault)
    strongest = {
        r
        for (r,) in index.db.execute(
            "SELECT rowid FROM docs WHERE title IN ({})".format(",".join("?" * len(strong))),
            [f"Gamma {n}" for n in strong],
        )
    }
    index.close()
    assert picked and not strongest & set(picked[0])  # the oldest (here the best) matches were never ranked


def test_document_frequency_past_the_exact_count_is_estimated_closely(ctx: Context, monkeypatch):
    _plant(ctx, [("busy", f"Note {n}", "delta" if n % 3 == 0 else "epsilon") for n in range(600)])
    search(ctx, "delta", Filters())  # builds the index
    index = SearchIndex(ctx.vault)
    exact = ranking.Stats.read(index.db, ["delta"]).df["delta"]
    monkeypatch.setattr(ranking, "DF_EXACT", 90)  # 200 notes hold delta: past it
    estimated = ranking.Stats.read(index.db, ["delta"]).df["delta"]
    index.close()
    assert exact == 200 and estimated > 90 and abs(estimated - exact) <= 0.2 * exact


def test_the_candidate_filter_looks_rowids_up(ctx: Context, monkeypatch):
    """Issue 21.6: the pool's read-policy filter reads the pool's rows by rowid, never through an
    index on a policy column (at 100k notes that was a scan of every active note: 21 ms)."""
    _plant(ctx, [("busy", f"Kappa {n}", "kappa body") for n in range(40)])
    statements = trace_index_statements(monkeypatch)
    assert search(ctx, "kappa", Filters(target="t")).results
    index = SearchIndex(ctx.vault)
    filters = [sql for sql in statements if sql.startswith("SELECT d.rowid FROM docs d") and "rowid IN" in sql]
    plans = [row[3] for sql in filters for row in index.db.execute(f"EXPLAIN QUERY PLAN {sql}")]
    index.close()
    assert (
        filters
        and any("INTEGER PRIMARY KEY" in step for step in plans)
        and not any("USING INDEX docs_" in step for step in plans)
    ), plans


# -- the build's form of the analysis (search/derived.py) ----------------------------------------

_ASCII_WORD_BEFORE = re.compile(r"[^\W_]+(?:[-_]+[^\W_]+)*")  # the word regex as first written (a Unicode class)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=200))
def test_ascii_words_are_the_ones_the_unicode_class_found(text: str) -> None:
    """The ASCII word regex spells `[^\\W_]` as the ASCII letters and digits: the same words."""
    assert ranking._words(text) == _ASCII_WORD_BEFORE.findall(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("aZ9_-. 'é数据库Søren\tPagerDuty rfc2231 a3dff80 の"), max_size=60))
def test_analysed_is_analyse_joined_and_counted(text: str) -> None:
    terms = analyse(text)
    assert ranking.analysed(text) == (" ".join(terms), len(terms))


def test_analysed_of_every_porter_word_and_a_text_without_words() -> None:
    text = " ".join(WORDS) + " PagerDuty retry_budget 数据库"
    assert ranking.analysed(text) == (" ".join(analyse(text)), len(analyse(text)))
    assert ranking.analysed(" -- ") == ("", 0)
