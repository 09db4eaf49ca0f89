"""No argument of any command produces a traceback: hypothesis builds argv for every command.

The real entry point runs in-process (`jacked_vault.cli.main.main(argv)`, stdout and stderr
captured) for most examples, and as a subprocess for a smaller sample. Asserted each time: no
traceback, an exit code in {0, 1, 2}, and with `--json` one JSON object on stdout carrying
`schema` (and, for a failure, `error` or `"ok": false`).

Everything a command could touch lives in a temp folder: HOME (so ~/.claude, ~/.codex and
~/Github are the test's), the vault, the code repo, and every path value hypothesis may pick;
git may use only file:// remotes, and `gh`/`claude` are kept off PATH.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import git, make_repo
from helpers.cli_tree import walk
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

PATH_OPTIONS = {"--vault", "--settings", "--config", "--body-file", "--root", "--from", "--git", "--cwd"}
TRICKY = [
    "",
    " ",
    "-",
    "--",
    "0",
    "-1",
    "999999999999",
    "x" * 300,
    "é\u202e",
    "a\x00b",
    "\x1b[31m",
    "../..",
    "~",
    "%s",
    "{}",
    "[]",
    "2026-13-45",
    "yesterday",
    "2026-02-30T00:00:00Z",
    "not a slug",
    "github.com/o/r",
    "mem_20260101_absent",
    "episodic_0",
    "all",
]


def _commands() -> list[tuple[tuple[str, ...], object]]:
    return [(path, cmd) for path, cmd in walk() if path and not getattr(cmd, "commands", None)]


COMMANDS = _commands()


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> dict:
    """A vault with notes (active, candidate), a code repo with a merge, and paths to pick from."""
    from jacked_vault.context import Context
    from jacked_vault.notes import AddRequest, add
    from jacked_vault.write.init import init_vault

    tmp = tmp_path_factory.mktemp("fuzz")
    vault = tmp / "vault"
    init_vault(vault)
    ctx = Context.create(vault=str(vault), cwd=tmp, harness="fuzz")
    ids = [
        add(ctx, AddRequest(title=f"Note {n}", body=f"Body {n}.", group="g", status=status)).note.id
        for n, status in enumerate(["active", "active", "candidate"])
    ]
    code = tmp / "code"
    code.mkdir()
    make_repo(code, "git@github.com:acme/code.git")
    body = tmp / "body.md"
    body.write_text("a body from a file\n")
    paths = [str(p) for p in (tmp, vault, code, body, tmp / "missing", tmp / "settings.json", code / "README.md")] + [
        "rel",
        "./x",
    ]
    return {"tmp": tmp, "vault": vault, "code": code, "ids": ids, "paths": paths}


def _values(world: dict, option: str) -> st.SearchStrategy[str]:
    if option in PATH_OPTIONS:
        return st.sampled_from(world["paths"])
    words = st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=40)
    samples = st.sampled_from(
        TRICKY + world["ids"] + ["decision", "group", "project", "user", "active", "claude", "codex", "g", "5"]
    )
    return st.one_of(samples, words).filter(lambda v: v != "--json")


@st.composite
def argvs(draw, world: dict) -> list[str]:
    path, command = draw(st.sampled_from(COMMANDS))
    args: list[str] = list(path)
    as_json = draw(st.booleans())
    if as_json:
        args.append("--json")
    params = [p for p in command.params if p.name not in ("help",) and "--json" not in p.opts]
    for param in draw(st.lists(st.sampled_from(params), max_size=6)) if params else []:
        name = param.opts[0]
        if param.param_type_name == "argument":
            args.append(draw(_values(world, "")))
        elif getattr(param, "is_flag", False):
            args.append(name)
        else:
            args += [name, draw(_values(world, name))]
    args += draw(st.lists(_values(world, ""), max_size=2))
    if path[-1] == "capture-merge":
        args.append("--no-gh")  # `gh` may exist on a developer's machine: no network from a fuzz run
    if path[-1] == "ui":
        args.append("--help")  # it serves until interrupted; its refusals are tests/e2e/test_ui.py's
    return args


def _check(args: list[str], code: int, out: str, err: str) -> None:
    assert "Traceback" not in out + err, (args, out, err)
    assert code in (0, 1, 2), (args, code, out, err)
    if "--json" in args and "--help" not in args:
        data = json.loads(out)  # exactly one JSON object
        assert isinstance(data, dict) and "schema" in data, (args, out)
        if code != 0:
            assert "error" in data or data.get("ok") is False, (args, out)


@pytest.fixture
def sandbox(world: dict, monkeypatch, tmp_path: Path):
    """Environment and cwd for in-process runs; fd 0 reads /dev/null."""
    from helpers.post_merge import clean_path

    env = {
        "HOME": str(world["tmp"]),
        "JACKED_VAULT_DIR": str(world["vault"]),
        "GIT_ALLOW_PROTOCOL": "file",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_SSH_COMMAND": "false",
        "PATH": clean_path(tmp_path),
        "COLUMNS": "80",
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    for key in [k for k in os.environ if k.startswith("JACKED_") and k not in env]:
        monkeypatch.delenv(key)
    monkeypatch.chdir(world["tmp"])
    saved = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    try:
        yield env
    finally:
        os.dup2(saved, 0)
        os.close(saved)
        os.close(null)


@pytest.mark.slow
@settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_no_argument_of_any_command_gives_a_traceback_in_process(world, sandbox, data):
    from jacked_vault.cli.main import main

    args = data.draw(argvs(world))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(args)
        except SystemExit as exc:  # what click's completion or help may raise
            code = exc.code if isinstance(exc.code, int) else 1
    _check(args, code, out.getvalue(), err.getvalue())


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_no_argument_of_any_command_gives_a_traceback_as_a_subprocess(world, sandbox, data):
    args = [a for a in data.draw(argvs(world)) if "\x00" not in a]  # argv cannot carry NUL
    proc = subprocess.run(
        [sys.executable, "-m", "jacked_vault.cli.main", *args],
        capture_output=True,
        text=True,
        cwd=world["tmp"],
        env={**os.environ, **sandbox},
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    _check(args, proc.returncode, proc.stdout, proc.stderr)


@pytest.mark.parametrize("at", ["2026-13-45", "yesterday", "", "2026-02-30", "T", "\x1b[2J"])
@pytest.mark.parametrize("as_json", [False, True])
def test_expire_at_a_bad_time_is_a_usage_error(world, sandbox, at: str, as_json: bool):
    args = ["memory", "expire", world["ids"][0], "--at", at] + (["--json"] if as_json else [])
    proc = subprocess.run(
        [sys.executable, "-m", "jacked_vault.cli.main", *args],
        capture_output=True,
        text=True,
        cwd=world["tmp"],
        env={**os.environ, **sandbox},
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    _check(args, proc.returncode, proc.stdout, proc.stderr)
    assert proc.returncode == 2 and "\x1b" not in proc.stderr
    assert git(world["vault"], "status", "--porcelain") == ""
