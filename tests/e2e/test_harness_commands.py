"""Issue 33.4, 33.5: `/remember` and `/learn` as each harness loads them today, naming their harness.

Claude Code and OpenCode read command files; Codex 0.171 no longer reads `$CODEX_HOME/prompts/`
and gets them as skills (`$remember`, `$learn`) in `$CODEX_HOME/skills/`. Every file names its
harness in the one command it prescribes, so a note saved through it records that harness.
The real CLI runs in a subprocess against a temp HOME; tests/e2e/test_real_clients.py runs the real
`codex` on the installed skill.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest
from conftest import make_repo

from jacked_vault.hooks import commands
from tests.helpers.homes import home_env, jacked

FILES = {
    "claude": (".claude/commands/remember.md", ".claude/commands/learn.md"),
    "codex": (".codex/skills/remember/SKILL.md", ".codex/skills/learn/SKILL.md"),
    "opencode": (".config/opencode/commands/remember.md", ".config/opencode/commands/learn.md"),
}


def _prescribed(text: str) -> list[str]:
    """The one `jacked memory add` line the command text tells the agent to run, as argv."""
    [line] = [ln.strip() for ln in text.splitlines() if " add --kind " in ln]
    return shlex.split(line)


@pytest.mark.parametrize("harness", sorted(FILES))
def test_each_command_names_its_harness_and_a_save_through_it_records_that_harness(tmp_path: Path, harness: str):
    home = tmp_path / "home"
    home.mkdir()
    repo = home / "code" / "api"
    repo.mkdir(parents=True)
    make_repo(repo, "git@github.com:acme/api.git")
    assert jacked(home, "memory", "init", "--no-scan").returncode == 0
    done = jacked(home, "memory", "hooks", "install", "--commands", harness)
    assert done.returncode == 0, done.stdout + done.stderr
    for rel, kind in zip(FILES[harness], ("convention", "lesson"), strict=True):
        argv = _prescribed((home / rel).read_text())
        assert argv[argv.index("--harness") + 1] == harness, argv
        title = f"Saved through {harness}'s {Path(rel).parent.name if harness == 'codex' else Path(rel).stem}"
        argv = [w.replace("KIND", kind).replace("TITLE", title) for w in argv]  # what the agent fills in
        saved = subprocess.run(
            argv, input="The body.\n", capture_output=True, text=True, env=home_env(home), cwd=repo, check=False
        )
        assert saved.returncode == 0, saved.stderr
        note = json.loads(saved.stdout)["memory"]
        assert note["source_harness"] == harness, note
        read = jacked(home, "memory", "read", note["id"], "--json", cwd=repo)
        assert json.loads(read.stdout)["memory"]["source_harness"] == harness, read.stdout


def test_codex_gets_skills_where_it_loads_them_and_no_prompts(tmp_path: Path):
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    done = jacked(home, "memory", "hooks", "install", "--commands", "codex")
    assert done.returncode == 0, done.stdout + done.stderr
    for name in commands.NAMES:
        text = (home / ".codex" / "skills" / name / "SKILL.md").read_text()
        assert text.startswith(
            f"---\nname: {name}\ndescription: "
        )  # Codex's skill frontmatter: the name is the folder's
        assert "$ARGUMENTS" not in text  # a skill gets no arguments: the person's words are in their message
    assert not (home / ".codex" / "prompts").exists()
    status = jacked(home, "memory", "hooks", "status", "--commands", "codex", "--json")
    assert status.stdout.count('"installed"') == 2, status.stdout
    assert jacked(home, "memory", "hooks", "uninstall", "--commands", "codex").returncode == 0
    assert (
        not (home / ".codex" / "skills" / "remember").exists() and not (home / ".codex" / "skills" / "learn").exists()
    )


def test_the_prompts_an_older_version_wrote_for_codex_are_removed_and_someone_elses_kept(tmp_path: Path):
    """Codex 0.171 does not load `$CODEX_HOME/prompts/`: the files an older jacked wrote there are
    dead; install (an upgrade) and uninstall remove them, and only them."""
    home = tmp_path / "home"
    prompts = home / ".codex" / "prompts"
    prompts.mkdir(parents=True)
    old = f"---\ndescription: Save one fact\nargument-hint: [what]\n---\n\n{commands.MARKER}\n\nSave: $ARGUMENTS\n"
    for op in ("install", "uninstall"):
        (prompts / "remember.md").write_text(old)
        (prompts / "learn.md").write_text(old)
        (prompts / "mine.md").write_text("my own prompt\n")
        done = jacked(home, "memory", "hooks", op, "--commands", "codex")
        assert done.returncode == 0, done.stdout + done.stderr
        assert sorted(p.name for p in prompts.iterdir()) == ["mine.md"], op
        assert str(prompts / "remember.md") in done.stdout, done.stdout  # said, not silent


def test_status_names_a_dead_codex_prompt_as_outdated(tmp_path: Path):
    home = tmp_path / "home"
    home.mkdir()
    assert jacked(home, "memory", "hooks", "install", "--commands", "codex").returncode == 0
    dead = home / ".codex" / "prompts" / "remember.md"
    dead.parent.mkdir(parents=True)
    dead.write_text(f"---\ndescription: x\n---\n\n{commands.MARKER}\n\nSave: $ARGUMENTS\n")
    rows = json.loads(jacked(home, "memory", "hooks", "status", "--commands", "codex", "--json").stdout)
    assert {"harness": "codex", "path": str(dead), "state": "outdated"} in rows["commands"], rows
