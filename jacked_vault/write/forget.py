"""Forget (SPEC 5.2, a person only, CLI only): take back a note that should never have been saved.

A reject keeps the text (the note stays, rejected); a forget removes it. One commit:

- the note's file is removed (and every other note of the same store holding the same value,
  whatever its status: left behind, each would hold the text, and the tombstone refuses it);
- the value is appended to this machine's `tombstones/<machine-id>.forgotten.txt` (unless that
  file holds it already): a tombstone that says the value was forgotten, not only rejected, so
  nothing re-creates it, not even a person's `--allow-rejected`, and every other machine keeps
  it out and removes its own copies when it syncs (`store.tombstones`);
- the group's index.md is regenerated;
- the audit lines: `tombstone` (when a line was added) and one `forget` per note removed, with
  `sha256: ""` (no new file) and origin `cli`;
- the trailers `Memory-Id: <id>` and `Memory-Forget: <id> [<twin id> …]`; the subject names the id,
  never the title (it may be the very text being taken back).

Git history still holds the text: purging it rewrites history, which only the person may decide
(and, once pushed, costs a force-push and a re-clone of every copy). `Forgotten` says how, with
git's own tools; nothing here ever runs them.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jacked_vault.context import Context
from jacked_vault.errors import VaultError
from jacked_vault.safety import fsio
from jacked_vault.store import git
from jacked_vault.store.machine_state import machine_id

if TYPE_CHECKING:
    import pygit2

    from jacked_vault.search.entries import Entry

FILTER_REPO = "git filter-repo"
FILTER_BRANCH = "git filter-branch"


@dataclass(frozen=True)
class Forgotten:
    id: str
    path: str  # `<scope>:<relative path>`
    rel: str
    root: Path  # the store's folder (where the history to purge lives)
    branch: str
    commit: str
    also_forgotten: list[dict[str, str]] = field(default_factory=list)  # {"id", "path"}: notes holding the same value
    tombstoned: bool = True  # the value's tombstone is in this machine's file (added now or before)
    remote: bool = False  # the store has a remote
    pushed: bool = False  # a remote-tracking branch holds the note: the remote (and its clones) have the text
    dropped_working_changes: bool = False  # the working copy held changes never committed: gone with it
    filter_repo: bool = True  # `git filter-repo` is installed here

    @property
    def tool(self) -> str:
        return FILTER_REPO if self.filter_repo else FILTER_BRANCH

    def purge_commands(self) -> list[str]:
        """The commands that purge every version of the forgotten files from this store's history
        (for the person to run; jacked never does)."""
        root = shlex.quote(str(self.root))
        paths = [self.rel, *(t["rel"] for t in self.also_forgotten)]
        out: list[str] = []
        if self.filter_repo:
            if self.remote:
                out.append(
                    f"url=$(git -C {root} remote get-url origin)  # filter-repo drops origin; it is put back below"
                )
            out.append(
                f"git -C {root} filter-repo --force --invert-paths "
                + " ".join(f"--path {shlex.quote(p)}" for p in paths)
            )
            if self.remote:
                out.append(f'git -C {root} remote add origin "$url"')
        else:
            removal = shlex.quote("git rm -q --cached --ignore-unmatch " + " ".join(shlex.quote(p) for p in paths))
            out += [
                f"git -C {root} filter-branch --force --index-filter {removal} --prune-empty -- --all",
                f"git -C {root} for-each-ref --format='delete %(refname)' refs/original "
                f"| git -C {root} update-ref --stdin",
                f"git -C {root} reflog expire --expire=now --all",
                f"git -C {root} gc --prune=now",
            ]
        if self.pushed:
            out.append(f"git -C {root} push --force origin {shlex.quote(self.branch)}")
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "path": self.path,
            "commit": self.commit,
            "also_forgotten": [{"id": t["id"], "path": t["path"]} for t in self.also_forgotten],
            "tombstoned": self.tombstoned,
            "dropped_working_changes": self.dropped_working_changes,
            "remote": self.remote,
            "pushed": self.pushed,
            "purge": {
                "tool": self.tool,
                "commands": self.purge_commands(),
                "force_push": self.pushed,
                "reclone": self.pushed,
            },
        }

    def to_text(self) -> str:
        lines = [f"forgot {self.id}: {self.path} removed and its value tombstoned [{self.commit[:10]}]"]
        lines += [f"also forgot {t['id']} ({t['path']}): it held the same text" for t in self.also_forgotten]
        if self.dropped_working_changes:
            lines.append("its working copy held changes that were never committed; they are gone with it")
        lines += [
            "Nothing saves that text again, not even `add --allow-rejected`; every machine that syncs removes its "
            "own copies.",
            "",
        ]
        if not self.remote:
            lines.append("Git history still holds the text (this vault has no remote: nowhere else).")
        elif not self.pushed:
            lines.append("Git history still holds the text, not pushed yet: purge it before a push or sync sends it.")
        else:
            lines.append("Git history still holds the text: here, on the remote (it was pushed) and in every clone.")
        lines.append(f"Purge it yourself with {self.tool} (jacked never rewrites history):")
        lines += [f"  $ {command}" for command in self.purge_commands()]
        if not self.filter_repo:
            lines.append(
                "  (git filter-repo is the safer tool, and the one that also rewrites text: https://github.com/newren/git-filter-repo)"
            )
        lines.append(
            "  Its title and first sentence are also in older versions of index.md and in commit subjects: add "
            "`--replace-text FILE --replace-message FILE` to filter-repo (FILE: those lines; delete it afterwards)."
        )
        if self.pushed:
            lines.append(
                "After the force-push every other machine must re-clone "
                "(`jacked memory init --from URL` into a new folder, then `jacked memory carry --from OLD` for "
                "the notes it had not pushed): merging its old history would bring the text back, so its `sync` "
                "refuses the rewritten remote and prints those steps."
            )
        return "\n".join(lines)


def forget(ctx: Context, note_id: str) -> Forgotten:
    """Remove note `note_id` in one commit with its tombstone and `forget` audit line (see module)."""
    import shutil

    from jacked_vault.document import parse_note
    from jacked_vault.recall.index_md import regenerate_index
    from jacked_vault.store import audit
    from jacked_vault.store.reviews import person_signs
    from jacked_vault.store.tombstones import appended, forgotten_path, tombstone_hash
    from jacked_vault.write.transaction import write_transaction
    from jacked_vault.write.transitions import _locate

    store, rel, _, note_id = _locate(ctx, note_id)
    branch = git.require_branch(store.root)
    # no push starts from here: the person may want to purge history before anything is sent
    with write_transaction(store, harness=ctx.harness, origin="cli", settings=ctx.settings) as tx:
        committed = tx.committed(rel)
        if committed is None:
            raise VaultError(
                "INCOMPLETE", f"{note_id}: its file is not committed yet; run `jacked memory doctor --repair` first"
            )
        note = parse_note(committed, source=rel)
        value = tombstone_hash(note.title, note.body)
        gone = [(rel, note)]
        for path, _id in tx.index.read.notes_with_value(value):
            twin_blob = tx.committed(path)
            if path != rel and twin_blob is not None:
                gone.append((path, parse_note(twin_blob, source=path)))
        dropped = False
        for path, _note in gone:
            working = fsio.read_optional(store.root, path, max_bytes=audit.MAX_AUDIT_FILE)
            if working is None:
                raise VaultError("INCOMPLETE", f"{store.display(path, _note.scope)} is missing from the working tree; "
                                 "run `jacked memory doctor --repair` (it restores it), then forget it")  # fmt: skip
            dropped |= working != tx.committed(path)
        stones_rel = forgotten_path(machine_id(store.state))
        stones = appended(tx.committed(stones_rel), value)
        if stones is not None:
            tx.replace(stones_rel, stones)
            tx.event("tombstone", note.id, stones_rel, stones)
        changes: dict[tuple[str, str | None], dict[str, Entry | None]] = {}
        for path, gone_note in gone:
            tx.remove(path)
            tx.event("forget", gone_note.id, path, None)
            changes.setdefault((gone_note.scope, gone_note.group), {})[path] = None
        regenerate_index(tx, changes)
        commit = tx.commit(
            f"memory(forget): {note.id}",
            sign=person_signs(ctx.settings.review, tx.repo),  # with trusted keys, an unsigned forget is not applied
            note_id=note.id,
            forget=" ".join(n.id for _, n in gone),
        )
        remote, pushed = _published(tx.repo, [path for path, _ in gone])
    twins = [{"id": n.id, "path": store.display(p, n.scope), "rel": p} for p, n in gone[1:]]
    return Forgotten(
        note.id, store.display(rel, note.scope), rel, store.root, branch, commit, twins, True, remote, pushed, dropped,
        shutil.which("git-filter-repo") is not None,
    )  # fmt: skip


def _published(repo: pygit2.Repository, paths: list[str]) -> tuple[bool, bool]:
    """(the store has a remote, a remote-tracking branch holds one of `paths`): once pushed, the
    remote and every clone made since hold the text."""
    import pygit2

    remote = len(list(repo.remotes)) > 0
    for name in repo.references:
        if not name.startswith("refs/remotes/"):
            continue
        try:
            tree = repo.references[name].peel(pygit2.Commit).tree
        except (pygit2.GitError, KeyError, ValueError):
            continue  # a symbolic origin/HEAD to nothing, a damaged ref: not evidence of a push
        for path in paths:
            try:
                tree[path]
            except KeyError:
                continue
            return remote, True
    return remote, False
