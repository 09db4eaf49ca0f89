"""`init --from URL`: a second machine's vault, cloned from the shared remote (SPEC 10).

The person's `git` clones without a checkout, without template hooks and with every hook
disabled, into a hidden folder beside the target. The remote's branch is then judged like any
arrival (`arrivals`): a path under `.jacked/`, a symlink or a file outside the layout stops it,
and the folder is removed, so a refused clone leaves nothing behind. Only then are the files
checked out and the machine-local parts made: a fresh machine id, the search index, the sync
state. The folder is renamed into place last.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jacked_vault.document import timestamps
from jacked_vault.document.model import UNKNOWN_HARNESS
from jacked_vault.errors import VaultError
from jacked_vault.safety import fsio
from jacked_vault.search.entries import Entry
from jacked_vault.search.passed import Passed
from jacked_vault.store import git
from jacked_vault.store.layout import GROUPS_DIR, VAULT_JSON, Store
from jacked_vault.store.machine_state import machine_id
from jacked_vault.store.progress import Stages
from jacked_vault.store.sync_state import write_state
from jacked_vault.sync import remote

if TYPE_CHECKING:
    import pygit2

    from jacked_vault.sync.arrivals import Arrivals

CLONE_TIMEOUT_S = 600.0
REQUIRED = (VAULT_JSON, ".gitignore")


@dataclass(frozen=True)
class Cloned:
    store: Store
    url: str  # credentials masked
    branch: str
    head: str
    notes: int
    machine_id: str
    quarantined: list[dict[str, Any]]
    offers: list[str]  # this machine's hook installs, offered and never run here
    branch_reason: str = "the remote's default branch"  # why this branch holds the vault

    def to_json(self) -> dict[str, Any]:
        return {
            "path": str(self.store.root),
            "created": True,
            "commit": None,
            "groups": None,
            "from": self.url,
            "branch": self.branch,
            "head": self.head,
            "notes": self.notes,
            "machine_id": self.machine_id,
            "quarantined": self.quarantined,
            "next": self.offers,
            "branch_reason": self.branch_reason,
        }

    def to_text(self) -> str:
        lines = [
            f"Cloned vault from {self.url} at {self.store.root} "
            f"({self.notes} notes, {self.branch} at {self.head[:10]}: {self.branch_reason})"
        ]
        if self.quarantined:
            lines.append(
                f"quarantined {len(self.quarantined)} file(s) that failed the gate (see `jacked memory doctor`)"
            )
        lines.append(f"optional on this machine: `{self.offers[0]}` (session hooks), `{self.offers[1]}` (MCP server)")
        return "\n".join(lines)


def _offers(root: Path, name_vault: bool) -> list[str]:
    import shlex

    where = f" --vault {shlex.quote(str(root))}" if name_vault else ""
    return [f"jacked memory hooks install --claude{where}", f"jacked memory hooks install --mcp claude --user{where}"]


def clone_vault(
    url: str, path: Path, *, harness: str = UNKNOWN_HARNESS, name_vault: bool = False, stages: Stages | None = None
) -> Cloned:
    """Clone the vault at `url` into `path` (absent or an empty folder); all or nothing, what this
    machine does not take committed as `harness`. With `name_vault` (the vault was not the
    default), the offered commands carry `--vault`; `stages` (label -> a store.progress callback)
    is told each stage's progress: judging the files, indexing them."""
    url = remote.check_url(url)
    path = Path(path).absolute()
    _check_target(path)
    made = _make_parents(path.parent)
    temp: Path | None = None
    try:
        temp = Path(tempfile.mkdtemp(prefix=f".{path.name[:40]}.jacked-clone-", dir=path.parent))
        _git_clone(url, temp)
        store = Store(temp)
        branch, head, arrivals, reason, notes = _check_out(store, stages)
        machine = machine_id(store.state)
        quarantined = _settle(store, arrivals, harness)
        head = git.fast_head(temp) or head
        write_state(temp, "ok", f"cloned from the remote ({head[:10]})")
        os.rename(temp, path)  # replaces an empty folder; anything else in the way stops here
    except BaseException as exc:
        if temp is not None:
            shutil.rmtree(temp, ignore_errors=True)
        for folder in reversed(made):
            try:
                folder.rmdir()
            except OSError:
                break
        if isinstance(exc, OSError):
            raise VaultError(
                "CONFIG", f"cannot create the vault at {path} ({exc.strerror}); nothing was left behind"
            ) from None
        raise
    root = path.resolve()
    return Cloned(
        Store(root),
        remote.display_url(url) or "",
        branch,
        head,
        notes,
        machine,
        quarantined,
        _offers(root, name_vault),
        reason,
    )


def _check_target(path: Path) -> None:
    if path.is_symlink() or (path.exists() and not path.is_dir()):
        raise VaultError("CONFIG", f"{path} is a symlink or not a folder; choose another --vault")
    if path.is_dir() and any(path.iterdir()):
        what = "a vault" if (path / VAULT_JSON).exists() else "a non-empty folder"
        hint = (
            " (to join it to the remote: `jacked memory remote set URL`, then `jacked memory sync`)"
            if what == "a vault"
            else ""
        )
        raise VaultError("EXISTS", f"{path} is {what}; init --from clones only into a new or empty folder{hint}")


def _make_parents(folder: Path) -> list[Path]:
    """Create `folder` and its missing parents; the ones made, outermost first (removed on failure)."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    missing.reverse()
    try:
        for item in missing:
            item.mkdir()
    except OSError as exc:
        raise VaultError("CONFIG", f"cannot create {item} ({exc.strerror})") from None
    return missing


def _git_clone(url: str, into: Path) -> None:
    """`git clone --no-checkout` with no template and no hooks: nothing from the remote runs."""
    proc = remote.run_git(
        into.parent,
        "-c", f"core.hooksPath={os.devnull}",
        "clone", "--quiet", "--no-checkout", "--template=", "--origin", "origin", "--", url, str(into),
        timeout=CLONE_TIMEOUT_S, in_vault=False,
    )  # fmt: skip
    if proc.returncode != 0:
        raise VaultError("SYNC", f"clone failed: {remote.one_line(proc.stderr, url)}; nothing was left behind")


def _check_out(store: Store, stages: Stages | None = None) -> tuple[str, str, Arrivals, str, int]:
    """Judge the cloned branch like any arrival, check it out, and build its search index from
    the notes just judged: (branch, head, arrivals, reason, notes indexed)."""
    import pygit2

    from jacked_vault.search.index import SearchIndex
    from jacked_vault.store.tombstones import NO_STONES
    from jacked_vault.sync.arrivals import arrival_tombstones, inspect_arrivals

    repo = git.open_repo(store.root)
    branch, reason = _vault_branch(repo)
    commit = repo.head.peel(pygit2.Commit)
    missing = [rel for rel in REQUIRED if git.tree_blob(repo, rel) is None]
    if missing:
        raise VaultError(
            "SYNC",
            f"the remote's {branch} is not a jacked vault (no {' or '.join(missing)} at its top); "
            "nothing was left behind",
        )
    tree = commit.tree
    index = SearchIndex(store)  # where the gate records what it passed
    passed: dict[str, Passed] = {}  # each note judged once: the build takes the gate's pass, its parse, its derivation
    try:
        arrivals = inspect_arrivals(
            store, repo, None, tree, arrival_tombstones(repo, None, tree), verdicts=index.verdicts, here=NO_STONES,
            progress=stages("judging files") if stages else None, passed=passed,
        )  # fmt: skip
        arrivals.refused += [  # what a vault needs cannot be kept out: there is no local version to keep
            {"path": item["path"], "why": f"{item['code']}: {item['why'].removeprefix(item['path'] + ': ')}"}
            for item in arrivals.quarantined
            if item["path"] in REQUIRED
        ]
        if arrivals.refused:
            raise arrivals.refusal(
                str(commit.id), stopped="init --from stopped and left nothing behind", then="run init --from again"
            )
        with git.checking_out(store.root, str(commit.id)):  # git writes the files while the index is built
            index.rebuild(progress=stages("indexing files") if stages else None, passed=passed)
        return branch, str(commit.id), arrivals, reason, index.read.count()
    finally:
        index.close()


def _vault_branch(repo: pygit2.Repository) -> tuple[str, str]:
    """The branch that holds the vault, checked out locally, and why it was taken: the remote's
    HEAD, else `main`, else `master`, else its only branch (a bare remote made with plain `git
    init --bare` may name a `master` that the vault, pushed as `main`, never had)."""
    prefix = "refs/remotes/origin/"
    remote = sorted(r[len(prefix) :] for r in repo.references if r.startswith(prefix) and r != f"{prefix}HEAD")
    target = repo.lookup_reference("HEAD").target
    named = target.removeprefix("refs/heads/") if isinstance(target, str) else None
    if not repo.head_is_unborn and not repo.head_is_detached:
        return repo.head.shorthand, "the remote's default branch"
    if not remote:
        raise VaultError(
            "SYNC",
            "the remote holds no vault yet (it has no branch with commits). On the machine that has the vault, run "
            "`jacked memory remote set URL` and `jacked memory push`, then try again; nothing was left behind",
        )
    if "main" in remote:
        branch = "main"
    elif "master" in remote:
        branch = "master"
    elif len(remote) == 1:
        branch = remote[0]
    else:
        raise VaultError(
            "SYNC",
            f"the remote's HEAD names no branch it has, and it has {len(remote)} branches but neither main nor master; "
            "nothing was left behind. Set the remote's HEAD to the vault's branch "
            "(`git symbolic-ref HEAD refs/heads/BRANCH` in it)",
        )
    repo.references.create(f"refs/heads/{branch}", repo.references[f"{prefix}{branch}"].target, force=True)
    repo.config[f"branch.{branch}.remote"] = "origin"
    repo.config[f"branch.{branch}.merge"] = f"refs/heads/{branch}"
    repo.set_head(f"refs/heads/{branch}")
    return branch, f"the remote's HEAD names {named or 'no branch'}, which holds nothing; took {branch}"


def _settle(store: Store, arrivals: Arrivals, harness: str) -> list[dict[str, Any]]:
    """What this machine does not take from the clone, in one commit of its own: each quarantined
    file removed (its bytes kept in `.git/jacked/quarantine/`, an audit line each; a README.md is put
    back as the template `init` writes), each note holding a rejected value that was made before
    its machine knew of the rejection rejected here too (as sync does, SPEC 5.3), and every index.md
    regenerated here (derived files are never taken)."""
    import dataclasses

    from jacked_vault.document import render_note
    from jacked_vault.recall.index_md import index_path, render_index
    from jacked_vault.sync.arrivals import keep_quarantined
    from jacked_vault.write.init import README, readme_template
    from jacked_vault.write.transaction import write_transaction

    shown = keep_quarantined(store, arrivals)
    with write_transaction(store, harness=harness, origin="sync") as tx:
        removed: dict[str, Entry | None] = {}
        for item in arrivals.quarantined:
            if item["path"] == README:
                template = readme_template()
                tx.replace(README, template)
                tx.event("quarantine", item["id"], README, template)
                continue
            if fsio.read_optional(store.root, item["path"], max_bytes=1 << 30) is not None:
                tx.remove(item["path"])
                removed[item["path"]] = None
            tx.event("quarantine", item["id"], item["path"], None)
        for rel, note in sorted(
            arrivals.rejected_here.items()
        ):  # a rejected value made before its machine knew: rejected here too
            if note.status in ("candidate", "active"):
                note = dataclasses.replace(
                    note,
                    status="rejected",
                    status_reason="the same value was rejected on another machine",
                    updated_at=timestamps.utc_now(),
                )
                tx.replace(rel, render_note(note))
                tx.event("reject", note.id, rel, render_note(note))
                removed[rel] = Entry.from_note(note)
        with tx.index.preview(removed) as future:
            with_notes = set(future.notes_per_group())
            groups = with_notes | {rel.split("/")[1] for rel in arrivals.derived if rel.startswith(GROUPS_DIR + "/")}
            expected = {
                index_path(store, g): render_index(future, store, g) if g in with_notes else None
                for g in sorted(groups)
            }
        for rel, data in expected.items():
            working = fsio.read_optional(store.root, rel, max_bytes=1 << 30)
            if working == data:
                continue
            if data is None:
                tx.remove(rel)
            else:
                tx.replace(rel, data)
            tx.event("regenerate", rel, rel, data)
        if tx.files:
            tx.commit("memory: init --from keeps out what this machine does not take, regenerates index.md")
    return shown
