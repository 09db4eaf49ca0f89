"""Core performance figures of jacked-vault at several vault sizes.

    python bench/bench_core.py [--sizes 1000,10000,50000] [--repeat N] [--keep DIR]
                               [--profile-add [--profile-sizes 10000,50000]] [--json FILE] [--pack] [--groups 50]

For each size N: generate a vault of N committed notes (fast path, see bench/_vaultgen.py),
warm its search index, then measure in-process add, CLI add, a `git add && git commit`
baseline, in-process search, CLI search, a full reindex and a full-scan (parse every file)
search; `jacked --help` is measured once. A table with the budgets and PASS/MISS follows,
then how each figure grows with N. See bench/README.md for what each figure means.

Plain script, no pytest. Only the figures it prints are claims.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import itertools
import json
import math
import os
import pstats
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

try:  # run as `python bench/bench_core.py`, this file's folder is on sys.path
    from _vaultgen import WORDS, generate_vault, git_cli, note_text, write_group_index_mds
except ImportError:  # imported as bench.bench_core
    from bench._vaultgen import WORDS, generate_vault, git_cli, note_text, write_group_index_mds
from jacked_vault.context import Context
from jacked_vault.document import parse_note, render_note, slugify_title
from jacked_vault.notes import AddRequest, add
from jacked_vault.search.index import SearchIndex
from jacked_vault.search.query import Filters
from jacked_vault.search.service import search
from jacked_vault.write.create import build_note

HARNESS = "bench"

# (figure key, size it applies to, limit, unit, comparison) — from the performance issue.
BUDGETS = [
    ("add_med_ms", 10_000, 20.0, "ms", "<="),
    ("add_med_ms", 50_000, 40.0, "ms", "<="),
    ("git_ratio", 10_000, 3.0, "x", ">="),
    ("search_med_ms", 10_000, 10.0, "ms", "<="),
    ("cli_search_ms", 10_000, 300.0, "ms", "<="),
    ("reindex_s", 10_000, 5.0, "s", "<="),
]
HELP_BUDGET_MS = 250.0

COLUMNS = [
    # key, header, format
    ("gen_s", "gen s", "{:.1f}"),
    ("index_build_s", "1st idx s", "{:.1f}"),
    ("add_med_ms", "add med ms", "{:.1f}"),
    ("add_p90_ms", "add p90 ms", "{:.1f}"),
    ("add_cpu_ms", "add cpu ms", "{:.1f}"),
    ("cli_add_ms", "cli add ms", "{:.0f}"),
    ("git_ms", "git a+c ms", "{:.1f}"),
    ("git_ratio", "git/add x", "{:.2f}"),
    ("search_med_ms", "search ms", "{:.2f}"),
    ("search_p90_ms", "srch p90", "{:.2f}"),
    ("search_cpu_ms", "srch cpu", "{:.2f}"),
    ("cli_search_ms", "cli srch ms", "{:.0f}"),
    ("reindex_s", "reindex s", "{:.2f}"),
    ("scan_s", "scan s", "{:.2f}"),
    ("scan_ratio", "scan/srch x", "{:.0f}"),
]


# -- helpers ----------------------------------------------------------------------------------


def ms(seconds: float) -> float:
    return seconds * 1000.0


def median(xs: list[float]) -> float:
    return statistics.median(xs)


def p90(xs: list[float]) -> float:
    ordered = sorted(xs)
    return ordered[max(0, math.ceil(0.9 * len(ordered)) - 1)]


def log(msg: str) -> None:
    print(msg, flush=True)


def load() -> str:
    """The 1/5/15-minute load average: other processes on the machine skew wall-clock figures."""
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def source_description(package_dir: Path) -> str:
    """Where jacked_vault was imported from and, for a git checkout, its HEAD and dirty files."""
    top = package_dir.parent
    text = str(package_dir)
    if (top / ".git").exists():
        head = subprocess.run(
            ["git", "-C", str(top), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(top), "status", "--porcelain", "--", "jacked_vault"], capture_output=True, text=True
        ).stdout.splitlines()
        text += f" (git HEAD {head}, {len(dirty)} changed/untracked path(s) under jacked_vault/)"
    elif (top / "PROVENANCE").is_file():
        text += f" ({(top / 'PROVENANCE').read_text().splitlines()[0]})"
    return text


def jacked_exe() -> str:
    here = Path(sys.executable).parent / "jacked"
    if here.exists():
        return str(here)
    found = shutil.which("jacked")
    if not found:
        sys.exit("bench: the `jacked` console script is not on PATH (pip install -e .)")
    return found


def cli_env() -> dict[str, str]:
    env = dict(os.environ)
    env["JACKED_MEMORY_HARNESS"] = HARNESS
    env.pop("JACKED_VAULT_DIR", None)
    return env


def wall(cmd: list[str], cwd: Path) -> tuple[float, subprocess.CompletedProcess]:
    t = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=cli_env(), capture_output=True, text=True)
    elapsed = time.perf_counter() - t
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:4])}… exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
    return elapsed, proc


def new_ctx(vault: Path, work: Path) -> Context:
    """A fresh Context per operation, as one CLI/hook invocation builds (config loaded again)."""
    return Context.create(vault=str(vault), cwd=work, harness=HARNESS)


class AddSource:
    """Seeded, distinct add requests (group and kind vary, like real use)."""

    def __init__(self, seed: int, groups: int) -> None:
        self.rng = random.Random(seed)
        self.groups = groups
        self.n = 0

    def request(self) -> AddRequest:
        self.n += 1
        text = note_text(self.rng)
        return AddRequest(
            title=f"{text.title} b{self.n}",
            body=text.body,
            kind=text.kind,
            group=f"g{self.rng.randrange(self.groups)}",
            tags=text.tags,
        )


def queries(seed: int, count: int, max_words: int = 3) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.sample(WORDS, rng.randint(1, max_words))) for _ in range(count)]


# -- the figures ------------------------------------------------------------------------------


def bench_inprocess_add(vault: Path, work: Path, source: AddSource, repeat: int) -> tuple[list[float], list[float]]:
    """(wall seconds, CPU seconds of this process) per add."""
    add(new_ctx(vault, work), source.request())  # warm-up: first-use imports, compiled regexes
    times, cpu = [], []
    for _ in range(repeat):
        req = source.request()
        c, t = time.process_time(), time.perf_counter()
        add(new_ctx(vault, work), req)
        times.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return times, cpu


def bench_cli_add(vault: Path, work: Path, source: AddSource, repeat: int) -> list[float]:
    exe = jacked_exe()
    times = []
    for _ in range(repeat):
        req = source.request()
        cmd = [
            exe,
            "memory",
            "add",
            "--vault",
            str(vault),
            "--group",
            req.group or "g0",
            "--kind",
            req.kind,
            "--title",
            req.title,
            "--body",
            req.body,
        ]
        for tag in req.tags:
            cmd += ["--tag", tag]
        elapsed, _ = wall(cmd, work)
        times.append(elapsed)
    return times


def bench_git_baseline(vault: Path, source: AddSource, repeat: int) -> list[float]:
    """Write the same kind of note file, then `git add <file>` and `git commit -q -m` (2 processes)."""
    root = vault.resolve()
    times = []
    for _ in range(repeat):
        req = source.request()
        note = build_note(
            title=req.title,
            body=req.body,
            kind=req.kind,
            scope="group",
            group=req.group,
            repos=[],
            source_harness=HARNESS,
            origin="cli",
            tags=list(req.tags),
        )
        data = render_note(note)
        rel = f"groups/{req.group}/{req.kind}/{slugify_title(req.title)}.md"
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        t = time.perf_counter()
        with open(root / rel, "xb") as fh:
            fh.write(data)
        git_cli(root, "add", rel)
        git_cli(root, "commit", "-q", "-m", f"memory({req.kind}): {req.title}")
        times.append(time.perf_counter() - t)
    return times


def bench_search(vault: Path, work: Path, qs: list[str]) -> tuple[list[float], list[float], list[int]]:
    search(new_ctx(vault, work), qs[0], Filters())  # warm: catch the index up to HEAD
    times, cpu, hits = [], [], []
    for q in qs:
        c, t = time.process_time(), time.perf_counter()
        result = search(new_ctx(vault, work), q, Filters())
        times.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
        hits.append(len(result.results))
    return times, cpu, hits


def bench_cli_search(vault: Path, work: Path, words: list[str]) -> list[float]:
    exe = jacked_exe()
    return [wall([exe, "memory", "search", "--vault", str(vault), w], work)[0] for w in words]


def bench_reindex(vault: Path, work: Path) -> tuple[float, int]:
    index = SearchIndex(new_ctx(vault, work).vault)
    try:
        t = time.perf_counter()
        count = index.rebuild()
        return time.perf_counter() - t, count
    finally:
        index.close()


def full_scan_search(vault: Path, word: str) -> tuple[float, int, int]:
    """The no-index baseline: read and parse (parse_note) every note file, grep for `word`."""
    root = vault.resolve() / "groups"
    needle = word.lower()
    t = time.perf_counter()
    parsed = hits = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d != "episodic"]
        for name in filenames:
            if not name.endswith(".md") or name in ("index.md", "hot.md"):
                continue
            path = os.path.join(dirpath, name)
            with open(path, "rb") as fh:
                note = parse_note(fh.read(), source=path)
            parsed += 1
            if needle in note.title.lower() or needle in note.body.lower() or needle in note.tags:
                hits += 1
    return time.perf_counter() - t, parsed, hits


def bench_help(work: Path, repeat: int) -> list[float]:
    exe = jacked_exe()
    wall([exe, "--help"], work)  # warm the page cache / .pyc
    return [wall([exe, "--help"], work)[0] for _ in range(repeat)]


def profile_adds(vault: Path, work: Path, source: AddSource, count: int = 20, top: int = 25) -> str:
    add(new_ctx(vault, work), source.request())
    reqs = [source.request() for _ in range(count)]
    prof = cProfile.Profile()
    t = time.perf_counter()
    prof.enable()
    for req in reqs:
        add(new_ctx(vault, work), req)
    prof.disable()
    elapsed = time.perf_counter() - t
    out = io.StringIO()
    out.write(
        f"{count} in-process adds under cProfile: {elapsed:.3f} s total ({ms(elapsed) / count:.1f} ms/add incl. "
        "profiler overhead)\n"
    )
    stats = pstats.Stats(prof, stream=out)
    stats.sort_stats("cumulative").print_stats(top)
    out.write("\n-- by own time (tottime), top 15 --\n")
    stats.sort_stats("tottime").print_stats(15)
    return out.getvalue()


# -- one size ---------------------------------------------------------------------------------


def run_size(n: int, base: Path, args: argparse.Namespace, do_profile: bool) -> tuple[dict, str | None]:
    vault = base / f"vault-{n}"
    work = base / f"work-{n}"  # not a git repo: group comes from --group
    work.mkdir(parents=True, exist_ok=True)
    r: dict = {"size": n}

    log(f"\n=== N = {n:,} notes === (load average {load()})")
    gen = generate_vault(vault, n, seed=args.seed, groups=args.groups, harness=HARNESS, pack=args.pack)
    r["gen_s"] = gen.total_s
    log(
        f"generate: {gen.total_s:.1f} s (render+write {gen.render_write_s:.1f} s, git add {gen.git_add_s:.1f} s,"
        f" git commit {gen.git_commit_s:.1f} s{f', gc {gen.pack_s:.1f} s' if args.pack else ''});"
        f" {gen.bytes_written / n:.0f} B/note, git status clean"
    )

    t = time.perf_counter()
    first = search(new_ctx(vault, work), "cache", Filters())
    r["index_build_s"] = time.perf_counter() - t
    log(
        f"first search (builds the index from HEAD): {r['index_build_s']:.2f} s, {len(first.results)} hits,"
        f" diagnostics complete={first.diagnostics.complete}"
    )

    t = time.perf_counter()
    written = write_group_index_mds(vault, args.groups)
    if written is None:
        log("index.md: this library version has none (skipped)")
    else:
        search(new_ctx(vault, work), "cache", Filters())  # catch the index up with that commit
        log(f"index.md for {written} groups written and committed: {time.perf_counter() - t:.1f} s")

    t = time.perf_counter()
    os.sync()  # flush the generator's and the index build's dirty pages: else their writeback
    # lands on the first adds' fsyncs and inflates them (seen: 2.5x wall vs CPU at 10k)
    log(f"os.sync() after generation: {time.perf_counter() - t:.1f} s")

    source = AddSource(args.seed + n, args.groups)
    adds, add_cpu = bench_inprocess_add(vault, work, source, args.repeat)
    r["add_med_ms"], r["add_p90_ms"] = ms(median(adds)), ms(p90(adds))
    r["add_min_ms"], r["add_max_ms"] = ms(min(adds)), ms(max(adds))
    r["add_cpu_ms"] = ms(median(add_cpu))
    log(
        f"in-process add x{len(adds)}: median {r['add_med_ms']:.1f} ms, p90 {r['add_p90_ms']:.1f} ms"
        f" (min {r['add_min_ms']:.1f}, max {r['add_max_ms']:.1f}); median CPU time {r['add_cpu_ms']:.1f} ms"
    )

    cli_adds = bench_cli_add(vault, work, source, args.cli_repeat)
    r["cli_add_ms"] = ms(median(cli_adds))
    log(
        f"CLI add x{len(cli_adds)}: median {r['cli_add_ms']:.0f} ms wall (min {ms(min(cli_adds)):.0f}, max "
        f"{ms(max(cli_adds)):.0f})"
    )

    base_times = bench_git_baseline(vault, source, args.cli_repeat)
    r["git_ms"] = ms(median(base_times))
    r["git_ratio"] = r["git_ms"] / r["add_med_ms"]
    log(
        f"baseline write + `git add` + `git commit` x{len(base_times)}: median {r['git_ms']:.1f} ms"
        f" -> {r['git_ratio']:.2f}x the in-process add"
    )

    qs = queries(args.seed + 7 * n, args.search_repeat)
    s_times, s_cpu, hits = bench_search(vault, work, qs)
    r["search_med_ms"], r["search_p90_ms"] = ms(median(s_times)), ms(p90(s_times))
    r["search_cpu_ms"] = ms(median(s_cpu))
    log(
        f"in-process search x{len(qs)} (1-3 words): median {r['search_med_ms']:.2f} ms, p90 {r['search_p90_ms']:.2f} "
        "ms,"
        f" max {ms(max(s_times)):.2f} ms, median CPU {r['search_cpu_ms']:.2f} ms;"
        f" median hits {median(hits):.0f} (limit 20), {hits.count(0)} with none"
    )

    words = [q.split()[0] for q in queries(args.seed + 11 * n, args.cli_repeat, max_words=1)]
    cli_s = bench_cli_search(vault, work, words)
    r["cli_search_ms"] = ms(median(cli_s))
    log(
        f"CLI search x{len(cli_s)}: median {r['cli_search_ms']:.0f} ms wall (min {ms(min(cli_s)):.0f}, max "
        f"{ms(max(cli_s)):.0f})"
    )

    r["reindex_s"], indexed = bench_reindex(vault, work)
    expected = n + 1 + args.repeat + 2 * args.cli_repeat  # generated + warm-up + adds + CLI adds + baseline
    log(
        f"full reindex (SearchIndex.rebuild): {r['reindex_s']:.2f} s, {indexed:,} notes indexed (expected {expected:,})"
    )
    r["indexed"] = indexed

    word = words[0]
    r["scan_s"], parsed, scan_hits = full_scan_search(vault, word)
    idx_times = []
    for _ in range(5):  # the first search after the scan runs on a cold page cache: take the median
        t = time.perf_counter()
        idx_hits = search(new_ctx(vault, work), word, Filters())
        idx_times.append(time.perf_counter() - t)
    idx_s = median(idx_times)
    r["scan_idx_ms"] = ms(idx_s)
    r["scan_ratio"] = r["scan_s"] / idx_s
    log(
        f"full-scan search for {word!r}: {r['scan_s']:.2f} s ({parsed:,} files parsed, {scan_hits:,} match);"
        f" indexed search for it {ms(idx_s):.2f} ms (median of 5, first {ms(idx_times[0]):.2f} ms; "
        f"{len(idx_hits.results)} shown)"
        f" -> scan is {r['scan_ratio']:.0f}x slower"
    )

    profile = None
    if do_profile:
        log("profiling 20 in-process adds …")
        profile = profile_adds(vault, work, source)
    status = git_cli(vault, "status", "--porcelain").stdout.strip()
    r["git_clean_after"] = not status
    log(f"git status after the run: {'clean' if not status else 'NOT CLEAN: ' + status[:300]}")
    return r, profile


# -- report -----------------------------------------------------------------------------------


def print_table(rows: list[dict]) -> None:
    headers = ["N"] + [h for _, h, _ in COLUMNS]
    lines = [[f"{r['size']:,}"] + [fmt.format(r[k]) if k in r else "-" for k, _, fmt in COLUMNS] for r in rows]
    widths = [max(len(h), *(len(line[i]) for line in lines)) for i, h in enumerate(headers)]
    log("  ".join(h.rjust(w) for h, w in zip(headers, widths, strict=True)))
    log("  ".join("-" * w for w in widths))
    for line in lines:
        log("  ".join(c.rjust(w) for c, w in zip(line, widths, strict=True)))


def check(value: float, limit: float, op: str) -> str:
    ok = value <= limit if op == "<=" else value >= limit
    return "PASS" if ok else "MISS"


def print_budgets(rows: list[dict], help_ms: float | None) -> None:
    by_size = {r["size"]: r for r in rows}
    labels = {
        "add_med_ms": "in-process add (median)",
        "git_ratio": "faster than git add && git commit",
        "search_med_ms": "in-process search (median)",
        "cli_search_ms": "CLI search wall (median)",
        "reindex_s": "full reindex",
    }
    for key, size, limit, unit, op in BUDGETS:
        label = f"{labels[key]} at {size // 1000}k"
        budget = f"{op} {limit:g} {unit}"
        if size not in by_size:
            log(f"  {label:<42} budget {budget:<10} measured {'-':>9}     (size not run)")
            continue
        value = by_size[size][key]
        log(f"  {label:<42} budget {budget:<10} measured {value:9.2f} {unit:<3} {check(value, limit, op)}")
    if help_ms is not None:
        label = "jacked --help wall (median)"
        budget = f"<= {HELP_BUDGET_MS:g} ms"
        log(f"  {label:<42} budget {budget:<10} measured {help_ms:9.2f} ms  {check(help_ms, HELP_BUDGET_MS, '<=')}")


def print_growth(rows: list[dict]) -> None:
    rows = sorted(rows, key=lambda r: r["size"])
    if len(rows) < 2:
        return
    steps = list(itertools.pairwise(rows))
    keys = [(k, h) for k, h, _ in COLUMNS if k not in ("git_ratio", "scan_ratio")]
    head = ["figure"] + [f"{a['size'] // 1000}k->{b['size'] // 1000}k (N x{b['size'] / a['size']:g})" for a, b in steps]
    widths = [max(14, len(head[0]))] + [len(h) for h in head[1:]]
    log("  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(head, widths, strict=True))))
    for key, header in keys:
        cells = [header]
        for a, b in steps:
            cells.append(f"x{b[key] / a[key]:.2f}" if a.get(key) and b.get(key) is not None else "-")
        log("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))))


# -- main -------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000,10000,50000", help="comma-separated vault sizes (notes)")
    ap.add_argument("--repeat", type=int, default=30, help="in-process adds per size (default 30)")
    ap.add_argument(
        "--cli-repeat", type=int, default=10, help="CLI adds, git baselines, CLI searches, --help runs (default 10)"
    )
    ap.add_argument("--search-repeat", type=int, default=50, help="in-process search queries per size (default 50)")
    ap.add_argument("--keep", metavar="DIR", help="generate vaults in DIR and keep them (default: a temp dir, removed)")
    ap.add_argument("--profile-add", action="store_true", help="cProfile 20 in-process adds at the largest size")
    ap.add_argument(
        "--profile-sizes", metavar="SIZES", help="with --profile-add: profile at these sizes instead (comma-separated)"
    )
    ap.add_argument("--groups", type=int, default=50, help="groups the notes are spread over (default 50)")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--pack", action="store_true", help="`git gc` the generated vault (default: loose objects)")
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = ap.parse_args(argv)

    sizes = sorted({int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()})
    if args.keep:
        base = Path(args.keep).absolute()
        base.mkdir(parents=True, exist_ok=True)
        clash = [n for n in sizes if (base / f"vault-{n}").exists()]
        if clash:
            sys.exit(f"bench: {base}/vault-{clash[0]} already exists; choose another --keep DIR")
        cleanup = None
    else:
        cleanup = tempfile.TemporaryDirectory(prefix="jacked-bench-")
        base = Path(cleanup.name)

    import sqlite3

    import pygit2

    import jacked_vault

    git_version = subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip()
    log(
        f"jacked-vault bench_core: sizes {sizes}, repeat {args.repeat}, cli-repeat {args.cli_repeat},"
        f" search-repeat {args.search_repeat}, groups {args.groups}, seed {args.seed}, pack {args.pack}"
    )
    log(
        f"python {sys.version.split()[0]}, jacked_vault {getattr(jacked_vault, '__version__', '?')},"
        f" pygit2 {pygit2.__version__} (libgit2 {pygit2.LIBGIT2_VERSION}), sqlite {sqlite3.sqlite_version},"
        f" {git_version}, {os.cpu_count()} CPUs, load average {load()}, work dir {base}"
    )
    log(f"library under test: {source_description(Path(jacked_vault.__file__).resolve().parent)}")

    profile_at = {sizes[-1]}
    if args.profile_sizes:
        profile_at = {int(x.replace("_", "")) for x in args.profile_sizes.split(",") if x.strip()}
    rows: list[dict] = []
    profiles: dict[int, str] = {}
    help_times: list[float] = []
    try:
        help_times = bench_help(base, args.cli_repeat)
        log(
            f"jacked --help x{len(help_times)}: median {ms(median(help_times)):.0f} ms wall"
            f" (min {ms(min(help_times)):.0f}, max {ms(max(help_times)):.0f})"
        )
        for n in sizes:
            row, prof = run_size(n, base, args, args.profile_add and n in profile_at)
            rows.append(row)
            if prof:
                profiles[n] = prof
    finally:
        if cleanup is not None:
            cleanup.cleanup()

    help_ms = ms(median(help_times)) if help_times else None
    log(f"\n=== results (medians unless noted; ms = milliseconds, s = seconds; load average now {load()}) ===")
    print_table(rows)
    log("\nbudgets:")
    print_budgets(rows, help_ms)
    log("\ngrowth with vault size (ratio of each figure between consecutive sizes):")
    print_growth(rows)
    for n, prof in profiles.items():
        log(f"\n=== cProfile of in-process add at N = {n:,} (top 25 by cumulative time) ===")
        log(prof)
    if args.json:
        Path(args.json).write_text(json.dumps({"sizes": rows, "help_ms": help_ms}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
