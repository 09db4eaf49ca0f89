"""Does the lean parser (`cli/lean.py`) earn its place next to typer? (issue 22 item 6)

Runs the hot commands (`add`, `search`, `read`, `brief`) as whole processes on a copy of a
vault, once through the lean path (`cli.main.main`, which takes `cli.lean` for plain
arguments) and once forced through typer (`cli.main._run_typer`, what `main` falls back to),
interleaved round by round (the order flips every round, so other load hits both sides alike).
Both sides start the same way (`python -c`, the same driver). Prints the medians of wall time
and of the child's CPU time (user+sys, `RUSAGE_CHILDREN`), the saving per command, and the
decision: the lean path stays if it saves at least `--threshold` ms (wall) on the hot commands.
The SessionStart hook (`jacked _hook session-start`) is dispatched before either parser is
imported, so it is measured once per round as a reference (and `git --version` as a floor).

Usage: python bench/bench_cli_paths.py [--vault /tmp/bench-vaults/n1000-s1234] [--repeat 15]
The source vault is copied (`cp -a`) to a temporary folder and never written.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PY = sys.executable
DRIVER = (
    "import sys\n"
    "from jacked_vault.cli import main as m\n"
    "path, args = sys.argv[1], sys.argv[2:]\n"
    "code = m.main(args) if path.startswith('lean') else m._run_typer(args)\n"
    "if path.endswith('-check'):\n"
    "    sys.stderr.write('\\nTYPER=' + str('typer' in sys.modules) + '\\n')\n"
    "sys.exit(code)\n"
)
PATHS = ("lean", "typer")


def _env(vault: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JACKED_") and k != "PYTHONDONTWRITEBYTECODE"}
    env.update(JACKED_VAULT_DIR=str(vault), HOME=str(vault.parent), GIT_TERMINAL_PROMPT="0")
    return env


def run(
    argv: list[str], env: dict, cwd: Path, stdin: bytes | None = None
) -> tuple[float, float, subprocess.CompletedProcess]:
    """(wall ms, child CPU ms user+sys, the process) of one whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, cwd=cwd, input=stdin, capture_output=True)
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    if proc.returncode:
        raise RuntimeError(f"{argv[3:]} exited {proc.returncode}: {proc.stderr.decode(errors='replace')[:400]}")
    return wall, cpu, proc


def commands(note_id: str, cwd: Path, counter) -> dict:
    """Each hot command's arguments (a fresh title per `add`, so no run is refused as a duplicate)."""
    return {
        "add": lambda: [
            "memory",
            "add",
            "--group",
            "g0",
            "--kind",
            "decision",
            "--title",
            f"Bench path {next(counter)} {time.time_ns()}",
            "--body",
            "Measured.",
        ],
        "search": lambda: ["memory", "search", "cache", "deploy"],
        "read": lambda: ["memory", "read", note_id, "--all"],
        "brief": lambda: ["memory", "brief", "--cwd", str(cwd)],
    }


def check_paths(cmds: dict, env: dict, cwd: Path) -> None:
    """Each command really takes the path it is measured on (typer imported only on the typer side)."""
    for name, argv in cmds.items():
        for path in PATHS:
            proc = run([PY, "-c", DRIVER, f"{path}-check", *argv()], env, cwd)[2]
            if f"TYPER={path == 'typer'}" not in proc.stderr.decode():
                raise RuntimeError(f"{name}: the {path} side did not take the {path} path")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vault", default="/tmp/bench-vaults/n1000-s1234")
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--threshold", type=float, default=20.0, help="ms (wall) the lean path must save")
    args = parser.parse_args()

    base = Path(tempfile.mkdtemp(prefix="bench-cli-paths-"))
    try:
        vault = base / "vault"
        subprocess.run(["cp", "-a", args.vault, str(vault)], check=True)
        env, cwd = _env(vault), base
        subprocess.run(
            [PY, "-m", "jacked_vault.cli.main", "memory", "doctor", "--reindex"],
            env=env,
            cwd=cwd,
            capture_output=True,
            check=True,
        )
        found_argv = [PY, "-c", DRIVER, "lean", "memory", "search", "cache", "--all", "--json"]
        found = json.loads(run(found_argv, env, cwd)[2].stdout)
        counter = iter(range(10**6))
        cmds = commands(found["results"][0]["id"], cwd, counter)
        check_paths(cmds, env, cwd)
        notes = sum(1 for _ in (vault / "groups").rglob("*.md"))
        print(f"vault: copy of {args.vault} ({notes} markdown files under groups/)")
        print(f"load average: {os.getloadavg()[0]:.2f}  cpus: {os.cpu_count()}  repeat: {args.repeat} (interleaved)")
        hook = {"session_id": "bench", "hook_event_name": "SessionStart", "cwd": str(cwd), "source": "startup"}
        hook_in = json.dumps(hook).encode()
        wall: dict[tuple[str, str], list[float]] = {}
        cpu: dict[tuple[str, str], list[float]] = {}
        for round_ in range(args.repeat):
            order = PATHS if round_ % 2 == 0 else PATHS[::-1]
            for name, argv in cmds.items():
                for path in order:
                    w, c, _ = run([PY, "-c", DRIVER, path, *argv()], env, cwd)
                    wall.setdefault((name, path), []).append(w)
                    cpu.setdefault((name, path), []).append(c)
            for name, argv_ in (
                ("hook session-start", [PY, "-c", DRIVER, "lean", "_hook", "session-start"]),
                ("git --version", ["git", "--version"]),
            ):
                w, c, _ = run(argv_, env, cwd, stdin=hook_in)
                wall.setdefault((name, "-"), []).append(w)
                cpu.setdefault((name, "-"), []).append(c)
        med = {key: statistics.median(v) for key, v in wall.items()}
        cmed = {key: statistics.median(v) for key, v in cpu.items()}
        print(
            f"\n{'command':<20}{'lean wall':>11}{'typer wall':>12}{'saved':>9}"
            f"{'lean cpu':>11}{'typer cpu':>11}{'saved':>9}  (ms, medians)"
        )
        savings = []
        for name in cmds:
            lw, tw, lc, tc = med[(name, "lean")], med[(name, "typer")], cmed[(name, "lean")], cmed[(name, "typer")]
            savings.append(tw - lw)
            print(
                f"{name:<20}{lw:>11.1f}{tw:>12.1f}{tw - lw:>9.1f}"
                f"{lc:>11.1f}{tc:>11.1f}{tc - lc:>9.1f}   typer/lean {tw / lw:.2f}"
            )
        for name in ("hook session-start", "git --version"):
            print(f"{name:<20}{med[(name, '-')]:>11.1f}{'(no parser)':>12}{'':>9}{cmed[(name, '-')]:>11.1f}")
        least, typical = min(savings), statistics.median(savings)
        print(
            f"\nlean saves {least:.1f} to {max(savings):.1f} ms wall per hot command "
            f"(median {typical:.1f}); threshold {args.threshold:.0f} ms"
        )
        if typical >= args.threshold:
            print(
                "decision: the lean path earns its place; keep it "
                "(tests/e2e/test_lean_cli.py and tests/e2e/test_parity.py hold it equal to typer)"
            )
        else:
            print("decision: the lean path saves less than the threshold; propose removing it (typer alone)")
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
