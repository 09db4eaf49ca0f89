"""Issue 33.10: uninstall leaves no file install created. A harness config file jacked created and
that holds nothing else is removed; a backup of a file put back byte for byte is removed; a file
the person had before install (even `{}` or an empty TOML) stays exactly as it was.

The real CLI in a temp HOME holding a real code repo (`tests/helpers/homes.py`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import make_repo

from tests.helpers.homes import jacked, tree

# (id, the `hooks install` options, the file it writes: relative to HOME, or "repo/…" in the code repo)
FILES = [
    ("mcp-claude-project", ("--mcp", "claude"), "repo/.mcp.json"),
    ("mcp-cursor-project", ("--mcp", "cursor"), "repo/.cursor/mcp.json"),
    ("mcp-opencode-project", ("--mcp", "opencode"), "repo/opencode.json"),
    ("mcp-claude-user", ("--mcp", "claude", "--user"), ".claude.json"),
    ("mcp-cursor-user", ("--mcp", "cursor", "--user"), ".cursor/mcp.json"),
    ("mcp-opencode-user", ("--mcp", "opencode", "--user"), ".config/opencode/opencode.json"),
    ("mcp-codex", ("--mcp", "codex"), ".codex/config.toml"),
    ("claude-hooks", ("--claude",), ".claude/settings.json"),
    ("codex-hooks", ("--codex",), ".codex/config.toml"),
    ("cursor-hooks-project", ("--cursor",), "repo/.cursor/hooks.json"),
    ("cursor-hooks-user", ("--cursor", "--user"), ".cursor/hooks.json"),
]
SKIP = (".git", "jacked-vault")  # the repo's git folder, the vault (its state changes)
PARAMS = [pytest.param(args, where, id=name) for name, args, where in FILES]


def _machine(tmp_path: Path) -> tuple[Path, Path]:
    """A HOME with each harness's folder and a code repo under it; a vault there."""
    home = tmp_path / "home"
    for folder in (".claude", ".codex", ".cursor", ".config/opencode"):
        (home / folder).mkdir(parents=True)
    repo = home / "Github" / "api"
    make_repo(repo, "git@github.com:acme/api.git")
    assert jacked(home, "memory", "init", "--no-scan").returncode == 0
    return home, repo


def _path(home: Path, repo: Path, where: str) -> Path:
    return repo / where.removeprefix("repo/") if where.startswith("repo/") else home / where


def _run(home: Path, repo: Path, op: str, args: tuple[str, ...]) -> None:
    done = jacked(home, "memory", "hooks", op, *args, cwd=repo)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(("args", "where"), PARAMS)
def test_install_then_uninstall_leaves_the_folder_as_it_was(tmp_path: Path, args: tuple[str, ...], where: str):
    home, repo = _machine(tmp_path)
    path = _path(home, repo, where)
    folder = path.parent if path.parent.exists() else path.parent.parent
    before = tree(folder, skip=SKIP)
    _run(home, repo, "install", args)
    assert path.is_file()
    _run(home, repo, "uninstall", args)
    assert tree(folder, skip=SKIP) == before  # no file, no backup
    assert not path.exists()


@pytest.mark.parametrize(("args", "where"), PARAMS)
@pytest.mark.parametrize("content", ["empty", "settings"])
def test_a_file_the_person_had_is_left_byte_for_byte(tmp_path: Path, args: tuple[str, ...], where: str, content: str):
    home, repo = _machine(tmp_path)
    path = _path(home, repo, where)
    path.parent.mkdir(parents=True, exist_ok=True)
    toml = path.suffix == ".toml"
    if content == "empty":
        path.write_text("" if toml else "{}")
    else:
        path.write_text('model = "o3"  # mine\n' if toml else '{\n  "theme": "dark"\n}\n')
    before = tree(path.parent, skip=SKIP)
    _run(home, repo, "install", args)
    assert tree(path.parent, skip=SKIP) != before
    _run(home, repo, "uninstall", args)
    assert tree(path.parent, skip=SKIP) == before  # the same bytes, and no backup beside them


def test_codex_hooks_and_mcp_in_one_config_toml_leave_nothing_in_either_order(tmp_path: Path):
    home, repo = _machine(tmp_path)
    before = tree(home / ".codex")
    for order in ((("--codex",), ("--mcp", "codex")), (("--mcp", "codex"), ("--codex",))):
        for args in order:
            _run(home, repo, "install", args)
        for args in order:
            _run(home, repo, "uninstall", args)
        assert tree(home / ".codex") == before, order


def test_enable_then_disable_leaves_no_backup(tmp_path: Path):
    """Codex writes its own tables into config.toml once it runs (trust, projects): disable then
    takes jacked's entries out of the file as it is now, and leaves no backup of it."""
    home, _ = _machine(tmp_path)
    config = home / ".codex" / "config.toml"
    config.write_text('model = "o3"\n')
    (home / ".claude" / "settings.json").write_text('{"theme": "dark"}\n')
    before = tree(home, skip=("jacked-vault", "Github"))
    enabled = jacked(home, "memory", "enable", "--yes", "--json")
    assert enabled.returncode == 0, enabled.stdout + enabled.stderr
    codex_wrote = '\n[projects."/work"]\ntrust_level = "trusted"\n'
    config.write_text(config.read_text() + codex_wrote)
    assert jacked(home, "memory", "disable").returncode == 0
    after = tree(home, skip=("jacked-vault", "Github"))
    assert not [name for name in after if ".jacked-backup-" in name], sorted(after)
    assert config.read_text() == 'model = "o3"\n' + codex_wrote
    del after[".codex/config.toml"], before[".codex/config.toml"]
    assert after == before
