"""Suggest repo groups from a scan, merge accepted suggestions, find duplicate mappings.

Rules of `suggest_groups` (deterministic; a suggestion is only ever a proposal to review):

1. Candidates: the distinct identities of scanned repos without an error that no existing
   group maps. Everything else is left out.
2. Name prefix: the repo name (last identity segment) is split into tokens on `-`, `_`
   and `.`. Candidates sharing the first token form a group named after it when there are
   at least 2 (`acme-api`, `acme-web`, `acme` → `acme`). A first-token group of more than
   PREFIX_GROUP_MAX repos is split once: each two-token prefix shared by at least 2 of its
   repos becomes its own group (`acme-billing`), the rest stay in the first-token group if
   at least 2 remain (a single remaining repo goes on to rule 3).
3. Remote owner: candidates no prefix group took are grouped by owner, i.e. host plus
   the namespace between host and repo name (`github.com/globex`,
   `gitlab.com/bigco/platform`: GitLab subgroups are kept apart). The group is named after
   the namespace (`globex`, `bigco-platform`) and needs 2 to OWNER_GROUP_MAX repos.
   Identities with no namespace (`local/r`, no remote) never form owner groups.
   The catch-all owner is skipped: the owner holding the most of these leftover repos,
   if it holds at least CATCH_ALL_MIN and strictly more than any other owner. That is
   typically a personal account full of unrelated projects (or one organisation that owns
   everything, where one group would be far too broad).
4. Names are slugs, never an existing group name, never another suggestion's name and
   never the solo-group name of a scanned repo that stays unmapped (that repo would
   otherwise share the group's directory). A taken name gets `-2`, `-3`, …; names are
   given in order of (base name, prefix before owner, repos).

Each identity is in at most one suggestion; leftovers stay solo groups. Output is sorted
by name.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from jacked_vault.errors import VaultError
from jacked_vault.groups.identity import MAX_SLUG_CHARS, slugify
from jacked_vault.groups.scan import ScannedRepo

PREFIX_GROUP_MAX = 12
OWNER_GROUP_MAX = 20
CATCH_ALL_MIN = 3
_TOKEN_SEPARATOR = re.compile(r"[-_.]")
_PREFIX_RULE, _OWNER_RULE = 0, 1


@dataclass(frozen=True)
class GroupSuggestion:
    """A proposed group: its name, the repo identities it maps and why."""

    name: str
    repos: list[str]
    reason: str


@dataclass(frozen=True)
class _Draft:
    """A group before naming: base name, rule rank, members, reason."""

    base: str
    rule: int
    repos: tuple[str, ...]
    reason: str


def _tokens(identity: str) -> list[str]:
    """The name tokens of the identity's last segment."""
    return [t for t in _TOKEN_SEPARATOR.split(identity.rpartition("/")[2]) if t]


def _owner(identity: str) -> str | None:
    """`host/namespace` of a `host/namespace…/repo` identity; None without a namespace."""
    parts = identity.split("/")
    return "/".join(parts[:-1]) if len(parts) >= 3 else None


def _bucket(identities: Iterable[str], key: Callable[[str], str | None]) -> dict[str, list[str]]:
    """Identities grouped by `key` (None keys dropped), each list in input order."""
    buckets: dict[str, list[str]] = {}
    for identity in identities:
        value = key(identity)
        if value is not None:
            buckets.setdefault(value, []).append(identity)
    return buckets


def _prefix_draft(prefix: str, repos: list[str]) -> _Draft:
    reason = f"{len(repos)} repos share the name prefix '{prefix}'"
    return _Draft(slugify(prefix), _PREFIX_RULE, tuple(repos), reason)


def _split(token: str, repos: list[str]) -> list[_Draft]:
    """Split an oversized first-token group by shared two-token prefixes (one level)."""
    subs = _bucket(repos, lambda identity: "-".join(_tokens(identity)[:2]))
    drafts = [_prefix_draft(p, m) for p, m in sorted(subs.items()) if p != token and len(m) >= 2]
    taken = {identity for draft in drafts for identity in draft.repos}
    rest = [identity for identity in repos if identity not in taken]
    if len(rest) >= 2:
        drafts.append(_prefix_draft(token, rest))
    return drafts


def _prefix_drafts(candidates: list[str]) -> list[_Draft]:
    """Rule 2: groups of repos sharing a name prefix."""
    drafts: list[_Draft] = []
    for token, repos in sorted(_bucket(candidates, lambda i: _tokens(i)[0]).items()):
        if len(repos) > PREFIX_GROUP_MAX:
            drafts.extend(_split(token, repos))
        elif len(repos) >= 2:
            drafts.append(_prefix_draft(token, repos))
    return drafts


def _catch_all(owners: dict[str, list[str]]) -> str | None:
    """The owner holding the most repos, if >= CATCH_ALL_MIN and strictly the most."""
    counts = sorted((len(repos) for repos in owners.values()), reverse=True)
    if not counts or counts[0] < CATCH_ALL_MIN or counts[1:2] == counts[:1]:
        return None
    return next(owner for owner, repos in owners.items() if len(repos) == counts[0])


def _owner_drafts(leftovers: list[str]) -> list[_Draft]:
    """Rule 3: groups of leftover repos sharing a remote owner, minus the catch-all."""
    owners = _bucket(leftovers, _owner)
    skip = _catch_all(owners)
    drafts = []
    for owner, repos in sorted(owners.items()):
        if owner != skip and 2 <= len(repos) <= OWNER_GROUP_MAX:
            base = slugify("-".join(owner.split("/")[1:]))
            reason = f"{len(repos)} repos share the remote owner {owner}"
            drafts.append(_Draft(base, _OWNER_RULE, tuple(repos), reason))
    return drafts


def _free_name(base: str, taken: set[str]) -> str:
    """`base`, or `base-2`, `base-3`, … (cut to the slug length) if taken."""
    name, n = base, 1
    while name in taken:
        n += 1
        suffix = f"-{n}"
        name = base[: MAX_SLUG_CHARS - len(suffix)] + suffix
    return name


def _named(drafts: list[_Draft], taken: set[str]) -> list[GroupSuggestion]:
    """Rule 4: give each draft a free name; sorted by name."""
    taken = set(taken)
    suggestions = []
    for draft in sorted(drafts, key=lambda d: (d.base, d.rule, d.repos)):
        name = _free_name(draft.base, taken)
        taken.add(name)
        suggestions.append(GroupSuggestion(name, list(draft.repos), draft.reason))
    return sorted(suggestions, key=lambda s: s.name)


def suggest_groups(
    repos: list[ScannedRepo], existing: dict[str, list[str]] | None = None
) -> list[GroupSuggestion]:
    """Suggested groups for scanned repos, given `existing` group → identities (see module)."""
    existing = existing or {}
    mapped = {identity for identities in existing.values() for identity in identities}
    candidates = sorted({r.identity for r in repos if r.identity and r.identity not in mapped})
    drafts = _prefix_drafts(candidates)
    grouped = {identity for draft in drafts for identity in draft.repos}
    drafts += _owner_drafts([i for i in candidates if i not in grouped])
    placed = mapped | {identity for draft in drafts for identity in draft.repos}
    solo_names = {r.solo_group for r in repos if r.identity not in placed}
    return _named(drafts, set(existing) | solo_names)


def _check_new_name(name: str, groups: dict) -> None:
    """A suggested name must be a slug (slugify leaves only slugs unchanged), and new."""
    if slugify(name) != name:
        pattern = "[a-z0-9][a-z0-9._-]{0,63}"
        raise VaultError("VALIDATION", f"group name {ascii(name)} does not match {pattern}")
    if name in groups:
        raise VaultError("CONFIG", f"group {name!r} already exists; re-run the suggestion")


def apply_suggestions(config: dict, suggestions: list[GroupSuggestion]) -> dict:
    """A new config with the suggested groups added; `config` itself is not changed.

    Existing groups are untouched. An identity already mapped (by the config or an earlier
    suggestion) is dropped from a suggestion, and a suggestion left empty is not added, so
    no identity ends up in two groups. A name that is not a slug raises VALIDATION; a name
    that already exists raises CONFIG (the suggestion is stale).
    """
    result = copy.deepcopy(config)
    groups = result.setdefault("groups", {})
    mapped = {identity for group in groups.values() for identity in group.get("repos", [])}
    for suggestion in suggestions:
        _check_new_name(suggestion.name, groups)
        repos = [i for i in dict.fromkeys(suggestion.repos) if i not in mapped]
        if repos:
            groups[suggestion.name] = {"repos": repos}
            mapped.update(repos)
    return result


def duplicate_mappings(config: dict) -> list[dict]:
    """`[{"repo": identity, "groups": [...]}]` for identities mapped in several groups."""
    owners: dict[str, set[str]] = {}
    for name, group in config.get("groups", {}).items():
        for identity in group.get("repos", []):
            owners.setdefault(identity, set()).add(name)
    return [
        {"repo": identity, "groups": sorted(names)}
        for identity, names in sorted(owners.items())
        if len(names) > 1
    ]
