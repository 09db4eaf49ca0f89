"""The time a note takes to reach every teammate (issue 32.8), over a real git server.

    python bench/bench_team.py [--machines 5] [--every 20] [--duration 240] [--seed 1]
                               [--ratio-repeat 7] [--json out.json]

A team's server on loopback (tests/helpers/git_server.py: sshd with forced git-shell, `git
http-backend` behind lighttpd with basic auth); N machines (HOMEs with their own keys or stored
credentials; the first three quarters over ssh, the rest over http), default push policy
(`session-end`). Each machine starts a session every `--every` seconds (staggered), as a
harness would: the real SessionStart hook (pull within its 3 s cap, the brief on stdout); half
way through the session, with probability `--save`, it saves a note (`jacked memory add`); then
the real SessionEnd hook (its detached drain syncs and pushes). Saves stop `--tail` seconds
before the end, so every note has time to arrive.

Figures:
- **reach**: for each saved note and each other machine, the time from the save to the end of
  the first session start of that machine whose brief names the note; p50/p95 over all pairs,
  and over notes of the time until the last teammate has it ("reach all"); notes that never
  reached a teammate within the run are counted, not timed;
- **races**: session starts that found the vault diverged, pushes that failed (from the hooks'
  log lines and `status`);
- **sync vs git** (same run, same server): `jacked memory sync` of one new note when a teammate
  pushed another (fetch, merge, push) against plain `git pull --no-rebase` + `git push` of the
  same change on plain clones of a copy of the vault's repository, over ssh and over http,
  interleaved, `--ratio-repeat` times; medians and their ratio (the issue's budget: <= 1.5x),
  and the CLI's fixed cost beside them (`jacked memory --help`: a Python process and its imports).

`--stagger 0` starts every machine's sessions together (their session ends race to push).
`--link-delay S` holds each chunk S seconds in the proxies during the ratio (a server farther
than loopback: the network's share of both sides grows, the CLI's fixed cost does not).

Plain script, no pytest (it imports the test helpers, so install the test extras); every
figure is wall-clock time on this machine, printed with the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))
# Every CLI call a whole process with its own interpreter, as on a person's machine: the tests'
# fork server (tests/helpers/cli_fork.py) would time calls without their start.
os.environ["JACKED_TEST_SPAWN"] = "1"

from helpers.git_server import TeamServer, missing_servers  # noqa: E402
from helpers.team_world import GROUP, Machine, join, make_machine, wait_all  # noqa: E402

BUDGET_RATIO = 1.5


@dataclass
class Saved:
    title: str
    machine: str
    at: float  # monotonic seconds
    seen: dict[str, float] = field(default_factory=dict)  # machine -> seconds after the save


@dataclass
class Run:
    saved: list[Saved] = field(default_factory=list)
    starts: list[str] = field(default_factory=list)  # pull result of every session start
    pushes: list[str] = field(default_factory=list)  # last push result after each drain
    lock: threading.Lock = field(default_factory=threading.Lock)


def _pull_result(machine: Machine) -> str:
    line = next((entry for entry in reversed(machine.log()) if "hook=session-start" in entry), "")
    return line.split(" pull=", 1)[1].split(":", 1)[0].split()[0] if " pull=" in line else "?"


def _session(machine: Machine, k: int, run: Run, work_s: float, save: bool, tmp: Path) -> None:
    """One session of one machine: start (pull, brief), maybe a save half way, end (drain: push)."""
    ended = wait_all([machine.hook("session-start", machine.start_payload(f"{machine.name}-{k}"))], 60)[0]
    done = time.monotonic()
    brief = ended.out.decode(errors="replace")
    with run.lock:
        run.starts.append(_pull_result(machine))
        for note in run.saved:
            if note.machine != machine.name and machine.name not in note.seen and f"[{note.title}]" in brief:
                note.seen[machine.name] = done - note.at
    time.sleep(work_s / 2)
    if save:
        title = f"Bench note {machine.name} session {k}"
        proc = machine.cli("add", "--group", GROUP, "--title", title, "--body", f"Saved by {machine.name}.")
        if proc.returncode == 0:
            with run.lock:
                run.saved.append(Saved(title, machine.name, time.monotonic()))
    time.sleep(work_s / 2)
    transcript = tmp / f"{machine.name}-{k}.jsonl"
    transcript.write_text("")  # an empty session: the drain captures nothing and pushes
    from helpers.processes import run_mark, wait_exited

    mark = run_mark()
    wait_all([machine.hook("session-end", machine.end_payload(f"{machine.name}-{k}", transcript), **mark)], 60)
    wait_exited(mark, timeout_s=120)  # the drain's push, before this machine's next session
    pushed = machine.cli_json("status")["vault"].get("last_push") or {}
    with run.lock:
        run.pushes.append(str(pushed.get("result", "none yet")))


def team_reach(machines: list[Machine], args, tmp: Path) -> Run:
    run = Run()
    rng = random.Random(args.seed)
    stop_saving = args.duration - args.tail
    began = time.monotonic()

    def loop(i: int, machine: Machine) -> None:
        offset = args.every * args.stagger * i / len(machines)
        k = 0
        while True:
            at = offset + k * args.every
            if at > args.duration:
                return
            time.sleep(max(0.0, began + at - time.monotonic()))
            with run.lock:
                save = at < stop_saving and rng.random() < args.save
            _session(machine, k, run, args.every / 2, save, tmp)
            k += 1

    threads = [threading.Thread(target=loop, args=(i, m)) for i, m in enumerate(machines)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return run


def _pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _timed(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    started = time.monotonic()
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {proc.stderr}")
    return time.monotonic() - started


def sync_vs_git(server: TeamServer, machines: list[Machine], via: str, repeat: int, tmp: Path) -> dict:
    """`jacked memory sync` against `git pull --no-rebase` + `git push` of the same change."""
    mine = next(m for m in machines if m.via == via)
    theirs = next(m for m in machines if m is not mine)  # the teammate who pushed first, over its own link
    copy = server.repo.with_name(f"plain-{via}.git")
    subprocess.run(["git", "clone", "-q", "--bare", str(server.repo), str(copy)], check=True)
    plain = {}
    for machine in (mine, theirs):
        path = tmp / f"plain-{via}-{machine.name}"
        url = server.url(machine.via).replace(server.repo.name, copy.name)
        subprocess.run(["git", "clone", "-q", url, str(path)], check=True, env=machine.env(), capture_output=True)
        plain[machine.name] = path
    jacked_s, git_s = [], []
    for i in range(repeat):
        title = f"Ratio {via} {i}"
        # jacked: a teammate pushed a note; this machine saved one; sync fetches, merges, pushes
        assert theirs.cli("add", "--group", GROUP, "--title", f"{title} theirs", "--body", "b").returncode == 0
        assert theirs.cli("sync").returncode == 0
        assert mine.cli("add", "--group", GROUP, "--title", f"{title} mine", "--body", "b").returncode == 0
        env = mine.env()
        jacked_s.append(_timed([sys.executable, "-m", "jacked_vault.cli.main", "memory", "sync"], mine.code, env))
        # git: the same change on plain clones (a note-sized file each side, one commit each)
        for machine, side in ((theirs, "theirs"), (mine, "mine")):
            path = plain[machine.name]
            if side == "theirs":  # up to date first, as the teammate was when it pushed (not timed)
                subprocess.run(
                    ["git", "pull", "-q", "--no-rebase", "--no-edit"], cwd=path, env=machine.env(), check=True
                )
            note = path / "groups" / GROUP / "note" / f"ratio-{via}-{i}-{side}.md"
            note.parent.mkdir(parents=True, exist_ok=True)
            note.write_text((mine.vault / "groups" / GROUP / "note" / f"ratio-{via}-{i}-mine.md").read_text())
            for argv in (["git", "add", "-A"], ["git", "commit", "-qm", f"{title} {side}"]):
                subprocess.run(argv, cwd=path, env=machine.env(), check=True, capture_output=True)
            if side == "theirs":
                subprocess.run(["git", "push", "-q"], cwd=path, env=machine.env(), check=True, capture_output=True)
        path = plain[mine.name]
        git_s.append(
            _timed(["git", "pull", "-q", "--no-rebase", "--no-edit"], path, env)
            + _timed(["git", "push", "-q"], path, env)
        )
    floor_s = [
        _timed([sys.executable, "-m", "jacked_vault.cli.main", "memory", "--help"], mine.code, mine.env())
        for _ in range(repeat)
    ]
    sync_med, git_med = statistics.median(jacked_s), statistics.median(git_s)
    return {
        "via": via,
        "cli_start_median_s": round(statistics.median(floor_s), 3),
        "sync_median_s": round(sync_med, 3),
        "git_pull_push_median_s": round(git_med, 3),
        "ratio": round(sync_med / git_med, 2),
        "sync_s": [round(x, 3) for x in jacked_s],
        "git_s": [round(x, 3) for x in git_s],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--machines", type=int, default=5)
    parser.add_argument("--every", type=float, default=20.0, help="seconds between a machine's session starts")
    parser.add_argument("--duration", type=float, default=240.0, help="seconds of sessions")
    parser.add_argument("--tail", type=float, default=60.0, help="no saves in the last TAIL seconds")
    parser.add_argument("--save", type=float, default=0.5, help="chance a session saves a note")
    parser.add_argument("--stagger", type=float, default=1.0, help="1: starts spread over the interval; 0: together")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ratio-repeat", type=int, default=7)
    parser.add_argument(
        "--link-delay", type=float, default=0.0, help="seconds the proxies hold each chunk in the ratio (a far server)"
    )
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    reason = missing_servers()
    if reason:
        print(f"cannot run: {reason}")
        return 1
    print(f"load average {os.getloadavg()[0]:.2f}; {args.machines} machines, a session start every {args.every:g} s "
          f"each, {args.duration:g} s, seed {args.seed}")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="bench-team-") as folder:
        tmp = Path(folder)
        server = TeamServer.start(tmp / "server")
        try:
            ssh_count = max(1, round(args.machines * 0.6))
            machines = [
                make_machine(tmp, server, f"m{i}", "ssh" if i < ssh_count else "http") for i in range(args.machines)
            ]
            join(machines, server)
            run = team_reach(machines, args, tmp)
            for via in ("ssh", "http"):
                server.proxy(via).set("slow" if args.link_delay else "pass", args.link_delay)
            ratios = [sync_vs_git(server, machines, via, args.ratio_repeat, tmp) for via in ("ssh", "http")]
        finally:
            server.close()
    others = args.machines - 1
    pairs = [seconds for note in run.saved for seconds in note.seen.values()]
    reach_all = [max(note.seen.values()) for note in run.saved if len(note.seen) == others]
    missed = sum(others - len(note.seen) for note in run.saved)
    figures = {
        "notes_saved": len(run.saved),
        "reach_p50_s": _pct(pairs, 0.5),
        "reach_p95_s": _pct(pairs, 0.95),
        "reach_all_p50_s": _pct(reach_all, 0.5),
        "reach_all_p95_s": _pct(reach_all, 0.95),
        "pairs_not_reached": missed,
        "session_starts": {r: run.starts.count(r) for r in sorted(set(run.starts))},
        "pushes_after_session_end": {r: run.pushes.count(r) for r in sorted(set(run.pushes))},
        "sync_vs_git": ratios,
        "link_delay_s": args.link_delay,
        "load_average": os.getloadavg()[0],
    }
    print(f"notes saved {len(run.saved)}; teammate pairs reached {len(pairs)}, not reached {missed}")
    for name in ("reach_p50_s", "reach_p95_s", "reach_all_p50_s", "reach_all_p95_s"):
        value = figures[name]
        print(f"  {name:<16} {value:.1f}" if value is not None else f"  {name:<16} -")
    print(f"  session starts: {figures['session_starts']}; pushes: {figures['pushes_after_session_end']}")
    link = f"each chunk held {args.link_delay:g} s" if args.link_delay else "loopback, no delay"
    print(f"  sync vs git ({link}):")
    for ratio in ratios:
        verdict = "PASS" if ratio["ratio"] <= BUDGET_RATIO else "MISS"
        print(
            f"  sync over {ratio['via']}: {ratio['sync_median_s']:.3f} s vs git pull+push "
            f"{ratio['git_pull_push_median_s']:.3f} s = {ratio['ratio']:.2f}x (budget {BUDGET_RATIO}x) {verdict}; "
            f"the CLI's own start (`jacked memory --help`) {ratio['cli_start_median_s']:.3f} s"
        )
    print(f"load average {os.getloadavg()[0]:.2f}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
