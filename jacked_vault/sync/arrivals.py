"""What the remote brings, judged before anything moves (SPEC 3, 5.0, 10).

The remote is a collaborator, not an authority. Every file it added, changed or deleted since
the merge base is looked at:

- refused (sync stops, HEAD does not move): a path under `.jacked/` or any other hidden path
  (machine-local state, never taken from a remote), a symlink or anything that is not a plain
  file, a path outside the vault layout, a local symlink in the way, a change to this machine's
  own audit log, and a `.gitignore`, `vault.json` or audit file that fails the gate (these would
  break or poison every later command);
- quarantined (not taken: the committed local version is kept, the arriving bytes go to
  `.git/jacked/quarantine/`, the quarantine is audited and reported): a note, hot.md, episodic file or
  README.md that fails the gate (an invalid file, a secret, over its cap, a rejected or forgotten
  value); a note change that is not a chain of SPEC 5.2 transitions (a changed title
  or body: notes are create-only for arrivals too), unless it is another machine's settling of
  two transitions of the note made apart (`lifecycle.settles`, vouched for by its `resolve` audit
  line: a reject is never undone); a note added or changed without its audit
  line, and a hot.md, episodic file, README.md or vault.json changed without an audit line for
  its path and new sha256 (`VOUCHED_KINDS`: every file jacked writes there has one); a note that
  reuses an id this store already has; a tombstone file that lost lines
  (tombstones only grow: the union is kept);
- derived (index.md): never taken; regenerated here;
- archived: a note moved into `archive/` is judged like any transition, and must be closed
  (superseded or expired, `lifecycle.moves`); a note leaving `archive/` is quarantined;
- forgotten: a note a person forgot on another machine (its deletion with a `forget` audit line
  for that id and path) is deleted here too, as the transition it is (SPEC 5.2); so is an
  episodic file whose removal arrives audited (a rollup renames each day file it rolls);
- signed (SPEC 5.5 as amended): where this machine names trusted keys, an accept (a note that
  arrives newly `reviewed`) or a forget is taken only when git verifies its commit against them
  (`store.reviews.signed_between`); unsigned, it is quarantined (`UNSIGNED_REVIEW`,
  `UNSIGNED_FORGET`: the local note is kept as it was);
- deleted: files the remote removed (kept unless `--accept-deletions`, which deletes notes only).

A note that holds a rejected value but was made before its machine knew of the rejection (and
arrives with its audit line) is taken and rejected here, like every live note that holds a value
a rejection arriving from the remote covers (SPEC 5.3: rejecting a value rejects every live note
that holds it), so every machine ends with the same note, rejected. A note that holds a
forgotten value is never taken, whatever its status or audit lines (quarantined as FORGOTTEN: the
pusher's own audit line never lifts a tombstone), and a forget arriving removes every note here
that holds the value (sync's integration commit), so the text is gone on every machine.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from jacked_vault.document import timestamps
from jacked_vault.document.lifecycle import follows, moves, settles
from jacked_vault.errors import VaultError
from jacked_vault.safety import fsio
from jacked_vault.search.derived import Derived, derive
from jacked_vault.search.passed import Passed
from jacked_vault.search.treediff import changed_entries
from jacked_vault.store.deadline import OutOfTime
from jacked_vault.store.git import blob_at, offered_blob, read_blob
from jacked_vault.store.layout import AUDIT_DIR, Store, archived, classify_path
from jacked_vault.store.machine_state import machine_id
from jacked_vault.store.progress import PROGRESS_STEP, Progress
from jacked_vault.store.statefile import json_lines
from jacked_vault.store.tombstones import NO_STONES, Stones, Tombstoned

if TYPE_CHECKING:
    import pygit2

    from jacked_vault.document import Note
    from jacked_vault.search.parallel import Handed
    from jacked_vault.search.passed import Passed
    from jacked_vault.search.verdicts import Verdicts
    from jacked_vault.store.deadline import Deadline
    from jacked_vault.store.gate import Checked
    from jacked_vault.store.reviews import Signed

FILE_MODES = (0o100644, 0o100755)
SYMLINK_MODE = 0o120000
STOPPING_KINDS = frozenset({"gitignore", "config", "audit"})
# Layout files other than notes that arrive only with an audit line for their path and new sha256
# (hot set, capture, rollup, migrate, init, group map, a sync merge each write one; jacked writes
# no other file under archive/ than a note, so such a file never has one).
VOUCHED_KINDS = frozenset({"hot", "episodic", "readme", "config", "archive"})
# Files whose tombstone rule asks what this machine knew before the arrival (a value rejected by
# the same arrival was written before the rejection: its Markdown keeps it, and recall withholds it).
MARKDOWN_KINDS = frozenset({"hot", "episodic"})


@dataclass
class Arrivals:
    refused: list[dict[str, Any]] = field(default_factory=list)  # {"path", "why"}: sync stops
    # {"path", "code", "why", "data", "id", "moved_from"}
    quarantined: list[dict[str, Any]] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)  # paths the remote removed (moved notes excluded)
    changed: list[str] = field(default_factory=list)
    notes: dict[str, Note] = field(default_factory=dict)  # rel -> Note taken from the remote (new or transitioned)
    derived: list[str] = field(default_factory=list)  # index.md paths the remote changed: regenerated, never taken
    tombstones: dict[str, bytes] = field(default_factory=dict)  # rel -> the arriving tombstone file (merged as a union)
    rejected_here: dict[str, Note] = field(
        default_factory=dict
    )  # rel -> an arriving note holding a rejected value: taken, rejected here
    forgotten: list[str] = field(
        default_factory=list
    )  # notes a person forgot on another machine: deleted here as the transition it is
    new_stones: Stones = NO_STONES  # the rejections the remote adds, and the values it newly forgets
    # rel -> the gate's pass of each arriving note it passed (search.passed), when the caller asked
    # (`inspect_arrivals(passed=)`): the index update after the arrivals takes it for the same blob
    passed: dict[str, Passed] = field(default_factory=dict)

    def derivation(self, rel: str, note: Note) -> Derived | None:
        """What the index derives from `note` (search/derived.py), made as it arrived at `rel`: only
        for that very parse (another note at the path, or a transitioned version, is derived anew)."""
        passed = self.passed.get(rel)
        return passed.derived if passed is not None and passed.checked.note is note else None

    def refusal(
        self, commit: str, *, stopped: str = "sync stopped before changing anything", then: str = "sync again"
    ) -> VaultError:
        shown = "; ".join(f"{r['path']} ({r['why']})" for r in self.refused[:10])
        more = f" and {len(self.refused) - 10} more" if len(self.refused) > 10 else ""
        return VaultError(
            "SYNC",
            f"{stopped}: the remote's {commit[:10]} brings what a vault never takes: "
            f"{shown}{more}. Ask whoever pushed it to remove those paths, then {then}",
            details={"refused": [{"path": r["path"], "why": r["why"]} for r in self.refused]},
        )

    def quarantine(
        self, rel: str, code: str, why: str, data: bytes, *, note_id: str | None = None, moved_from: str | None = None
    ) -> None:
        self.quarantined.append(
            {"path": rel, "code": code, "why": why, "data": data, "id": note_id or rel, "moved_from": moved_from}
        )


def _blob(repo: pygit2.Repository, entry: pygit2.Object) -> bytes:
    """The bytes of a plain-file tree entry (`_structural` refused every other mode)."""

    return read_blob(repo, entry.id, entry.name)


def _structural(
    store: Store, rel: str, entry: pygit2.Object | None, machine: str, in_the_way: dict[str, bool]
) -> str | None:
    """Why `rel` may never arrive, or None. `in_the_way`: folder -> whether a local symlink is
    in its way, as found so far in this judging (its files share the answer)."""

    parts = rel.split("/")
    if parts[0] == ".jacked":
        return "under .jacked/, machine-local"
    if any(p.startswith(".") for p in parts) and rel != ".gitignore":
        return "a hidden path"
    if entry is not None and entry.filemode == SYMLINK_MODE:
        return "a symlink"
    if entry is not None and entry.filemode not in FILE_MODES:
        return "not a plain file"
    if classify_path(store, rel) is None:
        return "outside the vault layout"
    if len(parts) > 2 and parts[0] == AUDIT_DIR and parts[1] == machine:
        return "this machine's own audit log"
    folder = rel.rpartition("/")[0]
    if folder not in in_the_way:
        try:
            with fsio.open_dir(store.root, parts[:-1]):
                in_the_way[folder] = False
        except FileNotFoundError:
            in_the_way[folder] = False
        except VaultError:
            in_the_way[folder] = True
    return "a local symlink is in its way" if in_the_way[folder] else None


def appended_records(data: bytes, base: bytes | None) -> list[dict[str, Any]]:
    """The audit records an arriving audit file adds to its committed version (the gate has
    checked that it only appends and that every line is a record)."""

    new = data[len(base) :] if base and data.startswith(base) else data
    return json_lines(new.decode("utf-8", "replace"))


@dataclass
class _Judge:
    """One judgement of base -> theirs: the inputs every rule needs."""

    store: Store
    repo: pygit2.Repository
    base_tree: pygit2.Tree | None
    tombstoned: Tombstoned
    local_path: Callable[[str], str | None]  # note id -> its path in this store (None: not here)
    out: Arrivals = field(default_factory=Arrivals)
    audited: dict[tuple[str, str], set[str]] = field(
        default_factory=dict
    )  # (note id, sha256) -> the ops of the arriving audit lines vouching for it
    vouched: set[tuple[str, str]] = field(default_factory=set)  # (path, sha256) of every arriving audit line
    here: Tombstoned | None = None  # the rejections this machine knew before the arrival (None: `tombstoned`)
    left: dict[str, str] = field(
        default_factory=dict
    )  # note id -> the path the base had it at, where that path changed
    moved_away: set[str] = field(default_factory=set)  # paths a taken note moved from (not deletions)
    forgets: dict[str, str] = field(default_factory=dict)  # path -> note id, from the arriving `forget` audit lines
    replaced: dict[str, tuple[str, bytes]] = field(
        default_factory=dict
    )  # path -> (the base note's id, arriving bytes): another note there
    verdicts: Verdicts | None = None  # the index's (search.verdicts): this machine's record of what its gate passed
    signed: Signed | None = None  # with trusted keys: the arriving accepts and forgets git verifies
    passes: dict[str, Checked] | None = None  # path -> the gate's pass of a note (kept when asked: `passed`)
    now: str = field(default_factory=timestamps.utc_now)  # when this judgement began: what a move is judged at
    base_blobs: dict[str, bytes | None] = field(default_factory=dict)  # path -> its merge-base bytes, read once

    def base(self, rel: str) -> bytes | None:
        """`rel`'s bytes in the merge base (None: no such file there), read once a judgement."""
        if rel not in self.base_blobs:
            self.base_blobs[rel] = blob_at(self.repo, self.base_tree, rel)
        return self.base_blobs[rel]

    def gate(self, rel: str, data: bytes, base: bytes | None, *, new: bool, kind: str = "note") -> Checked:
        from jacked_vault.store.gate import inspect

        tombstoned = self.here if kind in MARKDOWN_KINDS and self.here is not None else self.tombstoned
        checked = inspect(
            self.store, rel, data, tombstoned=tombstoned, base=base, new=new, arrival=True, verdicts=self.verdicts
        )
        if self.passes is not None and checked.note is not None:
            self.passes[rel] = checked
        return checked


def inspect_arrivals(
    store: Store,
    repo: pygit2.Repository,
    base_tree: pygit2.Tree | None,
    theirs_tree: pygit2.Tree,
    tombstoned: Tombstoned,
    local_path: Callable[[str], str | None] | None = None,
    verdicts: Verdicts | None = None,
    here: Tombstoned | None = None,
    signed: Signed | None = None,
    deadline: Deadline | None = None,
    rejected_at: Callable[[str], str | None] | None = None,
    progress: Progress | None = None,
    passed: dict[str, Passed] | None = None,
) -> Arrivals:
    """Judge every file that differs between the merge base (None: unrelated) and the remote.

    `tombstoned` answers for every rejection (and forget) known here or arriving, `here` for those
    this machine knew before (what hot.md and episodic files are judged against); `local_path`
    finds a note id in this store (an arrival may not reuse one); `verdicts` (the index's, search.verdicts)
    is where the gate records what it passed, so the search index does not judge the same bytes
    again; `signed` (where this machine names trusted keys): the arriving accepts and forgets git
    verifies, the only ones taken. `rejected_at` (value hash -> when this store's latest rejected
    note of it was rejected) weighs a person's re-add against the rejection; `progress` (store.progress)
    is told how many files are judged, of how many. `passed`: each arriving note the gate passes
    (whatever a later arrival rule says), as `search.passed.Passed`, with what a worker derived from it
    for the search index, so an index built from the same tree takes the verdict instead of
    reading and judging the note again (`init --from`). `deadline`
    (store.deadline): past it, OutOfTime between two
    files (the workers judging ahead killed), saying how many were judged; what the gate passed
    until then is in `verdicts`."""
    from contextlib import closing

    from jacked_vault.store.gate import cap_for

    machine = machine_id(store.state)
    judge = _Judge(
        store, repo, base_tree, tombstoned, local_path or (lambda _id: None), verdicts=verdicts, here=here,
        signed=signed, passes=None if passed is None else {},
    )  # fmt: skip
    out = judge.out
    audits: list[tuple[str, pygit2.Object]] = []
    later: list[tuple[str, pygit2.Object, str]] = []
    in_the_way: dict[str, bool] = {}
    for rel, entry in changed_entries(repo, base_tree, theirs_tree):
        why = _structural(store, rel, entry, machine, in_the_way)
        if why:
            out.refused.append({"path": rel, "why": why})
            continue
        kind = classify_path(store, rel)
        assert kind is not None, "_structural refuses a path outside the vault layout"
        if kind == "index":
            out.derived.append(rel)  # regenerated here; its bytes are never read
            continue
        if entry is None:
            out.deleted.append(rel)
            continue
        out.changed.append(rel)
        size = repo.odb.read_header(entry.id)[1]
        if size > cap_for(kind):
            why = f"{size} bytes is over the {cap_for(kind)}-byte cap"
            if kind in STOPPING_KINDS:
                out.refused.append({"path": rel, "why": f"TOO_LARGE: {why}"})
            else:
                out.quarantine(rel, "TOO_LARGE", why, b"")
            continue
        if kind == "audit":
            audits.append((rel, entry))
        else:
            later.append((rel, entry, kind))

    judged = 0  # files judged so far (OutOfTime says how many)
    to_judge = len(audits) + len(later)

    def on_time() -> None:  # before each file: past the deadline, stop (nothing is written while judging)
        if deadline is not None:
            deadline.check("judging")
        if progress is not None and judged % PROGRESS_STEP == 0:
            progress(judged, to_judge)

    def audits_first() -> None:  # what the notes are judged against (their audit lines), while workers judge them
        nonlocal judged
        for rel, entry in audits:
            on_time()
            _judge_audit(judge, rel, _blob(repo, entry))
            judged += 1
        judge.left = _left_ids(judge)

    handed: dict[str, Handed] = {}  # path -> what a worker handed over for a note (its bytes: taken when its blob)
    deriving = passed is not None  # what each note gives the index, derived by the workers for it
    try:
        with closing(_judged_ahead(store, repo, later, verdicts, audits_first, handed, deadline, deriving)) as items:
            for rel, entry, kind in items:
                on_time()
                given = handed.pop(rel, None)
                data = offered_blob(given.data if given is not None else None, entry.id) or _blob(repo, entry)
                if kind == "note":
                    _judge_note(judge, rel, data)
                    if passed is not None:
                        _keep_pass(judge, passed, given, rel, entry.id, data)
                elif kind == "tombstones":
                    _judge_tombstones(judge, rel, data)
                else:
                    _judge_file(judge, rel, kind, data)
                judged += 1
    except OutOfTime:
        raise OutOfTime(f"judging the {to_judge} files the remote changed ({judged} judged)") from None
    if progress is not None:
        progress(judged, to_judge)
    _keep_replaced(judge)
    _person_re_adds(judge, rejected_at)
    held = {item["moved_from"] for item in out.quarantined if item.get("moved_from")}
    out.forgotten = [
        rel for rel in out.deleted if judge.forgets.get(rel) is not None and judge.left.get(judge.forgets[rel]) == rel
    ]
    rolled = {rel for rel in out.deleted if classify_path(store, rel) == "episodic" and (rel, "") in judge.vouched}
    out.deleted = [
        rel
        for rel in out.deleted
        if rel not in judge.moved_away and rel not in held and rel not in out.forgotten and rel not in rolled
    ]  # a day file a rollup replaced by its `.done.md` (its removal audited) goes here too
    if signed is not None:
        for rel in [rel for rel in out.forgotten if judge.forgets[rel] not in signed.forgets]:
            out.forgotten.remove(rel)
            why = f"{rel}: forgotten by a commit no trusted key signed; kept here"
            out.quarantine(rel, "UNSIGNED_FORGET", why, b"", note_id=judge.forgets[rel])
    return out


def _keep_pass(
    judge: _Judge,
    passed: dict[str, Passed],
    given: Handed | None,
    rel: str,
    oid: pygit2.Oid,
    data: bytes,
) -> None:
    """Hand on the gate's pass of the note just judged at `rel` (if it passed), with what a worker
    derived from that very parse (`given`: what it handed over for the note), else derived here:
    the index takes it (a sync's preview of index.md too), so a note's text is analysed once."""
    from jacked_vault.store.audit import content_hash

    assert judge.passes is not None, "kept only when asked"
    checked = judge.passes.pop(rel, None)
    if checked is None or checked.note is None:
        return
    note = checked.note
    made = given.derived if given is not None and given.note is note else None
    if made is None:
        made = derive(note.title, note.tags, note.body, True)  # as its Entry.from_note would
    passed[rel] = Passed(oid, len(data), content_hash(data), checked, made)


def _judged_ahead(
    store: Store,
    repo: pygit2.Repository,
    later: list[tuple[str, pygit2.Object, str]],
    verdicts: Verdicts | None,
    first: Callable[[], None],
    handed: dict[str, Handed],
    deadline: Deadline | None = None,
    deriving: bool = False,
) -> Generator[tuple[str, pygit2.Object, str], None, None]:
    """`later` in its order, after `first()`; with `verdicts`, each note's content verdict is judged
    ahead in a worker process where a spare core allows (search/parallel.py: the gate here then
    finds the verdict and the parse instead of judging the bytes again, and a wait for the workers
    ends at `deadline`), `first()` running while the workers start; `handed` gets what the workers
    hand over for each note (the bytes they read; with `deriving`, what the note gives the search index)."""
    if verdicts is None:
        first()
        yield from later
        return
    from contextlib import closing

    from jacked_vault.search.parallel import ahead

    with closing(
        ahead(
            store,
            repo,
            [(rel, entry) for rel, entry, _ in later],
            verdicts,
            handed,
            meanwhile=first,
            deadline=deadline,
            deriving=deriving,
        )
    ) as items:
        for (rel, entry), (_, _, kind) in zip(items, later, strict=True):
            yield rel, entry, kind


def forgotten_between(repo: pygit2.Repository, base_tree: pygit2.Tree | None, tree: pygit2.Tree) -> dict[str, str]:
    """path -> note id for every `forget` audit line the audit files add from `base_tree` to `tree`
    (a person's forget, on either side of a merge)."""

    out: dict[str, str] = {}
    for rel, entry in changed_entries(repo, base_tree, tree):
        if entry is None or not rel.startswith(AUDIT_DIR + "/") or entry.filemode not in FILE_MODES:
            continue
        for record in appended_records(_blob(repo, entry), blob_at(repo, base_tree, rel)):
            if (
                record.get("op") == "forget"
                and isinstance(record.get("path"), str)
                and isinstance(record.get("id"), str)
            ):
                out[record["path"]] = record["id"]
    return out


def _left_ids(judge: _Judge) -> dict[str, str]:
    """note id -> base path, for every base note whose path the remote deleted or changed (where a
    note may have moved from)."""
    from jacked_vault.document import parse_note

    out = {}
    for rel in judge.out.deleted + judge.out.changed:
        if classify_path(judge.store, rel) != "note":
            continue
        data = judge.base(rel)
        if data is None:
            continue
        try:
            out[parse_note(data, source=rel).id] = rel
        except VaultError:
            continue
    return out


def _judge_audit(judge: _Judge, rel: str, data: bytes) -> None:
    base = judge.base(rel)
    try:
        judge.gate(rel, data, base, new=base is None)
    except VaultError as exc:
        code = exc.details.get("gate", exc.code)
        judge.out.refused.append({"path": rel, "why": f"{code}: {exc.message.removeprefix(rel + ': ')}"})
        return
    for record in appended_records(data, base):
        if (
            isinstance(record.get("id"), str)
            and isinstance(record.get("sha256"), str)
            and isinstance(record.get("op"), str)
        ):
            judge.audited.setdefault((record["id"], record["sha256"]), set()).add(record["op"])
        if isinstance(record.get("path"), str) and isinstance(record.get("sha256"), str | None):
            judge.vouched.add((record["path"], record.get("sha256") or ""))  # "": a removal (a rollup's is null)
        if record.get("op") == "forget" and isinstance(record.get("path"), str) and isinstance(record.get("id"), str):
            judge.forgets[record["path"]] = record["id"]


def _judge_file(judge: _Judge, rel: str, kind: str, data: bytes) -> None:
    """A layout file other than a note: through the gate, then (`VOUCHED_KINDS`) its audit line."""
    from jacked_vault.store.audit import content_hash

    base = judge.base(rel)
    try:
        judge.gate(rel, data, base, new=base is None, kind=kind)
    except VaultError as exc:
        code = exc.details.get("gate", exc.code)
        if kind in STOPPING_KINDS:
            judge.out.refused.append({"path": rel, "why": f"{code}: {exc.message.removeprefix(rel + ': ')}"})
        else:
            judge.out.quarantine(rel, code, exc.message, data)
        return
    if kind in VOUCHED_KINDS and (rel, content_hash(data)) not in judge.vouched:
        judge.out.quarantine(rel, "UNAUDITED", f"{rel}: changed without an audit line", data)


def _judge_tombstones(judge: _Judge, rel: str, data: bytes) -> None:
    """A tombstone file may only grow: what it adds is taken, what it drops is kept (the union).
    With trusted keys, a forgotten value no verified forget records is not taken (`unsigned_forgotten`)."""
    from jacked_vault.store.tombstones import check_tombstone_lines

    base = judge.base(rel)
    unsigned = unsigned_forgotten(rel, data, base, judge.signed)
    if unsigned:
        judge.out.quarantine(
            rel, "UNSIGNED_FORGET", f"{rel}: {len(unsigned)} value(s) forgotten by no commit a trusted key signed", data
        )
        data = _without(data, unsigned)
    judge.out.tombstones[rel] = data
    if base and not data.startswith(base):
        judge.out.quarantine(
            rel, "TOMBSTONES_REWRITTEN", f"{rel}: the remote removed or rewrote rejections (tombstones only grow)", data
        )
    elif check_tombstone_lines(data[len(base or b"") :]):
        judge.out.quarantine(rel, "INVALID", f"{rel}: lines that are not tombstones", data)


def _judge_note(judge: _Judge, rel: str, data: bytes) -> None:
    """A note may arrive new (with its audit line) or as the same note after transitions."""
    from jacked_vault.document import parse_note
    from jacked_vault.store.audit import content_hash

    base = judge.base(rel)
    base_id = _note_id(base, rel)
    try:
        note = judge.gate(rel, data, base, new=base_id is None or base_id != _note_id(data, rel)).note
        assert note is not None, "the gate parses every note it passes"
    except VaultError as exc:
        code = exc.details.get("gate", exc.code)
        if code != "TOMBSTONED" or (parse_note(data, source=rel).id, content_hash(data)) not in judge.audited:
            judge.out.quarantine(rel, code, exc.message, data)
            return
        judge.out.rejected_here[rel] = parse_note(data, source=rel)  # made before the rejection was known: rejected too
        return
    prior, moved_from = _prior(judge, rel, base, note.id)
    if prior is None:
        here = judge.local_path(note.id)
        if here is not None and here != rel:
            judge.out.quarantine(rel, "DUPLICATE_ID", f"{rel}: its id is already a note here", data, note_id=note.id)
            return
    else:
        problem = follows(prior, note)
        settled = (
            problem is not None
            and settles(prior, note)
            and "resolve" in judge.audited.get((note.id, content_hash(data)), ())
        )
        if problem and not settled:
            judge.out.quarantine(
                rel, "NOT_A_TRANSITION", f"{rel}: {problem}", data, note_id=note.id, moved_from=moved_from
            )
            return
    moved = moves(None if prior is None else archived(moved_from or rel), archived(rel), note, judge.now)
    if moved:  # into archive/ only once closed, never out of it (lifecycle.moves)
        judge.out.quarantine(rel, "NOT_A_TRANSITION", f"{rel}: {moved}", data, note_id=note.id, moved_from=moved_from)
        return
    if (note.id, content_hash(data)) not in judge.audited:
        judge.out.quarantine(
            rel, "UNAUDITED", f"{rel}: changed without an audit line", data, note_id=note.id, moved_from=moved_from
        )
        return
    if judge.signed is not None and note.trust == "reviewed" and (prior is None or prior.trust != "reviewed"):
        from jacked_vault.store.reviews import value_key

        if (note.id, value_key(note)) not in judge.signed.accepts:
            why = f"{rel}: accepted by a commit no trusted key signed"
            judge.out.quarantine(rel, "UNSIGNED_REVIEW", why, data, note_id=note.id, moved_from=moved_from)
            return
    judge.out.notes[rel] = note
    if moved_from:
        judge.moved_away.add(moved_from)
    if base_id is not None and base_id != note.id:
        judge.replaced[rel] = (base_id, data)


def latest_rejection(value: str, arrivals: Arrivals, rejected_at: Callable[[str], str | None] | None) -> str | None:
    """When `value` was last rejected: the latest rejected note of it, arriving or held here."""
    from jacked_vault.store.tombstones import tombstone_hash

    times = [
        note.updated_at
        for note in arrivals.notes.values()
        if note.status == "rejected" and tombstone_hash(note.title, note.body) == value
    ]
    held = rejected_at(value) if rejected_at is not None else None
    if held is not None:
        times.append(held)
    return max(times, default=None)


def _person_re_adds(judge: _Judge, rejected_at: Callable[[str], str | None] | None) -> None:
    """An arriving note holding a rejected value that a person saved on purpose (its audit line
    `tombstones.LIFT_OP`) after the value's latest rejection (`tombstones.lifts`) is taken as it
    is, not rejected here: the newer decision wins. Where this machine names trusted keys, only
    a lift a trusted key signed counts, as for an accept (anyone who can push can write the line)."""
    from jacked_vault.store.tombstones import LIFT_OP, lifts, tombstone_hash

    out = judge.out
    lifted = {note_id for (note_id, _), ops in judge.audited.items() if LIFT_OP in ops}
    if judge.signed is not None:
        lifted &= judge.signed.lifts
    for rel, note in sorted(out.rejected_here.items()):
        rejected = latest_rejection(tombstone_hash(note.title, note.body), out, rejected_at)
        if note.id in lifted and lifts(note.status, note.origin, note.created_at, rejected):
            out.notes[rel] = out.rejected_here.pop(rel)


def _note_id(data: bytes | None, rel: str) -> str | None:
    from jacked_vault.document import parse_note

    if data is None:
        return None
    try:
        return parse_note(data, source=rel).id
    except VaultError:
        return None


def _keep_replaced(judge: _Judge) -> None:
    """A note arriving at the path of another note the base held, which did not move elsewhere,
    would make that note vanish: the arrival is quarantined and the local note kept."""
    taken = {note.id for note in judge.out.notes.values()}
    for rel, (base_id, data) in judge.replaced.items():
        if base_id not in taken:
            note = judge.out.notes.pop(rel)
            judge.out.quarantine(
                rel,
                "REPLACES_A_NOTE",
                f"{rel}: another note arrives in place of one this vault holds",
                data,
                note_id=note.id,
            )


def _prior(judge: _Judge, rel: str, base: bytes | None, note_id: str) -> tuple[Note | None, str | None]:
    """The version of `note_id` the merge base had (at `rel`, or at the path it moved from), and
    that path when it moved; (None, None) for a new note."""
    from jacked_vault.document import parse_note

    path = judge.left.get(note_id)
    if path is None:
        return None, None
    data = base if path == rel else judge.base(path)
    assert data is not None, "judge.left holds only paths whose base blob was read (_left_ids)"
    return parse_note(data, source=path), (None if path == rel else path)


def arrival_tombstones(
    repo: pygit2.Repository, base_tree: pygit2.Tree | None, theirs_tree: pygit2.Tree, signed: Signed | None = None
) -> Stones:
    """What the tombstone files the remote changed say (a reject writes a rejection with the
    rejected note, a forget a forgotten value), so an arrival is judged against every rejection
    and forget either side knows; with trusted keys (`signed`), only the forgotten values a
    verified forget records."""
    from jacked_vault.store.tombstones import TOMBSTONE_DIR

    files = []
    for rel, entry in changed_entries(repo, base_tree, theirs_tree):
        if entry is not None and rel.startswith(TOMBSTONE_DIR + "/") and entry.filemode in FILE_MODES:
            data = _blob(repo, entry)
            unsigned = unsigned_forgotten(rel, data, blob_at(repo, base_tree, rel), signed)
            files.append((rel, _without(data, unsigned) if unsigned else data))
    return Stones.read(files)


def unsigned_forgotten(rel: str, data: bytes, base: bytes | None, signed: Signed | None) -> set[str]:
    """The values an arriving forgotten-tombstone file adds that no forget a trusted key signed
    records (nothing without trusted keys): forgetting deletes notes on every machine, so where
    this machine asks for signatures a forgotten value needs one as much as the forget does."""
    from jacked_vault.store.tombstones import is_forgotten_file, parse_tombstones

    if signed is None or not is_forgotten_file(rel):
        return set()
    return parse_tombstones(data) - parse_tombstones(base or b"") - signed.forgotten


def _without(data: bytes, values: set[str]) -> bytes:
    """A tombstone file's bytes without the lines of `values`."""
    lines = data.splitlines(keepends=True)
    return b"".join(line for line in lines if line.strip().decode("ascii", "replace") not in values)


def keep_quarantined(store: Store, arrivals: Arrivals) -> list[dict[str, Any]]:
    """Keep each quarantined arrival's bytes in `.git/jacked/quarantine/` (never recalled, never
    committed); returns `{"path", "code"}` for each."""
    from jacked_vault.store.gate import quarantine

    for item in arrivals.quarantined:
        quarantine(store, item["path"], item["data"], f"{item['code']}: arrived from the remote", "sync")
    return [{"path": item["path"], "code": item["code"]} for item in arrivals.quarantined]
