"""The briefs actually given: each one the SessionStart hook printed, kept on this machine so a
person can see what an agent was told (the review page's `/brief`).

`<vault>/.git/jacked/briefs.jsonl` holds one JSON line per brief given (when, the harness, the
session id the harness named, the repo, its group, the folder the session started in, tokens, what
was trimmed, the warnings, the text). A resumed or compacted session is told only what its earlier
briefs did not carry (`carried`, `recall.brief.since`); a session whose records rotated out gets
the whole brief again.
It is machine-local (in the vault's `.git/jacked/`, which git never writes) and bounded: a text is cut at MAX_TEXT
characters, the file is rotated to `briefs.jsonl.1` once past MAX_FILE bytes, and readers look at
the newest lines of both. Recording never raises and never follows a symlink: a hook must not
fail a session for its log.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jacked_vault.document import timestamps
from jacked_vault.store.layout import state_dir
from jacked_vault.store.statefile import json_lines
from jacked_vault.store.vault import is_git_repo

if TYPE_CHECKING:
    from jacked_vault.recall.brief import Brief

LOG = "briefs.jsonl"
MAX_FILE = 256 * 1024  # then rotated: at most two files of this size
MAX_TEXT = 16 * 1024  # a brief is at most ~6,000 characters (1,500 tokens); this is room to spare
MAX_READ = 2 * MAX_FILE


def record_brief(
    vault: Path, brief: Brief, *, harness: str, cwd: Path | str | None, session: str | None = None
) -> None:
    """Append the brief just given (a `recall.brief.Brief`) for `harness` in the session `session`
    started at `cwd`; nothing when `vault` is not a vault (no `.git`); never raises."""

    try:
        vault = Path(vault)
        if not is_git_repo(vault):
            return
        cache = state_dir(vault)
        if os.path.islink(cache):
            return  # a symlinked .jacked is never followed

        text = brief.text
        record = {
            "at": timestamps.utc_now(),
            "harness": harness,
            "session": session,
            "repo": brief.identity,
            "group": brief.group,
            "cwd": str(cwd) if cwd is not None else None,
            "tokens": brief.tokens,
            "budget": brief.budget,
            "trimmed": list(brief.trimmed),
            "warnings": list(brief.warnings),
            "text": text[:MAX_TEXT],
            "text_cut": len(text) > MAX_TEXT,
        }
        line = json.dumps(record, ensure_ascii=False) + "\n"
        os.makedirs(cache, exist_ok=True)
        path = cache / LOG
        try:
            if os.lstat(path).st_size > MAX_FILE:
                os.replace(path, cache / f"{LOG}.1")
        except FileNotFoundError:
            pass
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            os.write(fd, line.encode("utf-8", "replace"))
        finally:
            os.close(fd)
    except Exception:  # the log of a hook never fails the hook
        return


def _tail(path: Path, limit: int) -> str:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return ""
    try:
        size = os.fstat(fd).st_size
        os.lseek(fd, max(0, size - limit), os.SEEK_SET)
        data = os.read(fd, limit)
    except OSError:
        return ""
    finally:
        os.close(fd)
    text = data.decode("utf-8", "replace")
    return text.split("\n", 1)[1] if size > limit and "\n" in text else text  # the first line may be cut


def briefs_given(
    cache_dir: Path,
    limit: int = 20,
    *,
    harness: str | None = None,
    repo: str | None = None,
    session: str | None = None,
) -> list[dict[str, Any]]:
    """The newest briefs given, newest first (at most `limit`), of one harness, repo identity and
    session when named. Lines that are not a brief record are skipped."""

    if os.path.islink(cache_dir):
        return []
    records = json_lines(_tail(Path(cache_dir) / f"{LOG}.1", MAX_READ)) + json_lines(
        _tail(Path(cache_dir) / LOG, MAX_READ)
    )
    out = []
    for record in reversed(records):
        if not isinstance(record.get("text"), str) or not isinstance(record.get("at"), str):
            continue
        if harness is not None and record.get("harness") != harness:
            continue
        if repo is not None and record.get("repo") != repo:
            continue
        if session is not None and record.get("session") != session:
            continue
        out.append(record)
        if len(out) >= limit:
            break
    return out


def carried(cache_dir: Path, *, harness: str, session: str, repo: str | None) -> tuple[set[str], str] | None:
    """Every line the briefs given to `session` (of `harness`, for `repo`) carried, and when the
    first was given; None when none is on record."""
    given = briefs_given(cache_dir, MAX_READ, harness=harness, repo=repo, session=session)
    if not given:
        return None
    return {line for record in given for line in record["text"].splitlines()}, given[-1]["at"]
