"""Real MCP clients against `jacked-memory-mcp` (issue 19, the real-client check).

- the MCP Inspector's CLI (`@modelcontextprotocol/inspector --cli`) lists every tool and prompt
  and calls each of them, as a person debugging a server would;
- the MCP TypeScript SDK's client (`scripts/mcp-client-check.cjs`) compiles every input schema
  with Ajv (JSON Schema 2020-12, strict), calls every tool and gets every prompt;
- Claude Code's `claude mcp list` shows the server connected after `hooks install --mcp claude
  --user`, in a temp HOME (offline).

Each test skips, saying what to install, when its client is missing. `scripts/check-real-clients.sh`
installs them all into a temp prefix and runs this file (with tests/e2e/test_hook_frameworks.py for
husky, lefthook and pre-commit, and the `claude mcp add` line of tests/e2e/test_mcp_registration.py).
- OpenCode's `opencode debug skill` lists the librarian once (no "duplicate skill name") with
  Claude's, Codex's and OpenCode's installed, in a temp HOME (offline).

Codex (`codex mcp list`) and OpenCode (`opencode mcp list`) belong here too; their families add them.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import cli_env, make_repo, run_cli
from helpers.codex_model import codex_offline

REPO_ROOT = Path(__file__).resolve().parents[2]
SERVER = [sys.executable, "-m", "jacked_vault.mcp"]
NODE_MODULES = os.environ.get("JACKED_TEST_NODE_MODULES")  # where the npm clients are installed


def _bin(name: str, env: str) -> str | None:
    if os.environ.get(env):
        return os.environ[env]
    if NODE_MODULES and (Path(NODE_MODULES) / ".bin" / name).exists():
        return str(Path(NODE_MODULES) / ".bin" / name)
    return shutil.which(name)


INSPECTOR = _bin("mcp-inspector", "JACKED_TEST_INSPECTOR")
CLAUDE = _bin("claude", "JACKED_TEST_CLAUDE")
CLAUDE_MISSING = (
    "Claude Code's `claude` is not installed (npm install @anthropic-ai/claude-code; or set JACKED_TEST_CLAUDE)"
)
CODEX = _bin("codex", "JACKED_TEST_CODEX")
CODEX_MISSING = "OpenAI's `codex` is not installed (npm install @openai/codex; or set JACKED_TEST_CODEX)"
OPENCODE = _bin("opencode", "JACKED_TEST_OPENCODE")
OPENCODE_MISSING = (
    "OpenCode's `opencode` is not installed (npm install opencode-ai, then its postinstall.mjs; "
    "or set JACKED_TEST_OPENCODE)"
)
NODE = shutil.which("node")


def _ts_sdk() -> str | None:
    for folder in filter(None, [NODE_MODULES, *(os.environ.get("NODE_PATH") or "").split(os.pathsep)]):
        if (Path(folder) / "@modelcontextprotocol" / "sdk" / "package.json").exists() and (
            Path(folder) / "ajv" / "dist" / "2020.js"
        ).exists():
            return folder
    return None


@pytest.fixture
def world(tmp_path: Path):
    """A vault with one decision for a code repo; HOME is the temp folder."""
    vault = tmp_path / "vault"
    assert run_cli("memory", "init", "--no-scan", vault=vault).code == 0
    repo = tmp_path / "code" / "api"
    repo.mkdir(parents=True)
    make_repo(repo, "git@github.com:acme/api.git")
    added = run_cli(
        "memory",
        "add",
        "--kind",
        "decision",
        "--title",
        "Use SQLite FTS5 for search",
        "--body",
        "Offline, no server.",
        vault=vault,
        cwd=repo,
    )
    assert added.code == 0, added.err
    return tmp_path, vault, repo


def _server_env(tmp: Path, vault: Path, repo: Path, harness: str) -> dict[str, str]:
    return {
        **cli_env(vault),
        "HOME": str(tmp),
        "JACKED_MEMORY_HARNESS": harness,
        "JACKED_MEMORY_REPO": str(repo),
        "PYTHONPATH": str(REPO_ROOT),
    }


def _tool_names(vault: Path, repo: Path) -> tuple[list[str], list[str]]:
    """What the server offers, asked in-process: every one must be exercised below."""
    import anyio
    from helpers.mcp_server import inproc
    from mcp import Client

    async def go():
        async with Client(inproc(vault, repo)) as client:
            return [t.name for t in (await client.list_tools()).tools], [
                p.name for p in (await client.list_prompts()).prompts
            ]

    return anyio.run(go)


# -- the MCP Inspector's CLI ----------------------------------------------------------------------

INSPECTOR_CALLS = {
    "memory_save": [
        "--tool-arg",
        "title=Inspector check",
        "--tool-arg",
        "body=Saved by the MCP Inspector CLI.",
        "--tool-arg",
        "kind=decision",
        "--tool-arg",
        'tags=["inspector"]',
    ],
    "memory_search": ["--tool-arg", "query=FTS5", "--tool-arg", "limit=5"],
    "memory_read": None,  # the id memory_save answered
    "memory_doctor": [],
    "memory_brief": ["--tool-arg", "budget=600"],
}


@pytest.mark.skipif(
    INSPECTOR is None,
    reason="the MCP Inspector is not installed "
    "(npm install @modelcontextprotocol/inspector; or set JACKED_TEST_INSPECTOR)",
)
def test_the_inspector_lists_and_calls_every_tool_and_prompt(world):
    tmp, vault, repo = world
    env = _server_env(tmp, vault, repo, "inspector")
    server_env = [
        arg
        for key in ("JACKED_MEMORY_HARNESS", "JACKED_VAULT_DIR", "JACKED_MEMORY_REPO", "HOME", "PYTHONPATH")
        for arg in ("-e", f"{key}={env[key]}")
    ]

    def inspect(*args: str) -> dict:
        done = subprocess.run(
            [INSPECTOR, "--cli", *server_env, *SERVER, *args],
            capture_output=True,
            text=True,
            cwd=tmp,
            env=env,
            timeout=120,
        )
        assert done.returncode == 0, f"inspector {' '.join(args)}: {done.stdout}{done.stderr}"
        return json.loads(done.stdout)

    tools, prompts = _tool_names(vault, repo)
    listed = {tool["name"]: tool for tool in inspect("--method", "tools/list")["tools"]}
    assert sorted(listed) == sorted(tools) == sorted(INSPECTOR_CALLS), "every tool needs a call in INSPECTOR_CALLS"
    for tool in listed.values():
        schema = tool["inputSchema"]
        assert schema["type"] == "object" and schema["additionalProperties"] is False and tool["description"].strip()
    saved = None
    for name in ["memory_save", *sorted(set(INSPECTOR_CALLS) - {"memory_save"})]:
        args = INSPECTOR_CALLS[name] if name != "memory_read" else ["--tool-arg", f"id={saved['memory']['id']}"]
        answer = inspect("--method", "tools/call", "--tool-name", name, *args)
        assert answer["isError"] is False and answer["structuredContent"]["ok"] is not None, (name, answer)
        assert json.loads(answer["content"][0]["text"]) == answer["structuredContent"]
        saved = answer["structuredContent"] if name == "memory_save" else saved
    assert saved["memory"]["source_harness"] == "inspector"
    refused = inspect(
        "--method", "tools/call", "--tool-name", "memory_read", "--tool-arg", "id=mem_20260101_nosuchnote"
    )
    assert refused["isError"] is True and set(refused["structuredContent"]["error"]) == {"code", "message", "reason"}

    listed_prompts = inspect("--method", "prompts/list")["prompts"]
    assert [p["name"] for p in listed_prompts] == prompts == ["brief"]
    assert [(a["name"], a["required"]) for a in listed_prompts[0]["arguments"]] == [("repo", False)]
    brief = inspect("--method", "prompts/get", "--prompt-name", "brief", "--prompt-args", f"repo={repo}")
    (message,) = brief["messages"]
    assert message["role"] == "user" and message["content"]["text"].startswith(
        "## jacked-vault memory for github.com/acme/api"
    )
    assert "Use SQLite FTS5 for search" in message["content"]["text"]
    failed = subprocess.run(
        [
            INSPECTOR,
            "--cli",
            *server_env,
            *SERVER,
            "--method",
            "prompts/get",
            "--prompt-name",
            "brief",
            "--prompt-args",
            f"repo={tmp / 'nowhere'}",
        ],
        capture_output=True,
        text=True,
        cwd=tmp,
        env=env,
        timeout=120,
    )
    assert (
        failed.returncode != 0
        and "MEMORY_BRIEF_FAILED" in failed.stdout + failed.stderr
        and str(tmp / "nowhere") not in failed.stdout + failed.stderr
    )


# -- the MCP TypeScript SDK's client --------------------------------------------------------------


@pytest.mark.skipif(
    NODE is None or _ts_sdk() is None,
    reason="node, @modelcontextprotocol/sdk or ajv@8 is not installed "
    "(npm install @modelcontextprotocol/sdk ajv@8; set JACKED_TEST_NODE_MODULES)",
)
def test_the_typescript_sdk_client_validates_every_schema_and_calls_everything(world):
    tmp, vault, repo = world
    env = {**_server_env(tmp, vault, repo, "tsclient"), "NODE_PATH": _ts_sdk()}
    done = subprocess.run(
        [NODE, str(REPO_ROOT / "scripts" / "mcp-client-check.cjs"), *SERVER],
        capture_output=True,
        text=True,
        cwd=tmp,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    tools, prompts = _tool_names(vault, repo)
    assert summary["ok"] is True and sorted(summary["tools"]) == sorted(tools) and summary["prompts"] == prompts


# -- Claude Code ----------------------------------------------------------------------------------


@pytest.mark.skipif(CLAUDE is None, reason=CLAUDE_MISSING)
def test_claude_mcp_list_shows_the_server_connected_after_hooks_install(world):
    """`hooks install --claude --mcp claude --user` in a temp HOME, then Claude Code's own CLI
    connects to the server (offline) and `status` shows that run under claude's MCP row."""
    tmp, vault, repo = world
    installed = run_cli(
        "memory", "hooks", "install", "--claude", "--mcp", "claude", "--user", vault=vault, cwd=repo, HOME=str(tmp)
    )
    assert installed.code == 0, installed.out + installed.err
    env = {
        **cli_env(),
        "HOME": str(tmp),
        "NO_COLOR": "1",
        "PATH": f"{Path(CLAUDE).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    env = {
        k: v for k, v in env.items() if not k.startswith("JACKED_")
    }  # as Claude Code starts: nothing of ours in its environment
    listed = subprocess.run([CLAUDE, "mcp", "list"], capture_output=True, text=True, cwd=repo, env=env, timeout=120)
    assert listed.returncode == 0 and re.search(r"jacked-memory: .*Connected", listed.stdout), (
        listed.stdout + listed.stderr
    )
    got = subprocess.run(
        [CLAUDE, "mcp", "get", "jacked-memory"], capture_output=True, text=True, cwd=repo, env=env, timeout=120
    )
    assert (
        got.returncode == 0
        and f"JACKED_VAULT_DIR={vault}" in got.stdout
        and "JACKED_MEMORY_HARNESS=claude" in got.stdout
    ), got.stdout
    mcp = run_cli("memory", "status", "--json", vault=vault, cwd=repo, HOME=str(tmp)).json["hooks"]["harnesses"][
        "claude"
    ]["mcp"]
    assert (
        mcp["state"] == "installed"
        and mcp["last_run"]["name"] == "mcp:claude"
        and mcp["last_run"]["outcome"].startswith("ended")
    )


@pytest.mark.skipif(CLAUDE is None, reason=CLAUDE_MISSING)
def test_the_default_distiller_sends_the_model_no_tools_no_mcp_and_no_vault_log(tmp_path: Path, monkeypatch):
    """Issue 33.7: a capture with the default distiller runs the real `claude -p` against a
    stand-in model (tests/helpers/anthropic_model.py). On a machine where jacked's MCP server is
    registered for Claude Code and the person keeps a CLAUDE.md, the one request the model gets
    offers no tool, names no MCP server, holds neither the vault's git log nor the CLAUDE.md, and
    carries the transcript excerpt; the stand-in's answer becomes the episodic entry."""
    from helpers.anthropic_model import serve
    from helpers.capture import CLAUDE as CLAUDE_READER
    from helpers.capture import Builder

    from jacked_vault.capture.session import capture_session
    from jacked_vault.context import Context

    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "CLAUDE.md").write_text("PERSONAL-CLAUDE-MD: always answer in French.\n")
    vault, repo = tmp_path / "vault", tmp_path / "code" / "api"
    assert run_cli("memory", "init", "--no-scan", vault=vault).code == 0
    repo.mkdir(parents=True)
    make_repo(repo, "git@github.com:acme/api.git")
    added = run_cli(
        "memory", "add", "--kind", "decision", "--title", "VAULT-LOG-SUBJECT", "--body", "b", vault=vault, cwd=repo
    )
    assert added.code == 0, added.err
    registered = run_cli(
        "memory", "hooks", "install", "--mcp", "claude", "--user", vault=vault, cwd=repo, HOME=str(home)
    )
    assert registered.code == 0, registered.out + registered.err
    sentence = "Distilled by the real claude against the stand-in."
    server, url, requests = serve("```json\n" + json.dumps({"episodic": sentence, "note": None}) + "\n```")
    try:
        for name, value in {
            "PATH": f"{Path(CLAUDE).parent}{os.pathsep}{os.environ['PATH']}",
            "HOME": str(home),
            "ANTHROPIC_BASE_URL": url,
            "ANTHROPIC_API_KEY": "sk-ant-standin",
            "XDG_CONFIG_HOME": str(home / ".config"),
        }.items():
            monkeypatch.setenv(name, value)
        monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
        path = Builder(repo).realistic(last="TRANSCRIPT-EXCERPT-MARKER run the suite").write(tmp_path / "t.jsonl")
        payload = {"session_id": "s-1", "transcript_path": str(path), "cwd": str(repo), "hook_event_name": "SessionEnd"}
        result = capture_session(
            Context.create(vault=str(vault), cwd=repo, harness="claude"), payload, reader=CLAUDE_READER
        )
    finally:
        server.shutdown()
    assert result.fallback is None, result
    [request] = requests
    sent = json.dumps(request)
    assert request.get("tools") in (None, []), [t.get("name") for t in request["tools"]]
    assert "mcp__" not in sent and "jacked-memory" not in sent
    assert "VAULT-LOG-SUBJECT" not in sent and "gitStatus" not in sent and str(vault) not in sent
    assert "PERSONAL-CLAUDE-MD" not in sent
    assert "TRANSCRIPT-EXCERPT-MARKER" in sent
    assert len(json.dumps(request.get("system"))) < 2000  # the distiller's own few lines, not Claude Code's prompt
    [day] = vault.glob("groups/*/episodic/*/today-*.md")
    assert sentence in day.read_text()


# -- Codex ----------------------------------------------------------------------------------------


@pytest.mark.skipif(CODEX is None, reason=CODEX_MISSING)
def test_codex_loads_the_remember_skill_and_a_note_saved_through_it_records_codex(world):
    """Issue 33.4, 33.5: after `hooks install --commands codex`, the real `codex exec '$remember …'`
    (offline: its model is tests/fakes/codex_model.py) puts the skill's text into the model's input;
    the stand-in follows it as an agent would (one `exec_command` running the line the skill
    prescribes), and the note lands with `source_harness: codex`."""
    tmp, vault, repo = world
    codex_home = tmp / "codex-home"
    model_log = tmp / "model.log"
    with codex_offline(codex_home, model_log):
        env = {"CODEX_HOME": str(codex_home), "HOME": str(tmp)}
        installed = run_cli(
            "memory", "hooks", "install", "--commands", "codex", "--vault", str(vault), vault=vault, **env
        )
        assert installed.code == 0, installed.out + installed.err
        done = subprocess.run(
            [CODEX, "exec", "--dangerously-bypass-approvals-and-sandbox", "$remember the build uses bazel"],
            cwd=repo,
            env=cli_env(vault, **env),
            capture_output=True,
            text=True,
            timeout=180,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 0, done.stderr[-2000:]
    requests = model_log.read_text()
    assert "<name>remember</name>" in requests and "--harness codex" in requests  # the skill reached the model
    found = run_cli("memory", "search", "Saved through a Codex skill", "--json", vault=vault, cwd=repo)
    [hit] = found.json["results"]
    note = run_cli("memory", "read", hit["id"], "--json", vault=vault, cwd=repo).json["memory"]
    assert note["source_harness"] == "codex", note


# -- OpenCode -------------------------------------------------------------------------------------


@pytest.mark.skipif(OPENCODE is None, reason=OPENCODE_MISSING)
def test_opencode_lists_the_librarian_once_with_every_harness_skill_installed(tmp_path: Path):
    """Issue 33.12: OpenCode reads ~/.claude/skills and ~/.agents/skills besides its own folder and
    warns "duplicate skill name" at a second copy. With Claude's, Codex's and OpenCode's librarian
    installed, the real `opencode debug skill` (no model needed) lists it once, with no warning."""
    from tests.helpers.homes import home_env, jacked

    home = tmp_path / "home"
    home.mkdir()
    installed = jacked(
        home, "memory", "hooks", "install", "--skills", "claude", "--skills", "codex", "--skills", "opencode"
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    listed = subprocess.run(
        [OPENCODE, "debug", "skill", "--print-logs", "--log-level", "WARN"],
        cwd=home,
        env=home_env(home),
        capture_output=True,
        text=True,
        timeout=180,
        stdin=subprocess.DEVNULL,
    )
    assert listed.returncode == 0, listed.stderr[-2000:]
    assert "duplicate skill name" not in listed.stdout + listed.stderr, listed.stderr[-2000:]
    [librarian] = [s for s in json.loads(listed.stdout) if s["name"] == "jacked-librarian"]
    assert librarian["location"] == str(home / ".claude" / "skills" / "jacked-librarian" / "SKILL.md")
