"""Issue 24.1, 24.2, 24.6: the one switch (`enable`/`disable`), the commands that save on purpose
(`/remember`, `/learn`, `add --origin milestone`) and retiring the remember plugin after `migrate`.

Everything runs the real CLI in a subprocess against a temp HOME holding the harness folders, real
code repos and a real vault; "restored" means byte for byte, file for file, folder for folder.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import git, make_repo

from tests.helpers.homes import home_env, jacked, tree

FIXTURES = Path(__file__).parents[1] / "fixtures"
SETTINGS = (
    '{\n    "model": "opus",\n    "enabledPlugins": {"remember@thedotmack": true, "other@x": true},\n'
    '    "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}\n}\n'
)


def _home(tmp_path: Path) -> Path:
    """A HOME with Claude Code (settings with someone else's hook and the remember plugin on),
    Codex (its own config.toml), OpenCode (an opencode.json with another server), Cursor (an empty
    folder), and two related code repos under ~/Github, one with a `.remember/` folder."""
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text(SETTINGS)
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text('model = "o3"\n\n[mcp_servers.other]\ncommand = "other"\n')
    (home / ".config" / "opencode").mkdir(parents=True)
    (home / ".config" / "opencode" / "opencode.json").write_text(
        '{\n\t"mcp": {"other": {"type": "local", "command": ["other"]}}\n}\n'
    )
    (home / ".cursor").mkdir()
    for name in ("api", "api-web"):
        make_repo(home / "Github" / name, f"git@github.com:acme/{name}.git")
    shutil.copytree(FIXTURES / "remember" / "project", home / "Github" / "api" / ".remember")
    return home


def _steps(result: subprocess.CompletedProcess) -> dict[str, dict]:
    assert result.returncode == 0, result.stdout + result.stderr
    return {step["step"]: step for step in json.loads(result.stdout)["steps"]}


def _notes(vault: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(vault)): p.read_bytes()
        for p in vault.rglob("*.md")
        if ".git" not in p.parts and ".jacked" not in p.parts
    }


def test_enable_then_disable_leaves_home_as_it_was_and_the_vault_intact(tmp_path):
    home = _home(tmp_path)
    before = tree(home)

    steps = _steps(jacked(home, "memory", "enable", "--yes", "--json"))
    assert steps["vault"]["outcome"] == "done"
    assert steps["groups"]["outcome"] == "done" and "api" in steps["groups"]["detail"]
    assert {h: steps[h]["outcome"] for h in ("claude", "codex", "opencode", "cursor")} == dict.fromkeys(
        ("claude", "codex", "opencode", "cursor"), "done"
    )
    assert steps["post-merge"]["outcome"] == "done" and "2 of 2" in steps["post-merge"]["detail"]
    assert steps["migrate"]["outcome"] == "done"
    assert steps["remote"]["outcome"] == "offered"

    # a working setup: every harness hooked and registered, in per-person files only
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    assert {"SessionStart", "SessionEnd", "PreCompact", "Stop"} <= set(settings["hooks"])
    assert settings["enabledPlugins"] == {
        "remember@thedotmack": False,
        "other@x": True,
    }  # retired after a verified migration
    assert "jacked-memory" in json.loads((home / ".claude.json").read_text())["mcpServers"]
    assert (
        f" memory --vault {home / 'jacked-vault'} add --kind KIND "
        in (home / ".claude" / "commands" / "remember.md").read_text()
    )
    assert (home / ".claude" / "commands" / "learn.md").is_file()
    assert (
        home / ".claude" / "skills" / "jacked-librarian" / "SKILL.md"
    ).is_file()  # the librarian, where each harness reads skills
    assert (home / ".codex" / "skills" / "jacked-librarian" / "SKILL.md").is_file()  # Codex's alone
    # OpenCode reads ~/.claude/skills: Claude's copy is its one (33.12), its own folder holds none
    assert "OpenCode's copy too" in (home / ".claude" / "skills" / "jacked-librarian" / "SKILL.md").read_text()
    assert not (home / ".config" / "opencode" / "skills").exists() and not (home / ".agents").exists()
    codex = (home / ".codex" / "config.toml").read_text()
    assert "[mcp_servers.jacked-memory]" in codex and "_hook session-start" in codex and "[mcp_servers.other]" in codex
    assert (home / ".codex" / "skills" / "remember" / "SKILL.md").is_file()
    opencode = json.loads((home / ".config" / "opencode" / "opencode.json").read_text())
    assert set(opencode["mcp"]) == {"other", "jacked-memory"}
    assert (home / ".config" / "opencode" / "plugins" / "jacked-vault.js").is_file()
    assert (home / ".config" / "opencode" / "commands" / "remember.md").is_file()
    assert set(json.loads((home / ".cursor" / "hooks.json").read_text())["hooks"]) == {"sessionStart", "sessionEnd"}
    assert "jacked-memory" in json.loads((home / ".cursor" / "mcp.json").read_text())["mcpServers"]
    for name in ("api", "api-web"):
        assert "jacked-vault post-merge hook" in (home / "Github" / name / ".git" / "hooks" / "post-merge").read_text()
    vault = home / "jacked-vault"
    assert any(p.name.startswith("today-") for p in vault.rglob("*.md"))  # the .remember/ days are in the vault
    assert (home / "Github" / "api" / ".remember" / "now.md").read_bytes() == (
        FIXTURES / "remember" / "project" / "now.md"
    ).read_bytes()
    status = jacked(home, "memory", "hooks", "status", "--json", cwd=home / "Github" / "api")
    assert status.returncode == 0, status.stdout

    # idempotent: a second enable changes nothing
    enabled = tree(home)
    head, notes = git(vault, "rev-parse", "HEAD"), _notes(vault)
    again = _steps(jacked(home, "memory", "enable", "--yes", "--json"))
    assert {name: step["outcome"] for name, step in again.items()} == {
        "vault": "unchanged",
        "groups": "unchanged",
        "claude": "unchanged",
        "codex": "unchanged",
        "opencode": "unchanged",
        "cursor": "unchanged",
        "post-merge": "unchanged",
        "migrate": "done",
        "remote": "offered",
        "signing": "skipped",  # no ssh key in this HOME to sign with
    }
    assert [item["commit"] for item in again["migrate"]["items"]] == [None]  # already imported: nothing written
    assert tree(home) == enabled
    assert git(vault, "rev-parse", "HEAD") == head

    off = _steps(jacked(home, "memory", "disable", "--json"))
    assert off["restore"]["outcome"] == "restored"
    assert off["post-merge"]["outcome"] == "removed"
    assert tree(home) == before  # every file enable touched is back byte for byte; every file it made is gone
    assert git(vault, "rev-parse", "HEAD") == head and _notes(vault) == notes  # the vault is untouched

    twice = _steps(jacked(home, "memory", "disable", "--json"))
    assert {step["outcome"] for step in twice.values()} == {"unchanged"}
    assert tree(home) == before


def test_disable_keeps_what_a_person_changed_since_enable(tmp_path):
    home = _home(tmp_path)
    assert jacked(home, "memory", "enable", "--yes").returncode == 0
    settings = home / ".claude" / "settings.json"
    edited = json.loads(settings.read_text())
    edited["theme"] = "dark"
    settings.write_text(json.dumps(edited))

    result = jacked(home, "memory", "disable")
    assert result.returncode == 0, result.stderr
    assert f"claude hooks removed in {settings}" in result.stdout
    kept = json.loads(settings.read_text())
    assert kept["theme"] == "dark" and set(kept["hooks"]) == {"Stop"}  # only jacked's entries went
    assert not (home / ".claude" / "commands" / "remember.md").exists()
    assert not (home / ".claude.json").exists()  # unchanged since enable made it: removed


def test_disable_removes_what_hooks_install_put_anywhere(tmp_path):
    """Not only what enable did: hooks and registrations from `hooks install`, in per-person files,
    a repo's project files and its post-merge hook."""
    home = tmp_path / "home"
    home.mkdir()
    repo = home / "Github" / "api"
    make_repo(repo, "git@github.com:acme/api.git")
    assert jacked(home, "memory", "init", "--no-scan").returncode == 0
    for args in (
        ("--claude",),
        ("--commands", "codex"),
        ("--skills", "claude"),
        ("--mcp", "claude"),
        ("--cursor",),
        ("--git", str(repo)),
    ):
        done = jacked(home, "memory", "hooks", "install", *args, cwd=repo)
        assert done.returncode == 0, done.stdout + done.stderr
    assert (repo / ".mcp.json").is_file() and (repo / ".cursor" / "hooks.json").is_file()

    result = jacked(home, "memory", "disable", cwd=home)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "removed jacked's entry from" in result.stdout
    assert not (home / ".codex" / "skills" / "remember").exists()
    assert not (home / ".claude" / "skills" / "jacked-librarian" / "SKILL.md").exists()
    assert not (repo / ".mcp.json").exists()  # files install created and that hold nothing else: gone (33.10)
    assert not (repo / ".cursor").exists()
    assert not (repo / ".git" / "hooks" / "post-merge").exists()
    assert not (home / ".claude" / "settings.json").exists()
    for args in (("--claude",), ("--commands", "codex"), ("--git", str(repo))):
        status = jacked(home, "memory", "hooks", "status", *args, "--json", cwd=repo).stdout
        assert '"installed"' not in status.replace('"installed": []', ""), status


def test_enable_from_a_url_that_is_not_a_vault_is_refused_and_writes_nothing(tmp_path):
    home = _home(tmp_path)
    not_vault = tmp_path / "code.git"
    make_repo(tmp_path / "code", None)
    subprocess.run(["git", "clone", "-q", "--bare", str(tmp_path / "code"), str(not_vault)], check=True)
    before = tree(home, skip=())

    for args in ((f"file://{not_vault}",), (str(tmp_path / "nothing-here"),)):
        result = jacked(home, "memory", "enable", "--yes", "--from", *args)
        assert result.returncode != 0
        assert result.stderr.startswith("error: ") and "Traceback" not in result.stderr
        assert tree(home, skip=()) == before  # no vault, no hook, no registration, no backup
        as_json = jacked(home, "memory", "enable", "--yes", "--json", "--from", *args)
        assert json.loads(as_json.stdout)["ok"] is False
        assert tree(home, skip=()) == before


def test_enable_joins_a_shared_vault_with_from(tmp_path):
    home = _home(tmp_path)
    first = tmp_path / "first"
    first.mkdir()
    assert jacked(first, "memory", "init", "--no-scan").returncode == 0
    shared = tmp_path / "shared.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(shared)], check=True)
    assert jacked(first, "memory", "remote", "set", f"file://{shared}").returncode == 0
    assert jacked(first, "memory", "push").returncode == 0

    steps = _steps(jacked(home, "memory", "enable", "--yes", "--json", "--from", f"file://{shared}"))
    assert steps["vault"]["outcome"] == "done" and "joined" in steps["vault"]["detail"]
    assert steps["groups"]["outcome"] == "skipped"
    assert steps["remote"]["outcome"] == "unchanged"
    assert (home / "jacked-vault" / "vault.json").is_file()


def test_remember_command_file_saves_through_add(tmp_path):
    """The command text tells the agent the exact line; run as the agent would, it saves a note."""
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    assert jacked(home, "memory", "init", "--no-scan").returncode == 0
    assert jacked(home, "memory", "hooks", "install", "--commands", "claude").returncode == 0
    text = (home / ".claude" / "commands" / "remember.md").read_text()
    assert text.startswith("---\ndescription: ") and "argument-hint:" in text and "$ARGUMENTS" in text
    line = next(ln.strip() for ln in text.splitlines() if " add --kind " in ln)
    argv = [w.replace("KIND", "convention").replace("TITLE", "Tabs in Makefiles only") for w in shlex.split(line)]
    argv[argv.index("--stdin") :] = ["--stdin", "--json", "--scope", "user"]  # outside a repo: the person's own scope
    saved = subprocess.run(
        argv,
        input="Recipes need tabs; everything else uses spaces.\n",
        capture_output=True,
        text=True,
        env=home_env(home),
        cwd=home,
        check=False,
    )
    assert saved.returncode == 0, saved.stderr
    note = json.loads(saved.stdout)["memory"]
    assert (note["kind"], note["title"]) == ("convention", "Tabs in Makefiles only")
    learn = (home / ".claude" / "commands" / "learn.md").read_text()
    learn_line = next(ln.strip() for ln in learn.splitlines() if " add --kind " in ln)
    assert learn_line.split(" add ")[0] == line.split(" add ")[0] and "--kind lesson" in learn_line


def test_a_command_file_of_someone_else_is_refused_and_left_alone(tmp_path):
    home = tmp_path / "home"
    mine = home / ".claude" / "commands" / "remember.md"
    mine.parent.mkdir(parents=True)
    mine.write_text("my own /remember\n")
    result = jacked(home, "memory", "hooks", "install", "--commands", "claude")
    assert result.returncode == 1
    assert "is not jacked-vault's" in result.stdout
    assert mine.read_text() == "my own /remember\n"
    assert not (home / ".claude" / "commands" / "learn.md").exists()
    assert jacked(home, "memory", "hooks", "uninstall", "--commands", "claude").returncode == 0
    assert mine.read_text() == "my own /remember\n"


def test_add_origin_milestone_and_nothing_else(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    assert jacked(home, "memory", "init", "--no-scan").returncode == 0
    vault = home / "jacked-vault"
    saved = jacked(
        home,
        "memory",
        "add",
        "--scope",
        "user",
        "--origin",
        "milestone",
        "--title",
        "Release 2 shipped",
        "--body",
        "Parser v2 is live.",
        "--json",
    )
    assert saved.returncode == 0, saved.stderr
    note = json.loads(saved.stdout)["memory"]
    assert note["origin"] == "milestone"
    assert "Memory-Origin: milestone" in git(vault, "log", "-1", "--format=%B")
    head = git(vault, "rev-parse", "HEAD")
    for origin in ("mcp", "librarian", "post-merge"):
        refused = jacked(home, "memory", "add", "--scope", "user", "--origin", origin, "--title", "t", "--body", "b")
        assert refused.returncode == 2 and "--origin: use one of cli, milestone" in refused.stderr
    assert git(vault, "rev-parse", "HEAD") == head


def _migrate_home(tmp_path: Path) -> tuple[Path, Path]:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text(SETTINGS)
    repo = home / "Github" / "api"
    make_repo(repo, "git@github.com:acme/api.git")
    shutil.copytree(FIXTURES / "remember" / "project", repo / ".remember")
    assert jacked(home, "memory", "init", "--no-scan").returncode == 0
    return home, repo


def test_migrate_offers_to_retire_the_remember_plugin(tmp_path):
    home, repo = _migrate_home(tmp_path)
    result = jacked(home, "memory", "migrate", cwd=repo)  # no terminal: offered, nothing changed
    assert result.returncode == 0, result.stderr
    assert (
        "The remember plugin (remember@thedotmack) is still on" in result.stdout and "--retire-plugin" in result.stdout
    )
    assert (home / ".claude" / "settings.json").read_text() == SETTINGS

    sources = tree(repo / ".remember", skip=())
    done = jacked(home, "memory", "migrate", "--retire-plugin", "--json", cwd=repo)
    assert done.returncode == 0, done.stdout
    plugin = json.loads(done.stdout)["plugin"]
    assert plugin["action"] == "disabled" and plugin["plugins"] == ["remember@thedotmack"]
    assert Path(plugin["backup"]).read_text() == SETTINGS
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    assert settings["enabledPlugins"] == {"remember@thedotmack": False, "other@x": True}
    assert settings["hooks"] == json.loads(SETTINGS)["hooks"] and settings["model"] == "opus"
    assert tree(repo / ".remember", skip=()) == sources  # its data is never touched

    again = jacked(home, "memory", "migrate", "--retire-plugin", "--json", cwd=repo)
    assert "plugin" not in json.loads(again.stdout)  # already off: nothing to offer, nothing written
    assert len(list((home / ".claude").glob("settings.json.jacked-backup-*"))) == 1


def test_migrate_does_not_offer_when_the_counts_fail_or_on_a_dry_run(tmp_path):
    home, repo = _migrate_home(tmp_path)
    dry = jacked(home, "memory", "migrate", "--dry-run", "--retire-plugin", cwd=repo)
    assert dry.returncode == 0 and "is still on" not in dry.stdout and "Turned off" not in dry.stdout
    assert (home / ".claude" / "settings.json").read_text() == SETTINGS
    missing = jacked(home, "memory", "migrate", "--retire-plugin", "--from", str(tmp_path / "absent"), cwd=repo)
    assert missing.returncode != 0
    assert (home / ".claude" / "settings.json").read_text() == SETTINGS


def test_enable_text_names_each_step_and_its_outcome(tmp_path):
    home = _home(tmp_path)
    result = jacked(home, "memory", "enable", "--yes")
    assert result.returncode == 0, result.stderr
    names = [re.split(r"\s+", line)[0] for line in result.stdout.splitlines() if line and not line.startswith(" ")]
    assert names == [
        "vault",
        "groups",
        "claude",
        "codex",
        "opencode",
        "cursor",
        "post-merge",
        "migrate",
        "remote",
        "signing",
    ]
    off = jacked(home, "memory", "disable")
    assert off.stdout.rstrip().endswith("and its notes are untouched")


def test_enable_on_a_terminal_asks_each_question_and_does_what_was_answered(tmp_path):
    """On a terminal: accept the group, hook the first repo and not the second, import the
    .remember/, keep the remember plugin on, no remote."""
    import pty

    home = _home(tmp_path)
    master, slave = pty.openpty()
    os.write(master, b"a\ny\nn\ny\nn\n\n")
    try:
        result = subprocess.run(
            [sys.executable, "-m", "jacked_vault.cli.main", "memory", "enable"],
            stdin=slave, capture_output=True, text=True, cwd=home, env=home_env(home), timeout=300, check=False,
        )  # fmt: skip
    finally:
        os.close(slave)
        os.close(master)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith(
        "vault "
    )  # the questions and answers stay on the terminal, none of it in the result
    assert (
        "install the post-merge hook (merge capture) in" in result.stderr
        and "remote URL for the vault" in result.stderr
    )
    lines = {
        re.split(r"\s+", line)[0]: line for line in result.stdout.splitlines() if line and not line.startswith(" ")
    }
    assert "1 of 2 mapped repo(s) hooked now" in lines["post-merge"]
    api, web = (home / "Github" / name / ".git" / "hooks" / "post-merge" for name in ("api", "api-web"))
    assert api.is_file() and not web.exists()
    assert f"not installed in {web.parent.parent.parent}: `jacked memory hooks install --git" in result.stdout
    assert lines["migrate"].split()[1] == "done"
    assert (
        json.loads((home / ".claude" / "settings.json").read_text())["enabledPlugins"]["remember@thedotmack"] is True
    )  # answered no
    assert "is still on" in result.stdout
    assert lines["remote"].split()[1] == "offered"


def test_disable_without_a_vault_still_removes_everything(tmp_path):
    home = tmp_path / "home"
    repo = home / "Github" / "api"
    make_repo(repo, "git@github.com:acme/api.git")
    (home / ".claude").mkdir()
    for args in (("--claude",), ("--commands", "claude"), ("--git", str(repo))):
        assert jacked(home, "memory", "hooks", "install", *args).returncode == 0
    result = jacked(home, "memory", "disable")
    assert result.returncode == 0, result.stdout + result.stderr
    assert not (repo / ".git" / "hooks" / "post-merge").exists()
    assert not (home / ".claude" / "commands" / "remember.md").exists()
    assert not (home / ".claude" / "settings.json").exists()  # install created it; it held nothing else
    assert "no vault at" in result.stdout and not (home / "jacked-vault").exists()


def test_enable_without_a_terminal_or_yes_turns_the_harnesses_on_and_only_offers_the_rest(tmp_path):
    """Issue 33.22: what the guide says and what `enable` does agree. Running the switch is the
    person's yes to its own part (each harness's hooks, MCP and commands, in per-person files that
    `disable` removes); what reaches a code repo or the shared vault (groups, post-merge hooks,
    imports) is only offered, each with the command that does it."""
    home = _home(tmp_path)
    steps = _steps(jacked(home, "memory", "enable", "--json", stdin=""))
    assert {h: steps[h]["outcome"] for h in ("claude", "codex", "opencode", "cursor")} == dict.fromkeys(
        ("claude", "codex", "opencode", "cursor"), "done"
    )
    groups = steps["groups"]
    assert groups["outcome"] == "offered" and "api (2 repos)" in groups["detail"], groups
    assert "`jacked memory group suggest --yes`" in groups["detail"], groups
    # no group accepted, so no mapped repo to hook or import from
    assert [steps[s]["outcome"] for s in ("post-merge", "migrate")] == ["skipped", "skipped"], steps
    vault_json = json.loads((home / "jacked-vault" / "vault.json").read_text())
    assert not vault_json.get("groups"), vault_json  # no group accepted on the person's behalf
    for name in ("api", "api-web"):
        assert not (home / "Github" / name / ".git" / "hooks" / "post-merge").exists()
    assert set(_notes(home / "jacked-vault")) == {"README.md"}  # nothing imported
    guide = (Path(__file__).parents[2] / "docs" / "user-guide.md").read_text()
    said = " ".join(guide.split("Without a terminal and without `--yes`", 1)[1].split("\n\n", 1)[0].split())
    assert "harness" in said and "offered" in said, said  # the guide says this, not "nothing is accepted"


def test_enable_records_the_harness_it_runs_in(tmp_path):
    """The vault `enable` makes names its harness in its first commit, as `init` does."""
    home = _home(tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "jacked_vault.cli.main", "memory", "enable", "--yes", "--json"],
        capture_output=True,
        text=True,
        cwd=home,
        env=home_env(home, JACKED_MEMORY_HARNESS="codex"),
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    vault = home / "jacked-vault"
    first = git(vault, "rev-list", "--max-parents=0", "HEAD").strip()
    assert git(vault, "log", "-1", "--format=%(trailers:key=Memory-Harness,valueonly)", first).strip() == "codex"
