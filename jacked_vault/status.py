"""`status`: where the vault is, how many notes, how it stands against its remote, and the cwd repo."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jacked_vault.context import Context
from jacked_vault.hooks.health import hooks_health, summary
from jacked_vault.search.index import SearchIndex
from jacked_vault.store import git
from jacked_vault.store.gitfiles import origin_url
from jacked_vault.store.layout import Store
from jacked_vault.store.queue import queue_counts
from jacked_vault.store.sync_state import read_states, shown_at
from jacked_vault.sync.remote import display_url


def _remote_state(store: Store) -> dict[str, Any]:
    """Remote URL (credentials masked) and ahead/behind against the upstream of the current
    branch (no network)."""

    repo = git.open_repo(store.root)
    state = {
        "remote": display_url(origin_url(store.root)),
        "branch": None if repo.head_is_detached or repo.head_is_unborn else repo.head.shorthand,
        "detached": repo.head_is_detached,
        "ahead": 0,
        "behind": 0,
        "diverged": False,
    }
    if repo.head_is_unborn or repo.head_is_detached:
        return state
    tracking = repo.references.get(f"refs/remotes/origin/{repo.head.shorthand}")
    if tracking is None:
        if state["remote"]:  # set but this branch never pushed: everything is ahead
            state["ahead"] = sum(1 for _ in zip(range(100_000), repo.walk(repo.head.target), strict=False))
        return state
    ahead, behind = repo.ahead_behind(repo.head.target, tracking.target)
    state.update(ahead=ahead, behind=behind, diverged=bool(ahead and behind))
    return state


@dataclass(frozen=True)
class Status:
    """The vault (path, head, notes, remote state, last sync), the repo containing the cwd, the
    hooks (installed, last run: `health.hooks_health`) and the capture queue's counts."""

    vault: dict[str, Any]
    repo: dict[str, Any] | None
    hooks: dict[str, Any]
    captures: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"vault": self.vault, "repo": self.repo, "hooks": self.hooks, "captures": self.captures}

    def to_text(self) -> str:
        v = self.vault
        lines = [f"vault: {v['path']}", f"head: {v['head'] or '(no commits)'}", f"notes: {v['notes']}"]
        if v["detached"]:
            lines.append("warning: the vault is on a detached HEAD; sync needs a branch (`git -C VAULT switch main`)")
        if v["remote"]:
            lines.append(
                f"remote: {v['remote']} (branch {v['branch'] or '-'}; ahead {v['ahead']}, behind {v['behind']})"
            )
            if v["diverged"]:
                lines.append("warning: the vault has diverged from its remote; run `jacked memory sync`")
        else:
            lines.append("remote: none (share the vault with `jacked memory remote set URL`)")
        if v["remote"]:
            when = {
                "session-end": " (at the end of each session)",
                "after-write": " (after each write)",
                "manual": " (only `jacked memory push` or `sync`)",
            }[v["push_policy"]]
            lines.append(f"pushes: {v['push_policy']}{when}")
            for kind in ("pull", "push"):
                last = v[f"last_{kind}"]
                if last:
                    when = shown_at(last["at"])
                    retry = " (tried again at the next trigger)" if kind == "push" and last["result"] != "ok" else ""
                    lines.append(
                        f"last {kind} {last['result']} at {when}"
                        + (f" ({last['message']})" if last["message"] else "")
                        + retry
                    )
        if v.get("quarantined"):
            lines.append(
                f"quarantined: {v['quarantined']} file(s) set aside in .git/jacked/quarantine/ "
                "(never recalled; `jacked memory doctor` lists them)"
            )
        waiting = v["candidates"]
        lines.append(
            f"review: {waiting} candidate{'s' if waiting != 1 else ''} waiting"
            + (" (`jacked memory review`)" if waiting else "")
        )
        lines += _reviews_text(v["reviews"])
        lines.append(f"agents write: {v['agents']}")
        repo = self.repo
        lines.append(
            f"repo: {repo['identity']} (group {repo['group']}) at {repo['path']}"
            if repo
            else "repo: none (not inside a git repo)"
        )

        lines.append(summary(self.hooks, self.captures))
        return "\n".join(lines)


def _reviews_text(reviews: dict[str, Any]) -> list[str]:
    """What the reviewed notes are worth here and how this machine weighs an accept (nothing to
    say: no line)."""
    lines = []
    counted = reviews["here"] + reviews["verified"] + reviews["machine"]
    if counted or reviews["not_counted"] or reviews["unproven"]:
        parts = [f"{counted} counted ({reviews['here']} accepted here, {reviews['verified']} verified"]
        parts[0] += f", {reviews['machine']} unsigned from trusted machines)" if reviews["machine"] else ")"
        if reviews["not_counted"]:
            parts.append(f"{reviews['not_counted']} accepted elsewhere, not verified, not counted")
        if reviews["unproven"]:
            parts.append(f"{reviews['unproven']} claiming it with no accept")
        named = " (`jacked memory doctor` names them)" if len(parts) > 1 else ""
        lines.append("reviewed notes: " + "; ".join(parts) + named)
    if reviews["signers"]:
        lines.append(f"review signing: only accepts verified against {reviews['signers']} count")
    elif reviews["trust_unsigned"]:
        lines.append(f"review signing: off; unsigned accepts from {', '.join(reviews['trust_unsigned'])} count")
    return lines


def status(ctx: Context) -> Status:

    store = ctx.vault
    index = SearchIndex(store)
    try:
        index.refresh()
        notes = index.read.count()
        candidates = index.read.count(status="candidate")
        reviews = index.read.review_counts()
    finally:
        index.close()
    from jacked_vault.store.gate import quarantine_records

    states = read_states(store.root)
    vault = {
        "path": str(store.root),
        "head": git.fast_head(store.root),
        "notes": notes,
        **_remote_state(store),
        "last_sync": states["pull"].to_json()
        if states["pull"]
        else None,  # the last pull (this key's name predates pushes)
        "last_pull": states["pull"].to_json() if states["pull"] else None,
        "last_push": states["push"].to_json() if states["push"] else None,
        "push_policy": ctx.settings.push,
        "candidates": candidates,
        "reviews": {  # the notes claiming `reviewed`, by what their accept is worth here (store/reviews.py)
            **reviews,
            "signers": str(ctx.settings.review.signers) if ctx.settings.review.signers else None,
            "trust_unsigned": sorted(ctx.settings.review.unsigned_from),
        },
        "agents": ctx.settings.agents,
        "quarantined": len(quarantine_records(store)),
    }
    repo = None
    if ctx.repo is not None:
        repo = {"identity": ctx.repo.identity, "group": ctx.group, "path": str(ctx.repo.root)}

    return Status(vault=vault, repo=repo, hooks=hooks_health(ctx), captures=queue_counts(store.state).to_json())
