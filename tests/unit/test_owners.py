"""One owner per rule, checked over the package's source (issue 22 items 2 and 3): settings are read
from the config in one place (`store.settings.Settings.build`), the library never reads the front
ends' environment (`jacked_vault.environment`), and every commit is made by the transaction's path
(`write.transaction`, over `store.git`)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from tests.helpers.state import state_dir

PACKAGE = Path(__file__).resolve().parents[2] / "jacked_vault"
FRONT_ENDS = ("cli", "frontend", "hooks", "mcp", "ui", "environment.py")
FRONT_END_ENV = {"JACKED_VAULT_DIR", "JACKED_MEMORY_HARNESS"}


def _sources() -> dict[str, ast.Module]:
    paths = sorted(PACKAGE.rglob("*.py"))
    return {str(p.relative_to(PACKAGE)): ast.parse(p.read_text(encoding="utf-8")) for p in paths}


NOT_VAULT_SETTINGS = {"plugin['settings']"}  # episodic.migrate: the path of Claude Code's settings.json


def _settings_digs(tree: ast.Module) -> list[int]:
    """Lines that take `settings` out of a dict: `x.get("settings")` or `x["settings"]`."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
            key = node.args[0] if node.args else None
        elif isinstance(node, ast.Subscript):
            key = node.slice
        else:
            continue
        if isinstance(key, ast.Constant) and key.value == "settings" and ast.unparse(node) not in NOT_VAULT_SETTINGS:
            found.append(node.lineno)
    return found


def _calls(tree: ast.Module, names: set[str]) -> list[str]:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
            if name in names:
                out.append(f"{name}:{node.lineno}")
    return out


def _library(rel: str) -> bool:
    return not rel.startswith(FRONT_ENDS)


def test_settings_are_taken_from_the_config_in_one_place():
    # store/config.py reads and merges the files (its `settings` keys are the sources, not values
    # a command acts on); store/settings.py is the one builder every reader goes through; the
    # schema checks generated for config.py (document/validate.FAST_CHECKS) walk the document.
    from jacked_vault.document.validate import FAST_CHECKS

    owners = {"store/config.py", "store/settings.py", *(f"document/{module}.py" for module in FAST_CHECKS.values())}
    digs = {rel: lines for rel, tree in _sources().items() if rel not in owners and (lines := _settings_digs(tree))}
    assert digs == {}


def test_the_settings_check_sees_a_dig():
    tree = ast.parse("a = ctx.config.get('settings')\nb = config['settings']['author']\nc = x.get('other')\n")
    assert _settings_digs(tree) == [1, 2]


def test_the_library_never_reads_the_front_ends_environment():
    found = {}
    for rel, tree in _sources().items():
        if not _library(rel):
            continue
        names = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and n.value in FRONT_END_ENV]
        imports = [
            n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module == "jacked_vault.environment"
        ] + [
            a.name
            for n in ast.walk(tree)
            if isinstance(n, ast.ImportFrom) and n.module == "jacked_vault"
            for a in n.names
            if a.name == "environment"
        ]
        if names or imports:
            found[rel] = names + imports
    assert found == {}


def test_one_commit_path():
    """Only the transaction builds a commit message, stages audit lines or makes a commit
    (`store.git` makes the objects it asks for)."""
    owners = {"write/transaction.py", "store/git.py"}
    found = {
        rel: calls
        for rel, tree in _sources().items()
        if rel not in owners and (calls := _calls(tree, {"commit_message", "create_commit", "stage", "commit_files"}))
    }
    assert found == {}


def test_settings_build_types_every_value_and_defaults_the_rest():
    from jacked_vault.store.settings import DEFAULT_SETTINGS, ReviewTrust, Settings

    given = {
        "settings": {
            "author": {"name": "Ada", "email": "ada@example.org"},
            "lock_timeout_s": 7,
            "sync": {"push": "after-write"},
            "writes": {"agents": "candidate"},
            "librarian": {"added": 5, "archive_after_days": 30},
            "distill": {"command": ["distill", "--json"], "timeout_s": 20},
        }
    }
    built = Settings.build(given, ReviewTrust.build({"trust_unsigned": ["m-desk", 3]}, Path("/signers")))
    assert dict(built.author or {}) == {"name": "Ada", "email": "ada@example.org"}
    assert (built.lock_timeout_s, built.push, built.push_after_write) == (7.0, "after-write", True)
    assert built.agents == "candidate"
    assert dict(built.librarian) == {"added": 5, "archive_after_days": 30}
    assert (built.distill_command, built.distill_timeout_s) == (("distill", "--json"), 20.0)
    assert built.review.signers == Path("/signers") and built.review.unsigned_from == {"m-desk"}
    assert not built.review.trusts_unsigned("m-desk"), "while trusted keys are asked for, nothing unsigned counts"
    assert ReviewTrust.build({"trust_unsigned": ["*"]}).trusts_unsigned("m-any")
    assert Settings.build({}) == DEFAULT_SETTINGS
    half = Settings.build({"settings": {"author": {"name": "Ada"}, "sync": {"push": "often"}, "writes": {"agents": 3}}})
    assert (half.author, half.push, half.agents) == (None, "session-end", "active")
    with pytest.raises(AttributeError):
        built.push = "manual"  # type: ignore[misc]


def test_context_settings_follow_the_effective_config(vault_path: Path, tmp_path: Path):
    """vault.json < machine config < vault.local.json; a program only from the machine config."""
    from conftest import write_machine_config

    from jacked_vault.context import Context

    shared = json.loads((vault_path / "vault.json").read_text())
    shared["settings"] = {"sync": {"push": "manual"}, "lock_timeout_s": 3}
    (vault_path / "vault.json").write_text(json.dumps(shared))
    local = {"settings": {"lock_timeout_s": 9, "distill": {"command": ["evil"]}}}
    (state_dir(vault_path) / "vault.local.json").write_text(json.dumps(local))
    signers = tmp_path / "allowed_signers"
    write_machine_config(
        {"sync": {"push": "after-write"}, "distill": {"command": ["mine"]}, "review": {"allowed_signers": str(signers)}}
    )
    settings = Context.create(vault=vault_path, cwd=tmp_path, harness="t").settings
    assert (settings.push, settings.lock_timeout_s, settings.distill_command) == ("after-write", 9.0, ("mine",))
    assert settings.review.signers == signers


def test_the_library_context_ignores_the_environment(monkeypatch, vault_path: Path, tmp_path: Path):
    from jacked_vault import environment
    from jacked_vault.context import Context

    monkeypatch.setenv("JACKED_MEMORY_HARNESS", "codex")
    monkeypatch.setenv("JACKED_VAULT_DIR", str(vault_path))
    assert Context.create(vault=tmp_path / "elsewhere", cwd=tmp_path).harness == "unknown"
    front = environment.context(None, tmp_path)
    assert (front.vault_path, front.harness) == (vault_path, "codex")
    assert environment.context("~/given", tmp_path, "claude").vault_path == Path.home() / "given"


def test_a_context_without_a_chosen_vault_is_refused(tmp_path: Path, monkeypatch):
    """The front end chooses the vault; a library caller handing None got '<cwd>/None' (every
    detached post-merge capture once opened such a folder and logged nothing)."""
    from jacked_vault.context import Context
    from jacked_vault.errors import VaultError

    monkeypatch.chdir(tmp_path)
    with pytest.raises(VaultError) as caught:
        Context.create(None)  # type: ignore[arg-type]
    assert caught.value.code == "INTERNAL"
    assert list(tmp_path.iterdir()) == []


# Where a note's `trust` may be compared with `reviewed`: the verdict's owner (store/trust.py) and
# the accepts' (store/reviews.py), the index that records it, the document rules that judge a
# file's claim (a transition never takes a review back) and the arrivals that judge what a remote's
# file claims. Every surface asks the verdict (`Doc.verdict`, `store.trust.Verdict`) instead of
# deciding what `reviewed` means.
TRUST_OWNERS = {
    "store/trust.py",
    "store/reviews.py",
    "search/index.py",
    "document/lifecycle.py",
    "document/_note_check.py",
    "sync/arrivals.py",
}


def _reviewed_compares(tree: ast.Module) -> list[int]:
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Compare)
        and any(isinstance(n, ast.Constant) and n.value == "reviewed" for n in [node.left, *node.comparators])
    ]


def test_one_trust_verdict_asked_by_every_surface():
    """Issue 31.8: a surface that decides `reviewed` from a file's trust (or a raw column) itself can
    disagree with the others; only the owners compare, the rest render `Verdict`."""
    found = {
        rel: lines
        for rel, tree in _sources().items()
        if rel not in TRUST_OWNERS and (lines := _reviewed_compares(tree))
    }
    assert found == {}


def test_the_trust_check_sees_a_compare():
    tree = ast.parse("a = doc.trust == 'reviewed'\nb = 'reviewed' != x\nc = trust == 'unreviewed'\n")
    assert _reviewed_compares(tree) == [1, 2]


# Merges and diffs that may pair files by content (rename/copy detection): only the owner of the
# vault's merge (`store.git.merge_histories`, which turns it off) calls them, and the capture of a
# code repository's merge (its changed-file stats, never a vault's tree).
CONTENT_PAIRING = {"merge_commits", "merge_trees", "find_similar"}
PAIRING_OWNERS = {"store/git.py", "capture/merge/info.py"}


def test_vault_merges_pair_files_by_path_only():
    """Issue 32.1: a merge that detects renames took a forgotten note's file for a new note."""
    found = {
        rel: calls
        for rel, tree in _sources().items()
        if rel not in PAIRING_OWNERS and (calls := _pygit2_calls(tree, CONTENT_PAIRING))
    }
    assert found == {}


def _pygit2_calls(tree: ast.Module, names: set[str]) -> list[str]:
    """Method calls named in `names` (`x.merge_commits(...)`), not plain functions of ours."""
    return [
        f"{node.func.attr}:{node.lineno}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in names
    ]


def test_the_pairing_check_sees_a_merge():
    tree = ast.parse("i = repo.merge_commits(a, b)\nd = repo.diff(x, y)\nd.find_similar()\nmerge(a)\n")
    assert _pygit2_calls(tree, CONTENT_PAIRING) == ["merge_commits:1", "find_similar:3"]
