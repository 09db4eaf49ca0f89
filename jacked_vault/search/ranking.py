"""Lexical ranking: one analyser for notes and queries, BM25F over FTS5 candidates.

Every document is analysed into terms per field (title, tags, body): words split at anything
not a letter, digit, `_` or `-`, and within a word at `_`, `-` and camelCase/letter-digit
boundaries (`rfc2231` is rfc and 2231), a word so split kept joined as a term too (`PagerDuty`
is pager, duty and pagerduty; `retry_budget` is retry, budget and retrybudget: every spelling
finds it), lowercased, diacritics removed and other Latin letters spelled in ASCII (`Søren` is
soren, as in file names), Porter-stemmed. Unspaced Chinese and Japanese (and Korean) runs are
cut into overlapping character bigrams, plus the run's last character alone (`数据库` is 数据 据库
库). Those terms are kept in `docs_terms` (an FTS5 table of analysed text, `ascii` tokenizer:
non-ASCII characters are token characters, so a bigram is one token) with the collection's
field totals in `terms_stats` (both declared in schema.py's DDL), maintained with each add and
removal.

A query is analysed the same way, stopwords dropped (unless nothing else is left), into terms:
a CJK run becomes the phrase of its bigrams (`数据 据库`: the characters in that order) or, one
character alone, the prefix `猫*` (every bigram starting with it, or the run's last character);
a split word is its parts but the stopwords and its whole joined, and scores as the one or the
other, whichever is more (`GitHub` finds a note that wrote `github`, and a note holding
`GitHub` gains nothing from matching it twice); its fragments of one or two characters (the
`2` of `Hunter2`) only add to the score of a document found by another term, never make it a
candidate. FTS5 picks the candidates holding any other term, ranked by its bm25(); the best
`CANDIDATES` are re-scored with BM25F, where each field is length-normalised against its own
average before the fields are weighted, so one long body cannot swamp a short title match.
The work stays bounded at any vault size: bm25() ranks at most about `FULL_RANK_MAX` matches
(past that, the newest-indexed: a window of rowids), and a term's document frequency is
counted up to `DF_EXACT` documents, past that estimated from its share of the newest ones. A
CJK phrase nothing holds is tried again as its separate bigrams (an unspaced sentence finds the
notes sharing most of it).
"""

from __future__ import annotations

import math
import re
import sqlite3
import unicodedata
from functools import cache, lru_cache
from itertools import pairwise
from typing import Any, NamedTuple

from jacked_vault.document.ids import LETTERS
from jacked_vault.search.entries import MARK
from jacked_vault.search.porter import stem
from jacked_vault.search.schema import rows_in

# BM25F, fields in the order title, tags, body (tuned on werkzeug, checked on jinja: bench/eval_retrieval.py)
WEIGHTS = (3.0, 2.0, 1.0)
LENGTH_NORM = (0.9, 0.0, 0.75)  # b per field; tags are a set of labels, not text
K1 = 1.2
CANDIDATES = 30  # FTS5 candidates re-scored (at least twice the limit)
POOL = 4  # unfiltered candidates looked at per wanted one before filtering every match
COMMON = 0.25  # a term in more than this share of documents does not make a document a candidate on its own
# bm25() in SQL costs O(matches ranked) (FTS5 reads each match's field sizes). When every query
# term is common and they match more documents than this, the candidates are the newest-indexed
# matches (re-scored by BM25F like any others): a query of only common words carries little to
# rank by. Otherwise, past this many matches only those in a window of the newest rowids (sized
# to hold about this many, widened when too few are in it) are ranked: bounded at any size.
FULL_RANK_MAX = 5_000
EXCERPT_TOKENIZER = "porter unicode61 remove_diacritics 2"  # how an excerpt finds the query's words in the raw text
DF_EXACT = 10_000  # a document frequency is counted up to this; past it, estimated (see Stats.read)

STOPWORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before being below between
    both but by can could did do does doing down during each few for from further had has have having he her
    here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not
    now of off on once only or other our ours ourselves out over own same she should so some such than that the
    their theirs them themselves then there these they this those through to too under until up very was we
    were what when where which while who whom why will with would you your yours yourself yourselves
    """.split()  # noqa: SIM905 - a word list reads best as words
)

# Scripts written without spaces between words: kana and ideographs (and Hangul syllables,
# whose words carry their particles). No punctuation: ・ (U+30FB) and ゠ are left out.  # noqa: RUF003 - the characters meant
_CJK_RANGES = (
    "\u3005-\u3007\u3041-\u3096\u309d-\u309f\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3\uf900-\ufaff\U00020000-\U0003134f"
)
# A snake_case or kebab-case word is one. Only ASCII text is matched with it (`_words`), where `[^\W_]` is
# exactly the ASCII letters and digits: spelled so, the regex finds the same words in 60 % of the time.
_WORD_ASCII = re.compile(r"[A-Za-z0-9]+(?:[-_]+[A-Za-z0-9]+)*")


@cache
def _cjk() -> re.Pattern[str]:
    """A CJK character (compiled on first use: only non-ASCII text needs it, and its ranges cost ~5 ms)."""
    return re.compile(f"[{_CJK_RANGES}]")


@cache
def _word() -> re.Pattern[str]:
    """A CJK run, or a run of other letters and digits (compiled on first use, as `_cjk`)."""
    return re.compile(f"[{_CJK_RANGES}]+|[^\\W_{_CJK_RANGES}]+(?:[-_]+[^\\W_{_CJK_RANGES}]+)*")


def _is_cjk(word: str) -> bool:
    return not word.isascii() and _cjk().match(word) is not None


_KANA_MARKS = "\u3099\u309a"  # the voicing marks NFKD takes off デ, パ (and half-width ﾃﾞ): put back by NFC
_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_OPAQUE = re.compile(r"[A-Za-z][0-9]+[A-Za-z]|[0-9][A-Za-z]+[0-9]")  # letters and digits alternate twice: an id, a hash
_JOINERS = re.compile(r"[-_]+")  # what joins a snake_case or kebab-case word
FRAGMENT = 2  # a split-off part this short (the `2` of `Hunter2`, the `v` of `v2`) makes no candidate


@lru_cache(maxsize=65536)
def _parts(word: str) -> tuple[str, ...]:
    """A non-CJK word's parts, lowercased: split at `_` and `-` and at camelCase / letter-digit
    boundaries (retry_budget, PagerDuty, rfc2231); a non-ASCII piece or an opaque one (a3dff80,
    tok0x1) stays whole."""
    return tuple(
        part.lower()
        for piece in _JOINERS.split(word)
        for part in (_PART.findall(piece) if piece.isascii() and not _OPAQUE.search(piece) else [piece])
    )


@lru_cache(maxsize=65536)
def _word_terms(word: str) -> tuple[str, ...]:
    """Terms of one word as a note holds it, stemmed: its parts, then the whole word joined when
    it has more than one (PagerDuty is pager, duti and pagerduti: `pagerduty` and `pager duty`
    both find it); a CJK run is its overlapping bigrams and its last character."""
    if _is_cjk(word):
        return (*(word[i : i + 2] for i in range(len(word) - 1)), word[-1])
    parts = _parts(word)
    return (*map(stem, parts), stem("".join(parts))) if len(parts) > 1 else (stem(parts[0]),)


def _words(text: str) -> list[str]:
    """Runs of letters and digits, CJK runs apart; accents removed and other Latin letters spelled
    in ASCII (document/ids.py's LETTERS), compatibility forms folded (NFKD, then NFC)."""
    if text.isascii():
        return _WORD_ASCII.findall(text)
    text = unicodedata.normalize("NFKD", text).translate(LETTERS)
    text = "".join(c for c in text if not unicodedata.combining(c) or c in _KANA_MARKS)
    return _word().findall(unicodedata.normalize("NFC", text))


def analyse(text: str) -> list[str]:
    """Every term of a text, in order (stopwords kept: they count towards a field's length)."""
    return [term for word in _words(text) for term in _word_terms(word)]


@lru_cache(maxsize=65536)
def _joined_terms(word: str) -> str:
    return " ".join(_word_terms(word))


def analysed(text: str) -> tuple[str, int]:
    """`analyse` of a text as a field is stored: its terms joined by spaces, and how many there
    are (a term is never empty and holds no space); one cached string a word (an index build)."""
    words = _words(text)
    joined = " ".join(map(_joined_terms, words))
    return joined, joined.count(" ") + 1 if words else 0


def _content_words(text: str) -> list[str]:
    """A query's words without stopwords (with them, if nothing else is left)."""
    words = _words(text)
    return [w for w in words if w.lower() not in STOPWORDS] or words


class Query(NamedTuple):
    """A query's distinct terms, those that may make a candidate (all but the fragments of split
    words), and each split word's joined term with its parts' terms (one word: BM25F counts
    whichever of the two scores more)."""

    terms: list[str]
    anchors: list[str]
    wholes: dict[str, tuple[str, ...]]


def _query(text: str, loose: bool = False) -> Query:
    """The `Query` of a text. A CJK run is one term, the phrase of its bigrams (`数据 据库`), or
    for one character the prefix `猫*`; `loose`: its bigrams apart. A split word is its parts
    but the stopwords (`out-of-band`: band), a part of one or two characters not an anchor,
    and its whole joined (outofband); so are two neighbouring words of a short query (`status
    page`: statuspag), each pair scored as its parts or its whole."""
    found: dict[str, bool] = {}  # term -> anchors
    wholes: dict[str, tuple[str, ...]] = {}
    words = _content_words(text)
    for word in words:
        if _is_cjk(word):
            bigrams = [word[i : i + 2] for i in range(len(word) - 1)]
            units = (
                [(word + "*", True)]
                if len(word) == 1
                else [(b, True) for b in bigrams]
                if loose
                else [(" ".join(bigrams), True)]
            )
        elif len(parts := _parts(word)) == 1:
            units = [(stem(parts[0]), True)]
        else:
            content = [part for part in parts if part not in STOPWORDS] or parts
            kept = [(stem(part), len(part) > FRAGMENT) for part in content]
            whole = _word_terms(word)[-1]  # the joined term, exactly as a note holding the word has it
            wholes[whole] = tuple(term for term, _ in kept)
            units = [*kept, (whole, True)]
        for term, anchor in units:
            found[term] = found.get(term, False) or anchor
    for first, second in _compound_pairs(words):  # `status page` finds a note that says `statuspage`
        whole = _word_terms(first + second)[-1]
        if whole not in found:
            wholes[whole] = (stem(first), stem(second))
            found[whole] = True
    return Query(list(found), [term for term, anchor in found.items() if anchor], wholes)


MAX_PAIRED_WORDS = 4  # a compound typed apart is a short query: longer ones are sentences


def _compound_pairs(words: list[str]) -> list[tuple[str, str]]:
    """Neighbouring plain words of a short query that may be one compound typed apart (`pager
    duty`), lower-cased; none in a query of more than MAX_PAIRED_WORDS words."""
    if len(words) > MAX_PAIRED_WORDS:
        return []
    plain = [w.lower() if w.isascii() and w.isalpha() and len(w) > FRAGMENT else None for w in words]
    return [(a, b) for a, b in pairwise(plain) if a is not None and b is not None and a != b]


def query_terms(text: str) -> list[str]:
    """The distinct terms of a query's content words."""
    return _query(text).terms


# -- keeping the analysed fields and their totals ---------------------------------------------


TERMS = "INSERT INTO docs_terms(rowid, title, tags, body) VALUES(?,?,?,?)"


def add_doc(
    db: sqlite3.Connection,
    rowid: int,
    terms: tuple[str, str, str],
    lengths: tuple[int, int, int],
    totals: list[int] | None = None,
    rows: dict[str, list[tuple[Any, ...]]] | None = None,
) -> None:
    """Store one document's analysed fields (`analyse` of title, tags and body, each joined by
    spaces, with their term counts: search/derived.py) and add them to the totals (inside the
    caller's transaction); with `totals` (a bulk insert's [documents, title, tags, body] so far),
    to those, which the caller writes with `add_totals` once; with `rows` (a bulk insert's rows
    by statement), its row goes to `rows[TERMS]` for the caller to insert."""
    if rows is None:
        db.execute(TERMS, (rowid, *terms))
    else:
        rows[TERMS].append((rowid, *terms))
    if totals is None:
        add_totals(db, 1, list(lengths))
        return
    totals[0] += 1
    for field, length in enumerate(lengths, 1):
        totals[field] += length


def remove_doc(db: sqlite3.Connection, rowid: int) -> None:
    row = db.execute("SELECT title, tags, body FROM docs_terms WHERE rowid=?", (rowid,)).fetchone()
    if row is not None:
        db.execute("DELETE FROM docs_terms WHERE rowid=?", (rowid,))
        add_totals(db, -1, [-len(f.split()) for f in row])


def add_totals(db: sqlite3.Connection, docs: int, lengths: list[int]) -> None:
    """Add `docs` documents and their field lengths (title, tags, body) to the collection's totals."""
    db.execute(
        "INSERT INTO terms_stats(id, docs, title, tags, body) VALUES(0,?,?,?,?) ON CONFLICT(id) DO UPDATE SET"
        " docs = docs + excluded.docs, title = title + excluded.title, tags = tags + excluded.tags, body = body + "
        "excluded.body",
        (docs, *lengths),
    )


# -- ranking ----------------------------------------------------------------------------------


def search(
    db: sqlite3.Connection, text: str, columns: str, where: str, params: list[Any], prefer: str, limit: int
) -> list[tuple[tuple[Any, ...], float, str]]:
    """(row of `columns`, score, excerpt) of the best `limit` documents matching `where`.

    `columns` are read from `docs d` and start with d.rowid. Equal scores: the `prefer` group
    first, then the newest `updated_at`, then id.
    """
    query = _query(text)
    if not query.terms:
        return []
    count = max(CANDIDATES, 2 * limit)
    stats, rowids = _find(db, query.terms, query.anchors, where, params, count, limit)
    if not rowids and any(" " in term for term in query.terms):  # no CJK phrase found: its bigrams apart
        query = _query(text, loose=True)
        stats, rowids = _find(db, query.terms, query.anchors, where, params, count, limit)
    rows = db.execute(
        f"SELECT t.title, t.tags, t.body, d.grp IS ?, d.updated_at, d.id, {columns}"
        f" FROM docs d JOIN docs_terms t ON t.rowid = d.rowid WHERE d.rowid IN ({','.join('?' * len(rowids))})",
        (prefer, *rowids),
    ).fetchall()
    scored = [
        (round(stats.bm25f(query, row[:3]), 6), *row[3:]) for row in rows
    ]  # (score, preferred, updated_at, id, rowid, …)
    scored.sort(key=lambda r: r[3])
    scored.sort(key=lambda r: r[2], reverse=True)
    scored.sort(key=lambda r: (r[0], r[1]), reverse=True)
    best = scored[:limit]
    excerpts = _excerpts(db, _match(_content_words(text)), [r[4] for r in best])
    return [(r[4:], r[0], excerpts[r[4]]) for r in best]


def _find(
    db: sqlite3.Connection, terms: list[str], anchors: list[str], where: str, params: list[Any], count: int, limit: int
) -> tuple[Stats, list[int]]:
    """The statistics of `terms` and the candidates `anchors` find (see `_candidates`); an anchor
    no document holds (the joined form of two query words, mostly) finds nothing and is left out."""
    stats = Stats.read(db, terms)
    anchors = [term for term in anchors if stats.df[term]]
    if not anchors:
        return stats, []
    selective = stats.selective(anchors)
    ranked = selective != anchors or sum(stats.df[t] for t in anchors) <= FULL_RANK_MAX
    rowids = _candidates(db, selective, where, params, count, stats, ranked=ranked)
    if len(rowids) < limit and selective != anchors:  # too few: the common terms may fill the list
        rowids = _candidates(db, anchors, where, params, count, stats)
    return stats, rowids


def _match(words: list[str]) -> str:
    """An FTS5 expression matching any of `words` (or terms: a phrase `a b`, a prefix `a*`).
    Words and terms are letters and digits only, so user text is never FTS syntax."""
    return " OR ".join(f'"{word[:-1]}"*' if word.endswith("*") else f'"{word}"' for word in words)


def _count(tokens: list[str], term: str) -> int:
    """How often `term` occurs in a field's tokens: a phrase (`数据 据库`) as a sequence, a prefix
    (`猫*`) as the start of a token."""
    if term.endswith("*"):
        return sum(token.startswith(term[:-1]) for token in tokens)
    if " " in term:
        parts = term.split()
        n = len(parts)
        return sum(tokens[i : i + n] == parts for i, token in enumerate(tokens) if token == parts[0])
    return tokens.count(term)


def _candidates(
    db: sqlite3.Connection,
    terms: list[str],
    where: str,
    params: list[Any],
    count: int,
    stats: Stats,
    *,
    ranked: bool = True,
) -> list[int]:
    """Rowids of the `count` documents matching `where` that FTS5's bm25() ranks best for any of
    `terms`, among at most about `FULL_RANK_MAX` matches: the newest-indexed (rowids above a
    floor); not `ranked`: the newest-indexed matches (see FULL_RANK_MAX).

    First the best `POOL` × `count` of all documents, filtered afterwards (joining every match
    to `docs` costs more than ranking it); when too few of them pass, every match is filtered.
    Either way a window that holds too few is widened (4× each time) until it holds the whole index.
    """  # noqa: RUF002 - the multiplication sign is meant
    match = _match(terms)
    order = f"bm25(docs_terms, {', '.join(map(str, WEIGHTS))})" if ranked else "rowid DESC"
    top, matches = stats.top, sum(stats.df[t] for t in terms)
    span = top if matches <= FULL_RANK_MAX or not ranked else max(1, top * FULL_RANK_MAX // matches)
    while True:
        floor = max(0, top - span)
        pool = [
            r
            for (r,) in db.execute(
                f"SELECT rowid FROM docs_terms WHERE docs_terms MATCH ? AND rowid > ? ORDER BY {order} LIMIT ?",
                (match, floor, POOL * count),
            )
        ]
        if len(pool) >= POOL * count or floor == 0:
            break
        span *= 4
    # NOT INDEXED: the pool's rowids are looked up; an index on a policy column (status) would scan every note
    passed = {
        r
        for (r,) in db.execute(
            f"SELECT d.rowid FROM docs d NOT INDEXED WHERE d.rowid IN ({','.join('?' * len(pool))}) AND {where}",
            (*pool, *params),
        )
    }
    if len(passed) >= count or len(pool) < POOL * count:
        return [r for r in pool if r in passed][:count]
    while True:
        rows = db.execute(
            "SELECT d.rowid FROM docs_terms JOIN docs d ON d.rowid = docs_terms.rowid WHERE docs_terms MATCH ? AND "
            f"docs_terms.rowid > ? AND {where}"
            f" ORDER BY {order} LIMIT ?",
            (match, floor, *params, count),
        ).fetchall()
        if len(rows) >= count or floor == 0:
            return [r for (r,) in rows]
        span *= 4
        floor = max(0, top - span)


class Stats:
    """What BM25F needs from the whole index: document count, field averages, document frequencies."""

    def __init__(self, docs: int, averages: tuple[float, ...], df: dict[str, int], top: int = 0) -> None:
        self.docs, self.averages, self.df, self.top = docs, averages, df, top  # top: the highest rowid

    @classmethod
    def read(cls, db: sqlite3.Connection, terms: list[str]) -> Stats:
        """The totals and each term's document frequency: counted up to `DF_EXACT`, past that the
        term's share of the newest `DF_EXACT` rowids times the document count (bounded work)."""
        docs, *totals = db.execute("SELECT docs, title, tags, body FROM terms_stats").fetchone() or (0, 0, 0, 0)
        top = db.execute("SELECT max(rowid) FROM docs").fetchone()[0] or 0
        df = {}
        for term in terms:
            match = _match([term])
            n = db.execute(
                "SELECT count(*) FROM (SELECT 1 FROM docs_terms WHERE docs_terms MATCH ? LIMIT ?)",
                (match, DF_EXACT + 1),
            ).fetchone()[0]
            if n > DF_EXACT:  # rowids are dense but for removed documents: the share is a slight underestimate at most
                newest = db.execute(
                    "SELECT count(*) FROM docs_terms WHERE docs_terms MATCH ? AND rowid > ?", (match, top - DF_EXACT)
                ).fetchone()[0]
                n = min(docs, max(n, round(newest * docs / DF_EXACT)))
            df[term] = n
        return cls(docs, tuple(total / docs if docs else 0.0 for total in totals), df, top)

    def selective(self, terms: list[str]) -> list[str]:
        """The terms that make a candidate: a document holding only common terms is a weak match."""
        return [t for t in terms if self.df[t] <= max(self.docs * COMMON, CANDIDATES)] or terms

    def bm25f(self, query: Query, fields: tuple[str, str, str]) -> float:
        """BM25F of analysed (title, tags, body): per-field length-normalised, weighted term counts,
        then saturated; a split word scores as its parts or as its whole, whichever is more."""
        weighted = dict.fromkeys(query.terms, 0.0)
        for text, weight, b, average in zip(fields, WEIGHTS, LENGTH_NORM, self.averages, strict=True):
            tokens = text.split()
            norm = weight / (1 - b + b * len(tokens) / average) if average else weight
            for term in query.terms:
                weighted[term] += _count(tokens, term) * norm
        score = {term: self._idf(term) * tf / (K1 + tf) for term, tf in weighted.items() if tf}
        split = [max(score.pop(w, 0.0), sum(score.pop(p, 0.0) for p in parts)) for w, parts in query.wholes.items()]
        return sum(split) + sum(score.values())

    def _idf(self, term: str) -> float:
        return math.log(1 + (self.docs - self.df[term] + 0.5) / (self.df[term] + 0.5))


def _excerpts(db: sqlite3.Connection, words: str, rowids: list[int]) -> dict[int, str]:
    """rowid -> the raw text around the query's `words` in that document (FTS5's snippet), else
    the start of its body. The index keeps each document's text in a plain table (a second
    full-text index of it would cost every build a tokenizer pass over every body); the snippet is
    made in a table in memory holding only these documents: FTS5 scores a snippet on its own
    document's text alone, so it is the one a full index of them all would give."""
    texts = list(rows_in(db, "SELECT doc, title, tags, body FROM docs_text WHERE doc IN ({marks})", rowids))
    scratch = sqlite3.connect(":memory:")
    try:
        scratch.execute(
            f"CREATE VIRTUAL TABLE excerpts USING fts5(title, tags, body, tokenize = '{EXCERPT_TOKENIZER}')"
        )
        scratch.executemany("INSERT INTO excerpts(rowid, title, tags, body) VALUES(?,?,?,?)", texts)
        found = dict(
            scratch.execute(
                "SELECT rowid, snippet(excerpts, -1, ?, ?, '…', 24) FROM excerpts WHERE excerpts MATCH ?",
                (MARK, MARK, words),
            )
        )
    finally:
        scratch.close()
    return {doc: found.get(doc, body[:160]) for doc, _, _, body in texts}
