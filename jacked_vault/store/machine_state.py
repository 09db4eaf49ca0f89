"""Adopting the machine-local state an older version kept in the working tree.

Up to issue 31 a store kept its machine-local state in `<root>/.jacked/`: ignored by the vault's
`.gitignore`, yet still a working-tree path, which a person's own `git pull` overwrites (git treats
ignored files as expendable) with whatever a commit carries there. The state now lives in
`<root>/.git/jacked/` (`layout.state_dir`), where no checkout can write.

The first command that asks for a store's state after the upgrade copies what the old folder held
into the new one, once, and only what this machine wrote itself: a file git tracks (in HEAD or in
git's index, so a pull brought it) is never adopted, nor the search index (its verdict cache says
which bytes passed the gate: it is rebuilt), nor a lock, a journal or a cache stamp. The copy is
made in a temporary folder renamed into place, so two commands starting together adopt it once
and neither sees half of it. The old folder is left where it was: nothing reads it any more, and
`doctor` names it (`LEGACY_STATE`) so the person can delete it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from jacked_vault.safety import fsio
from jacked_vault.store.gitfiles import child_env

LEGACY_DIR = ".jacked"
# what an older version kept in `.jacked/` that is this machine's record, not a cache: the
# machine id (its audit chain and tombstone file), the per-vault overrides, sync state, queued and
# failed captures, quarantined bytes, the capture ledgers, the enable ledger, logs
ADOPTED = (
    "machine-id",
    "vault.local.json",
    "sync-state.json",
    "queue",
    "quarantine",
    "captured.json",
    "merge-captured.json",
    "librarian.json",
    "briefs.jsonl",
    "rollup-pending.json",
    "switch.json",
    "log",
)


def legacy_dir(root: Path) -> Path | None:
    """The old state folder of the store at `root`, when one is there (a real folder)."""
    path = root / LEGACY_DIR
    return path if path.is_dir() and not path.is_symlink() else None


def adopt_legacy_state(root: Path, state: Path) -> None:
    """Copy the untracked machine-local files of `<root>/.jacked/` into `state`, once: only when
    `state` does not exist yet and the store's git directory does. Never raises (a failed copy
    leaves `state` absent, and the store starts afresh as a new machine would)."""
    if os.path.lexists(state) or not state.parent.is_dir():
        return
    old = legacy_dir(root)
    if old is None:
        return
    wanted = [name for name in ADOPTED if os.path.lexists(old / name)]
    if not wanted:
        return
    import shutil

    tracked = _tracked(root)
    temp = state.parent / f"{state.name}.adopting-{os.getpid()}-{os.urandom(4).hex()}"
    try:
        temp.mkdir(mode=0o700)
        for name in wanted:
            _copy(old / name, temp / name, f"{LEGACY_DIR}/{name}", tracked)
        os.rename(temp, state)  # fails when another command adopted first: its copy stands
    except OSError:
        pass
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def _copy(source: Path, target: Path, rel: str, tracked: set[str] | None) -> None:
    """Copy one file or folder of the old state, leaving out symlinks and whatever git tracks."""
    import shutil

    if tracked is None or source.is_symlink():
        return
    if source.is_dir():
        target.mkdir(mode=0o700)
        for child in sorted(source.iterdir()):
            _copy(child, target / child.name, f"{rel}/{child.name}", tracked)
    elif source.is_file() and rel not in tracked:
        shutil.copy2(source, target, follow_symlinks=False)


def _tracked(root: Path) -> set[str] | None:
    """The paths under `.jacked/` git tracks (HEAD's tree or git's index); None when git cannot
    say, and then nothing is adopted."""
    import subprocess

    found: set[str] = set()
    index = ["ls-files", "-z", "--", LEGACY_DIR]
    head = ["ls-tree", "-r", "-z", "--name-only", "HEAD", "--", LEGACY_DIR]
    for args in (index, head):
        try:
            done = subprocess.run(
                ["git", "-C", str(root), *args], capture_output=True, env=child_env(), timeout=30, check=False
            )
        except (OSError, subprocess.SubprocessError):
            return None
        if done.returncode != 0 and args is index:
            return None  # ls-tree fails on an unborn HEAD, which tracks nothing
        found |= {p.decode("utf-8", "surrogateescape") for p in done.stdout.split(b"\0") if p}
    return found


MACHINE_ID = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")  # what `machine_id` makes and reads back


def machine_id(state: Path) -> str:
    """This machine's id for this store (its audit folder, its tombstone files): `<state>/machine-id`
    (`Store.state`), created on first use."""

    path = state / "machine-id"
    try:
        value = path.read_text(encoding="ascii").strip()
        if MACHINE_ID.match(value):
            return value
    except (OSError, UnicodeDecodeError):
        pass
    value = "m-" + os.urandom(6).hex()
    os.makedirs(state, exist_ok=True)
    fsio.replace_file(state, "machine-id", (value + "\n").encode())
    return value
