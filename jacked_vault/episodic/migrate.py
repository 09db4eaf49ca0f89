"""Migration from the `remember` plugin's `.remember/` folders into the cwd repo's episodic folder.

Sources (read-only, never modified): `--from DIR` (repeatable), else `<repo>/.remember` and
`~/.remember/<slug>/` (slug: the repo folder's name, or its lowercase slug) when they are real
directories. Only the top level of a source is read; hidden entries, symlinks and folders are
skipped and reported; every read is size-capped and does not follow symlinks.

What lands where (`groups/<g>/episodic/<repo>/`); every file is copied byte for byte:

- `today-YYYY-MM-DD.md`, `today-YYYY-MM-DD.done.md`: the same name, unless the vault already has
  either file of that day (a live day file or a rolled-up one): then `<stem>.migrated-<n>.md`;
- `recent.md`, `archive.md`: the same name when the vault has none and the file has the shape
  rollup maintains (`##` sections, each a `YYYY-MM-DD` day, resp. a `Week of YYYY-MM-DD`), else
  `recent.migrated-<n>.md` / `archive.migrated-<n>.md`: they are never merged into the vault's
  own files, so nothing the vault has is ever rewritten;
- `archive-*.md` (rotated archives), `core-memories.md`, `identity.md`: the same name if free,
  else `.migrated-<n>`;
- `now.md` (the plugin's scratch buffer): `now.migrated.md` (then `now.migrated-<n>.md`); an
  empty `now.md` imports nothing;
- each `##` section of `core-memories.md` (a headerless file: the whole file) also becomes a
  candidate note of kind `context` (origin `migration`, status `candidate`, tags `migrated`,
  `core-memories`), reviewed with `accept`/`reject` like any capture. Tombstoned values are
  skipped and counted;
- `identity.md` (who the agent is and how it should work, written by the person) also becomes
  one candidate note of kind `preference` (tags `migrated`, `identity`), through the same path:
  it states the person's standing wishes for the agent, not a fact about the project.

A file is refused (reported, counted as skipped, never printed) when it holds a secret, a control
or bidi character, or is not UTF-8. Entries are counted in each source file and again in the file
as written (read back before the commit); any difference aborts the whole migration and nothing is
written. Everything (files, candidate notes, index.md, audit lines) is one commit.

Idempotence: every imported file and candidate leaves an audit line whose id is
`migration:<identity>:<sha256 of the source file>` (candidates: `…:note:<tombstone hash>`); a
second run finds them and imports nothing new. Sources are never marked or modified.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections.abc import Callable, Container, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jacked_vault.document import slugify_title, timestamps
from jacked_vault.document.markdown import iter_fenced
from jacked_vault.episodic.headers import (
    DATE_SECTION,
    SECTION,
    WEEK_SECTION,
    count_entries,
    drop_title,
    has_content,
    parse_date,
    split_sections,
    strip_blank,
)
from jacked_vault.errors import VaultError
from jacked_vault.safety import fsio
from jacked_vault.safety.text import check_text
from jacked_vault.search.entries import Entry
from jacked_vault.store.layout import episodic_dir

if TYPE_CHECKING:
    from jacked_vault.context import Context
    from jacked_vault.document import Note
    from jacked_vault.search.readmodel import ReadModel
    from jacked_vault.store.gate import Checked
    from jacked_vault.store.identity import RepoInfo
    from jacked_vault.store.layout import Store
    from jacked_vault.store.tombstones import Tombstoned

MAX_SOURCE_FILE = 4 * 1024 * 1024
MAX_SOURCE_TOTAL = 16 * 1024 * 1024  # per source folder
MAX_SOURCE_ENTRIES = 5000
MAX_NAME_TRIES = 1000
# Source kind -> (note kind, tags) of the candidate notes it gives.
CANDIDATE_SOURCES = {
    "core": ("context", ["migrated", "core-memories"]),
    "identity": ("preference", ["migrated", "identity"]),
}
IDENTITY_TITLE = "Agent identity (from the remember plugin)"
MAX_TITLE_CHARS = 200

_DAY = re.compile(r"^today-(\d{4}-\d{2}-\d{2})(\.done)?\.md$")
_ROTATED = re.compile(r"^archive-[A-Za-z0-9][A-Za-z0-9._-]*\.md$")


def source_kind(name: str) -> str | None:
    """Which remember file `name` is, or None for anything else."""

    match = _DAY.match(name)
    if match:
        if parse_date(match.group(1)) is None:
            return None
        return "done" if match.group(2) else "today"
    if name in ("now.md", "recent.md", "archive.md", "core-memories.md", "identity.md"):
        return name[:-3].replace("core-memories", "core")
    if _ROTATED.match(name):
        return "archive-rotated"
    return None


# -- the plan -------------------------------------------------------------------------------------


@dataclass
class FilePlan:
    source: str  # display path of the source file
    name: str
    kind: str | None
    action: str  # import | already-migrated | empty | skipped
    entries: int = 0  # counted in the source
    written: int | None = None  # counted in what is (to be) written
    sections: int | None = None  # core-memories.md, identity.md: one candidate note each
    target: str | None = None  # store-relative path
    reason: str | None = None
    sha: str = ""
    data: bytes = b""

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "kind": self.kind,
            "action": self.action,
            "target": f"vault:{self.target}" if self.target else None,
            "entries": self.entries,
            "written": self.written,
            "sections": self.sections,
            "reason": self.reason,
        }


@dataclass
class CandidatePlan:
    source: str
    kind: str  # the note kind
    tags: list[str]  # the note's tags
    title: str
    body: str
    key: str
    action: str  # create | already-migrated | tombstoned | invalid | duplicate
    reason: str | None = None
    id: str | None = None
    path: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "kind": self.kind,
            "title": self.title,
            "action": self.action,
            "id": self.id,
            "path": f"vault:{self.path}" if self.path else None,
            "reason": self.reason,
        }


@dataclass
class Plan:
    identity: str
    group: str
    folder: str
    sources: list[dict[str, Any]] = field(default_factory=list)  # {"path", "status", "reason"}
    files: list[FilePlan] = field(default_factory=list)
    candidates: list[CandidatePlan] = field(default_factory=list)

    def totals(self) -> dict[str, int]:
        def n(items: Iterable[FilePlan | CandidatePlan], action: str) -> int:
            return sum(1 for x in items if x.action == action)

        imported = [f for f in self.files if f.action == "import"]
        return {
            "files_imported": len(imported),
            "files_already_migrated": n(self.files, "already-migrated"),
            "files_empty": n(self.files, "empty"),
            "files_skipped": n(self.files, "skipped"),
            "entries_source": sum(f.entries for f in imported),
            "entries_written": sum(f.written or 0 for f in imported),
            "candidates_created": n(self.candidates, "create"),
            "candidates_already_migrated": n(self.candidates, "already-migrated"),
            "candidates_tombstoned": n(self.candidates, "tombstoned"),
            "candidates_invalid": n(self.candidates, "invalid"),
            "candidates_duplicate": n(self.candidates, "duplicate"),
        }


@dataclass
class MigrateResult:
    plan: Plan
    dry_run: bool
    commit: str | None
    plugin: dict[str, Any] | None = (
        None  # the remember plugin still on in Claude's settings: turned off, or offered (hooks.claude.retire_plugin)
    )

    def to_json(self) -> dict[str, Any]:
        p = self.plan
        return {
            **({"plugin": self.plugin} if self.plugin else {}),
            "dry_run": self.dry_run,
            "repo": p.identity,
            "group": p.group,
            "folder": f"vault:{p.folder}",
            "sources": p.sources,
            "files": [f.to_json() for f in p.files],
            "candidates": [c.to_json() for c in p.candidates],
            "totals": p.totals(),
            "commit": self.commit,
        }

    def to_text(self) -> str:
        payload = self.to_json()
        lines = [f"{'Plan: ' if self.dry_run else ''}{payload['repo']} -> {payload['folder']}"]
        for source in payload["sources"]:
            lines.append(
                f"source {source['path']}: {source['status']}" + (f" ({source['reason']})" if source["reason"] else "")
            )
        for f in payload["files"]:
            counts = f"{f['entries']} entr{'y' if f['entries'] == 1 else 'ies'}"
            if f["sections"] is not None:
                counts += f", {f['sections']} section(s) for candidate notes"
            if f["action"] == "import":
                lines.append(f"  {f['source']} -> {f['target']}  [{counts} -> {f['written']}]")
            else:
                lines.append(f"  {f['source']}: {f['action']} ({f['reason']}{'; ' + counts if f['entries'] else ''})")
        for c in payload["candidates"]:
            where = f" -> {c['path']}" if c["path"] else ""
            reason = f" ({c['reason']})" if c["reason"] else ""
            lines.append(f"  {'candidate' if c['action'] == 'create' else c['action']}: {c['title']}{where}{reason}")
        t = payload["totals"]
        lines.append(
            f"{'Would import' if self.dry_run else 'Imported'} {t['files_imported']} file(s), {t['entries_written']} "
            "of "
            f"{t['entries_source']} entries, {t['candidates_created']} candidate note(s); "
            f"{t['files_already_migrated']} already "
            f"migrated, {t['files_skipped']} skipped, {t['files_empty']} empty, {t['candidates_tombstoned']} "
            "tombstoned, "
            f"{t['candidates_invalid']} invalid"
            + (f", {t['candidates_duplicate']} already saved" if t["candidates_duplicate"] else "")
        )
        if self.commit:
            lines.append(f"[{self.commit[:10]}]")
        elif not self.dry_run:
            lines.append("Nothing new to import; nothing was written.")
        if self.plugin:
            lines.append(_plugin_text(self.plugin))
        return "\n".join(lines)


def _plugin_text(plugin: dict[str, Any]) -> str:
    names = ", ".join(plugin["plugins"])
    if plugin["action"] == "disabled":
        return (
            f"Turned off the remember plugin ({names}) in {plugin['settings']} (backup {plugin['backup']}); "
            "its .remember/ folders are kept."
        )
    return (
        f"The remember plugin ({names}) is still on in {plugin['settings']}: two memories would brief the same "
        "sessions. "
        "`jacked memory migrate --retire-plugin` turns it off (backed up; its .remember/ folders are kept)."
    )


def default_sources(repo: RepoInfo) -> list[Path]:
    """`<repo>/.remember` and `~/.remember/<slug>/` (repo folder name, or its lowercase slug)."""
    home = Path(os.path.expanduser("~")) / ".remember"
    out = [repo.root / ".remember"]
    for slug in dict.fromkeys([repo.root.name, repo.solo_group]):
        if slug and slug not in (".", "..") and "/" not in slug:
            out.append(home / slug)
    return out


def _resolve_sources(explicit: list[str] | None, repo: RepoInfo, report: list[dict[str, Any]]) -> list[Path]:
    """Source folders to read: explicit ones must exist; default ones only when real directories."""
    out: list[Path] = []
    if explicit:
        for raw in explicit:
            path = Path(os.path.expanduser(raw)).absolute()
            if not path.exists():
                raise VaultError("USAGE", f"--from {raw}: no such directory")
            if not path.is_dir():
                raise VaultError("USAGE", f"--from {raw}: not a directory")
            out.append(path.resolve())  # a folder the user named: its own symlink is theirs to follow
    else:
        for path in default_sources(repo):
            try:
                mode = path.lstat().st_mode
            except OSError:
                continue
            if stat.S_ISLNK(mode):
                report.append(
                    {
                        "path": str(path),
                        "status": "skipped",
                        "reason": "symlink, never followed (pass it with --from to read it)",
                    }
                )
            elif stat.S_ISDIR(mode):
                out.append(path)
    unique = list(dict.fromkeys(out))
    if not unique and not report:
        where = " or ".join(str(p) for p in default_sources(repo))
        raise VaultError("NOT_FOUND", f"no .remember folder found ({where}); pass --from DIR")
    return unique


def _read_source(root: Path, name: str, plan: FilePlan, budget: list[int]) -> str | None:
    """The file's text, or None with `plan` marked skipped (and why)."""
    from jacked_vault.safety.secrets import scan_text

    def skip(reason: str) -> None:
        plan.action, plan.reason = "skipped", reason

    try:
        data = fsio.read_file(root, name, max_bytes=min(MAX_SOURCE_FILE, budget[0]))
    except VaultError as exc:
        skip(
            exc.message
            if exc.code != "VALIDATION"
            else f"over the {MAX_SOURCE_FILE}-byte cap per file (or {MAX_SOURCE_TOTAL} per folder)"
        )
        return None
    except OSError as exc:
        skip(f"unreadable ({exc.strerror})")
        return None
    budget[0] -= len(data)
    plan.sha = hashlib.sha256(data).hexdigest()
    plan.data = data
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        skip("not valid UTF-8; not migrated")
        return None
    try:
        check_text("file", text, multiline=True)
    except VaultError as exc:
        skip(f"{exc.message}; not migrated")
        return None
    kinds = scan_text(text)
    if kinds:
        skip(f"contains what looks like a secret ({', '.join(kinds)}); not migrated (the value is not shown)")
        return None
    return text


def _shape_ok(text: str, key: re.Pattern[str]) -> bool:
    """`text` has `##` sections and every one is of the kind rollup maintains (dated days, or weeks)."""
    headers = [line for line, inside in iter_fenced(text.splitlines()) if not inside and SECTION.match(line)]
    return bool(headers) and all(key.match(line) for line in headers)


def _target_name(kind: str, name: str, text: str, taken: Callable[[str], bool]) -> str:
    """The name this file gets in the vault folder: its own when free, else `.migrated-<n>`."""
    stem = name[:-3]
    first: str | None
    if kind == "now":
        first, stem = "now.migrated.md", "now"
    elif kind in ("today", "done"):
        match = _DAY.match(name)
        assert match is not None, "source_kind names a today/done file by _DAY"
        day = match.group(1)
        clash = taken(f"today-{day}.md") or taken(f"today-{day}.done.md")
        first = None if clash else name
    elif kind == "recent":
        first = name if _shape_ok(text, DATE_SECTION) else None
    elif kind == "archive":
        first = name if _shape_ok(text, WEEK_SECTION) else None
    else:
        first = name
    if first is not None and not taken(first):
        return first
    for n in range(1, MAX_NAME_TRIES + 1):
        candidate = f"{stem}.migrated-{n}.md"
        if not taken(candidate):
            return candidate
    raise VaultError("EXISTS", f"{stem}.migrated-1..{MAX_NAME_TRIES}.md all exist")


def core_sections(text: str) -> list[tuple[str, str]]:
    """(title, body) per candidate: each `##` section; text before the first one (beyond a `# title`)
    is one more; a file without `##` sections is one candidate."""
    lines = text.splitlines()
    head, sections = split_sections(lines, SECTION, None)
    h1 = next((line[2:].strip() for line in head if line.startswith("# ")), "")
    out: list[tuple[str, str]] = []
    rest = strip_blank(drop_title(head))
    if rest and has_content(rest):
        first = next((line.strip().lstrip("#").strip() for line in rest if line.strip()), "")
        title = h1 or first or "core memories"
        out.append((title, "\n".join(rest)))
    for section in sections:
        title = section.header[3:].strip() or "core memory"
        body = "\n".join(section.body) if section.body else title
        out.append((title, body))
    return out


def count_core(text: str) -> int:
    """Candidates a core-memories file should give, counted independently of `core_sections`."""
    lines = text.splitlines()
    headers = 0
    before: list[str] = []
    for line, inside in iter_fenced(lines):
        if not inside and SECTION.match(line):
            headers += 1
        elif headers == 0:
            before.append(line)
    return headers + (1 if has_content(before) else 0)


def identity_sections(text: str) -> list[tuple[str, str]]:
    """identity.md as one candidate (its `# title` line dropped); none when it says nothing."""
    lines = text.splitlines()
    return [(IDENTITY_TITLE, "\n".join(strip_blank(drop_title(lines))))] if has_content(lines) else []


def _short_title(title: str) -> str:
    title = " ".join(title.split())
    return title if len(title) <= MAX_TITLE_CHARS else title[: MAX_TITLE_CHARS - 1].rstrip() + "…"


def build_plan(ctx: Context, explicit: list[str] | None, *, progress: Callable[[int], None] | None = None) -> Plan:
    """Read the sources and decide what each file becomes; writes nothing."""
    from jacked_vault.search.index import open_fresh, rejected_elsewhere
    from jacked_vault.store import audit
    from jacked_vault.store.tombstones import tombstone_hash

    repo = ctx.repo
    if repo is None:
        raise VaultError("USAGE", "migrate imports into the repo of the current directory: run it inside that repo")
    store = ctx.vault
    group = ctx.require_group(None)
    identity = repo.identity
    folder = episodic_dir(group, identity)
    plan = Plan(identity, group, folder)
    roots = _resolve_sources(explicit, repo, plan.sources)

    recorded = audit.recorded_ids(store.root)
    index = open_fresh(store)
    try:
        tombstones = index.read.stones() | rejected_elsewhere(ctx, store)
    finally:
        index.close()
    try:
        existing = {n for n in os.listdir(store.root / folder)}
    except FileNotFoundError:
        existing = set()
    except OSError as exc:
        raise VaultError("INCOMPLETE", f"cannot list vault:{folder} ({exc.strerror})") from None
    planned: set[str] = set()
    seen_keys: set[str] = set()

    def taken(name: str) -> bool:
        return name in existing or name in planned

    done = 0
    for root in roots:
        try:
            with os.scandir(root) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            plan.sources.append({"path": str(root), "status": "skipped", "reason": f"unreadable ({exc.strerror})"})
            continue
        if len(entries) > MAX_SOURCE_ENTRIES:
            raise VaultError("INCOMPLETE", f"{root} has more than {MAX_SOURCE_ENTRIES} entries; nothing was read")
        plan.sources.append({"path": str(root), "status": "read", "reason": None})
        budget = [MAX_SOURCE_TOTAL]
        for entry in entries:
            name = entry.name
            display = str(root / name)
            kind = source_kind(name)
            file = FilePlan(display, name, kind, "import")
            plan.files.append(file)
            if name.startswith("."):
                file.action, file.reason = "skipped", "hidden"
            elif entry.is_symlink():
                file.action, file.reason = "skipped", "symlink, never followed"
            elif entry.is_dir(follow_symlinks=False):
                file.action, file.reason = "skipped", "folder, not read"
            elif not entry.is_file(follow_symlinks=False):
                file.action, file.reason = "skipped", "not a regular file"
            elif kind is None:
                file.action, file.reason = "skipped", "not a remember file"
            if file.action == "skipped":
                continue
            assert kind is not None, "a file of no remember kind is skipped above"
            text = _read_source(root, name, file, budget)
            done += 1
            if progress is not None:
                progress(done)
            if text is None:
                continue
            file.entries = count_entries(text)
            if not text.strip():
                file.action, file.reason = "empty", "nothing to import"
                continue
            key = f"migration:{identity}:{file.sha}"
            if key in recorded or key in seen_keys:
                file.action, file.reason = "already-migrated", "this content was imported before"
            else:
                seen_keys.add(key)
                file.target = f"{folder}/{_target_name(kind, name, text, taken)}"
                refused = _refusal(store, file.target, file.data, tombstones)
                if refused is not None:
                    file.action, file.reason, file.target = "skipped", refused, None
                else:
                    planned.add(file.target.rsplit("/", 1)[-1])
                    file.written = count_entries(file.data.decode("utf-8"))
            if kind in CANDIDATE_SOURCES:  # each candidate on its own: one already imported is not imported again
                _plan_candidates(plan, file, text, identity, recorded, tombstones, tombstone_hash)
    for file in plan.files:
        if file.action == "import" and file.written != file.entries:
            raise VaultError(
                "INCOMPLETE",
                f"{file.source}: {file.entries} entries in the source but {file.written} planned; nothing was written",
            )
    return plan


def _refusal(store: Store, target: str, data: bytes, tombstones: Tombstoned) -> str | None:
    """Why the gate would refuse this file at its target (a value rejected or forgotten before, in
    one of its sections: its candidate is not made either), or None."""
    from jacked_vault.store.gate import inspect

    try:
        inspect(store, target, data, tombstoned=tombstones, new=True)
    except VaultError as exc:
        if exc.details.get("gate") in ("TOMBSTONED", "FORGOTTEN"):
            return "holds a section whose value was rejected before (tombstoned): not migrated as a file"
        return f"{exc.message.removeprefix(target + ': ')}; not migrated"
    return None


def _plan_candidates(
    plan: Plan,
    file: FilePlan,
    text: str,
    identity: str,
    recorded: Container[str],
    tombstones: Container[str],
    tombstone_hash: Callable[[str, str], str],
) -> None:
    if file.kind == "core":
        sections = core_sections(text)
        expected = count_core(text)
        if len(sections) != expected:
            raise VaultError(
                "INCOMPLETE",
                f"{file.source}: {expected} sections counted but {len(sections)} parsed; nothing was written",
            )
    else:
        sections = identity_sections(text)
    file.sections = len(sections)
    assert file.kind is not None, "only a candidate source's file is planned here"
    note_kind, tags = CANDIDATE_SOURCES[file.kind]
    seen = {c.key for c in plan.candidates}
    for raw_title, body in sections:
        title = _short_title(raw_title)
        digest = tombstone_hash(title, body)
        key = f"migration:{identity}:note:{digest}"
        candidate = CandidatePlan(file.source, note_kind, tags, title, body, key, "create")
        if key in recorded or key in seen:
            candidate.action, candidate.reason = "already-migrated", "this section was imported before"
        elif digest in tombstones:
            candidate.action, candidate.reason = "tombstoned", "rejected before; not re-created"
        seen.add(key)
        plan.candidates.append(candidate)


# -- applying it ----------------------------------------------------------------------------------


def _note_for(ctx: Context, plan: Plan, candidate: CandidatePlan, now: str) -> Note:
    from jacked_vault.write.create import build_note

    return build_note(
        title=candidate.title,
        body=candidate.body,
        kind=candidate.kind,
        scope="group",
        group=plan.group,
        repos=[plan.identity],
        source_harness=ctx.harness,
        origin="migration",
        status="candidate",
        tags=candidate.tags,
        now=now,
    )


def _check_candidates(
    ctx: Context, plan: Plan, now: str, index: ReadModel
) -> list[tuple[CandidatePlan, Note, Checked]]:
    """Build and gate each candidate to create (its `Checked` verdict kept for the commit); invalid
    ones, and those repeating a live note of the group (SPEC 5.6, `write.create.duplicate_of`), are
    marked and skipped."""
    from jacked_vault.store.gate import check_note
    from jacked_vault.write.create import duplicate_of

    notes = []
    for candidate in plan.candidates:
        if candidate.action != "create":
            continue
        try:
            note = _note_for(ctx, plan, candidate, now)
            checked = check_note(note, tombstoned=None)
        except VaultError as exc:
            candidate.action, candidate.reason = "invalid", exc.message if exc.code != "SECRET" else "contains a secret"
            continue
        twin = duplicate_of(index, note)
        if twin is not None:
            candidate.action, candidate.reason = "duplicate", f"the same note is already saved as {twin.id}"
            continue
        notes.append((candidate, note, checked))
    return notes


def migrate(
    ctx: Context,
    sources: list[str] | None = None,
    *,
    dry_run: bool = False,
    progress: Callable[[int], None] | None = None,
) -> MigrateResult:
    """Plan (and unless `dry_run`, write in one commit) the import of the source folders."""
    from jacked_vault.recall.index_md import regenerate_index
    from jacked_vault.search.index import rejected_elsewhere
    from jacked_vault.write.transaction import write_transaction

    if dry_run:
        from jacked_vault.search.index import open_fresh

        plan = build_plan(ctx, sources, progress=progress)
        index = open_fresh(ctx.vault)
        try:
            _check_candidates(ctx, plan, timestamps.utc_now(), index.read)
        finally:
            index.close()
        return MigrateResult(plan, True, None)

    store = ctx.vault
    harness = ctx.harness
    commit = None
    with write_transaction(
        store,
        harness=harness,
        origin="migration",
        settings=ctx.settings,
        rejected_elsewhere=rejected_elsewhere(ctx, store),
    ) as tx:
        plan = build_plan(ctx, sources, progress=progress)
        now = timestamps.utc_now()
        notes = _check_candidates(ctx, plan, now, tx.index.read)
        imports = [f for f in plan.files if f.action == "import"]
        if not imports and not notes:
            return MigrateResult(plan, False, None)
        for file in imports:
            assert file.target is not None, "build_plan names a target for every import"
            file.target = tx.create(*_split(file.target), file.data)  # create-only: never replaces
        # Count again in what is on disk now; a difference undoes everything (nothing committed).
        for file in imports:
            assert file.target is not None, "tx.create above set it"
            written = fsio.read_file(store.root, file.target, max_bytes=MAX_SOURCE_FILE)
            file.written = _written_count(written)
            if file.written != file.entries or written != file.data:
                raise VaultError(
                    "INCOMPLETE",
                    f"{file.source}: {file.entries} entries in the source but {file.written} written; nothing was "
                    "written",
                )
            tx.event("migrate", f"migration:{plan.identity}:{file.sha}", file.target, written, ts=now)
        changes: dict[str, Entry | None] = {}
        for candidate, note, checked in notes:
            data = checked.data  # the canonical bytes the gate judged: the commit does not judge them again
            rel = tx.create(store.note_dir("group", plan.group, note.kind), slugify_title(note.title), checked)
            tx.event("create", note.id, rel, data, ts=now)
            tx.event("migrate", candidate.key, rel, data, ts=now)
            candidate.id, candidate.path = note.id, rel
            changes[rel] = Entry.from_note(note)
        if changes:
            regenerate_index(tx, {("group", plan.group): changes})
        commit = tx.commit(f"memory(migrate): {plan.identity}: {len(imports)} file(s), {len(notes)} candidate note(s)")
    return MigrateResult(plan, False, commit)


def _split(rel: str) -> tuple[str, str]:
    folder, name = rel.rsplit("/", 1)
    return folder, name[:-3]


def _written_count(data: bytes) -> int:
    return count_entries(data.decode("utf-8"))
