"""A week on two machines (issue 18, "Done means"): two HOMEs and a bare remote; sessions on both
machines through the real hooks (the SessionStart pull and brief, the SessionEnd drain that
pushes by itself), hot.md set on both, the same note saved twice, twins rejected together, a
forget, `review` with edit-as-new on a real terminal. At the end `sync` is clean on both,
`doctor` is ok on both, and both machines recall the same notes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import cli_env, make_repo, run_cli
from helpers.terminal import EDITOR_SCRIPT, drive


def _bare(path: Path) -> str:
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(path)], check=True)
    return f"file://{path}"


class Machine:
    """One HOME with its vault and a code repo mapped to the group `api`."""

    def __init__(self, home: Path) -> None:
        home.mkdir(parents=True)
        self.vault = home / "vault"
        self.repo = home / "Github" / "api"
        self.repo.mkdir(parents=True)
        make_repo(self.repo, "git@github.com:acme/api.git")

    def cli(self, *args: str, stdin: str | None = None, **env: str):
        return run_cli("memory", *args, vault=self.vault, cwd=self.repo, stdin=stdin, **env)

    def hook(self, name: str, event: str = "") -> str:
        payload = {"session_id": f"s-{name}", "cwd": str(self.repo), "hook_event_name": event}
        proc = subprocess.run(
            [sys.executable, "-m", "jacked_vault.cli.main", "_hook", name],
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            env=cli_env(self.vault),
            cwd=self.repo,
            timeout=120,
        )
        assert proc.returncode == 0
        return proc.stdout

    def session_end(self) -> None:
        """What SessionEnd starts detached, run to its end here: capture (none queued without a
        transcript), rollup, and the push the default policy makes."""
        self.hook("drain")

    def recalled(self) -> dict[str, str]:
        found = self.cli(
            "search", "deploy", "rebase", "cache", "index", "token", "--all", "--limit", "50", "--json"
        ).json["results"]
        return {r["id"]: r["status"] for r in found}


def test_a_week_on_two_machines(tmp_path: Path):
    url = _bare(tmp_path / "shared.git")
    laptop, desktop = Machine(tmp_path / "laptop"), Machine(tmp_path / "desktop")

    # Monday, laptop: a vault, a remote, a decision, the progress slice; the session end pushes.
    assert laptop.cli("init", "--no-scan").code == 0
    assert laptop.cli("remote", "set", url).code == 0
    decided = laptop.cli(
        "add", "--kind", "decision", "--title", "Deploy on Tuesdays", "--body", "Ship the API on Tuesdays.", "--json"
    ).json
    assert laptop.cli("hot", "set", "--body", "Laptop: wiring the cache.").code == 0
    laptop.session_end()

    # Tuesday, desktop: joins; its session start brings Monday's decision.
    assert desktop.cli("init", "--from", url).code == 0
    assert "Deploy on Tuesdays" in desktop.hook("session-start", "SessionStart")
    assert desktop.cli("hot", "set", "--body", "Desktop: reindexing.").code == 0
    first = desktop.cli(
        "add", "--title", "Cache keys carry the version", "--body", "Bump the version to drop the cache.", "--json"
    ).json
    again = desktop.cli(
        "add", "--title", "Cache keys carry the version", "--body", "Bump the version to drop the cache.", "--json"
    ).json
    assert again["duplicate_of"] == first["memory"]["id"] and again["commit"] is None
    desktop.session_end()

    # Wednesday, laptop: hot.md again (set on both machines), twins, a password that slipped in.
    assert "Cache keys carry the version" in laptop.hook("session-start", "SessionStart")
    assert laptop.cli("hot", "set", "--body", "Laptop: shipping the cache.").code == 0
    twin = {"--title": "Index every token", "--body": "Index each token twice."}
    one = laptop.cli("add", "--group", "api", *[x for kv in twin.items() for x in kv], "--json").json
    two = laptop.cli("add", "--group", "web", *[x for kv in twin.items() for x in kv], "--json").json
    rejected = laptop.cli("reject", one["memory"]["id"], "--reason", "wasteful", "--json").json
    assert rejected["also_rejected"] == [two["memory"]["id"]]
    slipped = laptop.cli(
        "add", "--title", "Staging login", "--body", "The deploy user signs in with Hunter-Spring-2026-xq.", "--json"
    ).json
    assert laptop.cli("forget", slipped["memory"]["id"]).code == 0
    laptop.session_end()

    # Thursday, desktop: a captured candidate edited into a new note on a real terminal.
    desktop.hook("session-start", "SessionStart")
    from jacked_vault.context import Context
    from jacked_vault.notes import AddRequest, add

    ctx = Context.create(vault=str(desktop.vault), cwd=desktop.repo, harness="claude")
    add(ctx, AddRequest(title="Rebase rule", body="Always rebase.", status="candidate", origin="session-end"))
    editor = tmp_path / "editor.py"
    editor.write_text(EDITOR_SCRIPT)
    code, _out, shown = drive(
        ["memory", "review"],
        [b"e\n", b"Rebase before merging\n"],
        env=cli_env(desktop.vault, EDITOR=f"{sys.executable} {editor}"),
        cwd=desktop.repo,
    )
    assert code == 0 and b"Traceback" not in shown, shown
    desktop.session_end()

    # Friday: both sync; clean, healthy, and the same memory on both.
    for machine in (laptop, desktop, laptop):
        synced = machine.cli("sync", "--json")
        assert synced.code == 0 and synced.json["quarantined"] == [], synced.out
    for machine in (laptop, desktop):
        doctor = machine.cli("doctor", "--json").json
        assert doctor["ok"], json.dumps({k: v for k, v in doctor.items() if v and k not in ("schema", "captures")})
        status = machine.cli("status", "--json").json["vault"]
        assert (status["ahead"], status["behind"]) == (0, 0) and status["last_push"]["result"] == "ok"
        assert "Hunter-Spring" not in machine.cli("search", "staging", "login", "--all", "--json").out
    assert laptop.recalled() == desktop.recalled()
    recalled = laptop.recalled()
    assert len(recalled) >= 3, recalled
    assert recalled[decided["memory"]["id"]] == "active" and recalled[first["memory"]["id"]] == "active"
    assert "Rebase before merging" in laptop.cli("search", "rebase", "--all").out
    hot = [(m.vault / "groups" / "api" / "hot.md").read_text() for m in (laptop, desktop)]
    assert hot[0] == hot[1] and "shipping the cache" in hot[0]
