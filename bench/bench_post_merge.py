"""Post-merge figures: the hook's foreground time and capture-merge on a 5,000-file merge.

    python bench/bench_post_merge.py [--repeat 20] [--files 5000] [--vault-notes 1000] [--json FILE]

1. Hook foreground: the same `git merge --no-ff` run `--repeat` times in a real repo with
   the installed hook and without it (the branch is reset between runs; the merge commit
   is identical, so each detached capture finds it already captured). The figure is the
   median wall time with the hook minus the median without it; the hook script run
   directly (`sh .git/hooks/post-merge 0`, same env) is printed too. Each run waits for the
   detached capture's log line before the next, so a background capture never overlaps a
   measurement.
2. capture-merge on a merge touching `--files` files (each file changed on the branch, two
   commits): in-process `capture_merge(ctx, repo, merge_commit=sha)` and the CLI the hook
   starts (`jacked memory capture-merge --repo R --commit SHA --json`, wall time including
   Python start-up), each on a fresh copy of a vault holding `--vault-notes` notes whose
   search index is warm (as in use: every command refreshes it; the cold build is printed
   for information), median of `--repeat-capture` runs; plus the note's body and file size.

No gh and no distiller are on PATH (the deterministic path: what is measured is our code,
not a network call or a model). Budgets: hook foreground <= 50 ms; capture-merge <= 2 s
(CLI wall) with the note body < 64 KiB.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

try:
    from _vaultgen import generate_vault
except ImportError:  # imported as bench.bench_post_merge
    from bench._vaultgen import generate_vault

import pygit2

from jacked_vault.capture.merge import capture_merge
from jacked_vault.context import Context
from jacked_vault.gitflow.githooks import install_git_hook
from jacked_vault.store.layout import state_dir

HOOK_BUDGET_MS = 50.0
CAPTURE_BUDGET_S = 2.0
BODY_CAP = 64 * 1024


def _env(vault: Path, home: Path) -> dict:
    path = os.pathsep.join(
        p
        for p in os.environ.get("PATH", "").split(os.pathsep)
        if p and not any(os.path.exists(os.path.join(p, n)) for n in ("gh", "claude"))
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("JACKED_")}
    env.update(
        JACKED_VAULT_DIR=str(vault),
        HOME=str(home),
        PATH=path,
        GIT_AUTHOR_NAME="bench",
        GIT_AUTHOR_EMAIL="bench@localhost",
        GIT_COMMITTER_NAME="bench",
        GIT_COMMITTER_EMAIL="bench@localhost",
        GIT_AUTHOR_DATE="2026-01-01T00:00:00Z",
        GIT_COMMITTER_DATE="2026-01-01T00:00:00Z",
    )
    return env


def git(root: Path, env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["git", "-C", str(root), "-c", "gc.auto=0", *args], env=env, check=True, capture_output=True, text=True
    )


def _log_count(vault: Path) -> int:
    try:
        return sum(1 for line in (state_dir(vault) / "log").read_text().splitlines() if " post-merge " in line)
    except FileNotFoundError:
        return 0


def _wait_log(vault: Path, count: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while _log_count(vault) < count:
        if time.monotonic() > deadline:
            raise SystemExit(f"the detached capture did not log within {timeout}s")
        time.sleep(0.01)


def bench_hook(work: Path, repeat: int) -> dict:
    vault = work / "hook-vault"
    from jacked_vault.write.init import init_vault

    init_vault(vault)
    env = _env(vault, work)
    repo = work / "hook-repo"
    git(work, env, "init", "-q", "-b", "main", str(repo))
    git(repo, env, "remote", "add", "origin", "git@github.com:bench/hook.git")
    (repo / "a.txt").write_text("a\n")
    git(repo, env, "add", "a.txt")
    git(repo, env, "commit", "-q", "-m", "init")
    base = git(repo, env, "rev-parse", "HEAD").stdout.strip()
    git(repo, env, "checkout", "-q", "-b", "feat")
    (repo / "b.txt").write_text("b\n")
    git(repo, env, "add", "b.txt")
    git(repo, env, "commit", "-q", "-m", "b")
    git(repo, env, "checkout", "-q", "main")

    def merge_once() -> float:
        git(repo, env, "reset", "-q", "--hard", base)
        start = time.perf_counter()
        git(
            repo,
            env,
            "merge",
            "-q",
            "--no-ff",
            "feat",
            "-m",
            "Merge pull request #1 from bench/feat",
            "-m",
            "Bench merge",
        )
        return (time.perf_counter() - start) * 1000

    without = [merge_once() for _ in range(repeat)]
    install_git_hook(repo)
    with_hook = []
    for _ in range(repeat):
        seen = _log_count(vault)
        with_hook.append(merge_once())
        _wait_log(vault, seen + 1)
    direct = []
    hook = repo / ".git" / "hooks" / "post-merge"
    for _ in range(repeat):
        seen = _log_count(vault)
        start = time.perf_counter()
        subprocess.run(["sh", str(hook), "0"], cwd=repo, env=env, check=True)
        direct.append((time.perf_counter() - start) * 1000)
        _wait_log(vault, seen + 1)
    return {
        "merge_no_hook_ms": statistics.median(without),
        "merge_with_hook_ms": statistics.median(with_hook),
        "hook_foreground_ms": statistics.median(with_hook) - statistics.median(without),
        "hook_direct_ms": statistics.median(direct),
        "hook_direct_p90_ms": sorted(direct)[int(0.9 * (len(direct) - 1))],
        "notes_created": len(list((vault / "groups").glob("*/decision/*.md"))),
    }


def _big_merge(work: Path, env: dict, files: int) -> tuple[Path, str]:
    repo_dir = work / "big-repo"
    repo = pygit2.init_repository(str(repo_dir), initial_head="main")
    repo.remotes.create("origin", "git@github.com:bench/big.git")
    sig = pygit2.Signature("bench", "bench@localhost", 1767225600, 0)

    def tree_of(content: str) -> pygit2.Oid:
        top = repo.TreeBuilder()
        dirs: dict[str, pygit2.TreeBuilder] = {}
        for i in range(files):
            folder = f"pkg{i % 50:02d}"
            builder = dirs.setdefault(folder, repo.TreeBuilder())
            builder.insert(
                f"module_{i:05d}.py", repo.create_blob(f"# module {i}\n{content}\n".encode()), pygit2.GIT_FILEMODE_BLOB
            )
        for folder, builder in dirs.items():
            top.insert(folder, builder.write(), pygit2.GIT_FILEMODE_TREE)
        return top.write()

    base = repo.create_commit("refs/heads/main", sig, sig, "init", tree_of("v = 1"), [])
    first = repo.create_commit("refs/heads/feat", sig, sig, "Rename v everywhere", tree_of("value = 1"), [base])
    second = repo.create_commit(
        "refs/heads/feat", sig, sig, "Document value", tree_of("value = 1  # the value"), [first]
    )
    message = (
        "Merge pull request #5000 from bench/feat\n\nRename v to value in every module\n\n"
        "A mechanical rename across the code base."
    )
    merge = repo.create_commit("refs/heads/main", sig, sig, message, repo[second].tree.id, [base, second])
    repo.checkout_head(strategy=pygit2.enums.CheckoutStrategy.FORCE)
    return repo_dir, str(merge)


def bench_capture(work: Path, files: int, vault_notes: int, repeat: int) -> dict:
    from jacked_vault.search.index import open_fresh
    from jacked_vault.store.vault import open_vault

    template = work / "big-vault-template"
    generate_vault(template, vault_notes)
    start = time.perf_counter()
    open_fresh(open_vault(template)).close()  # a vault in use has a warm index: every command refreshes it
    cold_index_s = time.perf_counter() - start
    env = _env(template, work)
    repo, sha = _big_merge(work, env, files)
    inproc, cli, sizes = [], [], []
    old_path = os.environ.get("PATH", "")
    os.environ["PATH"] = env["PATH"]
    try:
        for i in range(repeat):
            vault = work / f"big-vault-{i}-a"
            shutil.copytree(template, vault, symlinks=True)
            ctx = Context.create(vault=str(vault), cwd=repo, harness="git")
            start = time.perf_counter()
            report = capture_merge(ctx, repo, merge_commit=sha)
            inproc.append(time.perf_counter() - start)
            [outcome] = report.outcomes
            assert outcome.action == "created", outcome
            note = vault / outcome.path.split(":", 1)[1]
            text = note.read_text()
            sizes.append((len(text.split("\n---\n", 1)[1].encode()), note.stat().st_size))

            vault_b = work / f"big-vault-{i}-b"
            shutil.copytree(template, vault_b, symlinks=True)
            start = time.perf_counter()
            proc = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "jacked_vault.cli.main",
                    "memory",
                    "capture-merge",
                    "--repo",
                    str(repo),
                    "--commit",
                    sha,
                    "--json",
                ],
                env=dict(env, JACKED_VAULT_DIR=str(vault_b)),
                capture_output=True,
                text=True,
            )
            cli.append(time.perf_counter() - start)
            out = json.loads(proc.stdout)
            assert out["ok"] and out["merges"][0]["action"] == "created", proc.stdout + proc.stderr
            shutil.rmtree(vault, ignore_errors=True)
            shutil.rmtree(vault_b, ignore_errors=True)
    finally:
        os.environ["PATH"] = old_path
    return {
        "files": files,
        "vault_notes": vault_notes,
        "cold_index_s": cold_index_s,
        "capture_inproc_s": statistics.median(inproc),
        "capture_cli_s": statistics.median(cli),
        "note_body_bytes": max(s[0] for s in sizes),
        "note_file_bytes": max(s[1] for s in sizes),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=20, help="merges per hook figure (default 20)")
    parser.add_argument("--repeat-capture", type=int, default=5, help="captures per figure (default 5)")
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--vault-notes", type=int, default=1000)
    parser.add_argument("--json", dest="json_out")
    args = parser.parse_args()

    import jacked_vault

    print(
        f"jacked_vault from {Path(jacked_vault.__file__).parent}; python {sys.version.split()[0]}; load "
        f"{os.getloadavg()[0]:.2f}"
    )
    with tempfile.TemporaryDirectory(prefix="bench-post-merge-") as tmp:
        work = Path(tmp)
        hook = bench_hook(work, args.repeat)
        capture = bench_capture(work, args.files, args.vault_notes, args.repeat_capture)
    print(f"\nhook ({args.repeat} merges each)")
    print(f"  git merge without hook, median   {hook['merge_no_hook_ms']:8.1f} ms")
    print(f"  git merge with hook, median      {hook['merge_with_hook_ms']:8.1f} ms")
    print(f"  hook foreground (difference)     {hook['hook_foreground_ms']:8.1f} ms")
    print(
        f"  hook script run directly, median {hook['hook_direct_ms']:8.1f} ms (p90 {hook['hook_direct_p90_ms']:.1f} ms)"
    )
    print(f"  notes created by the detached captures: {hook['notes_created']} (one merge commit, idempotent)")
    print(
        f"\ncapture-merge, {capture['files']} files changed, vault of {capture['vault_notes']} notes "
        f"({args.repeat_capture} runs)"
    )
    print(f"  in-process capture_merge, median {capture['capture_inproc_s']:8.3f} s")
    print(f"  CLI capture-merge wall, median   {capture['capture_cli_s']:8.3f} s")
    print(
        f"  (information: building the template vault's search index cold took {capture['cold_index_s']:.2f} s; the "
        "runs copy it warm)"
    )
    print(
        f"  note body {capture['note_body_bytes']} bytes, file {capture['note_file_bytes']} bytes (body cap {BODY_CAP})"
    )
    checks = [
        ("hook foreground <= 50 ms", hook["hook_foreground_ms"] <= HOOK_BUDGET_MS),
        ("hook script direct <= 50 ms", hook["hook_direct_ms"] <= HOOK_BUDGET_MS),
        ("capture-merge CLI 5,000 files <= 2 s", capture["capture_cli_s"] <= CAPTURE_BUDGET_S),
        ("note body bounded (< 64 KiB)", capture["note_body_bytes"] < BODY_CAP),
    ]
    print("\nbudgets")
    for name, ok in checks:
        print(f"  {'PASS' if ok else 'MISS'}  {name}")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps({"hook": hook, "capture": capture, "checks": dict(checks)}, indent=2))
    return 0 if all(ok for _, ok in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
