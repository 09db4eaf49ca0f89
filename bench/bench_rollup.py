"""Rollup of a year of daily files: one repo, 365 day files of ~5 entries each, all committed.

    python bench/bench_rollup.py [--days 365] [--entries 5] [--repeat 3] [--keep DIR]

Each run builds a fresh vault with the day files committed (not timed), then times
`rollup(store, today=<day after the last file>)` in-process: reading the files, building
recent.md and archive.md, writing, renaming 365 files to `.done.md`, the audit lines and the
one commit. Budget (issue 4): <= 1 s. Also times the second, no-op rollup (idempotence) and the
CLI (`jacked memory rollup`, a subprocess, start-up included) once.

Plain script, no pytest. Only the figures it prints are claims.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

BUDGET_S = 1.0
IDENTITY = "github.com/acme/api"
GROUP = "api"
BRANCHES = ["main", "feat/rollup", "fix/audit-chain", "chore/deps"]
SENTENCES = [
    "Wired the rollup into the session-end hook and checked the commit count.",
    "Reviewed the archive layout; weeks start on Monday in local time.",
    "Fixed a flaky test that depended on the wall clock.",
    "Handed over: next step is the migration dry-run output.",
    "Benchmarked the search index on a 10k-note vault.",
    "compact handover: context was compacted while refactoring the CLI.",
]


def build_vault(root: Path, days: int, entries: int, start: date) -> Path:
    from jacked_vault.episodic.entries import day_file
    from jacked_vault.write.init import init_vault

    vault = root / "vault"
    init_vault(vault)
    for i in range(days):
        day = start + timedelta(days=i)
        lines = [f"# {IDENTITY} — {day.isoformat()}", ""]
        for j in range(entries):
            hour, minute = 8 + (j * 2) % 12, (i * 7 + j * 13) % 60
            lines += [
                f"## {hour:02d}:{minute:02d} | {BRANCHES[(i + j) % len(BRANCHES)]}",
                SENTENCES[(i * 3 + j) % len(SENTENCES)],
                "",
            ]
        path = vault / day_file(GROUP, IDENTITY, day.isoformat())
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines).rstrip("\n") + "\n", encoding="utf-8")
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": "b@example.com",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "b@example.com",
    }
    subprocess.run(["git", "-C", str(vault), "add", "-A"], check=True, env=env)
    subprocess.run(["git", "-C", str(vault), "commit", "-qm", "a year of day files"], check=True, env=env)
    return vault


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--entries", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", help="build the vaults in DIR and keep them")
    args = parser.parse_args()

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from helpers.episodic import count_session_entries  # what rollup conserves (a test helper)

    import jacked_vault
    from jacked_vault.episodic.rollup import rollup
    from jacked_vault.store.vault import open_vault

    print(f"jacked_vault from {Path(jacked_vault.__file__).parent}")
    print(f"load average: {os.getloadavg()[0]:.2f}  cpus: {os.cpu_count()}")
    start = date(2025, 12, 1)
    today = start + timedelta(days=args.days)
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-rollup-"))
    base.mkdir(parents=True, exist_ok=True)
    times, cpu, noop = [], [], []
    try:
        for run in range(args.repeat):
            root = base / f"run-{run}"
            shutil.rmtree(root, ignore_errors=True)
            root.mkdir()
            vault = build_vault(root, args.days, args.entries, start)
            store = open_vault(vault)
            t0, c0 = time.perf_counter(), time.process_time()
            result = rollup(store, today=today, harness="bench")
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
            t0 = time.perf_counter()
            second = rollup(store, today=today, harness="bench")
            noop.append(time.perf_counter() - t0)
            assert result.commit and second.commit is None
            folder = vault / "groups" / GROUP / "episodic" / IDENTITY.replace("/", "__")
            kept = sum(count_session_entries((folder / n).read_text()) for n in ("recent.md", "archive.md"))
            assert kept == args.days * args.entries, (kept, args.days * args.entries)
            if run == 0:
                print(
                    f"{args.days} day files x {args.entries} entries: rolled {len(result.repos[0].rolled)}, "
                    f"archived {len(result.repos[0].archived)}, entries kept {kept}, "
                    f"archive.md {(folder / 'archive.md').stat().st_size} bytes"
                )
        cli_root = base / "cli"
        shutil.rmtree(cli_root, ignore_errors=True)
        cli_root.mkdir()
        vault = build_vault(cli_root, args.days, args.entries, start)
        t0 = time.perf_counter()
        proc = subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys, jacked_vault.cli.episodic; from jacked_vault.cli.main import main; "
                "sys.exit(main(sys.argv[1:]))",
                "memory",
                "rollup",
                "--today",
                today.isoformat(),
                "--json",
            ],
            env={**os.environ, "JACKED_VAULT_DIR": str(vault)},
            capture_output=True,
            text=True,
        )
        cli = time.perf_counter() - t0
        assert proc.returncode == 0, proc.stderr or proc.stdout
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    med = statistics.median(times)
    print(
        f"rollup (in-process): median {med * 1000:.0f} ms  (runs: {', '.join(f'{t * 1000:.0f}' for t in times)} ms; "
        f"cpu median {statistics.median(cpu) * 1000:.0f} ms)"
    )
    print(f"second rollup (no-op, no commit): median {statistics.median(noop) * 1000:.0f} ms")
    print(f"CLI `jacked memory rollup` (subprocess, start-up included): {cli * 1000:.0f} ms")
    verdict = "PASS" if med <= BUDGET_S else "MISS"
    print(f"budget: rollup of a year of daily files <= {BUDGET_S:.1f} s: {med:.3f} s  {verdict}")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
