"""Groups as the vault sees them: list, map a repo, suggest from a scan, write vault.json (a commit)."""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from jacked_vault.context import Context
from jacked_vault.errors import VaultError
from jacked_vault.store.layout import VAULT_JSON


def _identity_of(repo: str) -> str:
    """A repo given as a path (resolved through its origin) or as an identity."""
    from jacked_vault.document import REPO_RE
    from jacked_vault.groups.identity import repo_for

    path = Path(os.path.expanduser(repo))
    if path.exists():
        info = repo_for(path)
        if info is None:
            raise VaultError("USAGE", f"{repo} is not inside a git repository")
        return info.identity
    identity = repo.strip().lower()
    if len(identity) > 255 or not REPO_RE.fullmatch(identity):
        raise VaultError("VALIDATION", "the repo is neither an existing path nor a repo identity like github.com/owner/repo")
    return identity


def write_config(ctx: Context, config: dict, summary: str) -> str:
    """Validate and commit a new vault.json (one commit, audit line op `config`)."""
    from jacked_vault.groups.suggest import duplicate_mappings
    from jacked_vault.store.config import validate_config
    from jacked_vault.write.transaction import settings_for, write_transaction

    validate_config(VAULT_JSON, config, local=False)
    duplicates = duplicate_mappings(config)
    if duplicates:
        first = duplicates[0]
        raise VaultError("CONFIG", f"{first['repo']} would be mapped to {len(first['groups'])} groups ({', '.join(first['groups'])})")
    data = (json.dumps(config, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    store = ctx.vault
    with write_transaction(store, harness=ctx.harness, origin="cli", **settings_for(ctx)) as tx:
        tx.replace(VAULT_JSON, data)
        tx.event("config", "vault.json", VAULT_JSON, data)
        return tx.commit(f"memory(config): {summary}")


def _shared_config(ctx: Context) -> dict:
    """vault.json alone (not merged with the local override): what a mapping change rewrites."""
    from jacked_vault.safety import fsio

    ctx.config  # validates both files first
    return json.loads(fsio.read_file(ctx.vault.root, VAULT_JSON, max_bytes=1 << 20))


@dataclass(frozen=True)
class Mapped:
    identity: str
    group: str
    previous: str | None
    commit: str | None


def map_repo(ctx: Context, repo: str, group: str) -> Mapped:
    """Map a repo (path or identity) to `group`, moving it out of any other group; idempotent."""
    from jacked_vault.document import SLUG_RE

    if not SLUG_RE.fullmatch(group):
        raise VaultError("VALIDATION", "the group name is not a slug (a-z, 0-9, . _ -; at most 64)")
    identity = _identity_of(repo)
    config = copy.deepcopy(_shared_config(ctx))
    groups = config.setdefault("groups", {})
    previous = next((name for name, g in sorted(groups.items()) if identity in g.get("repos", [])), None)
    if previous == group:
        return Mapped(identity, group, previous, None)
    for g in groups.values():
        if identity in g.get("repos", []):
            g["repos"].remove(identity)
    groups.setdefault(group, {"repos": []})["repos"].append(identity)
    commit = write_config(ctx, config, f"map {identity} to {group}")
    return Mapped(identity, group, previous, commit)


def list_groups(ctx: Context) -> list[dict]:
    """Every group that is mapped or holds notes: name, repos, repo and note counts."""
    from jacked_vault.search.index import SearchIndex

    index = SearchIndex(ctx.vault)
    try:
        index.refresh()
        counts = index.notes_per_group()
    finally:
        index.close()
    mapped = ctx.config.get("groups", {})
    out = []
    for name in sorted(set(mapped) | set(counts)):
        repos = sorted(mapped.get(name, {}).get("repos", []))
        out.append({"name": name, "repos": repos, "repo_count": len(repos), "note_count": counts.get(name, 0), "mapped": name in mapped})
    return out


@dataclass
class Suggestion:
    roots: list[str]
    repos_found: int
    missing_roots: list[str]
    unreadable: int
    truncated: bool
    errors: list[dict]
    groups: list  # GroupSuggestion
    considered: list  # Cluster: every cluster of unmapped repos, suggested or not, and why
    personal_handles: list[str]  # the person's own account names, from git config

    def to_json(self) -> dict:
        return {
            "roots": self.roots,
            "repos_found": self.repos_found,
            "missing_roots": self.missing_roots,
            "unreadable": self.unreadable,
            "truncated": self.truncated,
            "errors": self.errors,
            "suggestions": [{"name": g.name, "repos": g.repos, "reason": g.reason} for g in self.groups],
            "considered": [c.to_json() for c in self.considered],
            "personal_handles": self.personal_handles,
        }


_NOREPLY_ID = re.compile(r"^[0-9]+\+")


def personal_handles() -> list[str]:
    """The names the person goes by on forges, from git's global config: `github.user`, and the
    local part of `user.email` (GitHub's `4242+name@users.noreply.github.com` gives `name`)."""
    try:
        found = subprocess.run(
            ["git", "config", "--global", "--get-regexp", r"^(github\.user|user\.email)$"],
            capture_output=True, text=True, errors="replace", timeout=5, stdin=subprocess.DEVNULL,
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


def suggest(ctx: Context, roots: list[str] | None = None, *, progress=None) -> Suggestion:
    """Scan the roots (given, else vault.json's, else ~/Github) and suggest groups for unmapped repos."""
    from jacked_vault.groups.scan import scan_roots
    from jacked_vault.groups.suggest import consider_groups, suggestions

    roots = roots or ctx.config.get("roots") or ["~/Github"]
    report = scan_roots(roots, progress=progress)
    existing = {name: g.get("repos", []) for name, g in ctx.config.get("groups", {}).items()}
    handles = personal_handles()
    considered = consider_groups(report.repos, existing, handles)
    return Suggestion(
        roots=list(roots),
        repos_found=len(report.repos),
        missing_roots=report.missing_roots,
        unreadable=report.unreadable,
        truncated=report.truncated,
        errors=[{"path": str(r.root), "error": r.error} for r in report.repos if r.error],
        groups=suggestions(considered),
        considered=considered,
        personal_handles=handles,
    )


def accept(ctx: Context, suggestion: Suggestion, chosen: list) -> str | None:
    """Write the chosen suggestions (and the scanned roots) to vault.json in one commit."""
    from jacked_vault.groups.suggest import apply_suggestions

    config = copy.deepcopy(_shared_config(ctx))
    if suggestion.roots and config.get("roots") != suggestion.roots:
        config["roots"] = suggestion.roots
    config = apply_suggestions(config, chosen)
    if config == _shared_config(ctx):
        return None
    names = ", ".join(g.name for g in chosen) or "roots"
    return write_config(ctx, config, f"groups {names}")
