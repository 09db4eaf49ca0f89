"""What a harness's health probe gets and gives: the table `status` and `hooks status` show
(`jacked_vault.hooks.health`) has a row per harness and part, and a harness adapter answers for its own
`brief` and `capture` parts (`Harness.probe`) from these.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NotRequired, TypedDict

from jacked_vault.store.log import LastRun, run_name


@dataclass(frozen=True)
class Probe:
    """What a probe gets: the harness, the vault, the cwd, and the log's last runs."""

    harness: str
    vault: Path
    cwd: Path
    runs: dict[str, LastRun]

    def hook_run(self, *names: str) -> LastRun | None:
        """The latest run of this harness's hooks named `names` (`session-start`, `session-end`, …)."""
        keys = [run_name(self.harness, name) for name in names]
        return latest([self.runs[key] for key in keys if key in self.runs])

    def mcp_brief_run(self) -> LastRun | None:
        return self.runs.get(f"mcp-brief:{self.harness}")


class PartJson(TypedDict):
    """A row as `status --json` and `hooks status --json` give it (`Part.to_json`)."""

    state: str
    where: list[str]
    via: str | None
    last_run: dict[str, Any] | None  # LastRun.to_json
    problem: NotRequired[str]


@dataclass
class Part:
    """One row: `state` (installed, partial, outdated, stranded, absent, unreadable, or `mcp`/
    `elsewhere` for what the MCP server does), `where` it is, `via` what, and its last run."""

    state: str
    where: list[str] = field(default_factory=list)
    via: str | None = None
    last_run: LastRun | None = None
    problem: str | None = None

    def to_json(self) -> PartJson:
        out: PartJson = {
            "state": self.state,
            "where": list(self.where),
            "via": self.via,
            "last_run": self.last_run.to_json() if self.last_run else None,
        }
        if self.problem:
            out["problem"] = self.problem
        return out


def latest(runs: list[LastRun]) -> LastRun | None:
    return max(runs, key=lambda run: run.seq) if runs else None


def events_part(
    found: Sequence[Mapping[str, Any]],
    events: tuple[str, ...],
    via: str,
    last: LastRun | None,
    mcp_brief: LastRun | None = None,
) -> Part:
    """A hooks file's part (`found`: each file's status, `installed` its events) as one row."""
    where = [item["path"] for item in found if set(events) & set(item["installed"])]
    have = sorted({event for item in found for event in item["installed"] if event in events})
    last = latest([r for r in (last, mcp_brief) if r])
    if not have:
        return Part("absent", last_run=last)
    return Part("installed" if len(have) == len(events) else "partial", where, f"{via} ({', '.join(have)})", last)
