"""Sync of two diverged vaults: each machine adds N new notes, then `sync` merges and pushes.

    python bench/bench_sync.py [--notes 1000] [--base 1000]

Two clones of one bare `file://` remote act as two machines. Each commits N new notes (written
as the library renders them, one commit per side, so set-up is fast), the first pushes, and the
second runs `jacked_vault.sync.sync`: fetch, merge (pygit2), regenerate index.md, push.
Budget (issue 5): <= 5 s for 1,000 new notes on each side. For comparison the same merge is
done with the plain git CLI (`git pull --no-rebase` then `git push`).
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._vaultgen import generate_vault, git_cli, note_text


def add_notes(vault: Path, n: int, seed: int, harness: str) -> None:
    """Commit n new valid notes on one machine (one commit), as that machine would have written them."""
    from jacked_vault.document import render_note, slugify_title
    from jacked_vault.write.create import build_note

    rng = random.Random(seed)
    for i in range(n):
        text = note_text(rng)
        note = build_note(
            title=f"{text.title} {harness} {i}",
            body=text.body,
            kind=text.kind,
            scope="group",
            group=f"g{i % 50}",
            repos=[],
            source_harness=harness,
            origin="cli",
            tags=list(text.tags),
        )
        folder = vault / "groups" / note.group / note.kind
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{slugify_title(note.title)}.md").write_bytes(render_note(note))
    git_cli(vault, "add", "-A")
    git_cli(vault, "commit", "-q", "-m", f"{n} notes from {harness}")


def machines(base: Path, existing: int) -> tuple[Path, Path, Path]:
    from jacked_vault.context import Context
    from jacked_vault.sync import push, set_remote

    remote = base / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    a, b = base / "laptop", base / "desktop"
    generate_vault(a, existing)
    ctx = Context.create(vault=str(a), cwd=base, harness="laptop")
    set_remote(ctx, f"file://{remote}")
    push(ctx)
    subprocess.run(["git", "clone", "-q", f"file://{remote}", str(b)], check=True)
    set_remote(Context.create(vault=str(b), cwd=base, harness="desktop"), f"file://{remote}")
    return a, b, remote


def main() -> None:
    from jacked_vault.context import Context
    from jacked_vault.search.index import SearchIndex
    from jacked_vault.store.vault import open_vault
    from jacked_vault.sync import sync

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--notes", type=int, default=1000)
    parser.add_argument("--base", type=int, default=1000, help="notes both machines share before diverging")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="jacked-bench-sync-") as tmp:
        base = Path(tmp)
        (base / "jacked").mkdir()
        (base / "plain").mkdir()
        a, b, _ = machines(base / "jacked", args.base)
        for vault, name, seed in ((a, "laptop", 1), (b, "desktop", 2)):
            add_notes(vault, args.notes, seed, name)
            index = SearchIndex(open_vault(vault))
            index.refresh()  # each machine's index is warm, as after its own adds
            index.close()
        sync(Context.create(vault=str(a), cwd=base, harness="laptop"))
        started = time.perf_counter()
        result = sync(Context.create(vault=str(b), cwd=base, harness="desktop"))
        took = time.perf_counter() - started
        index = SearchIndex(open_vault(b))
        index.refresh()
        total = index.read.count()
        index.close()
        expected = args.base + 2 * args.notes
        print(
            f"sync of two vaults diverged by {args.notes} new notes each (shared {args.base}): {result.action}, "
            f"{took:.2f} s, {len(result.regenerated)} index.md regenerated, {total}/{expected} notes after  "
            f"{'PASS' if took <= 5 and total == expected else 'MISS'} (budget 5 s)"
        )

        c, d, _ = machines(base / "plain", args.base)
        add_notes(c, args.notes, 1, "laptop")
        add_notes(d, args.notes, 2, "desktop")
        git_cli(c, "push", "-q", "origin", "main")
        started = time.perf_counter()
        git_cli(d, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
        git_cli(d, "push", "-q", "origin", "main")
        plain = time.perf_counter() - started
        print(
            f"the same with the git CLI (pull --no-rebase + push, no index.md, no checks): {plain:.2f} s; ratio "
            f"{took / plain:.1f}x"
        )


if __name__ == "__main__":
    main()
