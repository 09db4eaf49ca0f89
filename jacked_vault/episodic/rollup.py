"""Rollup (SPEC 9): past day files -> `recent.md` sections -> `archive.md` weeks. Deterministic, no model.

For each repo's episodic folder:

- every `today-YYYY-MM-DD.md` dated before `today` becomes the `## YYYY-MM-DD` section of
  `recent.md` (its `# title` line dropped, its headers one level deeper: `## HH:MM | b` ->
  `### HH:MM | b`) and is renamed `today-YYYY-MM-DD.done.md` (byte for byte; when a `.done.md`
  of that day exists already, the late entries are appended to it, less the entries that copy
  already holds: an interrupted earlier run that left the day file beside its copy is resumed,
  never repeated);
- every `recent.md` section more than 7 days before `today` moves to `archive.md`, under
  `## Week of <Monday>` as a `### YYYY-MM-DD` subsection (its headers one level deeper again);
- a day file with no entries is renamed and adds no section;
- sections stay sorted by date in both files whatever order days arrive in; a day that already
  has a section gets the late entries appended to it; text that is not a dated section (a
  preamble, foreign `##` sections) is kept.

Everything is computed in memory (`roll_folder`, pure) and written in one transaction: one commit
for the whole rollup with an audit line per changed file. A rollup with nothing to do writes
nothing and makes no commit, so running it twice changes nothing.

Idempotent across a crash too. A rollup killed before its commit (no undo runs on SIGKILL)
leaves its write journal behind; the next write, this rollup's included, first puts each file
that still holds exactly what the killed one wrote back to its committed version (nothing else
is touched: `write.transaction.roll_back`), so the rollup starts from there: each day lands
once, and its work is committed at last. `recovered` names the files put back.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from jacked_vault.document import timestamps
from jacked_vault.episodic.headers import (
    DATE_SECTION,
    DAY_SUBSECTION,
    ENTRY_HEADER,
    WEEK_SECTION,
    Doc,
    Section,
    demote,
    drop_title,
    has_content,
    parse_date,
    parse_doc,
    render_doc,
    section_date,
    split_sections,
    strip_blank,
)
from jacked_vault.errors import VaultError
from jacked_vault.safety import fsio
from jacked_vault.store.layout import GROUPS_DIR, Store
from jacked_vault.store.settings import DEFAULT_SETTINGS, Settings

RECENT = "recent.md"
ARCHIVE = "archive.md"
RECENT_TITLE = "# Recent"
ARCHIVE_TITLE = "# Archive"
RECENT_DAYS = 7
MAX_DAY_BYTES = 1024 * 1024
MAX_ROLLED_BYTES = 32 * 1024 * 1024  # recent.md, archive.md
MAX_FOLDERS = 5000
DAY_FILE = re.compile(r"^today-(\d{4}-\d{2}-\d{2})\.md$")
_SLUG = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
_IDENTITY = re.compile(r"^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*){0,7}$")


def done_name(day: date) -> str:
    return f"today-{day.isoformat()}.done.md"


def monday(day: date) -> date:
    return day - timedelta(days=day.weekday())


# -- the pure part ---------------------------------------------------------------------------


@dataclass
class FolderResult:
    """What rolling one folder changes (file name -> new bytes, None = removed) and reports."""

    writes: dict[str, bytes | None] = field(default_factory=dict)
    rolled: list[str] = field(default_factory=list)  # days moved out of day files
    empty: list[str] = field(default_factory=list)  # rolled days that had no entries
    archived: list[str] = field(default_factory=list)  # days moved from recent.md to archive.md
    skipped: list[dict[str, str]] = field(default_factory=list)  # {"file", "reason"}


def _add_day(doc: Doc, day: date, header: str, body: list[str]) -> None:
    """Append `body` to the `day` section of a recent.md doc (created when missing)."""
    for section in doc.sections:
        if section.key == day:
            section.body = strip_blank([*section.body, "", *body]) if section.body else body
            return
    doc.sections.append(Section(header, day, body))


def _archive_day(doc: Doc, day: date, header: str, body: list[str]) -> None:
    """Put one recent.md section into the archive doc: `### day` under `## Week of <Monday>`."""
    week = monday(day)
    target = next((s for s in doc.sections if s.key == week), None)
    if target is None:
        target = Section(f"## Week of {week.isoformat()}", week, [])
        doc.sections.append(target)
    pre, days = split_sections(target.body, DAY_SUBSECTION, DAY_SUBSECTION)
    lines = demote(body, 4)
    sub = next((s for s in days if s.key == day), None)
    if sub is None:
        days.append(Section("#" + header, day, lines))
    else:
        sub.body = strip_blank([*sub.body, "", *lines]) if sub.body else lines
    unkeyed = [s for s in days if s.key is None]
    keyed = sorted((s for s in days if s.key is not None), key=section_date)
    parts = [pre] if pre else []
    parts += [[s.header, *s.body] for s in unkeyed + keyed]
    out: list[str] = []
    for part in parts:
        if out:
            out.append("")
        out.extend(part)
    target.body = out


def _entries(lines: list[str]) -> list[tuple[str, ...]]:
    """The entries of day-file lines (title dropped), each as its lines without blank ends;
    text before the first entry header, when there is any, counts as one entry."""
    head, sections = split_sections(lines, ENTRY_HEADER, None)
    return ([tuple(head)] if head else []) + [(s.header, *s.body) for s in sections]


def _not_yet_rolled(lines: list[str], done: bytes) -> list[str]:
    """The day file's lines less the entries its `.done.md` copy already holds: those were rolled
    by an earlier run (an interrupted one leaves the day file beside its copy), so a rollup
    resumes and never adds an entry twice; entries written after that run stay."""
    rolled = set(_entries(drop_title(done.decode("utf-8", errors="replace").splitlines())))
    out: list[str] = []
    for entry in _entries(lines):
        if entry not in rolled:
            out += [*([""] if out else []), *entry]
    return out


def roll_folder(today: date, files: dict[str, bytes]) -> FolderResult:
    """Roll one episodic folder given its relevant files (name -> bytes): day files before
    `today`, their `.done.md` when present, `recent.md` and `archive.md` when present.

    Pure and deterministic: the same input gives the same bytes.
    """
    result = FolderResult()
    days: dict[date, str] = {}
    for name in files:
        match = DAY_FILE.match(name)
        if match:
            day = parse_date(match.group(1))
            if day is not None and day < today:
                days[day] = name
    texts = {}
    for name in (RECENT, ARCHIVE):
        if name in files:
            try:
                texts[name] = files[name].decode("utf-8")
            except UnicodeDecodeError:
                result.skipped.append({"file": name, "reason": "not valid UTF-8; folder left as it is"})
                return result
    recent = parse_doc(texts[RECENT], DATE_SECTION) if RECENT in texts else Doc([RECENT_TITLE])
    archive = parse_doc(texts[ARCHIVE], WEEK_SECTION) if ARCHIVE in texts else Doc([ARCHIVE_TITLE])

    changed_recent = False
    for day in sorted(days):
        name = days[day]
        data = files[name]
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            result.skipped.append({"file": name, "reason": "not valid UTF-8; left in place"})
            continue
        lines = drop_title(text.splitlines())
        done = done_name(day)
        if not has_content(lines):
            result.empty.append(day.isoformat())
        elif done in files:
            lines = _not_yet_rolled(lines, files[done])
        if has_content(lines):
            _add_day(recent, day, f"## {day.isoformat()}", demote(strip_blank(lines), 3))
            changed_recent = True
        if done in files:
            extra = "\n".join(strip_blank(lines))
            if extra:
                result.writes[done] = files[done].rstrip(b"\n") + b"\n\n" + extra.encode("utf-8") + b"\n"
        else:
            result.writes[done] = data
        result.writes[name] = None
        result.rolled.append(day.isoformat())

    cutoff = today - timedelta(days=RECENT_DAYS)
    keep: list[Section] = []
    move: list[Section] = []
    for section in recent.sections:
        (move if section.key is not None and section.key < cutoff else keep).append(section)
    if move:
        recent.sections = keep
        changed_recent = True
        for section in sorted(move, key=section_date):
            day = section_date(section)
            _archive_day(archive, day, section.header, section.body)
            result.archived.append(day.isoformat())
        new_archive = render_doc(archive).encode("utf-8")
        if new_archive != files.get(ARCHIVE):
            result.writes[ARCHIVE] = new_archive
    if changed_recent:
        new_recent = render_doc(recent).encode("utf-8")
        if new_recent != files.get(RECENT):
            result.writes[RECENT] = new_recent
    return result


# -- folders on disk ---------------------------------------------------------------------------


@dataclass
class RepoRollup:
    group: str
    folder: str  # store-relative episodic folder
    rolled: list[str]
    empty: list[str]
    archived: list[str]
    files: list[str]  # store-relative paths changed (written or removed)
    skipped: list[dict[str, str]]

    def to_json(self) -> dict[str, Any]:
        return {
            "group": self.group,
            "repo": self.folder.rsplit("/", 1)[-1].replace("__", "/"),
            "path": f"vault:{self.folder}",
            "rolled": self.rolled,
            "empty": self.empty,
            "archived": self.archived,
            "files": [f"vault:{p}" for p in self.files],
            "skipped": [{**s, "file": f"vault:{self.folder}/{s['file']}"} for s in self.skipped],
        }


@dataclass
class RollupResult:
    today: str
    repos: list[RepoRollup]
    commit: str | None
    skipped: list[dict[str, str]]  # folders not looked at: {"path", "reason"}
    recovered: list[str] = field(default_factory=list)  # files an interrupted write left, put back first

    @property
    def changed(self) -> bool:
        return self.commit is not None

    def to_json(self) -> dict[str, Any]:
        return {
            "today": self.today,
            "changed": self.changed,
            "commit": self.commit,
            "rolled": sum(len(r.rolled) for r in self.repos),
            "archived": sum(len(r.archived) for r in self.repos),
            "repos": [r.to_json() for r in self.repos],
            "skipped": self.skipped,
            "recovered": [f"vault:{p}" for p in self.recovered],
        }

    def to_text(self) -> str:
        payload = self.to_json()
        lines = []
        if payload["recovered"]:
            lines.append(
                f"put back {len(payload['recovered'])} file(s) an interrupted write had left uncommitted; rolling up "
                "again"
            )
        for repo in payload["repos"]:
            parts = []
            if repo["rolled"]:
                parts.append(f"{len(repo['rolled'])} day(s) rolled into recent.md")
            if repo["empty"]:
                parts.append(f"{len(repo['empty'])} of them empty")
            if repo["archived"]:
                parts.append(f"{len(repo['archived'])} day(s) archived")
            if parts:
                lines.append(f"{repo['group']} {repo['repo']}: {', '.join(parts)}")
            lines += [f"  skipped {skip['file']}: {skip['reason']}" for skip in repo["skipped"]]
        lines += [f"skipped {skip['path']}: {skip['reason']}" for skip in payload["skipped"]]
        if self.commit:
            lines.append(f"Rolled up as of {self.today} [{self.commit[:10]}]")
        else:
            lines.append(f"Nothing to roll up as of {self.today}")
        return "\n".join(lines)


def _subdirs(root: Path, rel: str, skipped: list[dict[str, str]]) -> list[str]:
    """Names of the real (non-symlink, non-hidden) directories in root/rel, sorted."""
    try:
        with os.scandir(root / rel) as it:
            entries = sorted(it, key=lambda e: e.name)
    except FileNotFoundError:
        return []
    except NotADirectoryError:
        skipped.append({"path": f"vault:{rel}", "reason": "not a directory"})
        return []
    except OSError as exc:
        skipped.append({"path": f"vault:{rel}", "reason": f"unreadable ({exc.strerror})"})
        return []
    out = []
    for entry in entries:
        if entry.name.startswith("."):
            continue
        if entry.is_symlink():
            skipped.append({"path": f"vault:{rel}/{entry.name}", "reason": "symlink, never followed"})
        elif entry.is_dir(follow_symlinks=False):
            out.append(entry.name)
    return out


def episodic_folders(
    store: Store, group: str | None, repo: str | None
) -> tuple[list[tuple[str, str]], list[dict[str, str]]]:
    """(group, store-relative folder) for every repo episodic folder in scope, and what was skipped."""
    if group is not None and not _SLUG.match(group):
        raise VaultError("USAGE", "--group is not a group name (a slug: a-z, 0-9, . _ -)")
    slug = None
    if repo is not None:
        if not _IDENTITY.match(repo):
            raise VaultError("USAGE", "--repo is not a repo identity (like github.com/acme/api)")
        slug = repo.replace("/", "__")
    skipped: list[dict[str, str]] = []
    groups = [group] if group is not None else _subdirs(store.root, GROUPS_DIR, skipped)
    out = []
    for name in groups:
        base = f"{GROUPS_DIR}/{name}/episodic"
        for folder in _subdirs(store.root, base, skipped):
            if slug is None or folder == slug:
                out.append((name, f"{base}/{folder}"))
                if len(out) > MAX_FOLDERS:
                    raise VaultError(
                        "INCOMPLETE", f"more than {MAX_FOLDERS} episodic folders; narrow with --group or --repo"
                    )
    return out, skipped


def _read_folder(store: Store, folder: str, today: date) -> tuple[dict[str, bytes], list[dict[str, str]]]:
    """The files `roll_folder` needs, read without following symlinks; problems as skips."""

    skipped: list[dict[str, str]] = []
    kinds: dict[str, int] = {}
    try:
        with os.scandir(store.root / folder) as it:
            for entry in it:
                if not entry.name.startswith("."):
                    kinds[entry.name] = entry.stat(follow_symlinks=False).st_mode
    except OSError as exc:
        return {}, [{"file": ".", "reason": f"unreadable ({exc.strerror})"}]
    wanted = [RECENT, ARCHIVE]
    for name in sorted(kinds):
        match = DAY_FILE.match(name)
        day = parse_date(match.group(1)) if match else None
        if day is not None and day < today:
            wanted += [name, done_name(day)]
    files: dict[str, bytes] = {}
    for name in wanted:
        mode = kinds.get(name)
        if mode is None:
            continue
        if not stat.S_ISREG(mode):
            what = "symlink, never followed" if stat.S_ISLNK(mode) else "not a regular file"
            if name in (RECENT, ARCHIVE):
                return {}, [{"file": name, "reason": f"{what}; folder left as it is"}]
            skipped.append({"file": name, "reason": f"{what}; day left in place"})
            continue
        cap = MAX_DAY_BYTES if DAY_FILE.match(name) else MAX_ROLLED_BYTES
        try:
            files[name] = fsio.read_file(store.root, f"{folder}/{name}", max_bytes=cap)
        except (OSError, VaultError) as exc:
            reason = exc.message if isinstance(exc, VaultError) else f"unreadable ({exc.strerror})"
            if name in (RECENT, ARCHIVE):
                return {}, [{"file": name, "reason": f"{reason}; folder left as it is"}]
            skipped.append({"file": name, "reason": f"{reason}; day left in place"})
    # A day whose .done.md is not a plain readable file stays where it is (never clobber it).
    for name in list(files):
        match = DAY_FILE.match(name)
        if match:
            day = parse_date(match.group(1))
            assert day is not None, "a day file is read only when its name holds a date (wanted)"
            done = done_name(day)
            if done in kinds and done not in files:
                del files[name]
    return files, skipped


def rollup(
    store: Store,
    *,
    today: date | None = None,
    group: str | None = None,
    repo: str | None = None,
    harness: str = "unknown",
    origin: str = "cli",
    settings: Settings = DEFAULT_SETTINGS,
) -> RollupResult:
    """Roll up every episodic folder in scope in one commit (none when nothing changes)."""
    from jacked_vault.store import audit
    from jacked_vault.write.transaction import write_transaction

    today = today or date.today()
    repos: list[RepoRollup] = []
    commit = None
    with write_transaction(store, harness=harness, origin=origin, settings=settings) as tx:
        recovered = tx.rolled_back
        folders, skipped = episodic_folders(store, group, repo)
        stamp = timestamps.utc_now()
        rolled_folders = []
        for group_name, folder in folders:
            files, problems = _read_folder(store, folder, today)
            result = roll_folder(today, files)
            result.skipped[:0] = problems
            rolled_folders.append((group_name, folder, result))
        for group_name, folder, result in rolled_folders:
            changed = []
            identity = folder.rsplit("/", 1)[-1].replace("__", "/")
            # Write the new files first, then remove the day files they replace.
            for name, data in sorted(result.writes.items(), key=lambda kv: kv[1] is None):
                rel = f"{folder}/{name}"
                if data is None:
                    tx.remove(rel)
                    sha = None
                else:
                    tx.replace(rel, data)
                    sha = audit.content_hash(data)
                tx.record(audit.AuditEvent(stamp, "rollup", f"episodic:{identity}", rel, sha, harness, origin))
                changed.append(rel)
            if changed or result.skipped:
                repos.append(
                    RepoRollup(
                        group_name, folder, result.rolled, result.empty, result.archived, changed, result.skipped
                    )
                )
        if any(r.files for r in repos):
            rolled = sum(len(r.rolled) for r in repos)
            archived = sum(len(r.archived) for r in repos)
            touched = sum(1 for r in repos if r.files)
            commit = tx.commit(
                f"memory(rollup): {rolled} day(s) rolled, {archived} archived in {touched} repo(s) as of "
                f"{today.isoformat()}"
            )
    return RollupResult(today.isoformat(), repos, commit, skipped, recovered)
