"""Suggest repo groups from a scan, merge accepted suggestions, find duplicate mappings.

`consider_groups` looks at every cluster of unmapped repos and says whether it is suggested as
a group and why (deterministic; a suggestion is only ever a proposal to review):

1. Candidates: the distinct identities of scanned repos without an error that no existing
   group maps. Everything else is left out.
2. Owners are a boundary. The owner is host plus the namespace between host and repo name
   (`github.com/globex`, `gitlab.com/bigco/platform`: GitLab subgroups are kept apart, and so
   is the same namespace on another host). Identities with no namespace (`local/r`, no remote)
   share one "no owner" bucket. Rules 3 and 4 work within one owner.
3. Name prefix: the repo name (last identity segment) is split into tokens on `-`, `_` and
   `.`. An owner's candidates sharing the first token form a group named after it when there
   are at least 2 (`acme-api`, `acme-web`, `acme` → `acme`). A first-token cluster of more
   than PREFIX_GROUP_MAX repos is split once: each two-token prefix shared by at least 2 of its
   repos becomes its own group (`acme-billing`), the rest stay in the first-token group if at
   least 2 remain (a single remaining repo goes on to rule 4). Prefix clusters are suggested.
4. Remote owner: the owner's repos no prefix group took form one cluster, suggested as a
   group named after the namespace (`globex`, `bigco-platform`) when it holds 2 to
   OWNER_GROUP_MAX repos and is not the person's own account. An owner is theirs when its
   namespace is one of `personal` (handles from git config, see `mapping.personal_handles`):
   a personal account holds unrelated projects, which stay solo groups. How many repos an
   owner holds never decides that (a newcomer's employer owns more of their repos than they
   do). Repos without an owner are never grouped by owner.
5. Names are slugs, never an existing group name, never another suggestion's name and never
   the solo-group name of a scanned repo that stays unmapped (that repo would otherwise share
   the group's directory). A prefix used by several owners names each group after its owner
   too (`orga-hank`, `orgb-hank`): the name says whose repos they are and does not depend on
   sort order, as `hank` and `hank-2` would. A taken name gets `-2`, `-3`, …; names are given
   in order of (base name, prefix before owner, repos).

Each identity is in exactly one considered cluster and at most one suggestion; leftovers stay
solo groups. Clusters come by owner (prefix clusters first); suggestions are sorted by name.
"""

from __future__ import annotations

import copy
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, replace
from typing import Any

from jacked_vault.errors import VaultError
from jacked_vault.groups.scan import ScannedRepo
from jacked_vault.store.identity import MAX_SLUG_CHARS, slugify

PREFIX_GROUP_MAX = 12
OWNER_GROUP_MAX = 20
_TOKEN_SEPARATOR = re.compile(r"[-_.]")


@dataclass(frozen=True)
class GroupSuggestion:
    """A proposed group: its name, the repo identities it maps and why."""

    name: str
    repos: list[str]
    reason: str


@dataclass(frozen=True)
class Cluster:
    """Repos considered together, whether they are suggested as a group, and why.

    `code` says which rule decided: `prefix` and `owner` (suggested); `personal`, `single`,
    `too-many`, `no-owner` (not suggested: each repo stays a solo group).
    """

    rule: str  # "prefix" or "owner"
    owner: str | None  # host/namespace; None for identities without one
    prefix: str | None  # the shared name prefix (rule "prefix")
    repos: tuple[str, ...]
    suggested: bool
    code: str
    reason: str
    name: str | None = None  # the group name, once suggested

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "owner": self.owner,
            "prefix": self.prefix,
            "repos": list(self.repos),
            "suggested": self.suggested,
            "name": self.name,
            "code": self.code,
            "reason": self.reason,
        }


def _tokens(identity: str) -> list[str]:
    """The name tokens of the identity's last segment."""
    return [t for t in _TOKEN_SEPARATOR.split(identity.rpartition("/")[2]) if t]


def _owner(identity: str) -> str | None:
    """`host/namespace` of a `host/namespace…/repo` identity; None without a namespace."""
    parts = identity.split("/")
    return "/".join(parts[:-1]) if len(parts) >= 3 else None


def _namespace(owner: str) -> str:
    """The owner without its host: `globex`, `bigco/platform`."""
    return owner.partition("/")[2]


def _bucket(identities: Iterable[str], key: Callable[[str], str]) -> dict[str, list[str]]:
    """Identities grouped by `key`, each list in input order."""
    buckets: dict[str, list[str]] = {}
    for identity in identities:
        buckets.setdefault(key(identity), []).append(identity)
    return buckets


def _prefix_cluster(owner: str | None, prefix: str, repos: list[str]) -> Cluster:
    whose = f"of {owner}" if owner else "without a remote owner"
    reason = f"{len(repos)} repos {whose} share the name prefix '{prefix}'"
    return Cluster("prefix", owner, prefix, tuple(repos), True, "prefix", reason)


def _split(owner: str | None, token: str, repos: list[str]) -> list[Cluster]:
    """Split an oversized first-token cluster by shared two-token prefixes (one level)."""
    subs = _bucket(repos, lambda identity: "-".join(_tokens(identity)[:2]))
    clusters = [_prefix_cluster(owner, p, m) for p, m in sorted(subs.items()) if p != token and len(m) >= 2]
    taken = {identity for cluster in clusters for identity in cluster.repos}
    rest = [identity for identity in repos if identity not in taken]
    if len(rest) >= 2:
        clusters.append(_prefix_cluster(owner, token, rest))
    return clusters


def _prefix_clusters(owner: str | None, candidates: list[str]) -> list[Cluster]:
    """Rule 3: an owner's repos sharing a name prefix."""
    clusters: list[Cluster] = []
    for token, repos in sorted(_bucket(candidates, lambda i: _tokens(i)[0]).items()):
        if len(repos) > PREFIX_GROUP_MAX:
            clusters.extend(_split(owner, token, repos))
        elif len(repos) >= 2:
            clusters.append(_prefix_cluster(owner, token, repos))
    return clusters


def _owner_cluster(owner: str | None, repos: list[str], personal: Collection[str]) -> Cluster:
    """Rule 4: an owner's repos no prefix group took; suggested or not, and why."""
    n = f"{len(repos)} repo{'' if len(repos) == 1 else 's'}"

    def cluster(suggested: bool, code: str, reason: str) -> Cluster:
        return Cluster("owner", owner, None, tuple(repos), suggested, code, reason)

    if owner is None:
        return cluster(
            False, "no-owner", f"{n} without a remote owner or a shared name prefix: each stays a solo group"
        )
    if _namespace(owner) in personal:
        return cluster(
            False,
            "personal",
            f"{owner} is your own account (git config): its {n} are separate projects, each a solo group",
        )
    if len(repos) == 1:
        return cluster(False, "single", f"the only repo of {owner} outside a prefix group: it stays a solo group")
    if len(repos) > OWNER_GROUP_MAX:
        return cluster(
            False,
            "too-many",
            f"{n} of {owner}: more than {OWNER_GROUP_MAX} is too broad for one group; map them with `jacked memory "
            "group map`",
        )
    return cluster(True, "owner", f"{n} share the remote owner {owner}")


def _owner_slug(owner: str) -> str:
    return slugify(_namespace(owner).replace("/", "-"))


def _free_name(base: str, taken: set[str]) -> str:
    """`base`, or `base-2`, `base-3`, … (cut to the slug length) if taken."""
    name, n = base, 1
    while name in taken:
        n += 1
        suffix = f"-{n}"
        name = base[: MAX_SLUG_CHARS - len(suffix)] + suffix
    return name


def _named(clusters: list[Cluster], taken: set[str]) -> list[Cluster]:
    """Rule 5: give each suggested cluster a free name."""
    owners_per_prefix = Counter(slugify(c.prefix) for c in clusters if c.rule == "prefix" and c.prefix is not None)

    def base(c: Cluster) -> str:
        if c.rule == "owner":
            assert c.owner is not None, "an owner cluster without an owner is never suggested, so never named"
            return _owner_slug(c.owner)
        assert c.prefix is not None, "a prefix cluster has its prefix"
        if owners_per_prefix[slugify(c.prefix)] > 1 and c.owner is not None:
            return slugify(f"{_owner_slug(c.owner)}-{c.prefix}")
        return slugify(c.prefix)

    taken = set(taken)
    names: dict[Cluster, str] = {}
    for cluster in sorted((c for c in clusters if c.suggested), key=lambda c: (base(c), c.rule != "prefix", c.repos)):
        names[cluster] = _free_name(base(cluster), taken)
        taken.add(names[cluster])
    return [replace(c, name=names[c]) if c in names else c for c in clusters]


def consider_groups(
    repos: list[ScannedRepo], existing: dict[str, list[str]] | None = None, personal: Collection[str] = ()
) -> list[Cluster]:
    """Every cluster of unmapped scanned repos, suggested or not and why (see module).

    `existing` is group → identities; `personal` the person's own account names (any case).
    """
    existing = existing or {}
    personal = {handle.lower() for handle in personal}
    mapped = {identity for identities in existing.values() for identity in identities}
    candidates = sorted({r.identity for r in repos if r.identity and r.identity not in mapped})
    clusters: list[Cluster] = []
    for key, members in sorted(_bucket(candidates, lambda i: _owner(i) or "").items()):
        owner = key or None
        prefixed = _prefix_clusters(owner, members)
        grouped = {identity for cluster in prefixed for identity in cluster.repos}
        rest = [identity for identity in members if identity not in grouped]
        clusters += prefixed + ([_owner_cluster(owner, rest, personal)] if rest else [])
    placed = mapped | {identity for c in clusters if c.suggested for identity in c.repos}
    solo_names = {r.solo_group for r in repos if r.identity not in placed}
    return _named(clusters, set(existing) | solo_names)


def suggestions(clusters: list[Cluster]) -> list[GroupSuggestion]:
    """The suggested clusters as groups to review, sorted by name."""
    chosen = []
    for c in clusters:
        if c.suggested:
            assert c.name is not None, "consider_groups names every suggested cluster"
            chosen.append(GroupSuggestion(c.name, list(c.repos), c.reason))
    return sorted(chosen, key=lambda s: s.name)


def suggest_groups(
    repos: list[ScannedRepo], existing: dict[str, list[str]] | None = None, personal: Collection[str] = ()
) -> list[GroupSuggestion]:
    """Suggested groups for scanned repos (see module)."""
    return suggestions(consider_groups(repos, existing, personal))


def _check_new_name(name: str, groups: dict[str, Any]) -> None:
    """A suggested name must be a slug (slugify leaves only slugs unchanged), and new."""
    if slugify(name) != name:
        pattern = "[a-z0-9][a-z0-9._-]{0,63}"
        raise VaultError("VALIDATION", f"group name {name!a} does not match {pattern}")
    if name in groups:
        raise VaultError("CONFIG", f"group {name!r} already exists; re-run the suggestion")


def apply_suggestions(config: dict[str, Any], suggestions: list[GroupSuggestion]) -> dict[str, Any]:
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


def duplicate_mappings(config: dict[str, Any]) -> list[dict[str, Any]]:
    """`[{"repo": identity, "groups": [...]}]` for identities mapped in several groups."""
    owners: dict[str, set[str]] = {}
    for name, group in config.get("groups", {}).items():
        for identity in group.get("repos", []):
            owners.setdefault(identity, set()).add(name)
    return [{"repo": identity, "groups": sorted(names)} for identity, names in sorted(owners.items()) if len(names) > 1]
