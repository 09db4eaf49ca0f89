"""Capturing one harness session: one episodic entry always, at most one candidate note.

`capture_session(ctx, payload, reader=…)` for a SessionEnd or PreCompact hook payload, or the
hook event that ends a turn of a harness without a session end (`reader.turn_end`), once the
session is quiet; `reader` is the adapter of the harness that ran the session (`readers`):

1. skip what is not a session worth an entry: a payload that is not one, a subagent
   (payload `agent_id`, an `agent-*.jsonl` transcript, or every entry `isSidechain`), a cwd
   outside any repo, a missing/unreadable transcript, fewer than MIN_HUMAN human messages;
2. ask the distiller (distiller.py) with a bounded excerpt, newest turns first;
3. append one entry (`## HH:MM | <branch>` + the distilled sentence, or a deterministic one
   when the distiller is missing or failed); PreCompact entries start `compact handover: `;
4. create at most one `candidate` note, only from a valid distilled answer, and never one
   that parrots the transcript's user text (prompt injection) or was tombstoned;
5. when the distillation failed in a way a retry may fix, queue a marker for it.

Idempotent per capture key (`queue.capture_key`): `.git/jacked/captured.json` remembers the keys
whose entry is written and whether the distillation is still pending, so a retry only tries
the note and never writes a second entry. A per-key lock keeps two processes from capturing
the same key at once.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from jacked_vault.capture.distiller import (
    Answer,
    DistilledNote,
    DistillFailure,
    build_prompt,
    distill,
    resolve_distiller,
)
from jacked_vault.capture.guard import parrots
from jacked_vault.capture.queue import Attempt, capture_key, enqueue, log_line
from jacked_vault.capture.readers import SessionReader, last_activity, settled
from jacked_vault.capture.redact import clean_line, unsafe_kinds
from jacked_vault.capture.transcript import Transcript, build_excerpt, display_path
from jacked_vault.document import timestamps
from jacked_vault.document.timestamps import parse_timestamp
from jacked_vault.errors import VaultError
from jacked_vault.store.gitfiles import current_branch
from jacked_vault.store.lock import claim, store_lock
from jacked_vault.store.statefile import read_json, write_json

if TYPE_CHECKING:
    from jacked_vault.capture.queue import Handler
    from jacked_vault.context import Context
    from jacked_vault.document import Note
    from jacked_vault.store.identity import RepoInfo

EVENTS = {"SessionEnd": "session-end", "PreCompact": "pre-compact"}
MIN_HUMAN = 3
LEDGER = "captured.json"
LEDGER_LOCK = "captured.lock"
LOCK_DIR = "capturing"
MAX_LEDGER_KEYS = 2000
MAX_LEDGER_BYTES = 4 * 1024 * 1024
MAX_FILES_SHOWN = 4
MAX_FILE_CHARS = 80


@dataclass
class CaptureResult:
    """What one capture did.

    `skipped` says why nothing was written (then the other fields are empty). `fallback`
    names the distiller failure when the deterministic sentence was used (or the note retry
    failed); `retry` says the distillation should be tried again; `queued` is the marker this
    call wrote for that (only with `enqueue_retry`). `note_refused` is the error code of a
    distilled note that was not created (PARROT, TOMBSTONED, SECRET, VALIDATION, …);
    `note_duplicate` says `note_id` is a live note the distilled one repeats (nothing written).
    """

    key: str | None = None
    event: str | None = None
    skipped: str | None = None
    entry_path: str | None = None
    entry_commit: str | None = None
    note_id: str | None = None
    note_path: str | None = None
    note_refused: str | None = None
    note_duplicate: bool = False
    fallback: str | None = None
    retry: bool = False
    queued: str | None = None

    def summary(self) -> str:
        if self.skipped:
            return f"skipped ({self.skipped})"
        parts = [f"entry {self.entry_path}" if self.entry_path else "entry already written"]
        if self.note_id:
            parts.append(
                f"note {self.note_id}" + (" (already saved: the same note is live)" if self.note_duplicate else "")
            )
        if self.note_refused:
            parts.append(f"note refused ({self.note_refused})")
        if self.fallback:
            parts.append(f"fallback ({self.fallback})")
        if self.retry:
            parts.append("retry pending")
        return ", ".join(parts)


# --- the per-key lock and the ledger ---------------------------------------------------------


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "replace")).hexdigest()[:32]


def key_lock(cache: Path, key: str) -> AbstractContextManager[int | None]:
    """One capture of `key` at a time: a claim on `.git/jacked/capturing/<hash>.lock` (None if taken)."""

    return claim(cache / LOCK_DIR / f"{_hash(key)}.lock", create=True)


@contextmanager
def _ledger(cache: Path) -> Iterator[dict[str, Any]]:
    """The capture ledger under its lock: {key: {"entry", "pending", "note", "at"}}; saved on exit."""

    with store_lock(cache, name=LEDGER_LOCK):
        data = read_json(cache / LEDGER, MAX_LEDGER_BYTES) or {}
        keys = data["keys"] if isinstance(data.get("keys"), dict) else {}
        if data and not isinstance(data.get("keys"), dict):
            log_line(cache, f"capture: {LEDGER} unreadable; starting a new one")
        before = json.dumps(keys, sort_keys=True)
        yield keys
        if json.dumps(keys, sort_keys=True) != before:
            if len(keys) > MAX_LEDGER_KEYS:
                newest = sorted(keys, key=lambda k: str(keys[k].get("at", "")))[-MAX_LEDGER_KEYS:]
                keys = {k: keys[k] for k in newest}
            write_json(cache / LEDGER, {"version": 1, "keys": keys})


def _ledger_get(cache: Path, key: str) -> dict[str, Any] | None:
    with _ledger(cache) as keys:
        value = keys.get(key)
    return value if isinstance(value, dict) else None


def _ledger_set(cache: Path, key: str, **fields: object) -> None:
    with _ledger(cache) as keys:
        current = found if isinstance(found := keys.get(key), dict) else {}
        keys[key] = {**current, **fields, "at": timestamps.utc_now()}


# --- the deterministic sentence and the parrot check ------------------------------------------


def fallback_sentence(transcript: Transcript, branch: str, cwd: str | None) -> str:
    """`Worked on <branch>: edited a.py, b.py (N requests)`, with no secret in it.

    Nothing the person typed is copied: a pasted message may carry instructions (or a secret),
    and the next session's brief would show it.
    """

    edited = [p for p, was_edited in transcript.files if was_edited]
    verb, paths = ("edited", edited) if edited else ("touched", [p for p, _ in transcript.files])
    shown = [clean_line(display_path(p, cwd), MAX_FILE_CHARS) for p in paths[-MAX_FILES_SHOWN:]]
    files = (
        f"{verb} {', '.join(shown)}" + (f" (+{len(paths) - len(shown)} more)" if len(paths) > len(shown) else "")
        if shown
        else ""
    )
    asked = f" ({transcript.human_count} requests)" if transcript.human_count else ""
    head = f"Worked on {clean_line(branch, 120)}"
    candidates = [
        head + (f": {files}" if files else "") + asked,
        head + asked,  # a file name looked like a secret
    ]
    for sentence in candidates:
        if not unsafe_kinds(sentence):
            return sentence
    return "Worked in a coding-agent session"


# --- helpers --------------------------------------------------------------------------------


def _payload_is_subagent(payload: dict[str, Any]) -> bool:
    if payload.get("agent_id") or payload.get("isSidechain") is True:
        return True
    path = payload.get("transcript_path")
    return isinstance(path, str) and os.path.basename(path).startswith("agent-")


def _note_from(ctx: Context, answer_note: DistilledNote, origin: str, identity: str) -> Note:
    from jacked_vault.write.create import build_note

    return build_note(
        title=answer_note.title,
        body=answer_note.body,
        kind=answer_note.kind,
        scope="group",
        group=ctx.group,
        repos=[identity],
        source_harness=ctx.harness,
        origin=origin,
        tags=list(answer_note.tags),
        status="candidate",
    )


# --- the capture ------------------------------------------------------------------------------


def capture_session(
    ctx: Context,
    payload: dict[str, Any],
    *,
    reader: SessionReader,
    key: str | None = None,
    when: datetime | None = None,
    enqueue_retry: bool = True,
) -> CaptureResult:
    """Capture one session (see the module docstring), read by `reader`. Skips are results, not errors.

    Raises only for infrastructure failures (no vault, lock timeout, git, disk): the caller
    (the queue's drain) keeps its marker and retries. `key` defaults to
    `queue.capture_key(payload)`; `when` (aware) is the entry's time, default now.
    """
    if not isinstance(payload, dict):
        return CaptureResult(skipped="bad-payload")
    event = payload.get("hook_event_name")
    origin = EVENTS.get(event) if isinstance(event, str) else None
    turn_end = event is not None and reader.turn_end == event
    if turn_end:
        origin = "session-end"
    if origin is None:
        return CaptureResult(event=str(event)[:40] if event else None, skipped="unsupported-event")
    path = payload.get("transcript_path")
    if not isinstance(path, str) or not path.strip():
        return CaptureResult(event=event, skipped="no-transcript")
    if _payload_is_subagent(payload):
        return CaptureResult(event=event, skipped="subagent")
    repo = ctx.repo
    if repo is None:
        return CaptureResult(event=event, skipped="no-repo")
    if ctx.settings.agents == "off":
        return CaptureResult(event=event, skipped="read-only")
    if turn_end:  # the end of a turn, not of the session: wait until the session is quiet
        if not settled(path):
            return CaptureResult(event=event, skipped="session-active")
        key = capture_key(payload)  # with the transcript's size now: a session resumed later is captured again
        quiet = last_activity(path)
        when = datetime.fromtimestamp(quiet).astimezone() if quiet is not None else when
    store = ctx.vault
    cache = store.state
    key = key or capture_key(payload)
    result = CaptureResult(key=key, event=event)
    with key_lock(cache, key) as held:
        if held is None:
            result.skipped = "in-progress"
            return result
        prior = _ledger_get(cache, key)
        if prior is not None and not prior.get("pending"):
            result.skipped = "already-captured"
            return result
        transcript = reader.read_transcript(payload)
        skip = None
        if not transcript.found:
            skip = f"transcript-{transcript.problem}"
        elif transcript.is_sidechain:
            skip = "subagent"
        elif transcript.human_count < MIN_HUMAN:
            skip = "too-short"
        if skip:
            if prior is not None:  # the retry can never succeed now; the entry stays
                _ledger_set(cache, key, pending=False)
            result.skipped = skip
            return result
        _capture(ctx, payload, result, transcript, prior, origin, repo, when)
    if result.retry and enqueue_retry:
        result.queued = str(enqueue(cache, payload, key=key, tries=1, error=f"distiller {result.fallback}"))
    return result


def _capture(
    ctx: Context,
    payload: dict[str, Any],
    result: CaptureResult,
    transcript: Transcript,
    prior: dict[str, Any] | None,
    origin: str,
    repo: RepoInfo,
    when: datetime | None,
) -> None:
    from jacked_vault.episodic.entries import COMPACT_PREFIX, Entry, append_entry
    from jacked_vault.search.index import rejected_elsewhere
    from jacked_vault.write.create import create_note

    store = ctx.vault
    cache = store.state
    key = result.key
    assert key is not None, "capture_session names the key before it captures"
    branch = transcript.branch or current_branch(repo.root) or "-"
    session_cwd = transcript.cwd or (payload.get("cwd") if isinstance(payload.get("cwd"), str) else None)
    files = [display_path(p, session_cwd) for p, _ in reversed(transcript.files)]
    answer: Answer | None = None
    try:
        prompt = build_prompt(
            build_excerpt(transcript), event=result.event or "", branch=branch, repo=repo.identity, files=files
        )
        answer = distill(resolve_distiller(ctx.settings), prompt)
    except DistillFailure as failure:
        result.fallback = failure.reason
        result.retry = failure.retryable
        if failure.reason != "no-distiller":
            log_line(cache, f"capture {result.key}: {failure}")

    if prior is None:
        fallback = fallback_sentence(transcript, branch, session_cwd)
        sentences = [answer.episodic, fallback] if answer else [fallback]
        for i, sentence in enumerate(sentences):
            if origin == "pre-compact" and not sentence.startswith(COMPACT_PREFIX):
                sentence = COMPACT_PREFIX + sentence
            # a repo, so a group: ctx.group is None only outside a repo
            entry = Entry(cast(str, ctx.group), repo.identity, when or datetime.now().astimezone(), branch, sentence)
            try:
                result.entry_path, result.entry_commit = append_entry(
                    store, entry, harness=ctx.harness, origin=origin, settings=ctx.settings
                )
                break
            except VaultError as exc:
                if exc.code not in ("VALIDATION", "SECRET") or i == len(sentences) - 1:
                    raise
                log_line(cache, f"capture {result.key}: distilled sentence refused ({exc.code}); deterministic entry")
        # Still pending until the note step is done: a crash before it retries the note only.
        has_note = answer is not None and answer.note is not None
        _ledger_set(cache, key, entry=result.entry_path, pending=result.retry or has_note, note=None)

    if answer is not None and answer.note is not None:
        if parrots(answer.note.title, answer.note.body, transcript.human):
            result.note_refused = "PARROT"
        else:
            try:
                created = create_note(
                    store,
                    _note_from(ctx, answer.note, origin, repo.identity),
                    settings=ctx.settings,
                    rejected_elsewhere=rejected_elsewhere(ctx, store),
                )
                result.note_id, result.note_path = created.note.id, created.display_path
                result.note_duplicate = (
                    created.duplicate_of is not None
                )  # the same note is live: answered with it, nothing written
            except VaultError as exc:
                if exc.code not in ("TOMBSTONED", "SECRET", "VALIDATION", "EXISTS"):
                    raise
                result.note_refused = exc.code
        if result.note_refused:
            log_line(cache, f"capture {result.key}: distilled note refused ({result.note_refused})")
    if prior is not None or (answer is not None and answer.note is not None):
        _ledger_set(cache, key, pending=result.retry, **({"note": result.note_id} if result.note_id else {}))


def retry(
    ctx_factory: Callable[[dict[str, Any]], Context], reader_of: Callable[[dict[str, Any]], SessionReader]
) -> Handler:
    """The queue's handler for session markers: capture again (the entry once, the note if it is
    still pending). `ctx_factory(payload)` builds the Context for the payload's `cwd`, and
    `reader_of(payload)` is the reader of the harness that ran the session."""

    def handle(marker: dict[str, Any]) -> Attempt:
        payload = marker["payload"]
        result = capture_session(
            ctx_factory(payload),
            payload,
            reader=reader_of(payload),
            key=marker["key"],
            when=_first_seen(marker),
            enqueue_retry=False,
        )
        if result.skipped in ("in-progress", "session-active"):
            return Attempt(result, busy=True)
        return Attempt(result, error=f"distiller {result.fallback}" if result.retry else None)

    return handle


def _first_seen(marker: dict[str, Any]) -> datetime | None:
    """The local time the session ended (the marker's first_seen), for the entry's header."""

    try:
        return parse_timestamp(marker.get("first_seen")).astimezone()
    except VaultError:
        return None
