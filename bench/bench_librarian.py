"""What the librarian's nudge and the wikilink backlinks cost the hot paths (issue 24.3, 24.4).

    python bench/bench_librarian.py [--sizes 10000] [--repeat 15]

For each vault size (50 groups; 1 in 10 notes carries a `[[wikilink]]` to another note's file
name, written before the commit) it prints, in one run:
- the librarian's counters over the index: counted exactly (`jacked memory librarian`),
  counted up to their thresholds (what the first brief after a commit pays for the nudge) and
  read back (every later brief), in-process;
- the brief built in-process (it includes the counters), and the counters' share of it;
- the obvious alternative to the counters: `git grep -c` of superseded notes over the tree;
- `read` of the most linked note in-process (backlinks by id and by wikilink) and the
  wikilink-resolving part of it alone;
- doctor's broken-wikilink pass over every link.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._vaultgen import generate_vault, git_cli


def median_ms(fn, repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def add_wikilinks(root: Path) -> tuple[int, str]:
    """Give every tenth note a wikilink to the first note's file name; (links written, target stem)."""
    notes = sorted(root.glob("groups/*/*/*.md"))
    notes = [p for p in notes if p.name not in ("index.md", "hot.md")]
    target = notes[0].stem
    n = 0
    for path in notes[1::10]:
        text = path.read_text()
        path.write_text(re.sub(r"\n---\n", f"\n---\nSee [[{target}]].\n", text, count=1))
        n += 1
    return n, target


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000")
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    from jacked_vault.context import Context
    from jacked_vault.document.timestamps import utc_now
    from jacked_vault.notes import read
    from jacked_vault.recall.brief import build_brief
    from jacked_vault.recall.librarian import counters
    from jacked_vault.search import wikilinks
    from jacked_vault.search.index import open_fresh
    from jacked_vault.search.policy import EVERYTHING

    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            vault = Path(tmp) / "vault"
            generate_vault(vault, size, index_md=False)
            links, target = add_wikilinks(vault)
            git_cli(vault, "add", "-A")
            git_cli(vault, "commit", "-qm", "bench: wikilinks")
            repo = Path(tmp) / "code"
            repo.mkdir()
            subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
            subprocess.run(
                ["git", "-C", str(repo), "remote", "add", "origin", "git@github.com:acme/g0.git"], check=True
            )
            ctx = Context.create(vault=str(vault), cwd=repo, harness="claude")
            start = time.perf_counter()
            index = open_fresh(ctx.vault)
            built = (time.perf_counter() - start) * 1000
            now = utc_now()
            from jacked_vault.recall.librarian import _count, _reached, last_run, settings

            cold_ms = median_ms(
                lambda index=index, ctx=ctx, now=now: _count(index.read, settings(ctx), last_run(ctx) or "", now),
                args.repeat,
            )  # never run: every note is new
            bounded_ms = median_ms(
                lambda index=index, ctx=ctx, now=now: _reached(index.read, settings(ctx), last_run(ctx) or "", now),
                args.repeat,
            )
            count_ms = median_ms(lambda index=index, ctx=ctx, now=now: counters(ctx, index.read, now), args.repeat)
            target_row = index.db.execute(
                "SELECT rowid, id FROM docs WHERE path LIKE ?", (f"%/{target}.md",)
            ).fetchone()
            linking_ms = median_ms(
                lambda index=index, target_row=target_row: wikilinks.linking(index.db, target_row[0]), args.repeat
            )
            broken_ms = median_ms(lambda index=index: wikilinks.broken(index.db), max(3, args.repeat // 5))
            found = len(wikilinks.linking(index.db, target_row[0]))
            index.close()
            brief_ms = median_ms(lambda ctx=ctx: build_brief(ctx), args.repeat)
            read_ms = median_ms(
                lambda ctx=ctx, target_row=target_row: read(ctx, target_row[1], EVERYTHING), args.repeat
            )
            grep_ms = median_ms(lambda vault=vault: subprocess.run(["git", "-C", str(vault), "grep", "-c",
                                                                    'status: "superseded"', "HEAD", "--", "groups"],
                                                                   capture_output=True), args.repeat)  # fmt: skip
            print(f"{size} notes, {links} wikilinks (index built in {built:.0f} ms; {found} notes link to the target):")
            print(
                f"  librarian, exact        {cold_ms:8.1f} ms   ({cold_ms / grep_ms:.2f}x git grep -c; `jacked memory "
                "librarian`)"
            )
            print(
                f"  librarian, for a brief  {bounded_ms:8.1f} ms   ({bounded_ms / brief_ms:.0%} of the brief: each "
                "counter up to its threshold)"
            )
            print(f"  librarian, read back    {count_ms:8.1f} ms   ({count_ms / brief_ms:.0%} of the brief)")
            print(f"  brief (with the nudge)  {brief_ms:8.1f} ms")
            print(f"  git grep -c superseded  {grep_ms:8.1f} ms")
            print(f"  read (backlinks)        {read_ms:8.1f} ms   (wikilink backlinks alone {linking_ms:.1f} ms)")
            print(f"  broken-wikilink pass    {broken_ms:8.1f} ms   (doctor, every link resolved)")


if __name__ == "__main__":
    main()
