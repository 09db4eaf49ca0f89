"""Retrieval quality of `jacked memory search` on real project history, against a plain baseline.

    python bench/eval_retrieval.py [--eval-dir ../shared/eval] [--corpus werkzeug-eval] [--no-cli]

For each corpus (a folder with notes.jsonl and queries.jsonl, see the eval data's README):
builds one vault through the real write path (every note an active `decision`, origin
post-merge, one group per corpus), adds must-not decoys for the relevant notes of every
fourth query (a rejected copy, a superseded copy and an active copy for `codex` only), then
runs every query in its own group as `claude` in-process (`search.service.search`) and, unless
--no-cli, through the CLI (one process per query, as agents call it). Prints MRR@10, nDCG@10
(binary gains), recall@5, recall@10, must-not hits and p50/p95 ms per query per corpus and
micro-averaged over all queries, beside the plain baseline of the same run: an in-memory
SQLite FTS5 table (`porter unicode61`) over title and body, the query's word tokens OR-ed,
ranked by bm25() with title weight 5 and body 1.

Plain script, no pytest. Only the figures it prints are claims.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
K = 10
DECOY_EVERY = 4  # decoys for the relevant notes of every 4th query


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
    """Ranked note keys and wall times of one system over one corpus's queries."""

    ranked: list[list] = field(default_factory=list)
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
    from jacked_vault.write.transitions import transition
    from jacked_vault.write.create import build_note, create_note
    from jacked_vault.write.init import init_vault

    init_vault(path / "vault")
    (path / "work").mkdir()
    ctx = Context.create(vault=str(path / "vault"), cwd=path / "work", harness="claude")
    start = datetime.now(timezone.utc)

    def add(corpus: Corpus, n: int, title: str, body: str, targets: list[str] | None = None) -> str:
        when = format_timestamp(start - timedelta(seconds=n + 1))  # notes.jsonl is newest first
        note = build_note(
            title=title, body=body, kind="decision", scope="group", group=corpus.group, repos=[f"github.com/pallets/{corpus.group}"],
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
        print(f"{corpus.name}: {len(corpus.notes)} notes + {len(corpus.decoys)} decoys added in {time.perf_counter() - t0:.1f} s", flush=True)
    return ctx


def run_in_process(ctx, corpus: Corpus) -> Run:
    from jacked_vault.search.query import Filters
    from jacked_vault.search.service import search

    run = Run()
    for q in corpus.queries:
        t0 = time.perf_counter()
        result = search(ctx, q["query"], Filters(group=corpus.group, target="claude", limit=K))
        run.ms.append((time.perf_counter() - t0) * 1000)
        run.ranked.append([d.id for d in result.results])
    return run


def run_cli(ctx, corpus: Corpus) -> Run:
    run = Run()
    vault = str(ctx.vault.root)
    for q in corpus.queries:
        cmd = [sys.executable, "-m", "jacked_vault.cli.main", "memory", "search", "--vault", vault, "--group", corpus.group,
               "--json", "--limit", str(K), "--target", "claude", "--", q["query"]]  # fmt: skip
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, cwd=ctx.cwd, capture_output=True, text=True, check=True)
        run.ms.append((time.perf_counter() - t0) * 1000)
        run.ranked.append([hit["id"] for hit in json.loads(proc.stdout)["results"]])
    return run


# -- the plain baseline ------------------------------------------------------------------------


def run_baseline(corpus: Corpus) -> Run:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(title, body, tokenize = 'porter unicode61')")
    db.executemany("INSERT INTO t(rowid, title, body) VALUES(?,?,?)", [(n, note["title"], note["body"]) for n, note in enumerate(corpus.notes)])
    run = Run()
    for q in corpus.queries:
        t0 = time.perf_counter()
        match = " OR ".join(f'"{word}"' for word in re.findall(r"\w+", q["query"]))
        rows = db.execute("SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t, 5.0, 1.0) LIMIT ?", (match, K)).fetchall() if match else []
        run.ms.append((time.perf_counter() - t0) * 1000)
        run.ranked.append([rowid for (rowid,) in rows])
    return run


# -- figures -----------------------------------------------------------------------------------


def per_query(ranked: list, relevant: set, decoys: set) -> tuple[float, float, float, float, int]:
    """(reciprocal rank, nDCG, recall@5, recall@10, decoys) of one ranked list, all at 10."""
    top = ranked[:K]
    rr = next((1 / (i + 1) for i, key in enumerate(top) if key in relevant), 0.0)
    dcg = sum(1 / math.log2(i + 2) for i, key in enumerate(top) if key in relevant)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(relevant), K)))
    return rr, dcg / ideal, len(relevant & set(ranked[:5])) / len(relevant), len(relevant & set(top)) / len(relevant), len(decoys & set(top))


def relevant_keys(corpus: Corpus, query: dict, by_id: bool) -> set:
    """Every note carrying one of the query's PRs (a few PR numbers repeat in old history)."""
    return {corpus.ids[n] if by_id else n for n, note in enumerate(corpus.notes) if note["pr"] in query["relevant"]}


def figures(rows: list[tuple], ms: list[float]) -> str:
    mrr, ndcg, r5, r10 = (statistics.fmean(col) for col in list(zip(*rows))[:4])
    must_not = sum(row[4] for row in rows)
    p50, p95 = statistics.median(ms), statistics.quantiles(ms, n=20)[-1] if len(ms) > 1 else ms[0]
    return f"{len(rows):>7}  {mrr:6.3f}  {ndcg:7.3f}  {r5:5.3f}  {r10:5.3f}  {must_not:>8}  {p50:7.1f}  {p95:7.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--eval-dir", type=Path, default=ROOT.parent / "shared" / "eval", help="folder of corpora (default ../shared/eval)")
    parser.add_argument("--corpus", action="append", help="only this corpus folder name (repeatable)")
    parser.add_argument("--no-cli", action="store_true", help="skip the per-process CLI runs (slow)")
    args = parser.parse_args()

    folders = sorted(p for p in args.eval_dir.iterdir() if (p / "queries.jsonl").is_file())
    corpora = [load(p) for p in folders if not args.corpus or p.name in args.corpus]
    if not corpora:
        sys.exit(f"no corpus found in {args.eval_dir}")
    import jacked_vault

    print(f"library under test: {Path(jacked_vault.__file__).parent}; eval data: {args.eval_dir}")
    systems = ["baseline", "jacked"] + ([] if args.no_cli else ["jacked CLI"])
    results: dict[str, dict[str, tuple[list, list]]] = {s: {} for s in systems}
    with tempfile.TemporaryDirectory(prefix="jacked-eval-") as tmp:
        ctx = build_vault(Path(tmp), corpora)
        for corpus in corpora:
            runs = {"baseline": run_baseline(corpus), "jacked": run_in_process(ctx, corpus)}
            if not args.no_cli:
                runs["jacked CLI"] = run_cli(ctx, corpus)
            for system, run in runs.items():
                by_id = system != "baseline"
                rows = [
                    per_query(ranked, relevant_keys(corpus, q, by_id), corpus.decoys if by_id else set())
                    for q, ranked in zip(corpus.queries, run.ranked)
                ]
                results[system][corpus.name] = (rows, run.ms)
            if not args.no_cli and runs["jacked CLI"].ranked != runs["jacked"].ranked:
                print(f"warning: {corpus.name}: CLI and in-process rankings differ")

    print(f"\n{'corpus':<16}{'system':<12}  queries  MRR@10  nDCG@10    R@5   R@10  must-not   p50 ms   p95 ms")
    for name in [c.name for c in corpora] + ["all"]:
        for system in systems:
            if name == "all":
                rows = [r for rs, _ in results[system].values() for r in rs]
                ms = [m for _, mss in results[system].values() for m in mss]
            else:
                rows, ms = results[system][name]
            print(f"{name:<16}{system:<12}{figures(rows, ms)}")
    print("\nmust-not: decoys (rejected, superseded, other-harness copies) in a top 10; the baseline has none to find")


if __name__ == "__main__":
    main()
