"""What `trust: reviewed` proves (SPEC 5.5 as amended), and where each review came from: the one
owner of the trust verdict every surface shows.

A note's file may claim `reviewed`; the claim counts only when history holds the accept that
made it: a commit whose subject is `memory(accept): …`, whose `Memory-Id` names the note, whose
`Memory-Audit: <machine> <hash>` trailer names the last line of that machine's audit file in the
commit, that line recording the `accept` of the note with the sha256 of the note's blob there,
and whose note is a transition of the one its parent held (`document.lifecycle.follows`). What
was accepted is the note's value (`value_key`: everything a transition never changes), so the
note stays reviewed through later transitions and loses it if its text is ever different.

Such an accept proves only that jacked's transition was run, by someone: anyone with push access
can build one by hand. So each is shown with its provenance (`Provenance`): accepted here (its
audit line is in this machine's own chain, `audit/<this machine-id>/`), accepted on machine M by
<git author> and not verified, or verified by git against a trusted key. What counts as reviewed
here (`ReviewPolicy.judge`, from the machine config's `ReviewTrust`): with an allowed-signers file
(`settings.review.allowed_signers`, git's ssh format), only accepts whose commits git verifies
against it (`git log --format=%G?` is `G` for an ssh signature); without one, this machine's own
accepts, and another machine's where `settings.review.trust_unsigned` names it. No signature
code here: git signs and git verifies. What a surface shows, the trust that counts, the claim and the
review behind it (`Verdict`), is store/trust.py's.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from jacked_vault.document.lifecycle import follows, value_fields
from jacked_vault.errors import VaultError
from jacked_vault.safety.text import strip_terminal
from jacked_vault.store.git import blob_at, read_blob, signs_commits
from jacked_vault.store.gitfiles import child_env
from jacked_vault.store.layout import AUDIT_DIR
from jacked_vault.store.machine_state import MACHINE_ID
from jacked_vault.store.trust import HERE, MACHINE, VERIFIED, Provenance

if TYPE_CHECKING:
    import pygit2

    from jacked_vault.document.model import Note
    from jacked_vault.store.settings import ReviewTrust

ACCEPT_SUBJECT = "memory(accept): "
MAX_COMMITS_WALKED = 500_000
SSH_SIGNATURE = b"-----BEGIN SSH SIGNATURE-----"
MAX_AUTHOR = 200  # a commit's author as a review shows it (data from git, cut)


@dataclass(frozen=True)
class Review:
    """One accept found in history: the note id, the value accepted, its commit, the machine whose
    audit chain holds its line, the commit's author, and whether the commit carries an ssh signature."""

    note_id: str
    value: str
    commit: str
    machine: str = ""
    author: str = ""
    signed: bool = False


@dataclass(frozen=True)
class ReviewPolicy:
    """How this machine judges an accept: its own machine id and its `ReviewTrust`."""

    machine: str
    trust: ReviewTrust

    def judge(self, review: Review, verified: bool) -> Provenance:
        here = review.machine == self.machine
        if verified:
            provenance, counts = VERIFIED, True
        else:
            provenance = HERE if here else MACHINE
            counts = self.trust.signers is None and (here or self.trust.trusts_unsigned(review.machine))
        return Provenance(provenance, review.machine, review.author, review.commit, review.signed, verified, counts)


def best(found: list[Provenance]) -> Provenance | None:
    """The accept a note's review is shown by: one that counts, verified first, then one made here."""
    ranked = sorted(found, key=lambda p: (not p.counts, not p.verified, p.provenance != HERE, p.commit))
    return ranked[0] if ranked else None


def value_key(note: Note) -> str:
    """The sha256 of what a person accepted: every field a transition never changes, and the body."""

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


def review_in(repo: pygit2.Repository, commit: pygit2.Commit) -> Review | None:
    """The accept `commit` is, if it is one with its evidence in place; else None."""
    from jacked_vault.document import parse_note

    message = commit.message or ""
    if not message.startswith(ACCEPT_SUBJECT) or len(commit.parent_ids) != 1:
        return None
    trailers = _trailers(message)
    note_id, (machine, _, last) = trailers.get("Memory-Id", ""), trailers.get("Memory-Audit", "").partition(" ")
    if not note_id or not last or not MACHINE_ID.match(machine):
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
    return Review(note_id, value_key(note), str(commit.id), machine, _author(commit), _ssh_signed(commit))


def _author(commit: pygit2.Commit) -> str:
    """The accept commit's author as a review shows it: git's `Name <email>`, terminal escapes removed, cut."""

    author = commit.author
    text = " ".join(strip_terminal(f"{author.name} <{author.email}>").split())
    return text[:MAX_AUTHOR]


def _ssh_signed(commit: pygit2.Commit) -> bool:
    """Whether the commit carries an ssh signature (what an allowed-signers file can verify)."""
    try:
        signature = commit.gpg_signature[0]
    except (ValueError, TypeError):
        return False
    return bool(signature) and signature.startswith(SSH_SIGNATURE)


def _last_audit_record(
    repo: pygit2.Repository, commit: pygit2.Commit, machine: str, last_hash: str
) -> dict[str, Any] | None:
    """The record of the audit line the trailer names: the last line of a file of `machine` that
    this commit changed."""
    from jacked_vault.store.audit import line_hash

    def folder(tree: pygit2.Tree) -> dict[str | None, pygit2.Oid]:
        try:
            entry = tree[f"{AUDIT_DIR}/{machine}"]
        except KeyError:
            return {}
        return {e.name: e.id for e in cast("pygit2.Tree", repo[entry.id])} if entry.type_str == "tree" else {}

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


def _commits_between(repo: pygit2.Repository, head: str, since: str | None) -> Iterator[pygit2.Commit]:
    """The commits reachable from `head` but not from `since` (at most MAX_COMMITS_WALKED)."""
    import pygit2

    walker = repo.walk(head, pygit2.enums.SortMode.TOPOLOGICAL)
    if since:
        with contextlib.suppress(KeyError, ValueError, pygit2.GitError):
            walker.hide(since)
    for n, commit in enumerate(walker):
        if n >= MAX_COMMITS_WALKED:
            return
        yield commit


def reviews_between(repo: pygit2.Repository, head: str, since: str | None) -> Iterator[Review]:
    """Every accept with its evidence in the commits reachable from `head` but not from `since`."""
    for commit in _commits_between(repo, head, since):
        if (commit.message or "").startswith(ACCEPT_SUBJECT):
            found = review_in(repo, commit)
            if found is not None:
                yield found


# -- signed reviews ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Signed:
    """The accepts and forgets among a range of commits (what a sync brings) that git verifies
    against this machine's trusted keys: (note id, value accepted), the ids forgotten, and the
    values those forgets record as forgotten (the lines they add to `*.forgotten.txt`)."""

    accepts: frozenset[tuple[str, str]]
    forgets: frozenset[str]
    forgotten: frozenset[str] = frozenset()
    lifts: frozenset[str] = frozenset()  # notes a person re-added over a reject (`add --allow-rejected`)


def signed_between(root: Path, repo: pygit2.Repository, head: str, since: str | None, signers: Path) -> Signed:
    """The verified accepts, forgets and lifts in the commits reachable from `head` but not from
    `since` (a forget names its notes in its `Memory-Forget` trailer, a person's re-add over a
    reject in `Memory-Lift`)."""
    reviews = list(reviews_between(repo, head, since))
    forgets: dict[str, list[str]] = {}
    lifts: dict[str, str] = {}
    for commit in _commits_between(repo, head, since):
        trailers = _trailers(commit.message or "")
        if trailers.get("Memory-Forget"):
            forgets[str(commit.id)] = trailers["Memory-Forget"].split()
        if trailers.get("Memory-Lift"):
            lifts[str(commit.id)] = trailers["Memory-Lift"]
    verified = verified_by(root, repo, [r.commit for r in reviews] + list(forgets) + list(lifts), signers)
    return Signed(
        frozenset((r.note_id, r.value) for r in reviews if r.commit in verified),
        frozenset(note_id for commit, ids in forgets.items() if commit in verified for note_id in ids),
        frozenset(value for commit in forgets if commit in verified for value in _forgotten_by(repo, commit)),
        frozenset(note_id for commit, note_id in lifts.items() if commit in verified),
    )


def _forgotten_by(repo: pygit2.Repository, commit_id: str) -> set[str]:
    """The values a forget commit adds to the forgotten-tombstone files (against its first parent)."""
    from jacked_vault.store.tombstones import FORGOTTEN_SUFFIX, TOMBSTONE_DIR, parse_tombstones

    def files(commit: pygit2.Commit) -> dict[str, bytes]:
        try:
            folder = commit.tree[TOMBSTONE_DIR]
        except KeyError:
            return {}
        return {
            e.name: cast("pygit2.Blob", repo[e.id]).data
            for e in cast("pygit2.Tree", repo[folder.id])
            if e.name is not None and e.name.endswith(FORGOTTEN_SUFFIX)
        }

    commit = cast("pygit2.Commit", repo[commit_id])
    before = files(commit.parents[0]) if commit.parents else {}
    added: set[str] = set()
    for name, data in files(commit).items():
        added |= parse_tombstones(data) - parse_tombstones(before.get(name, b""))
    return added


def person_signs(trust: ReviewTrust, repo: pygit2.Repository) -> bool:
    """Whether a person's accept or forget is signed by their git (`commit-tree -S`): always where
    this machine asks for trusted keys, and wherever their git is set up to sign."""

    return trust.signers is not None or signs_commits(repo)


def verified_by(root: Path, repo: pygit2.Repository, commits: list[str], signers: Path) -> set[str]:
    """Those of `commits` whose ssh signature git verifies against the allowed-signers file
    (`git log --format=%G?` is `G`), asked of one git process per 500 signed commits."""
    import subprocess

    signed = []
    for commit_id in dict.fromkeys(commits):
        try:
            if _ssh_signed(cast("pygit2.Commit", repo[commit_id])):
                signed.append(commit_id)
        except (KeyError, ValueError):
            continue
    out: set[str] = set()
    for start in range(0, len(signed), 500):
        chunk = signed[start : start + 500]
        try:
            proc = subprocess.run(
                ["git", "-C", str(root), "-c", f"gpg.ssh.allowedSignersFile={signers}", "log", "--no-walk=unsorted",
                 "--format=%H %G?", *chunk],
                capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL, check=False, env=child_env(),
            )  # fmt: skip
        except (OSError, subprocess.TimeoutExpired):
            continue
        if proc.returncode == 0:
            out |= {line.split()[0] for line in proc.stdout.splitlines() if line.endswith(" G")}
    return out & set(signed)
