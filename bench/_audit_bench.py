"""What an `add` costs when this machine's audit month is busy (issue 21 item 1).

`write_chained_lines(root, machine, name, count)` appends `count` valid, chained audit lines
straight into one audit file (fast: no tool, no commit); `fill_month(root, machine, lines)`
fills this month with them in parts the size the tool rolls at (`audit.ROLL_BYTES`), as the
tool would have written them; `--single` writes them into one month file instead (what an
older version left: the issue's file past the 64 MiB cap).

`audit_add_figures(lines=300_000, runs=7)` builds two 1-note vaults (an empty month and a
month of `lines` lines), times `jacked memory add` in a subprocess in each (median of `runs`,
interleaved, wall and CPU time and peak RSS) and returns the figures and their ratios, the
budget being ≤ 1.2× (on a loaded machine the CPU ratio is the steadier one). bench/bench_scale.py calls it; on its own:

    python bench/_audit_bench.py [--lines 300000] [--runs 7] [--single]
"""  # noqa: RUF002 - the multiplication sign is meant

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

try:  # run as `python bench/_audit_bench.py`, this file's folder is on sys.path
    from _vaultgen import git_cli
except ImportError:  # imported as bench._audit_bench
    from bench._vaultgen import git_cli
from jacked_vault.store import audit
from jacked_vault.store.layout import AUDIT_DIR, audit_part, state_dir
from jacked_vault.store.machine_state import machine_id
from jacked_vault.write.init import init_vault

LINE_BYTES = 330  # about what write_chained_lines writes per line


def _last_hash(folder: Path, name: str) -> str | None:
    """The hash of the last line of `name`, else of the newest earlier part (chain order)."""
    candidates = [folder / name] if (folder / name).exists() and (folder / name).stat().st_size else []
    if not candidates:
        earlier = sorted((p for p in folder.iterdir() if audit_part(p.name)), key=lambda p: audit_part(p.name))
        candidates = earlier[-1:]
    if not candidates:
        return None
    last = candidates[0].read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1]
    return audit.line_hash(last.decode("utf-8"))


def write_chained_lines(root: Path, machine: str, name: str, count: int) -> str:
    """Append `count` valid audit lines, chained to the machine's last one, to
    `audit/<machine>/<name>`; returns the hash of the last line written."""
    folder = root / AUDIT_DIR / machine
    folder.mkdir(parents=True, exist_ok=True)
    prev = _last_hash(folder, name)
    sha = hashlib.sha256
    with open(folder / name, "ab") as out:
        chunk: list[str] = []
        for n in range(count):
            line = json.dumps(
                {
                    "ts": f"2026-12-01T00:{n // 60000 % 60:02d}:{n // 1000 % 60:02d}.{n % 1000:03d}Z",
                    "op": "create",
                    "id": f"mem_20261201_bench{n:020d}",
                    "path": f"groups/bench/fact/line-{n}.md",
                    "sha256": sha(str(n).encode()).hexdigest(),
                    "prev": prev,
                    "harness": "bench",
                    "origin": "cli",
                },
                separators=(",", ":"),
            )
            prev = sha(line.encode()).hexdigest()
            chunk.append(line)
            if len(chunk) >= 10_000:
                out.write(("\n".join(chunk) + "\n").encode())
                chunk = []
        if chunk:
            out.write(("\n".join(chunk) + "\n").encode())
    return prev or ""


def fill_month(root: Path, machine: str, lines: int, *, single: bool = False) -> None:
    """Add `lines` lines to this month of `machine`: in parts of at most `audit.ROLL_BYTES`
    (or all in the month's first file with `single`), then commit them with the git CLI."""
    from jacked_vault.document.timestamps import utc_now

    month = utc_now()[:7]
    per_part = lines if single else max(1, audit.ROLL_BYTES // LINE_BYTES - 1)
    written, part = 0, 1
    while written < lines:
        take = min(per_part, lines - written)
        write_chained_lines(root, machine, audit.part_name(month, part), take)
        written += take
        part += 1
    git_cli(root, "add", AUDIT_DIR)
    git_cli(root, "commit", "-qm", f"{lines} audit lines")


def _add_once(vault: Path, n: int) -> tuple[float, float, int]:
    """One `jacked memory add` in a child: (wall ms, CPU ms, peak RSS in KiB of that child)."""
    env = {**os.environ, "JACKED_VAULT_DIR": str(vault), "HOME": str(vault.parent)}
    code = (
        "import resource, subprocess, sys, time\n"
        "t = time.perf_counter()\n"
        "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)\n"
        "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print((time.perf_counter() - t) * 1000, (u.ru_utime + u.ru_stime) * 1000, u.ru_maxrss)\n"
    )
    cmd = [
        sys.executable,
        "-m",
        "jacked_vault.cli.main",
        "memory",
        "add",
        "--title",
        f"Bench note {n}",
        "--body",
        "x",
        "--group",
        "g",
    ]
    out = subprocess.run(
        [sys.executable, "-c", code, *cmd], env=env, check=True, capture_output=True, text=True, cwd=vault.parent
    ).stdout
    ms, cpu, rss = out.split()
    return float(ms), float(cpu), int(rss)


def audit_add_figures(
    lines: int = 300_000, runs: int = 7, *, single: bool = False, workdir: Path | None = None
) -> dict:
    """Median `add` wall time and peak RSS with an empty month and with `lines` lines in it."""
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        vaults = {}
        for label in ("empty", "busy"):
            home = Path(tmp) / label
            home.mkdir()
            vault = home / "vault"
            init_vault(vault)
            os.makedirs(state_dir(vault), exist_ok=True)
            if label == "busy":
                fill_month(vault, machine_id(state_dir(vault)), lines, single=single)
            _add_once(vault, 0)  # warm: the search index is built, the page cache holds the files
            vaults[label] = vault
        times: dict[str, list[float]] = {"empty": [], "busy": []}
        cpus: dict[str, list[float]] = {"empty": [], "busy": []}
        rss: dict[str, int] = {"empty": 0, "busy": 0}
        for n in range(1, runs + 1):
            for label, vault in vaults.items():
                ms, cpu, kib = _add_once(vault, n)
                times[label].append(ms)
                cpus[label].append(cpu)
                rss[label] = max(rss[label], kib)
        machine = machine_id(state_dir(vaults["busy"]))
        largest = max((p.stat().st_size for p in (vaults["busy"] / AUDIT_DIR / machine).iterdir()), default=0)
    empty, busy = statistics.median(times["empty"]), statistics.median(times["busy"])
    cpu_empty, cpu_busy = statistics.median(cpus["empty"]), statistics.median(cpus["busy"])
    return {
        "lines": lines,
        "layout": "one file" if single else f"parts of ≤ {audit.ROLL_BYTES} bytes",
        "largest_audit_file_bytes": largest,
        "runs": runs,
        "add_empty_month_ms": round(empty, 1),
        "add_busy_month_ms": round(busy, 1),
        "ratio": round(busy / empty, 3),
        "add_empty_month_cpu_ms": round(cpu_empty, 1),
        "add_busy_month_cpu_ms": round(cpu_busy, 1),
        "cpu_ratio": round(cpu_busy / cpu_empty, 3),
        "budget": 1.2,
        "met": busy / empty <= 1.2,
        "rss_empty_kib": rss["empty"],
        "rss_busy_kib": rss["busy"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=300_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--single", action="store_true", help="all lines in one month file (an older version's layout)")
    args = parser.parse_args()
    started = time.perf_counter()
    figures = audit_add_figures(args.lines, args.runs, single=args.single)
    print(f"load average {os.getloadavg()[0]:.2f}; {time.perf_counter() - started:.0f} s in all")
    for key, value in figures.items():
        print(f"  {key:26} {value}")
    print(
        f"add with {args.lines} audit lines this month: {figures['ratio']}x an empty month in wall time, "
        f"{figures['cpu_ratio']}x in CPU (budget ≤ 1.2x): {'MET' if figures['met'] else 'MISSED'}"
    )


if __name__ == "__main__":
    main()
