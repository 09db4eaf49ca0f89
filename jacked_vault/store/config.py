"""vault.json plus the per-machine `.jacked/vault.local.json` override, validated by schema.

Validation needs jsonschema (slow to import), so a successful check is remembered by the
sha256 of both files in `.jacked/config-ok`; read-only paths then skip the import.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path
from typing import Any

from jacked_vault.errors import VaultError
from jacked_vault.resources import data_file
from jacked_vault.safety import fsio
from jacked_vault.store.layout import CACHE_DIR, VAULT_JSON, Store

LOCAL_JSON = f"{CACHE_DIR}/vault.local.json"
_STAMP = f"{CACHE_DIR}/config-ok"
MAX_CONFIG_BYTES = 1024 * 1024


@cache
def _validator():
    import jsonschema

    schema = json.loads(data_file("schemas", "vault.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _load_json(root: Path, rel: str) -> tuple[Any, bytes] | None:
    try:
        raw = fsio.read_file(root, rel, max_bytes=MAX_CONFIG_BYTES)
    except FileNotFoundError:
        return None
    except VaultError as exc:
        raise VaultError("CONFIG", f"{rel}: {exc.message}") from None
    try:
        return json.loads(raw.decode("utf-8")), raw
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise VaultError("CONFIG", f"{rel}: not valid JSON ({exc})") from None


def validate_config(rel: str, data: Any, *, local: bool) -> None:
    """Schema-check one config document; the error names the file and the field."""
    if local and isinstance(data, dict):
        data = {"version": 1, **data}
    errors = sorted(_validator().iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.absolute_path) or "(top level)"
        raise VaultError("CONFIG", f"{rel}: field {where}: {first.message}")


def _merge(base: dict, override: dict) -> dict:
    """Objects merge key by key; any other value replaces the shared one."""
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def load_config(store: Store) -> dict:
    """The effective configuration: vault.json merged with the local override."""
    shared = _load_json(store.root, VAULT_JSON)
    if shared is None:
        raise VaultError("NO_VAULT", f"{store.root}/{VAULT_JSON} is missing; run `jacked memory init`")
    local = _load_json(store.root, LOCAL_JSON)
    stamp = hashlib.sha256(shared[1] + b"\0" + (local[1] if local else b"")).hexdigest()
    stamp_path = store.root / _STAMP
    try:
        known = stamp_path.read_text(encoding="ascii").strip() == stamp
    except OSError:
        known = False
    if not known:
        validate_config(VAULT_JSON, shared[0], local=False)
        if local:
            validate_config(LOCAL_JSON, local[0], local=True)
        try:
            fsio.replace_file(store.root, _STAMP, stamp.encode())
        except (OSError, VaultError):
            pass  # the stamp is only a cache
    return _merge(shared[0], local[0]) if local else shared[0]


def group_for(config: dict, identity: str, solo_group: str) -> str:
    """The group a repo identity is mapped to, or its solo group."""
    for name, group in sorted(config.get("groups", {}).items()):
        if identity in group.get("repos", ()):
            return name
    return solo_group
