"""`hooks install|uninstall|status --mcp HARNESS`: each harness's own config file, edited in place.

Install is idempotent and touches nothing but our entry; uninstall removes only ours; a file
we cannot edit safely is refused with nothing written. The last test starts the server
exactly as a written entry says and talks MCP to it.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import anyio
import pytest
from conftest import cli_env
from mcp import Client, StdioServerParameters

from jacked_vault.errors import VaultError
from jacked_vault.harnesses.claude import claude_cli
from jacked_vault.harnesses.installers.codex import mcp_block as codex_block
from jacked_vault.harnesses.launch import Launch
from jacked_vault.hooks import mcp as reg

CLI = "import sys, jacked_vault.cli.mcp; from jacked_vault.cli.main import main; sys.exit(main(sys.argv[1:]))"
REPO_ROOT = Path(__file__).resolve().parents[2]
LAUNCH_CMD = ("/opt/jacked/bin/jacked-memory-mcp", [])


def launch(harness: str, vault: str = "/v") -> Launch:
    return reg.launch_for(harness, Path(vault), command=LAUNCH_CMD)


def jacked(*args: str, cwd: Path, vault: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", CLI, *args],
        cwd=cwd,
        env=cli_env(vault, PYTHONPATH=str(REPO_ROOT), **env),
        capture_output=True,
        text=True,
        timeout=60,
    )


# -- the entries ----------------------------------------------------------------------------------


@pytest.mark.parametrize("harness", reg.HARNESSES)
def test_each_entry_sets_its_own_harness(harness):
    text = reg.render(harness, launch(harness))
    if harness == "codex":
        entry = tomllib.loads(text)["mcp_servers"]["jacked-memory"]
        assert entry == {
            "command": LAUNCH_CMD[0],
            "args": [],
            "env": {"JACKED_MEMORY_HARNESS": "codex", "JACKED_VAULT_DIR": "/v"},
        }
    elif harness == "opencode":
        entry = json.loads(text)["mcp"]["jacked-memory"]
        assert entry == {
            "type": "local",
            "command": [LAUNCH_CMD[0]],
            "enabled": True,
            "environment": {"JACKED_MEMORY_HARNESS": "opencode", "JACKED_VAULT_DIR": "/v"},
        }
    else:
        entry = json.loads(text)["mcpServers"]["jacked-memory"]
        typed = {"type": "stdio"} if harness == "claude" else {}  # Claude's own form (`claude mcp get` needs it)
        assert entry == {
            **typed,
            "command": LAUNCH_CMD[0],
            "args": [],
            "env": {"JACKED_MEMORY_HARNESS": harness, "JACKED_VAULT_DIR": "/v"},
        }


def test_user_scope_only_when_the_operator_asks():
    assert "JACKED_MEMORY_ALLOW_USER_SCOPE" not in launch("claude").env
    assert (
        reg.launch_for("claude", Path("/v"), allow_user_scope=True, command=LAUNCH_CMD).env[
            "JACKED_MEMORY_ALLOW_USER_SCOPE"
        ]
        == "1"
    )


def test_claude_cli_form():
    """The server's name comes first: Claude's `--env` takes several values and would swallow it
    (`error: missing required argument 'commandOrUrl'`, issue 19.6)."""
    line = claude_cli(reg.launch_for("claude", Path("/my vault"), command=("/bin/python", ["-m", "jacked_vault.mcp"])))
    assert line == (
        "claude mcp add jacked-memory --transport stdio --scope user --env JACKED_MEMORY_HARNESS=claude "
        "--env 'JACKED_VAULT_DIR=/my vault' -- /bin/python -m jacked_vault.mcp"
    )


def _claude_cli() -> str | None:
    """Claude Code's `claude` (on PATH, or $JACKED_TEST_CLAUDE): its `mcp add|list` work offline."""
    import os
    import shutil

    return os.environ.get("JACKED_TEST_CLAUDE") or shutil.which("claude")


def _run_claude(line: str, home: Path, cwd: Path) -> subprocess.CompletedProcess:
    import os

    claude = _claude_cli()
    env = {
        "HOME": str(home),
        "PATH": f"{Path(claude).parent}:{os.environ.get('PATH', '')}",
        "PYTHONPATH": str(REPO_ROOT),
        "NO_COLOR": "1",
    }
    argv = ["bash", "-c", f'claude() {{ "$JACKED_CLAUDE" "$@"; }}; {line}']
    return subprocess.run(
        argv, cwd=cwd, env={**env, "JACKED_CLAUDE": claude}, capture_output=True, text=True, timeout=120
    )


def _docs_claude_line() -> str:
    """The `claude mcp add` block of docs/harnesses.md, its lines joined."""
    text = (REPO_ROOT / "docs" / "harnesses.md").read_text(encoding="utf-8")
    (block,) = [b for b in text.split("```bash\n")[1:] if b.startswith("claude mcp add")]
    return " ".join(block.split("```", 1)[0].replace("\\\n", " ").split())


@pytest.mark.skipif(
    _claude_cli() is None,
    reason="Claude Code's `claude` is not installed "
    "(npm install -g @anthropic-ai/claude-code, or set JACKED_TEST_CLAUDE)",
)
@pytest.mark.parametrize("source", ["print", "docs"])
def test_the_claude_mcp_add_line_runs_and_writes_our_entry(tmp_path, vault_path, source):
    """The line `--print` gives (and the one in docs/harnesses.md) run with the real `claude`: it
    registers the entry `hooks install --mcp claude --user` writes, `hooks status` says installed,
    and `claude mcp list` shows the server connected."""
    home = tmp_path / "home"
    home.mkdir()
    work = tmp_path / "proj"
    work.mkdir()
    printed = json.loads(
        jacked(
            "memory",
            "hooks",
            "install",
            "--mcp",
            "claude",
            "--print",
            "--json",
            cwd=work,
            vault=vault_path,
            HOME=str(home),
        ).stdout
    )
    line = printed["mcp"][0]["cli"]
    if source == "docs":
        launch = reg.launch_for("claude", vault_path)
        line = _docs_claude_line().replace(
            "/home/me/.jacked-venv/bin/jacked-memory-mcp", " ".join([launch.command, *launch.args])
        )
        line = line.replace("/home/me/jacked-vault", str(vault_path))
    added = _run_claude(line, home, work)
    assert added.returncode == 0, added.stdout + added.stderr
    written = json.loads((home / ".claude.json").read_text())["mcpServers"]["jacked-memory"]
    assert written == reg.entry("claude", reg.launch_for("claude", vault_path))
    status = jacked(
        "memory", "hooks", "status", "--mcp", "claude", "--user", "--json", cwd=work, vault=vault_path, HOME=str(home)
    )
    assert json.loads(status.stdout)["mcp"][0]["state"] == "installed"
    listed = _run_claude("claude mcp list", home, work)
    assert listed.returncode == 0 and re.search(r"jacked-memory: .*Connected", listed.stdout), (
        listed.stdout + listed.stderr
    )


def test_default_paths(tmp_path):
    from conftest import make_repo

    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    make_repo(repo)
    cwd = repo / "src"
    assert reg.default_config_path("claude", cwd) == repo / ".mcp.json"
    assert reg.default_config_path("cursor", cwd) == repo / ".cursor" / "mcp.json"
    assert reg.default_config_path("opencode", cwd) == repo / "opencode.json"
    (repo / "opencode.jsonc").write_text("{}\n")
    assert reg.default_config_path("opencode", cwd) == repo / "opencode.jsonc"
    assert reg.default_config_path("codex", cwd, {"HOME": "/home/u"}) == Path("/home/u/.codex/config.toml")
    assert reg.default_config_path("codex", cwd, {"CODEX_HOME": "/c", "HOME": "/home/u"}) == Path("/c/config.toml")


# -- JSON configs ---------------------------------------------------------------------------------

JSON_CASES = {
    "claude": (
        "mcpServers",
        {"mcpServers": {"github": {"command": "gh-mcp", "args": [], "env": {"TOKEN": "${GH}"}}}, "other": [1, 2]},
    ),
    "cursor": ("mcpServers", {"mcpServers": {"db": {"command": "db-mcp"}}}),
    "opencode": (
        "mcp",
        {
            "$schema": "https://opencode.ai/config.json",
            "theme": "dark",
            "mcp": {"fs": {"type": "local", "command": ["fs"]}},
        },
    ),
}


@pytest.mark.parametrize("harness", sorted(JSON_CASES))
def test_json_install_is_idempotent_and_uninstall_restores(tmp_path, harness):
    key, original = JSON_CASES[harness]
    path = tmp_path / "cfg.json"
    original_text = json.dumps(original, indent=2) + "\n"
    path.write_text(original_text)

    assert reg.install(harness, path, launch(harness)).action == "updated"
    doc = json.loads(path.read_text())
    assert doc[key]["jacked-memory"] == reg.entry(harness, launch(harness))
    assert {k: v for k, v in doc[key].items() if k != "jacked-memory"} == original[key]
    assert {k: v for k, v in doc.items() if k != key} == {k: v for k, v in original.items() if k != key}
    assert reg.status(harness, path, launch(harness)) == "installed"

    installed = path.read_bytes()
    assert reg.install(harness, path, launch(harness)).action == "unchanged"
    assert path.read_bytes() == installed
    assert reg.status(harness, path, launch(harness, "/elsewhere")) == "outdated"
    assert reg.install(harness, path, launch(harness, "/elsewhere")).action == "updated"
    assert json.loads(path.read_text())[key]["jacked-memory"] == reg.entry(harness, launch(harness, "/elsewhere"))

    assert reg.uninstall(harness, path).action == "restored"
    assert path.read_text() == original_text
    assert not list(path.parent.glob(path.name + ".jacked-backup-*"))  # 35.2: its backup, put back
    assert reg.uninstall(harness, path).action == "absent"
    assert reg.status(harness, path, launch(harness)) == "absent"


def test_json_created_when_missing_and_keeps_tabs(tmp_path):
    path = tmp_path / ".cursor" / "mcp.json"
    assert reg.install("cursor", path, launch("cursor")).action == "created"
    assert json.loads(path.read_text()) == {"mcpServers": {"jacked-memory": reg.entry("cursor", launch("cursor"))}}

    tabbed = tmp_path / "tabbed.json"
    tabbed.write_text('{\n\t"mcpServers": {}\n}\n')
    reg.install("claude", tabbed, launch("claude"))
    assert '\n\t"mcpServers"' in tabbed.read_text() and '\n\t\t"jacked-memory"' in tabbed.read_text()


def test_json_install_writes_through_a_symlink(tmp_path):
    real = tmp_path / "dotfiles" / "mcp.json"
    real.parent.mkdir()
    real.write_text('{"mcpServers": {}}\n')
    link = tmp_path / ".mcp.json"
    link.symlink_to(real)
    reg.install("claude", link, launch("claude"))
    assert link.is_symlink()
    assert "jacked-memory" in json.loads(real.read_text())["mcpServers"]


@pytest.mark.parametrize(
    "content",
    [b'{"mcpServers": {}, // comment\n}', b"[1, 2]", b'{"mcpServers": ["not", "an", "object"]}', b"\x00\xff not utf-8"],
)
def test_json_refuses_what_it_cannot_edit_and_writes_nothing(tmp_path, content):
    path = tmp_path / "cfg.json"
    path.write_bytes(content)
    before = path.read_bytes()
    with pytest.raises(VaultError) as info:
        reg.install("claude", path, launch("claude"))
    assert info.value.code == "CONFIG"
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["cfg.json"]  # no temp file left behind


OPENCODE_JSONC = """\
// my OpenCode config: comments and trailing commas, as opencode.jsonc allows
{
  "$schema": "https://opencode.ai/config.json",
  "theme": "dark", // the theme I like
  /* servers I run */
  "mcp": {
    "fs": { "type": "local", "command": ["fs",], }, // files
  },
}
"""


def test_opencode_jsonc_is_edited_in_place_keeping_comments_and_trailing_commas(tmp_path):
    path = tmp_path / "opencode.jsonc"
    path.write_text(OPENCODE_JSONC)
    assert reg.default_config_path("opencode", tmp_path) == path
    assert reg.install("opencode", path, launch("opencode")).action == "updated"
    text = path.read_text()
    for kept in (
        "// my OpenCode config",
        "// the theme I like",
        "/* servers I run */",
        '"command": ["fs",], }, // files',
    ):
        assert kept in text
    with pytest.raises(ValueError):
        json.loads(text)  # still JSONC: nothing was rewritten as plain JSON
    assert reg.status("opencode", path, launch("opencode")) == "installed"
    assert reg.install("opencode", path, launch("opencode")).action == "unchanged" and path.read_text() == text
    assert reg.install("opencode", path, launch("opencode", "/elsewhere")).action == "updated"
    assert reg.status("opencode", path, launch("opencode", "/elsewhere")) == "installed"
    assert reg.uninstall("opencode", path).action == "restored"
    assert path.read_text() == OPENCODE_JSONC
    assert not list(path.parent.glob(path.name + ".jacked-backup-*"))  # 35.2: its backup, put back


def test_opencode_jsonc_refused_when_broken_and_nothing_written(tmp_path):
    path = tmp_path / "opencode.jsonc"
    path.write_text('{ "mcp": { /* never closed }\n')
    with pytest.raises(VaultError) as info:
        reg.install("opencode", path, launch("opencode"))
    assert info.value.code == "CONFIG"
    assert path.read_text() == '{ "mcp": { /* never closed }\n'
    assert [p.name for p in tmp_path.iterdir()] == ["opencode.jsonc"]


# -- TOML (codex) ---------------------------------------------------------------------------------

CODEX_ORIGINAL = """\
# my codex config
model = "o3"  # the default
approval_policy = "on-request"

[mcp_servers.github]
command = "gh-mcp"
args = ["--stdio"]
env = { "TOKEN" = "${GH}" }

# a comment that belongs to profiles
[profiles.fast]
model = "o4-mini"

[[notes]]
text = "array of tables"
"""


def test_codex_install_appends_and_uninstall_restores_byte_for_byte(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(CODEX_ORIGINAL)
    assert reg.install("codex", path, launch("codex")).action == "updated"
    text = path.read_text()
    assert text.startswith(CODEX_ORIGINAL)  # every other byte kept
    doc = tomllib.loads(text)
    assert doc["mcp_servers"]["jacked-memory"] == reg.entry("codex", launch("codex"))
    assert doc["mcp_servers"]["github"]["env"] == {"TOKEN": "${GH}"}
    assert reg.install("codex", path, launch("codex")).action == "unchanged"
    assert path.read_text() == text
    assert reg.status("codex", path, launch("codex")) == "installed"
    assert reg.uninstall("codex", path).action == "restored"
    assert path.read_text() == CODEX_ORIGINAL
    assert not list(path.parent.glob(path.name + ".jacked-backup-*"))  # 35.2: its backup, put back


def test_codex_outdated_entry_is_replaced_in_place(tmp_path):
    path = tmp_path / "config.toml"
    ours = codex_block(launch("codex", "/old vault"))
    before, after = CODEX_ORIGINAL.split("# a comment that belongs to profiles\n")
    path.write_text(before + ours + "\n# a comment that belongs to profiles\n" + after)
    assert reg.status("codex", path, launch("codex")) == "outdated"
    assert reg.install("codex", path, launch("codex")).action == "updated"
    assert (
        path.read_text() == before + codex_block(launch("codex")) + "\n# a comment that belongs to profiles\n" + after
    )
    reg.uninstall("codex", path)
    assert path.read_text() == before + "# a comment that belongs to profiles\n" + after
    assert tomllib.loads(path.read_text()) == tomllib.loads(CODEX_ORIGINAL)


def test_codex_quoted_header_and_subtable_are_ours(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(
        'model = "o3"\n\n[mcp_servers."jacked-memory"]\ncommand = "old"\n\n'
        '[mcp_servers."jacked-memory".env]\nX = "1"\n\n[other]\na = 1\n'
    )
    reg.install("codex", path, launch("codex"))
    doc = tomllib.loads(path.read_text())
    assert doc["mcp_servers"]["jacked-memory"] == reg.entry("codex", launch("codex")) and doc["other"] == {"a": 1}
    reg.uninstall("codex", path)
    assert tomllib.loads(path.read_text()) == {"model": "o3", "other": {"a": 1}}


def test_codex_created_when_missing_and_special_characters_escaped(tmp_path):
    path = tmp_path / "codex-home" / "config.toml"
    odd = reg.launch_for("codex", Path('/v/with "quotes" and \\ and \x7f'), command=("/bin/p y", ["-m", "x"]))
    assert reg.install("codex", path, odd).action == "created"
    assert (
        tomllib.loads(path.read_text())["mcp_servers"]["jacked-memory"]["env"]["JACKED_VAULT_DIR"]
        == '/v/with "quotes" and \\ and \x7f'
    )


@pytest.mark.parametrize(
    "content",
    [
        'mcp_servers = { github = { command = "gh" } }\n',  # inline table: a [mcp_servers.x] header would be invalid
        'model = "o3\n',  # not TOML
        '[mcp_servers]\njacked-memory = { command = "hand-written" }\n',  # ours, in a form we do not edit
    ],
)
def test_codex_refuses_what_it_cannot_edit_and_writes_nothing(tmp_path, content):
    path = tmp_path / "config.toml"
    path.write_text(content)
    with pytest.raises(VaultError) as info:
        reg.install("codex", path, launch("codex"))
    assert info.value.code == "CONFIG"
    assert path.read_text() == content


# -- the CLI --------------------------------------------------------------------------------------


def test_cli_print_writes_nothing(tmp_path, vault_path):
    work = tmp_path / "proj"
    work.mkdir()
    for harness in reg.HARNESSES:
        proc = jacked("memory", "hooks", "install", "--mcp", harness, "--print", "--json", cwd=work, vault=vault_path)
        assert proc.returncode == 0, proc.stderr
        item = json.loads(proc.stdout)["mcp"][0]
        assert item["action"] == "printed" and item["harness"] == harness
        snippet = item["snippet"]
        parsed = tomllib.loads(snippet) if harness == "codex" else json.loads(snippet)
        assert f'"JACKED_MEMORY_HARNESS": "{harness}"' in json.dumps(parsed)
        assert str(vault_path) in snippet
    assert sorted(p.name for p in work.iterdir()) == []
    human = jacked("memory", "hooks", "install", "--mcp", "claude", "--print", cwd=work, vault=vault_path)
    assert "claude mcp add" in human.stdout and '"mcpServers"' in human.stdout


@pytest.mark.parametrize("family", [["--codex"], ["--claude"], ["--opencode"], ["--cursor"], ["--commands", "codex"]])
def test_print_with_what_it_cannot_print_is_refused_and_writes_nothing(tmp_path, vault_path, family: list[str]):
    """Issue 33.11: `--print` prints MCP entries only; `hooks install --codex --print` wrote Codex's
    config.toml (and a backup) instead. Refused, nothing written anywhere under HOME or the cwd."""
    work, codex_home = tmp_path / "proj", tmp_path / "codex-home"
    work.mkdir()
    codex_home.mkdir()
    files = lambda: {p: p.read_bytes() for p in vault_path.parent.rglob("*") if p.is_file()}  # noqa: E731
    home_before = files()
    proc = jacked(
        "memory", "hooks", "install", *family, "--print", "--json", cwd=work, vault=vault_path,
        CODEX_HOME=str(codex_home),
    )  # fmt: skip
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert json.loads(proc.stdout)["error"]["code"] == "JACKED_MEMORY_USAGE"
    assert "--print" in json.loads(proc.stdout)["error"]["message"]
    assert list(work.iterdir()) == [] and list(codex_home.iterdir()) == []
    assert files() == home_before


def test_cli_install_status_uninstall(tmp_path, vault_path):
    work = tmp_path / "proj"
    work.mkdir()
    config = work / ".mcp.json"
    config.write_text('{\n  "mcpServers": {\n    "other": {\n      "command": "x"\n    }\n  }\n}\n')
    original = config.read_text()
    args = ("--mcp", "claude", "--config", str(config), "--json")

    first = jacked("memory", "hooks", "install", *args, cwd=work, vault=vault_path)
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["mcp"] == [{"harness": "claude", "path": str(config), "action": "updated"}]
    again = jacked("memory", "hooks", "install", *args, cwd=work, vault=vault_path)
    assert json.loads(again.stdout)["mcp"][0]["action"] == "unchanged"
    status = jacked("memory", "hooks", "status", *args, cwd=work, vault=vault_path)
    assert json.loads(status.stdout)["mcp"][0]["state"] == "installed"
    entry = json.loads(config.read_text())["mcpServers"]["jacked-memory"]
    assert entry["env"] == {"JACKED_MEMORY_HARNESS": "claude", "JACKED_VAULT_DIR": str(vault_path)}

    removed = jacked("memory", "hooks", "uninstall", *args, cwd=work, vault=vault_path)
    assert json.loads(removed.stdout)["mcp"][0]["action"] == "restored"
    assert config.read_text() == original

    usage = jacked("memory", "hooks", "install", "--json", cwd=work, vault=vault_path)
    assert usage.returncode == 2 and json.loads(usage.stdout)["error"]["code"] == "JACKED_MEMORY_USAGE"
    bad = jacked("memory", "hooks", "install", "--mcp", "vscode", "--json", cwd=work, vault=vault_path)
    assert bad.returncode == 2 and "use one of claude" in json.loads(bad.stdout)["error"]["message"]
    two = jacked(
        "memory",
        "hooks",
        "install",
        "--mcp",
        "claude",
        "--mcp",
        "cursor",
        "--config",
        str(config),
        "--json",
        cwd=work,
        vault=vault_path,
    )
    assert two.returncode == 2
    assert config.read_text() == original


def test_cli_registers_in_a_commented_opencode_jsonc_and_uninstall_gives_its_bytes_back(tmp_path, vault_path):
    work = tmp_path / "proj"
    work.mkdir()
    config = work / "opencode.jsonc"
    config.write_text(OPENCODE_JSONC)
    args = ("--mcp", "opencode", "--json")
    first = jacked("memory", "hooks", "install", *args, cwd=work, vault=vault_path)
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["mcp"] == [{"harness": "opencode", "path": str(config), "action": "updated"}]
    assert "// the theme I like" in config.read_text()
    status = jacked("memory", "hooks", "status", *args, cwd=work, vault=vault_path)
    assert json.loads(status.stdout)["mcp"][0]["state"] == "installed"
    removed = jacked("memory", "hooks", "uninstall", *args, cwd=work, vault=vault_path)
    assert json.loads(removed.stdout)["mcp"][0]["action"] == "restored"
    assert config.read_text() == OPENCODE_JSONC
    assert sorted(p.name for p in work.iterdir()) == ["opencode.jsonc"]


def test_cli_install_in_a_code_repo_says_the_file_holds_this_machines_paths(tmp_path, vault_path):
    from conftest import git, make_repo

    work = tmp_path / "code"
    work.mkdir()
    make_repo(work)
    first = jacked("memory", "hooks", "install", "--mcp", "claude", "--json", cwd=work, vault=vault_path)
    item = json.loads(first.stdout)["mcp"][0]
    assert item["path"] == str(work / ".mcp.json") and item["repo_file"] == {"repo": str(work), "state": "untracked"}
    assert "untracked" in item["notice"] and "--mcp claude --user" in item["notice"]
    human = jacked("memory", "hooks", "install", "--mcp", "claude", cwd=work, vault=vault_path)
    assert "note: " in human.stdout and "absolute paths" in human.stdout
    git(work, "add", ".mcp.json")
    tracked = json.loads(
        jacked("memory", "hooks", "install", "--mcp", "claude", "--json", cwd=work, vault=vault_path).stdout
    )["mcp"][0]
    assert tracked["repo_file"]["state"] == "tracked" and "shares" in tracked["notice"]
    git(work, "rm", "-q", "--cached", ".mcp.json")
    (work / ".gitignore").write_text(".mcp.json\n")
    ignored = json.loads(
        jacked("memory", "hooks", "install", "--mcp", "claude", "--json", cwd=work, vault=vault_path).stdout
    )["mcp"][0]
    assert "notice" not in ignored and "repo_file" not in ignored


def test_cli_user_install_writes_the_per_person_file_and_nothing_in_the_repo(tmp_path, vault_path):
    from conftest import make_repo

    work = tmp_path / "code"
    work.mkdir()
    make_repo(work)
    person = tmp_path / ".claude.json"  # HOME is the vault's parent
    original = (
        json.dumps(
            {"numStartups": 3, "projects": {str(work): {"mcpServers": {}}}, "mcpServers": {"gh": {"command": "gh"}}},
            indent=2,
        )
        + "\n"
    )
    person.write_text(original)
    done = jacked("memory", "hooks", "install", "--mcp", "claude", "--user", "--json", cwd=work, vault=vault_path)
    item = json.loads(done.stdout)["mcp"][0]
    assert item == {"harness": "claude", "path": str(person), "action": "updated"}
    doc = json.loads(person.read_text())
    assert (
        doc["mcpServers"]["gh"] == {"command": "gh"}
        and doc["numStartups"] == 3
        and doc["projects"] == {str(work): {"mcpServers": {}}}
    )
    assert doc["mcpServers"]["jacked-memory"]["env"]["JACKED_VAULT_DIR"] == str(vault_path)
    assert sorted(p.name for p in work.iterdir()) == [".git", "README.md"]
    status = jacked("memory", "hooks", "status", "--mcp", "claude", "--user", "--json", cwd=work, vault=vault_path)
    assert json.loads(status.stdout)["mcp"][0]["state"] == "installed"
    assert (
        json.loads(jacked("memory", "hooks", "status", "--mcp", "claude", "--json", cwd=work, vault=vault_path).stdout)[
            "mcp"
        ][0]["state"]
        == "absent"
    )
    jacked("memory", "hooks", "uninstall", "--mcp", "claude", "--user", cwd=work, vault=vault_path)
    assert person.read_text() == original


def test_user_paths(tmp_path):
    env = {"HOME": "/home/u"}
    assert reg.default_config_path("claude", tmp_path, env, user=True) == Path("/home/u/.claude.json")
    assert reg.default_config_path("cursor", tmp_path, env, user=True) == Path("/home/u/.cursor/mcp.json")
    assert reg.default_config_path("opencode", tmp_path, env, user=True) == Path(
        "/home/u/.config/opencode/opencode.json"
    )
    assert reg.default_config_path("opencode", tmp_path, {**env, "XDG_CONFIG_HOME": "/x"}, user=True) == Path(
        "/x/opencode/opencode.json"
    )
    assert reg.default_config_path("codex", tmp_path, env, user=True) == Path("/home/u/.codex/config.toml")


def test_cli_status_lists_every_harness(tmp_path, vault_path):
    work = tmp_path / "proj"
    work.mkdir()
    proc = jacked("memory", "hooks", "status", "--json", cwd=work, vault=vault_path)
    assert proc.returncode == 0, proc.stderr
    assert [(i["harness"], i["state"]) for i in json.loads(proc.stdout)["mcp"]] == [
        (h, "absent") for h in reg.HARNESSES
    ]


def test_a_written_entry_starts_a_working_server(tmp_path, vault_path):
    """The entry as written into a config, run as the harness would run it."""
    path = tmp_path / "proj" / ".mcp.json"
    real = reg.launch_for("claude", vault_path, command=(sys.executable, ["-m", "jacked_vault.mcp"]))
    reg.install("claude", path, real)
    entry = json.loads(path.read_text())["mcpServers"]["jacked-memory"]
    params = StdioServerParameters(
        command=entry["command"],
        args=entry["args"],
        env={**entry["env"], "PYTHONPATH": str(REPO_ROOT), "HOME": str(tmp_path)},
        cwd=str(tmp_path),
    )

    async def go():
        async with Client(params, read_timeout_seconds=60) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            saved = await client.call_tool("memory_save", {"title": "Registered", "body": "works", "group": "g"})
            return names, saved

    names, saved = anyio.run(go)
    assert sorted(names) == ["memory_brief", "memory_doctor", "memory_read", "memory_save", "memory_search"]
    assert not saved.is_error and saved.structured_content["memory"]["source_harness"] == "claude"


def test_a_claude_entry_written_before_it_had_a_type_is_still_ours_and_left_alone(tmp_path):
    path = tmp_path / ".mcp.json"
    old = {k: v for k, v in reg.entry("claude", launch("claude")).items() if k != "type"}
    path.write_text(json.dumps({"mcpServers": {"jacked-memory": old}}, indent=2) + "\n")
    before = path.read_bytes()
    assert reg.status("claude", path, launch("claude")) == "installed"
    assert reg.install("claude", path, launch("claude")).action == "unchanged" and path.read_bytes() == before


def test_uninstall_after_the_file_changed_takes_only_our_entry_out_and_leaves_no_backup(tmp_path):
    """Issue 35.2: an MCP file is backed up like every other (jacked's first change). Claude Code
    rewrites values in `~/.claude.json` all the time: uninstall then takes only our entry out, and
    the backup goes too (it kept only what the file's owners replaced since), as from every file."""
    path = tmp_path / ".claude.json"
    path.write_text('{\n  "numStartups": 1,\n  "mcpServers": {"other": {"command": "x"}}\n}\n')
    reg.install("claude", path, launch("claude"))
    assert len(list(tmp_path.glob(".claude.json.jacked-backup-*"))) == 1
    path.write_text(path.read_text().replace('"numStartups": 1', '"numStartups": 2', 1))
    assert reg.uninstall("claude", path).action == "removed"
    assert path.read_text() == '{\n  "numStartups": 2,\n  "mcpServers": {"other": {"command": "x"}}\n}\n'
    assert not list(tmp_path.glob(".claude.json.jacked-backup-*"))
