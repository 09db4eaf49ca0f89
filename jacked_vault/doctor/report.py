"""What `doctor` found: one `Report`, every problem with the command that fixes it."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Report:
    memory_count: int = 0
    invalid_files: list[dict] = field(default_factory=list)  # committed files the gate refuses (quarantined)
    duplicate_ids: list[dict] = field(default_factory=list)
    broken_links: list[dict] = field(default_factory=list)
    skipped_symlinks: list[str] = field(default_factory=list)
    uncommitted: list[dict] = field(default_factory=list)  # working-tree files that differ from HEAD, judged
    audit_problems: list[dict] = field(default_factory=list)
    truncated: bool = False
    stale_temp_files: int = 0
    git_index_stale: list[str] = field(default_factory=list)
    git_problems: list[dict] = field(default_factory=list)
    config_problems: list[dict] = field(default_factory=list)
    config_warnings: list[dict] = field(default_factory=list)
    derived_stale: list[dict] = field(default_factory=list)
    stale_git_locks: list[str] = field(default_factory=list)
    quarantine: list[dict] = field(default_factory=list)  # what was set aside (records, informational)
    repaired: list[str] = field(default_factory=list)
    reindexed: bool = False
    captures: dict = field(default_factory=dict)  # store.queue.QueueCounts.to_json()

    @property
    def ok(self) -> bool:
        """No problem found; warnings (`warnings`) alone never make it false."""
        return not (
            self.invalid_files
            or self.duplicate_ids
            or self.skipped_symlinks
            or self.uncommitted
            or self.audit_problems
            or self.truncated
            or self.git_index_stale
            or self.git_problems
            or self.config_problems
            or self.derived_stale
            or self.stale_git_locks
        )

    @property
    def warnings(self) -> list[dict]:
        """What deserves a look but needs no repair: each with its code, what it is about, and the fix."""
        return [
            {
                "code": "BROKEN_LINK",
                "id": link["id"],
                "missing": link["missing"],
                "fix": f"{link['id']} links to {link['missing']}, which no store seen from here holds. Nothing to do if that "
                "note lives in another repo's project store or has not been synced yet; otherwise save a corrected note "
                f"with `jacked memory add … --supersedes {link['id']}` (notes are never edited in place)",
            }
            for link in self.broken_links
        ] + (
            [
                {
                    "code": "FAILED_CAPTURES",
                    "count": self.captures["failed"],
                    "fix": "captures given up on after their retries are kept in .jacked/queue/failed/ with their last_error "
                    "(and a line in .jacked/log); once the cause is fixed, move them back to .jacked/queue/ to retry, or delete them",
                }
            ]
            if self.captures.get("failed")
            else []
        )

    def to_json(self) -> dict:
        return {
            "ok": self.ok,
            "warnings": self.warnings,
            "memory_count": self.memory_count,
            "invalid_files": self.invalid_files,
            "duplicate_ids": self.duplicate_ids,
            "broken_links": self.broken_links,
            "skipped_symlinks": self.skipped_symlinks,
            "uncommitted": self.uncommitted,
            "audit_problems": self.audit_problems,
            "truncated": self.truncated,
            "stale_temp_files": self.stale_temp_files,
            "git_index_stale": self.git_index_stale,
            "git_problems": self.git_problems,
            "config_problems": self.config_problems,
            "config_warnings": self.config_warnings,
            "derived_stale": self.derived_stale,
            "stale_git_locks": self.stale_git_locks,
            "quarantine": self.quarantine,
            "repaired": self.repaired,
            "reindexed": self.reindexed,
            "captures": self.captures,
        }
