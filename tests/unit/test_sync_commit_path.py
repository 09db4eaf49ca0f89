"""The sync merge commits through the transaction's commit path (issue 22 item 2): its audit line,
its trailers and the author of this machine's settings, on two real vaults and a bare remote."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pygit2

from jacked_vault.context import Context
from jacked_vault.notes import AddRequest, add
from jacked_vault.sync import push, set_remote, sync
from jacked_vault.write.init import init_vault
from tests.helpers.state import state_dir


def _machine(path: Path, harness: str) -> Context:
    work = path.parent / f"{path.name}-work"
    work.mkdir(exist_ok=True)
    return Context.create(vault=str(path), cwd=work, harness=harness)


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


def test_the_sync_merge_is_a_transaction_commit(tmp_path: Path):
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    laptop_root, desktop_root = tmp_path / "laptop", tmp_path / "desktop"
    init_vault(laptop_root)
    laptop = _machine(laptop_root, "laptop")
    set_remote(laptop, f"file://{remote}")
    push(laptop)
    subprocess.run(["git", "clone", "-q", f"file://{remote}", str(desktop_root)], check=True, capture_output=True)
    (state_dir(desktop_root)).mkdir(exist_ok=True)
    author = {"name": "Desk Top", "email": "desk@example.org"}
    (state_dir(desktop_root) / "vault.local.json").write_text(json.dumps({"settings": {"author": author}}))
    desktop = _machine(desktop_root, "desktop")
    set_remote(desktop, f"file://{remote}")

    add(laptop, AddRequest(title="From the laptop", body="Laptop body.", group="tools"))
    push(laptop)
    add(desktop, AddRequest(title="From the desktop", body="Desktop body.", group="tools"))
    theirs = pygit2.Repository(str(remote)).references["refs/heads/main"].target
    before = _git(desktop_root, "rev-parse", "HEAD").strip()

    assert sync(desktop).action == "merged"

    repo = pygit2.Repository(str(desktop_root))
    merge = next(c for c in repo.walk(repo.head.target) if len(c.parent_ids) == 2)
    assert {str(p) for p in merge.parent_ids} == {before, str(theirs)}
    assert (merge.author.name, merge.author.email) == (author["name"], author["email"])
    subject, _, trailers = merge.message.partition("\n\n")
    assert subject == f"memory: sync merge of origin ({str(theirs)[:10]})"
    keys = [line.split(": ", 1)[0] for line in trailers.splitlines()]
    assert keys == ["Memory-Remote", "Memory-Origin", "Memory-Harness", "Memory-Audit"]
    values = dict(line.split(": ", 1) for line in trailers.splitlines())
    assert values["Memory-Remote"] == str(theirs)
    assert (values["Memory-Origin"], values["Memory-Harness"]) == ("sync", "desktop")
    machine, last_hash = values["Memory-Audit"].split(" ")
    # the audit line is in the merge's own tree, the last of this machine's part, chained as the trailer says
    changed = [d.delta.new_file.path for d in repo.diff(repo[merge.parent_ids[0]], merge)]
    parts = [p for p in changed if p.startswith(f"audit/{machine}/")]
    assert len(parts) == 1
    last = (merge.tree / parts[0]).data.decode().splitlines()[-1]
    line = json.loads(last)
    assert (line["op"], line["harness"], line["origin"], line["remote"]) == ("sync", "desktop", "sync", str(theirs))
    from jacked_vault.store.audit import line_hash

    assert line_hash(last) == last_hash
    assert _git(desktop_root, "status", "--porcelain") == ""
