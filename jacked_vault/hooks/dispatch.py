"""`jacked _hook <name>`: what harness hooks run. Every hook exits 0, whatever happens (fail open).

- `session-start` (synchronous): pull the vault (fetch, judging and integrating, a merge
  when the vault diverged, within a 3 s cap; never a push) when it has a remote, print the
  brief for the payload's cwd on stdout (a resumed or compacted session, `source` resume or
  compact, gets only what changed since the briefs it was given: `recall.brief.since`), and start
  a detached drain if captures are queued from earlier sessions. A pull that left the
  vault as it was logs why (`pull=timeout: …`); when the cap ran out it starts a detached `pull`
  that finishes the job, so the session never waits for the vault's size (issue 34.3), and while
  one runs a session start leaves the pull to it (`pull=background`).
- `session-end`, `pre-compact`: queue the payload (a small JSON marker, never the transcript)
  and start a detached `drain`; they return in milliseconds, so the harness's short hook budget
  can never kill a capture half-way.
- `drain` (detached): capture every queued session, roll up past day files, then sync and push
  when `settings.sync.push` is `session-end` (the default) or `after-write`.
- `push` (detached, started by a write under `after-write`): sync and push.
- `pull` (detached, started by a session start whose cap ran out): the same pull under a long cap.
- `catch-up` (detached, started by a session start whose brief found the index more than
  `SESSION_START_CATCH_UP` files behind HEAD, e.g. after a plain `git pull`): the brief read the
  index as it was; this brings it to HEAD.

Each run logs one line to `<vault>/.git/jacked/log`. Under a distiller (`capture.marker`) no hook
gets this far: `cli.main` returns 0 at once, without touching the vault or logging.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jacked_vault.store.layout import state_dir

if TYPE_CHECKING:
    from jacked_vault.harnesses.base import Harness

MAX_PAYLOAD = 1024 * 1024
HARNESS = "claude"
LOGGED_REASON = 300  # characters of a pull's reason in the log line (which holds 500)
SESSION_START_CATCH_UP = 2000  # files the brief's index catches up with first (~1 s); more: in the background


def _read_payload() -> dict[str, Any]:
    """The hook's JSON from stdin read to EOF, blocking or not (bounded); {} when absent or invalid."""
    from jacked_vault.safety.fsio import read_stream

    if sys.stdin is None or sys.stdin.isatty():
        return {}
    try:
        data = json.loads(read_stream(sys.stdin.fileno(), MAX_PAYLOAD) or b"{}")
    except (ValueError, OSError):
        return {}
    return data if isinstance(data, dict) else {}


def _vault_path(args: list[str]) -> Path:
    from jacked_vault.environment import vault_path

    explicit = args[args.index("--vault") + 1] if "--vault" in args[:-1] else None
    return vault_path(explicit)


def _harness(args: list[str]) -> str:
    """`--harness H`: which harness runs the hook (its brief, its transcripts); claude by default."""
    from jacked_vault.document.model import SLUG_RE

    named = args[args.index("--harness") + 1] if "--harness" in args[:-1] else HARNESS
    return named if SLUG_RE.fullmatch(named) else HARNESS


def spawn_hook(vault: Path, hook: str) -> None:
    """Start `jacked _hook <hook>` fully detached (`store.detached`)."""
    from jacked_vault.store import detached

    detached.spawn_hook(vault, hook)


def _queued(vault: Path) -> bool:
    from jacked_vault.store.queue import queue_counts

    return queue_counts(state_dir(vault)).pending > 0


def session_start(vault: Path, payload: dict[str, Any], harness: str = HARNESS) -> str:
    from jacked_vault.context import Context
    from jacked_vault.recall.brief import RESUMED, build_brief, since
    from jacked_vault.recall.brief_log import carried, record_brief
    from jacked_vault.store.sync_state import OK_RESULTS
    from jacked_vault.store.vault import is_git_repo
    from jacked_vault.sync import background_pull_running, pull_at_session_start

    ctx = Context.for_payload(payload, vault=str(vault), harness=harness)
    if is_git_repo(vault) and background_pull_running(ctx):  # it takes what arrives; the brief won't wait
        note = " pull=background"
    elif is_git_repo(vault):
        pulled = pull_at_session_start(ctx, background=True)
        note = f" pull={pulled.result}"
        if pulled.result not in (*OK_RESULTS, "no-remote"):  # the vault was left as it was: say why
            note += f": {pulled.message[:LOGGED_REASON]}"
    else:
        note = " no-vault"
    brief = build_brief(ctx, catch_up=SESSION_START_CATCH_UP)
    if brief.behind:  # answered from the index as it was: the next command finds it caught up
        spawn_hook(vault, "catch-up")
        note += " index=behind"
    session = payload.get("session_id") if isinstance(payload.get("session_id"), str) else None
    if session and payload.get("source") in RESUMED:  # its context still holds what it was told
        earlier = carried(state_dir(vault), harness=harness, session=session, repo=brief.identity)
        if earlier is not None:
            brief = since(brief, *earlier)
            note += f" since={payload['source']}"
    sys.stdout.write(brief.text + "\n" if harness == HARNESS else _adapter(harness).brief_output(brief.text))
    sys.stdout.flush()
    record_brief(vault, brief, harness=harness, cwd=ctx.cwd, session=session)  # for /brief and the next resume
    if _queued(vault):
        spawn_hook(vault, "drain")
        note += " drain-started"
    return f"brief {brief.tokens} tokens{note}"


HARNESS_KEY = "jacked_harness"  # which harness's session a queued payload is (its transcript format, its identity)


def session_capture(vault: Path, payload: dict[str, Any], harness: str = HARNESS) -> str:
    from jacked_vault.capture.queue import enqueue
    from jacked_vault.store.vault import is_git_repo

    if not is_git_repo(vault):
        return "no vault: nothing captured"
    key = _adapter(harness).capture_key(payload) if harness != HARNESS else None
    marker = enqueue(state_dir(vault), {**payload, HARNESS_KEY: harness}, key=key)
    spawn_hook(vault, "drain")
    return f"queued {Path(marker).name}"


def drain(vault: Path, payload: dict[str, Any], harness: str = HARNESS) -> str:
    from jacked_vault.capture import merge, session
    from jacked_vault.capture.queue import drain as drain_queue
    from jacked_vault.context import Context

    handlers = {
        "session": session.retry(
            lambda item: Context.for_payload(item, vault=str(vault), harness=_queued_harness(item)),
            lambda item: _adapter(_queued_harness(item)),  # its transcript reader
        ),
        "merge": merge.retry(vault),
    }
    report = drain_queue(handlers, state_dir(vault))
    rolled = _rollup(vault)
    return f"drained {report}; {rolled}; {_push(vault, 'session-end')}"


def _adapter(harness: str) -> Harness:
    """Another harness's payload, brief and capture key, and every queued session's transcript
    reader (its `jacked_vault.harnesses` adapter); a harness no adapter knows gets Claude's, the
    reference. Claude's own session hooks never load the registry: its payload, brief and key are
    the reference shapes (the adapter's defaults); the detached drain does."""
    from jacked_vault import harnesses

    return harnesses.find(harness) or harnesses.get(HARNESS)


def _queued_harness(payload: dict[str, Any]) -> str:
    from jacked_vault.document.model import SLUG_RE

    named = payload.get(HARNESS_KEY)
    return named if isinstance(named, str) and SLUG_RE.fullmatch(named) else HARNESS


def _push(vault: Path, trigger: str) -> str:
    from jacked_vault.context import Context
    from jacked_vault.sync import push_pending

    return push_pending(Context.create(vault=str(vault), cwd=vault, harness=HARNESS), trigger)


def pull_behind(vault: Path, payload: dict[str, Any], harness: str = HARNESS) -> str:
    """`pull` (detached, started by a session start whose cap ran out): finish that pull."""
    from jacked_vault.context import Context
    from jacked_vault.sync import finish_pull

    return finish_pull(Context.create(vault=str(vault), cwd=vault, harness=HARNESS))


def catch_up(vault: Path, payload: dict[str, Any], harness: str = HARNESS) -> str:
    """`catch-up` (detached, started by a session start whose brief read an index far behind HEAD):
    bring the vault's index up to HEAD."""
    from jacked_vault.search.index import SearchIndex
    from jacked_vault.store.layout import Store

    index = SearchIndex(Store(vault))
    try:
        index.refresh()
        return f"index={index.read.count()} notes at {(index.read.commit or '')[:12]}"
    finally:
        index.close()


def push_after_write(vault: Path, payload: dict[str, Any], harness: str = HARNESS) -> str:
    """`push` (detached, started by a write when `settings.sync.push` is `after-write`)."""
    return _push(vault, "after-write")


def _rollup(vault: Path) -> str:
    from jacked_vault.context import Context
    from jacked_vault.episodic.rollup import rollup

    ctx = Context.create(vault=vault, cwd=vault, harness=HARNESS)
    result = rollup(ctx.vault, harness=HARNESS, origin="session-end", settings=ctx.settings)
    return f"rollup {'changed' if result.changed else 'nothing to do'}"


HOOKS = {
    "session-start": session_start,
    "session-end": session_capture,
    "pre-compact": session_capture,
    "drain": drain,
    "push": push_after_write,
    "pull": pull_behind,
    "catch-up": catch_up,
}


SESSION_HOOKS = ("session-start", "session-end", "pre-compact")  # a harness's; the others are the vault's


def run_hook(args: list[str]) -> int:
    """Run one hook; log one line; return 0 no matter what."""
    from jacked_vault.store.log import log_line
    from jacked_vault.store.vault import is_git_repo

    name = args[0] if args else ""
    started = time.monotonic()
    vault = None
    try:
        vault = _vault_path(args[1:])
        handler = HOOKS.get(name)
        if handler is None:
            outcome = f"unknown hook {name!r}"
        else:
            harness = _harness(args[1:])
            payload = {} if name in ("drain", "push", "pull", "catch-up") else _read_payload()
            if payload and harness != HARNESS:
                payload = _adapter(harness).adapt(payload)
            outcome = handler(vault, payload, harness)
    except BaseException as exc:
        outcome = f"error {type(exc).__name__}: {exc}"
    if vault is not None and is_git_repo(vault):
        tag = (
            f" harness={_harness(args[1:])}" if name in SESSION_HOOKS else ""
        )  # whose session: `status` tells per harness
        log_line(state_dir(vault), f"hook={name} {outcome} ({(time.monotonic() - started) * 1000:.0f} ms){tag}")
    return 0
