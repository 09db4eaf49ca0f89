"""Convergence (issue 18, "Done means"): three machines doing random adds, transitions (some of
the same note on two machines), hot sets and syncs in a random order end, after two rounds of
sync, with the same notes, statuses, tombstones and hot.md on all three, doctor ok everywhere
and no note lost. Seeded; real vaults, a real bare remote."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from jacked_vault.context import Context
from jacked_vault.errors import VaultError
from jacked_vault.notes import AddRequest, add
from jacked_vault.sync import push, set_remote, sync
from jacked_vault.write.hot import set_hot
from jacked_vault.write.init import init_vault
from jacked_vault.write.transitions import transition

GROUPS = ("tools", "web")
WORDS = ["parser", "index", "cache", "queue", "schema", "token", "budget", "brief", "vault", "remote"]


def _machines(tmp_path: Path, n: int = 3) -> list[Context]:
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    out = []
    for i in range(n):
        root = tmp_path / f"m{i}"
        init_vault(root)
        work = tmp_path / f"m{i}-work"
        work.mkdir()
        ctx = Context.create(vault=str(root), cwd=work, harness=f"m{i}")
        set_remote(ctx, f"file://{remote}")
        if i == 0:
            push(ctx)
        out.append(ctx)
    return out


def _state(ctx: Context) -> dict:
    """What must agree across machines: every committed note file, tombstone hash and hot.md."""
    root = ctx.vault.root
    files = subprocess.run(
        ["git", "-C", str(root), "ls-files"], capture_output=True, text=True, check=True
    ).stdout.split()
    notes = {
        rel: (root / rel).read_bytes()
        for rel in files
        if rel.startswith("groups/") and rel.count("/") == 3 and not rel.endswith(("index.md", "hot.md"))
    }
    hot = {rel: (root / rel).read_bytes() for rel in files if rel.endswith("hot.md")}
    stones = set()
    for rel in files:
        if rel.startswith("tombstones/"):
            stones |= set((root / rel).read_text().split())
    return {"notes": notes, "hot": hot, "tombstones": stones}


def _doctor_ok(ctx: Context) -> None:
    from jacked_vault.doctor import doctor

    report = doctor(ctx)
    assert report.ok, [what for what, _ in report.problems()]


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_three_machines_converge(tmp_path: Path, seed: int):
    rng = random.Random(seed)
    machines = _machines(tmp_path)
    created: set[str] = set()
    known: dict[int, list[str]] = {i: [] for i in range(len(machines))}  # note ids each machine has seen
    for step in range(36):
        i = rng.randrange(len(machines))
        ctx = machines[i]
        roll = rng.random()
        try:
            if roll < 0.35:
                title = f"{rng.choice(WORDS).title()} {rng.choice(WORDS)} {rng.randrange(4)}"
                status = rng.choice(["active", "candidate"])
                note = add(
                    ctx,
                    AddRequest(
                        title=title,
                        body=f"About the {title.lower()}.",
                        group=rng.choice(GROUPS),
                        status=status,
                        origin="mcp",
                    ),
                )
                created.add(note.note.id)
                known[i].append(note.note.id)
            elif roll < 0.6 and known[i]:
                target = rng.choice(known[i])
                op = rng.choice(["accept", "reject", "expire", "supersede"])
                if op == "supersede":
                    others = [n for n in known[i] if n != target]
                    if not others:
                        continue
                    transition(ctx, target, op, by=rng.choice(others))
                else:
                    transition(ctx, target, op, reason="no" if op == "reject" else None)
            elif roll < 0.7:
                set_hot(ctx, f"Machine {i} at step {step}.", group=rng.choice(GROUPS))
            else:
                sync(ctx)
                known[i] = sorted(set(known[i]) | _ids(ctx))
        except VaultError as exc:
            assert exc.code in ("VALIDATION", "TOMBSTONED", "NOT_FOUND", "INCOMPLETE"), (step, exc.code, exc.message)
    for _ in range(2):
        for ctx in machines:
            sync(ctx)
    states = [_state(ctx) for ctx in machines]
    assert states[0] == states[1] == states[2]
    held = {_id_of(data) for data in states[0]["notes"].values()}
    assert created <= held, "a note was lost"
    for ctx in machines:
        _doctor_ok(ctx)


def _ids(ctx: Context) -> set[str]:
    from jacked_vault.search.index import open_fresh

    index = open_fresh(ctx.vault)
    try:
        return index.read.ids()
    finally:
        index.close()


def _id_of(data: bytes) -> str:
    from jacked_vault.document import parse_note

    return parse_note(data).id
