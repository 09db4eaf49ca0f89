"""The test the project keeps (issue 32): a team's vault over a real git server.

Five machines (three over ssh, two over http; `helpers.git_server`) share one bare repository.
Each round, every machine starts a session (the real SessionStart hook, all five at once: a
pull and a brief), does the operations the seed planned (the real CLI: adds, hot.md, accepts,
rejects and supersedes, some of one note on two machines, forgets), and ends its session (the
real SessionEnd hook, all five at once: each detached drain captures the session, then syncs and
pushes by the default push policy). Some rounds refuse or blackhole one link during the starts.
Every step is bounded in time. After the rounds, two rounds of `sync` on every machine; then
every machine holds the same notes (statuses in them), tombstones and hot.md, every note a
machine saved is there or an audit line says why not, and `doctor` is ok everywhere.

The plan is a function of the seed alone (notes are named by their number in the plan, resolved
to ids as they are saved), so a seed replays the same operations; what the network races
decide may differ between runs, and every outcome must converge all the same.

A short version (one seed, three rounds) and a long one (`slow`: more seeds and rounds, set by
JACKED_SOAK_SEEDS and JACKED_SOAK_ROUNDS) run in the normal suite.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from helpers.capture import Builder
from helpers.git_server import TeamServer, server_or_skip
from helpers.processes import run_mark, wait_exited
from helpers.team_world import GROUP, Machine, join, make_machine, wait_all

VIA = ("ssh", "ssh", "ssh", "http", "http")
WORDS = ("parser", "index", "cache", "queue", "schema", "token", "budget", "brief", "vault", "remote", "lock", "merge")
# an op on a note this machine lacks (yet, or any more), or a transition its status no longer allows
TOLERATED = {"NOT_FOUND", "VALIDATION", "TOMBSTONED", "EXISTS"}
START_BOUND_S = 20.0  # a session start: its 3 s pull cap, the CLI's start and the brief, on a loaded machine
DRAIN_BOUND_S = 150.0  # a session end's detached drain: capture, rollup, sync and push
REMOVED = {"forget"}  # audit ops that say why a saved note is not in the vault


@dataclass(frozen=True)
class Op:
    kind: str  # add | hot | accept | reject | supersede | forget
    ref: int = -1  # the note, by its number in the plan (an add: its own number)
    by: int = -1  # supersede: the note that replaces it
    title: str = ""


def plan(seed: int, rounds: int, machines: int, ops: int) -> list[list[list[Op]]]:
    """rounds x machines x ops, from the seed alone. Transitions and forgets act on notes added
    in earlier rounds; each round also has one note changed on two machines (any two of accept,
    reject, supersede, forget) and, now and then, one title added on two machines."""
    rng = random.Random(seed)
    out: list[list[list[Op]]] = []
    added = 0
    for r in range(rounds):
        earlier = added
        this: list[list[Op]] = [[] for _ in range(machines)]
        for m in range(machines):
            for j in range(ops):
                roll = rng.random()
                if roll < 0.45 or earlier < 2:
                    title = f"{rng.choice(WORDS).title()} {rng.choice(WORDS)} n{added}"
                    this[m].append(Op("add", added, title=title))
                    added += 1
                elif roll < 0.55:
                    this[m].append(Op("hot", title=f"{m} round {r} step {j}"))
                elif roll < 0.9:
                    ref, by = rng.sample(range(earlier), 2)
                    this[m].append(Op(rng.choice(("accept", "reject", "supersede")), ref, by))
                else:
                    this[m].append(Op("forget", rng.randrange(earlier)))
        if earlier >= 2:
            a, b = rng.sample(range(machines), 2)
            ref, by = rng.sample(range(earlier), 2)
            for m in (a, b):
                kind = rng.choice(("accept", "reject", "supersede", "forget"))
                this[m].insert(rng.randrange(len(this[m]) + 1), Op(kind, ref, by))
        if rng.random() < 0.3:
            a, b = rng.sample(range(machines), 2)
            title = f"{rng.choice(WORDS).title()} {rng.choice(WORDS)} shared {r}"
            for m in (a, b):
                this[m].append(Op("add", added, title=title))
                added += 1
        out.append(this)
    return out


@dataclass
class Record:
    """What happened, for the assertions and the failure message."""

    ids: dict[int, str] = field(default_factory=dict)  # plan number -> id, as saved
    saved_by: dict[str, str] = field(default_factory=dict)  # id -> machine
    ops: list[tuple[int, str, str, str]] = field(default_factory=list)  # round, machine, op, outcome
    unexpected: list[str] = field(default_factory=list)
    starts: list[tuple[int, str, str, float]] = field(default_factory=list)  # round, machine, pull result, seconds
    pushes: list[tuple[int, str, str, str]] = field(default_factory=list)  # round, machine, last push result, why
    syncs: list[tuple[int, str, int, str]] = field(default_factory=list)  # final round, machine, exit code, text
    rounds_s: list[float] = field(default_factory=list)  # each round's wall time
    settle_s: float = 0.0  # the two final rounds of sync

    def summary(self) -> str:
        def count(items, key) -> dict[str, int]:
            out: dict[str, int] = {}
            for item in items:
                out[key(item)] = out.get(key(item), 0) + 1
            return out

        return json.dumps(
            {
                "notes_saved": len(self.saved_by),
                "round_s": [round(x, 1) for x in self.rounds_s],
                "settle_s": round(self.settle_s, 1),
                "ops": count(self.ops, lambda o: f"{o[2]}:{o[3]}"),
                "session_start_pulls": count(self.starts, lambda s: s[2]),
                "slowest_start_s": round(max((s[3] for s in self.starts), default=0), 2),
                "pushes_after_session_end": count(
                    self.pushes, lambda p: p[2] if p[2] == "ok" and "after " not in p[3] else f"{p[2]}: {why(p[3])}"
                ),
                "push_races_lost": sum(_races_lost(p[3]) for p in self.pushes if p[2] == "ok"),
                "first_wedged": {name: r for r, name, _, message in reversed(self.pushes) if why(message) == WEDGED},
                "final_syncs": [f"r{r} {m} exit {c}: {t[:300]}" for r, m, c, t in self.syncs if c != 0],
                "unexpected": self.unexpected,
            },
            indent=1,
        )


WEDGED = "wedged: sync stopped for a file no rule settles"
REASONS = {  # what a push's record says -> what happened, in a few words
    "changed the same file(s) differently": WEDGED,
    "moved on while this machine pushed": "lost the push race on every try",
    "the remote has commits this vault does not": "lost the push race",
    "refused": "the server refused",
    "after ": "pushed after losing a race",
}


def _races_lost(message: str) -> int:
    """How many races a push that landed lost first (its record says 'after N race(s) lost')."""
    return int(message.split("after ")[1].split()[0]) if "after " in message else 0


def why(message: str) -> str:
    """A push's outcome in a few words (or as it is)."""
    return next((item for words, item in REASONS.items() if words in message), message[:80] if message else "")


class Team:
    def __init__(self, server: TeamServer, machines: list[Machine], tmp: Path) -> None:
        self.server, self.machines, self.tmp = server, machines, tmp
        self.record = Record()

    def run_op(self, r: int, m: int, op: Op) -> None:
        machine = self.machines[m]
        ids = self.record.ids
        if op.kind == "add":
            args = [
                "add",
                "--group",
                GROUP,
                "--title",
                op.title,
                "--body",
                f"{op.title}: from {machine.name} in round {r}.",
            ]
        elif op.kind == "hot":
            args = ["hot", "set", "--group", GROUP, "--body", f"Machine {op.title}."]
        elif op.ref not in ids or (op.kind == "supersede" and op.by not in ids):
            self.record.ops.append((r, machine.name, op.kind, "never saved"))
            return
        elif op.kind == "reject":
            args = ["reject", ids[op.ref], "--reason", f"{machine.name} says no"]
        elif op.kind == "supersede":
            args = ["supersede", ids[op.ref], "--by", ids[op.by]]
        else:
            args = [op.kind, ids[op.ref]]
        proc = machine.cli(*args, "--json")
        try:
            answer = json.loads(proc.stdout)
        except ValueError:
            answer = {"ok": False, "error": {"code": "no JSON", "message": proc.stderr[-300:]}}
        if answer.get("ok"):
            outcome = "ok"
            if op.kind == "add":
                ids[op.ref] = answer["memory"]["id"]
                self.record.saved_by[ids[op.ref]] = machine.name
        else:
            outcome = answer["error"]["code"].removeprefix("JACKED_MEMORY_")
            if outcome not in TOLERATED:
                self.record.unexpected.append(f"round {r} {machine.name} {op.kind}: {outcome} {answer['error']}")
        self.record.ops.append((r, machine.name, op.kind, outcome))

    def session_starts(self, r: int, fault: tuple[str, str] | None) -> None:
        """Every machine starts a session at once; with `fault` (via, mode) that link is down meanwhile."""
        payloads = [m.start_payload(f"s{r}-{m.name}") for m in self.machines]
        if fault is not None:
            self.server.proxy(fault[0]).set(fault[1])
        try:
            ended = wait_all(
                [m.hook("session-start", p) for m, p in zip(self.machines, payloads, strict=True)], START_BOUND_S
            )
        finally:
            self.server.proxy("ssh").set("pass")
            self.server.proxy("http").set("pass")
        for machine, end in zip(self.machines, ended, strict=True):
            pulled = next((line for line in reversed(machine.log()) if "hook=session-start" in line), "")
            result = pulled.split(" pull=", 1)[1].split(":", 1)[0].split()[0] if " pull=" in pulled else "?"
            self.record.starts.append((r, machine.name, result, end.seconds))
            if end.code != 0 or end.seconds > START_BOUND_S or not end.out.startswith(b"## jacked-vault memory"):
                self.record.unexpected.append(
                    f"round {r} {machine.name} session start: exit {end.code} after {end.seconds:.1f}s "
                    f"{end.out[:120]!r} {end.err[-300:]!r}"
                )

    def session_ends(self, r: int) -> None:
        """Every machine ends its session at once; each detached drain captures and pushes."""
        marks = [run_mark() for _ in self.machines]
        procs = []
        for machine, mark in zip(self.machines, marks, strict=True):
            transcript = (
                Builder(machine.code, session=f"e{r}-{machine.name}")
                .realistic()
                .write(self.tmp / "transcripts" / f"{machine.name}-{r}.jsonl")
            )
            procs.append(machine.hook("session-end", machine.end_payload(f"e{r}-{machine.name}", transcript), **mark))
        for machine, end in zip(self.machines, wait_all(procs, START_BOUND_S), strict=True):
            if end.code != 0:
                self.record.unexpected.append(
                    f"round {r} {machine.name} session end: exit {end.code} {end.err[-300:]!r}"
                )
        started = time.monotonic()
        for machine, mark in zip(self.machines, marks, strict=True):
            try:
                wait_exited(mark, timeout_s=max(1.0, DRAIN_BOUND_S - (time.monotonic() - started)))
            except AssertionError as exc:
                self.record.unexpected.append(f"round {r} {machine.name} drain: {exc}")
        for machine in self.machines:
            pushed = machine.cli_json("status")["vault"].get("last_push") or {}
            self.record.pushes.append((r, machine.name, str(pushed.get("result")), str(pushed.get("message"))))

    def round(self, r: int, ops: list[list[Op]], fault: tuple[str, str] | None) -> None:
        started = time.monotonic()
        self.session_starts(r, fault)

        def work(m: int) -> None:
            for op in ops[m]:
                self.run_op(r, m, op)

        with ThreadPoolExecutor(max_workers=len(self.machines)) as pool:
            list(pool.map(work, range(len(self.machines))))
        self.session_ends(r)
        self.record.rounds_s.append(time.monotonic() - started)

    def settle(self) -> None:
        """Two rounds of `sync` on every machine, one machine after another."""
        started = time.monotonic()
        for r in range(2):
            for machine in self.machines:
                proc = machine.cli("sync")
                self.record.syncs.append((r, machine.name, proc.returncode, (proc.stdout + proc.stderr).strip()))
        self.record.settle_s = time.monotonic() - started


def shared_state(machine: Machine) -> dict[str, object]:
    """What must agree across machines: every committed note (status and all), hot.md, episodic
    file and tombstone line."""
    root = machine.vault
    files = subprocess.run(["git", "-C", str(root), "ls-files"], capture_output=True, text=True, check=True).stdout
    out: dict[str, object] = {}
    stones: set[str] = set()
    for rel in files.split():
        if rel.startswith("tombstones/"):
            stones |= set((root / rel).read_text().split())
        elif rel.startswith("groups/") and not rel.endswith("/index.md"):
            out[rel] = (root / rel).read_bytes()
    out["tombstone lines"] = sorted(stones)
    return out


def audit_ops(machine: Machine) -> dict[str, set[str]]:
    """note id -> the ops the vault's audit files record for it."""
    out: dict[str, set[str]] = {}
    for path in machine.vault.glob("audit/*/*.jsonl"):
        for line in path.read_text().splitlines():
            with_id = json.loads(line)
            out.setdefault(with_id.get("id", ""), set()).add(with_id.get("op", ""))
    return out


def note_ids(state: dict[str, object]) -> set[str]:
    from jacked_vault.document import parse_note

    return {
        parse_note(data).id
        for rel, data in state.items()
        if isinstance(data, bytes) and rel.count("/") == 3 and not rel.endswith("hot.md") and "/episodic/" not in rel
    }


def converged(machines: list[Machine], record: Record) -> list[str]:
    """What stops the team being converged, each said: an unexpected failure on the way, a final
    sync that failed, a machine whose notes, hot.md, episodic files or tombstones differ from the
    first's, a saved note missing on a machine with no audit line there saying why, a doctor that
    is not ok."""
    problems = list(record.unexpected)
    problems += [f"final sync {r + 1} on {m} exited {code}: {text[:300]}" for r, m, code, text in record.syncs if code]
    states = [shared_state(m) for m in machines]
    for machine, state in zip(machines, states, strict=True):
        if state != states[0]:
            keys = sorted(k for k in states[0].keys() | state.keys() if states[0].get(k) != state.get(k))
            problems.append(f"{machine.name} differs from {machines[0].name} in {len(keys)} file(s): {keys[:8]}")
        held, audited = note_ids(state), audit_ops(machine)
        lost = sorted(i for i in record.saved_by if i not in held and not audited.get(i, set()) & REMOVED)
        if lost:
            problems.append(f"{machine.name} lacks {len(lost)} saved note(s) with no audit line saying why: {lost[:5]}")
    for machine in machines:
        doctor = machine.cli_json("doctor")
        if not doctor["ok"]:
            quiet = ("schema", "ok", "memory_count", "captures", "warnings", "unproven_reviews")  # not problems
            said = {k: v for k, v in doctor.items() if v and k not in quiet}
            problems.append(f"doctor on {machine.name}: {json.dumps(said)[:2000]}")
    return problems


def soak(tmp_path: Path, seed: int, rounds: int, ops: int) -> None:
    server = server_or_skip(tmp_path / "server")
    try:
        machines = [make_machine(tmp_path, server, f"m{i}", via) for i, via in enumerate(VIA)]
        join(machines, server)
        team = Team(server, machines, tmp_path)
        rng = random.Random(f"faults-{seed}")
        for r, planned in enumerate(plan(seed, rounds, len(machines), ops)):
            fault = (rng.choice(("ssh", "http")), rng.choice(("refuse", "blackhole"))) if rng.random() < 0.25 else None
            team.round(r, planned, fault)
        team.settle()
        print(team.record.summary())
        problems = converged(machines, team.record)
        assert not problems, "\n".join(problems) + "\n" + team.record.summary()
    finally:
        server.close()


@pytest.mark.parametrize("seed", [1])
def test_a_team_of_five_converges_over_ssh_and_http(tmp_path: Path, seed: int):
    soak(tmp_path, seed, rounds=3, ops=2)


# The long soak: one seed of five rounds in every full run (CI included: ~60 s here, which keeps
# .ci/run under 15 minutes); more with JACKED_SOAK_SEEDS=2,3,4,5 JACKED_SOAK_ROUNDS=40 (the
# issue's 40 rounds: ~8 min a seed).
LONG_SEEDS = [int(seed) for seed in os.environ.get("JACKED_SOAK_SEEDS", "2").split(",")]
LONG_ROUNDS = int(os.environ.get("JACKED_SOAK_ROUNDS", "5"))


@pytest.mark.slow
@pytest.mark.parametrize("seed", LONG_SEEDS)
def test_a_team_of_five_converges_over_many_rounds(tmp_path: Path, seed: int):
    soak(tmp_path, seed, rounds=LONG_ROUNDS, ops=4)


def test_the_plan_is_a_function_of_the_seed():
    first, again, other = plan(7, 6, 5, 4), plan(7, 6, 5, 4), plan(8, 6, 5, 4)
    assert first == again and first != other
    for r, round_ops in enumerate(first[1:], start=1):
        earlier = sum(op.kind == "add" for rnd in first[:r] for ops in rnd for op in ops)
        acting = [op for ops in round_ops for op in ops if op.kind != "add" and op.kind != "hot"]
        assert all(0 <= op.ref < earlier for op in acting)  # only notes of earlier rounds
        refs = [op.ref for op in acting]
        assert any(refs.count(ref) >= 2 for ref in refs)  # one note changed on two machines
