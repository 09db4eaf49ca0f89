"""Child process for tests/e2e/test_reliability.py: add notes in-process in a loop.

Usage: add_loop.py VAULT WORKDIR PREFIX COUNT HARNESS [--wait-go]

COUNT 0 means "forever" (until killed). Prints `READY` once the library is imported, then
(with --wait-go) waits for one line on stdin before adding. After each add that returned,
prints `ADDED <id> <rel>` on its own line and flushes. Titles are `<PREFIX>-<n>` and each
body carries the unique token `tok<PREFIX>x<n>` (PREFIX must be alphanumeric) so a search
can find exactly that note.
"""

from __future__ import annotations

import sys


def _warm_up(ctx) -> None:
    """Pay the lazy imports (YAML, JSON schema, secret rules, SQLite) before READY, writing nothing.

    So a kill timed from READY lands among adds, not in the first add's imports.
    """
    from jacked_vault.document import parse_note, render_note
    from jacked_vault.search.index import SearchIndex
    from jacked_vault.store.gate import check_note
    from jacked_vault.write.create import build_note

    _ = ctx.config  # read (and cache) the configuration
    note = build_note(
        title="warm up",
        body="nothing",
        kind="note",
        scope="group",
        group="g",
        repos=[],
        source_harness=ctx.harness,
        origin="cli",
    )
    check_note(note, tombstoned=None)
    parse_note(render_note(note))
    index = SearchIndex(ctx.vault)
    try:
        index.refresh()
    finally:
        index.close()


def main() -> int:
    vault, workdir, prefix, count_s, harness = sys.argv[1:6]
    wait_go = "--wait-go" in sys.argv[6:]
    count = int(count_s)

    import pygit2  # noqa: F401  (import up front so adds start immediately)

    from jacked_vault.context import Context
    from jacked_vault.notes import AddRequest, add

    ctx = Context.create(vault=vault, cwd=workdir, harness=harness)
    _warm_up(ctx)
    sys.stdout.write("READY\n")
    sys.stdout.flush()
    if wait_go:
        sys.stdin.readline()
    n = 0
    while count == 0 or n < count:
        n += 1
        created = add(
            ctx,
            AddRequest(
                title=f"{prefix}-{n}",
                body=f"Body of {prefix} number {n}; token tok{prefix}x{n}; shared word reliabilityprobe.",
                kind="note",
                group="g",
            ),
        )
        sys.stdout.write(f"ADDED {created.note.id} {created.rel}\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
