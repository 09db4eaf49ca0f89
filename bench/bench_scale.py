"""Issue 34's budgets at 1k/10k/50k/100k/200k notes: each figure beside its comparison, in one run.

    python bench/bench_scale.py [--sizes 1000,10000,50000,100000,200000] [--vault-dir /tmp/bench-vaults]
                                [--keep] [--repeat 5] [--heavy-repeat 3] [--audit-lines 300000]

Every figure is a whole process (the real `jacked` CLI, `python -m jacked_vault.mcp`, the real
git), the median of its runs, its comparison run interleaved with it. Vaults come from
`bench/_vaultgen.py` (notes, their audit lines, index.md: what `doctor` accepts) and are cached
in `--vault-dir` as `n<N>-s<seed>` (reused when there; generated ones removed at the end unless
`--keep`; generating 200k takes about a quarter of an hour here, so keep it); each size works on a
copy, so the cached vault never changes. After the table: a PASS/MISS line per budget of the issue
and a projection to 500k and 1M notes (a line through the two largest sizes) naming the budget
that breaks first. The load average is printed with each size: the machine is shared, and wall
times grow with it. The MCP start is set beside a minimal server on the same SDK (one tool, the
SDK's own stdio transport), the comparison the issue names.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# what makes a measured process run this checkout's code: its cwd is a work folder, from which an
# editable install would import whatever checkout it points at
THIS_CODE = {"PYTHONPATH": str(ROOT)}
sys.path.insert(0, str(ROOT))

from bench._vaultgen import GIT, generate_vault, git_cli, write_audit_history, write_notes  # noqa: E402 - after sys.path
from jacked_vault.store.layout import state_dir  # noqa: E402 - after sys.path
from jacked_vault.store.machine_state import machine_id  # noqa: E402 - after sys.path

PY = sys.executable
WORD = "cache"  # a common word (in most notes)
ARRIVING = 1000  # notes fast-forwarded by sync
PROJECT_TO = (500_000, 1_000_000)
MIB = 1 << 20  # peak RSS is read in MiB; the budget is in MB
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "bench", "version": "0"}}}  # fmt: skip
# The comparison for the MCP start: a minimal server on the same SDK (the low-level `Server`
# ours is built on, one tool, the SDK's own stdio transport).
MINIMAL_SDK_SERVER = """
import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server


async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[types.Tool(name="echo", description="echo", input_schema={"type": "object"})])


async def call_tool(ctx, params):
    return types.CallToolResult(content=[types.TextContent(type="text", text="{}")])


server = Server("minimal", on_list_tools=list_tools, on_call_tool=call_tool)


async def main():
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


anyio.run(main)
"""


def log(text: str = "") -> None:
    print(text, flush=True)


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


# -- running whole processes ------------------------------------------------------------------


class Runner:
    """Runs commands as whole processes with the bench's environment; wall seconds and peak RSS."""

    def __init__(self, home: Path) -> None:
        home.mkdir(parents=True, exist_ok=True)
        (home / ".gitconfig").write_text(
            "[user]\n\tname = bench\n\temail = bench@localhost\n[commit]\n\tgpgsign = false\n"
        )
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("JACKED_")}
        self.env.update(HOME=str(home), JACKED_MEMORY_HARNESS="claude", GIT_CONFIG_NOSYSTEM="1", **THIS_CODE)
        self.cpu = 0.0

    def run(self, cmd: list[str], cwd: Path, *, vault: Path | None = None, check: bool = True) -> tuple[float, bytes]:
        """(wall seconds, stdout) of one process; its CPU seconds (and its children's) in `self.cpu`."""
        env = dict(self.env, JACKED_VAULT_DIR=str(vault)) if vault else self.env
        before = _children_cpu()
        started = time.perf_counter()
        proc = subprocess.run(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, check=False)
        wall = time.perf_counter() - started
        self.cpu = _children_cpu() - before
        if check and proc.returncode:
            raise RuntimeError(
                f"{' '.join(cmd[:6])}… exited {proc.returncode}: {proc.stderr.decode(errors='replace')[-1500:]}"
            )
        return wall, proc.stdout

    def jacked(self, vault: Path, *args: str, cwd: Path | None = None, check: bool = True) -> tuple[float, bytes]:
        return self.run(
            [PY, "-m", "jacked_vault.cli.main", "memory", *args], cwd or vault.parent, vault=vault, check=check
        )


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measured_rss(runner: Runner, cmd: list[str], cwd: Path, vault: Path | None = None) -> tuple[float, int]:
    """(wall s, peak RSS MiB) of `cmd`, read by a wrapper process that runs only it; its CPU
    seconds in `runner.cpu`."""
    code = (
        "import resource, subprocess, sys, time\n"
        "t = time.perf_counter(); r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, "
        "stderr=subprocess.DEVNULL)\n"
        "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print(time.perf_counter() - t, u.ru_maxrss, u.ru_utime + u.ru_stime, r.returncode)\n"
    )
    _, out = runner.run([PY, "-c", code, *cmd], cwd, vault=vault)
    wall, kib, cpu, _code = out.split()
    runner.cpu = float(cpu)
    return float(wall), int(kib) // 1024


def git_add_commit(plain: Path, runner: Runner, name: str) -> float:
    """Wall seconds of `git add` + `git commit` of one note-sized file in the plain clone (the
    comparison of an add); their CPU seconds in `runner.cpu`."""
    note = plain / "scratch" / f"n{name}.md"
    note.parent.mkdir(exist_ok=True)
    note.write_text(f"# Scale bench add {name}\n\nA small fact about the cache.\n")
    t, c = time.perf_counter(), _children_cpu()
    subprocess.run([*GIT, "add", str(note)], cwd=plain, check=True, env=runner.env)
    subprocess.run([*GIT, "commit", "-q", "-m", f"add {name}"], cwd=plain, check=True, env=runner.env)
    runner.cpu = _children_cpu() - c
    return time.perf_counter() - t


def med(samples: list[float]) -> float:
    return statistics.median(samples) if samples else float("nan")


def ms(seconds: float) -> str:
    if math.isnan(seconds):  # not measured in that run
        return "—"
    return f"{seconds * 1000:,.0f} ms" if seconds < 10 else f"{seconds:,.1f} s"


# -- vaults ----------------------------------------------------------------------------------


def cached_vault(base: Path, n: int, seed: int, made: list[Path]) -> Path:
    """The generated vault of `n` notes in `base` (generated there first when missing)."""
    target = base / f"n{n}-s{seed}"
    if (target / ".git").is_dir():
        log(f"vault: reusing {target}")
        return target
    tmp = base / f".tmp-n{n}-s{seed}-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    started = time.perf_counter()
    stats = generate_vault(tmp, n, seed=seed)
    tmp.rename(target)
    made.append(target)
    log(
        f"vault: generated {target} in {time.perf_counter() - started:.0f} s ({stats.audit_lines} audit lines, "
        "index.md per group)"
    )
    return target


def arrive(pusher: Path, n: int, seed: int) -> None:
    """Commit `n` new notes (with their audit lines, this month, a new machine) in `pusher` and push
    (after taking what the syncing clone pushed: its sync's own commit)."""
    git_cli(pusher, "pull", "-q", "--ff-only")
    now = datetime.now(UTC)
    _, events = write_notes(
        pusher, n, random.Random(seed), groups=50, now=now, spread_s=60, machines=(f"m-bench-arrive{seed}",)
    )
    write_audit_history(pusher, events)
    git_cli(pusher, "add", "-A")
    git_cli(pusher, "commit", "-q", "-m", f"bench: {n} notes arrive")
    git_cli(pusher, "push", "-q", "origin", "HEAD")


# -- one size --------------------------------------------------------------------------------


def run_size(n: int, cached: Path, work: Path, runner: Runner, args: argparse.Namespace) -> dict:
    r: dict = {"size": n, "load": os.getloadavg()[0]}
    rep, heavy = args.repeat, args.heavy_repeat
    log(f"\n=== {n:,} notes === (load average {load()})")
    vault = work / "vault"
    t = time.perf_counter()
    subprocess.run(["cp", "-a", str(cached), str(vault)], check=True)
    bare = work / "remote.git"
    runner.run([*GIT, "clone", "-q", "--bare", "--no-local", str(cached), str(bare)], work)
    runner.run([*GIT, "-C", str(vault), "remote", "add", "origin", str(bare)], work, check=False)
    plain = work / "plain"  # a plain git clone: git's side of every comparison
    runner.run([*GIT, "clone", "-q", str(bare), str(plain)], work)
    code = work / "code" / "g0"  # a repo of group g0 (its solo group), for the brief
    code.mkdir(parents=True)
    runner.run([*GIT, "init", "-q"], code)
    runner.run([*GIT, "remote", "add", "origin", "https://github.com/acme/g0.git"], code)
    log(f"setup: copy, bare remote, plain clone {time.perf_counter() - t:.0f} s")

    # first search after n notes arrive in one commit: the index built from nothing
    cold, cold_rss, grep_full, cpu_cold = [], 0, [], []
    for _ in range(heavy):
        for suffix in ("", "-wal", "-shm"):
            (state_dir(vault) / f"index.sqlite{suffix}").unlink(missing_ok=True)
        wall, rss = measured_rss(
            runner, [PY, "-m", "jacked_vault.cli.main", "memory", "search", WORD], vault.parent, vault
        )
        cold.append(wall)
        cpu_cold.append(runner.cpu)
        cold_rss = max(cold_rss, rss)
        grep_full.append(runner.run([*GIT, "grep", "-l", "-i", WORD], plain, check=False)[0])
    r["first_search_s"], r["first_search_rss"], r["git_grep_s"], r["first_search_cpu"] = (
        med(cold),
        cold_rss,
        med(grep_full),
        med(cpu_cold),
    )
    log(
        f"first search (index build): {ms(r['first_search_s'])} (cpu {ms(r['first_search_cpu'])}), {cold_rss} MiB  | "
        f"git grep -l: {ms(r['git_grep_s'])}"
    )
    if args.only == "first-search":
        return r

    # search (warm) and brief
    search, grep, brief, cpu = [], [], [], {"search": [], "grep": [], "brief": []}
    for _ in range(rep):
        search.append(runner.jacked(vault, "search", WORD)[0])
        cpu["search"].append(runner.cpu)
        grep.append(runner.run([*GIT, "grep", "-l", "-i", WORD], plain, check=False)[0])
        cpu["grep"].append(runner.cpu)
        brief.append(runner.jacked(vault, "brief", "--cwd", str(code), cwd=code)[0])
        cpu["brief"].append(runner.cpu)
    r["search_s"], r["grep_s"], r["brief_s"] = med(search), med(grep), med(brief)
    r["search_cpu"], r["grep_cpu"], r["brief_cpu"] = med(cpu["search"]), med(cpu["grep"]), med(cpu["brief"])
    log(
        f"search {WORD!r}: {ms(r['search_s'])} (cpu {ms(r['search_cpu'])}) | git grep -l: {ms(r['grep_s'])} (cpu "
        f"{ms(r['grep_cpu'])})"
        f" ({r['search_s'] / r['grep_s']:.2f}x)"
    )
    log(f"brief (SessionStart): {ms(r['brief_s'])} (cpu {ms(r['brief_cpu'])})")

    # add: CLI add vs git add + commit of a note-sized file, interleaved
    adds, gits, add_cpu, git_cpu = [], [], [], []
    for i in range(rep):
        adds.append(
            runner.jacked(
                vault,
                "add",
                "--group",
                "g1",
                "--kind",
                "fact",
                "--title",
                f"Scale bench add {i}",
                "--body",
                "A small fact about the cache.",
            )[0]
        )
        add_cpu.append(runner.cpu)
        gits.append(git_add_commit(plain, runner, str(i)))
        git_cpu.append(runner.cpu)
    r["add_s"], r["git_add_commit_s"], r["add_cpu"], r["git_add_commit_cpu"] = (
        med(adds),
        med(gits),
        med(add_cpu),
        med(git_cpu),
    )
    log(
        f"add: {ms(r['add_s'])} (cpu {ms(r['add_cpu'])}) | git add && git commit: {ms(r['git_add_commit_s'])} "
        f"({r['add_s'] / r['git_add_commit_s']:.2f}x)"
    )

    # MCP: start to first answer (vs a minimal server on the same SDK) and memory_save p50
    r.update(mcp_figures(runner, vault, code, rep))
    log(
        f"MCP start to first answer: {ms(r['mcp_first_s'])} (first search answered {ms(r['mcp_search_s'])}; server "
        f"cpu {ms(r['mcp_cpu'])}) | minimal SDK server: {ms(r['sdk_first_s'])} (first call answered "
        f"{ms(r['sdk_call_s'])}; cpu {ms(r['sdk_cpu'])}) ({r['mcp_first_s'] / r['sdk_first_s']:.2f}x); "
        f"memory_save p50 {ms(r['mcp_save_s'])} | git add && git commit {ms(r['git_add_commit_s'])} "
        f"({r['mcp_save_s'] / r['git_add_commit_s']:.2f}x)"
    )

    # busy month: this machine's month holds --month-lines lines, then add and memory_save again.
    # The first add after the fill also brings the index up to the fill's commit (as the first add
    # after any pull does): shown apart, not counted. Then each add is interleaved with its own
    # `git add && git commit`, as the small month's are, so both see the same disk and load.
    if args.month_lines and (ROOT / "bench" / "_audit_bench.py").is_file():
        busy = fill_this_month(vault, args.month_lines)

        def busy_add(i: int) -> float:
            fields = ("--group", "g1", "--kind", "fact", "--title", f"Scale bench busy {i}", "--body", "A busy fact.")
            return runner.jacked(vault, "add", *fields)[0]

        first_add = busy_add(-1)
        adds, gits = [], []
        for i in range(rep):
            adds.append(busy_add(i))
            gits.append(git_add_commit(plain, runner, f"busy{i}"))
        r["add_busy_s"], r["git_add_commit_busy_s"] = med(adds), med(gits)
        r["mcp_save_busy_s"] = mcp_figures(runner, vault, code, rep)["mcp_save_s"]
        log(
            f"busy month ({busy}): add {ms(r['add_busy_s'])} | git add && git commit: {ms(r['git_add_commit_busy_s'])}"
            f" ({r['add_busy_s'] / r['git_add_commit_busy_s']:.2f}x); the first add after the fill (catching the index"
            f" up): {ms(first_add)}; memory_save p50 {ms(r['mcp_save_busy_s'])}"
        )

    # doctor (wall, CPU, RSS) vs git status + git fsck --connectivity-only (issue 34.4: <= 1.5x), and doctor --full.
    # The budget's figure is doctor right after a commit (an `add`: what a person who works and then
    # checks meets), each round's own; doctor again on the same commit and the first doctor on this
    # copy (nothing of it kept yet: every object and note judged) are shown beside it.
    doctor = [PY, "-m", "jacked_vault.cli.main", "memory", "doctor"]
    r["doctor_first_s"], rss = measured_rss(runner, doctor, vault.parent, vault)
    docs, doc_cpu, again, stats, fscks, git_cpu = [], [], [], [], [], []
    for i in range(heavy):
        fields = ("--group", "g1", "--kind", "fact", "--title", f"Scale bench doctor {i}", "--body", "A checked fact.")
        runner.jacked(vault, "add", *fields)
        wall, peak = measured_rss(runner, doctor, vault.parent, vault)
        docs.append(wall)
        doc_cpu.append(runner.cpu)
        rss = max(rss, peak)
        again.append(runner.run(doctor, vault.parent, vault=vault, check=False)[0])
        stats.append(runner.run([*GIT, "status", "--porcelain"], vault)[0])
        cpu = runner.cpu
        fscks.append(runner.run([*GIT, "fsck", "--connectivity-only", "--no-progress"], vault)[0])
        git_cpu.append(cpu + runner.cpu)
    _, report = runner.jacked(vault, "doctor", "--json", check=False)
    r["doctor_s"], r["doctor_rss"], r["git_status_s"], r["doctor_cpu"] = med(docs), rss, med(stats), med(doc_cpu)
    r["doctor_again_s"] = med(again)
    r["git_fsck_conn_s"], r["git_status_fsck_cpu"] = med(fscks), med(git_cpu)
    r["git_status_fsck_s"] = med([a + b for a, b in zip(stats, fscks, strict=True)])
    r["doctor_ok"] = json.loads(report or b"{}").get("ok")
    wall, r["doctor_full_rss"] = measured_rss(runner, [*doctor, "--full"], vault.parent, vault)  # once: the slow one
    r["doctor_full_s"], r["doctor_full_cpu"] = wall, runner.cpu
    log(
        f"doctor after a commit: {ms(r['doctor_s'])} (cpu {ms(r['doctor_cpu'])}), {rss} MiB, ok={r['doctor_ok']} | "
        f"git status: {ms(r['git_status_s'])} + git fsck --connectivity-only: {ms(r['git_fsck_conn_s'])} (cpu "
        f"{ms(r['git_status_fsck_cpu'])}): {r['doctor_s'] / r['git_status_fsck_s']:.2f}x (cpu "
        f"{r['doctor_cpu'] / r['git_status_fsck_cpu']:.2f}x) | doctor again, nothing changed: "
        f"{ms(r['doctor_again_s'])} | the first doctor on this copy: {ms(r['doctor_first_s'])} | doctor --full "
        f"(once): {ms(r['doctor_full_s'])} (cpu {ms(r['doctor_full_cpu'])}), {r['doctor_full_rss']} MiB"
    )

    # init --from vs git clone
    inits, clones, cpu_init, cpu_clone = [], [], [], []
    for i in range(heavy):
        inits.append(runner.jacked(work / f"clone-{i}", "init", "--from", str(bare), cwd=work)[0])
        cpu_init.append(runner.cpu)
        clones.append(runner.run([*GIT, "clone", "-q", "--no-local", str(bare), str(work / f"git-clone-{i}")], work)[0])
        cpu_clone.append(runner.cpu)
    r["init_from_s"], r["git_clone_s"], r["init_from_cpu"], r["git_clone_cpu"] = (
        med(inits),
        med(clones),
        med(cpu_init),
        med(cpu_clone),
    )
    log(
        f"init --from: {ms(r['init_from_s'])} (cpu {ms(r['init_from_cpu'])}) | git clone: {ms(r['git_clone_s'])} (cpu "
        f"{ms(r['git_clone_cpu'])}) ({r['init_from_s'] / r['git_clone_s']:.2f}x)"
    )

    # sync fast-forwarding ARRIVING notes vs git pull --ff-only of the same commit
    pusher, puller = work / "git-clone-0", work / "puller"
    runner.run([*GIT, "clone", "-q", str(bare), str(puller)], work)
    syncs, pulls, cpu_sync = [], [], []
    for i in range(heavy):
        arrive(pusher, ARRIVING, seed=1000 + i)
        syncs.append(runner.jacked(work / "clone-0", "sync")[0])
        cpu_sync.append(runner.cpu)
        pulls.append(runner.run([*GIT, "pull", "-q", "--ff-only"], puller)[0])
    r["sync_ff_s"], r["git_pull_s"], r["sync_ff_cpu"] = med(syncs), med(pulls), med(cpu_sync)
    log(
        f"sync fast-forwarding {ARRIVING} notes: {ms(r['sync_ff_s'])} (cpu {ms(r['sync_ff_cpu'])}) | git pull "
        f"--ff-only: {ms(r['git_pull_s'])} ({r['sync_ff_s'] / r['git_pull_s']:.1f}x)"
    )

    # `--arrive-big` notes arrive in one commit through `sync` (which judges them and brings the index
    # up to date), then the first search: the product's own path, beside the cold build above
    if args.arrive_big:
        arrive(pusher, args.arrive_big, seed=2000)
        r["sync_big_s"] = runner.jacked(work / "clone-0", "sync")[0]
        r["sync_big_cpu"] = runner.cpu
        r["search_after_sync_s"] = runner.jacked(work / "clone-0", "search", WORD)[0]
        r["git_pull_big_s"] = runner.run([*GIT, "pull", "-q", "--ff-only"], puller)[0]
        log(
            f"sync bringing {args.arrive_big:,} notes in one commit: {ms(r['sync_big_s'])} (cpu "
            f"{ms(r['sync_big_cpu'])}), then the first search {ms(r['search_after_sync_s'])} | git pull --ff-only: "
            f"{ms(r['git_pull_big_s'])}"
        )

    # a sparse checkout of one group: what doctor says
    sparse = work / "clone-0"
    runner.run([*GIT, "sparse-checkout", "set", "--no-cone", "/*", "!/groups/*/", "/groups/g0/"], sparse)
    wall, report = runner.jacked(sparse, "doctor", "--json", check=False)
    found = json.loads(report or b"{}")
    r["sparse_doctor_s"], r["sparse_doctor_ok"] = wall, found.get("ok")
    r["sparse_doctor_uncommitted"] = len(found.get("uncommitted", []))
    log(
        f"sparse checkout of groups/g0: doctor {ms(wall)}, ok={found.get('ok')}, {r['sparse_doctor_uncommitted']} "
        "'uncommitted' entries"
    )
    return r


def fill_this_month(vault: Path, lines: int) -> str:
    """This machine's audit month holds `lines` more lines, committed (engineer A's helper)."""
    from bench._audit_bench import fill_month

    fill_month(vault, machine_id(state_dir(vault)), lines)
    return f"{lines:,} lines"


def _rpc(proc, message: dict) -> dict:
    proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()
    return json.loads(proc.stdout.readline())


def _call(proc, rid: int, name: str, arguments: dict) -> dict:
    answer = _rpc(proc, {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                         "params": {"name": name, "arguments": arguments}})  # fmt: skip
    assert not answer["result"].get("isError"), answer
    return answer


def mcp_figures(runner: Runner, vault: Path, code: Path, rep: int) -> dict:
    """Ours and a minimal server on the same SDK, spawns interleaved: spawn -> `initialize` answered
    and spawn -> the first tool call answered (our `memory_search`, its `echo`), medians of `rep`;
    memory_save p50 over `rep` saves on our first server; each server's CPU for its whole life
    (start, two answers, exit) on the later spawns."""
    env = dict(runner.env, JACKED_VAULT_DIR=str(vault), JACKED_MEMORY_REPO=str(code))
    ours = ([PY, "-m", "jacked_vault.mcp"], ("memory_search", {"query": WORD}))
    minimal = ([PY, "-c", MINIMAL_SDK_SERVER], ("echo", {}))
    got: dict[str, list[float]] = {k: [] for k in ("first", "search", "sdk_first", "sdk_call", "cpu", "sdk_cpu")}
    saves: list[float] = []
    for i in range(rep):
        for (cmd, (tool, arguments)), tag in ((ours, ""), (minimal, "sdk_")):
            started = time.perf_counter()
            proc = subprocess.Popen(
                cmd, cwd=code, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
            )
            _rpc(proc, INIT)
            got[f"{tag}first"].append(time.perf_counter() - started)
            proc.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
            _call(proc, 2, tool, arguments)
            got["sdk_call" if tag else "search"].append(time.perf_counter() - started)
            if not tag and i == 0:
                for k in range(rep):
                    t = time.perf_counter()
                    title = f"Scale bench save {k} {time.time_ns()}"
                    _call(proc, 10 + k, "memory_save", {"title": title, "body": "A saved fact.", "kind": "fact"})
                    saves.append(time.perf_counter() - t)
            proc.stdin.close()
            _, _, usage = os.wait4(proc.pid, 0)
            proc.returncode = 0
            if i > 0 or tag:
                got[f"{tag}cpu"].append(usage.ru_utime + usage.ru_stime)
    return {
        "mcp_first_s": med(got["first"]),
        "mcp_search_s": med(got["search"]),
        "sdk_first_s": med(got["sdk_first"]),
        "sdk_call_s": med(got["sdk_call"]),
        "mcp_save_s": med(saves),
        "mcp_cpu": med(got["cpu"]),
        "sdk_cpu": med(got["sdk_cpu"]),
    }


def interleaved_flat(runner: Runner, vaults: dict[int, Path], code: Path, rounds: int) -> None:
    """brief and search on every size's cached vault in turn, `rounds` times, so each size sees
    the same load: the fair test of 'flat in n' on a shared machine (each vault's index built first)."""
    for vault in vaults.values():
        runner.jacked(vault, "search", WORD, cwd=code)
    got: dict[tuple[int, str], list[tuple[float, float]]] = {}
    for _ in range(rounds):
        for n, vault in vaults.items():
            for name, args in (("brief", ("brief", "--cwd", str(code))), ("search", ("search", WORD))):
                wall, _ = runner.jacked(vault, *args, cwd=code)
                got.setdefault((n, name), []).append((wall, runner.cpu))
    log(f"\n## brief and search interleaved over the cached vaults ({rounds} rounds; load average {load()})")
    for name in ("brief", "search"):
        cells = [
            f"{n:,}: {ms(med([w for w, _ in got[(n, name)]]))} (cpu {ms(med([c for _, c in got[(n, name)]]))})"
            for n in vaults
        ]
        first, last = (med([c for _, c in got[(n, name)]]) for n in (min(vaults), max(vaults)))
        log(f"  {name:7} {' | '.join(cells)}  cpu {last / first:.2f}x from {min(vaults):,} to {max(vaults):,}")


# What the MCP server's start imports, cumulative (`python -X importtime`, min of 3 starts).
MCP_IMPORTS = (
    ("jacked_vault.mcp.server", "our server module (SDK not imported yet)"),
    ("pydantic", "pydantic"),
    ("mcp_types", "mcp_types: the SDK's pydantic wire types"),
    ("mcp.types", "mcp.types: per-protocol-version method types"),
    ("mcp.client", "mcp.client (imported by mcp/__init__)"),
    ("mcp.server.lowlevel", "mcp.server.lowlevel (the stdio session)"),
    ("mcp.server.mcpserver", "mcp.server.mcpserver (tools, prompts)"),
    ("mcp.server.streamable_http", "HTTP transport (starlette, sse, uvicorn)"),
    ("mcp", "all of `import mcp`"),
)
IMPORT_PROBE = "from jacked_vault.mcp.server import Settings, build_server\nbuild_server(Settings.from_env())\n"


def mcp_import_costs(runner: Runner, vault: Path) -> None:
    """Print which import costs what when the MCP server starts (-X importtime, cumulative µs)."""
    import re

    best: dict[str, int] = {}
    for _ in range(3):
        env = dict(runner.env, JACKED_VAULT_DIR=str(vault))
        err = subprocess.run(
            [PY, "-X", "importtime", "-c", IMPORT_PROBE],
            cwd=vault.parent,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stderr
        for m in re.finditer(r"import time:\s+\d+ \|\s+(\d+) \|\s+(\S+)", err):
            best[m.group(2)] = min(best.get(m.group(2), 1 << 60), int(m.group(1)))
    log(f"\n## MCP start: what the imports cost (python -X importtime, cumulative, min of 3; load average {load()})")
    whole = best.get("mcp", 0)
    for name, label in MCP_IMPORTS:
        if name in best:
            log(f"  {label:48} {best[name] / 1000:8.1f} ms  {best[name] / whole:5.0%} of `import mcp`" if whole else "")


# -- budgets and projection ------------------------------------------------------------------


def worst_scan() -> dict:
    """The secret scanner's worst shape (`bench_secrets.worst_shapes`, 64 KiB each): its CPU ms per
    call, in this process (the scanner is a library call; CPU, since the machine is shared), timed
    as bench_secrets.py times it (`worst_shape_ms`: the lowest of its passes' medians)."""
    from bench.bench_secrets import lowest, worst_shape_ms
    from jacked_vault.safety.secrets import scan_text

    figures = {name: lowest(passes)[1] for name, passes in worst_shape_ms(scan_text).items()}
    shape = max(figures, key=figures.__getitem__)
    log(f"\n## worst-case secret scan, 64 KiB shapes (cpu ms a call; load average {load()})")
    log("  " + " | ".join(f"{name}: {cpu:.2f}" for name, cpu in figures.items()))
    return {"worst_ms_per_64k": figures[shape], "shape": shape}


def budgets(rows: list[dict], audit: dict | None, scan: dict | None) -> list[tuple[str, bool | None, str]]:
    """(budget, met (None: not measured in this run), the figure) for each budget of issue 34, then
    issue 21's that still hold (the audit month, sync fast-forward)."""
    by = {r["size"]: r for r in rows}
    out: list[tuple[str, bool | None, str]] = []

    def at(n: int, name: str, check) -> None:
        if n not in by:
            out.append((name, None, f"{n:,} not in --sizes"))
        elif any(key not in by[n] for key in _needs(check)):
            out.append((name, None, "not measured at this size in this run"))
        else:
            try:
                out.append((name, *check(by[n])))
            except KeyError:  # a figure its check reads was not measured in this run (--only)
                out.append((name, None, "not measured at this size in this run"))

    def add_ratio(limit: float):
        def check(r: dict) -> tuple[bool, str]:
            # each month's adds against the git runs interleaved with them (an older --rows file
            # has no busy-month git figure: its busy adds are set against the small month's)
            months = [(r["add_s"], r["git_add_commit_s"], "small")]
            if "add_busy_s" in r:  # not measured under --month-lines 0
                months.append((r["add_busy_s"], r.get("git_add_commit_busy_s", r["git_add_commit_s"]), "busy"))
            worst = max(months, key=lambda m: m[0] / m[1])
            cpu = (
                f"; cpu {r['add_cpu'] / r['git_add_commit_cpu']:.2f}x, small month" if "git_add_commit_cpu" in r else ""
            )
            return (
                worst[0] / worst[1] <= limit,
                f"{worst[0] / worst[1]:.2f}x ({ms(worst[0])} vs {ms(worst[1])}; the worse of small and busy month:"
                f" {worst[2]}{cpu})",
            )

        check.needs = ("add_s", "git_add_commit_s")  # type: ignore[attr-defined]
        return check

    def first_search(r: dict) -> tuple[bool, str]:
        per_note = r["first_search_cpu"] * 1000 / r["size"]
        through_sync = (
            f"; through sync: sync {ms(r['sync_big_s'])}, then the first search {ms(r['search_after_sync_s'])}"
            if "sync_big_s" in r
            else ""
        )
        return (
            r["first_search_s"] <= 2.0 and per_note <= 0.35,
            f"{ms(r['first_search_s'])}, cpu {per_note:.3f} ms a note (the cold build: no index){through_sync}",
        )

    at(10_000, "first search after 10k notes arrive ≤ 2.0 s and ≤ 0.35 ms CPU a note", first_search)
    at(
        50_000,
        "init --from ≤ 5× git clone at 50k",  # noqa: RUF001 - the multiplication sign is meant
        lambda r: (
            r["init_from_s"] <= 5 * r["git_clone_s"],
            f"{r['init_from_s'] / r['git_clone_s']:.1f}x ({ms(r['init_from_s'])} vs {ms(r['git_clone_s'])}; cpu "
            f"{r['init_from_cpu'] / r['git_clone_cpu']:.1f}x)",
        ),
    )
    if scan is None:
        out.append(("worst-case scan ≤ 10 ms per 64 KB of any shape", None, "bench/bench_secrets.py not run here"))
    else:
        out.append(
            (
                "worst-case scan ≤ 10 ms per 64 KB of any shape",
                scan["worst_ms_per_64k"] <= 10,
                f"{scan['worst_ms_per_64k']:.2f} ms ({scan['shape']})",
            )
        )
    at(10_000, "CLI add ≤ 3× git add && git commit at 10k", add_ratio(3.0))  # noqa: RUF001 - the multiplication sign is meant
    at(100_000, "CLI add ≤ 1.0× git add && git commit at 100k", add_ratio(1.0))  # noqa: RUF001 - the multiplication sign is meant
    at(
        10_000,
        "MCP memory_save p50 ≤ 1.0× git add && git commit at 10k",  # noqa: RUF001 - the multiplication sign is meant
        lambda r: (
            r["mcp_save_s"] <= r["git_add_commit_s"],
            f"{r['mcp_save_s'] / r['git_add_commit_s']:.2f}x ({ms(r['mcp_save_s'])} vs {ms(r['git_add_commit_s'])})",
        ),
    )
    measured = [r for r in rows if "sdk_first_s" in r]
    if measured:
        worst = max(measured, key=lambda r: r["mcp_first_s"] / r["sdk_first_s"])
        out.append(
            (
                "MCP first answer ≤ 1.2× a minimal server on the same SDK",  # noqa: RUF001 - the multiplication sign is meant
                worst["mcp_first_s"] <= 1.2 * worst["sdk_first_s"],
                f"{worst['mcp_first_s'] / worst['sdk_first_s']:.2f}x ({ms(worst['mcp_first_s'])} vs "
                f"{ms(worst['sdk_first_s'])}, worst size {worst['size']:,}; to the first tool answer "
                f"{worst['mcp_search_s'] / worst['sdk_call_s']:.2f}x)",
            )
        )
    at(
        10_000,
        "search ≤ 1.0× git grep -l at 10k",  # noqa: RUF001 - the multiplication sign is meant
        lambda r: (
            r["search_s"] <= r["grep_s"],
            f"{r['search_s'] / r['grep_s']:.2f}x ({ms(r['search_s'])} vs {ms(r['grep_s'])}; cpu "
            f"{r['search_cpu'] / r['grep_cpu']:.2f}x)",
        ),
    )
    if len(rows) > 1:
        lo, hi = rows[0], rows[-1]
        ratio = hi["brief_s"] / lo["brief_s"]
        cpu = (
            f"; cpu {ms(lo['brief_cpu'])} -> {ms(hi['brief_cpu'])} ({hi['brief_cpu'] / lo['brief_cpu']:.2f}x)"
            if "brief_cpu" in lo and "brief_cpu" in hi
            else ""
        )
        out.append(
            (
                f"brief flat within ±20% from 1k to 200k (sizes here: {lo['size']:,} to {hi['size']:,})",
                0.8 <= ratio <= 1.2,
                f"{ms(lo['brief_s'])} -> {ms(hi['brief_s'])} ({ratio:.2f}x){cpu}",
            )
        )
    at(
        200_000,
        "doctor ≤ 100 MB at 200k",
        lambda r: (r["doctor_rss"] * MIB <= 100e6, f"{r['doctor_rss']} MiB = {r['doctor_rss'] * MIB / 1e6:.1f} MB"),
    )
    doctor_time = lambda r: (  # noqa: E731 - one expression, named for its `needs`
        r["doctor_s"] <= 1.5 * r["git_status_fsck_s"],
        f"{r['doctor_s'] / r['git_status_fsck_s']:.2f}x ({ms(r['doctor_s'])} vs {ms(r['git_status_fsck_s'])}; cpu "
        f"{r['doctor_cpu'] / r['git_status_fsck_cpu']:.2f}x)",
    )
    doctor_time.needs = ("doctor_s", "git_status_fsck_s")  # type: ignore[attr-defined]
    at(100_000, "doctor after a commit ≤ 1.5× git status + git fsck --connectivity-only at 100k", doctor_time)  # noqa: RUF001 - the multiplication sign is meant
    # issue 21's, still held
    if audit:
        out.append((f"(issue 21) add with {audit['lines']:,} audit lines this month ≤ 1.2× an empty month",  # noqa: RUF001 - the multiplication sign is meant
                    audit["met"], f"{audit['ratio']}x ({audit['add_busy_month_ms']} vs "
                    f"{audit['add_empty_month_ms']} ms)"))  # fmt: skip
    for r in (r for r in rows if "sync_ff_s" in r):  # measured (not with --only)
        out.append(
            (
                f"(issue 21) sync fast-forward of {ARRIVING} notes ≤ 10× git pull at {r['size']:,}",  # noqa: RUF001 - the multiplication sign is meant
                r["sync_ff_s"] <= 10 * r["git_pull_s"],
                f"{r['sync_ff_s'] / r['git_pull_s']:.1f}x",
            )
        )
    return out


def _needs(check) -> tuple[str, ...]:
    """The row keys a budget's check reads (an earlier run's row may lack the newer ones)."""
    return getattr(check, "needs", ())


# (figure, its comparison or None, bound, label): what the projection checks. A comparison of
# "size" makes the figure per note; "first" sets it against the smallest size's.
PROJECTED = (
    ("build_ms_per_note", None, 0.35, "index build cpu ms a note (≤ 0.35)"),
    ("init_from_s", "git_clone_s", 5.0, "init --from / git clone (≤ 5×)"),  # noqa: RUF001 - the multiplication sign is meant
    ("add_s", "git_add_commit_s", 1.0, "CLI add / git add+commit (≤ 1.0× at 100k)"),  # noqa: RUF001 - the multiplication sign is meant
    ("mcp_save_s", "git_add_commit_s", 1.0, "memory_save / git add+commit (≤ 1.0×)"),  # noqa: RUF001 - the multiplication sign is meant
    ("mcp_first_s", "sdk_first_s", 1.2, "MCP first answer / minimal SDK server (≤ 1.2×)"),  # noqa: RUF001 - the multiplication sign is meant
    ("search_s", "grep_s", 1.0, "search / git grep -l (≤ 1.0×)"),  # noqa: RUF001 - the multiplication sign is meant
    ("brief_s", "first", 1.2, "brief / brief at the smallest size (≤ 1.2×)"),  # noqa: RUF001 - the multiplication sign is meant
    ("doctor_rss", None, 100e6 / MIB, "doctor RSS MiB (≤ 95.4 MiB = 100 MB)"),
    ("doctor_s", "git_status_fsck_s", 1.5, "doctor after a commit / git status + fsck (≤ 1.5×)"),  # noqa: RUF001 - the multiplication sign is meant
)


def projection(rows: list[dict]) -> None:
    """A line through the two largest sizes, for each figure and its comparison, out to 500k and
    1M; neither is taken to get faster than at the largest size (a falling line is noise)."""
    if len(rows) < 2:
        log("\nprojection: needs two sizes")
        return
    a, b = rows[-2], rows[-1]
    for r in rows:
        if "first_search_cpu" in r:
            r["build_ms_per_note"] = r["first_search_cpu"] * 1000 / r["size"]

    def line(key: str, n: float) -> float:
        slope = (b[key] - a[key]) / (b["size"] - a["size"])
        return max(b[key], b[key] + slope * (n - b["size"]))

    far = PROJECT_TO[-1]
    log(
        f"\n## Projection to {' and '.join(f'{n:,}' for n in PROJECT_TO)} notes (a line through {a['size']:,} and "
        f"{b['size']:,}, never below the {b['size']:,} figure)"
    )
    over, first = [], None
    for key, versus, bound, label in PROJECTED:
        if any(k not in r for r in (a, b) for k in (key, versus) if k not in (None, "first")):
            log(f"  {label:52} not measured at both sizes")
            continue

        def value(n: float, key: str = key, versus: str | None = versus) -> float:
            if versus == "first":
                return line(key, n) / rows[0][key]
            return line(key, n) / line(versus, n) if versus else line(key, n)

        now = value(b["size"])
        breaks = next((n for n in range(b["size"], 10 * far + 1, 1000) if value(n) > bound), None)
        where = "over already" if now > bound else (f"crosses at ~{breaks:,}" if breaks else "holds past 10M")
        projected = "  ".join(f"at {n:,}: {value(n):8.2f}" for n in PROJECT_TO)
        log(f"  {label:52} at {b['size']:>7,}: {now:8.2f}  {projected}  {where}")
        if now > bound:
            over.append(label)
        elif breaks is not None and (first is None or breaks < first[0]):
            first = (breaks, label)
    if over:
        log(f"over their bound already at {b['size']:,}: {'; '.join(over)}")
    log(
        f"first of the others to break: {first[1]} at ~{first[0]:,} notes"
        if first
        else "none of the others breaks before 10M notes on these lines"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,50000,100000,200000")
    parser.add_argument(
        "--vault-dir", type=Path, default=Path("/tmp/bench-vaults"), help="where generated vaults are cached"
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep the vaults this run generates (those already there are always kept)"
    )
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--repeat", type=int, default=5, help="runs of each light figure (median)")
    parser.add_argument(
        "--heavy-repeat", type=int, default=3, help="runs of index build, doctor, init --from, sync (median)"
    )
    parser.add_argument(
        "--month-lines",
        type=int,
        default=100_000,
        help="lines in this machine's month for the busy-month add (0: skip)",
    )
    parser.add_argument(
        "--audit-lines", type=int, default=300_000, help="the audit row (engineer A's bench/_audit_bench.py; 0: skip)"
    )
    parser.add_argument(
        "--arrive-big", type=int, default=10_000,
        help="notes that then arrive in one commit through sync, before the first search (0: skip)",
    )  # fmt: skip
    parser.add_argument("--no-scan", dest="scan", action="store_false",
                        help="skip the worst-case secret scan (bench_secrets.py's worst shapes)")  # fmt: skip
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--only", choices=["first-search"],
                        help="only this row at each size (no audit, scan or interleaved rows)")  # fmt: skip
    parser.add_argument("--interleaved", type=int, default=7, metavar="ROUNDS",
                        help="brief and search on every cached vault in turn, ROUNDS times "
                             "(0: skip; needs two cached sizes)")  # fmt: skip
    parser.add_argument("--rows", type=Path, action="append", default=[],
                        help="a --json file of an earlier run: its sizes join the table, budgets and projection "
                             "(marked)")  # fmt: skip
    args = parser.parse_args()
    if args.only:
        args.audit_lines, args.scan, args.interleaved = 0, False, 0
    sizes = [int(s) for s in args.sizes.split(",") if s]
    args.vault_dir.mkdir(parents=True, exist_ok=True)
    head = subprocess.run(
        ["git", "-C", str(ROOT), "log", "--oneline", "-1"], capture_output=True, text=True, check=False
    ).stdout.strip()
    status = subprocess.run(
        ["git", "-C", str(ROOT), "status", "--porcelain", "jacked_vault"], capture_output=True, text=True, check=False
    )
    dirty = len(status.stdout.splitlines())
    log(
        f"# bench_scale: sizes {sizes}, repeat {args.repeat}/{args.heavy_repeat}; {os.cpu_count()} CPUs; load average "
        f"{load()}"
    )
    log(f"# jacked_vault from {ROOT} at {head} ({dirty} changed files in jacked_vault/)")
    probe = subprocess.run(
        [PY, "-c", "import jacked_vault; print(jacked_vault.__file__)"],
        cwd="/", env={**os.environ, **THIS_CODE}, capture_output=True, text=True, check=True,
    )  # fmt: skip
    log(f"# the measured processes import {Path(probe.stdout.strip()).parent}")
    # An installed package has its bytecode (pip compiles it); a checkout under
    # PYTHONDONTWRITEBYTECODE=1 would compile every module in every measured process (~50 ms each).
    import compileall

    compileall.compile_dir(str(ROOT / "jacked_vault"), quiet=1)
    flag = os.environ.get("PYTHONDONTWRITEBYTECODE", "")
    log(f"# bytecode compiled before measuring (PYTHONDONTWRITEBYTECODE={flag!r})")
    made: list[Path] = []
    rows: list[dict] = []
    audit_row = None
    try:
        if args.audit_lines and not (ROOT / "bench" / "_audit_bench.py").is_file():
            log("\naudit row: bench/_audit_bench.py (engineer A's) is not here; skipped")
        elif args.audit_lines:
            from bench._audit_bench import audit_add_figures

            log(
                f"\n=== add with {args.audit_lines:,} audit lines this month (1-note vaults) === (load average "
                f"{load()})"
            )
            audit_row = audit_add_figures(args.audit_lines, runs=args.repeat)
            log(
                f"add: {audit_row['add_busy_month_ms']} ms, {audit_row['rss_busy_kib'] // 1024} MiB | empty month: "
                f"{audit_row['add_empty_month_ms']} ms,"
                f" {audit_row['rss_empty_kib'] // 1024} MiB ({audit_row['ratio']}x); largest audit file "
                f"{audit_row['largest_audit_file_bytes']:,} B"
            )
        for n in sizes:
            cached = cached_vault(args.vault_dir, n, args.seed, made)
            if n == sizes[0] and not args.only:
                mcp_import_costs(Runner(args.vault_dir / "home-imports"), cached)
            with tempfile.TemporaryDirectory(prefix=f"scale-{n}-", dir=args.vault_dir) as tmp:
                work = Path(tmp)
                rows.append(run_size(n, cached, work, Runner(work / "home"), args))
    finally:
        if not args.keep:
            for path in made:
                shutil.rmtree(path, ignore_errors=True)
    for earlier in args.rows:
        saved = json.loads(earlier.read_text())
        ran = {r["size"] for r in rows}
        for r in saved["rows"]:
            if r["size"] not in ran:
                rows.append({**r, "from": str(earlier)})
                log(f"\n(rows of {r['size']:,} notes from {earlier}, an earlier run)")
        audit_row = audit_row or saved.get("audit")
    rows.sort(key=lambda r: r["size"])
    cached = {
        n: args.vault_dir / f"n{n}-s{args.seed}"
        for n in sorted(int(p.name[1:].split("-")[0]) for p in args.vault_dir.glob(f"n*-s{args.seed}"))
    }
    if args.interleaved and len(cached) > 1:
        home = args.vault_dir / "home-interleaved"
        code = home / "code" / "g0"
        if not code.is_dir():
            code.mkdir(parents=True)
            subprocess.run([*GIT, "init", "-q"], cwd=code, check=True)
            subprocess.run([*GIT, "remote", "add", "origin", "https://github.com/acme/g0.git"], cwd=code, check=True)
        interleaved_flat(Runner(home), cached, code, args.interleaved)
    if not rows:
        return
    log("\n## Table (medians of whole processes; comparison from the same run; * rows from an earlier run, --rows)")
    cols = [("size", "notes"), ("add_s", "add"), ("git_add_commit_s", "git a+c"), ("mcp_save_s", "mcp save"),
            ("first_search_s", "1st search"), ("git_grep_s", "git grep"), ("init_from_s", "init --from"),
            ("git_clone_s", "git clone"), ("sync_ff_s", "sync ff"), ("git_pull_s", "git pull"), ("doctor_s", "doctor"),
            ("doctor_rss", "doctor MiB"), ("git_status_fsck_s", "git st+fsck"), ("doctor_full_s", "doctor --full"),
            ("brief_s", "brief"), ("search_s", "search"),
            ("grep_s", "git grep"), ("mcp_first_s", "mcp 1st"), ("sdk_first_s", "sdk 1st")]  # fmt: skip
    log(" | ".join(label for _, label in cols))
    for r in rows:
        log(
            " | ".join(
                f"{r[k]:,}{'*' if k == 'size' and 'from' in r else ''}"
                if k in ("size", "doctor_rss") and k in r
                else ms(r.get(k, math.nan))
                for k, _ in cols
            )
        )
    log("\n## CPU time of the same processes (user + sys, medians: what other load does not inflate)")
    cpu_cols = [("add_cpu", "add"), ("git_add_commit_cpu", "git a+c"), ("first_search_cpu", "1st search"),
                ("search_cpu", "search"), ("grep_cpu", "git grep"), ("brief_cpu", "brief"), ("doctor_cpu", "doctor"),
                ("git_status_fsck_cpu", "git st+fsck"),
                ("init_from_cpu", "init --from"), ("git_clone_cpu", "git clone"), ("sync_ff_cpu", "sync ff"),
                ("mcp_cpu", "mcp server")]  # fmt: skip
    log(" | ".join(["notes", *(label for _, label in cpu_cols)]))
    for r in rows:
        log(" | ".join([f"{r['size']:,}", *(ms(r.get(k, float("nan"))) for k, _ in cpu_cols)]))
    scan_row = worst_scan() if args.scan else None
    log("\n## Budgets")
    for name, met, figure in budgets(rows, audit_row, scan_row):
        log(f"{'PASS' if met else 'MISS' if met is not None else 'n/a '}  {name}: {figure}")
    projection(rows)
    if args.json:
        args.json.write_text(json.dumps({"rows": [r for r in rows if "from" not in r], "audit": audit_row}, indent=1))


if __name__ == "__main__":
    main()
