"""Retrieval quality of `jacked memory search` on real project history, against two FTS5 baselines,
with paired bootstrap intervals.

    python bench/eval_retrieval.py [--eval-dir ../shared/eval] [--corpus werkzeug-eval] [--no-cli]
                                   [--save FILE] [--compare FILE]

For each corpus (a folder with notes.jsonl and queries.jsonl, see the eval data's README):
builds one vault through the real write path (every note an active `decision`, origin
post-merge, one group per corpus), adds must-not decoys for the relevant notes of every
fourth query (a rejected copy, a superseded copy and an active copy for `codex` only), checks
with `doctor` that the vault holds no file the product refuses or hides (else the run fails:
a decoy that trips a rule measures the rule, not the ranker), then runs every query as
`claude` under two protocols: in its own group (`group`), and over the whole vault (`vault`:
an agent's default search covers every group, so the other corpus is a distractor). Each
runs in-process (`search.service.search`) and, unless --no-cli, through the CLI (one process
per query, as agents call it).

Prints MRR@10, nDCG@10 (binary gains), recall@5, recall@10, must-not hits and p50/p95 ms per
query, per corpus and pooled over all queries, beside two baselines of the same run over the
same notes (no decoys): `fts5`, an SQLite FTS5 table (`porter unicode61`) over title and body,
the query's word tokens OR-ed, ranked by bm25() with title weight 5 and body 1; and
`fts5 stop`, the same with the product's stopwords dropped from the query. Every difference
against a baseline gets a paired bootstrap 95% interval (resampling the queries); decide on
the pooled row. --save FILE keeps the product's per-query figures; --compare FILE prints the
paired intervals of this run against a saved one (a change measured before and after).

Plain script, no pytest. Only the figures it prints are claims.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
K = 10
DECOY_EVERY = 4  # decoys for the relevant notes of every 4th query
PROTOCOLS = {"group": "each query in its own group", "vault": "each query over the whole vault"}
BASELINES = ("fts5", "fts5 stop")
RESAMPLES = 10_000
SEED = 23
POOLED = "pooled"


@dataclass
class Corpus:
    name: str
    group: str
    notes: list[dict]
    queries: list[dict]
    ids: list[str] = field(default_factory=list)  # note id per entry of `notes`
    decoys: set[str] = field(default_factory=set)


@dataclass
class Run:
    """Ranked note ids and wall times of one system over one corpus's queries."""

    ranked: list[list[str]] = field(default_factory=list)
    ms: list[float] = field(default_factory=list)


def load(folder: Path) -> Corpus:
    notes = [json.loads(line) for line in (folder / "notes.jsonl").read_text().splitlines() if line.strip()]
    queries = [json.loads(line) for line in (folder / "queries.jsonl").read_text().splitlines() if line.strip()]
    return Corpus(folder.name, folder.name.removesuffix("-eval"), notes, queries)


# -- the vault, through the real write path ----------------------------------------------------


def build_vault(path: Path, corpora: list[Corpus]):
    """A vault holding every corpus (one group each) plus decoys; returns its Context."""
    from jacked_vault.context import Context
    from jacked_vault.document.timestamps import format_timestamp
    from jacked_vault.write.create import build_note, create_note
    from jacked_vault.write.init import init_vault
    from jacked_vault.write.transitions import transition

    init_vault(path / "vault")
    (path / "work").mkdir()
    ctx = Context.create(vault=str(path / "vault"), cwd=path / "work", harness="claude")
    start = datetime.now(UTC)

    def add(corpus: Corpus, n: int, title: str, body: str, targets: list[str] | None = None) -> str:
        when = format_timestamp(start - timedelta(seconds=n + 1))  # notes.jsonl is newest first
        note = build_note(
            title=title, body=body, kind="decision", scope="group", group=corpus.group,
            repos=[f"github.com/pallets/{corpus.group}"],
            source_harness="claude", origin="post-merge", target_harnesses=targets, now=when,
        )  # fmt: skip
        return create_note(ctx.vault, note).note.id

    for corpus in corpora:
        t0 = time.perf_counter()
        corpus.ids = [add(corpus, n, note["title"], note["body"]) for n, note in enumerate(corpus.notes)]
        chosen = {pr for q in corpus.queries[::DECOY_EVERY] for pr in q["relevant"]}
        for n, note in enumerate(corpus.notes):
            if note["pr"] not in chosen:
                continue
            rejected = add(corpus, n, f"Draft: {note['title']}", note["body"])
            transition(ctx, rejected, "reject", reason="eval decoy: rejected copy")
            superseded = add(corpus, n, f"Earlier: {note['title']}", note["body"])
            transition(ctx, superseded, "supersede", by=corpus.ids[n])
            other_harness = add(corpus, n, note["title"], note["body"], targets=["codex"])
            corpus.decoys |= {rejected, superseded, other_harness}
        print(
            f"{corpus.name}: {len(corpus.notes)} notes + {len(corpus.decoys)} decoys added in "
            f"{time.perf_counter() - t0:.1f} s",
            flush=True,
        )
    return ctx


def check_vault(ctx) -> None:
    """Exit (status 1, naming the files) when doctor finds a file the product refuses or hides: a broken eval."""
    from jacked_vault.doctor import doctor

    report = doctor(ctx)
    tombstoned = [f for f in report.invalid_files if f.get("code") == "TOMBSTONED"]
    invalid = [f for f in report.invalid_files if f.get("code") != "TOMBSTONED"]
    print(f"doctor: {report.memory_count} notes indexed, {len(invalid)} invalid, {len(tombstoned)} tombstoned")
    if invalid or tombstoned:
        for f in (invalid + tombstoned)[:10]:
            print(f"  {f['path']}: {f.get('code')} {f.get('problem', '')}", file=sys.stderr)
        sys.exit(
            "broken eval: the vault holds files the product refuses or hides (above); a decoy must not trip a rule"
        )


def _filters(corpus: Corpus, protocol: str, limit: int = K):
    from jacked_vault.search.query import Filters

    return Filters(group=corpus.group if protocol == "group" else None, target="claude", limit=limit)


def run_in_process(ctx, corpus: Corpus, protocol: str = "group") -> Run:
    from jacked_vault.search.service import search

    run = Run()
    for q in corpus.queries:
        t0 = time.perf_counter()
        result = search(ctx, q["query"], _filters(corpus, protocol))
        run.ms.append((time.perf_counter() - t0) * 1000)
        run.ranked.append([d.id for d in result.results])
    return run


def run_cli(ctx, corpus: Corpus, protocol: str = "group") -> Run:
    run = Run()
    group = ["--group", corpus.group] if protocol == "group" else []
    for q in corpus.queries:
        cmd = [sys.executable, "-m", "jacked_vault.cli.main", "memory", "search", "--vault", str(ctx.vault.root),
               *group,
               "--json", "--limit", str(K), "--target", "claude", "--", q["query"]]  # fmt: skip
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, cwd=ctx.cwd, capture_output=True, text=True, check=True)
        run.ms.append((time.perf_counter() - t0) * 1000)
        run.ranked.append([hit["id"] for hit in json.loads(proc.stdout)["results"]])
    return run


# -- the baselines -----------------------------------------------------------------------------


class Baseline:
    """FTS5 (`porter unicode61`) over the title and body of every corpus note (no decoys), one
    group column; the query's word tokens OR-ed (`stop`: the product's stopwords dropped,
    unless nothing else is left), ranked by bm25() with title weight 5 and body 1."""

    def __init__(self, corpora: list[Corpus]) -> None:
        self.db = sqlite3.connect(":memory:")
        self.db.execute(
            "CREATE VIRTUAL TABLE t USING fts5(title, body, grp UNINDEXED, id UNINDEXED, tokenize = 'porter unicode61')"
        )
        rows = [(note["title"], note["body"], c.group, c.ids[n]) for c in corpora for n, note in enumerate(c.notes)]
        self.db.executemany("INSERT INTO t(title, body, grp, id) VALUES(?,?,?,?)", rows)

    def run(self, corpus: Corpus, protocol: str, stop: bool) -> Run:
        from jacked_vault.search.ranking import STOPWORDS

        run = Run()
        for q in corpus.queries:
            t0 = time.perf_counter()
            words = re.findall(r"\w+", q["query"])
            if stop:
                words = [w for w in words if w.lower() not in STOPWORDS] or words
            match = " OR ".join(f'"{word}"' for word in words)
            where, params = (
                ("t MATCH ? AND grp = ?", [match, corpus.group]) if protocol == "group" else ("t MATCH ?", [match])
            )
            rows = (
                self.db.execute(
                    f"SELECT id FROM t WHERE {where} ORDER BY bm25(t, 5.0, 1.0) LIMIT ?", (*params, K)
                ).fetchall()
                if match
                else []
            )
            run.ms.append((time.perf_counter() - t0) * 1000)
            run.ranked.append([i for (i,) in rows])
        return run


# -- figures -----------------------------------------------------------------------------------


def per_query(ranked: list, relevant: set, decoys: set) -> tuple[float, float, float, float, int]:
    """(reciprocal rank, nDCG, recall@5, recall@10, decoys) of one ranked list, all at 10."""
    top = ranked[:K]
    rr = next((1 / (i + 1) for i, key in enumerate(top) if key in relevant), 0.0)
    dcg = sum(1 / math.log2(i + 2) for i, key in enumerate(top) if key in relevant)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(relevant), K)))
    return (
        rr,
        dcg / ideal,
        len(relevant & set(ranked[:5])) / len(relevant),
        len(relevant & set(top)) / len(relevant),
        len(decoys & set(top)),
    )


def relevant_ids(corpus: Corpus, query: dict) -> set[str]:
    """Every note carrying one of the query's PRs (a few PR numbers repeat in old history)."""
    return {corpus.ids[n] for n, note in enumerate(corpus.notes) if note["pr"] in query["relevant"]}


def score(corpus: Corpus, ranked_lists: list[list[str]], decoys: set[str]) -> list[tuple]:
    return [
        per_query(ranked, relevant_ids(corpus, q), decoys)
        for q, ranked in zip(corpus.queries, ranked_lists, strict=True)
    ]


def figures(rows: list[tuple], ms: list[float] | None = None) -> str:
    mrr, ndcg, r5, r10 = (statistics.fmean(col) for col in list(zip(*rows, strict=True))[:4])
    must_not = sum(row[4] for row in rows)
    timing = ""
    if ms:
        p95 = statistics.quantiles(ms, n=20)[-1] if len(ms) > 1 else ms[0]
        timing = f"  {statistics.median(ms):7.1f}  {p95:7.1f}"
    return f"{len(rows):>7}  {mrr:6.3f}  {ndcg:7.3f}  {r5:5.3f}  {r10:5.3f}  {must_not:>8}{timing}"


HEADER = "queries  MRR@10  nDCG@10    R@5   R@10  must-not   p50 ms   p95 ms"


def interval(
    before: list[float], after: list[float], resamples: int = RESAMPLES, seed: int = SEED
) -> tuple[float, float, float]:
    """(mean difference, 2.5th, 97.5th percentile) of `after - before`, paired by query, by
    resampling the queries with replacement (percentile bootstrap, fixed seed)."""
    diffs = [b - a for a, b in zip(before, after, strict=True)]
    rng = random.Random(seed)
    means = sorted(math.fsum(rng.choices(diffs, k=len(diffs))) / len(diffs) for _ in range(resamples))
    return statistics.fmean(diffs), means[int(0.025 * resamples)], means[int(0.975 * resamples) - 1]


def fmt_interval(before: list[tuple], after: list[tuple], metric: int) -> str:
    mean, lo, hi = interval([r[metric] for r in before], [r[metric] for r in after])
    return f"{mean:+.3f} [{lo:+.3f}, {hi:+.3f}]"


def pooled(by_corpus: dict[str, list[tuple]], names: list[str]) -> list[tuple]:
    return [row for name in names for row in by_corpus[name]]


def print_intervals(title: str, pairs: list[tuple[str, dict, dict]], names: list[str]) -> None:
    """For each (label, before rows by corpus, after rows by corpus): MRR@10 and nDCG@10
    differences with their 95% intervals, per corpus and pooled."""
    print(f"\n{title}")
    print(f"  {'comparison':<34}{'corpus':<16}{'MRR@10 diff [95% interval]':<30}nDCG@10 diff [95% interval]")
    for label, before, after in pairs:
        for name in [*names, POOLED]:
            b, a = (pooled(x, names) if name == POOLED else x[name] for x in (before, after))
            print(f"  {label:<34}{name:<16}{fmt_interval(b, a, 0):<30}{fmt_interval(b, a, 1)}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--eval-dir",
        type=Path,
        default=ROOT.parent / "shared" / "eval",
        help="folder of corpora (default ../shared/eval)",
    )
    parser.add_argument("--corpus", action="append", help="only this corpus folder name (repeatable)")
    parser.add_argument("--no-cli", action="store_true", help="skip the per-process CLI runs (slow)")
    parser.add_argument("--save", type=Path, help="write the product's per-query figures to this JSON file")
    parser.add_argument(
        "--compare", type=Path, help="a file written by --save: paired intervals of this run against it"
    )
    args = parser.parse_args()

    folders = sorted(p for p in args.eval_dir.iterdir() if (p / "queries.jsonl").is_file())
    corpora = [load(p) for p in folders if not args.corpus or p.name in args.corpus]
    if not corpora:
        sys.exit(f"no corpus found in {args.eval_dir}")
    saved = json.loads(args.compare.read_text()) if args.compare else None
    names = [c.name for c in corpora]
    import jacked_vault

    print(f"library under test: {Path(jacked_vault.__file__).parent}; eval data: {args.eval_dir}")
    systems = [*BASELINES, "jacked"] + ([] if args.no_cli else ["jacked CLI"])
    # protocol -> system -> corpus -> (per-query rows, ms)
    results: dict[str, dict[str, dict[str, tuple[list, list]]]] = {p: {s: {} for s in systems} for p in PROTOCOLS}
    with tempfile.TemporaryDirectory(prefix="jacked-eval-") as tmp:
        ctx = build_vault(Path(tmp), corpora)
        check_vault(ctx)
        baseline = Baseline(corpora)
        every_decoy = set().union(*(c.decoys for c in corpora))
        for protocol in PROTOCOLS:
            for corpus in corpora:
                runs = {
                    "fts5": baseline.run(corpus, protocol, stop=False),
                    "fts5 stop": baseline.run(corpus, protocol, stop=True),
                }
                runs["jacked"] = run_in_process(ctx, corpus, protocol)
                if not args.no_cli:
                    runs["jacked CLI"] = run_cli(ctx, corpus, protocol)
                    if runs["jacked CLI"].ranked != runs["jacked"].ranked:
                        print(f"warning: {protocol} {corpus.name}: CLI and in-process rankings differ")
                decoys = corpus.decoys if protocol == "group" else every_decoy
                for system, run in runs.items():
                    results[protocol][system][corpus.name] = (score(corpus, run.ranked, decoys), run.ms)

    for protocol, about in PROTOCOLS.items():
        print(f"\nprotocol {protocol}: {about}")
        print(f"{'corpus':<16}{'system':<12}  {HEADER}")
        for name in [*names, POOLED]:
            for system in systems:
                by = results[protocol][system]
                rows, ms = (
                    (pooled({n: r for n, (r, _) in by.items()}, names), [m for _, mss in by.values() for m in mss])
                    if name == POOLED
                    else by[name]
                )
                print(f"{name:<16}{system:<12}{figures(rows, ms)}")
    print("\nmust-not: decoys (rejected, superseded, other-harness copies) in a top 10; the baselines index no decoys")

    rows_of = {p: {s: {n: r for n, (r, _) in by.items()} for s, by in sys_.items()} for p, sys_ in results.items()}
    for protocol in PROTOCOLS:
        pairs = [(f"jacked - {b}", rows_of[protocol][b], rows_of[protocol]["jacked"]) for b in BASELINES]
        pairs.append(("fts5 stop - fts5", rows_of[protocol]["fts5"], rows_of[protocol]["fts5 stop"]))
        print_intervals(
            f"protocol {protocol}: paired bootstrap 95% intervals ({RESAMPLES:,} resamples of the queries)",
            pairs,
            names,
        )
    if saved is not None:
        for protocol in PROTOCOLS:
            before = {n: [tuple(r) for r in saved["rows"][protocol][n]] for n in names}
            print_intervals(
                f"protocol {protocol}: this run against {args.compare} ({saved['label']})",
                [("jacked - saved", before, rows_of[protocol]["jacked"])],
                names,
            )
    if args.save:
        label = subprocess.run(
            ["git", "-C", str(ROOT), "describe", "--always", "--dirty"], capture_output=True, text=True, check=False
        ).stdout.strip()
        args.save.write_text(json.dumps({"label": label, "rows": {p: rows_of[p]["jacked"] for p in PROTOCOLS}}))
        print(f"\nsaved the per-query figures of jacked ({label}) to {args.save}")


if __name__ == "__main__":
    main()
