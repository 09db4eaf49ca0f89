"""Issue 21's add budget on its own: `jacked memory add` beside `git add && git commit` of a
note-sized file in a copy of the same vault, interleaved, wall and CPU (user+sys of the child
processes), beside the floor a Python process with pygit2 cannot go under.

    python bench/bench_add.py [--sizes 1000,10000] [--vault-dir /tmp/bench-vaults] [--rounds 9]
                              [--vault PATH ...]

Vaults come from bench_scale's cache (`n<N>-s1234`, generated when missing) or `--vault` (a
vault of any size); each is copied (`cp -a`) twice, one copy for each side, so the cached vault
never changes and both sides commit into the same history. Medians of `--rounds`.
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

from bench.bench_scale import GIT, PY, Runner, _children_cpu, cached_vault, load, log, med, ms  # noqa: E402

FLOOR = {
    "python -c pass": [PY, "-c", "pass"],
    "python -c 'import pygit2'": [PY, "-c", "import pygit2"],
    "python: pygit2 + sqlite3 + the secret rules compiled": [
        PY, "-c", "import pygit2, sqlite3; from jacked_vault.safety.secrets import scan_text; scan_text('x')"
    ],
}  # fmt: skip


def measure(runner: Runner, vault: Path, work: Path, rounds: int) -> dict:
    """Interleaved medians for one vault: add, git add+commit, and the floor processes."""
    mine, plain = work / "add", work / "git"
    subprocess.run(["cp", "-a", str(vault), str(mine)], check=True)
    subprocess.run(["cp", "-a", str(vault), str(plain)], check=True)
    runner.jacked(mine, "add", "--group", "g1", "--kind", "fact", "--title", "Warm up", "--body", "Warm.")  # page cache
    samples: dict[str, list[tuple[float, float]]] = {"add": [], "git": [], **{name: [] for name in FLOOR}}
    for i in range(rounds):
        args = ("--title", f"Bench add {i}", "--body", "A small fact about the cache.")
        wall, _ = runner.jacked(mine, "add", "--group", "g1", "--kind", "fact", *args)
        samples["add"].append((wall, runner.cpu))
        note = plain / "groups" / "g1" / "fact" / f"bench-add-{i}.md"
        note.write_text(f"# Bench add {i}\n\nA small fact about the cache.\n")
        started, cpu = time.perf_counter(), _children_cpu()
        subprocess.run([*GIT, "add", str(note)], cwd=plain, check=True, env=runner.env)
        subprocess.run([*GIT, "commit", "-q", "-m", f"add {i}"], cwd=plain, check=True, env=runner.env)
        samples["git"].append((time.perf_counter() - started, _children_cpu() - cpu))
        for name, cmd in FLOOR.items():
            wall, _ = runner.run(cmd, work)
            samples[name].append((wall, runner.cpu))
    return {name: (med([w for w, _ in s]), med([c for _, c in s])) for name, s in samples.items()}


def report(label: str, figures: dict) -> None:
    git_wall, git_cpu = figures["git"]
    log(f"\n=== {label} === (load average {load()})")
    log(f"add:                  {ms(figures['add'][0]):>8} wall, {ms(figures['add'][1]):>8} cpu"
        f"  ({figures['add'][0] / git_wall:.2f}x wall, {figures['add'][1] / git_cpu:.2f}x cpu)")  # fmt: skip
    log(f"git add && git commit: {ms(git_wall):>7} wall, {ms(git_cpu):>8} cpu")
    for name in FLOOR:
        wall, cpu = figures[name]
        log(f"floor {name}: {ms(wall)} wall, {ms(cpu)} cpu ({wall / git_wall:.2f}x git's wall)")
    log(f"budget 2.5x git's wall: {ms(2.5 * git_wall)}; 1.2x: {ms(1.2 * git_wall)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000", help="cached generated vaults (bench_scale's); '' for none")
    parser.add_argument("--vault-dir", type=Path, default=Path("/tmp/bench-vaults"))
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--vault", type=Path, action="append", default=[], help="also measure this vault (copied)")
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-add-") as tmp:
        runner = Runner(Path(tmp) / "home")
        sizes = [int(n) for n in args.sizes.split(",") if n]
        vaults = [(f"{n:,} notes", cached_vault(args.vault_dir, n, args.seed, [])) for n in sizes]
        vaults += [(str(path), path) for path in args.vault]
        for label, vault in vaults:
            work = Path(tmp) / f"v{len(label)}-{abs(hash(label))}"
            work.mkdir()
            report(label, measure(runner, vault, work, args.rounds))
            shutil.rmtree(work)


if __name__ == "__main__":
    main()
