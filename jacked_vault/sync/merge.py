"""Settling the conflicts of a merge of two machines' histories, so sync never stops for what the
tool itself writes (SPEC 10; issue 18 findings 1, 5b):

- derived index.md: either side (regenerated after);
- tombstone files: either side (their union is set after: tombstones only grow);
- two notes with one file name: both kept; the remote's keeps the name (other machines hold it
  there), this machine's moves to the next free name;
- one note transitioned differently on each machine: `document.lifecycle.winner` (a person's
  reject wins, else the later transition), the loser named in sync's answer, also where one side
  is already two other machines' settling of it; a person's forget wins over a transition made
  elsewhere;
- hot.md set on both: last writer wins by its `updated_at` (the loser stays in git history);
- an episodic day file appended on both: both entries kept; a rolled-up file (recent.md,
  archive.md): this machine's (the rolled day files keep every entry);
- joining two vaults (`--join`): vault.json with the groups of both, layout files this vault's.

Anything else stops the sync with the git commands to settle it by hand.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from jacked_vault.document.hot import read_hot_text
from jacked_vault.document.lifecycle import follows, settles, winner
from jacked_vault.errors import VaultError
from jacked_vault.store import git
from jacked_vault.store.git import read_blob
from jacked_vault.store.layout import (
    GROUPS_DIR,
    ROLLED_DAY_SUFFIX,
    TOMBSTONE_DIR,
    VAULT_JSON,
    Store,
    classify_episodic,
    classify_hot,
)

if TYPE_CHECKING:
    import pygit2

    from jacked_vault.document import Note

    Settle = Callable[[str, bytes, pygit2.enums.FileMode], None]


@dataclass
class Resolved:
    """What settling a merge did: each entry an audit line and a line of sync's answer."""

    renamed: list[str] = field(default_factory=list)
    moved: list[tuple[str, str, bytes]] = field(default_factory=list)  # this machine's notes: (id, new path, bytes)
    hot: list[dict[str, Any]] = field(default_factory=list)  # {"path", "kept": here|remote}
    transitions: list[dict[str, Any]] = field(default_factory=list)  # {"id", "path", "kept", "lost", "kept_from"}
    events: list[tuple[str, str, str, bytes | None]] = field(default_factory=list)  # (op, id, path, bytes)


def is_derived(rel: str) -> bool:
    parts = rel.split("/")
    return rel == "index.md" or (len(parts) == 3 and parts[0] == GROUPS_DIR and parts[2] == "index.md")


def _free_name(paths: set[str], rel: str) -> str:
    stem = rel[: -len(".md")]
    n = 2
    while f"{stem}-{n}.md" in paths:
        n += 1
    return f"{stem}-{n}.md"


def resolve(
    store: Store,
    repo: pygit2.Repository,
    index: pygit2.Index,
    *,
    join: bool = False,
    forgotten: dict[str, str] | None = None,
) -> Resolved:
    """Settle every conflict of the merge `index` the rules above allow; SYNC naming the rest.
    `forgotten`: path -> note id a person forgot on either side (a forget wins over a transition)."""
    forgotten = forgotten or {}
    import pygit2

    done = Resolved()
    blocking: dict[str, bool] = {}  # path -> whether the remote holds the file
    conflicts = list(index.conflicts) if index.conflicts is not None else []
    paths = {entry.path for entry in index}

    def settle(rel: str, data: bytes, mode: pygit2.enums.FileMode) -> None:
        del index.conflicts[rel]
        index.add(pygit2.IndexEntry(rel, repo.create_blob(data), mode))

    def read(entry: pygit2.IndexEntry | None) -> bytes | None:
        if entry is None:
            return None
        return read_blob(repo, entry.id, str(entry.path))

    for ancestor, ours, theirs in conflicts:
        rel = (ours or theirs or ancestor).path
        blob = {name: read(e) for name, e in (("base", ancestor), ("ours", ours), ("theirs", theirs))}
        mode = (ours or theirs or ancestor).mode
        if (
            is_derived(rel)
            or rel.startswith(TOMBSTONE_DIR + "/")
            or (join and rel in ("README.md", ".gitignore") and ours)
        ):
            side = blob["ours"] if ours is not None else blob["theirs"]
            assert side is not None, "a conflict holds this side or the remote's"
            settle(rel, side, mode)  # regenerated, or the union, after
            continue
        if (ours is None or theirs is None) and rel in forgotten:
            del index.conflicts[rel]  # a person's forget wins over a transition made elsewhere
            done.transitions.append(
                {
                    "id": forgotten[rel],
                    "path": rel,
                    "kept": "forgotten",
                    "lost": "a transition",
                    "kept_from": "here" if ours is None else "remote",
                }
            )
            continue
        if ours is None or theirs is None:
            blocking[rel] = theirs is not None  # changed on one side, deleted on the other
            continue
        mine, other = blob["ours"], blob["theirs"]
        assert mine is not None and other is not None, "both sides hold the file (a missing side was settled above)"
        if join and rel == VAULT_JSON:
            joined = _joined_config(mine, other)
            settle(rel, joined, mode)
            done.events.append(("config", rel, rel, joined))
            continue
        if classify_hot(store, rel):
            _last_writer(done, rel, mine, other, settle, mode)
            continue
        if classify_episodic(store, rel):
            merged = _episodic(rel, blob["base"], mine, other)
            settle(rel, merged, mode)
            done.events.append(("episodic", rel, rel, merged))
            continue
        if rel.endswith(".md") and _notes(done, rel, blob, settle, mode, paths, repo, index):
            continue
        blocking[rel] = True
    if blocking:
        raise _settle_by_hand(store, blocking)
    return done


def _settle_by_hand(store: Store, blocking: dict[str, bool]) -> VaultError:
    """SYNC naming the files no rule settles, with the safe way to settle them: take the remote's
    version of each into this vault (a commit of this machine's), then sync again, which judges and
    merges the rest. Never a plain `git merge`: it would take what arrives unjudged and pair files by
    content. The commands are also in `details["commands"]`."""
    import shlex

    root, branch = shlex.quote(str(store.root)), git.require_branch(store.root)
    paths = sorted(blocking)
    take = " ".join(shlex.quote(rel) for rel in paths if blocking[rel])
    drop = " ".join(shlex.quote(rel) for rel in paths if not blocking[rel])
    commands = [
        *([f"git -C {root} checkout origin/{branch} -- {take}"] if take else []),
        *([f"git -C {root} rm -q -- {drop}"] if drop else []),
        f"git -C {root} commit -qm 'take the remote version of what sync could not settle'",
        "jacked memory sync",
    ]
    listed = paths if len(paths) <= 10 else []  # beyond ten files, the commands are in the details (--json)
    shown = ", ".join(paths[:10]) + (f" and {len(paths) - 10} more" if len(paths) > 10 else "")
    steps = ", ".join(f"`{command}`" for command in commands) if listed else "the commands in `--json`'s details"
    return VaultError(
        "SYNC",
        f"the vault and its remote changed the same file(s) differently: {shown}. Nothing was changed. "
        f"`git -C {root} diff HEAD origin/{branch} -- {' '.join(shlex.quote(rel) for rel in listed)}` shows both "
        f"versions. To take the remote's: {steps} (sync judges and merges the rest; to keep this machine's change, "
        "make it again once synced). Never `git merge` or `git pull` in the vault: they take what arrives unjudged.",
        details={"paths": paths, "commands": commands},
    )


def _last_writer(
    done: Resolved, rel: str, ours: bytes, theirs: bytes, settle: Settle, mode: pygit2.enums.FileMode
) -> None:
    """hot.md set on both machines: the newer `updated_at` wins (a tie keeps this machine's)."""

    def stamp(data: bytes) -> str:
        try:
            return read_hot_text(data, rel).updated_at or ""
        except VaultError:
            return ""

    remote_wins = stamp(theirs) > stamp(ours)
    kept, lost = (theirs, ours) if remote_wins else (ours, theirs)
    settle(rel, kept, mode)
    done.hot.append({"path": rel, "kept": "remote" if remote_wins else "here"})
    done.events += [("hot-replaced", hot_key(rel), rel, lost), ("hot", hot_key(rel), rel, kept)]


def hot_key(rel: str) -> str:
    """The audit id of a hot.md: `hot_<group>` (`hot_project` for a project store's)."""
    group = rel.split("/")[1] if rel.startswith(GROUPS_DIR + "/") else "project"
    return f"hot_{group}"


def _episodic(rel: str, base: bytes | None, ours: bytes, theirs: bytes) -> bytes:
    """A day file appended on both machines holds both entries; any other episodic file (a rollup's
    recent.md or archive.md) keeps this machine's version: the rolled day files keep every entry."""

    name = rel.rsplit("/", 1)[-1]
    start = base or b""
    if (
        name.startswith("today-")
        and not name.endswith(ROLLED_DAY_SUFFIX)
        and ours.startswith(start)
        and theirs.startswith(start)
    ):
        joined = ours if ours.endswith(b"\n") else ours + b"\n"
        return joined + theirs[len(start) :]
    return ours


def _notes(
    done: Resolved,
    rel: str,
    blob: dict[str, Any],  # "base", "ours", "theirs" -> bytes (a note changed on both sides: ours and theirs set)
    settle: Settle,
    mode: pygit2.enums.FileMode,
    paths: set[str],
    repo: pygit2.Repository,
    index: pygit2.Index,
) -> bool:
    """Two notes with one file name (both kept), or one note transitioned on both machines (the
    lifecycle's winner kept); False when neither."""
    import pygit2

    from jacked_vault.document import parse_note

    try:
        mine, other = parse_note(blob["ours"], source=rel), parse_note(blob["theirs"], source=rel)
        prior = parse_note(blob["base"], source=rel) if blob["base"] is not None else None
    except VaultError:
        return False
    if prior is None and mine.id != other.id:
        # the remote's note keeps its path (every machine that took it has it there); this
        # machine's, which no other machine holds yet, moves to the next free name
        new_rel = _free_name(paths, rel)
        paths.add(new_rel)
        del index.conflicts[rel]
        index.add(pygit2.IndexEntry(rel, repo.create_blob(blob["theirs"]), mode))
        index.add(pygit2.IndexEntry(new_rel, repo.create_blob(blob["ours"]), mode))
        done.renamed.append(f"{rel} -> {new_rel}")
        done.moved.append((mine.id, new_rel, blob["ours"]))
        done.events.append(("rename", mine.id, new_rel, blob["ours"]))
        return True
    if prior is None or not (mine.id == other.id == prior.id) or not (_grew(prior, mine) and _grew(prior, other)):
        return False
    kept = winner(mine, other)
    lost = other if kept is mine else mine
    data = blob["ours"] if kept is mine else blob["theirs"]
    settle(rel, data, mode)
    done.transitions.append(
        {
            "id": kept.id,
            "path": rel,
            "kept": kept.status,
            "lost": lost.status,
            "kept_from": "here" if kept is mine else "remote",
        }
    )
    done.events.append(("resolve", kept.id, rel, data))
    return True


def _grew(prior: Note, side: Note) -> bool:
    """Whether one side's version of a note came from `prior` the ways the rules allow: transitions,
    or the settling of two transitions made apart (`lifecycle.settles`: a third machine meets a
    note two others already settled, whose winner need not follow the version it last saw)."""

    return follows(prior, side) is None or settles(prior, side)


def _joined_config(ours: bytes, theirs: bytes) -> bytes:
    import json

    from jacked_vault.store.config import join_shared, validate_config

    try:
        mine, other = (json.loads(data.decode("utf-8")) for data in (ours, theirs))
    except (UnicodeDecodeError, ValueError):
        raise VaultError("CONFIG", "vault.json of one of the two vaults is not JSON; fix it before joining") from None
    joined = join_shared(mine, other)
    validate_config(VAULT_JSON, joined, local=False)
    return (json.dumps(joined, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
