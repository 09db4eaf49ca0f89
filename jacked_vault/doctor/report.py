"""What `doctor` found: one `Report`, every problem with the command that fixes it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from jacked_vault.render import plural

REPAIR = "`jacked memory doctor --repair`"
MAX_SHOWN = 20  # per kind of finding; --json has them all


def _rel(path: str) -> str:
    """`group:groups/x/note/a.md` -> `groups/x/note/a.md` (the path inside its store)."""
    return path.split(":", 1)[-1]


def _uncommitted(item: dict[str, Any]) -> tuple[str, str]:
    path, problem, state = item["path"], item.get("problem"), item["state"]
    if item["repair"] == "commit":
        what = "valid note" if item.get("kind") == "note" else f"valid {item.get('kind')} file"
        return f"{path}: {what}, {state} and not committed yet", f"{REPAIR} will commit it"
    if item["repair"] == "quarantine":
        back = " and restores the committed version" if state == "modified" else ""
        kept = "moves it to .git/jacked/quarantine/ (kept, never deleted)"
        return f"{path}: invalid ({problem})", f"{REPAIR} {kept}{back}"
    if item["repair"] == "roll back":
        return (
            f"{path}: {state}, left by an interrupted write",
            f"{REPAIR} (or the next write) rolls it back to the last commit",
        )
    if item["repair"] == "restore":
        return f"{path}: deleted from the working tree", f"{REPAIR} restores it from the last commit"
    return f"{path}: {problem or 'not memory'}", "move it out of the vault yourself; jacked never commits it"


def _audit(item: dict[str, Any]) -> tuple[str, str]:
    path, code = item["path"], item["code"]
    history = f"`git log -p -- {_rel(path)}` (in its store) shows who changed it"
    if code == "EDITED_OUTSIDE_TOOL":
        how = {
            "vault.json": "change groups with `jacked memory group map|unmap`",
            "hot.md": "write it with `jacked memory hot set`",
        }
        way = how.get(_rel(path).rsplit("/", 1)[-1], "a note changes only through accept, reject, supersede or expire")
        return f"{path}: edited outside jacked (it no longer matches its last audit line)", f"{history}; {way}"
    if code == "NO_AUDIT_RECORD":
        return (
            f"{path}: committed without an audit line (added by hand?)",
            f"{history}; if it is wanted, re-add it with `jacked memory add`",
        )
    where = f" line {item['line']}" if "line" in item else ""
    return (
        f"{path}{where}: audit log {code.lower().replace('_', ' ')}",
        f"{history}; the log is append-only evidence, never rewrite it",
    )


FULL_HINT = (  # plain doctor checks each object of the current tree is there, never its content
    "git objects: all there, their contents not read (`jacked memory doctor --full` checks each one and the "
    "whole history)"
)


@dataclass
class Report:
    memory_count: int = 0
    invalid_files: list[dict[str, Any]] = field(default_factory=list)  # committed files the gate refuses (quarantined)
    duplicate_ids: list[dict[str, Any]] = field(default_factory=list)
    broken_links: list[dict[str, Any]] = field(default_factory=list)  # a warning: links are hints
    broken_wikilinks: list[dict[str, Any]] = field(
        default_factory=list
    )  # {"id", "target"}: a [[wikilink]] naming no note (search/wikilinks.py)
    skipped_symlinks: list[str] = field(default_factory=list)
    uncommitted: list[dict[str, Any]] = field(default_factory=list)  # working-tree files that differ from HEAD, judged
    audit_problems: list[dict[str, Any]] = field(default_factory=list)
    truncated: bool = False
    stale_temp_files: int = 0
    git_index_stale: list[str] = field(default_factory=list)
    git_problems: list[dict[str, Any]] = field(default_factory=list)
    config_problems: list[dict[str, Any]] = field(default_factory=list)
    config_warnings: list[dict[str, Any]] = field(default_factory=list)
    derived_stale: list[dict[str, Any]] = field(default_factory=list)
    stale_git_locks: list[str] = field(default_factory=list)
    quarantine: list[dict[str, Any]] = field(default_factory=list)  # what was set aside (records, informational)
    outside_layout: list[str] = field(default_factory=list)  # committed paths outside the layout (the first 100)
    outside_layout_count: int = 0  # all of them
    unproven_reviews: list[dict[str, Any]] = field(
        default_factory=list
    )  # {"path", "id", "review"}: claims `reviewed`, no accept that counts here behind it (a warning)
    repaired: list[str] = field(default_factory=list)
    reindexed: bool = False
    full: bool = False  # every object read and checked, and git fsck over the history (`doctor --full`)
    captures: dict[str, Any] = field(default_factory=dict)  # store.queue.QueueCounts.to_json()

    @property
    def ok(self) -> bool:
        """No problem (warnings such as broken links do not count)."""
        return not self.problems()

    def problems(self) -> list[tuple[str, str]]:
        """(what is wrong, how to fix it) for every problem, in the order doctor prints them."""
        out: list[tuple[str, str]] = []
        out += [
            (
                f"{f['path']}: committed but refused ({f['code']}: {f.get('problem', 'invalid')}); never recalled",
                f"fix or remove it in a commit of your own (`git rm {_rel(f['path'])}` in its store)",
            )
            for f in self.invalid_files
        ]
        for d in self.duplicate_ids:
            where = ", ".join(d.get("paths") or d.get("stores") or [])
            out.append(
                (
                    f"{d['id']} is carried by several files ({where})",
                    "keep one: `git rm` the copy in its store (the id is authoritative)",
                )
            )
        out += [
            (f"{p}: a symlink, skipped and never followed", f"replace it with the file itself, or `git rm {_rel(p)}`")
            for p in self.skipped_symlinks
        ]
        out += [_uncommitted(u) for u in self.uncommitted]
        if self.outside_layout_count:
            n, first = self.outside_layout_count, self.outside_layout[:3]
            more = f" and {n - len(first):,} more" if n > len(first) else ""
            out.append((
                f"{n:,} committed file{'' if n == 1 else 's'} {'is' if n == 1 else 'are'} outside the vault layout, "
                "never indexed or recalled: "
                f"{', '.join(first)}{more}",
                "move them out of the vault, or `git rm` them in a commit of your own (in their store); "
                "`jacked memory doctor --json` names the first 100",
            ))  # fmt: skip
        out += [_audit(a) for a in self.audit_problems]
        if self.truncated:
            out.append(
                (
                    "a scan hit its bounds (5,000 files, depth 8 or 16 MiB): results are incomplete",
                    "move old notes to archive/ or split a large group",
                )
            )
        out += [
            (f"{p}: git's index differs from HEAD (an interrupted write)", f"{REPAIR} re-stages it")
            for p in self.git_index_stale
        ]
        out += [
            (f"{p['path']}: {p['problem']}", p.get("fix") or "restore the vault from its remote or a backup")
            for p in self.git_problems
        ]
        out += [
            (
                f"{c['repo']} is mapped to several groups ({', '.join(c['groups'])})",
                f"`jacked memory group map {c['repo']} GROUP` keeps it in one",
            )
            for c in self.config_problems
        ]
        out += [
            (f"{d['path']}: derived index.md is {d['state']}", f"{REPAIR} regenerates it") for d in self.derived_stale
        ]
        out += [
            (
                f"{p}: a git lock file left by a killed git or jacked",
                f"{REPAIR} removes it (when no git runs in the vault)",
            )
            for p in self.stale_git_locks
        ]
        return out

    def warnings(self) -> list[dict[str, Any]]:
        """Findings that deserve a look but never make the vault unhealthy: each with its `code`,
        `what` it is and the `fix` (plus the data it is about)."""
        from jacked_vault.store.config import machine_config_path
        from jacked_vault.store.reviews import Provenance

        # fmt: off
        out = [
            {
                "code": "BROKEN_LINK", "id": b["id"], "missing": b["missing"],
                "what": f"{b['id']} links to {b['missing']}, which no store seen from here holds",
                "fix": "nothing to do if that note lives in another repo's project store or has not been synced yet; "
                       f"otherwise save a corrected note with `jacked memory add … --supersedes {b['id']}` "
                       "(notes are never edited in place)",
            }
            for b in self.broken_links
        ]
        out += [
            {
                "code": "BROKEN_WIKILINK", "id": b["id"], "target": b["target"],
                "what": f"{b['id']} links to [[{b['target']}]], which names no note (by file name, title or id) in "
                        "its store",
                "fix": "nothing to do if that note is still to be written or synced; otherwise link the note's file "
                       f"name, title or id in a corrected note: `jacked memory add … --supersedes {b['id']}` "
                       "(notes are never edited in place)",
            }
            for b in self.broken_wikilinks
        ]
        out += [
            {
                "code": "UNPROVEN_REVIEW", "id": u["id"], "path": u["path"],
                "what": f"{u['path']}: its file claims reviewed, but no accept by a person is behind it; shown and "
                        "treated as unreviewed",
                "fix": f"`git log -p -- {_rel(u['path'])}` (in its store) shows who wrote the claim; "
                       f"if you vouch for it, `jacked memory accept {u['id']}`",
            }
            if u["review"] is None else
            {
                "code": "UNVERIFIED_REVIEW", "id": u["id"], "path": u["path"],
                "what": f"{u['path']}: {Provenance.from_json(u['review']).said()}: not counted as reviewed here",
                "fix": "to count a team's accepts, each person signs theirs (`jacked memory signing` adds your key "
                       "and the team's to this machine's trusted keys); or trust that machine's unsigned accepts "
                       f"(`review.trust_unsigned` in {machine_config_path()}); or accept it yourself: "
                       f"`jacked memory accept {u['id']}`",
            }
            for u in self.unproven_reviews
        ]
        # fmt: on
        out += [
            {
                "code": "CONFIG_IGNORED",
                "path": w["path"],
                "what": f"{w['path']}: {w['field']} is ignored ({w['code']})",
                "fix": w["fix"],
            }
            for w in self.config_warnings
        ]
        if self.stale_temp_files:
            what = f"{plural(self.stale_temp_files, 'temp file')} left by an interrupted write"
            out.append(
                {
                    "code": "STALE_TEMP_FILES",
                    "count": self.stale_temp_files,
                    "what": what,
                    "fix": f"{REPAIR} removes them",
                }
            )
        if self.captures.get("failed"):
            out.append({
                "code": "FAILED_CAPTURES", "count": self.captures["failed"],
                "what": f"{plural(self.captures['failed'], 'capture')} given up on after their retries",
                "fix": "they are kept in .git/jacked/queue/failed/ with their last_error (and a line in "
                ".git/jacked/log); once the cause is fixed, move them back to .git/jacked/queue/ to retry, "
                "or delete them",
            })  # fmt: skip
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "warnings": self.warnings(),
            "memory_count": self.memory_count,
            "invalid_files": self.invalid_files,
            "duplicate_ids": self.duplicate_ids,
            "broken_links": self.broken_links,
            "broken_wikilinks": self.broken_wikilinks,
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
            "outside_layout": self.outside_layout,
            "outside_layout_count": self.outside_layout_count,
            "unproven_reviews": self.unproven_reviews,
            "repaired": self.repaired,
            "reindexed": self.reindexed,
            "full": self.full,
            "captures": self.captures,
        }

    def to_text(self) -> str:
        lines = [f"{plural(self.memory_count, 'note')} indexed" + (" (index rebuilt)" if self.reindexed else "")]
        if self.repaired:
            lines.append("repaired:")
            lines += [f"  - {path}" for path in self.repaired]
        problems = self.problems()
        warnings = [(w["what"], w["fix"]) for w in self.warnings()]
        for title, items in (("problems", problems), ("warnings", warnings)):
            if items:
                lines.append(f"{title} ({len(items)}):")
                for what, fix in items[:MAX_SHOWN]:
                    lines += [f"  - {what}", f"    fix: {fix}"]
                if len(items) > MAX_SHOWN:
                    lines.append(
                        f"  … and {len(items) - MAX_SHOWN} more (`jacked memory doctor --json` lists them all)"
                    )
        if self.quarantine:
            lines.append(
                f"in quarantine (.git/jacked/quarantine/: kept, never recalled): {plural(len(self.quarantine), 'file')}"
            )
            lines += [
                f"  {q.get('store', '')}:{q.get('path', '?')} ({q.get('source', '?')}: {q.get('reason', '')})"
                for q in self.quarantine[-5:]
            ]
        if not self.full:
            lines.append(FULL_HINT)
        lines.append("ok" if not problems else f"{plural(len(problems), 'problem')} found")
        return "\n".join(lines)
