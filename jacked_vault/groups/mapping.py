"""Groups as the vault sees them: list, map a repo, suggest from a scan, write vault.json (a commit)."""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jacked_vault.context import Context
from jacked_vault.document import REPO_RE, SLUG_RE
from jacked_vault.errors import VaultError
from jacked_vault.groups.scan import scan_roots
from jacked_vault.groups.suggest import apply_suggestions, consider_groups, duplicate_mappings, suggestions
from jacked_vault.render import plural
from jacked_vault.safety import fsio
from jacked_vault.store.identity import repo_for
from jacked_vault.store.layout import VAULT_JSON

if TYPE_CHECKING:
    from jacked_vault.groups.suggest import Cluster, GroupSuggestion


def _looks_like_a_path(text: str) -> bool:
    """A folder path rather than a repo identity: `./x`, `../x`, `~/x`, `/x`, `x\\y`, or `a/b` whose first
    part is not a host (no dot, not `local`); `github.com/o/r`, `local/r` and `my-repo` are identities."""
    if text.startswith(("/", "~", ".")) or "\\" in text:
        return True
    first, slash, _ = text.partition("/")
    return bool(slash) and "." not in first and first != "local"


def _identity_of(repo: str, mapped: set[str]) -> str:
    """A repo given as an existing folder (resolved through its origin) or as an identity; a path
    that does not exist is refused, unless it is an identity already in `mapped`. Refusals name
    the argument, never what was given (a URL may hold a password)."""

    path = Path(os.path.expanduser(repo))
    if path.exists():
        info = repo_for(path)
        if info is None:
            raise VaultError("USAGE", "REPO is a folder outside any git repository")
        return info.identity
    identity = repo.strip().lower()
    if identity in mapped:
        return identity
    if _looks_like_a_path(repo.strip()):
        raise VaultError(
            "USAGE",
            "REPO looks like a path and no such folder exists; give an existing repo folder, or a repo identity like "
            "github.com/owner/repo",
        )
    if len(identity) > 255 or not REPO_RE.fullmatch(identity):
        raise VaultError(
            "VALIDATION", "the repo is neither an existing folder nor a repo identity like github.com/owner/repo"
        )
    return identity


def _mapped(config: dict[str, Any]) -> set[str]:
    return {identity for g in config.get("groups", {}).values() for identity in g.get("repos", [])}


def write_config(ctx: Context, config: dict[str, Any], summary: str) -> str:
    """Validate and commit a new vault.json (one commit, audit line op `config`)."""
    from jacked_vault.store.config import validate_config
    from jacked_vault.write.transaction import write_transaction

    validate_config(VAULT_JSON, config, local=False)
    duplicates = duplicate_mappings(config)
    if duplicates:
        first = duplicates[0]
        raise VaultError(
            "CONFIG", f"{first['repo']} would be mapped to {len(first['groups'])} groups ({', '.join(first['groups'])})"
        )
    data = (json.dumps(config, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    store = ctx.vault
    with write_transaction(store, harness=ctx.harness, origin="cli", settings=ctx.settings, may_push=True) as tx:
        tx.replace(VAULT_JSON, data)
        tx.event("config", "vault.json", VAULT_JSON, data)
        return tx.commit(f"memory(config): {summary}")


def _shared_config(ctx: Context) -> dict[str, Any]:
    """vault.json alone (not merged with the local override): what a mapping change rewrites."""

    _ = ctx.config  # validates both files first
    shared = json.loads(fsio.read_file(ctx.vault.root, VAULT_JSON, max_bytes=1 << 20))
    shared.pop("roots", None)  # an older version's paths of one machine: the next write drops them
    return shared


@dataclass(frozen=True)
class Mapped:
    """A repo mapped to `group` (None: unmapped, a solo group again), and where it was before."""

    identity: str
    group: str | None
    previous: str | None
    commit: str | None  # None when nothing had to change

    def to_json(self) -> dict[str, Any]:
        return {"repo": self.identity, "group": self.group, "previous": self.previous, "commit": self.commit}

    def to_text(self) -> str:
        if self.group is None:
            assert self.commit is not None, "an unmap always commits (NOT_FOUND otherwise)"
            return (
                f"Unmapped {self.identity} from group {self.previous}; "
                f"it is its own solo group again [{self.commit[:10]}]"
            )
        if self.commit is None:
            return f"{self.identity} is already in group {self.group}"
        moved = f" (was {self.previous})" if self.previous else ""
        return f"Mapped {self.identity} to group {self.group}{moved} [{self.commit[:10]}]"


def _take_out(groups: dict[str, Any], identity: str) -> str | None:
    """Remove `identity` from every group; the (first) group it was in."""
    previous = next((name for name, g in sorted(groups.items()) if identity in g.get("repos", [])), None)
    for g in groups.values():
        if identity in g.get("repos", []):
            g["repos"].remove(identity)
    return previous


def map_repo(ctx: Context, repo: str, group: str) -> Mapped:
    """Map a repo (path or identity) to `group`, moving it out of any other group; idempotent."""
    from jacked_vault.store.gate import scan

    if not SLUG_RE.fullmatch(group):
        raise VaultError("VALIDATION", "the group name is not a slug (a-z, 0-9, . _ -; at most 64)")
    config = copy.deepcopy(_shared_config(ctx))
    identity = _identity_of(repo, _mapped(config))
    scan({"REPO": repo})  # as given: the identity is lowercased, where an uppercase token would hide from the gate
    groups = config.setdefault("groups", {})
    previous = _take_out(groups, identity)
    if previous == group:
        return Mapped(identity, group, previous, None)
    groups.setdefault(group, {"repos": []})["repos"].append(identity)
    commit = write_config(ctx, config, f"map {identity} to {group}")
    return Mapped(identity, group, previous, commit)


def unmap_repo(ctx: Context, repo: str) -> Mapped:
    """Take a repo (path or identity) out of its group in vault.json: one commit; it forms its
    solo group again. NOT_FOUND when it is in no group."""
    config = copy.deepcopy(_shared_config(ctx))
    identity = _identity_of(repo, _mapped(config))
    previous = _take_out(config.get("groups", {}), identity)
    if previous is None:
        raise VaultError("NOT_FOUND", "REPO is not mapped to any group in vault.json")
    commit = write_config(ctx, config, f"unmap {identity} from {previous}")
    return Mapped(identity, None, previous, commit)


@dataclass(frozen=True)
class GroupList:
    """Every group that has a repo mapped to it or holds notes."""

    groups: list[dict[str, Any]]  # {"name", "repos", "repo_count", "note_count", "mapped"}

    def to_json(self) -> dict[str, Any]:
        return {"groups": self.groups}

    def to_text(self) -> str:
        lines = []
        for g in self.groups:
            solo = "" if g["mapped"] else " (solo)"
            lines.append(f"{g['name']}: {plural(g['repo_count'], 'repo')}, {plural(g['note_count'], 'note')}{solo}")
            lines += [f"  {repo}" for repo in g["repos"]]
        return "\n".join(lines) or "no groups yet: `jacked memory group suggest` or `group map REPO GROUP`"


def list_groups(ctx: Context) -> GroupList:
    """Every group that has a repo mapped to it or holds notes: name, repos, repo and note counts
    (a group whose repos were all unmapped, and which holds no note, is gone)."""
    from jacked_vault.search.index import SearchIndex

    index = SearchIndex(ctx.vault)
    try:
        index.refresh()
        counts = index.read.notes_per_group()
    finally:
        index.close()
    mapped = ctx.config.get("groups", {})
    out = []
    for name in sorted(set(mapped) | set(counts)):
        repos = sorted(mapped.get(name, {}).get("repos", []))
        if not repos and not counts.get(name):
            continue  # every repo unmapped and no note: nothing is in it any more
        out.append(
            {
                "name": name,
                "repos": repos,
                "repo_count": len(repos),
                "note_count": counts.get(name, 0),
                "mapped": name in mapped,
            }
        )
    return GroupList(out)


@dataclass
class Suggestion:
    roots: list[str]
    roots_source: str  # store.config.Roots.source: "--root", "machine config" or "usual folders"
    repos_found: int
    missing_roots: list[str]
    unreadable: int
    truncated: bool
    errors: list[dict[str, str]]
    groups: list[GroupSuggestion]
    considered: list[Cluster]  # every cluster of unmapped repos, suggested or not, and why
    personal_handles: list[str]  # the person's own account names, from git config

    def to_json(self) -> dict[str, Any]:
        return {
            "roots": self.roots,
            "roots_source": self.roots_source,
            "repos_found": self.repos_found,
            "missing_roots": self.missing_roots,
            "unreadable": self.unreadable,
            "truncated": self.truncated,
            "errors": self.errors,
            "suggestions": [{"name": g.name, "repos": g.repos, "reason": g.reason} for g in self.groups],
            "considered": [c.to_json() for c in self.considered],
            "personal_handles": self.personal_handles,
        }

    def where(self) -> list[str]:
        """Where the scan looked, as a person reads it (the usual folders that are not on this
        machine are counted, not listed)."""
        here = [r for r in self.roots if r not in self.missing_roots]
        found = plural(self.repos_found, "repo")
        if self.roots_source != "usual folders":
            lines = [f"scanned {', '.join(self.roots)} ({self.roots_source}): {found}"]
            return lines + ([f"missing roots: {', '.join(self.missing_roots)}"] if self.missing_roots else [])
        if not here:
            usual = ", ".join(self.roots[:4]) + (", …" if len(self.roots) > 4 else "")
            return [
                f"none of the usual folders for clones ({usual}) is on this machine: {found}; "
                "pass --root DIR for yours (remembered for this machine)"
            ]
        return [f"looked in {', '.join(here)}: {found} (the usual folders for clones here; --root DIR for others)"]


@dataclass(frozen=True)
class Suggested:
    """A scan's suggestion and what of it was accepted and written to vault.json; `remembered`,
    the machine config that now names the scan's `--root` folders."""

    suggestion: Suggestion
    accepted: list[str]
    commit: str | None
    remembered: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            **self.suggestion.to_json(), "accepted": self.accepted, "commit": self.commit, "remembered": self.remembered
        }  # fmt: skip

    def to_text(self) -> str:
        found = self.suggestion
        lines = found.where()
        if self.remembered:
            lines.append(f"remembered {', '.join(found.roots)} as this machine's roots in {self.remembered}")
        if found.truncated:
            lines.append("warning: the scan hit its depth or count bound; some repos may be missing")
        lines += [f"skipped {e['path']}: {e['error']}" for e in found.errors]
        considered = found.considered
        lines += [f"suggested group {c.name} ({c.reason}): {', '.join(c.repos)}" for c in considered if c.suggested]
        lines += [
            f"not grouped: {', '.join(c.repos)} ({c.reason})"
            for c in considered
            if not c.suggested and c.code != "single"
        ]
        alone = [r for c in considered if c.code == "single" for r in c.repos]
        if alone:
            lines.append(
                f"not grouped: {', '.join(alone)} (the only repo of its owner outside a prefix group: each stays a "
                "solo group)"
            )
        if not found.personal_handles and any(c.code == "owner" for c in considered):
            lines.append(
                "if one of these owners is your own account, `git config --global github.user NAME` keeps its "
                "unrelated repos apart"
            )
        lines += [f"accepted group {name}" for name in self.accepted]
        if found.groups and not self.accepted:
            lines.append("nothing written: accept with `--yes`, or map repos one by one with `jacked memory group map`")
        if not found.groups:
            lines.append("no groups to suggest; every repo works on its own (solo group)")
        return "\n".join(lines)


_NOREPLY_ID = re.compile(r"^[0-9]+\+")


def personal_handles() -> list[str]:
    """The names the person goes by on forges, from git's global config: `github.user`, and the
    local part of `user.email` (GitHub's `4242+name@users.noreply.github.com` gives `name`)."""
    try:
        found = subprocess.run(
            ["git", "config", "--global", "--get-regexp", r"^(github\.user|user\.email)$"],
            capture_output=True,
            text=True,
            errors="replace",
            timeout=5,
            stdin=subprocess.DEVNULL,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    handles = set()
    for line in found.splitlines():
        key, _, value = line.partition(" ")
        if key == "user.email":
            value = _NOREPLY_ID.sub("", value.partition("@")[0])
        if value.strip():
            handles.add(value.strip().lower())
    return sorted(handles)


def suggest(
    ctx: Context, roots: list[str] | None = None, *, progress: Callable[[int], None] | None = None
) -> Suggestion:
    """Scan this machine's roots (`store.config.machine_roots`: given, else the machine config's,
    else the usual folders) and suggest groups for unmapped repos."""
    from jacked_vault.store.config import machine_roots

    looked = machine_roots(roots or ())
    report = scan_roots(looked.folders, progress=progress)
    existing = {name: g.get("repos", []) for name, g in ctx.config.get("groups", {}).items()}
    handles = personal_handles()
    considered = consider_groups(report.repos, existing, handles)
    return Suggestion(
        roots=list(looked.folders),
        roots_source=looked.source,
        repos_found=len(report.repos),
        missing_roots=report.missing_roots,
        unreadable=report.unreadable,
        truncated=report.truncated,
        errors=[{"path": str(r.root), "error": r.error} for r in report.repos if r.error],
        groups=suggestions(considered),
        considered=considered,
        personal_handles=handles,
    )


def accept(ctx: Context, chosen: list[GroupSuggestion]) -> str | None:
    """Write the chosen suggestions to vault.json in one commit (None: nothing to change). Where the
    scan looked is this machine's business, never vault.json's (`store.config.machine_roots`)."""

    config = apply_suggestions(copy.deepcopy(_shared_config(ctx)), chosen)
    if config == _shared_config(ctx):
        return None
    return write_config(ctx, config, f"groups {', '.join(g.name for g in chosen)}")
