"""Judge a large build's notes in a worker process while the main process writes the index.

A cold build spends about half its CPU in the gate's content rules (parse, validation, the
secret scan); they are pure, so on a machine with a spare core a forked worker runs the gate
(`store.gate.inspect`, the one owner) over the notes ahead of the main process, and hands back
each passing note with its verdict key. The main process's `Verdicts` holds them as offers,
so its own `inspect` of the same bytes finds the verdict and the parse (and records the
verdict) and applies only the rules a verdict never skips (path, size, place, tombstones). A
note the worker refused is judged again by the main process, which records why. Only the main
process writes SQLite. Used only with `fork` (the worker inherits the loaded code) from a
single-threaded process, a second core and at least `PARALLEL_MIN` notes; the worker runs at
most `AHEAD` batches ahead, so memory stays bounded.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from typing import Any

PARALLEL_MIN = 1000  # fewer notes: starting a worker costs more than it saves
BATCH = 200
AHEAD = 8  # batches the workers may be ahead of the main process
MAX_WORKERS = 4

_STATE: dict[str, Any] = {}  # the worker's store and repository (set in the parent before the fork)


class _Known(Exception):
    """The main process holds the verdict on these bytes: nothing to judge (ends `inspect` early)."""


class _Kept:
    """A `store.gate.Verdicts` for the worker: stops at what the main process knows, keeps what passes."""

    def __init__(self, known: frozenset[bytes]) -> None:
        self._known = known
        self.passed_now: tuple[bytes, object] | None = None

    def passed(self, key: bytes) -> bool:
        if key in self._known:
            raise _Known
        return False

    def remember(self, key: bytes, note: object) -> None:
        self.passed_now = (key, note)

    def note(self, key: bytes) -> object | None:
        return None


def _judge(batch: list[tuple[str, str]]) -> list[tuple[bytes, object]]:
    """(verdict key, note) of each note in `batch` ((path, blob id)) whose bytes pass the gate's
    content rules (whatever a later rule says: the main process applies those again); refused,
    unreadable or over-size notes are left to the main process, and so are those whose verdict
    it holds."""
    from jacked_vault.store.gate import cap_for, inspect

    store, repo, known = _STATE["store"], _STATE["repo"], _STATE["known"]
    passed = []
    for rel, oid in batch:
        kept = _Kept(known)
        try:
            if repo.odb.read_header(oid)[1] > cap_for("note"):
                continue
            inspect(store, rel, repo[oid].data, verdicts=kept)
        except Exception:  # any refusal or read error: the main process says why (a content pass still counts)
            pass
        if kept.passed_now is not None:
            passed.append(kept.passed_now)
    return passed


def workers() -> int:
    """How many worker processes a large build may use here: 1 with a spare core and `fork` in a
    process with one thread (a fork copies no other thread, and any lock one held stays held:
    the MCP server or the UI keep their builds in one process), else 0."""
    import multiprocessing
    import threading

    if threading.active_count() > 1:
        return 0

    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return min(cores, MAX_WORKERS) if cores > 1 and "fork" in multiprocessing.get_all_start_methods() else 0


def ahead(store, repo, files: list[tuple[str, Any]], verdicts) -> Generator[tuple[str, Any], None, None]:
    """`files` ((path, tree entry), in the order the caller indexes them), each yielded once the
    worker's verdict on it is offered to `verdicts` (the index's `Verdicts`: taken when the gate
    there meets those bytes, withdrawn at the end for files the caller did not index);
    without a worker (`workers()`, under `PARALLEL_MIN` notes) just `files`. The worker does not
    judge again the bytes whose verdict this machine holds (`verdicts.known()`). Close it
    (`contextlib.closing`) when leaving early."""
    import multiprocessing
    from concurrent.futures import Future, ProcessPoolExecutor

    from jacked_vault.search.treediff import FILE_MODES
    from jacked_vault.store.layout import classify_path

    notes = [
        (n, (rel, str(e.id)))
        for n, (rel, e) in enumerate(files)
        if e.filemode in FILE_MODES and classify_path(store, rel) == "note"
    ]
    count = workers()
    if len(notes) < PARALLEL_MIN or not count:
        yield from files
        return
    batches = [notes[i : i + BATCH] for i in range(0, len(notes), BATCH)]
    first = {batch[0][0]: number for number, batch in enumerate(batches)}  # a batch is needed from its first note on
    _STATE.update(store=store, repo=repo, known=verdicts.known())
    pool = ProcessPoolExecutor(max_workers=count, mp_context=multiprocessing.get_context("fork"))

    def submit(number: int) -> Future:
        return pool.submit(_judge, [note for _, note in batches[number]])

    try:
        pending = {number: submit(number) for number in range(min(AHEAD, len(batches)))}
        for position, item in enumerate(files):
            number = first.get(position)
            if number is not None and pending:
                try:
                    for key, note in pending.pop(number).result():
                        verdicts.offer(key, note)
                except Exception:  # a worker that died (killed, out of memory): the main process judges the rest
                    pending.clear()
                else:
                    if number + AHEAD < len(batches):
                        pending[number + AHEAD] = submit(number + AHEAD)
            yield item
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        verdicts.withdraw()
        _STATE.clear()
