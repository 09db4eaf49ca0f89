"""The librarian (issue 24.3): drift counters read from the index, one brief line when a counter
reaches its threshold (settings.librarian), `jacked memory librarian [status|done]`, and the
skill installed where each harness reads skills. Real vaults, the real CLI in a subprocess."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import git, make_repo, run_cli

from tests.helpers.state import state_dir

NUDGE = "[librarian:"


@pytest.fixture
def world(tmp_path: Path):
    vault, repo = tmp_path / "vault", tmp_path / "code" / "api"
    assert run_cli("memory", "init", "--no-scan", vault=vault).code == 0
    repo.mkdir(parents=True)
    make_repo(repo, "git@github.com:acme/api.git")
    return vault, repo


def _settings(vault: Path, **librarian: int) -> None:
    local = state_dir(vault) / "vault.local.json"
    local.write_text(json.dumps({"settings": {"librarian": librarian}}))


def _add(vault: Path, repo: Path, title: str, body: str) -> str:
    result = run_cli("memory", "add", "--title", title, "--body", body, "--json", vault=vault, cwd=repo)
    assert result.code == 0, result.out + result.err
    return result.json["memory"]["id"]


def _brief(vault: Path, repo: Path) -> str:
    return run_cli("memory", "brief", vault=vault, cwd=repo, JACKED_MEMORY_HARNESS="claude").out


def test_the_brief_nudges_once_a_counter_reaches_its_threshold_and_done_resets_it(world):
    vault, repo = world
    _settings(vault, added=3)
    for n in range(2):
        _add(vault, repo, f"Fact {n}", f"Body {n}.")
    assert NUDGE not in _brief(vault, repo)
    status = run_cli("memory", "librarian", "--json", vault=vault, cwd=repo).json
    assert (
        status["counters"]["added"] == 2
        and status["thresholds"]["added"] == 3
        and status["over"] == []
        and status["last_run"] is None
    )
    _add(vault, repo, "Fact 2", "Body 2.")
    brief = _brief(vault, repo)
    nudges = [line for line in brief.splitlines() if NUDGE in line]
    assert nudges == [
        "[librarian: 3+ note(s) added since its last run; the jacked-librarian skill tidies the vault with a person "
        "(`jacked memory librarian` shows why)]"
    ], brief
    text = run_cli("memory", "librarian", vault=vault, cwd=repo).out
    assert "note(s) added since its last run: 3 (threshold 3)  <- over its threshold" in text
    head = git(vault, "rev-parse", "HEAD")
    done = run_cli("memory", "librarian", "done", "--json", vault=vault, cwd=repo).json
    assert done["recorded"] and done["last_run"] == done["recorded"] and done["counters"]["added"] == 0
    assert (
        git(vault, "rev-parse", "HEAD") == head and git(vault, "status", "--porcelain") == ""
    )  # machine-local: no commit
    assert NUDGE not in _brief(vault, repo)


def test_duplicates_near_duplicates_and_superseded_notes_are_counted(world):
    vault, repo = world
    _settings(vault, duplicates=1)
    a = _add(vault, repo, "Use tabs", "Indent with tabs.")
    _add(vault, repo, "Use tabs", "Indent with tabs, always.")  # the same title, other text: a near duplicate
    twin = run_cli(
        "memory",
        "add",
        "--title",
        "Use tabs",
        "--body",
        "Indent with tabs.",
        "--target",
        "codex",
        "--json",
        vault=vault,
        cwd=repo,
    )
    assert (
        twin.code == 0 and "duplicate_of" not in twin.json
    )  # the same value for another reader: its own note, a duplicate to tidy
    counts = run_cli("memory", "librarian", "--json", vault=vault, cwd=repo).json["counters"]
    assert (counts["duplicates"], counts["near_duplicates"], counts["superseded"]) == (2, 3, 0), (
        counts
    )  # a and its twin; a, b, twin
    assert "1+ new note(s) repeating a live note's text" in _brief(vault, repo)  # the brief counts up to the threshold
    new = _add(vault, repo, "Use spaces", "Indent with four spaces.")
    assert run_cli("memory", "supersede", a, "--by", new, vault=vault, cwd=repo).code == 0
    counts = run_cli("memory", "librarian", "--json", vault=vault, cwd=repo).json["counters"]
    assert (counts["duplicates"], counts["near_duplicates"], counts["superseded"]) == (0, 2, 1), (
        counts
    )  # a closed: b and the twin remain
    done = run_cli("memory", "librarian", "done", "--json", vault=vault, cwd=repo).json["counters"]
    assert (done["added"], done["duplicates"], done["near_duplicates"], done["superseded"]) == (
        0,
        0,
        0,
        1,
    )  # drift since the run; state stays
    assert counts["archivable"] == 0  # superseded just now: not older than archive_after_days (90)
    _settings(vault, archive_after_days=0, archivable=1)
    assert run_cli("memory", "librarian", "--json", vault=vault, cwd=repo).json["counters"]["archivable"] == 1
    assert "1+ note(s) closed long enough to archive" in _brief(vault, repo)


def test_the_brief_counts_below_its_thresholds_exactly_as_the_status_does(world):
    """The brief's bounded counts (each only up to its threshold, from indexed rows) equal the
    exact ones wherever they are below the threshold; at the threshold they stop."""
    from jacked_vault.context import Context
    from jacked_vault.recall.librarian import counters
    from jacked_vault.search.index import open_fresh

    vault, repo = world
    a = _add(vault, repo, "Use tabs", "Indent with tabs.")
    _add(vault, repo, "Use tabs", "Indent with tabs, always.")
    assert (
        run_cli(
            "memory",
            "add",
            "--title",
            "Use tabs",
            "--body",
            "Indent with tabs.",
            "--target",
            "codex",
            vault=vault,
            cwd=repo,
        ).code
        == 0
    )
    new = _add(vault, repo, "Use spaces", "Indent with four spaces.")
    assert run_cli("memory", "supersede", a, "--by", new, vault=vault, cwd=repo).code == 0
    _settings(
        vault,
        added=100,
        duplicates=100,
        near_duplicates=100,
        superseded=100,
        archivable=100,
        stale_hot=100,
        archive_after_days=0,
    )
    ctx = Context.create(vault=str(vault), cwd=repo, harness="claude")
    index = open_fresh(ctx.vault)
    try:
        exact = counters(ctx, index.read, "2099-01-01T00:00:00.000Z")
        bounded = counters(ctx, index.read, "2099-01-01T00:00:00.000Z", bounded=True)
        assert (
            exact == bounded and exact["added"] == 3 and exact["near_duplicates"] == 2 and exact["superseded"] == 1
        ), exact
        _settings(vault, added=2, near_duplicates=1, superseded=1)
        ctx = Context.create(vault=str(vault), cwd=repo, harness="claude")  # settings are read once per context
        capped = counters(ctx, index.read, "2099-01-01T00:00:00.000Z", bounded=True)
        assert (capped["added"], capped["near_duplicates"], capped["superseded"]) == (2, 1, 1), capped
    finally:
        index.close()


def test_a_bad_threshold_is_refused_naming_the_setting(world):
    vault, repo = world
    _settings(vault, added=0)
    result = run_cli("memory", "librarian", "--json", vault=vault, cwd=repo)
    assert (
        result.code != 0
        and result.json["error"]["code"] == "JACKED_MEMORY_CONFIG"
        and "librarian" in result.json["error"]["message"]
    )


def test_the_skill_is_installed_where_each_harness_reads_skills_and_removed_alone(tmp_path: Path):
    from jacked_vault.hooks.skills import SHARED, install_librarian, librarian_status, uninstall_librarian

    home = tmp_path / "home"
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    foreign = home / ".codex" / "skills" / "jacked-librarian" / "SKILL.md"
    foreign.parent.mkdir(parents=True)
    foreign.write_text("---\nname: jacked-librarian\ndescription: someone else's\n---\nmine\n")
    done = {c.harness: c for c in install_librarian(("claude", "codex", "opencode"), environ=env)}
    assert done["claude"].action == "installed" and done["opencode"].action == "installed"
    assert done["codex"].action == "refused" and foreign.read_text().endswith("mine\n")  # never replaced
    claude = home / ".claude" / "skills" / "jacked-librarian" / "SKILL.md"
    text = claude.read_text()
    front = text.split("---\n")[1]
    assert front.startswith("name: jacked-librarian\ndescription: ") and len(front.splitlines()[1]) <= 1024 + len(
        "description: "
    )
    assert "jacked memory librarian done" in text and "# Skill: jacked-vault librarian" in text
    # OpenCode reads ~/.claude/skills: Claude's copy is OpenCode's too, its own folder holds none
    assert SHARED in text and done["opencode"].path == str(claude)
    assert not (home / ".config" / "opencode" / "skills").exists()
    assert [c.action for c in install_librarian(("claude",), environ=env)] == ["unchanged"]
    assert {s["harness"]: s["state"] for s in librarian_status(("claude", "codex", "opencode"), environ=env)} == {
        "claude": "installed", "codex": "foreign", "opencode": "installed"}  # fmt: skip
    removed = {c.harness: c.action for c in uninstall_librarian(("claude", "codex", "opencode"), environ=env)}
    assert removed == {"claude": "removed", "codex": "absent", "opencode": "removed"}
    assert not claude.exists() and not claude.parent.exists() and foreign.is_file()
    assert not (home / ".config" / "opencode" / "skills").exists()  # both went: nothing moved


def test_uninstalling_claudes_skill_moves_opencodes_to_its_own_folder_and_back(tmp_path: Path):
    """Issue 33.12: OpenCode's copy follows Claude's, and a copy an older jacked wrote for Codex into
    ~/.agents/skills (read by OpenCode too) is removed by install and listed outdated by status."""
    from jacked_vault.hooks.skills import SHARED, install_librarian, librarian_status, render, uninstall_librarian

    home = tmp_path / "home"
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    claude = home / ".claude" / "skills" / "jacked-librarian" / "SKILL.md"
    own = home / ".config" / "opencode" / "skills" / "jacked-librarian" / "SKILL.md"
    old = home / ".agents" / "skills" / "jacked-librarian" / "SKILL.md"
    old.parent.mkdir(parents=True)
    old.write_bytes(render())  # what an older jacked installed for Codex
    assert [s["state"] for s in librarian_status(("opencode",), environ=env)] == ["absent", "outdated"]
    assert [(c.path, c.action) for c in install_librarian(("opencode",), environ=env)] == [
        (str(own), "installed"), (str(old), "removed")]  # fmt: skip
    assert own.read_bytes() == render() and not old.parent.exists()
    install_librarian(("claude",), environ=env)
    assert SHARED in claude.read_text() and not own.exists()
    uninstall_librarian(("claude",), environ=env)
    assert not claude.exists() and own.read_bytes() == render()
    install_librarian(("claude",), environ=env)
    uninstall_librarian(("opencode",), environ=env)
    assert claude.read_bytes() == render() and not own.exists()
    assert {s["harness"]: s["state"] for s in librarian_status(("claude", "opencode"), environ=env)} == {
        "claude": "installed",
        "opencode": "outdated",
    }  # fmt: skip - Claude's is jacked's: install makes it OpenCode's too


def test_hooks_install_skills_writes_the_skill_naming_the_vault_and_uninstall_removes_it(world):
    vault, _repo = world
    home = vault.parent  # run_cli's HOME
    path = home / ".claude" / "skills" / "jacked-librarian" / "SKILL.md"
    installed = run_cli(
        "memory", "hooks", "install", "--skills", "claude", "--skills", "opencode", "--json", vault=vault
    )
    assert installed.code == 0, installed.out + installed.err
    assert [(s["harness"], s["action"]) for s in installed.json["skills"]] == [
        ("claude", "installed"),
        ("opencode", "installed"),
    ]
    assert (
        f"memory --vault {vault} librarian done" in path.read_text()
    )  # the vault hooks install resolved, as every registration names it
    status = run_cli("memory", "hooks", "status", "--skills", "claude", "--skills", "codex", vault=vault).out
    assert f"claude librarian skill installed: {path}" in status and "codex librarian skill absent" in status
    refused = run_cli("memory", "hooks", "install", "--skills", "cursor", "--json", vault=vault)
    assert refused.code == 2 and refused.json["error"]["code"] == "JACKED_MEMORY_USAGE"
    removed = run_cli("memory", "hooks", "uninstall", "--skills", "claude", "--json", vault=vault)
    assert removed.code == 0 and [s["action"] for s in removed.json["skills"]] == ["removed"] and not path.exists()


# -- one copy per harness, whatever else is installed (issue 33.12) --------------------------------

SKILL_HARNESSES = ("claude", "codex", "opencode")
SKILL_OPS = tuple((op, h) for op in ("install", "uninstall") for h in SKILL_HARNESSES)


def _after(installed: frozenset[str], op: tuple[str, str]) -> frozenset[str]:
    verb, harness = op
    return installed | {harness} if verb == "install" else installed - {harness}


def _every_step() -> list[tuple[str, str]]:
    """A walk taking every operation (install or uninstall of each harness's skill) from every set of
    harnesses holding it, once each, from nothing back to nothing: an Euler circuit (Hierholzer) of
    the graph of those sets, each with 6 operations out and 6 in."""
    sets = [frozenset(h for i, h in enumerate(SKILL_HARNESSES) if n >> i & 1) for n in range(8)]
    left = {s: list(SKILL_OPS) for s in sets}
    stack: list[tuple[frozenset[str], tuple[str, str] | None]] = [(frozenset(), None)]
    walk = []
    while stack:
        node, came_by = stack[-1]
        if left[node]:
            op = left[node].pop()
            stack.append((_after(node, op), op))
        else:
            stack.pop()
            if came_by is not None:
                walk.append(came_by)
    return walk[::-1]


def _librarians(*folders: Path) -> list[Path]:
    return sorted(p for f in folders for p in f.glob("**/SKILL.md") if "\nname: jacked-librarian\n" in p.read_text())


def test_each_harness_reads_exactly_one_librarian_in_every_order_of_install_and_uninstall(tmp_path: Path):
    """Issue 33.12: OpenCode reads ~/.claude/skills and ~/.agents/skills besides its own folder, and
    warns "duplicate skill name" at a second copy. After every install and uninstall of every
    harness's skill, from every set installed: OpenCode reads exactly one copy while its skill or
    Claude's is installed (none otherwise), Claude its own, Codex its own (in $CODEX_HOME/skills)."""
    from tests.helpers.homes import jacked

    home = tmp_path / "home"
    home.mkdir()
    walk = _every_step()
    assert len(walk) == 48 and len(set(walk)) == 6
    installed: frozenset[str] = frozenset()
    for verb, harness in walk:
        done = jacked(home, "memory", "hooks", verb, "--skills", harness)
        assert done.returncode == 0, (verb, harness, done.stdout + done.stderr)
        installed = _after(installed, (verb, harness))
        config = home / ".config" / "opencode"
        opencode = _librarians(
            home / ".claude" / "skills", home / ".agents" / "skills", config / "skill", config / "skills"
        )
        claude = _librarians(home / ".claude" / "skills")
        codex = _librarians(home / ".codex" / "skills", home / ".agents" / "skills")
        seen = (len(opencode), len(claude), len(codex))
        wanted = (int(bool({"claude", "opencode"} & installed)), int("claude" in installed), int("codex" in installed))
        assert seen == wanted, (verb, harness, sorted(installed), opencode, claude, codex)
    assert installed == frozenset()
