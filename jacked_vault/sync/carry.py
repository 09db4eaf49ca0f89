"""`carry --from OLD`: the way on after the remote's history was rewritten (issue 32.6).

An old clone of a purged remote never merges with it (its history holds what was purged). The
person clones the remote afresh (`init --from URL`) and, in the new vault, carries over the notes
the old folder holds that the new one lacks: each goes through the one create path
(`write.create.create_note`: secret scan, validation, tombstones, its audit line), as the person's
own write. Nothing in the old folder is written.

- A live note (candidate or active) whose id the new vault lacks is re-created with its id, its
  text and its times; `trust` is `unreviewed` (a review does not travel by copy: accept it again)
  and `supersedes` is dropped (the notes it replaced may not be there: supersede again).
- A note the gate refuses (a secret, a rejected or forgotten value, an invalid file) and a record
  (rejected, superseded) the new vault lacks are not carried; each is named, never quoted.
- A note both hold with other bytes (a transition made here and never pushed), and a note of the
  new vault holding a value the old folder rejected or forgot, is named with the command that makes
  the change again: carry never makes a transition itself.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jacked_vault.context import Context
from jacked_vault.document.model import TRUST
from jacked_vault.errors import VaultError
from jacked_vault.search.treediff import FILE_MODES, changed_entries
from jacked_vault.store import git, gitfiles
from jacked_vault.store.layout import classify_path

if TYPE_CHECKING:
    import pygit2

    from jacked_vault.document import Note
    from jacked_vault.search.readmodel import ReadModel
    from jacked_vault.store.tombstones import Stones

LIVE = ("candidate", "active")
MAX_NOTE_FILE = 1 << 20  # a note file over this is not read (the gate's caps are far below it)


@dataclass
class Carried:
    """What `carry` did: the notes re-created here, those it left in the old folder and why, and the
    changes made there a person makes again here (`redo`: {"id", "there", "here", "command"})."""

    source: str
    carried: list[dict[str, Any]] = field(default_factory=list)  # {"id", "path", "was_reviewed", "from"}
    already: list[str] = field(default_factory=list)  # ids held here with the same bytes, or a twin
    not_carried: list[dict[str, Any]] = field(default_factory=list)  # {"id" or "path", "code"}
    redo: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "from": self.source,
            "carried": self.carried,
            "already": self.already,
            "not_carried": self.not_carried,
            "redo": self.redo,
        }

    def to_text(self) -> str:
        lines = [f"carried {len(self.carried)} note(s) from {self.source}; {len(self.already)} were here already"]
        lines += [f"  {c['id']} -> {c['path']}" for c in self.carried]
        reviewed = [c["id"] for c in self.carried if c["was_reviewed"]]
        if reviewed:
            lines.append(f"reviewed there, unreviewed here (accept again): {', '.join(reviewed)}")
        if self.not_carried:
            lines.append(f"not carried ({len(self.not_carried)}; they stay in {self.source}):")
            lines += [f"  {n.get('id') or n['path']}: {n['code']}" for n in self.not_carried]
        if self.redo:
            lines.append("changed there and not here; make the change again:")
            lines += [
                f"  {r['id']} ({r['there']} there, {r['here']} here)" + (f": `{r['command']}`" if r["command"] else "")
                for r in self.redo
            ]
        if self.carried:
            lines.append("`jacked memory sync` shares them")
        return "\n".join(lines)


@dataclass(frozen=True)
class _Old:
    """The old folder's committed notes and tombstones (HEAD, never its working tree)."""

    notes: dict[str, tuple[str, bytes, Note]]  # id -> (path, bytes, the note they hold)
    invalid: list[dict[str, Any]]  # {"path", "code"}
    stones: Stones


def carry(ctx: Context, source: str | Path) -> Carried:
    """Re-create in this vault, through the gate, the live notes the vault at `source` (an old clone
    on this machine) holds and this one lacks; name what is not carried and what to do again."""
    from jacked_vault.search.index import open_fresh

    old_root = _old_root(ctx, source)
    old = _read_old(ctx, old_root)
    result = Carried(str(old_root))
    result.not_carried += old.invalid
    index = open_fresh(ctx.vault)
    try:
        wanted = _sort(ctx, index.read, old, result)
        named = {r["id"] for r in result.redo}
        result.redo += [r for r in _values_to_redo(index.read, old) if r["id"] not in named]
    finally:
        index.close()
    for note, path in wanted:
        _create(ctx, note, path, result)
    return result


def _old_root(ctx: Context, source: str | Path) -> Path:
    """The old vault's folder: a vault (a git repository with vault.json), not this one."""

    root = Path(source).expanduser().resolve()
    if root == ctx.vault.root.resolve():
        raise VaultError("USAGE", "carry --from names this vault itself; name the old vault's folder")
    if not (root / "vault.json").is_file() or gitfiles.git_dir(root) is None:
        raise VaultError("NO_VAULT", f"no vault at {root} to carry notes from")
    return root


def _read_old(ctx: Context, root: Path) -> _Old:
    from jacked_vault.document import parse_note
    from jacked_vault.store.tombstones import Stones

    repo = git.open_repo(root)
    head = git.head_commit(repo)
    notes: dict[str, tuple[str, bytes, Note]] = {}
    invalid: list[dict[str, Any]] = []
    stones: list[tuple[str, bytes]] = []
    for rel, entry in changed_entries(repo, None, head.tree if head is not None else None):
        kind = classify_path(ctx.vault, rel)
        if entry is None or kind not in ("note", "tombstones"):
            continue
        data = _blob(repo, entry, rel)
        if data is None:
            invalid.append({"path": rel, "code": "VALIDATION"})
        elif kind == "tombstones":
            stones.append((rel, data))
        else:
            try:
                note = parse_note(data, source=rel)
            except VaultError as exc:
                invalid.append({"path": rel, "code": exc.code})
                continue
            notes[note.id] = (rel, data, note)
    return _Old(notes, invalid, Stones.read(stones))


def _blob(repo: pygit2.Repository, entry: pygit2.Object, rel: str) -> bytes | None:
    """The file's bytes; None for what is not a regular file or is over MAX_NOTE_FILE."""

    if entry.filemode not in FILE_MODES:
        return None
    data = git.read_blob(repo, entry.id, rel)
    return data if len(data) <= MAX_NOTE_FILE else None


def _sort(ctx: Context, index: ReadModel, old: _Old, result: Carried) -> list[tuple[Note, str]]:
    """The old notes this vault lacks (to carry), with the rest sorted into `result`."""
    from jacked_vault.document import parse_note

    repo = git.open_repo(ctx.vault.root)
    wanted = []
    for note_id, (rel, data, note) in sorted(old.notes.items()):
        docs = index.lookup(note_id)
        if docs:
            here = git.tree_blob(repo, docs[0].path)
            if here == data:
                result.already.append(note_id)
            else:
                mine = parse_note(here, source=docs[0].path) if here is not None else None
                result.redo.append(_redo(note_id, note.status, mine.status if mine else "missing"))
        elif note.status in LIVE:
            wanted.append((note, rel))
        else:
            result.not_carried.append({"id": note_id, "code": note.status.upper()})
    return wanted


def _redo(note_id: str, there: str, here: str) -> dict[str, Any]:
    command = {
        "forgotten": f"jacked memory forget {note_id}",
        "rejected": f"jacked memory reject {note_id} --reason 'rejected on the old vault'",
    }.get(there)
    if there == "active" and here == "candidate":
        command = f"jacked memory accept {note_id}"
    return {"id": note_id, "there": there, "here": here, "command": command}


def _values_to_redo(index: ReadModel, old: _Old) -> list[dict[str, Any]]:
    """The notes here holding a value the old folder rejected or forgot and this vault does not."""
    here = index.stones()
    out: dict[str, dict[str, Any]] = {}
    for value in sorted(old.stones.values - here.values):
        forgotten = value in old.stones.forgotten
        live = set(index.live_with_value(value))
        for path, note_id in index.notes_with_value(value):
            if forgotten or path in live:
                status = "forgotten" if forgotten else "rejected"
                out.setdefault(note_id, _redo(note_id, status, "kept"))
    return list(out.values())


def _create(ctx: Context, note: Note, rel: str, result: Carried) -> None:
    """One old note through the one create path, as this vault's; its outcome into `result`."""
    from jacked_vault.search.index import rejected_elsewhere
    from jacked_vault.write.create import create_note

    carried = dataclasses.replace(note, trust=TRUST, supersedes=[])
    try:
        created = create_note(
            ctx.vault, carried, settings=ctx.settings, rejected_elsewhere=rejected_elsewhere(ctx, ctx.vault)
        )
    except VaultError as exc:
        gate = exc.details.get("gate")
        result.not_carried.append({"id": note.id, "code": gate if gate == "FORGOTTEN" else exc.code})
        return
    if created.duplicate_of is not None:
        result.already.append(note.id)
        return
    result.carried.append(
        {"id": note.id, "path": created.display_path, "was_reviewed": note.trust != TRUST, "from": rel}
    )
