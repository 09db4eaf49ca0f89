"""What the remote brings, judged before anything moves (SPEC 3, 5.0, 10).

Every file the remote added, changed or deleted since the merge base is looked at:

- refused (sync stops, HEAD does not move): a path under `.jacked/` or any other hidden path
  (machine-local state, never taken from a remote), a symlink or anything that is not a plain
  file, a path outside the vault layout, a local symlink in the way, a change to this machine's
  own audit log, and a `.gitignore`, `vault.json`, audit or tombstone file that fails the gate
  (these would break or poison every later command);
- quarantined (taken, but never recalled; kept in `.jacked/quarantine/` and reported by doctor):
  a note, hot.md or episodic file that fails the gate (invalid, a secret, a rejected value);
- deleted: layout files the remote removed (sync keeps them unless told otherwise).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from jacked_vault.errors import VaultError
from jacked_vault.store.layout import AUDIT_DIR, Store, classify_path

FILE_MODES = (0o100644, 0o100755)
SYMLINK_MODE = 0o120000
STOPPING_KINDS = frozenset({"gitignore", "config", "audit", "tombstones", "readme"})


@dataclass
class Arrivals:
    refused: list[dict] = field(default_factory=list)  # {"path", "why"}: sync stops
    quarantined: list[dict] = field(default_factory=list)  # {"path", "code", "why", "data"}
    deleted: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)

    def refusal(self, commit: str, *, stopped: str = "sync stopped before changing anything", then: str = "sync again") -> VaultError:
        shown = "; ".join(f"{r['path']} ({r['why']})" for r in self.refused[:10])
        more = f" and {len(self.refused) - 10} more" if len(self.refused) > 10 else ""
        return VaultError(
            "SYNC",
            f"{stopped}: the remote's {commit[:10]} brings what a vault never takes: "
            f"{shown}{more}. Ask whoever pushed it to remove those paths, then {then}",
            details={"refused": [{"path": r["path"], "why": r["why"]} for r in self.refused]},
        )


def _structural(store: Store, rel: str, entry, machine: str) -> str | None:
    """Why `rel` may never arrive, or None."""
    from jacked_vault.safety import fsio

    parts = rel.split("/")
    if parts[0] == ".jacked":
        return "under .jacked/, machine-local"
    if any(p.startswith(".") for p in parts) and rel != ".gitignore":
        return "a hidden path"
    if entry is not None and entry.filemode == SYMLINK_MODE:
        return "a symlink"
    if entry is not None and entry.filemode not in FILE_MODES:
        return "not a plain file"
    if classify_path(store, rel) is None:
        return "outside the vault layout"
    if len(parts) > 2 and parts[0] == AUDIT_DIR and parts[1] == machine:
        return "this machine's own audit log"
    try:
        with fsio.open_dir(store.root, parts[:-1]):
            pass
    except FileNotFoundError:
        pass
    except VaultError:
        return "a local symlink is in its way"
    return None


def inspect_arrivals(store: Store, repo, base_tree, theirs_tree, tombstoned) -> Arrivals:
    """Judge every file that differs between the merge base (None: unrelated) and the remote."""
    from jacked_vault.search.treediff import changed_entries
    from jacked_vault.store.audit import machine_id
    from jacked_vault.store.gate import cap_for, inspect

    machine = machine_id(store.cache)
    out = Arrivals()
    for rel, entry in changed_entries(repo, base_tree, theirs_tree):
        why = _structural(store, rel, entry, machine)
        if why:
            out.refused.append({"path": rel, "why": why})
            continue
        kind = classify_path(store, rel)
        if entry is None:
            if kind != "index":
                out.deleted.append(rel)
            continue
        out.changed.append(rel)
        if kind == "index":
            continue  # derived: regenerated after the merge
        size = repo.odb.read_header(entry.id)[1]
        if size > cap_for(kind):
            why = f"{size} bytes is over the {cap_for(kind)}-byte cap"
            (out.refused if kind in STOPPING_KINDS else out.quarantined).append({"path": rel, "code": "TOO_LARGE", "why": why, "data": b""})
            continue
        data = repo[entry.id].data
        base = _blob(repo, base_tree, rel)
        try:
            inspect(store, rel, data, tombstoned=tombstoned, base=base, new=base is None, arrival=True)
        except VaultError as exc:
            code = exc.details.get("gate", exc.code)
            if kind in STOPPING_KINDS:
                out.refused.append({"path": rel, "why": f"{code}: {exc.message.removeprefix(rel + ': ')}"})
            else:
                out.quarantined.append({"path": rel, "code": code, "why": exc.message, "data": data})
    return out


def _blob(repo, tree, rel: str) -> bytes | None:
    if tree is None:
        return None
    try:
        entry = tree[rel]
    except KeyError:
        return None
    obj = repo[entry.id]
    return obj.data if obj.type_str == "blob" else None


def arrival_tombstones(repo, base_tree, theirs_tree) -> set[str]:
    """The tombstone hashes the remote adds (a reject writes one with the rejected note), so an
    arrival is judged against every rejection either side knows."""
    from jacked_vault.search.treediff import changed_entries
    from jacked_vault.store.tombstones import parse_tombstones

    out: set[str] = set()
    for rel, entry in changed_entries(repo, base_tree, theirs_tree):
        if entry is not None and rel.startswith("tombstones/") and entry.filemode in FILE_MODES:
            out |= parse_tombstones(repo[entry.id].data)
    return out


def keep_quarantined(store: Store, arrivals: Arrivals) -> list[dict]:
    """Keep each quarantined arrival's bytes in `.jacked/quarantine/` (the index never shows it);
    returns `{"path", "code"}` for each."""
    from jacked_vault.store.gate import quarantine

    for item in arrivals.quarantined:
        quarantine(store, item["path"], item["data"], f"{item['code']}: arrived from the remote", "sync")
    return [{"path": item["path"], "code": item["code"]} for item in arrivals.quarantined]
