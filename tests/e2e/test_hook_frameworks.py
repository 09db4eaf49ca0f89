"""The post-merge hook with the real hook frameworks (issue 19, items 7 and 8): husky (npm),
lefthook (npm) and pre-commit (pip), each in a temp repo, in both orders, with real merges.

Each framework's own hook must keep running (a trace file it appends to), jacked's capture must
run through the way the framework supports (the capture's line in the vault's log), re-installing
the framework must not drop it, and `hooks status`/`uninstall` must find jacked's hook wherever
the framework put it. A framework that is not installed skips its tests, saying how to get it
(`scripts/check-real-clients.sh` installs all three into a temp prefix and runs this file).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import run_cli
from helpers import post_merge as post_merge_world
from helpers.post_merge import World, feature
from helpers.processes import run_mark, wait_exited

from jacked_vault.gitflow.githooks import (
    FRAMEWORK_LINE,
    LEFTHOOK_SNIPPET,
    LINE_SCRIPT,
    PRE_COMMIT_SLOT,
    git_hook_status,
)

world = post_merge_world.world  # the fixture: a vault and a code repo, PATH without gh and claude


def _tool(name: str, env: str) -> str | None:
    return os.environ.get(env) or shutil.which(name)


HUSKY = _tool("husky", "JACKED_TEST_HUSKY")
LEFTHOOK = _tool("lefthook", "JACKED_TEST_LEFTHOOK")
PRE_COMMIT = _tool("pre-commit", "JACKED_TEST_PRE_COMMIT")
needs_husky = pytest.mark.skipif(
    HUSKY is None, reason="husky is not installed (npm install husky; or set JACKED_TEST_HUSKY)"
)
needs_lefthook = pytest.mark.skipif(
    LEFTHOOK is None, reason="lefthook is not installed (npm install lefthook; or set JACKED_TEST_LEFTHOOK)"
)
needs_pre_commit = pytest.mark.skipif(
    PRE_COMMIT is None, reason="pre-commit is not installed (pip install pre-commit; or set JACKED_TEST_PRE_COMMIT)"
)


def _env(world: World, tool: str | None) -> dict[str, str]:
    """The world's environment with the framework on PATH (alone: its folder may hold `claude`,
    which would start a distiller; None: no framework's command) and its caches in the temp HOME."""
    shim = world.tmp / "tools"
    shim.mkdir(exist_ok=True)
    if tool is not None and not (shim / Path(tool).name).exists():
        (shim / Path(tool).name).symlink_to(tool)
    return dict(
        world.env,
        PATH=f"{shim}{os.pathsep}{world.path}",
        PRE_COMMIT_HOME=str(world.tmp / "pre-commit-home"),
        LEFTHOOK_QUIET="meta,summary,execution",
    )


def _run(world: World, tool: str, *args: str) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [tool, *args], cwd=world.repo, env=_env(world, tool), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, f"{tool} {' '.join(args)}: {done.stdout}{done.stderr}"
    return done


def _hooks(world: World, *args: str) -> tuple[int, dict]:
    result = run_cli(
        "memory",
        "hooks",
        *args,
        "--git",
        str(world.repo),
        "--json",
        vault=world.vault,
        cwd=world.repo,
        HOME=str(world.tmp),
        PATH=world.path,
    )
    return result.code, result.json


def _merge(world: World, tool: str | None, n: int) -> dict[str, str]:
    """Merge a new branch feat<n> through the framework's hooks; the run's mark (see helpers/processes.py)."""
    mark = run_mark()
    feature(world, f"feat{n}", {f"f{n}.txt": f"{n}\n"})
    merged = subprocess.run(
        ["git", "-C", str(world.repo), "merge", "-q", "--no-ff", f"feat{n}", "-m", f"Merge branch 'feat{n}'"],
        env=dict(_env(world, tool), **mark),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert merged.returncode == 0, merged.stdout + merged.stderr
    return mark


def _trace(world: World) -> list[str]:
    path = world.tmp / "trace"
    return path.read_text().splitlines() if path.exists() else []


def _no_new_capture(world: World, mark: dict[str, str], count: int) -> None:
    """The marked merge's hooks and whatever they started have exited, and no capture was logged beyond `count`."""
    wait_exited(mark)
    assert len(world.log_lines()) == count, world.log_lines()


def _files(folder: Path) -> dict[str, bytes]:
    return (
        {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file() and not p.name.endswith(".sample")}
        if folder.is_dir()
        else {}
    )


# -- husky ----------------------------------------------------------------------------------------


@needs_husky
def test_husky_keeps_running_its_script_and_captures_through_the_line_it_is_given(world: World):
    _run(world, HUSKY)  # what `npx husky init` / the prepare script runs: core.hooksPath=.husky/_
    script = world.repo / ".husky" / "post-merge"
    script.write_text(f'echo husky-ran "$@" >> "{world.tmp / "trace"}"\n')
    world.git("add", ".husky/post-merge")
    world.git("commit", "-qm", "husky post-merge")
    before = (_files(world.repo / ".husky"), _files(world.repo / ".husky" / "_"), _files(world.repo / ".git" / "hooks"))

    for args in (
        ("install",),
        ("install", "--follow-hooks-path", "--force"),
    ):  # refused, even forced: never moved aside
        code, answer = _hooks(world, *args)
        message = answer["git"][0]["error"]["message"]
        assert code == 1 and "husky" in message and FRAMEWORK_LINE in message and str(script) in message, answer
    assert (
        _files(world.repo / ".husky"),
        _files(world.repo / ".husky" / "_"),
        _files(world.repo / ".git" / "hooks"),
    ) == before
    _merge(world, HUSKY, 1)
    assert _trace(world) == ["husky-ran 0"]  # the person's husky script still runs

    script.write_text(script.read_text() + FRAMEWORK_LINE + "\n")  # the line the refusal gave
    code, answer = _hooks(world, "install")
    assert code == 0 and answer["git"][0]["state"] == "installed" and answer["git"][0]["via"] == "husky", answer
    assert answer["git"][0]["jacked_hook"] == str(world.repo / ".git" / "hooks" / LINE_SCRIPT)
    _merge(world, HUSKY, 2)
    assert _trace(world) == ["husky-ran 0"] * 2
    world.wait_captures(1)

    _run(world, HUSKY)  # husky installs its hooks again (npm install's prepare): jacked is still run
    assert _hooks(world, "status")[1]["git"][0]["state"] == "installed"
    _merge(world, HUSKY, 3)
    world.wait_captures(2)
    assert _trace(world) == ["husky-ran 0"] * 3

    code, answer = _hooks(world, "uninstall")
    assert code == 0 and not (world.repo / ".git" / "hooks" / LINE_SCRIPT).exists()
    assert any("now does nothing" in action for action in answer["git"][0]["actions"]), answer
    quiet = _merge(world, HUSKY, 4)
    assert _trace(world) == ["husky-ran 0"] * 4
    _no_new_capture(world, quiet, 2)
    assert len(world.notes()) == 2


# -- lefthook -------------------------------------------------------------------------------------

LEFTHOOK_CONFIG = """post-merge:
  commands:
    trace:
      run: echo lefthook-ran {0} >> "TRACE"
"""


@needs_lefthook
def test_lefthook_keeps_running_its_commands_and_captures_through_the_command_it_is_given(world: World):
    config = world.repo / "lefthook.yml"
    config.write_text(LEFTHOOK_CONFIG.replace("TRACE", str(world.tmp / "trace")))
    _run(world, LEFTHOOK, "install")
    hooks = world.repo / ".git" / "hooks"
    before = _files(hooks)

    for args in (("install",), ("install", "--force")):
        code, answer = _hooks(world, *args)
        message = answer["git"][0]["error"]["message"]
        assert code == 1 and "lefthook" in message and LEFTHOOK_SNIPPET.rstrip().splitlines()[-1] in message, answer
    assert _files(hooks) == before
    _merge(world, LEFTHOOK, 1)
    assert _trace(world) == ["lefthook-ran 0"]

    config.write_text(
        config.read_text() + LEFTHOOK_SNIPPET.split("commands:\n", 1)[1]
    )  # the command, in the post-merge section
    code, answer = _hooks(world, "install")
    assert code == 0 and answer["git"][0]["via"] == "lefthook" and answer["git"][0]["state"] == "installed", answer
    _merge(world, LEFTHOOK, 2)
    world.wait_captures(1)
    _run(world, LEFTHOOK, "install", "--force")  # lefthook rewrites its hooks: jacked's script is not among them
    assert _hooks(world, "status")[1]["git"][0]["state"] == "installed"
    _merge(world, LEFTHOOK, 3)
    world.wait_captures(2)
    assert _trace(world) == ["lefthook-ran 0"] * 3


@needs_lefthook
def test_a_hook_lefthook_moved_aside_is_found_stranded_and_install_moves_to_its_way(world: World):
    code, _ = _hooks(
        world, "install"
    )  # jacked first, lefthook after: lefthook renames it post-merge.old and never runs it
    assert code == 0
    (world.repo / "lefthook.yml").write_text(LEFTHOOK_CONFIG.replace("TRACE", str(world.tmp / "trace")))
    _run(world, LEFTHOOK, "install")
    assert (world.repo / ".git" / "hooks" / "post-merge.old").exists()
    code, answer = _hooks(world, "status")
    assert (
        code == 1
        and answer["git"][0]["state"] == "stranded"
        and "post-merge.old" in answer["git"][0]["error"]["message"]
    ), answer
    code, answer = _hooks(world, "install")
    assert code == 1 and LEFTHOOK_SNIPPET.rstrip().splitlines()[-1] in answer["git"][0]["error"]["message"]
    assert not (
        world.repo / ".git" / "hooks" / "post-merge.old"
    ).exists()  # taken back: nothing of jacked's where nothing runs it
    assert _hooks(world, "status")[1]["git"][0]["state"] == "foreign"


# husky 9.1's runner (`.husky/_/h`) and the hook files `husky` writes, for the tests that run
# without npm: what `husky` does to a repo, by hand
HUSKY_RUNNER = """#!/usr/bin/env sh
n=$(basename "$0")
s=$(dirname "$(dirname "$0")")/$n
[ ! -f "$s" ] && exit 0
sh -e "$s" "$@"
"""


def _activate_husky(world: World, how: str) -> None:
    """What `npx husky` (npm install's prepare script) does: core.hooksPath=.husky/_ and its runner there."""
    if how == "real":
        assert HUSKY is not None
        _run(world, HUSKY)
        return
    runner = world.repo / ".husky" / "_"
    runner.mkdir(parents=True, exist_ok=True)
    (runner / ".gitignore").write_text("*")
    (runner / "h").write_text(HUSKY_RUNNER)
    (runner / "post-merge").write_text('#!/usr/bin/env sh\n. "$(dirname "$0")/h"')
    (runner / "post-merge").chmod(0o755)
    world.git("config", "core.hooksPath", ".husky/_")


HUSKY_WAYS = [
    pytest.param("by-hand", id="husky-by-hand"),
    pytest.param("real", id="husky-real", marks=needs_husky),
]


@pytest.mark.parametrize("how", HUSKY_WAYS)
def test_husky_activated_after_jacked_makes_status_fail_with_the_line_that_chains(world: World, how: str):
    """Issue 33.9: husky's core.hooksPath takes over from .git/hooks, where jacked's hook stays and
    never runs again: status says so, names the line for .husky/post-merge, and exits 1; the
    install it names then moves jacked's hook to the script that line runs."""
    hooks = world.repo / ".git" / "hooks"
    assert _hooks(world, "install")[0] == 0
    script = world.repo / ".husky" / "post-merge"
    script.parent.mkdir(exist_ok=True)
    script.write_text(f'echo husky-ran "$@" >> "{world.tmp / "trace"}"\n')
    _activate_husky(world, how)

    code, answer = _hooks(world, "status")
    item = answer["git"][0]
    message = item["error"]["message"]
    assert code == 1 and answer["ok"] is False and item["state"] == "stranded", answer
    assert item["jacked_hook"] == str(hooks / "post-merge"), answer
    for needed in ("husky", "core.hooksPath", "not captured", str(script), FRAMEWORK_LINE, "hooks install --git"):
        assert needed in message, (needed, message)
    human = run_cli(
        "memory", "hooks", "status", "--git", str(world.repo), vault=world.vault, HOME=str(world.tmp), PATH=world.path
    )
    assert human.code == 1 and "husky" in human.out + human.err and FRAMEWORK_LINE in human.out + human.err
    assert "Traceback" not in human.err
    quiet = _merge(world, None, 1)
    assert _trace(world) == ["husky-ran 0"]
    _no_new_capture(world, quiet, 0)

    script.write_text(script.read_text() + FRAMEWORK_LINE + "\n")  # the fix status gave
    code, answer = _hooks(world, "install")
    item = answer["git"][0]
    assert code == 0 and item["state"] == "installed" and item["via"] == "husky", answer
    assert item["jacked_hook"] == str(hooks / LINE_SCRIPT) and not (hooks / "post-merge").exists(), answer
    assert _hooks(world, "status")[0] == 0
    _merge(world, None, 2)
    world.wait_captures(1)
    assert _trace(world) == ["husky-ran 0"] * 2


@pytest.mark.parametrize("how", HUSKY_WAYS)
def test_a_husky_folder_not_active_yet_is_told_how_the_hook_will_chain(world: World, how: str):
    """Issue 33.9: a clone whose .husky folder husky has not activated yet (no core.hooksPath):
    install and status say what happens when it activates and the line that keeps capture running;
    once .husky/post-merge holds it, install also writes the script that line runs, so activating
    husky later changes nothing for capture."""
    script = world.repo / ".husky" / "post-merge"
    world.commit(".husky/pre-commit", "exit 0\n")  # a clone before `npm install`
    for op in ("install", "status"):
        code, answer = _hooks(world, op)
        item = answer["git"][0]
        warning = " ".join(item.get("warnings") or [])
        assert code == 0 and item["state"] == "installed", answer
        for needed in ("husky", "core.hooksPath", str(script), FRAMEWORK_LINE):
            assert needed in warning, (op, needed, answer)
    hooks = world.repo / ".git" / "hooks"
    assert not (hooks / LINE_SCRIPT).exists()

    script.write_text(FRAMEWORK_LINE + "\n")
    code, answer = _hooks(world, "install")
    item = answer["git"][0]
    assert code == 0 and item["state"] == "installed" and (hooks / LINE_SCRIPT).exists(), answer
    assert any(str(script) in w and "runs jacked's hook" in w for w in item["warnings"]), answer
    _merge(world, None, 1)  # husky not active: git runs .git/hooks/post-merge
    world.wait_captures(1)

    _activate_husky(world, how)
    code, answer = _hooks(world, "status")
    assert code == 0 and answer["git"][0]["state"] == "installed" and answer["git"][0]["via"] == "husky", answer
    _merge(world, None, 2)
    world.wait_captures(2)

    code, answer = _hooks(world, "uninstall")
    assert code == 0 and not (hooks / LINE_SCRIPT).exists() and not (hooks / "post-merge").exists(), answer


LEFTHOOK_WAYS = [
    pytest.param(None, id="lefthook-config-only"),
    pytest.param("real", id="lefthook-real", marks=needs_lefthook),
]


@pytest.mark.parametrize("how", LEFTHOOK_WAYS)
def test_the_line_in_lefthook_local_is_named_where_it_is(world: World, how: str | None):
    """Issue 33.9: jacked's command kept in lefthook-local.yml (this machine's file) is named
    there, not lefthook.yml, by install and uninstall."""
    (world.repo / "lefthook.yml").write_text(LEFTHOOK_CONFIG.replace("TRACE", str(world.tmp / "trace")))
    local = world.repo / "lefthook-local.yml"
    local.write_text(LEFTHOOK_SNIPPET)
    if how == "real":
        _run(world, LEFTHOOK, "install")
    code, answer = _hooks(world, "install")
    item = answer["git"][0]
    assert code == 0 and item["via"] == "lefthook" and item["state"] == "installed", answer
    assert any("lefthook-local.yml" in action for action in item["actions"]), answer
    assert not any("lefthook.yml" in action for action in item["actions"]), answer
    if how == "real":
        _merge(world, LEFTHOOK, 1)
        world.wait_captures(1)
        assert _trace(world) == ["lefthook-ran 0"]
    code, answer = _hooks(world, "uninstall")
    actions = answer["git"][0]["actions"]
    assert code == 0 and any(str(local) in a and "now does nothing" in a for a in actions), answer


@pytest.mark.parametrize("config", ["lefthook.yml", ".lefthook.toml", ".config/lefthook.yaml"])
def test_the_lefthook_refusal_names_the_local_file_beside_the_config(world: World, config: str):
    """Issue 33.9: lefthook reads `<its config's name>-local` beside it: the refusal names that file."""
    hooks = world.repo / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    (hooks / "post-merge").write_text('#!/bin/sh\ncall_lefthook()\n{\n  lefthook run post-merge "$@"\n}\n')
    (world.repo / config).parent.mkdir(exist_ok=True)
    (world.repo / config).write_text("")
    before = _files(hooks)
    code, answer = _hooks(world, "install")
    message = answer["git"][0]["error"]["message"]
    stem, ext = config.rsplit(".", 1)
    assert code == 1 and str(world.repo / config) in message and str(world.repo / f"{stem}-local.{ext}") in message
    assert "lefthook-local.yml" not in message or config == "lefthook.yml", message
    assert _files(hooks) == before


# -- pre-commit -----------------------------------------------------------------------------------

PRE_COMMIT_CONFIG = """repos:
  - repo: local
    hooks:
      - id: trace
        name: trace
        entry: sh -c 'echo pre-commit-ran >> "TRACE"'
        language: system
        stages: [post-merge]
        always_run: true
        pass_filenames: false
"""


def _pre_commit_config(world: World) -> None:
    (world.repo / ".pre-commit-config.yaml").write_text(PRE_COMMIT_CONFIG.replace("TRACE", str(world.tmp / "trace")))
    world.git("add", ".pre-commit-config.yaml")
    world.git("commit", "-qm", "pre-commit config")


@needs_pre_commit
def test_pre_commit_first_then_jacked_in_its_migration_mode(world: World):
    _pre_commit_config(world)
    _run(world, PRE_COMMIT, "install", "-t", "post-merge")
    hooks = world.repo / ".git" / "hooks"
    theirs = (hooks / "post-merge").read_bytes()
    code, answer = _hooks(world, "install")  # no --force: pre-commit runs post-merge.legacy, the way it supports
    assert (
        code == 0
        and answer["git"][0]["via"] == "pre-commit"
        and answer["git"][0]["jacked_hook"] == str(hooks / PRE_COMMIT_SLOT)
    ), answer
    assert (hooks / "post-merge").read_bytes() == theirs
    _merge(world, PRE_COMMIT, 1)
    world.wait_captures(1)
    assert _trace(world) == ["pre-commit-ran"]
    _run(world, PRE_COMMIT, "install", "-t", "post-merge")  # again: pre-commit keeps jacked in migration mode
    assert _hooks(world, "status")[1]["git"][0]["state"] == "installed"
    _merge(world, PRE_COMMIT, 2)
    world.wait_captures(2)
    code, answer = _hooks(world, "uninstall")
    assert code == 0 and not (hooks / PRE_COMMIT_SLOT).exists() and (hooks / "post-merge").read_bytes() == theirs
    quiet = _merge(world, PRE_COMMIT, 3)
    assert _trace(world) == ["pre-commit-ran"] * 3
    _no_new_capture(world, quiet, 2)


@needs_pre_commit
@pytest.mark.parametrize("person", [False, True], ids=["jacked-alone", "with-a-person-s-hook"])
def test_pre_commit_installed_after_jacked_is_found_and_uninstall_stops_the_captures(world: World, person: bool):
    """Issue 19.8: pre-commit keeps jacked's hook as post-merge.legacy and runs it; status and
    uninstall find it there (not `foreign`), and after uninstall nothing captures. A hook of the
    person's that jacked chained ends where pre-commit runs it."""
    hooks = world.repo / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    mine = f'#!/bin/sh\necho person-ran >> "{world.tmp / "trace"}"\n'.encode()
    if person:
        (hooks / "post-merge").write_bytes(mine)
        (hooks / "post-merge").chmod(0o755)
    assert _hooks(world, "install")[0] == 0
    _pre_commit_config(world)
    _run(world, PRE_COMMIT, "install", "-t", "post-merge")  # moves jacked's hook to post-merge.legacy
    code, answer = _hooks(world, "status")
    state = "legacy-chained" if person else "installed"
    assert code == 0 and answer["git"][0]["state"] == state and answer["git"][0]["via"] == "pre-commit", answer
    assert git_hook_status(world.repo).jacked_hook == hooks / PRE_COMMIT_SLOT
    _merge(world, PRE_COMMIT, 1)
    world.wait_captures(1)
    ran = ["person-ran"] if person else []
    assert sorted(_trace(world)) == sorted([*ran, "pre-commit-ran"])

    code, answer = _hooks(world, "uninstall")
    assert code == 0 and answer["git"][0]["state"] == "foreign" and answer["git"][0]["actions"], answer
    if person:
        assert (hooks / PRE_COMMIT_SLOT).read_bytes() == mine  # the person's hook, where pre-commit runs it
    else:
        assert not (hooks / PRE_COMMIT_SLOT).exists()
    quiet = _merge(world, PRE_COMMIT, 2)
    assert sorted(_trace(world)) == sorted([*ran, *ran, "pre-commit-ran", "pre-commit-ran"])
    _no_new_capture(world, quiet, 1)
    _run(world, PRE_COMMIT, "uninstall", "-t", "post-merge")
    assert not (hooks / PRE_COMMIT_SLOT).exists()
    if person:
        assert (hooks / "post-merge").read_bytes() == mine
        assert _hooks(world, "status")[1]["git"][0]["state"] == "foreign"
    else:
        assert _hooks(world, "status")[1]["git"][0]["state"] == "not-installed"
