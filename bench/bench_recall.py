"""Recall benchmarks: the brief (in-process, CLI, SessionStart hook) and the init scan.

    python bench/bench_recall.py [--sizes 1000,10000,50000] [--repeat 15] [--repos 200]

For each vault size (50 groups, every group mapped to a repo) it prints the brief's
in-process median, the whole-process wall time of `jacked memory brief` and of the
SessionStart hook (`jacked _hook session-start` fed the hook JSON), and, as the obvious
alternative, a brief built by parsing the group's notes from disk (a full scan of the group).
Then the `init` scan of N repos, in-process and as `jacked memory init --json`.
Budgets (issue 3 and 4, this 2-core machine): brief wall <= 250 ms and in-process <= 20 ms at
10k; SessionStart hook <= 300 ms and SessionEnd hook return <= 100 ms at 10k; scan of 200
repos <= 3 s.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._vaultgen import generate_vault

GROUPS = 50


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def jacked() -> list[str]:
    return [sys.executable, "-m", "jacked_vault.cli.main"]


def make_repo(path: Path, origin: str) -> None:
    import pygit2

    path.mkdir(parents=True)
    repo = pygit2.init_repository(str(path), initial_head="main")
    repo.remotes.create("origin", origin)


def prepare(vault: Path, n: int, work: Path) -> Path:
    from jacked_vault.context import Context
    from jacked_vault.groups.mapping import write_config
    from jacked_vault.search.index import SearchIndex
    from jacked_vault.store.vault import open_vault
    from jacked_vault.write.hot import set_hot

    generate_vault(vault, n, groups=GROUPS)
    ctx = Context.create(vault=str(vault), cwd=work, harness="bench")
    config = json.loads((vault / "vault.json").read_text())
    config["groups"] = {f"g{i}": {"repos": [f"github.com/acme/g{i}-api"]} for i in range(GROUPS)}
    write_config(ctx, config, "bench groups")
    repo = work / "g7-api"
    make_repo(repo, "git@github.com:acme/g7-api.git")
    set_hot(Context.create(vault=str(vault), cwd=repo, harness="bench"), "Bench: measuring the brief.\nNext: the hook.")
    index = SearchIndex(open_vault(vault))
    index.refresh()
    index.close()
    return repo


def bench_inprocess(vault: Path, repo: Path, repeat: int) -> list[float]:
    from jacked_vault.context import Context
    from jacked_vault.recall.brief import build_brief

    build_brief(Context.create(vault=str(vault), cwd=repo))
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        brief = build_brief(Context.create(vault=str(vault), cwd=repo))
        out.append(time.perf_counter() - t)
        assert brief.tokens <= 1500
    return out


def bench_full_scan(vault: Path, repeat: int) -> list[float]:
    """The obvious alternative: parse every note of the group from disk and sort them."""
    from jacked_vault.document import parse_note

    out = []
    for _ in range(max(3, repeat // 3)):
        t = time.perf_counter()
        notes = [parse_note(p.read_bytes()) for p in (vault / "groups" / "g7").glob("*/*.md")]
        notes.sort(key=lambda note: note.updated_at, reverse=True)
        out.append(time.perf_counter() - t)
    return out


def bench_process(
    cmd: list[str], repeat: int, *, stdin: str | None = None, cwd: Path, expect_output: bool = True
) -> list[float]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JACKED_")}
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        proc = subprocess.run(cmd, input=stdin, capture_output=True, text=True, cwd=cwd, env=env)
        out.append(time.perf_counter() - t)
        if proc.returncode != 0 or (expect_output and not proc.stdout.strip()):
            raise RuntimeError(f"{cmd} failed: {proc.stderr[-500:]}")
    return out


def bench_size(n: int, base: Path, repeat: int) -> dict:
    vault = base / f"vault-{n}"
    work = base / f"work-{n}"
    work.mkdir()
    t = time.perf_counter()
    repo = prepare(vault, n, work)
    gen_s = time.perf_counter() - t
    brief_cli = bench_process(
        [*jacked(), "memory", "brief", "--vault", str(vault), "--cwd", str(repo)], repeat, cwd=work
    )
    payload = json.dumps(
        {"session_id": "bench", "cwd": str(repo), "hook_event_name": "SessionStart", "source": "startup"}
    )
    hook = bench_process([*jacked(), "_hook", "session-start", "--vault", str(vault)], repeat, stdin=payload, cwd=work)
    end_payload = json.dumps(
        {
            "session_id": "bench-end",
            "transcript_path": str(work / "none.jsonl"),
            "cwd": str(repo),
            "hook_event_name": "SessionEnd",
            "reason": "exit",
        }
    )
    end = bench_process(
        [*jacked(), "_hook", "session-end", "--vault", str(vault)],
        repeat,
        stdin=end_payload,
        cwd=work,
        expect_output=False,
    )
    return {
        "notes": n,
        "gen_s": gen_s,
        "inproc_ms": median_ms(bench_inprocess(vault, repo, repeat * 2)),
        "scan_ms": median_ms(bench_full_scan(vault, repeat)),
        "cli_ms": median_ms(brief_cli),
        "hook_ms": median_ms(hook),
        "end_ms": median_ms(end),
    }


def bench_init_scan(base: Path, count: int, repeat: int) -> dict:
    from jacked_vault.groups.scan import scan_roots

    root = base / "Github"
    for i in range(count):
        owner = f"team{i % 10}"
        make_repo(root / owner / f"{owner}-svc{i}", f"git@github.com:{owner}/{owner}-svc{i}.git")
    samples = []
    for _ in range(repeat):
        t = time.perf_counter()
        report = scan_roots([root])
        samples.append(time.perf_counter() - t)
    assert len(report.repos) == count, len(report.repos)
    wall = bench_process(
        [*jacked(), "memory", "init", "--vault", str(base / "scan-vault"), "--root", str(root), "--json"], 3, cwd=base
    )
    return {"repos": count, "scan_ms": median_ms(samples), "init_wall_ms": median_ms(wall)}


def verdict(value: float, budget: float) -> str:
    return "PASS" if value <= budget else "MISS"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--repos", type=int, default=200)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    with tempfile.TemporaryDirectory(prefix="jacked-bench-recall-") as tmp:
        base = Path(tmp)
        rows = []
        for n in sizes:
            print(f"[{n} notes] generating and measuring…", file=sys.stderr, flush=True)
            rows.append(bench_size(n, base, args.repeat))
        print(
            f"\n{'notes':>7} {'gen s':>7} {'brief in-proc ms':>17} {'group full-scan ms':>19} {'ratio':>6} "
            f"{'brief CLI ms':>13} {'SessionStart hook ms':>21} {'SessionEnd hook ms':>19}"
        )
        for r in rows:
            ratio = r["scan_ms"] / r["inproc_ms"] if r["inproc_ms"] else float("nan")
            print(
                f"{r['notes']:>7} {r['gen_s']:>7.1f} {r['inproc_ms']:>17.2f} {r['scan_ms']:>19.2f} {ratio:>5.1f}x "
                f"{r['cli_ms']:>13.1f} {r['hook_ms']:>21.1f} {r['end_ms']:>19.1f}"
            )
        if len(rows) > 1:
            first, last = rows[0], rows[-1]
            print(
                f"growth {first['notes']} -> {last['notes']}: in-process "
                f"x{last['inproc_ms'] / first['inproc_ms']:.2f}, "
                f"CLI x{last['cli_ms'] / first['cli_ms']:.2f}, hook x{last['hook_ms'] / first['hook_ms']:.2f}"
            )
        ten_k = next((r for r in rows if r["notes"] == 10000), None)
        if ten_k:
            print(
                f"budget brief in-process @10k <= 20 ms: {ten_k['inproc_ms']:.2f} ms {verdict(ten_k['inproc_ms'], 20)}"
            )
            print(f"budget brief wall @10k <= 250 ms: {ten_k['cli_ms']:.1f} ms {verdict(ten_k['cli_ms'], 250)}")
            print(
                f"budget SessionStart hook @10k <= 300 ms: {ten_k['hook_ms']:.1f} ms {verdict(ten_k['hook_ms'], 300)}"
            )
            print(
                f"budget SessionEnd hook returns @10k <= 100 ms: {ten_k['end_ms']:.1f} ms "
                f"{verdict(ten_k['end_ms'], 100)} (the capture goes on detached)"
            )
        scan = bench_init_scan(base, args.repos, 5)
        print(
            f"init scan of {scan['repos']} repos: in-process {scan['scan_ms']:.1f} ms "
            f"{verdict(scan['scan_ms'], 3000)} (budget 3 s); "
            f"`jacked memory init --root … --json` wall {scan['init_wall_ms']:.1f} ms"
        )


if __name__ == "__main__":
    main()
