"""Clone, fast-forward and first-search figures, each beside git's own in the same run (issue 21.2, 21.3).

    from bench._sync_bench import measure_clone, measure_ff, measure_first_search
    measure_clone(vault)              # `init --from` vs `git clone` of one bare remote
    measure_ff(vault, 1000)           # `sync` fast-forwarding n new notes vs `git pull --ff-only`
    measure_first_search(vault, 10_000)  # first `search` after n notes arrive in one commit

    python bench/_sync_bench.py VAULT [--ff 1000] [--arrive 10000]

`vault` is a generated vault (bench/_vaultgen.py); it is never changed: every figure works on
copies in a temp folder. Whole processes (the `jacked` CLI, the person's `git`), wall seconds;
each function returns a dict of figures. Plain script, no pytest: only the figures it prints are claims.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._vaultgen import git_cli, write_audit_history, write_notes

PY = sys.executable
_SCRIPT = Path(PY).with_name("jacked")
JACKED = [str(_SCRIPT)] if _SCRIPT.exists() else [PY, "-m", "jacked_vault.cli.main"]
ARRIVING_MACHINE = "m-bench-far"  # the teammate whose notes arrive (a machine the vault has no audit file of yet)


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JACKED_")}
    return env | {"HOME": str(home), "GIT_TERMINAL_PROMPT": "0", "JACKED_MEMORY_HARNESS": "bench"}


def _timed(argv: list[str], home: Path, cwd: Path | None = None) -> float:
    started = time.perf_counter()
    proc = subprocess.run(argv, env=_env(home), cwd=cwd or home, capture_output=True, text=True)
    took = time.perf_counter() - started
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return took


def _bare(vault: Path, into: Path) -> Path:
    remote = into / "remote.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(vault), str(remote)], check=True)
    return remote


def _notes(root: Path) -> int:
    out = git_cli(root, "ls-tree", "-r", "--name-only", "HEAD", "groups").stdout
    return sum(1 for line in out.splitlines() if line.endswith(".md") and not line.endswith("/index.md"))


def arrive(root: Path, n: int, seed: int = 21) -> str:
    """Commit `n` new notes with their audit lines (one teammate's machine, one commit) with the
    git CLI, as another machine would have written them; returns the new commit id."""
    now = datetime.now(UTC)
    _, events = write_notes(
        root, n, random.Random(seed), groups=50, now=now, spread_s=3600, machines=(ARRIVING_MACHINE,)
    )
    write_audit_history(root, events)
    git_cli(root, "add", "-A")
    git_cli(root, "commit", "-q", "-m", f"bench: {n} notes from {ARRIVING_MACHINE}")
    return git_cli(root, "rev-parse", "HEAD").stdout.strip()


def measure_clone(vault: Path) -> dict:
    """`jacked memory init --from` of a bare copy of `vault` vs `git clone` of the same remote."""
    with tempfile.TemporaryDirectory(prefix="bench-clone-") as tmp:
        base = Path(tmp)
        remote = _bare(vault, base)
        url = f"file://{remote}"
        git_s = _timed(["git", "clone", "-q", url, str(base / "plain")], base)
        jacked_s = _timed([*JACKED, "memory", "init", "--from", url, "--vault", str(base / "jacked")], base)
        return {
            "notes": _notes(base / "plain"),
            "git_clone_s": git_s,
            "init_from_s": jacked_s,
            "ratio": jacked_s / git_s,
            "budget_ratio": 3.0,
        }


def measure_ff(vault: Path, n: int = 1000) -> dict:
    """`jacked memory sync` fast-forwarding `n` new notes vs `git pull --ff-only` of the same commit,
    and the index update of those notes alone (`search` after a plain pull, the gate cold)."""
    with tempfile.TemporaryDirectory(prefix="bench-ff-") as tmp:
        base = Path(tmp)
        remote = _bare(vault, base)
        url = f"file://{remote}"
        here, plain, indexed, pusher = (base / name for name in ("here", "plain", "indexed", "pusher"))
        for clone in (here, plain, indexed, pusher):
            subprocess.run(["git", "clone", "-q", url, str(clone)], check=True)
        for clone in (here, indexed):
            _timed([*JACKED, "memory", "remote", "set", url, "--vault", str(clone)], base)
            _timed(
                [*JACKED, "memory", "search", "cache", "--vault", str(clone)], base
            )  # the index is warm, as after a day's use
        arrive(pusher, n)
        git_cli(pusher, "push", "-q", "origin", "HEAD")
        pull_s = _timed(["git", "-C", str(plain), "pull", "-q", "--ff-only"], base)
        sync_s = _timed([*JACKED, "memory", "sync", "--vault", str(here)], base)
        subprocess.run(["git", "-C", str(indexed), "pull", "-q", "--ff-only"], check=True, capture_output=True)
        search_s = _timed([*JACKED, "memory", "search", "cache", "--vault", str(indexed)], base)
        budget = 10 * pull_s + search_s
        return {"notes": _notes(plain) - n, "arriving": n, "git_pull_s": pull_s, "sync_s": sync_s,
                "index_update_s": search_s, "ratio": sync_s / pull_s, "budget_s": budget,
                "met": sync_s <= budget}  # fmt: skip


def measure_first_search(vault: Path, n: int = 10_000) -> dict:
    """The first `search` after `n` notes arrive in one commit (the index catches up on the diff):
    cold, where this machine's gate never saw those notes, and warm, where it judged them before
    (as sync does on arrival), beside `git grep -l` over the whole tree."""
    with tempfile.TemporaryDirectory(prefix="bench-first-") as tmp:
        base = Path(tmp)
        copy = base / "vault"
        subprocess.run(["git", "clone", "-q", str(vault), str(copy)], check=True)
        search = [*JACKED, "memory", "search", "cache", "--vault", str(copy)]
        _timed(search, base)  # warm index at the old head
        old = git_cli(copy, "rev-parse", "HEAD").stdout.strip()
        new = arrive(copy, n)
        cold_s = _timed(search, base)
        git_cli(copy, "update-ref", "refs/heads/main", old)  # back: the index drops the n notes (its verdicts stay)
        _timed(search, base)
        git_cli(copy, "update-ref", "refs/heads/main", new)
        warm_s = _timed(search, base)
        grep_s = _timed(["git", "-C", str(copy), "grep", "-l", "cache", "HEAD", "--", "groups"], base)
        return {
            "notes_before": _notes(copy) - n,
            "arriving": n,
            "cold_s": cold_s,
            "warm_s": warm_s,
            "git_grep_s": grep_s,
            "budget_s": 1.5,
        }


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("vault", type=Path)
    parser.add_argument("--ff", type=int, default=1000)
    parser.add_argument("--arrive", type=int, default=10_000)
    parser.add_argument("--only", choices=("clone", "ff", "first"), action="append")
    args = parser.parse_args()
    vault = args.vault.resolve()
    print(f"load average {os.getloadavg()[0]:.2f}; vault {vault}")
    runs = {
        "clone": lambda: measure_clone(vault),
        "ff": lambda: measure_ff(vault, args.ff),
        "first": lambda: measure_first_search(vault, args.arrive),
    }
    for name in args.only or list(runs):
        figures = runs[name]()
        print(
            name,
            " ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in figures.items()),
            flush=True,
        )


if __name__ == "__main__":
    main()
