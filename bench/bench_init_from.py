"""`init --from` beside `git clone` of the same bare remote (issue 34: at most 5x at 50k), alone.

    python bench/bench_init_from.py [--sizes 10000,50000] [--vault-dir /tmp/bench-vaults] [--repeat 3]
                                    [--code before=/tmp/old-checkout --code after=.]

bench_scale.py's init --from row without the rest of its run: the cached vault `n<N>-s<seed>`
(never changed: it is cloned bare, with `--no-local`) is the remote; each round runs `jacked
memory init --from` once per `--code` checkout (run with it first on PYTHONPATH, so two
versions of the code compare interleaved on the same load) and `git clone --no-local` once.
Each figure is a whole process, the median of `--repeat` rounds, wall and CPU (user + sys,
the process and its children).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_scale import GIT, PY, Runner, load, log, med, ms  # noqa: E402 - after sys.path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,50000")
    parser.add_argument("--vault-dir", default="/tmp/bench-vaults", help="where bench_scale.py caches its vaults")
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--repeat", type=int, default=3, help="rounds (median)")
    parser.add_argument(
        "--code", action="append", default=[], metavar="LABEL=DIR", help="a checkout to run (default: this one)"
    )
    args = parser.parse_args()
    codes = [tuple(c.split("=", 1)) for c in args.code] or [("this", str(ROOT))]
    work = Path(tempfile.mkdtemp(prefix="bench-init-from-"))
    try:
        runner = Runner(work / "home")
        for n in (int(s) for s in args.sizes.split(",")):
            cached = Path(args.vault_dir) / f"n{n}-s{args.seed}"
            if not (cached / ".git").is_dir():
                log(f"{cached} is not there: run bench/bench_scale.py --sizes {n} --keep first")
                continue
            log(f"\n=== {n:,} notes === (load average {load()})")
            bare = work / f"remote-{n}.git"
            runner.run([*GIT, "clone", "-q", "--bare", "--no-local", str(cached), str(bare)], work)
            walls: dict[str, list[float]] = {label: [] for label, _ in codes} | {"git clone": []}
            cpus: dict[str, list[float]] = {label: [] for label in walls}
            for i in range(args.repeat):
                for label, code in codes:
                    target = work / f"clone-{label}-{i}"
                    env = dict(runner.env, PYTHONPATH=code, JACKED_VAULT_DIR=str(target))
                    cmd = [PY, "-m", "jacked_vault.cli.main", "memory", "init", "--from", str(bare)]
                    started, before = time.perf_counter(), _children_cpu()
                    subprocess.run(cmd, cwd=work, env=env, stdin=subprocess.DEVNULL, capture_output=True, check=True)
                    walls[label].append(time.perf_counter() - started)
                    cpus[label].append(_children_cpu() - before)
                    shutil.rmtree(target)
                target = work / f"git-clone-{i}"
                wall, _ = runner.run([*GIT, "clone", "-q", "--no-local", str(bare), str(target)], work)
                walls["git clone"].append(wall)
                cpus["git clone"].append(runner.cpu)
                shutil.rmtree(target)
            git_wall, git_cpu = med(walls["git clone"]), med(cpus["git clone"])
            for label in walls:
                wall, cpu = med(walls[label]), med(cpus[label])
                log(
                    f"{label:>10}: {ms(wall)} (cpu {ms(cpu)})  {wall / git_wall:.2f}x git clone "
                    f"(cpu {cpu / git_cpu:.2f}x)  runs {' '.join(ms(w) for w in walls[label])}"
                )
            shutil.rmtree(bare)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _children_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


if __name__ == "__main__":
    main()
