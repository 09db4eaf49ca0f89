"""Lexical ranking: one analyser for notes and queries, BM25F over FTS5 candidates.

Every document is analysed into terms per field (title, tags, body): words split at anything
not a letter or digit and at camelCase/letter-digit boundaries, lowercased, diacritics removed,
Porter-stemmed. Those terms are kept in `docs_terms` (an FTS5 table of analysed text) with the
collection's field totals in `terms_stats`, both maintained with each add and removal.

A query is analysed the same way, stopwords dropped (unless nothing else is left). FTS5 picks
the candidates holding any query term, ranked by its bm25(); the best `CANDIDATES` are
re-scored with BM25F, where each field is length-normalised against its own average before the
fields are weighted, so one long body cannot swamp a short title match.
"""

from __future__ import annotations

import math
import re
import sqlite3
import unicodedata
from collections import Counter
from functools import lru_cache

from jacked_vault.search.porter import stem

DDL = """
CREATE VIRTUAL TABLE IF NOT EXISTS docs_terms USING fts5(title, tags, body, tokenize = 'ascii', detail = column);
CREATE TABLE IF NOT EXISTS terms_stats(
    id INTEGER PRIMARY KEY CHECK (id = 0), docs INTEGER NOT NULL, title INTEGER NOT NULL, tags INTEGER NOT NULL, body INTEGER NOT NULL
);
"""
TABLES = ("docs_terms", "terms_stats")

# BM25F, fields in the order title, tags, body (tuned on werkzeug, checked on jinja: bench/eval_retrieval.py)
WEIGHTS = (3.0, 2.0, 1.0)
LENGTH_NORM = (0.9, 0.0, 0.75)  # b per field; tags are a set of labels, not text
K1 = 1.2
CANDIDATES = 100  # FTS5 candidates re-scored (at least twice the limit)

STOPWORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before being below between
    both but by can could did do does doing down during each few for from further had has have having he her
    here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not
    now of off on once only or other our ours ourselves out over own same she should so some such than that the
    their theirs them themselves then there these they this those through to too under until up very was we
    were what when where which while who whom why will with would you your yours yourself yourselves
    """.split()
)

_WORD = re.compile(r"[^\W_]+")
_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


@lru_cache(maxsize=65536)
def _word_terms(word: str) -> tuple[str, ...]:
    """Terms of one word: its camelCase / letter-digit parts, lowercased and stemmed."""
    parts = _PART.findall(word) if word.isascii() else []
    return tuple(stem(part.lower()) for part in (parts if len(parts) > 1 else [word]))


def _words(text: str) -> list[str]:
    if not text.isascii():
        text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return _WORD.findall(text)


def analyse(text: str) -> list[str]:
    """Every term of a text, in order (stopwords kept: they count towards a field's length)."""
    return [term for word in _words(text) for term in _word_terms(word)]


def query_terms(text: str) -> list[str]:
    """The distinct terms of a query without stopwords (with them, if nothing else is left)."""
    words = _words(text)
    content = [w for w in words if w.lower() not in STOPWORDS] or words
    return list(dict.fromkeys(term for word in content for term in _word_terms(word)))


# -- keeping the analysed fields and their totals ---------------------------------------------


def add_doc(db: sqlite3.Connection, rowid: int, title: str, tags: list[str], body: str) -> None:
    """Analyse and store one document's fields and add them to the totals (inside the caller's transaction)."""
    fields = [analyse(title), analyse(" ".join(tags)), analyse(body)]
    db.execute("INSERT INTO docs_terms(rowid, title, tags, body) VALUES(?,?,?,?)", (rowid, *(" ".join(f) for f in fields)))
    _add_totals(db, 1, [len(f) for f in fields])


def remove_doc(db: sqlite3.Connection, rowid: int) -> None:
    row = db.execute("SELECT title, tags, body FROM docs_terms WHERE rowid=?", (rowid,)).fetchone()
    if row is not None:
        db.execute("DELETE FROM docs_terms WHERE rowid=?", (rowid,))
        _add_totals(db, -1, [-len(f.split()) for f in row])


def _add_totals(db: sqlite3.Connection, docs: int, lengths: list[int]) -> None:
    db.execute(
        "INSERT INTO terms_stats(id, docs, title, tags, body) VALUES(0,?,?,?,?) ON CONFLICT(id) DO UPDATE SET"
        " docs = docs + excluded.docs, title = title + excluded.title, tags = tags + excluded.tags, body = body + excluded.body",
        (docs, *lengths),
    )


# -- ranking ----------------------------------------------------------------------------------


def search(
    db: sqlite3.Connection, text: str, columns: str, where: str, params: list, prefer: str, limit: int
) -> list[tuple[tuple, float, str]]:
    """(row of `columns` from docs d, score, excerpt) of the best `limit` documents matching `where`.

    Equal scores: the `prefer` group first, then the newest `updated_at`, then id.
    """
    terms = query_terms(text)
    if not terms:
        return []
    candidates = db.execute(
        f"SELECT docs_terms.title, docs_terms.tags, docs_terms.body, d.grp IS ?, d.updated_at, d.id, {columns}"
        " FROM docs_terms JOIN docs d ON d.rowid = docs_terms.rowid"
        f" WHERE docs_terms MATCH ? AND {where} ORDER BY bm25(docs_terms, {', '.join(map(str, WEIGHTS))}) LIMIT ?",
        (prefer, _match(terms), *params, max(CANDIDATES, 2 * limit)),
    ).fetchall()
    score = _bm25f(db, terms)
    scored = [(round(score(c[:3]), 6), *c[3:]) for c in candidates]  # (score, preferred, updated_at, id, row…)
    scored.sort(key=lambda c: c[3])
    scored.sort(key=lambda c: c[2], reverse=True)
    scored.sort(key=lambda c: (c[0], c[1]), reverse=True)
    top = scored[:limit]
    excerpts = _excerpts(db, text, [c[4] for c in top])  # the caller's columns start with d.rowid
    return [(c[4:], c[0], excerpts.get(c[4], "")) for c in top]


def _match(terms: list[str]) -> str:
    return " OR ".join(f'"{term}"' for term in terms)  # analysed terms are letters and digits only


def _bm25f(db: sqlite3.Connection, terms: list[str]):
    """A scorer of (title, tags, body) analysed texts against `terms`, with the index's statistics."""
    docs, *totals = db.execute("SELECT docs, title, tags, body FROM terms_stats").fetchone() or (0, 0, 0, 0)
    averages = [total / docs if docs else 0.0 for total in totals]
    idf = {}
    for term in terms:
        df = db.execute("SELECT count(*) FROM docs_terms WHERE docs_terms MATCH ?", (_match([term]),)).fetchone()[0]
        idf[term] = math.log(1 + (docs - df + 0.5) / (df + 0.5))

    def score(fields: tuple[str, str, str]) -> float:
        weighted: Counter[str] = Counter()
        for text, weight, b, average in zip(fields, WEIGHTS, LENGTH_NORM, averages):
            tokens = text.split()
            counts = Counter(tokens)
            norm = weight / (1 - b + b * len(tokens) / average) if average else weight
            for term in terms:
                if counts[term]:
                    weighted[term] += counts[term] * norm
        return sum(idf[term] * tf / (K1 + tf) for term, tf in weighted.items())

    return score


def _excerpts(db: sqlite3.Connection, text: str, rowids: list[int]) -> dict[int, str]:
    """rowid -> the raw text around the query's words (FTS5 snippet), else the body's start."""
    if not rowids:
        return {}
    words = _words(text)
    match = " OR ".join(f'"{w}"' for w in ([w for w in words if w.lower() not in STOPWORDS] or words))
    marks = ",".join("?" * len(rowids))
    found = dict(
        db.execute(
            f"SELECT rowid, snippet(docs_fts, -1, '**', '**', '…', 24) FROM docs_fts WHERE docs_fts MATCH ? AND rowid IN ({marks})",
            (match, *rowids),
        )
    )
    missing = [r for r in rowids if r not in found]
    if missing:
        marks = ",".join("?" * len(missing))
        found.update(db.execute(f"SELECT rowid, substr(body, 1, 160) FROM docs_fts WHERE rowid IN ({marks})", missing))
    return found
