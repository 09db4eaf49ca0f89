"""Editing a person's config file (Claude's settings.json and .mcp.json, Cursor's hooks.json and
mcp.json, OpenCode's opencode.json[c], Codex's config.toml, the machine config): read capped,
parse, edit in place, verify by re-parsing, back up, write atomically through a symlink.

Every edit goes through `save`, one writer with one policy: the new text must parse to the
document the caller meant (else CONFIG, the file named and left as it was); the file's bytes are
backed up the first time jacked changes it (one backup per file, `<file>.jacked-backup-<stamp>`
beside it, the old file's mode; none for a file jacked created, noted in `created.json` beside the
machine config with the folders made for it); the file is replaced with `fsio.write_file`, through
a symlinked dotfile to its target. Uninstall goes through `save` too: the person's bytes put back
from the backup when the file without jacked's entries parses as the backup does (the backup
removed), a file jacked created that holds nothing else removed (its folders too), else only
jacked's entries gone (and the backup with them: a backup lives while jacked's entries do).

JSON with comments and trailing commas (JSONC: OpenCode's `opencode.jsonc`, also accepted by
Cursor and Claude) is parsed as such and edited in place member by member (`set_json`,
`delete_json`, `json_toward`), so the person's other bytes and comments stay; TOML is read with
tomllib (the reader Codex's format follows), and jacked's own block is spliced into the text
(`harnesses/installers/codex.py`) with tomlkit's escapes and header reader, so every byte it was
not asked to change stays.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jacked_vault.errors import VaultError
from jacked_vault.safety import fsio
from jacked_vault.store.machine_dir import machine_dir
from jacked_vault.store.statefile import read_json, write_json

MAX_BYTES = 4 * 1024 * 1024
BACKUP = ".jacked-backup-"
CREATED = "created.json"  # beside the machine config: the harness files jacked created


@dataclass(frozen=True)
class Change:
    """What install/uninstall did to one config file."""

    path: str
    changed: bool
    backup: str | None  # the backup written (install) or restored and removed (uninstall)
    installed: list[str]
    warnings: list[str] = field(default_factory=list)
    restored: bool = False  # uninstall put the person's own bytes back
    deleted: bool = False  # uninstall removed a file that held only jacked's entries

    @classmethod
    def uninstalled(cls, path: Path, action: str, backup: str | None) -> Change:
        """What an uninstall's `save` did (its action and the backup it restored), as a Change."""
        return cls(str(path), True, backup, [], restored=action == "restored", deleted=action == "deleted")

    @property
    def uninstall_action(self) -> str:
        """restored, deleted, removed or unchanged: what an uninstall did, as `hooks uninstall` says it."""
        if self.restored or self.deleted:
            return "restored" if self.restored else "deleted"
        return "removed" if self.changed else "unchanged"


# -- reading and writing ------------------------------------------------------------------------


def read(path: Path, max_bytes: int = MAX_BYTES) -> str | None:
    """The file as UTF-8 text (None when missing); CONFIG when it is over the cap or not UTF-8."""
    return fsio.read_text_capped(path, max_bytes)


def backups(path: Path) -> list[Path]:
    """jacked's backups of `path`, newest first."""
    try:
        names = [n for n in os.listdir(path.parent) if n.startswith(path.name + BACKUP)]
    except OSError:
        return []
    return sorted((path.parent / n for n in names), key=lambda p: (p.stat().st_mtime_ns, p.name), reverse=True)


def backup(path: Path, original: bytes) -> str:
    """Copy `original` beside `path` as a new `<name>.jacked-backup-<stamp>[-n]`, with the mode of
    the file it backs up; returns its path."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target, n = path.parent / f"{path.name}{BACKUP}{stamp}", 1
    while os.path.lexists(target):
        n += 1
        target = path.parent / f"{path.name}{BACKUP}{stamp}-{n}"
    try:
        mode = os.stat(path).st_mode & 0o777
    except OSError:
        mode = 0o600
    fsio.write_file(target, original, replace=False, mode=mode)
    return str(target)


@dataclass(frozen=True)
class Check:
    """What an edited file must parse to before it is written: `parse(text) == expected`, else
    CONFIG naming `what` could not be done."""

    parse: Callable[[str], object]
    expected: object
    what: str


def save(path: Path, old: str | None, new: str, check: Check, *, uninstall: bool = False) -> tuple[str, str | None]:
    """The one writer of a person's config file: `new` (the file `old` edited in place) is re-parsed
    and must give `check.expected` (else CONFIG, nothing written); then it replaces `path`
    atomically, through a symlink to its target. Returns (action, backup).

    Install (`written`): the file's bytes are backed up the first time jacked changes it (one
    backup per file, `<name>.jacked-backup-<stamp>` beside it; none for a file jacked created,
    which is noted in `created.json` with the folders made for it). Uninstall: `restored` with the
    bytes of a backup that parses to what `new` does (that backup removed: byte for byte what the
    person had), `deleted` when jacked created the file and it holds nothing else (its folders go
    too when empty), else `removed` (only jacked's entries gone, and the backup too: the file was
    verified to be as it is now less jacked's entries, so the backup holds only what the file's
    owners replaced since). Empty tables are no settings here."""
    verified(new, check.parse, check.expected, path, check.what)
    if uninstall:
        return _uninstall(path, new, check.parse)
    record = _created()
    key = os.path.realpath(path)
    saved = None
    if old is None and not os.path.lexists(path):
        missing, folder = [], Path(key).parent
        while not folder.exists() and folder != folder.parent:
            missing.append(str(folder))
            folder = folder.parent
        record[key] = missing
        _save_created(record)
    elif old is not None and key not in record and not backups(path):
        saved = backup(path, old.encode("utf-8"))
    fsio.write_file(path, new.encode("utf-8"), through_symlink=True)
    return "written", saved


def _uninstall(path: Path, text: str, parse: Callable[[str], object]) -> tuple[str, str | None]:
    """`save` for an uninstall (its docstring says what each action is)."""
    value = _bare(parse(text))
    found = backups(path)
    for saved in found:
        try:
            old = read(saved)
            same = old is not None and _bare(parse(old)) == value
        except VaultError:
            continue
        if same and old is not None:
            fsio.write_file(path, old.encode("utf-8"), through_symlink=True)
            saved.unlink()
            return "restored", str(saved)
    record = _created()
    key = os.path.realpath(path)
    if key in record and not value:
        os.unlink(key)
        for folder in record.pop(key):  # the deepest first; a folder holding anything else stays
            with contextlib.suppress(OSError):
                os.rmdir(folder)
        _save_created(record)
        return "deleted", None
    fsio.write_file(path, text.encode("utf-8"), through_symlink=True)
    for saved in found:  # only what the file's owners replaced since: nothing of jacked's to undo
        saved.unlink(missing_ok=True)
    return "removed", None


def _bare(value: object) -> object:
    """`value` without its empty tables (at any depth): an empty table is no setting, so `{}` and
    `{"hooks": {}}` are the same settings (uninstall drops a table its entries leave empty)."""
    if not isinstance(value, dict):
        return value
    out = {key: _bare(item) for key, item in value.items()}
    return {key: item for key, item in out.items() if item != {}}


def prune_created() -> None:
    """Forget the created files that are gone (removed by `disable`'s ledger, or by hand)."""
    record = _created()
    left = {path: folders for path, folders in record.items() if os.path.lexists(path)}
    if left != record:
        _save_created(left)


def _created_path() -> Path:
    return machine_dir() / CREATED


def _created() -> dict[str, list[str]]:
    """The harness files jacked created on this machine (real paths) and the folders made for each."""

    data = read_json(_created_path()) or {}
    files = data.get("files")
    if not isinstance(files, dict):
        return {}
    return {k: [f for f in v if isinstance(f, str)] for k, v in files.items() if isinstance(v, list)}


def _save_created(record: dict[str, list[str]]) -> None:
    """Keep the record; with nothing left in it, remove it (and jacked's folder, when that is empty)."""

    target = _created_path()
    if record:
        write_json(target, {"version": 1, "files": record})
        return
    with contextlib.suppress(OSError):
        target.unlink()
        target.parent.rmdir()


def verified(text: str, parse: Callable[[str], object], expected: object, path: Path, what: str) -> str:
    """`text` when parsing it gives `expected`; else CONFIG naming `what` could not be done, so
    nothing is written."""
    try:
        got = parse(text)
    except VaultError:
        got = None
    if got != expected:
        raise VaultError("CONFIG", f"{path}: cannot {what} without changing other settings; nothing was changed")
    return text


def table(doc: object, key: str) -> dict[str, Any]:
    """`doc[key]` when `doc` and it are objects (tables), else {}: reading a person's config never
    trips on a value of another type."""
    value = doc.get(key) if isinstance(doc, dict) else None
    return value if isinstance(value, dict) else {}


# -- JSON and JSONC -----------------------------------------------------------------------------


@dataclass
class _Member:
    key: str
    start: int  # the key's opening quote
    value: _Value
    end: int  # after the value and the comma that follows it, if any
    comma: bool


@dataclass
class _Value:
    start: int
    end: int
    members: list[_Member] | None = None  # an object's members; None for any other value


class _Scanner:
    """A JSONC reader that keeps where each value is: comments (`//`, `/* */`) and trailing commas
    are allowed, everything else is strict JSON."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def fail(self, why: str) -> ValueError:
        line = self.text.count("\n", 0, self.pos) + 1
        return ValueError(f"{why} at line {line}")

    def skip(self) -> None:
        text = self.text
        while self.pos < len(text):
            char = text[self.pos]
            if char in " \t\r\n\ufeff":
                self.pos += 1
            elif text.startswith("//", self.pos):
                end = text.find("\n", self.pos)
                self.pos = len(text) if end < 0 else end
            elif text.startswith("/*", self.pos):
                end = text.find("*/", self.pos + 2)
                if end < 0:
                    raise self.fail("unterminated comment")
                self.pos = end + 2
            else:
                return

    def value(self) -> _Value:
        self.skip()
        start = self.pos
        if self.pos >= len(self.text):
            raise self.fail("unexpected end")
        char = self.text[self.pos]
        if char == "{":
            return self.obj(start)
        if char == "[":
            self.pos += 1
            self.skip()
            while not self.text.startswith("]", self.pos):
                self.value()
                self.skip()
                if self.text.startswith(",", self.pos):
                    self.pos += 1
                    self.skip()
                elif not self.text.startswith("]", self.pos):
                    raise self.fail("expected ',' or ']'")
            self.pos += 1
            return _Value(start, self.pos)
        if char == '"':
            self.string()
            return _Value(start, self.pos)
        try:
            _, end = json.JSONDecoder().raw_decode(self.text, self.pos)
        except ValueError:
            raise self.fail("unexpected character") from None
        self.pos = end
        return _Value(start, end)

    def string(self) -> str:
        try:
            out, self.pos = json.decoder.scanstring(self.text, self.pos + 1)  # type: ignore[attr-defined]
        except ValueError:
            raise self.fail("bad string") from None
        return out

    def obj(self, start: int) -> _Value:
        self.pos += 1
        members: list[_Member] = []
        self.skip()
        while not self.text.startswith("}", self.pos):
            if not self.text.startswith('"', self.pos):
                raise self.fail("expected a key")
            key_start = self.pos
            key = self.string()
            self.skip()
            if not self.text.startswith(":", self.pos):
                raise self.fail("expected ':'")
            self.pos += 1
            value = self.value()
            self.skip()
            comma = self.text.startswith(",", self.pos)
            if comma:
                self.pos += 1
            elif not self.text.startswith("}", self.pos):
                raise self.fail("expected ',' or '}'")
            members.append(_Member(key, key_start, value, self.pos, comma))
            self.skip()
        self.pos += 1
        return _Value(start, self.pos, members)


def _scan(text: str) -> _Value:
    scanner = _Scanner(text)
    top = scanner.value()
    scanner.skip()
    if scanner.pos != len(text):
        raise scanner.fail("text after the value")
    return top


def _plain(text: str, node: _Value) -> Any:
    """The Python value of a scanned node (comments and trailing commas dropped)."""
    if node.members is not None:
        return {m.key: _plain(text, m.value) for m in node.members}
    body = text[node.start : node.end]
    if body.startswith("["):
        scanner = _Scanner(body)
        scanner.pos = 1
        items = []
        scanner.skip()
        while not body.startswith("]", scanner.pos):
            items.append(_plain(body, scanner.value()))
            scanner.skip()
            if body.startswith(",", scanner.pos):
                scanner.pos += 1
                scanner.skip()
        return items
    return json.loads(body)


def parse_json(text: str, path: Path, *, jsonc: bool = False) -> dict[str, Any]:
    """A JSON config's object ({} for an empty file); with `jsonc`, comments and trailing commas
    are allowed. CONFIG when it does not parse or holds something other than an object."""
    if not text.strip():
        return {}
    try:
        doc = _plain(text, _scan(text)) if jsonc else json.loads(text)
    except (ValueError, RecursionError) as exc:
        kind = "JSON (comments allowed)" if jsonc else "plain JSON"
        raise VaultError("CONFIG", f"{path} is not valid {kind} ({exc}); fix it first, nothing was changed") from None
    if not isinstance(doc, dict):
        raise VaultError("CONFIG", f"{path} does not hold a JSON object; nothing was changed")
    return doc


def indent_of(text: str | None) -> int | str:
    """The indentation the file already uses (2 spaces for a new file)."""
    for line in (text or "").splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) != len(line):
            lead = line[: len(line) - len(stripped)]
            return "\t" if lead.startswith("\t") else len(lead)
    return 2


def dump_json(doc: dict[str, Any], like: str | None) -> str:
    """`doc` as JSON indented as the file `like` is."""
    return json.dumps(doc, indent=indent_of(like), ensure_ascii=False) + "\n"


def _line_indent(text: str, pos: int) -> str:
    line_start = text.rfind("\n", 0, pos) + 1
    line = text[line_start:pos]
    return line[: len(line) - len(line.lstrip(" \t"))]


def _rendered(value: Any, unit: int | str, base: str) -> str:
    return json.dumps(value, indent=unit, ensure_ascii=False).replace("\n", "\n" + base)


def _find(node: _Value, key: str) -> _Member | None:
    """The member `key` of an object (the last one, as JSON.parse keeps it)."""
    return next((m for m in reversed(node.members or []) if m.key == key), None)


def set_json(text: str, keys: list[str], value: Any, path: Path, *, jsonc: bool = False) -> str:
    """`text` with the member at `keys` set to `value`, every other byte (comments included) kept;
    objects on the way are created. Verified by re-parsing."""
    expected = parse_json(text, path, jsonc=jsonc)
    target = expected
    for key in keys[:-1]:
        target = target.setdefault(key, {})
        if not isinstance(target, dict):
            raise VaultError("CONFIG", f"{path}: {key!r} is not an object; nothing was changed")
    target[keys[-1]] = value
    if not text.strip():
        return dump_json(expected, None)
    unit = indent_of(text)
    node = _scan(text)
    new = text
    for depth, key in enumerate(keys):
        found = _find(node, key)
        if found is None:
            rest: Any = value
            for inner in reversed(keys[depth + 1 :]):
                rest = {inner: rest}
            new = _insert(text, node, key, rest, unit)
            break
        if depth == len(keys) - 1:
            base = _line_indent(text, found.start)
            new = text[: found.value.start] + _rendered(value, unit, base) + text[found.value.end :]
            break
        node = found.value
    return verified(new, lambda t: parse_json(t, path, jsonc=jsonc), expected, path, f"set {'.'.join(keys)}")


def _after_line_comment(text: str, pos: int) -> int:
    """The end of the line at `pos` when only a `//` comment (or spaces) follows `pos` on it: a
    member added after it must not land before a comment that belongs to the line's member."""
    eol = text.find("\n", pos)
    eol = len(text) if eol < 0 else eol
    rest = text[pos:eol].strip()
    return eol if rest.startswith("//") else pos


def _insert(text: str, node: _Value, key: str, value: Any, unit: int | str) -> str:
    """`text` with `"key": value` added as the last member of the object `node`."""
    members = node.members or []
    if members:
        last = members[-1]
        base = _line_indent(text, last.start)
        member = f"{json.dumps(key, ensure_ascii=False)}: {_rendered(value, unit, base)}"
        if last.comma:  # a trailing comma: the new member goes after it and keeps one
            at = _after_line_comment(text, last.end)
            return text[:at] + f"\n{base}{member}," + text[at:]
        end = last.value.end
        at = _after_line_comment(text, end)
        return text[:end] + "," + text[end:at] + f"\n{base}{member}" + text[at:]
    outer = _line_indent(text, node.start)
    base = outer + ("\t" if unit == "\t" else " " * int(unit))
    member = f"{json.dumps(key, ensure_ascii=False)}: {_rendered(value, unit, base)}"
    inside = text[node.start + 1 : node.end - 1]
    if not inside.strip():
        return text[: node.start + 1] + f"\n{base}{member}\n{outer}" + text[node.end - 1 :]
    return text[: node.start + 1] + f"\n{base}{member}" + text[node.start + 1 :]  # comments stay after it


def delete_json(text: str, keys: list[str], path: Path, *, jsonc: bool = False, prune: bool = True) -> str:
    """`text` without the member at `keys`, nor (`prune`) the objects on its way that it leaves
    empty, every other byte (comments included) kept; `text` itself when there is no such member."""
    expected = parse_json(text, path, jsonc=jsonc)
    if not text.strip():
        return text
    node = _scan(text)
    chain: list[tuple[_Value, _Member]] = []
    for key in keys:
        found = _find(node, key)
        if found is None:
            return text
        chain.append((node, found))
        node = found.value
    holders = [expected]
    for key in keys[:-1]:
        holders.append(holders[-1][key])
    del holders[-1][keys[-1]]
    cut = len(chain) - 1
    while prune and cut > 0 and not holders[cut]:
        del holders[cut - 1][keys[cut - 1]]
        cut -= 1
    parent, member = chain[cut]
    new = _cut_member(text, parent, member)
    return verified(new, lambda t: parse_json(t, path, jsonc=jsonc), expected, path, f"remove {'.'.join(keys)}")


def json_toward(text: str, wanted: dict[str, Any], path: Path, *, jsonc: bool = False) -> str:
    """`text` edited in place until it parses to `wanted`: each member that differs is set where it
    is (or added), each member `wanted` lacks is cut, every other byte (comments included) kept."""
    if not text.strip():
        return dump_json(wanted, None)

    def walk(text: str, old: dict[str, Any], new: dict[str, Any], keys: list[str]) -> str:
        for key in [k for k in old if k not in new]:
            text = delete_json(text, [*keys, key], path, jsonc=jsonc, prune=False)
        for key, value in new.items():
            if key in old and old[key] == value:
                continue
            if isinstance(old.get(key), dict) and isinstance(value, dict) and value:
                text = walk(text, old[key], value, [*keys, key])
            else:
                text = set_json(text, [*keys, key], value, path, jsonc=jsonc)
        return text

    return walk(text, parse_json(text, path, jsonc=jsonc), wanted, [])


def _cut_member(text: str, parent: _Value, member: _Member) -> str:
    """`text` without `member` (its own lines when it has them to itself); when it was the last
    member and had no comma, the comma of the one before it goes too (strict JSON stays strict)."""
    members = parent.members or []
    index = members.index(member)
    if len(members) == 1 and not (text[parent.start + 1 : member.start] + text[member.end : parent.end - 1]).strip():
        return text[: parent.start + 1] + text[parent.end - 1 :]  # it was all the object held: `{}`
    if index and index == len(members) - 1 and not member.comma:
        before = members[index - 1]
        if text[before.value.end : member.start].strip() == ",":  # undo what `_insert` added
            return text[: before.value.end] + text[member.value.end :]
    start = member.start
    if not text[text.rfind("\n", 0, start) + 1 : start].strip():
        start = text.rfind("\n", 0, start) + 1
    end = member.end if member.comma else member.value.end
    newline = text.find("\n", end)
    if newline >= 0 and not text[end:newline].strip() and start == text.rfind("\n", 0, start + 1) + 1:
        end = newline + 1
    if start == member.start and end != newline + 1:  # one line with others: take the space after it
        while end < len(text) and text[end] in " \t":
            end += 1
    elif start != member.start and end != newline + 1 and start > 0:  # its lines end before others
        start -= 1  # text: join them back onto the line before
    new = text[:start] + text[end:]
    if index > 0 and index == len(members) - 1 and not member.comma and members[index - 1].comma:
        comma = text.index(",", members[index - 1].value.end)
        new = new[:comma] + new[comma + 1 :]
    return new


# -- TOML ---------------------------------------------------------------------------------------


def toml_value(text: str, path: Path) -> dict[str, Any]:
    """A TOML config as plain Python values (tomllib, the reader Codex's own format follows)."""
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise VaultError("CONFIG", f"{path} is not valid TOML ({exc}); fix it first, nothing was changed") from None


def toml_string(value: str) -> str:
    """`value` as a TOML basic string (tomlkit's escapes)."""
    import tomlkit

    return tomlkit.string(value).as_string()


def toml_key(key: str) -> str:
    """`key` as a TOML key: bare when it may be, else quoted."""
    import tomlkit

    return tomlkit.key(key).as_string()


def toml_header(line: str) -> list[str] | None:
    """The dotted key of a table header line (`[a."b c"]`, `[[a.b]]`, a comment after it allowed)
    as its parts, read by tomlkit; None when the line is no table header."""
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    if not line.lstrip().startswith("["):
        return None
    try:
        node: Any = tomlkit.parse(line.strip()).unwrap()
    except TOMLKitError:
        return None
    parts = []
    while isinstance(node, (dict, list)) and node:
        if isinstance(node, list):
            node = node[-1]
            continue
        if len(node) != 1:
            return None
        key = next(iter(node))
        parts.append(key)
        node = node[key]
    return parts or None
