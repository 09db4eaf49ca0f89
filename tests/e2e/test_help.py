"""Help reads like git's or gh's: every command and option explained, readable metavars, an
example per command, commands in sections, `--version`, completion documented, and fast."""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys

import pytest
from conftest import run_cli
from helpers.cli_tree import leaf_commands, walk

from jacked_vault.cli.main import main

PYTHON_TYPE = re.compile(r"<\w+(?:\[\w+\])?(?: range)?>|\b(?:str|int|bool|float|list\[\w+\])\b|INTEGER|BOOLEAN")


def _help(*path: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main([*path, "--help"]) == 0
    return out.getvalue()


def test_every_command_and_option_has_a_help_text():
    missing = []
    for path, command in walk():
        if not (command.help or "").strip():
            missing.append(" ".join(path) or "jacked")
        for param in command.params:
            if not getattr(param, "hidden", False) and not (getattr(param, "help", None) or "").strip():
                missing.append(f"{' '.join(path)} {param.opts[0] if param.opts else param.name}")
    assert missing == []


@pytest.mark.parametrize(
    "path", ["", "memory", *leaf_commands(), "memory group", "memory hooks", "memory hot", "memory remote"]
)
def test_help_has_readable_metavars_and_an_example(path: str):
    text = _help(*path.split())
    assert PYTHON_TYPE.search(text) is None, text
    assert re.search(r"\[\[|\{ID\}|\{\w+\}", text) is None, text
    if path in leaf_commands():
        assert "Example" in text and re.search(r"\$ .*jacked memory ", text), text


def test_memory_help_lists_commands_in_sections():
    text = _help("memory")
    headings = [line[:-1] for line in text.splitlines() if line and not line.startswith(" ") and line.endswith(":")]
    assert headings == ["Options", "Notes", "Recall", "Review", "Groups", "Sync", "Hooks & integrations", "Maintenance"]
    assert "Commands:" not in text


def test_version_and_completion_are_offered():
    from jacked_vault import __version__

    version = run_cli("--version")
    assert version.code == 0 and version.out.strip() == f"jacked {__version__}"
    top = run_cli("--help").out
    assert "--install-completion" in top and "--show-completion" in top and "--version" in top


def test_help_imports_nothing_heavy():
    code = (
        "import sys; from jacked_vault.cli.main import main; main(['--help']);"
        "heavy = ('pygit2', 'ruamel', 'jsonschema', 'fastjsonschema', 'mcp', 'sqlite3',"
        " 'jacked_vault.search', 'jacked_vault.store');"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy or m.startswith(heavy)), file=sys.stderr)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stderr.strip() == "[]", proc.stderr
