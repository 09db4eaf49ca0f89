"""The lean path (`cli.lean`) never drifts from typer's definition of the same commands.

1. Every lean command's options, derived from its action's signature, are exactly the typer
   command's: the same flags, kinds (flag, value, number, repeatable), required-ness and defaults.
2. The same argv through the lean path and through typer prints the same thing and exits alike.
3. What the lean path does not take (help, typos, odd values) goes to typer, which answers.
4. The read commands load none of the heavy modules (typer, pygit2, jsonschema, pydantic, …).
5. An add loads git but no typer, no jsonschema, and none of what it does not use (`NOT_ON_ADD`).
"""

from __future__ import annotations

import inspect
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import cli_env, run_cli

from jacked_vault.cli import lean
from jacked_vault.frontend import actions

HEAVY = {"typer", "click", "pygit2", "jsonschema", "fastjsonschema", "pydantic", "ruamel", "mcp", "rich"}


def _typer_command(name: str):
    import typer.main

    from jacked_vault.cli import notes, recall, sync  # noqa: F401
    from jacked_vault.cli.apps import app
    from jacked_vault.cli.main import _run_typer  # noqa: F401 - importing registers every command

    root = typer.main.get_command(app)
    memory = root.commands["memory"]
    return memory.commands[name]


def _click_kind(param) -> str:
    if param.param_type_name == "argument":
        return "many" if param.nargs == -1 else "value"
    if param.is_flag:
        return "flag"
    if param.multiple:
        return "many"
    return "int" if param.type.name in ("int", "integer") else "value"


@pytest.mark.parametrize("command", sorted(lean.COMMANDS))
def test_lean_options_are_typers_options(command: str):
    click_command = _typer_command(command)
    typer_params = {p.name: p for p in click_command.params if p.name != "as_json"}
    derived = {p.name: p for p in lean.params(command)}
    assert set(derived) == set(typer_params), f"{command}: the action's parameters differ from the typer command's"
    signature = inspect.signature(getattr(actions, command)).parameters
    for name, mine in derived.items():
        theirs = typer_params[name]
        if theirs.param_type_name == "option":
            assert [mine.flag] == theirs.opts and theirs.secondary_opts == [], f"{command} {name}: flags differ"
        else:
            assert mine.flag is None, f"{command} {name}: typer takes it as an argument"
        assert mine.kind == _click_kind(theirs), f"{command} {name}: kinds differ"
        assert mine.required == theirs.required, f"{command} {name}: required differs"
        if not mine.required:
            default = signature[name].default
            assert theirs.default == default or (theirs.default in (None, ()) and default is None), (
                f"{command} {name}: defaults differ"
            )
    (json_flag,) = [p for p in click_command.params if p.name == "as_json"]
    assert json_flag.opts == [lean.JSON_FLAG] and json_flag.is_flag


def _both(
    vault: Path, cwd: Path, argv: list[str], stdin: str = "", typer_vault: Path | None = None
) -> tuple[tuple, tuple]:
    """(exit, stdout, stderr) of argv through the lean path, then through typer (in `typer_vault`, a
    copy, for a write: the same write twice in one vault is a duplicate), as whole processes."""
    out = []
    for entry, where in (
        ("from jacked_vault.cli.lean import run_lean as go; code = go(args)", vault),
        ("from jacked_vault.cli.main import _run_typer as go; code = go(args)", typer_vault or vault),
    ):
        code = f"import sys, json; args = json.loads(sys.argv[1]); {entry}; sys.exit(-99 if code is None else code)"
        proc = subprocess.run(
            [sys.executable, "-c", code, json.dumps(argv)],
            input=stdin,
            capture_output=True,
            text=True,
            cwd=cwd,
            env=cli_env(where),
            timeout=120,
        )
        out.append((proc.returncode, proc.stdout, proc.stderr))
    return out[0], out[1]


def _stable(text: str) -> str:
    """Ids, commit hashes and times differ between two adds; the rest must not."""
    text = re.sub(r"mem_\d{8}_[0-9a-z]+", "<ID>", text)
    text = re.sub(r"\b[0-9a-f]{10,40}\b", "<SHA>", text)
    return re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z", "<TIME>", text)


@pytest.fixture
def filled(vault_path: Path, tmp_path: Path) -> tuple[Path, Path, str]:
    work = tmp_path / "work"
    work.mkdir()
    first = run_cli(
        "memory",
        "add",
        "--group",
        "tools",
        "--kind",
        "decision",
        "--title",
        "Cache the index in SQLite",
        "--body",
        "FTS5 ships with Python.",
        "--tag",
        "search",
        "--json",
        vault=vault_path,
        cwd=work,
    )
    assert first.code == 0, first.err
    run_cli(
        "memory",
        "add",
        "--group",
        "tools",
        "--title",
        "Deploy on Fridays never",
        "--body",
        "A rule.",
        vault=vault_path,
        cwd=work,
    )
    return vault_path, work, first.json["memory"]["id"]


READS = [
    ["memory", "search", "cache", "--group", "tools"],
    ["memory", "search", "cache", "--json", "--group", "tools"],
    ["memory", "search", "--limit", "1", "--all"],
    ["memory", "search", "--limit=1", "--kind", "decision", "--kind", "note", "--all"],
    ["memory", "search", "never", "--tag", "search", "--status", "active", "--include-candidates", "--all"],
    ["memory", "search", "--", "--not-an-option"],
    ["memory", "search", "x", "--limit", "0"],
    ["memory", "search", "x", "--limit", "-3"],
    ["memory", "search", "x", "--kind", "nonsense"],
    ["memory", "search", "x", "--as-of", "yesterday"],
    ["memory", "search", "x", "--known-at", "2026-01-01", "--as-of", "2026-01-02T00:00:00Z", "--all"],
    ["memory", "search", "cache", "--vault", "{vault}"],
    ["memory", "--vault", "{vault}", "search", "cache"],
    ["memory", "--vault", "/nonexistent/vault", "search", "cache"],
    ["memory", "read", "{id}"],
    ["memory", "read", "{id}", "--all", "--json"],
    ["memory", "read", "{id}", "--target", "Bad Name"],
    ["memory", "read", "mem_20260101_missing"],
    ["memory", "brief"],
    ["memory", "brief", "--budget", "300", "--json"],
    ["memory", "brief", "--budget", "10"],
    ["memory", "brief", "--harness", "codex", "--cwd", "{work}"],
]


@pytest.mark.parametrize("argv", READS, ids=lambda a: " ".join(a[1:]))
def test_the_same_read_prints_the_same_through_both_paths(filled, argv: list[str]):
    vault, work, note_id = filled
    argv = [a.format(vault=vault, id=note_id, work=work) for a in argv]
    lean_run, typer_run = _both(vault, work, argv)
    assert lean_run[0] != -99 % 256, f"the lean path left {argv} to typer"
    assert lean_run == typer_run


WRITES = [
    ["memory", "add", "--group", "tools", "--title", "Lean add", "--body", "same output", "--tag", "a", "--tag", "b"],
    [
        "memory",
        "add",
        "--group",
        "tools",
        "--title",
        "Lean add json",
        "--body",
        "same",
        "--json",
        "--kind",
        "fact",
        "--valid-from",
        "2026-01-01",
    ],
    ["memory", "add", "--group", "tools", "--title", "From stdin", "--stdin"],
    [
        "memory",
        "handoff",
        "--from",
        "claude",
        "--target",
        "codex",
        "--group",
        "tools",
        "--title",
        "Take over",
        "--body",
        "Tests fail.",
    ],
    ["memory", "add", "--group", "tools", "--title", "Key", "--body", "aws AKIAZ7Q2M4X8C1V5B3N6 here"],
    ["memory", "add", "--group", "tools", "--title", "Two bodies", "--body", "x", "--stdin"],
    ["memory", "add", "--group", "tools", "--title", "Bad kind", "--body", "x", "--kind", "nonsense"],
    ["memory", "add", "--group", "tools", "--title", "Bad link", "--body", "x", "--link", "mem_20260101_missing"],
    ["memory", "add", "--title", "No group outside a repo", "--body", "x"],
    ["memory", "sync", "--json"],  # no remote set: the same refusal either way
    ["memory", "sync", "--accept-deletions"],
]


@pytest.mark.parametrize("argv", WRITES, ids=lambda a: " ".join(a[3:6]))
def test_the_same_write_prints_the_same_through_both_paths(filled, argv: list[str]):
    vault, work, _ = filled
    copy = vault.parent / "vault-typer"
    shutil.copytree(vault, copy, symlinks=True)
    lean_run, typer_run = _both(vault, work, argv, stdin="piped body", typer_vault=copy)
    assert lean_run[0] != -99 % 256, f"the lean path left {argv} to typer"
    assert (lean_run[0], _stable(lean_run[1]), _stable(lean_run[2])) == (
        typer_run[0],
        _stable(typer_run[1]),
        _stable(typer_run[2]),
    )


LEFT_TO_TYPER = [
    ["memory", "search", "--help"],
    ["memory", "search", "-h"],
    ["memory", "search", "--limt", "3"],
    ["memory", "search", "--limit"],
    ["memory", "search", "--limit", "three"],
    ["memory", "search", "--json=yes"],
    ["memory", "read"],
    ["memory", "read", "a", "b"],
    ["memory", "brief", "extra"],
    ["memory", "add", "--body", "no title"],
    ["memory", "add", "--title", "--body"],
    ["memory", "handoff", "--from", "claude", "--title", "t", "--body", "b"],
    ["memory", "status"],
    ["memory", "sync", "--accept-deletion"],
    ["memory"],
    ["--version"],
]


@pytest.mark.parametrize("argv", LEFT_TO_TYPER, ids=lambda a: " ".join(a))
def test_what_the_lean_path_does_not_take_goes_to_typer(vault_path: Path, argv: list[str]):
    assert lean.run_lean(argv) is None
    done = run_cli(*argv, vault=vault_path)
    assert "Traceback" not in done.err
    if "--help" in argv:
        assert done.code == 0 and done.out.startswith("Usage: jacked memory search")
    elif argv[:2] == ["memory", "status"] or argv == ["--version"] or argv == ["memory"]:
        assert done.code in (0, 2) and done.out + done.err
    else:  # typer's usage error, or the command's own (typer read `--title --body` as a title)
        assert done.code == 2 and done.err.strip(), done.err


@pytest.mark.parametrize(
    "argv",
    [
        ["memory", "search", "cache"],
        ["memory", "read", "{id}"],
        ["memory", "read", "{id}", "--all"],
        ["memory", "brief"],
        ["memory", "search", "--json", "--all"],
    ],
    ids=lambda a: " ".join(a[1:3]),
)
def test_read_commands_load_no_heavy_module(filled, argv: list[str]):
    vault, work, note_id = filled
    loaded = _loaded_by([a.format(id=note_id) for a in argv], vault, work)
    assert loaded & HEAVY == set(), f"{argv} loaded {sorted(loaded & HEAVY)}"
    assert "jacked_vault" in loaded and "sqlite3" in loaded  # the check can fail: it sees what was loaded


def test_add_loads_git_but_never_typer(filled):
    vault, work, _ = filled
    code = (
        "import sys\n"
        "from jacked_vault.cli.main import main\n"
        "code = main(['memory', 'add', '--group', 'tools', '--title', 'Loads', '--body', 'b'])\n"
        "loaded = {m.split('.')[0] for m in sys.modules} & {'typer', 'click', 'pygit2', 'pydantic', 'mcp'}\n"
        "sys.stderr.write(' '.join(sorted(loaded)))\n"
        "sys.exit(code)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=work, env=cli_env(vault), timeout=120
    )
    assert proc.returncode == 0 and proc.stderr.strip().splitlines()[-1] == "pygit2"


# What an add does without (issue 34.5): the review machinery (a note that claims no review is
# indexed by store.trust alone), the search service (results, hints), and decimal (the note's
# schema check has no numbers).
NOT_ON_ADD = {"jacked_vault.store.reviews", "jacked_vault.document.lifecycle", "jacked_vault.search.service", "decimal"}


def test_add_loads_only_what_it_uses(filled):
    vault, work, _ = filled
    loaded = _modules_after(
        ["memory", "add", "--group", "tools", "--title", "Only what it uses", "--body", "b"], vault, work
    )
    assert loaded & NOT_ON_ADD == set() and "jacked_vault.write.create" in loaded, sorted(loaded & NOT_ON_ADD)


# What a session start does without, once the index is up to date (issue 35: no restructuring slows
# the hook): the review machinery (a claimed review is judged only where one is shown), the gate,
# the secret scanner and every writer.
NOT_AT_SESSION_START = {
    "jacked_vault.store.trust", "jacked_vault.store.reviews", "jacked_vault.store.gate",
    "jacked_vault.safety.secrets", "jacked_vault.write",
}  # fmt: skip


def test_the_session_start_hook_loads_only_what_it_uses(filled):
    vault, work, _ = filled
    payload = json.dumps({"session_id": "s", "cwd": str(work), "hook_event_name": "SessionStart", "source": "startup"})
    _modules_after(["_hook", "session-start"], vault, work, payload)  # may bring the index up to date
    loaded = _modules_after(["_hook", "session-start"], vault, work, payload)  # what every start loads
    assert "jacked_vault.recall.brief" in loaded, sorted(loaded)
    assert {m for m in loaded if m in NOT_AT_SESSION_START or m.startswith("jacked_vault.write.")} == set()


def _modules_after(argv: list[str], vault, cwd, stdin: str | None = None) -> set[str]:
    """Every module a fresh process running `argv` (fed `stdin`) had loaded when it ended."""
    code = (
        "import sys, json\n"
        "from jacked_vault.cli.main import main\n"
        "code = main(json.loads(sys.argv[1]))\n"
        "sys.stderr.write('\\nLOADED ' + json.dumps(sorted(sys.modules)))\n"
        "sys.exit(code)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, json.dumps(argv)], capture_output=True, text=True, cwd=cwd, env=cli_env(vault),
        timeout=120, input=stdin,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stderr.rsplit("LOADED ", 1)[1]))


def _loaded_by(argv: list[str], vault, cwd, stdin: str | None = None) -> set[str]:
    """The top-level modules a process running `argv` (fed `stdin`) loaded."""
    return {m.split(".")[0] for m in _modules_after(argv, vault, cwd, stdin)}


def test_the_first_add_in_a_fresh_vault_loads_no_jsonschema(tmp_path):
    """Issue 34.5: the configuration's schema check of a vault this machine has not read yet (a
    fresh clone, a changed vault.json) and the note's both run the generated checks; jsonschema
    only explains a refusal."""
    vault = tmp_path / "vault"
    assert run_cli("memory", "init", "--no-scan", vault=vault).code == 0
    for stamp in (vault / ".git" / "jacked").rglob("config-ok"):
        stamp.unlink()  # as in a fresh clone: nothing of this machine's config check is known yet
    loaded = _loaded_by(["memory", "add", "--group", "g", "--title", "First", "--body", "b"], vault, tmp_path)
    assert "jsonschema" not in loaded and "pygit2" in loaded, sorted(loaded)  # it ran, and wrote a commit


def test_the_session_start_hook_loads_no_heavy_module(filled):
    """Issue 34.5: the brief every session waits for reads the index and git's files only."""
    vault, work, _note_id = filled
    payload = json.dumps({"session_id": "s1", "source": "startup", "cwd": str(work), "hook_event_name": "SessionStart"})
    loaded = _loaded_by(["_hook", "session-start", "--harness", "claude", "--vault", str(vault)], vault, work, payload)
    assert loaded & HEAVY == set(), sorted(loaded & HEAVY)
    assert "sqlite3" in loaded  # it ran: it read the index
