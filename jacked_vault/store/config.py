"""Configuration: the shared `vault.json`, the per-machine `.git/jacked/vault.local.json`, and the
machine's `$XDG_CONFIG_HOME/jacked/config.json` (default `~/.config/jacked/config.json`).

Trust boundary (SPEC 3): `vault.json` travels with the vault and anyone who can push to the
remote writes it, so a setting that runs a program (`settings.distill.command`) is honoured
only from the machine configuration, which sync can never write. Found in `vault.json` or
`vault.local.json` it is ignored and reported (`ConfigRead.warnings`, shown by doctor); the
schema refuses it when `vault.json` is written.

Validation needs jsonschema (slow to import), so a successful check is remembered by the
sha256 of the files in `.git/jacked/config-ok`; read-only paths then skip the import.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jacked_vault.document.model import SLUG_RE
from jacked_vault.errors import VaultError
from jacked_vault.resources import data_file
from jacked_vault.safety import fsio
from jacked_vault.store.layout import STATE_DIR, VAULT_JSON, Store
from jacked_vault.store.machine_dir import machine_dir
from jacked_vault.store.machine_state import LEGACY_DIR, legacy_dir

if TYPE_CHECKING:
    import jsonschema

    from jacked_vault.store.settings import ReviewTrust

LOCAL_NAME = "vault.local.json"  # this machine's overrides of one vault's settings, in its state folder
LOCAL_JSON = "/".join((*STATE_DIR, LOCAL_NAME))  # as messages name it
_STAMP_NAME = "config-ok"
MAX_CONFIG_BYTES = 1024 * 1024
PROGRAM_KEYS = (("settings", "distill", "command"),)  # settings that run a program


def machine_config_path() -> Path:
    """`$XDG_CONFIG_HOME/jacked/config.json`, default `~/.config/jacked/config.json`."""

    return machine_dir() / "config.json"


@cache
def _validator(schema_name: str) -> jsonschema.Draft202012Validator:
    import jsonschema

    schema = json.loads(data_file("schemas", schema_name).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _load_json(root: Path, rel: str) -> tuple[Any, bytes] | None:
    try:
        raw = fsio.read_file(root, rel, max_bytes=MAX_CONFIG_BYTES)
    except FileNotFoundError:
        return None
    except VaultError as exc:
        raise VaultError("UNSAFE_PATH" if exc.code == "UNSAFE_PATH" else "CONFIG", f"{rel}: {exc.message}") from None
    try:
        return json.loads(raw.decode("utf-8")), raw
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise VaultError("CONFIG", f"{rel}: not valid JSON (line {getattr(exc, 'lineno', '?')})") from None


def validate_config(rel: str, data: Any, *, local: bool, schema: str = "vault.schema.json") -> None:
    """Schema-check one config document; the error names the file and the field, never a value.
    The generated fast check decides what passes; jsonschema, loaded only then, what a refusal says."""
    from jacked_vault.document.validate import fast_accepts

    if local and isinstance(data, dict):
        data = {"version": 1, **data}
    if fast_accepts(schema, data):
        return
    errors = sorted(_validator(schema).iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path])
    if errors:
        first = errors[0]
        names = _schema_names(schema)
        where = (
            "/".join(
                str(p) if isinstance(p, int) or p in names or _plain_name(p) else "<name>" for p in first.absolute_path
            )
            or "(top level)"
        )
        raise VaultError("CONFIG", f"{rel}: field {where}: breaks the schema rule '{first.validator}'")


def _plain_name(key: object) -> bool:
    """A key of the writer's (a group's name) that may be quoted: a slug the secret scan passes."""
    from jacked_vault.safety.secrets import scan_text

    return isinstance(key, str) and SLUG_RE.fullmatch(key) is not None and not scan_text(key)


@cache
def _schema_names(schema_name: str) -> frozenset[str]:
    """Every property name the schema itself defines: the only keys an error may quote (a group's
    name, like any value, is the writer's and may hold anything)."""
    names: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            names.update(node.get("properties", {}) if isinstance(node.get("properties"), dict) else ())
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(json.loads(data_file("schemas", schema_name).read_text(encoding="utf-8")))
    return frozenset(names)


def _merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """Objects merge key by key; any other value replaces the shared one."""
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def without_programs(data: Any, source: str, warnings: list[dict[str, str]]) -> Any:
    """`data` minus every program-running key (each one named in `warnings`)."""
    if not isinstance(data, dict):
        return data
    data = copy.deepcopy(data)
    for path in PROGRAM_KEYS:
        node = data
        for key in path[:-1]:
            node = node.get(key) if isinstance(node, dict) else None
        if isinstance(node, dict) and path[-1] in node:
            del node[path[-1]]
            warnings.append(
                {
                    "code": "UNTRUSTED_SETTING",
                    "path": source,
                    "field": ".".join(path),
                    "fix": f"a program is run only from {machine_config_path()}: move the setting there",
                }
            )
    return data


@dataclass
class ConfigRead:
    """The effective configuration and what was ignored on the way."""

    effective: dict[str, Any]
    warnings: list[dict[str, str]] = field(default_factory=list)


def _machine_config() -> tuple[Any, bytes] | None:
    """The machine config (the person's own file: a symlinked dotfile is fine here)."""
    path = machine_config_path()
    raw = fsio.read_capped(path, MAX_CONFIG_BYTES)
    if raw is None:
        return None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise VaultError("CONFIG", f"{path}: not valid JSON") from None
    if not isinstance(data, dict):
        raise VaultError("CONFIG", f"{path}: must be a JSON object")
    return data, raw


# Where people keep their clones: what `init`, `enable`, `group suggest` and `hooks install --git-all`
# scan when this machine's config names no roots of its own. A missing one is simply not there.
USUAL_ROOTS = (
    "~/code", "~/src", "~/Github", "~/projects", "~/Code", "~/GitHub", "~/Projects",
    "~/dev", "~/Developer", "~/repos", "~/git", "~/workspace",
)  # fmt: skip


@dataclass(frozen=True)
class Roots:
    """The folders this machine keeps its clones in, and where that list came from."""

    folders: tuple[str, ...]
    source: str  # "machine config" (its `roots`), "--root" (given to this command), "usual folders"

    @property
    def usual(self) -> bool:
        return self.source == "usual folders"


def machine_roots(given: Sequence[str] = ()) -> Roots:
    """The roots a scan looks in: `given` (a command's `--root`), else the machine config's `roots`,
    else `USUAL_ROOTS`. Never from `vault.json`: one machine's paths mean nothing on another."""
    if given:
        return Roots(tuple(given), "--root")
    found = _machine_config()
    roots = found[0].get("roots") if found else None
    if roots is None:
        return Roots(USUAL_ROOTS, "usual folders")
    if not isinstance(roots, list) or not all(isinstance(r, str) and r for r in roots):
        raise VaultError("CONFIG", f"{machine_config_path()}: field roots: a list of folder paths")
    return Roots(tuple(roots), "machine config")


@dataclass(frozen=True)
class MachineConfigEdit:
    """A change to the machine config, checked before anything is written: its new `text` (None:
    nothing to change), the document it must parse to, and the `original` text."""

    path: Path
    original: str | None
    text: str | None
    expected: dict[str, Any] | None = None

    def write(self) -> Path | None:
        """Write it through `store.configfile.save` (verified; the old file backed up the first time
        jacked changes it); the path, or None."""
        from jacked_vault.store import configfile

        if self.text is None:
            return None
        path = self.path
        check = configfile.Check(lambda text: configfile.parse_json(text, path), self.expected, "edit it")
        configfile.save(path, self.original, self.text, check)
        return path


def machine_config_edit(keys: Sequence[str], change: Callable[[Any], Any]) -> MachineConfigEdit:
    """The machine config with the value at `keys` set to `change(its value, or None)`, every other
    byte of the person's file kept and the result checked against `config.schema.json`; nothing
    is written yet (`MachineConfigEdit.write`)."""
    from jacked_vault.store import configfile

    path = machine_config_path()
    original = configfile.read(path, MAX_CONFIG_BYTES)
    text = original or ""
    node: Any = configfile.parse_json(text, path)
    for key in keys:
        node = node.get(key) if isinstance(node, dict) else None
    value = change(node)
    if value == node:
        return MachineConfigEdit(path, original, None)
    if not text.strip():
        text = configfile.set_json(text, ["version"], 1, path)
    text = configfile.set_json(text, list(keys), value, path)
    expected = json.loads(text)
    validate_config(str(path), expected, local=False, schema="config.schema.json")
    return MachineConfigEdit(path, original, text, expected)


def remember_roots(folders: Sequence[str]) -> Path | None:
    """Add `folders` (absolute, `~` expanded) to this machine's `roots` in the machine config; the
    file's path, or None when it already names them all. A first `roots` also keeps the usual
    folders this machine has, so naming one folder never stops the others from being scanned."""

    def add(raw: Any) -> Any:
        known = [r for r in raw if isinstance(r, str)] if isinstance(raw, list) else []
        usual = [] if isinstance(raw, list) else [r for r in USUAL_ROOTS if os.path.isdir(os.path.expanduser(r))]
        wanted = [str(Path(os.path.expanduser(f)).absolute()) for f in [*usual, *folders]]
        roots = list(dict.fromkeys([*known, *wanted]))
        return raw if roots == known else roots

    return machine_config_edit(["roots"], add).write()


def machine_review() -> ReviewTrust:
    """How this machine weighs a review (`settings.review` of the machine config: the
    allowed-signers file, the machines whose unsigned accepts count). Read from the machine config
    only: nothing sync brings can set or unset it. A machine config that cannot be read names a
    signers file that does not exist, so no accept counts as signed and none unsigned counts."""
    from jacked_vault.store.settings import ReviewTrust

    try:
        found = _machine_config()
    except VaultError:
        return ReviewTrust(signers=Path("/nonexistent/jacked-machine-config-unreadable"))
    settings = found[0].get("settings") if found else None
    review = settings.get("review") if isinstance(settings, dict) else None
    review = review if isinstance(review, dict) else {}
    value = review.get("allowed_signers")
    signers = Path(os.path.expanduser(value)) if isinstance(value, str) and value else None
    return ReviewTrust.build(review, signers)


def _in_state(store: Store, name: str) -> str:
    """`name` in the store's machine-local state folder, relative to the store (read contained;
    `Store.state` first adopts an older version's state)."""
    return (store.state / name).relative_to(store.root).as_posix()


def read_config(store: Store) -> ConfigRead:
    """vault.json, then the machine config, then vault.local.json (each overriding the one before);
    program-running settings only from the machine config."""
    shared = _load_json(store.root, VAULT_JSON)
    if shared is None:
        raise VaultError("NO_VAULT", f"{store.root}/{VAULT_JSON} is missing; run `jacked memory init`")
    local = _load_json(store.root, _in_state(store, LOCAL_NAME))
    machine = _machine_config()
    warnings: list[dict[str, str]] = [*_machine_paths_shared(shared[0]), *_legacy_state(store)]
    shared_data = without_programs(shared[0], VAULT_JSON, warnings)
    local_data = without_programs(local[0], LOCAL_JSON, warnings) if local else None
    raw = shared[1] + b"\0" + (local[1] if local else b"") + b"\0" + (machine[1] if machine else b"")
    stamp = hashlib.sha256(raw).hexdigest()
    stamp_path = store.root / _in_state(store, _STAMP_NAME)
    try:
        known = stamp_path.read_text(encoding="ascii").strip() == stamp
    except OSError:
        known = False
    if not known:
        validate_config(VAULT_JSON, shared_data, local=False)
        if local_data is not None:
            validate_config(LOCAL_JSON, local_data, local=True)
        if machine:
            validate_config(str(machine_config_path()), machine[0], local=False, schema="config.schema.json")
        with contextlib.suppress(OSError, VaultError):  # the stamp is only a cache
            fsio.replace_file(store.root, _in_state(store, _STAMP_NAME), stamp.encode())
    effective = shared_data
    if machine and isinstance(machine[0].get("settings"), dict):
        effective = _merge(effective, {"settings": machine[0]["settings"]})
    if local_data:
        effective = _merge(effective, local_data)
    return ConfigRead(effective, warnings)


def _machine_paths_shared(shared: Any) -> list[dict[str, str]]:
    """An older version wrote one machine's `roots` into vault.json: never read, said by doctor."""
    if not (isinstance(shared, dict) and "roots" in shared):
        return []
    return [{
        "code": "MACHINE_PATHS_SHARED", "path": VAULT_JSON, "field": "roots",
        "fix": f"where a machine keeps its clones is its own setting (`roots` in {machine_config_path()}, else the "
               "usual folders); the next `jacked memory group map|unmap|suggest` that writes vault.json drops it",
    }]  # fmt: skip


def _legacy_state(store: Store) -> list[dict[str, str]]:
    """`<root>/.jacked/`, where an older version kept this machine's state: no longer read."""

    if legacy_dir(store.root) is None:
        return []
    return [{
        "code": "LEGACY_STATE", "path": f"{LEGACY_DIR}/", "field": "the machine-local state an older version kept",
        "fix": f"it was adopted into {STATE_DIR[0]}/{STATE_DIR[1]}/ (where no git pull can write); once "
               f"`jacked memory status` looks right, delete {store.root / LEGACY_DIR}",
    }]  # fmt: skip


def load_config(store: Store) -> dict[str, Any]:
    """The effective configuration (see `read_config`)."""
    return read_config(store).effective


def join_shared(ours: dict[str, Any], theirs: dict[str, Any]) -> dict[str, Any]:
    """vault.json for two vaults being joined (`remote set URL --join`): every group of both with
    the union of its repos and this machine's settings over the other's (never `roots`: one machine's
    paths, `machine_roots`).
    CONFIG when one repo would end up in two groups (the file and the repo named, to settle first)."""
    groups: dict[str, dict[str, Any]] = {}
    for config in (ours, theirs):
        for name, group in (config.get("groups") or {}).items():
            repos = groups.setdefault(name, {**group, "repos": []})["repos"]
            repos += [r for r in group.get("repos", []) if r not in repos]
    owner: dict[str, str] = {}
    for name, group in sorted(groups.items()):
        for repo in group["repos"]:
            if repo in owner:
                raise VaultError(
                    "CONFIG",
                    f"joining would map {repo} to two groups ({owner[repo]} here or there, {name} in the other); "
                    f"map it to one group in both vaults first (`jacked memory group map {repo} GROUP`), then join",
                )
            owner[repo] = name
    joined = {key: value for key, value in {**theirs, **ours, "groups": groups}.items() if key != "roots"}
    if "settings" in ours or "settings" in theirs:
        joined["settings"] = _merge(theirs.get("settings") or {}, ours.get("settings") or {})
    return joined


def group_for(config: dict[str, Any], identity: str, solo_group: str) -> str:
    """The group a repo identity is mapped to, or its solo group."""
    for name, group in sorted(config.get("groups", {}).items()):
        if identity in group.get("repos", ()):
            return name
    return solo_group
