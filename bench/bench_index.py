"""Index build and query latency with unspaced Chinese and Japanese text (issue 18.17).

    python bench/bench_index.py [--notes 10000] [--cjk 1000] [--repeat 3] [--vault DIR] [--keep DIR]
    python bench/bench_index.py --stages --vault DIR [--repeat 3]

    python bench/bench_index.py --arrivals --vault DIR [--remote BARE] [--arrive 10000] [--repeat 3]

`--arrivals`: whole processes (the real CLI, the real git), each run interleaved with its git
comparison and with the same command pinned to one core (`taskset -c 0`: no worker process), wall
and CPU (user+sys of the process and its children, the worker included): the first
`jacked memory search` after `--arrive` notes arrive in one commit (the index catches up on the
diff; this machine's gate never saw them) beside `git grep -l` over the tree; and, with
`--remote BARE` (a bare copy of a vault), `jacked memory init --from BARE` beside
`git clone --no-local BARE`. Use `PYTHONPATH=<snapshot>` to measure another version.

`--stages`: only the CPU time per note of each stage of a cold build (no verdicts), the best of
`--repeat`: reading the blobs (pygit2), parsing (fences, frontmatter), validation, the secret
scan, and the inserts (`SearchIndex.add_entry`: docs, FTS, terms, links, in one transaction);
then the whole cold build (`rebuild()` with the verdicts dropped) in one process, and with the
worker (search/parallel.py): the main process's CPU (best of `--repeat`) and the worker's (mean);
and what the one-process build costs outside the stages (its CPU less their sum).

Generates a vault of `--notes` English notes (bench/_vaultgen.py, as bench_core.py does) plus
`--cjk` notes written in unspaced Chinese or Japanese with a few English words mixed in (one
more commit), or reuses one made earlier (`--vault DIR`, which `--keep DIR` leaves behind).
Then times, with the `jacked_vault` this process imports (use `PYTHONPATH=<snapshot>` for a
before/after pair on one vault):

- the full index build (`SearchIndex.rebuild()`), median of `--repeat` (wall and CPU time);
- in-process search (`search.service.search`, a fresh `Context` per query, as one CLI call
  builds) for CJK queries (1-6 characters: words inside the unspaced text) and for English
  queries of the generated vocabulary (1-3 words, and two words joined in CamelCase, which
  the analyser splits: issue 33.1): median and p90 ms, and the median CPU ms;
- CJK recall: for each CJK query word, the notes whose file holds it (the truth, by substring)
  against the first that many search results (R-precision), summed over the words.

Plain script, no pytest. Only the figures it prints are claims.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import tempfile
import time
from pathlib import Path

try:  # run as `python bench/bench_index.py`, this file's folder is on sys.path
    from _vaultgen import WORDS, generate_vault, git_cli
except ImportError:  # imported as bench.bench_index
    from bench._vaultgen import WORDS, generate_vault, git_cli
import jacked_vault
from jacked_vault.context import Context
from jacked_vault.document import render_note, slugify_title
from jacked_vault.search.index import SearchIndex
from jacked_vault.search.query import Filters
from jacked_vault.search.service import search
from jacked_vault.write.create import build_note

HARNESS = "bench"
# Words of unspaced text: Chinese, then Japanese (kanji, katakana, and the hiragana between).
ZH = (  # noqa: SIM905 - a word list reads best as words
    "我们 决定 使用 数据库 存储 记忆 搜索 索引 同步 冲突 合并 提交 分支 远程 配置 测试 性能 缓存 文件 目录"
    " 用户 项目 团队 安全 密钥 部署 服务器 客户端 接口 日志 错误 重试 超时 队列 线程 内存 版本 发布 回滚"
    " 迁移 备份 权限 审核 规则 笔记 标题 正文 标签 编码 格式 模板 脚本 插件 构建 依赖 监控 告警 容器"
).split()
JA = (  # noqa: SIM905 - a word list reads best as words
    "データベース 検索 記憶 索引 同期 設定 試験 性能 キャッシュ ファイル 利用者 計画 安全 鍵 配置 接続"
    " 記録 誤り 再試行 待ち行列 版 公開 移行 権限 規則 覚書 題名 本文 構築 監視"
).split()
ZH_GLUE = ["的", "了", "在", "和", "是", "把", "用", "为", "从", "对"]
JA_GLUE = ["の", "を", "に", "は", "が", "で", "と", "から", "まで"]
PUNCT = ("。", "，", "、")  # noqa: RUF001 - CJK punctuation, meant


def cjk_text(rng: random.Random, words: list[str], glue: list[str], size: int) -> str:
    """Unspaced sentences of `words` joined by particles, with an English word now and then."""
    out: list[str] = []
    length = 0
    while length < size:
        sentence = ""
        for _ in range(rng.randint(3, 7)):
            sentence += rng.choice(words) + (rng.choice(glue) if rng.random() < 0.6 else "")
            if rng.random() < 0.1:
                sentence += " " + rng.choice(WORDS) + " "
        sentence += rng.choice(PUNCT)
        out.append(sentence)
        length += len(sentence)
    return "".join(out)


def add_cjk_notes(root: Path, count: int, seed: int) -> None:
    """`count` CJK notes in groups g0.. (one commit), half Chinese, half Japanese."""
    rng = random.Random(seed)
    used: set[str] = {str(p.relative_to(root)) for p in root.glob("groups/*/*/*.md")}
    for i in range(count):
        words, glue = (ZH, ZH_GLUE) if i % 2 == 0 else (JA, JA_GLUE)
        title = cjk_text(rng, words, glue, 12)
        body = cjk_text(rng, words, glue, rng.randint(150, 400))
        group = f"g{i % 50}"
        tags = [rng.choice(WORDS)]
        note = build_note(
            title=title,
            body=body,
            kind="note",
            scope="group",
            group=group,
            repos=[],
            source_harness=HARNESS,
            origin="cli",
            tags=tags,
        )
        stem = slugify_title(title)
        rel, k = f"groups/{group}/note/{stem}.md", 2
        while rel in used:
            rel, k = f"groups/{group}/note/{stem}-{k}.md", k + 1
        used.add(rel)
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(render_note(note))
    git_cli(root, "add", "-A")
    git_cli(root, "commit", "-q", "-m", f"bench: {count} CJK notes")


def ctx(vault: Path, work: Path) -> Context:
    return Context.create(vault=str(vault), cwd=work, harness=HARNESS)


def percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def time_queries(vault: Path, work: Path, queries: list[str]) -> tuple[list[float], list[float], list[int]]:
    """Wall and CPU ms of each query (CPU: this process's, steadier than wall on a shared machine) and its hits."""
    search(ctx(vault, work), queries[0], Filters())  # warm: the index is current
    times, cpus, found = [], [], []
    for q in queries:
        t, c = time.perf_counter(), time.process_time()
        result = search(ctx(vault, work), q, Filters())
        times.append((time.perf_counter() - t) * 1000)
        cpus.append((time.process_time() - c) * 1000)
        found.append(len(result.results))
    return times, cpus, found


def _cpu_ms(work, repeat: int, count: int) -> float:
    """The best CPU ms per note of `work()` over `repeat` runs."""
    best = float("inf")
    for _ in range(repeat):
        c = time.process_time()
        work()
        best = min(best, time.process_time() - c)
    return best * 1000 / count


def stage_figures(vault: Path, work: Path, repeat: int) -> None:
    """CPU ms per note of each stage of a cold index build (see the module docstring)."""
    from jacked_vault.document.reader import parse_note
    from jacked_vault.document.validate import check_fields
    from jacked_vault.search.entries import Entry
    from jacked_vault.store.gate import note_fields, scan
    from jacked_vault.store.git import open_repo

    store = ctx(vault, work).vault
    repo = open_repo(store.root)
    head = repo.revparse_single("HEAD")
    rels = git_cli(store.root, "ls-tree", "-r", "--name-only", "HEAD", "groups").stdout.split()
    rels = [rel for rel in rels if rel.endswith(".md") and not rel.endswith("/index.md") and "/.episodic/" not in rel]
    blobs: list[bytes] = []

    def read() -> None:
        blobs[:] = [repo[head.tree[rel].id].data for rel in rels]

    n = len(rels)
    figures = {"read blobs": _cpu_ms(read, repeat, n)}
    notes = [parse_note(data, checked=True) for data in blobs]
    figures["parse"] = _cpu_ms(lambda: [parse_note(data, checked=True) for data in blobs], repeat, n)
    fields = [({k: v for k, v in note.frontmatter().items()}, note.body) for note in notes]
    figures["validate"] = _cpu_ms(lambda: [check_fields(dict(f), body, "x") for f, body in fields], repeat, n)
    figures["secret scan"] = _cpu_ms(lambda: [scan(note_fields(note)) for note in notes], repeat, n)
    entries = [Entry.from_note(note) for note in notes]
    shutil.rmtree(store.state, ignore_errors=True)
    index = SearchIndex(store)

    def insert() -> None:
        db = index.db
        db.execute("BEGIN IMMEDIATE")
        for rel, entry in zip(rels, entries, strict=True):
            index.add_entry(rel, entry, "0" * 64, 1000)
        db.execute("ROLLBACK")

    figures["inserts"] = _cpu_ms(insert, repeat, n)

    def cold() -> None:
        index.db.execute("DELETE FROM verdicts")
        index.close()  # drops this object's memory of the verdicts too: the build meets none
        index.rebuild()

    try:
        from jacked_vault.search import parallel
    except ImportError:  # a version without the worker
        parallel = None
    if parallel is not None:
        shared = parallel.PARALLEL_MIN
        parallel.PARALLEL_MIN = 10**9
    figures["cold build, one process"] = _cpu_ms(cold, repeat, n)
    if parallel is not None:
        parallel.PARALLEL_MIN = shared
        workers = resource.getrusage(resource.RUSAGE_CHILDREN)
        figures["cold build, main"] = _cpu_ms(cold, repeat, n)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        spent = after.ru_utime + after.ru_stime - workers.ru_utime - workers.ru_stime
        figures["cold build, worker"] = spent * 1000 / n / repeat  # the mean: a worker's CPU is known once it ends
    index.close()
    stages = sum(v for k, v in figures.items() if not k.startswith("cold build"))
    print(f"cold build stages, {n:,} notes, CPU ms per note (best of {repeat}; load {os.getloadavg()[0]:.2f}):")
    for name, value in figures.items():
        print(f"  {name:<18} {value:6.3f}")
    print(f"  {'sum of stages':<18} {stages:6.3f}")
    outside = figures["cold build, one process"] - stages
    print(f"  {'outside the stages':<18} {outside:6.3f}  (the one-process build less the sum)")


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """(wall s, CPU s of the process and its children) of one command; raises if it fails."""
    import resource
    import subprocess

    def cpu() -> float:
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    c, t = cpu(), time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t
    if proc.returncode:
        raise RuntimeError(f"{' '.join(argv[:6])} failed: {proc.stderr[-1500:]}")
    return wall, cpu() - c


def arrival_figures(vault: Path, remote: Path | None, arriving: int, repeat: int) -> None:
    """First search after `arriving` notes arrive, and init --from (see the module docstring)."""
    import subprocess
    import sys

    try:
        from _sync_bench import arrive
    except ImportError:
        from bench._sync_bench import arrive
    cli = [sys.executable, "-m", "jacked_vault.cli.main", "memory"]
    one_core = ["taskset", "-c", "0"]
    base = Path(tempfile.mkdtemp(prefix="bench-arrivals-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("JACKED_")}
    env.update(HOME=str(base), JACKED_MEMORY_HARNESS="bench", GIT_TERMINAL_PROMPT="0")
    figures: dict[str, list[tuple[float, float]]] = {}

    def note(name: str, measured: tuple[float, float]) -> None:
        figures.setdefault(name, []).append(measured)

    try:
        for run in range(repeat):
            for pinned in (False, True):
                copy = base / f"first-{run}-{int(pinned)}"
                subprocess.run(["git", "clone", "-q", str(vault), str(copy)], check=True)
                search = [*cli, "search", "cache", "--vault", str(copy)]
                _run(search, base, env)  # the index at the old head
                arrive(copy, arriving)
                name = "first search, pinned to one core" if pinned else "first search"
                note(name, _run([*one_core, *search] if pinned else search, base, env))
                shutil.rmtree(copy)
            grep_copy = base / "grep"
            if not grep_copy.exists():
                subprocess.run(["git", "clone", "-q", str(vault), str(grep_copy)], check=True)
                arrive(grep_copy, arriving)
            grep = ["git", "-C", str(grep_copy), "grep", "-l", "cache", "HEAD", "--", "groups"]
            note("git grep -l", _run(grep, base, env))
            if remote is not None:
                clone = ["git", "clone", "-q", "--no-local", str(remote), str(base / f"git-{run}")]
                note("git clone --no-local", _run(clone, base, env))
                init = [*cli, "init", "--from", str(remote), "--vault", str(base / f"init-{run}")]
                note("init --from", _run(init, base, env))
                pinned_init = [*one_core, *cli, "init", "--from", str(remote), "--vault", str(base / f"init1-{run}")]
                note("init --from, pinned to one core", _run(pinned_init, base, env))
                for name in (f"git-{run}", f"init-{run}", f"init1-{run}"):
                    shutil.rmtree(base / name)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print(
        f"{arriving:,} notes arriving on {vault.name}; remote {remote}; median of {repeat}; load {os.getloadavg()[0]:.2f}"  # noqa: E501
    )
    for name, runs in figures.items():
        wall, cpu = statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)
        print(f"  {name:<34} wall {wall:7.2f} s   cpu {cpu:7.2f} s   (walls: {', '.join(f'{w:.2f}' for w, _ in runs)})")
    walls = {name: statistics.median(w for w, _ in runs) for name, runs in figures.items()}
    if "init --from" in walls:
        ratio = walls["init --from"] / walls["git clone --no-local"]
        print(f"  init --from / git clone: {ratio:.1f}x (budget 3x at 50k)")
    print(f"  first search: {walls['first search']:.2f} s (budget 1.5 s at 10k)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--cjk", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--vault", type=Path, help="reuse a vault generated earlier (with --keep)")
    parser.add_argument("--keep", type=Path, help="generate in DIR and keep it")
    parser.add_argument("--stages", action="store_true", help="CPU per stage of a cold build (needs --vault)")
    parser.add_argument("--arrivals", action="store_true", help="first search after --arrive notes; init --from")
    parser.add_argument("--arrive", type=int, default=10_000)
    parser.add_argument("--remote", type=Path, help="a bare remote for init --from (with --arrivals)")
    args = parser.parse_args()
    print(f"jacked_vault: {Path(jacked_vault.__file__).parent}; load average {os.getloadavg()[0]:.2f}")
    if args.arrivals:
        if args.vault is None:
            parser.error("--arrivals needs --vault")
        arrival_figures(args.vault.resolve(), args.remote.resolve() if args.remote else None, args.arrive, args.repeat)
        return
    if args.stages:
        if args.vault is None:
            parser.error("--stages needs --vault")
        with tempfile.TemporaryDirectory(prefix="bench-stages-") as tmp:
            stage_figures(args.vault.resolve(), Path(tmp), args.repeat)
        return
    base = Path(tempfile.mkdtemp(prefix="bench-index-")) if args.keep is None else args.keep
    work = base / "work"
    work.mkdir(parents=True, exist_ok=True)
    try:
        vault = args.vault
        if vault is None:
            vault = base / "vault"
            t = time.perf_counter()
            generate_vault(vault, args.notes, seed=args.seed)
            if args.cjk:
                add_cjk_notes(vault.resolve(), args.cjk, args.seed)
            print(
                f"generated {args.notes:,} English + {args.cjk:,} CJK notes in {time.perf_counter() - t:.1f} s at "
                f"{vault}"
            )
        builds, cpus = [], []
        for _ in range(args.repeat):
            index = SearchIndex(ctx(vault, work).vault)
            try:
                t, c = time.perf_counter(), time.process_time()
                count = index.rebuild()
                builds.append(time.perf_counter() - t)
                cpus.append(time.process_time() - c)
            finally:
                index.close()
        print(
            f"index build (rebuild), {count:,} documents: median {statistics.median(builds):.2f} s, "
            f"cpu {statistics.median(cpus):.2f} s (runs: {', '.join(f'{b:.2f}' for b in builds)})"
        )
        rng = random.Random(args.seed)
        cjk = ZH + JA
        cjk_queries = (cjk * 3)[:120]
        english = [" ".join(rng.sample(WORDS, rng.randint(1, 3))) for _ in range(120)]
        camel = ["".join(word.capitalize() for word in rng.sample(WORDS, 2)) for _ in range(40)]  # split words
        for name, queries in (("CJK", cjk_queries), ("English", english), ("CamelCase", camel)):
            times, cpus, found = time_queries(vault, work, queries)
            print(
                f"{name:<9} queries: {len(queries)}, median {statistics.median(times):.2f} ms, "
                f"p90 {percentile(times, 0.9):.2f} ms, cpu median {statistics.median(cpus):.2f} ms, "
                f"with a hit {sum(1 for f in found if f)}"
            )
        root = vault.resolve()
        files = {str(p.relative_to(root)): p.read_text(encoding="utf-8") for p in root.glob("groups/*/*/*.md")}
        truth_total = found_total = 0
        for q in cjk:
            truth = {path for path, text in files.items() if q in text}
            if not truth:
                continue
            hits = search(ctx(vault, work), q, Filters(limit=len(truth))).results
            truth_total += len(truth)
            found_total += len(truth & {d.path for d in hits})
        print(
            f"CJK recall: {found_total:,} of {truth_total:,} notes holding a query word found "
            f"({found_total / max(1, truth_total):.1%}, {len(cjk)} words)"
        )
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
