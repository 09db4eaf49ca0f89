"""Configuration: the shared `vault.json`, the per-machine `.jacked/vault.local.json`, and the
machine's `$XDG_CONFIG_HOME/jacked/config.json` (default `~/.config/jacked/config.json`).

Trust boundary (SPEC 3): `vault.json` travels with the vault and anyone who can push to the
remote writes it, so a setting that runs a program (`settings.distill.command`) is honoured
only from the machine configuration, which sync can never write. Found in `vault.json` or
`vault.local.json` it is ignored and reported (`ConfigRead.warnings`, shown by doctor); the
schema refuses it when `vault.json` is written.

Validation needs jsonschema (slow to import), so a successful check is remembered by the
sha256 of the files in `.jacked/config-ok`; read-only paths then skip the import.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import os
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jacked_vault.errors import VaultError
from jacked_vault.resources import data_file
from jacked_vault.safety import fsio
from jacked_vault.store.layout import CACHE_DIR, VAULT_JSON, Store

if TYPE_CHECKING:
    import jsonschema

    from jacked_vault.store.settings import ReviewTrust

LOCAL_JSON = f"{CACHE_DIR}/vault.local.json"
_STAMP = f"{CACHE_DIR}/config-ok"
MAX_CONFIG_BYTES = 1024 * 1024
PROGRAM_KEYS = (("settings", "distill", "command"),)  # settings that run a program


def machine_config_path() -> Path:
    """`$XDG_CONFIG_HOME/jacked/config.json`, default `~/.config/jacked/config.json`."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "jacked" / "config.json"


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
    """Schema-check one config document; the error names the file and the field, never a value."""
    if local and isinstance(data, dict):
        data = {"version": 1, **data}
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
    from jacked_vault.document.model import SLUG_RE
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


def _merge(base: dict, override: dict) -> dict:
    """Objects merge key by key; any other value replaces the shared one."""
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def without_programs(data: Any, source: str, warnings: list[dict]) -> Any:
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

    effective: dict
    warnings: list[dict] = field(default_factory=list)


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


def read_config(store: Store) -> ConfigRead:
    """vault.json, then the machine config, then vault.local.json (each overriding the one before);
    program-running settings only from the machine config."""
    shared = _load_json(store.root, VAULT_JSON)
    if shared is None:
        raise VaultError("NO_VAULT", f"{store.root}/{VAULT_JSON} is missing; run `jacked memory init`")
    local = _load_json(store.root, LOCAL_JSON)
    machine = _machine_config()
    warnings: list[dict] = []
    shared_data = without_programs(shared[0], VAULT_JSON, warnings)
    local_data = without_programs(local[0], LOCAL_JSON, warnings) if local else None
    raw = shared[1] + b"\0" + (local[1] if local else b"") + b"\0" + (machine[1] if machine else b"")
    stamp = hashlib.sha256(raw).hexdigest()
    stamp_path = store.root / _STAMP
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
            fsio.replace_file(store.root, _STAMP, stamp.encode())
    effective = shared_data
    if machine and isinstance(machine[0].get("settings"), dict):
        effective = _merge(effective, {"settings": machine[0]["settings"]})
    if local_data:
        effective = _merge(effective, local_data)
    return ConfigRead(effective, warnings)


def load_config(store: Store) -> dict:
    """The effective configuration (see `read_config`)."""
    return read_config(store).effective


def join_shared(ours: dict, theirs: dict) -> dict:
    """vault.json for two vaults being joined (`remote set URL --join`): every group of both with
    the union of its repos, the union of the roots, and this machine's settings over the other's.
    CONFIG when one repo would end up in two groups (the file and the repo named, to settle first)."""
    groups: dict[str, dict] = {}
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
    roots = list(dict.fromkeys([*(ours.get("roots") or []), *(theirs.get("roots") or [])]))
    joined = {**theirs, **ours, "groups": groups}
    if roots:
        joined["roots"] = roots
    if "settings" in ours or "settings" in theirs:
        joined["settings"] = _merge(theirs.get("settings") or {}, ours.get("settings") or {})
    return joined


def group_for(config: dict, identity: str, solo_group: str) -> str:
    """The group a repo identity is mapped to, or its solo group."""
    for name, group in sorted(config.get("groups", {}).items()):
        if identity in group.get("repos", ()):
            return name
    return solo_group
