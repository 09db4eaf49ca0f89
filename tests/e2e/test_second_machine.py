"""A second machine joins the shared vault (`init --from`, `remote set`, `sync` on an init-only
vault), through the real CLI, with one HOME per machine and a real bare remote."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import git, make_repo, run_cli
from helpers.sync_world import bare_remote, vault_in

from tests.helpers.state import state_dir

NOTE = ("--group", "tools", "--title", "Laptop fact", "--body", "Written on the laptop.")


@pytest.fixture
def shared(tmp_path: Path) -> tuple[Path, str]:
    """The first machine's vault (HOME tmp/laptop) with one note, pushed to a bare remote."""
    url = bare_remote(tmp_path / "shared.git")
    laptop = vault_in(tmp_path / "laptop")
    assert run_cli("memory", "init", "--no-scan", vault=laptop).code == 0
    assert run_cli("memory", "add", *NOTE, vault=laptop).code == 0
    assert run_cli("memory", "remote", "set", url, vault=laptop).code == 0
    assert run_cli("memory", "push", vault=laptop).code == 0
    return laptop, url


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def _push_tree(tmp_path: Path, url: str, files: dict[str, str], symlinks: dict[str, str] | None = None) -> None:
    """Commit `files` (and symlinks) on top of the remote's main with plain git, and push it."""
    work = tmp_path / "pusher"
    subprocess.run(["git", "clone", "-q", url, str(work)], check=True, capture_output=True)
    for rel, text in files.items():
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        (work / rel).write_text(text)
    for rel, target in (symlinks or {}).items():
        os.symlink(target, work / rel)
    git(work, "add", "-A", "-f")
    git(work, "commit", "-q", "-m", "hostile")
    git(work, "push", "-q", "origin", "HEAD:main")


def test_init_from_clones_the_vault_and_makes_this_machine_local_parts(shared, tmp_path: Path):
    laptop, url = shared
    desktop = vault_in(tmp_path / "desktop")
    done = run_cli("memory", "init", "--from", url, "--json", vault=desktop)
    assert done.code == 0, done.out + done.err
    out = done.json
    assert out["path"] == str(desktop) and out["notes"] == 1 and out["from"] == url and out["branch"] == "main"
    assert out["head"] == git(laptop, "rev-parse", "HEAD").strip()
    machine = (state_dir(desktop) / "machine-id").read_text().strip()
    assert out["machine_id"] == machine != (state_dir(laptop) / "machine-id").read_text().strip()
    assert (state_dir(desktop) / "index.sqlite").is_file()
    assert any("hooks install --claude" in hint for hint in out["next"]) and any(
        "--mcp claude --user" in hint for hint in out["next"]
    )
    assert not (tmp_path / "desktop" / ".claude").exists()  # offered, never installed
    assert not (desktop / ".git" / "hooks").exists()  # no template hooks came along
    assert git(desktop, "status", "--porcelain") == ""
    status = run_cli("memory", "status", "--json", vault=desktop).json["vault"]
    assert (status["notes"], status["remote"], status["ahead"], status["behind"], status["diverged"]) == (
        1,
        url,
        0,
        0,
        False,
    )
    assert status["last_sync"]["result"] == "ok"
    assert run_cli("memory", "doctor", "--json", vault=desktop).json["ok"] is True
    assert run_cli("memory", "search", "laptop", "--json", vault=desktop).json["results"][0]["title"] == "Laptop fact"
    assert run_cli("memory", "sync", "--json", vault=desktop).json["action"] == "up-to-date"
    # Both ways from here on: the desktop's note reaches the laptop.
    assert (
        run_cli("memory", "add", "--group", "tools", "--title", "Desktop fact", "--body", "b", vault=desktop).code == 0
    )
    assert run_cli("memory", "sync", "--json", vault=desktop).json["action"] == "pushed"
    assert run_cli("memory", "sync", "--json", vault=laptop).json["action"] == "fast-forward"
    assert run_cli("memory", "status", "--json", vault=laptop).json["vault"]["notes"] == 2


@pytest.mark.parametrize(
    "files, symlinks, why",
    [
        ({".jacked/machine-id": "m-000000000000\n"}, {}, "under .jacked/"),
        ({}, {"groups/tools/note/link.md": "/etc/passwd"}, "a symlink"),
        ({"run-me.sh": "#!/bin/sh\necho hi\n"}, {}, "outside the vault layout"),
    ],
)
def test_init_from_refuses_what_a_vault_never_takes_and_leaves_nothing(shared, tmp_path: Path, files, symlinks, why):
    _, url = shared
    _push_tree(tmp_path, url, files, symlinks)
    home = tmp_path / "desktop"
    home.mkdir()
    before = _leftovers(home)
    refused = run_cli("memory", "init", "--from", url, "--json", vault=home / "vault")
    assert refused.code == 1
    assert refused.json["error"]["code"] == "JACKED_MEMORY_SYNC" and why in refused.json["error"]["message"]
    assert _leftovers(home) == before  # no vault, no hidden clone folder


def test_init_from_refuses_an_empty_remote_a_code_repo_and_a_taken_folder(shared, tmp_path: Path):
    laptop, url = shared
    home = tmp_path / "desktop"
    empty = run_cli(
        "memory",
        "init",
        "--from",
        bare_remote(tmp_path / "empty.git"),
        "--json",
        vault=home / "a" / "vault",
        cwd=tmp_path,
    )
    assert empty.json["error"]["code"] == "JACKED_MEMORY_SYNC" and "no vault yet" in empty.json["error"]["message"]
    assert not home.exists()  # the parents it made are gone too
    code = tmp_path / "code"
    make_repo(code)
    other = run_cli("memory", "init", "--from", f"file://{code}", "--json", vault=home / "vault", cwd=tmp_path)
    assert (
        other.json["error"]["code"] == "JACKED_MEMORY_SYNC" and "not a jacked vault" in other.json["error"]["message"]
    )
    assert not home.exists()
    head = git(laptop, "rev-parse", "HEAD")
    taken = run_cli("memory", "init", "--from", url, "--json", vault=laptop)
    assert taken.json["error"]["code"] == "JACKED_MEMORY_EXISTS" and "remote set" in taken.json["error"]["message"]
    assert git(laptop, "rev-parse", "HEAD") == head
    bad = run_cli("memory", "init", "--from", "https://x/\x1b[31m", "--json", vault=home / "vault", cwd=tmp_path)
    assert bad.json["error"]["code"] == "JACKED_MEMORY_VALIDATION" and not home.exists()


def test_init_from_runs_no_hook_of_the_person_or_the_remote(shared, tmp_path: Path):
    _, url = shared
    home = tmp_path / "desktop"
    hooks = home / "githooks"
    hooks.mkdir(parents=True)
    for name in ("post-checkout", "post-merge", "reference-transaction"):
        (hooks / name).write_text(f"#!/bin/sh\ntouch {home}/ran-{name}\n")
        (hooks / name).chmod(0o755)
    (home / ".gitconfig").write_text(f"[core]\n\thooksPath = {hooks}\n[init]\n\ttemplateDir = {home}/template\n")
    (home / "template").mkdir()
    (home / "template" / "hooks").symlink_to(hooks)
    done = run_cli("memory", "init", "--from", url, "--json", vault=home / "vault")
    assert done.code == 0, done.out
    assert not list(home.glob("ran-*"))


def test_remote_set_on_an_init_only_vault_adopts_the_remote_history(shared, tmp_path: Path):
    laptop, url = shared
    desktop = vault_in(tmp_path / "desktop")
    assert run_cli("memory", "init", "--no-scan", vault=desktop).code == 0
    done = run_cli("memory", "remote", "set", url, "--json", vault=desktop)
    assert done.json["adopted"] is True
    assert git(desktop, "rev-parse", "HEAD") == git(laptop, "rev-parse", "HEAD")
    assert run_cli("memory", "status", "--json", vault=desktop).json["vault"]["notes"] == 1
    assert run_cli("memory", "sync", "--json", vault=desktop).json["action"] == "up-to-date"


def test_sync_on_an_init_only_vault_adopts_what_the_remote_got_later(tmp_path: Path):
    url = bare_remote(tmp_path / "shared.git")
    desktop = vault_in(tmp_path / "desktop")
    assert run_cli("memory", "init", "--no-scan", vault=desktop).code == 0
    assert (
        run_cli("memory", "remote", "set", url, "--json", vault=desktop).json["adopted"] is False
    )  # nothing there yet
    laptop = vault_in(tmp_path / "laptop")
    run_cli("memory", "init", "--no-scan", vault=laptop)
    run_cli("memory", "add", *NOTE, vault=laptop)
    git(laptop, "push", "-q", url, "main")
    synced = run_cli("memory", "sync", "--json", vault=desktop)
    assert synced.json["action"] == "adopted", synced.out
    assert git(desktop, "rev-parse", "HEAD") == git(laptop, "rev-parse", "HEAD")
    assert git(desktop, "status", "--porcelain") == ""
    assert run_cli("memory", "status", "--json", vault=desktop).json["vault"]["notes"] == 1


def test_two_vaults_made_apart_say_how_to_join_them(shared, tmp_path: Path):
    _, url = shared
    desktop = vault_in(tmp_path / "desktop")
    run_cli("memory", "init", "--no-scan", vault=desktop)
    run_cli("memory", "group", "map", "github.com/o/x", "grp", vault=desktop)  # a history of its own: no adoption
    head = git(desktop, "rev-parse", "HEAD")
    refused = run_cli("memory", "remote", "set", url, "--json", vault=desktop)
    message = refused.json["error"]["message"]
    assert f"remote set {url} --join" in message and f"init --from {url}" in message
    assert git(desktop, "rev-parse", "HEAD") == head and git(desktop, "remote") == ""
    joined = run_cli("memory", "remote", "set", url, "--join", "--json", vault=desktop)
    assert joined.json["joined"] is True, joined.out
    assert run_cli("memory", "doctor", "--json", vault=desktop).json["ok"]
    assert run_cli("memory", "search", "laptop", "--all", "--json", vault=desktop).json["results"]


@pytest.mark.parametrize("origin", ["git@github.com:Acme/API.git", None])
def test_a_worktree_of_a_mapped_repo_gets_the_same_group_and_brief(tmp_path: Path, origin):
    vault = tmp_path / "vault"
    run_cli("memory", "init", "--no-scan", vault=vault)
    main = tmp_path / "code" / "api"
    main.mkdir(parents=True)
    make_repo(main, origin).add_worktree("feature", str(tmp_path / "code" / "api-feature"))
    worktree = tmp_path / "code" / "api-feature"
    assert run_cli("memory", "group", "map", str(main), "platform", vault=vault).code == 0
    run_cli("memory", "add", "--title", "Platform rule", "--body", "Mapped group note.", vault=vault, cwd=main)
    seen = [run_cli("memory", "status", "--json", vault=vault, cwd=cwd).json["repo"] for cwd in (main, worktree)]
    assert seen[0]["group"] == seen[1]["group"] == "platform" and seen[0]["identity"] == seen[1]["identity"]
    briefs = [run_cli("memory", "brief", vault=vault, cwd=cwd).out for cwd in (main, worktree)]
    assert briefs[0] == briefs[1] and "Platform rule" in briefs[0]


def test_init_from_finds_the_branch_that_holds_the_vault(tmp_path: Path):
    """Issue 18.3: a bare remote made with plain `git init --bare` names `master` as HEAD while
    the vault pushed `main`; init --from takes main and says so."""
    remote = tmp_path / "plain.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "master", str(remote)], check=True)
    url = f"file://{remote}"
    laptop = vault_in(tmp_path / "laptop")
    run_cli("memory", "init", "--no-scan", vault=laptop)
    assert run_cli("memory", "add", *NOTE, vault=laptop).code == 0
    run_cli("memory", "remote", "set", url, vault=laptop)
    assert run_cli("memory", "push", vault=laptop).code == 0
    desktop = vault_in(tmp_path / "desktop")
    done = run_cli("memory", "init", "--from", url, "--json", vault=desktop)
    assert done.code == 0, done.out + done.err
    assert done.json["branch"] == "main" and done.json["notes"] == 1
    text = run_cli("memory", "init", "--from", url, vault=vault_in(tmp_path / "third"))
    assert "main" in text.out and "master" in text.out, text.out
    assert git(desktop, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main"
    synced = run_cli("memory", "sync", "--json", vault=desktop)
    assert synced.code == 0, synced.out
