"""Issue 34.5: what one CLI `add` costs in instructions, beside `git add && git commit` (callgrind).

Instruction counts do not move with the machine's load, so this compares a change's add with
another's on a busy machine where wall time cannot. On a copy of a generated vault (its index
built and one add made first, as a vault in use has them), each round runs

- `jacked memory add` under `valgrind --tool=callgrind --trace-children=yes` (the CLI's process
  and the `git update-index` it starts, summed);
- `git add f && git commit` of a note-sized file in a plain clone of the same vault (both gits);
- `python -c "import pygit2"`: the interpreter and pygit2's import, the floor of any CLI that
  commits with pygit2;

and prints each median and the ratio to git. Usage:

    python bench/bench_add_instructions.py [--notes 10000] [--vault-dir /tmp/bench-vaults] [--repeat 2]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._vaultgen import generate_vault

BODY = "Retry the cache layer before the deploy; the lease api logs the branch and the fixture."


def instructions(argv: list[str], cwd: Path, out: Path, env: dict[str, str] | None = None) -> int:
    """Instructions `argv` and every process it starts executed (callgrind's totals, summed)."""
    out.mkdir(parents=True)
    subprocess.run(
        ["valgrind", "--tool=callgrind", "--trace-children=yes", f"--callgrind-out-file={out}/cg.%p", *argv],
        cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    total = 0
    for path in out.glob("cg.*"):
        for line in path.read_text(errors="replace").splitlines():
            if line.startswith(("summary:", "totals:")):
                total += int(line.split()[1])
                break
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notes", type=int, default=10000)
    parser.add_argument("--vault-dir", default="/tmp/bench-vaults")
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (Debian: apt-get install valgrind)")
    cached = Path(args.vault_dir) / f"n{args.notes}-s{args.seed}"
    if not cached.exists():
        generate_vault(cached, args.notes, seed=args.seed)
    jacked = str(Path(sys.executable).parent / "jacked")
    with tempfile.TemporaryDirectory(prefix="bench-add-ir-") as tmp_name:
        tmp = Path(tmp_name)
        warm = tmp / "warm"
        shutil.copytree(cached, warm, symlinks=True)
        for step in (["search", "cache"], ["add", "--group", "g3", "--title", "Warm-up add", "--body", BODY]):
            subprocess.run([jacked, "memory", "--vault", str(warm), *step], cwd=tmp, check=True, capture_output=True)
        plain = tmp / "plain"
        subprocess.run(["git", "clone", "-q", str(cached), str(plain)], check=True)
        for key, value in (("user.name", "bench"), ("user.email", "bench@localhost"), ("gc.auto", "0")):
            subprocess.run(["git", "-C", str(plain), "config", key, value], check=True)
        sample = next((cached / "groups" / "g3").rglob("*.md")).read_bytes()[:700]
        adds, gits, floors = [], [], []
        for i in range(args.repeat):
            copy = tmp / f"copy{i}"
            shutil.copytree(warm, copy, symlinks=True)
            add_argv = [jacked, "memory", "--vault", str(copy), "add", "--group", "g3", "--kind", "runbook"]
            add_argv += ["--title", f"Measured add number {i}", "--body", BODY, "--tag", "cache"]
            adds.append(instructions(add_argv, tmp, tmp / f"add{i}"))
            shutil.rmtree(copy)
            note = plain / "groups" / "g3" / "runbook" / f"git-baseline-{i}.md"
            note.parent.mkdir(parents=True, exist_ok=True)
            note.write_bytes(sample + f"\nunique {i}\n".encode())
            gits.append(
                instructions(["git", "add", str(note)], plain, tmp / f"git-add{i}")
                + instructions(["git", "commit", "-q", "-m", f"add {i}"], plain, tmp / f"git-commit{i}")
            )
            floors.append(instructions([sys.executable, "-c", "import pygit2"], tmp, tmp / f"floor{i}"))
    add, git, floor = statistics.median(adds), statistics.median(gits), statistics.median(floors)
    print(f"{args.notes} notes, {args.repeat} rounds (median instructions)")
    print(f"jacked memory add            {add / 1e6:9.1f} M   {add / git:5.2f}x git")
    print(f"git add && git commit        {git / 1e6:9.1f} M")
    print(f"python -c 'import pygit2'    {floor / 1e6:9.1f} M   {floor / git:5.2f}x git (the floor)")


if __name__ == "__main__":
    main()
