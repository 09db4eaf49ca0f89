"""What `trust: reviewed` proves (SPEC 5.5): a person's accept, shown by its own commit.

A note's file may claim `reviewed`; the claim counts only when history holds the accept that
made it: a commit whose subject is `memory(accept): …`, whose `Memory-Id` names the note, whose
`Memory-Audit: <machine> <hash>` trailer names the last line of that machine's audit file in the
commit, that line recording the `accept` of the note with the sha256 of the note's blob there,
and whose note is a transition of the one its parent held (`document.lifecycle.follows`). What
was accepted is the note's value (`value_key`: everything a transition never changes), so the
note stays reviewed through later transitions and loses it if its text is ever different.

Where the machine config names an allowed-signers file (`settings.review.allowed_signers`, git's
ssh format), an accept counts only when git verifies its commit's ssh signature against that
file (`git log --format=%G?` is `G`). No signature code here: git signs and git verifies.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from jacked_vault.errors import VaultError
from jacked_vault.store.layout import AUDIT_DIR

ACCEPT_SUBJECT = "memory(accept): "
MAX_COMMITS_WALKED = 500_000
SSH_SIGNATURE = b"-----BEGIN SSH SIGNATURE-----"


@dataclass(frozen=True)
class Review:
    """One accept found in history: the note id, the value accepted, and its commit."""

    note_id: str
    value: str
    commit: str


def value_key(note) -> str:
    """The sha256 of what a person accepted: every field a transition never changes, and the body."""
    from jacked_vault.document.lifecycle import value_fields

    return hashlib.sha256(
        json.dumps(value_fields(note), sort_keys=True, ensure_ascii=False).encode("utf-8")
    ).hexdigest()


def _trailers(message: str) -> dict[str, str]:
    out = {}
    for line in message.splitlines()[1:]:
        key, sep, value = line.partition(": ")
        if sep and key.startswith("Memory-"):
            out[key] = value.strip()
    return out


def review_in(repo, commit) -> Review | None:
    """The accept `commit` is, if it is one with its evidence in place; else None."""
    from jacked_vault.document import parse_note
    from jacked_vault.document.lifecycle import follows
    from jacked_vault.store.git import blob_at

    message = commit.message or ""
    if not message.startswith(ACCEPT_SUBJECT) or len(commit.parent_ids) != 1:
        return None
    trailers = _trailers(message)
    note_id, (machine, _, last) = trailers.get("Memory-Id", ""), trailers.get("Memory-Audit", "").partition(" ")
    if not note_id or not machine or not last or "/" in machine:
        return None
    record = _last_audit_record(repo, commit, machine, last)
    if (
        record is None
        or record.get("op") != "accept"
        or record.get("id") != note_id
        or not isinstance(record.get("path"), str)
    ):
        return None
    rel = record["path"]
    data = blob_at(repo, commit.tree, rel)
    before = blob_at(repo, repo[commit.parent_ids[0]].tree, rel)
    if data is None or before is None or hashlib.sha256(data).hexdigest() != record.get("sha256"):
        return None
    try:
        note, prior = parse_note(data, source=rel), parse_note(before, source=rel)
    except VaultError:
        return None
    if (
        note.id != note_id
        or prior.id != note_id
        or note.trust != "reviewed"
        or note.status != "active"
        or follows(prior, note)
    ):
        return None
    return Review(note_id, value_key(note), str(commit.id))


def _last_audit_record(repo, commit, machine: str, last_hash: str) -> dict | None:
    """The record of the audit line the trailer names: the last line of a file of `machine` that
    this commit changed."""
    from jacked_vault.store.audit import line_hash
    from jacked_vault.store.git import read_blob

    def folder(tree) -> dict:
        try:
            entry = tree[f"{AUDIT_DIR}/{machine}"]
        except KeyError:
            return {}
        return {e.name: e.id for e in repo[entry.id]} if entry.type_str == "tree" else {}

    before = folder(repo[commit.parent_ids[0]].tree)
    for name, oid in folder(commit.tree).items():
        if before.get(name) == oid:
            continue
        lines = read_blob(repo, oid).decode("utf-8", "replace").splitlines()
        if lines and line_hash(lines[-1]) == last_hash:
            try:
                record = json.loads(lines[-1])
            except ValueError:
                return None
            return record if isinstance(record, dict) else None
    return None


def reviews_between(repo, head: str, since: str | None) -> Iterator[Review]:
    """Every accept with its evidence in the commits reachable from `head` but not from `since`."""
    import pygit2

    walker = repo.walk(head, pygit2.enums.SortMode.TOPOLOGICAL)
    if since:
        with contextlib.suppress(KeyError, ValueError, pygit2.GitError):
            walker.hide(since)
    for n, commit in enumerate(walker):
        if n >= MAX_COMMITS_WALKED:
            return
        if (commit.message or "").startswith(ACCEPT_SUBJECT):
            found = review_in(repo, commit)
            if found is not None:
                yield found


# -- signed reviews ----------------------------------------------------------------------------


def policy_digest(signers: Path | None) -> str:
    """What the index remembers of the signing policy: '' when none, else the file and its
    content's hash (a missing or unreadable file counts nothing as signed)."""
    if signers is None:
        return ""
    try:
        content = signers.read_bytes()
    except OSError:
        return f"{signers}:missing"
    return f"{signers}:{hashlib.sha256(content).hexdigest()}"


def signed_by_allowed(root: Path, repo, commit_id: str, signers: Path) -> bool:
    """True when git verifies the commit's ssh signature against the allowed-signers file."""
    import subprocess

    from jacked_vault.store.git import child_env

    try:
        signature = repo[commit_id].gpg_signature[0]
    except (KeyError, ValueError, TypeError):
        return False
    if not signature or not signature.startswith(SSH_SIGNATURE):
        return False
    try:
        proc = subprocess.run(
            ["git", "-C", str(root), "-c", f"gpg.ssh.allowedSignersFile={signers}", "log", "-1", "--format=%G?",
             commit_id],
            capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL, check=False, env=child_env(),
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0 and proc.stdout.strip() == "G"
