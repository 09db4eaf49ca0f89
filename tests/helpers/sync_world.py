"""Vaults as machines sharing a real bare remote: the fixtures `two_machines` and `shared`
(with a hostile clone), and what tests do to them (add a note, push plain-git commits)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import git

from jacked_vault.context import Context
from jacked_vault.notes import AddRequest, add
from jacked_vault.sync import push, set_remote
from jacked_vault.write.init import init_vault


def bare_remote(path: Path) -> str:
    """A bare repository at `path` with branch main; its file:// URL."""
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(path)], check=True)
    return f"file://{path}"


def remote_head(remote: Path) -> str:
    """The commit the bare repository's main names; "" when it has none (nothing pushed yet)."""
    return subprocess.run(
        ["git", "-C", str(remote), "rev-parse", "--verify", "-q", "main"], capture_output=True, text=True
    ).stdout.strip()


def vault_in(home: Path) -> Path:
    """The vault path on a machine whose HOME is `home` (run_cli uses the vault's parent as HOME)."""
    home.mkdir(parents=True, exist_ok=True)
    return home / "vault"


def machine(path: Path, remote: Path | None = None) -> Context:
    """A vault on one 'machine': a fresh init, or a clone of the remote; its harness is its folder name."""
    if remote is None:
        init_vault(path)
    else:
        subprocess.run(["git", "clone", "-q", f"file://{remote}", str(path)], check=True, capture_output=True)
    work = path.parent / f"{path.name}-work"
    work.mkdir(exist_ok=True)
    return Context.create(vault=str(path), cwd=work, harness=path.name)


def add_note(ctx: Context, title: str, **kw: Any):
    """Add a note (group tools, body '<title> body.' unless given) through the library."""
    return add(
        ctx, AddRequest(title=title, body=kw.pop("body", f"{title} body."), group=kw.pop("group", "tools"), **kw)
    )


def team(paths: list[Path], remote: Path) -> list[Context]:
    """Machines at `paths` sharing a new bare remote at `remote`: the first pushed its init, the
    others cloned it."""
    bare_remote(remote)
    first = machine(paths[0])
    set_remote(first, f"file://{remote}")
    push(first)
    rest = [machine(path, remote) for path in paths[1:]]
    for ctx in rest:
        set_remote(ctx, f"file://{remote}")
    return [first, *rest]


@pytest.fixture
def two_machines(tmp_path: Path) -> tuple[Context, Context, Path]:
    """(laptop, desktop, remote): the laptop pushed its init, the desktop cloned it."""
    remote = tmp_path / "remote.git"
    a, b = team([tmp_path / "laptop", tmp_path / "desktop"], remote)
    return a, b, remote


@pytest.fixture
def shared(tmp_path: Path) -> tuple[Context, Context, Path, Path]:
    """(laptop, desktop, hostile clone, remote): the desktop adopted the laptop's history."""
    remote = tmp_path / "remote.git"
    bare_remote(remote)
    laptop = machine(tmp_path / "laptop")
    set_remote(laptop, f"file://{remote}")
    add(laptop, AddRequest(title="First note", body="From the laptop.", group="tools"))
    push(laptop)
    desktop = machine(tmp_path / "desktop")
    assert set_remote(desktop, f"file://{remote}").adopted
    hostile = tmp_path / "hostile"
    subprocess.run(["git", "clone", "-q", f"file://{remote}", str(hostile)], check=True, capture_output=True)
    return laptop, desktop, hostile, remote


def push_from(
    clone: Path,
    files: dict[str, str | bytes | None],
    message: str = "hostile change",
    *,
    audit: dict[str, str] | None = None,
) -> str:
    """Commit `files` (None removes one) in a plain clone and push it to main; the new commit.
    `audit`: path -> id, a `create` audit line forged for each file as it is now (its path and
    sha256), in a machine's audit file of the pusher's own, as anyone with push access could."""
    for rel, text in files.items():
        path = clone / rel
        if text is None:
            git(clone, "rm", "-rq", rel)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text)
        git(clone, "add", "-f", rel)
    if audit:
        git(clone, "add", "-f", forge_audit(clone, audit))
    git(clone, "commit", "-qm", message)
    git(clone, "push", "-q", "origin", "main")
    return git(clone, "rev-parse", "HEAD").strip()


FORGER = "m-pusher"  # the machine id a forged audit file is named for


def forge_audit(clone: Path, ids: dict[str, str], op: str = "create", machine: str = FORGER) -> str:
    """Append one audit line per path of `ids` (path -> id; its sha256 the file's bytes in `clone`)
    to `machine`'s audit file of this month, chained as jacked chains them; its path."""
    import json

    from jacked_vault.document import utc_now
    from jacked_vault.store.audit import content_hash, line_hash

    rel = f"audit/{machine}/{utc_now()[:7]}.jsonl"
    path = clone / rel
    before = path.read_text() if path.exists() else ""
    prev = line_hash(before.splitlines()[-1]) if before else None
    lines = []
    for file, note_id in ids.items():
        record = {
            "ts": utc_now(),
            "op": op,
            "id": note_id,
            "path": file,
            "sha256": content_hash((clone / file).read_bytes()),
            "prev": prev,
            "harness": "x",
            "origin": "cli",
        }
        line = json.dumps(record, separators=(",", ":"))
        lines.append(line)
        prev = line_hash(line)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(before + "".join(f"{line}\n" for line in lines))
    return rel
