"""Review page benchmarks (issue 20): each route's server time beside its CLI equivalent.

    python bench/bench_ui.py [--sizes 10000] [--history 1000] [--repeat 15] [--cli-repeat 5] [--keep DIR]

For each size: a generated vault (`bench/_vaultgen.py`, 50 groups, each mapped to a repo), plus what
the pages show beyond notes: 40 candidates (agents' and capture's), 60 transitions (so history has
accepts, rejects, supersedes), hot.md, 20 briefs given by the SessionStart hook (the brief log), and
`--history` more notes added one commit each (the generator commits all its notes at once; a
real vault's log is long, and `log` walks it).
The page runs in-process behind its real middleware (starlette's TestClient): the figure is the
page's own `Server-Timing` (from the request reaching the app to the start of its answer), median
of `--repeat` after one warm-up. Beside it: the same answer from the CLI as a whole process
(`jacked memory …`, median of `--cli-repeat`). Budget: each page <= 200 ms of server time.

The overview shows doctor's findings, run in the background and kept per HEAD (doctor alone is
~0.5 s at 10k); its row is the page with the run cached, and the doctor run is printed on its own.
A POST (accept) is timed too: its server time is the transition's commit.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from bench._vaultgen import generate_vault  # noqa: E402

GROUPS = 50
BUDGET_MS = 200.0
JACKED = [sys.executable, "-m", "jacked_vault.cli.main"]


def make_repo(path: Path, origin: str) -> None:
    import pygit2

    path.mkdir(parents=True)
    repo = pygit2.init_repository(str(path), initial_head="main")
    repo.remotes.create("origin", origin)


def prepare(vault: Path, n: int, work: Path, history: int) -> tuple[Path, dict]:
    """The vault and the code repo the page is started in (group g7); ids the routes ask for."""
    from jacked_vault.context import Context
    from jacked_vault.groups.mapping import write_config
    from jacked_vault.notes import AddRequest, add
    from jacked_vault.recall.brief import build_brief
    from jacked_vault.recall.brief_log import record_brief
    from jacked_vault.write.hot import set_hot
    from jacked_vault.write.transitions import transition

    generate_vault(vault, n, groups=GROUPS)
    repo = work / "g7-api"
    make_repo(repo, "git@github.com:acme/g7-api.git")
    ctx = Context.create(vault=str(vault), cwd=repo, harness="bench")
    config = json.loads((vault / "vault.json").read_text())
    config["groups"] = {f"g{i}": {"repos": [f"github.com/acme/g{i}-api"]} for i in range(GROUPS)}
    write_config(ctx, config, "bench groups")
    set_hot(ctx, "Bench: measuring the review page.\nNext: the browser tests.")
    candidates = [
        add(
            ctx,
            AddRequest(
                title=f"Candidate {i}: retry the upload on 503",
                body=f"Seen in session {i}: the storage API answers 503 under load.",
                status="candidate",
                origin="session-end" if i % 2 else "post-merge",
            ),
        ).note.id
        for i in range(60)
    ]
    for i, note_id in enumerate(candidates[: 60 - 40]):  # 20 decided; 40 stay in the queue
        transition(ctx, note_id, "accept" if i % 2 else "reject", reason="bench")
    active = [
        add(
            ctx, AddRequest(title=f"Decision {i} on the cache layer", kind="decision", body=f"We keep the cache {i}.")
        ).note.id
        for i in range(40)
    ]
    for i in range(0, 40, 2):
        transition(ctx, active[i], "supersede", by=active[i + 1])
    for i in range(history):
        add(
            ctx,
            AddRequest(
                title=f"Session note {i}",
                body=f"Commit {i} of a long history: the vault's log is walked by the timeline.",
            ),
        )
    for _ in range(20):
        record_brief(
            vault, build_brief(Context.create(vault=str(vault), cwd=repo, harness="claude")), harness="claude", cwd=repo
        )
    return repo, {"note": active[1], "candidates": candidates[20:]}


def server_ms(client, method: str, path: str, **kw) -> float:
    answer = client.request(method, path, **kw)
    if answer.status_code >= 400:
        raise RuntimeError(f"{method} {path}: {answer.status_code} {answer.text[-300:]}")
    return float(re.search(r"app;dur=([\d.]+)", answer.headers["server-timing"])[1])


def cli_ms(args: list[str], vault: Path, cwd: Path, repeat: int) -> float:
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("JACKED_")}, "JACKED_VAULT_DIR": str(vault)}
    samples = []
    for _ in range(repeat):
        t = time.perf_counter()
        proc = subprocess.run([*JACKED, "memory", *args], cwd=cwd, env=env, capture_output=True, text=True)
        samples.append((time.perf_counter() - t) * 1000)
        if proc.returncode not in (0, 1):
            raise RuntimeError(f"{args}: {proc.stderr[-300:]}")
    return statistics.median(samples)


def bench_size(n: int, base: Path, repeat: int, cli_repeat: int, history: int) -> list[dict]:
    from starlette.testclient import TestClient

    from jacked_vault.ui.app import UiConfig, create_app

    vault, work = base / f"vault-{n}", base / f"work-{n}"
    work.mkdir(parents=True)
    t = time.perf_counter()
    repo, ids = prepare(vault, n, work, history)
    commits = subprocess.run(
        ["git", "-C", str(vault), "rev-list", "--count", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    print(
        f"\n{n} notes (+{history + 100} added one by one; {commits} commits): prepared in "
        f"{time.perf_counter() - t:.0f} s; "
        f"load {os.getloadavg()[0]:.2f}"
    )
    client = TestClient(create_app(UiConfig(vault=vault, cwd=repo, token="bench", port=8765)), base_url="http://127.0.0.1:8765",
                        follow_redirects=False)  # fmt: skip
    assert client.get("/?token=bench").status_code == 303
    t = time.perf_counter()
    client.get("/?doctor=wait")
    doctor_s = time.perf_counter() - t
    routes = [
        ("/", ["status"], "status (the overview also shows group list, doctor)"),
        ("/search?q=cache+retry", ["search", "cache", "retry", "--all"], None),
        (
            "/search?q=cache&kind=decision&status=active&status=superseded&group=g7",
            [
                "search",
                "cache",
                "--kind",
                "decision",
                "--status",
                "active",
                "--status",
                "superseded",
                "--group",
                "g7",
                "--all",
            ],
            None,
        ),
        ("/search?limit=200", ["search", "--all", "--limit", "200"], None),
        (f"/note/{ids['note']}", ["read", ids["note"]], "read (the page also runs log ID)"),
        ("/review", ["review", "--json"], None),
        ("/brief", ["brief"], None),
        ("/brief?harness=codex", ["brief", "--harness", "codex"], None),
        ("/timeline", ["log", "--limit", "100"], None),
        ("/timeline?op=accept", ["log", "--limit", "1000"], "log --limit 1000 (the page filters the newest 1,000)"),
    ]
    rows = []
    for path, cli, label in routes:
        server_ms(client, "GET", path)  # warm-up: templates compiled, indexes open
        samples = [server_ms(client, "GET", path) for _ in range(repeat)]
        rows.append({"route": f"GET {path}", "server_ms": statistics.median(samples),
                     "p90_ms": sorted(samples)[int(len(samples) * 0.9) - 1],
                     "cli": label or " ".join(cli), "cli_ms": cli_ms(cli, vault, repo, cli_repeat)})  # fmt: skip
    csrf = re.search(r'<meta name="csrf-token" content="([^"]+)"', client.get("/review").text)[1]
    posts = [
        server_ms(client, "POST", f"/note/{note_id}/accept", data={"csrf": csrf})
        for note_id in ids["candidates"][:repeat]
    ]
    cli_accept = [
        cli_ms(["accept", note_id], vault, repo, 1) for note_id in ids["candidates"][repeat : repeat + cli_repeat]
    ]
    rows.append({"route": "POST /note/ID/accept", "server_ms": statistics.median(posts),
                 "p90_ms": sorted(posts)[int(len(posts) * 0.9) - 1],
                 "cli": "accept ID", "cli_ms": statistics.median(cli_accept)})  # fmt: skip
    print(f"doctor, first run for the overview (background, cached per HEAD): {doctor_s * 1000:.0f} ms")
    print(f"{'route':<78} {'server ms':>9} {'p90':>7}  {'budget':<7} {'CLI process ms':>14}  CLI")
    for row in rows:
        verdict = "met" if row["server_ms"] <= BUDGET_MS else "MISSED"
        print(
            f"{row['route']:<78} {row['server_ms']:>9.1f} {row['p90_ms']:>7.1f}  {verdict:<7} {row['cli_ms']:>14.0f}  "
            f"jacked memory {row['cli']}"
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000")
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--history", type=int, default=1000, help="notes added one commit each (a long log)")
    parser.add_argument("--cli-repeat", type=int, default=5)
    parser.add_argument("--keep", type=Path, default=None, help="generate the vaults here and keep them")
    parser.add_argument("--json", type=Path, default=None, help="also write the rows here")
    args = parser.parse_args()
    os.environ.setdefault("GIT_AUTHOR_NAME", "bench")
    os.environ.setdefault("GIT_AUTHOR_EMAIL", "bench@localhost")
    os.environ.setdefault("GIT_COMMITTER_NAME", "bench")
    os.environ.setdefault("GIT_COMMITTER_EMAIL", "bench@localhost")
    out = {}
    with tempfile.TemporaryDirectory() as folder:
        base = args.keep or Path(folder)
        for n in (int(s) for s in args.sizes.split(",")):
            out[n] = bench_size(n, base, args.repeat, args.cli_repeat, args.history)
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
