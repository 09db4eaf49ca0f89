"""Issue 34.4's doctor row alone: plain `doctor` beside `git status` + `git fsck --connectivity-only`.

    python bench/bench_doctor.py [--sizes 10000,100000] [--repeat 5] [--code /tmp/other-checkout]

Each size works on a `cp -a` copy of the cached vault `bench_scale.py` made (`--vault-dir`, never
changed). One doctor runs first (its `first` figure: it catches the index up and fills doctor's
caches), then `--repeat` rounds, interleaved: an `add` (a commit), doctor (the `after a commit`
figure, the budget's), doctor again (nothing changed), git status, git fsck --connectivity-only;
wall, CPU (user+sys) and peak RSS are medians of whole processes. `--code DIR` (repeatable):
another checkout of jacked_vault, measured in the same rounds on its own copy (PYTHONPATH=DIR),
so a change is set beside the code before it.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_scale import GIT, PY, Runner, load, measured_rss, med, ms  # noqa: E402 - after sys.path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--vault-dir", type=Path, default=Path("/tmp/bench-vaults"))
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--code", type=Path, action="append", default=[], help="another checkout to measure beside")
    args = parser.parse_args()
    codes = [ROOT, *args.code]
    import compileall

    for code in codes:  # an installed package has its bytecode; a checkout would compile in every run
        compileall.compile_dir(str(code / "jacked_vault"), quiet=1)
    for n in (int(s) for s in args.sizes.split(",") if s):
        cached = args.vault_dir / f"n{n}-s{args.seed}"
        if not (cached / ".git").is_dir():
            print(f"{cached}: not there (bench_scale.py makes it)")
            continue
        with tempfile.TemporaryDirectory(prefix=f"doctor-{n}-", dir=args.vault_dir) as tmp:
            run_size(n, cached, Path(tmp), codes, args.repeat)


def run_size(n: int, cached: Path, work: Path, codes: list[Path], repeat: int) -> None:
    """One size: a copy per checkout, a first doctor each, then interleaved rounds."""
    print(f"\n=== {n:,} notes === (load average {load()})", flush=True)
    runner = Runner(work / "home")
    vaults = []
    for i, _ in enumerate(codes):
        vault = work / f"vault{i}"
        subprocess.run(["cp", "-a", str(cached), str(vault)], check=True)
        runner.run([*GIT, "status", "--porcelain"], vault)  # the stat cache warm, as on a used vault
        vaults.append(vault)
    doctor = [PY, "-m", "jacked_vault.cli.main", "memory", "doctor"]
    env = runner.env
    first = []
    for code, vault in zip(codes, vaults, strict=True):
        runner.env = dict(env, PYTHONPATH=str(code))
        first.append((measured_rss(runner, doctor, vault.parent, vault)[0], runner.cpu))
    walls: list[list[float]] = [[] for _ in codes]
    cpus: list[list[float]] = [[] for _ in codes]
    again: list[list[float]] = [[] for _ in codes]
    rss = [0 for _ in codes]
    stats, fscks, git_cpu = [], [], []
    for n_round in range(repeat):
        for i, (code, vault) in enumerate(zip(codes, vaults, strict=True)):
            runner.env = dict(env, PYTHONPATH=str(code))
            fields = ("--group", "g1", "--kind", "fact", "--title", f"Doctor bench {n_round}", "--body", "A fact.")
            runner.jacked(vault, "add", *fields)
            wall, peak = measured_rss(runner, doctor, vault.parent, vault)
            walls[i].append(wall)
            cpus[i].append(runner.cpu)
            rss[i] = max(rss[i], peak)
            again[i].append(runner.run(doctor, vault.parent, vault=vault, check=False)[0])
        runner.env = env
        stats.append(runner.run([*GIT, "status", "--porcelain"], vaults[0])[0])
        cpu = runner.cpu
        fscks.append(runner.run([*GIT, "fsck", "--connectivity-only", "--no-progress"], vaults[0])[0])
        git_cpu.append(cpu + runner.cpu)
    runner.env = env
    git_s = med([a + b for a, b in zip(stats, fscks, strict=True)])
    print(
        f"git status {ms(med(stats))} + git fsck --connectivity-only {ms(med(fscks))} = {ms(git_s)} "
        f"(cpu {ms(med(git_cpu))})"
    )
    for i, code in enumerate(codes):
        wall, cpu = med(walls[i]), med(cpus[i])
        print(
            f"doctor [{code}] after a commit: {ms(wall)} (cpu {ms(cpu)}), {rss[i]} MiB: {wall / git_s:.2f}x (cpu "
            f"{cpu / med(git_cpu):.2f}x); again, nothing changed: {ms(med(again[i]))} ({med(again[i]) / git_s:.2f}x); "
            f"first run {ms(first[i][0])} (cpu {ms(first[i][1])})",
            flush=True,
        )


if __name__ == "__main__":
    main()
