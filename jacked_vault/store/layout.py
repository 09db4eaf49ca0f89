"""Where things live: the vault (group and user scopes) and a repo's project store."""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

from jacked_vault.document.model import KINDS, SLUG_RE
from jacked_vault.errors import VaultError
from jacked_vault.resources import data_file
from jacked_vault.store.machine_state import adopt_legacy_state

DEFAULT_VAULT = "~/jacked-vault"
CACHE_DIR = ".jacked"  # a code repo's folder for its project store (`<repo>/.jacked/memory/`); ignored in a vault
STATE_DIR = (".git", "jacked")  # a store's machine-local state: `<root>/.git/jacked/`
PROJECT_OUTER_GITIGNORE = "*\n"
VAULT_JSON = "vault.json"
AUDIT_DIR = "audit"
GROUPS_DIR = "groups"
USER_SCOPE_DIR = "strategy"  # the user scope's folder: the spec names it `strategy/`


MAX_NAME_BYTES = 255


def vault_path_of(raw: str | os.PathLike[str]) -> Path:
    """The vault folder `raw` names (`~` expanded, absolute); an empty or impossible path is a
    usage error, never a silent fallback to the default. Which `raw` (the --vault option, the
    environment, the default) is the front end's choice: `jacked_vault.environment`."""
    if raw is None:  # a library caller that did not ask its front end: never '<cwd>/None'
        raise VaultError("INTERNAL", "no vault folder was chosen (the front end passes one: jacked_vault.environment)")
    if not str(raw).strip():
        raise VaultError("USAGE", "--vault is empty: give the vault's folder (or leave --vault out for ~/jacked-vault)")
    path = Path(os.path.expanduser(str(raw))).absolute()
    if any(len(part.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES for part in path.parts):
        raise VaultError(
            "USAGE", f"the vault path has a folder name longer than {MAX_NAME_BYTES} bytes; choose a shorter --vault"
        )
    return path


def gitignore_template() -> str:
    """The exact content the vault's (and a project store's) `.gitignore` must have."""
    return data_file("templates", "gitignore").read_text(encoding="utf-8")


@dataclass(frozen=True)
class Store:
    """One git-backed root: the vault, or the project store of one code repo."""

    root: Path
    is_project: bool = False

    @cached_property
    def state(self) -> Path:
        """This store's machine-local state folder (`state_dir`)."""
        return state_dir(self.root)

    @property
    def label(self) -> str:
        return "project" if self.is_project else "vault"

    def note_dir(self, scope: str, group: str | None, kind: str) -> str:
        """Store-relative folder for a note of `kind` in `scope`."""
        if scope == "project":
            return kind
        if scope == "user":
            return f"{USER_SCOPE_DIR}/{kind}"
        if not group:
            raise VaultError("USAGE", "a group-scope note needs a group (run inside a repo or pass --group)")
        return f"{GROUPS_DIR}/{group}/{kind}"

    def display(self, rel: str, scope: str) -> str:
        """The scope-qualified path shown to people and in JSON (never an absolute path)."""
        return f"{scope}:{rel}"


def state_dir(root: Path) -> Path:
    """The machine-local state of the store at `root` (index, log, lock, queue, quarantine, machine
    id, sync state, ledgers, `vault.local.json`): `<root>/.git/jacked/`, inside the store's own git
    directory, where no checkout, pull or merge can write a file (git refuses a `.git` path in a
    tree). State an older version kept in `<root>/.jacked/` is adopted once (`store.machine_state`)."""

    state = root.joinpath(*STATE_DIR)
    adopt_legacy_state(root, state)
    return state


def project_store_root(repo_root: Path) -> Path:
    return repo_root / CACHE_DIR / "memory"


def episodic_dir(group: str, identity: str) -> str:
    """`groups/<g>/episodic/<repo>/`, the repo identity with `/` as `__` so repos never share one."""
    return f"{GROUPS_DIR}/{group}/episodic/{identity.replace('/', '__')}"


# -- what a store-relative path is (the one owner of the layout rule) -------------------------

HOT_FILE = "hot.md"
INDEX_FILE = "index.md"
TOMBSTONE_DIR = "tombstones"
ARCHIVE_DIR = "archive"
ROLLED_DAY_SUFFIX = ".done.md"
ROOT_FILES = {"README.md": "readme", VAULT_JSON: "config", ".gitignore": "gitignore"}
_KINDS = frozenset(KINDS)


def _group_ok(name: str) -> bool:
    """A group folder's name is a group slug (what vault.json and a note's `group` allow)."""
    return SLUG_RE.fullmatch(name) is not None


def _name_ok(name: str, suffix: str) -> bool:
    return name.endswith(suffix) and len(name) > len(suffix) and not name.startswith(".")


def classify_note(store: Store, rel: str) -> tuple[str, str | None, str] | None:
    """(scope, group, kind) for a note path of this store, or None if `rel` is not a note. A
    vault note the librarian archived keeps its path under `archive/` (`archived`)."""
    folder, _, name = rel.rpartition("/")
    return note_folder(store, folder) if note_name(name) else None


def note_name(name: str) -> bool:
    """Whether a file of a note folder (`note_folder`) with this name is a note."""
    return _name_ok(name, ".md")


@lru_cache(maxsize=4096)  # a few folders hold every note
def note_folder(store: Store, folder: str) -> tuple[str, str | None, str] | None:
    """(scope, group, kind) of the notes a folder holds (`note_name`), or None when it holds none."""
    parts = folder.split("/")
    if any(p.startswith(".") or not p for p in parts):
        return None
    if store.is_project:
        return ("project", None, parts[0]) if len(parts) == 1 and parts[0] in _KINDS else None
    if parts[0] == ARCHIVE_DIR:
        parts = parts[1:]
    if len(parts) == 3 and parts[0] == GROUPS_DIR and parts[2] in _KINDS and _group_ok(parts[1]):
        return "group", parts[1], parts[2]
    if len(parts) == 2 and parts[0] == USER_SCOPE_DIR and parts[1] in _KINDS:
        return "user", None, parts[1]
    return None


def archived(rel: str) -> bool:
    """Whether a note path is in `archive/` (moved out of recall by the librarian)."""
    return rel.startswith(ARCHIVE_DIR + "/")


def archived_path(rel: str) -> str:
    """Where the librarian moves the vault note at `rel`: the same path under `archive/`."""
    return f"{ARCHIVE_DIR}/{rel}"


def classify_hot(store: Store, rel: str) -> tuple[str, str | None] | None:
    """(scope, group) when `rel` is a group's (or the project store's) hot.md."""
    parts = rel.split("/")
    if store.is_project:
        return ("project", None) if rel == HOT_FILE else None
    if len(parts) == 3 and parts[0] == GROUPS_DIR and parts[2] == HOT_FILE and _group_ok(parts[1]):
        return "group", parts[1]
    return None


def classify_episodic(store: Store, rel: str) -> tuple[str, str] | None:
    """(group, repo folder) when `rel` is a file of a repo's episodic folder in the vault."""
    parts = rel.split("/")
    if store.is_project or len(parts) != 5 or parts[0] != GROUPS_DIR or parts[2] != "episodic":
        return None
    if not _group_ok(parts[1]):
        return None
    if not _name_ok(parts[4], ".md") or any(p.startswith(".") or not p for p in parts):
        return None
    return parts[1], parts[3]


def searchable_episodic(rel: str) -> bool:
    """Whether search indexes this episodic file's text: not a day file rollup has already copied
    into recent.md (`today-YYYY-MM-DD.done.md`, kept and gated, but its entries are found once,
    in recent.md or archive.md)."""
    return not rel.rsplit("/", 1)[-1].endswith(ROLLED_DAY_SUFFIX)


@lru_cache(maxsize=16384)  # a pure function of the path and the store kind; a build asks it several times a file
def classify_path(store: Store, rel: str) -> str | None:
    """What `rel` is in the store's layout: note, hot, index, episodic, audit, tombstones, config,
    readme, gitignore, archive; None for a path outside the layout (never accepted from outside)."""
    parts = rel.split("/")
    if not rel or "" in parts or "." in parts or ".." in parts:
        return None
    if classify_note(store, rel):
        return "note"
    if classify_hot(store, rel):
        return "hot"
    if len(parts) == 1 and rel in ROOT_FILES and (rel != VAULT_JSON or not store.is_project):
        return ROOT_FILES[rel]
    if (store.is_project and rel == INDEX_FILE) or (
        len(parts) == 3 and parts[0] == GROUPS_DIR and parts[2] == INDEX_FILE and _group_ok(parts[1])
    ):
        return "index"
    if classify_episodic(store, rel):
        return "episodic"
    if len(parts) == 3 and parts[0] == AUDIT_DIR and not parts[1].startswith(".") and audit_part(parts[2]):
        return "audit"
    if len(parts) == 2 and parts[0] == TOMBSTONE_DIR and _name_ok(parts[1], ".txt"):
        return "tombstones"
    in_archive = not store.is_project and parts[0] == ARCHIVE_DIR and 2 <= len(parts) <= 5
    if in_archive and _name_ok(parts[-1], ".md") and not any(p.startswith(".") for p in parts):
        return "archive"
    return None


def root_of(store: Store, rel: str) -> str:
    """The scope root a path belongs to (bounds are kept per root): a group folder, `strategy`,
    the project store (``), or `tombstones`."""
    if store.is_project:
        return ""
    parts = rel.split("/")
    if parts[0] == GROUPS_DIR and len(parts) > 2:
        return f"{GROUPS_DIR}/{parts[1]}"
    return parts[0]


def audit_part(name: str) -> tuple[str, int] | None:
    """(month, part) for an audit file name: `<YYYY-MM>.jsonl` is part 1 of its month, then
    `<YYYY-MM>-2.jsonl`, `-3`, … (a month rolls into parts by size); None for any other name."""
    if not name.endswith(".jsonl") or len(name) < 13:
        return None
    month, rest = name[:7], name[7:-6]
    if not (
        month[:4].isdigit() and month[4] == "-" and month[5:7].isdigit() and month[:4].isascii() and month[5:].isascii()
    ):
        return None
    if rest == "":
        return month, 1
    if rest[:1] == "-" and rest[1:].isascii() and rest[1:].isdigit() and rest[1] != "0" and int(rest[1:]) >= 2:
        return month, int(rest[1:])
    return None
