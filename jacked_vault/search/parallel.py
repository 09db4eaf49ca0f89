"""Judge a large build's notes in worker processes while the main process writes the index.

A cold build spends about half its CPU in the gate's content rules (parse, validation, the
secret scan); they are pure, so on a machine with a spare core forked workers (one a core, at
most `MAX_WORKERS`) run the gate (`store.gate.inspect`, the one owner) over the notes ahead of
the main process, and hand back each passing note with its verdict key (and, for an index
build, what its text gives the index: search/derived.py) and the bytes they read, which the main
process takes for the file only when git's hash of them is the file's blob id (`store.git.offered_blob`:
hashing costs a tenth of reading the object again). The main process's `Verdicts` holds them as offers,
so its own `inspect` of the same bytes finds the verdict and the parse (and records the
verdict) and applies only the rules a verdict never skips (path, size, place, tombstones); a
worker also says when the gate passed a note whole (its later rules too, judged with no
tombstone), which an index build of a store without tombstones takes as the verdict itself
(`Handed.whole`: no consultation of the gate there). A note the worker refused is judged again by
the main process, which records why. Only the main
process writes SQLite. Used only with `fork` (the worker inherits the loaded code) from a
single-threaded process, a second core and at least `PARALLEL_MIN` notes; the workers run at
most `AHEAD` batches ahead (`AHEAD_MEANWHILE` while the main process does its own work first), so
memory stays bounded. Arrivals (sync/arrivals.py) are judged
the same way, within the SessionStart pull's deadline: a wait for a batch past it raises
OutOfTime, and workers a caller no longer reads from are killed and reaped, never orphaned.
"""

from __future__ import annotations

import gc
import os
import threading
from collections.abc import Callable, Container, Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from jacked_vault.search.derived import derive
from jacked_vault.search.treediff import FILE_MODES
from jacked_vault.store import git
from jacked_vault.store.deadline import Deadline, OutOfTime
from jacked_vault.store.layout import Store, classify_path

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

    import pygit2

    from jacked_vault.search.derived import Derived
    from jacked_vault.search.verdicts import Verdicts

PARALLEL_MIN = 1000  # fewer notes: starting a worker costs more than it saves
BATCH = 200
AHEAD = 8  # batches the workers may be ahead of the main process
# ... while it runs `meanwhile` (an arrival's audit lines, about 1 s at 50k notes), when it takes no
# verdict: held to `AHEAD`, the workers would wait idle (0.5 s of a 50k `init --from`). Arrivals keep
# every note's pass until the index takes them, so judging further ahead adds little to the peak
# (a 50k `init --from`: 398-401 MiB with a first wave of 8, 32, 64 or all 250 batches).
AHEAD_MEANWHILE = 64
MAX_WORKERS = 4
# While a build judges, with workers or alone, the main process makes no full collection (of the
# oldest generation; the young ones are collected as ever): each would scan every object the build
# keeps (the notes judged so far, all alive: they free nothing) and their cost grows with the build
# (15 of them, 1.45 s, in the main process of a 50k `init --from` while workers judged; 2, 0.32 s,
# in its index build from the arrivals' passes, with none). Restored when the last build ends.
FULL_COLLECTIONS_OFF = 1 << 30
_BUILDS = threading.Lock()  # guards `_building`: builds in several threads (a server) pause once
_building: list[int] = [0, 0]  # builds running, and the oldest generation's threshold before the first

_STATE: dict[str, Any] = {}  # the worker's store and repository (set in the parent before the fork)


@dataclass(frozen=True)
class Handed:
    """What a worker hands over for one note whose bytes the gate passed (or whose verdict this
    machine holds): the bytes it read (take them only when they are the file's blob:
    `store.git.offered_blob`), their verdict key and parse, whether the gate passed them whole (its
    later rules too, judged with no tombstone), and what the note's text gives the index
    (search/derived.py) when the caller asked for it (`deriving`)."""

    data: bytes
    key: bytes
    note: Any
    whole: bool
    derived: Derived | None


class _Known(Exception):
    """The main process holds the verdict on these bytes: nothing to judge (ends that note's judgement)."""


class _Kept:
    """A `store.gate.Verdicts` for the worker's batch: keeps the parse of each content it passes
    (for a note a later rule refused: that pass still counts in the main process); at bytes
    whose verdict the main process holds, stops (`_Known`), or with `parse_known` lets the gate
    parse them unjudged."""

    def __init__(self, known: frozenset[bytes], parse_known: bool) -> None:
        self._known = known
        self._parse_known = parse_known
        self.passed_now: dict[bytes, Any] = {}

    def passed(self, key: bytes) -> bool:
        if key in self._known:
            if not self._parse_known:
                raise _Known
            return True
        return False

    def remember(self, key: bytes, note: object) -> None:
        self.passed_now[key] = note

    def note(self, key: bytes) -> object | None:
        return None


def _judge(batch: list[tuple[str, str]]) -> list[tuple[str, bytes, object, bool, Derived | None, bytes]]:
    """(path, verdict key, note, whole, derived, bytes) of each note in `batch` ((path, blob id))
    whose bytes pass the gate's content rules (`whole` when the later rules, judged with no
    tombstone, passed them too: else the main process applies those again), or, when the main
    process indexes, whose verdict it holds (then parsed unjudged); with the index's `Derived`
    (search/derived.py) when it asked for it, else None. Refused, unreadable or over-size notes
    are left to the main process. Judged a stage at a time over the batch: the reads, the gate's
    rules (`store.gate.inspect_notes`), what the index derives; a fifth less CPU than note by note."""
    from jacked_vault.store.gate import cap_for, inspect_notes, verdict_key

    store, repo, known, deriving = _STATE["store"], _STATE["repo"], _STATE["known"], _STATE["deriving"]
    read: list[tuple[str, bytes]] = []
    for rel, oid in batch:
        try:
            data = git.read_capped(repo, oid, cap_for("note"), rel)[1]
        except Exception:  # unreadable: the main process says why
            continue
        if data is not None:  # else over the cap
            read.append((rel, data))
    kept = _Kept(known, parse_known=deriving)
    passed: list[tuple[str, bytes, Any, bool, bytes]] = []
    for (rel, data), found in zip(read, inspect_notes(store, read, verdicts=kept), strict=True):
        if not isinstance(found, Exception):
            assert found.key is not None and found.note is not None, "a note judged with verdicts: its key and parse"
            passed.append((rel, found.key, found.note, True, data))
        elif kept.passed_now and (key := verdict_key("note", data)) in kept.passed_now:  # a later rule refused
            passed.append((rel, key, kept.passed_now[key], False, data))
    return [
        (rel, key, note, whole, derive(note.title, note.tags, note.body, True) if deriving else None, data)
        for rel, key, note, whole, data in passed
    ]


def _load_for_workers() -> None:
    """Import, before the fork, what a worker's judgement imports on its first note (the gate,
    the reader and its generated check, the secret rules and RE2, the index's analysis): once
    here, not once in each worker."""
    import re2  # noqa: F401

    from jacked_vault.document import _note_check, reader  # noqa: F401
    from jacked_vault.safety import secrets  # noqa: F401
    from jacked_vault.search import ranking  # noqa: F401
    from jacked_vault.store import gate  # noqa: F401


def workers() -> int:
    """How many worker processes a large build may use here: 1 with a spare core and `fork` in a
    process with one thread (a fork copies no other thread, and any lock one held stays held:
    the MCP server or the UI keep their builds in one process), else 0."""
    import multiprocessing

    if threading.active_count() > 1:
        return 0

    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return min(cores, MAX_WORKERS) if cores > 1 and "fork" in multiprocessing.get_all_start_methods() else 0


def ahead(
    store: Store,
    repo: pygit2.Repository,
    files: list[tuple[str, Any]],
    verdicts: Verdicts,
    handed: dict[str, Handed] | None = None,
    meanwhile: Callable[[], None] | None = None,
    deadline: Deadline | None = None,
    *,
    deriving: bool = False,
    judged: Container[str] = (),
) -> Generator[tuple[str, Any], None, None]:
    """`files` ((path, tree entry), in the order the caller indexes them), each yielded once the
    workers' verdict on it is offered to `verdicts` (the index's `Verdicts`: taken when the gate
    there meets those bytes, withdrawn at the end for files the caller did not index);
    without a worker (`workers()`, under `PARALLEL_MIN` notes) just `files`. The workers do not
    judge again the bytes whose verdict this machine holds (`verdicts.known()`), unless `deriving`
    (an index building): then they parse those notes too and derive what each note's text gives
    the index. `handed`: `handed[path]` = what a worker hands over for the note there (`Handed`),
    for the caller to take at the file's turn; emptied at the end. `meanwhile`: the main
    process's own work that must come before the first file (an arrival's audit lines), done once
    the workers have started (without them, at once). `deadline` (store.deadline): a wait for the
    workers past it raises OutOfTime. Close it (`contextlib.closing`) when leaving early: the
    workers are then killed and reaped, never left judging what no one will read. `judged`: the
    paths the caller holds the gate's pass of already (`search.passed`): yielded in their turn,
    never judged again by a worker."""
    count = workers()
    with young_collections_only():
        if count:
            notes = [
                (n, (rel, str(e.id)))
                for n, (rel, e) in enumerate(files)
                if e.filemode in FILE_MODES and rel not in judged and classify_path(store, rel) == "note"
            ]
            if len(notes) >= PARALLEL_MIN:
                yield from _with_workers(
                    store, repo, files, notes, count, verdicts, handed, meanwhile, deadline, deriving
                )
                return
        if meanwhile is not None:
            meanwhile()
        yield from files


@contextmanager
def young_collections_only() -> Iterator[None]:
    """While a build judges (an index catching up, arrivals judged, files judged ahead), the process
    collects only the young generations (see `FULL_COLLECTIONS_OFF`); its own threshold for the
    oldest again once no build runs."""
    with _BUILDS:
        if not _building[0]:
            _building[1] = gc.get_threshold()[2]
            gc.set_threshold(*gc.get_threshold()[:2], FULL_COLLECTIONS_OFF)
        _building[0] += 1
    try:
        yield
    finally:
        with _BUILDS:
            _building[0] -= 1
            if not _building[0]:
                gc.set_threshold(*gc.get_threshold()[:2], _building[1])


def _with_workers(
    store: Store,
    repo: pygit2.Repository,
    files: list[tuple[str, Any]],
    notes: list[tuple[int, tuple[str, str]]],
    count: int,
    verdicts: Verdicts,
    handed: dict[str, Handed] | None,
    meanwhile: Callable[[], None] | None,
    deadline: Deadline | None,
    deriving: bool,
) -> Generator[tuple[str, Any], None, None]:
    """`ahead` with `count` workers judging `notes` ((position in `files`, (path, blob id)))."""
    import multiprocessing
    from concurrent.futures import Future, ProcessPoolExecutor

    batches = [notes[i : i + BATCH] for i in range(0, len(notes), BATCH)]
    first = {batch[0][0]: number for number, batch in enumerate(batches)}  # a batch is needed from its first note on
    _STATE.update(store=store, repo=repo, known=verdicts.known(), deriving=deriving)
    _load_for_workers()
    pool = ProcessPoolExecutor(max_workers=count, mp_context=multiprocessing.get_context("fork"))

    def submit(number: int) -> Future[list[tuple[str, bytes, object, bool, Derived | None, bytes]]]:
        return pool.submit(_judge, [note for _, note in batches[number]])

    finished = False
    try:
        # what is loaded so far is the workers' too: frozen, no collection in a worker writes to
        # (so copies) its pages; the first submit forks every worker
        gc.freeze()
        try:
            submitted = min(AHEAD if meanwhile is None else AHEAD_MEANWHILE, len(batches))
            pending = {number: submit(number) for number in range(submitted)}
        finally:
            gc.unfreeze()
        if meanwhile is not None:
            meanwhile()
        for position, item in enumerate(files):
            number = first.get(position)
            if number is not None and pending:
                try:
                    judged = pending.pop(number).result(timeout=None if deadline is None else deadline.left())
                except TimeoutError:  # concurrent.futures' own since 3.11
                    raise OutOfTime(f"waiting for the workers' verdicts on {len(notes)} notes") from None
                except Exception:  # a worker that died (killed, out of memory): the main process judges the rest
                    pending.clear()
                else:
                    for rel, key, note, whole, made, data in judged:
                        verdicts.offer(key, note)
                        if handed is not None:
                            handed[rel] = Handed(data, key, note, whole, made)
                    while submitted < min(len(batches), number + 1 + AHEAD):
                        pending[submitted] = submit(submitted)
                        submitted += 1
            yield item
        finished = True
    finally:
        if not finished:
            _kill_workers(pool)
        pool.shutdown(wait=True, cancel_futures=True)
        verdicts.withdraw()
        if handed is not None:
            handed.clear()
        _STATE.clear()


def _kill_workers(pool: ProcessPoolExecutor) -> None:
    """Kill the pool's worker processes (a batch can take seconds; `shutdown` then reaps them).
    ProcessPoolExecutor names its processes only in `_processes` (Python 3.14 adds `kill_workers`)."""
    for process in list((pool._processes or {}).values()):
        process.kill()
