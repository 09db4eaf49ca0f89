"""The typed settings a command runs with: built once (`Settings.build`) from the effective
configuration (`store.config.read_config`: vault.json < machine config < vault.local.json,
programs only from the machine config) and how this machine weighs a review (`ReviewTrust`, from
the machine config only: `store.config.machine_review`). `Context.settings` holds it; every
writer and reader takes its values from there, never from the config dict.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeGuard

PUSH_POLICIES = ("session-end", "after-write", "manual")
AGENT_MODES = ("active", "candidate", "off")
ANY_MACHINE = "*"  # `review.trust_unsigned: ["*"]`: every machine's unsigned accepts count here


@dataclass(frozen=True)
class ReviewTrust:
    """How this machine weighs a person's accept (SPEC 5.5 as amended). Machine config only
    (`settings.review`): nothing sync brings can set it.

    `signers`: the allowed-signers file (git's ssh format) git verifies accepts against; with it,
    only verified accepts count. Without it, this machine's own accepts count, and another
    machine's unsigned ones where `unsigned_from` names it (`trust_unsigned`: machine ids, or "*")."""

    signers: Path | None = None
    unsigned_from: frozenset[str] = frozenset()

    @classmethod
    def build(cls, review: Mapping[str, Any], signers: Path | None = None) -> ReviewTrust:
        """The machine config's `settings.review` (its `allowed_signers` resolved by the caller)."""
        machines = review.get("trust_unsigned")
        named = frozenset(m for m in machines if _text(m)) if isinstance(machines, list) else frozenset()
        return cls(signers=signers, unsigned_from=named)

    def trusts_unsigned(self, machine: str) -> bool:
        """Whether another machine's unsigned accept counts here (never while keys are asked for)."""
        return self.signers is None and (ANY_MACHINE in self.unsigned_from or machine in self.unsigned_from)

    def digest(self, machine: str) -> str:
        """What the index remembers of this trust on `machine` (its id): a change re-judges every
        review. The signers file counts by its content's hash (a missing or unreadable file counts
        nothing as signed)."""
        signers = ""
        if self.signers is not None:
            try:
                signers = f"{self.signers}:{hashlib.sha256(self.signers.read_bytes()).hexdigest()}"
            except OSError:
                signers = f"{self.signers}:missing"
        return f"{signers}|{','.join(sorted(self.unsigned_from))}|{machine}"


@dataclass(frozen=True)
class Settings:
    """`settings` of the effective config, typed; a missing or unknown value is the default."""

    author: Mapping[str, str] | None = None  # {name, email}, both given, else None (git's own)
    lock_timeout_s: float | None = None  # None: the store lock's default
    push: str = "session-end"  # `sync.push`: session-end (the SessionEnd drain syncs), after-write, manual
    agents: str = "active"  # `writes.agents`, one of AGENT_MODES
    librarian: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))  # thresholds given
    distill_command: tuple[str, ...] | None = None  # machine config only (store.config.PROGRAM_KEYS)
    distill_timeout_s: float | None = None
    review: ReviewTrust = ReviewTrust()  # the machine's review trust (`store.config.machine_review`)

    @classmethod
    def build(cls, config: Mapping[str, Any], review: ReviewTrust | None = None) -> Settings:
        """The one reader of `config["settings"]`."""
        given = _obj(config, "settings")
        author = _obj(given, "author")
        name, email = author.get("name"), author.get("email")
        push = _obj(given, "sync").get("push")
        agents = _obj(given, "writes").get("agents")
        distill = _obj(given, "distill")
        command = distill.get("command")
        thresholds = _obj(given, "librarian").items()
        return cls(
            author=MappingProxyType({"name": name, "email": email}) if _text(name) and _text(email) else None,
            lock_timeout_s=_number(given.get("lock_timeout_s")),
            push=push if push in PUSH_POLICIES else "session-end",
            agents=agents if agents in AGENT_MODES else "active",
            librarian=MappingProxyType({k: v for k, v in thresholds if isinstance(v, int) and not isinstance(v, bool)}),
            distill_command=tuple(str(part) for part in command) if isinstance(command, list) and command else None,
            distill_timeout_s=_number(distill.get("timeout_s")) or None,
            review=review or ReviewTrust(),
        )

    @property
    def push_after_write(self) -> bool:
        """A write's commit starts a detached push (`sync.push = after-write`)."""
        return self.push == "after-write"


def _obj(parent: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = parent.get(key)
    return value if isinstance(value, Mapping) else {}


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _text(value: object) -> TypeGuard[str]:
    return isinstance(value, str) and bool(value)


DEFAULT_SETTINGS = Settings()  # a vault without settings (and a writer given none)
