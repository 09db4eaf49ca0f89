"""Groups end to end: init scans real repos and suggests, review on a TTY, map, list, doctor."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import cli_env, git, make_repo, run_cli, snapshot


@pytest.fixture
def repos_root(tmp_path: Path) -> Path:
    root = tmp_path / "Github"
    for name, url in [
        ("acme-api", "git@github.com:Acme/acme-api.git"),
        ("acme-web", "https://github.com/acme/acme-web.git"),
        ("shipping", "git@github.com:globex/shipping.git"),
        ("ledger", "git@github.com:globex/ledger.git"),
        ("scratch", None),
    ]:
        (root / name).mkdir(parents=True)
        make_repo(root / name, url)
    return root


def test_init_json_suggests_without_writing(tmp_path: Path, repos_root: Path):
    vault = tmp_path / "vault"
    result = run_cli("memory", "init", "--root", str(repos_root), "--json", vault=vault)
    assert result.code == 0, result.err
    groups = result.json["groups"]
    assert groups["repos_found"] == 5
    assert [(g["name"], g["repos"]) for g in groups["suggestions"]] == [
        ("acme", ["github.com/acme/acme-api", "github.com/acme/acme-web"]),
        ("globex", ["github.com/globex/ledger", "github.com/globex/shipping"]),
    ]
    assert groups["accepted"] == [] and groups["commit"] is None
    assert json.loads((vault / "vault.json").read_text())["groups"] == {}
    assert git(vault, "rev-list", "--count", "HEAD").strip() == "1"


def test_init_yes_writes_mapping_as_a_commit_and_adds_follow_it(tmp_path: Path, repos_root: Path):
    vault = tmp_path / "vault"
    result = run_cli("memory", "init", "--root", str(repos_root), "--yes", "--json", vault=vault)
    assert result.code == 0, result.err
    config = json.loads((vault / "vault.json").read_text())
    assert config["groups"]["acme"]["repos"] == ["github.com/acme/acme-api", "github.com/acme/acme-web"]
    assert "roots" not in config  # this machine's folders stay on this machine (issue 31.1)
    machine = json.loads((Path(os.environ["XDG_CONFIG_HOME"]) / "jacked" / "config.json").read_text())
    assert machine["roots"][-1] == str(repos_root)
    assert git(vault, "log", "-1", "--format=%s").startswith("memory(config): groups acme, globex")
    added = run_cli(
        "memory", "add", "--title", "Shared auth", "--body", "b", "--json", vault=vault, cwd=repos_root / "acme-web"
    )
    assert added.json["memory"]["group"] == "acme"
    solo = run_cli(
        "memory", "add", "--title", "Scratch fact", "--body", "b", "--json", vault=vault, cwd=repos_root / "scratch"
    )
    assert solo.json["memory"]["group"] == "scratch"
    again = run_cli("memory", "init", "--root", str(repos_root), "--yes", "--json", vault=vault)
    assert again.json["created"] is False and again.json["groups"]["suggestions"] == []


def test_init_review_on_a_tty_accepts_edits_and_skips(tmp_path: Path, repos_root: Path):
    vault = tmp_path / "vault"
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "jacked_vault.cli.main", "memory", "init", "--root", str(repos_root)],
        stdin=slave,
        stdout=subprocess.PIPE,
        stderr=slave,
        env=cli_env(vault),
        cwd=tmp_path,
    )
    os.close(slave)
    transcript = b""
    answers = [b"e\n", b"acme-platform\n", b"s\n"]
    deadline = time.monotonic() + 60
    while answers and time.monotonic() < deadline:
        chunk = os.read(master, 4096)
        transcript += chunk
        if transcript.rstrip().endswith(b":") or transcript.rstrip().endswith(b"]:"):
            os.write(master, answers.pop(0))
            transcript += b"|"
    out, _ = proc.communicate(timeout=60)
    os.close(master)
    assert proc.returncode == 0, transcript
    config = json.loads((vault / "vault.json").read_text())
    assert sorted(config["groups"]) == ["acme-platform"]
    assert "accepted group acme-platform" in out.decode()


def test_group_map_list_and_refusals(tmp_path: Path, repos_root: Path):
    vault = tmp_path / "vault"
    run_cli("memory", "init", "--no-scan", vault=vault)
    mapped = run_cli("memory", "group", "map", str(repos_root / "shipping"), "logistics", "--json", vault=vault)
    assert mapped.code == 0, mapped.err
    assert (mapped.json["repo"], mapped.json["group"], mapped.json["previous"]) == (
        "github.com/globex/shipping",
        "logistics",
        None,
    )
    moved = run_cli("memory", "group", "map", "github.com/globex/shipping", "freight", "--json", vault=vault)
    assert moved.json["previous"] == "logistics"
    same = run_cli("memory", "group", "map", "github.com/globex/shipping", "freight", "--json", vault=vault)
    assert same.json["commit"] is None
    config = json.loads((vault / "vault.json").read_text())
    assert config["groups"] == {"logistics": {"repos": []}, "freight": {"repos": ["github.com/globex/shipping"]}}
    run_cli("memory", "add", "--title", "Route planning", "--body", "b", vault=vault, cwd=repos_root / "shipping")
    listed = run_cli("memory", "group", "list", "--json", vault=vault).json["groups"]
    # logistics lost its one repo and holds no note: listed no more (issue 18.16)
    assert {g["name"]: (g["repo_count"], g["note_count"]) for g in listed} == {"freight": (1, 1)}
    before = snapshot(vault)
    for args, code in [
        (("Not A Slug",), "JACKED_MEMORY_VALIDATION"),
        (("../escape",), "JACKED_MEMORY_VALIDATION"),
    ]:
        bad = run_cli("memory", "group", "map", "github.com/o/r", *args, "--json", vault=vault)
        assert bad.json["error"]["code"] == code
    hostile = run_cli("memory", "group", "map", "github.com/o/\x1b]0;x", "g", "--json", vault=vault)
    assert hostile.json["error"]["code"] == "JACKED_MEMORY_VALIDATION"
    assert snapshot(vault) == before


def test_duplicate_mapping_edited_by_hand_is_reported_by_doctor(tmp_path: Path):
    vault = tmp_path / "vault"
    run_cli("memory", "init", "--no-scan", vault=vault)
    config = json.loads((vault / "vault.json").read_text())
    config["groups"] = {"a": {"repos": ["github.com/o/r"]}, "b": {"repos": ["github.com/o/r"]}}
    (vault / "vault.json").write_text(json.dumps(config))
    report = run_cli("memory", "doctor", "--json", vault=vault)
    assert report.code == 1
    assert report.json["config_problems"] == [
        {"code": "DUPLICATE_MAPPING", "repo": "github.com/o/r", "groups": ["a", "b"]}
    ]


def test_invalid_vault_json_names_file_and_field(tmp_path: Path):
    vault = tmp_path / "vault"
    run_cli("memory", "init", "--no-scan", vault=vault)
    (vault / "vault.json").write_text('{"version": 1, "groups": {"ok": {"repos": "not-a-list"}}}')
    result = run_cli("memory", "group", "list", "--json", vault=vault)
    assert result.json["error"]["code"] == "JACKED_MEMORY_CONFIG"
    assert "vault.json" in result.json["error"]["message"] and "groups/ok/repos" in result.json["error"]["message"]
    (vault / "vault.json").write_text("{not json")
    broken = run_cli("memory", "group", "list", "--json", vault=vault)
    assert (
        broken.json["error"]["code"] == "JACKED_MEMORY_CONFIG" and "not valid JSON" in broken.json["error"]["message"]
    )


def test_init_suggests_the_organisation_and_says_why_the_personal_account_is_not_grouped(tmp_path: Path):
    """Issue 10.2: three acme repos and two of the person's own; the organisation is grouped."""
    root = tmp_path / "Github"
    for owner, name in [
        ("acme", "billing"),
        ("acme", "ledger"),
        ("acme", "search"),
        ("newcomer", "dotfiles"),
        ("newcomer", "blog"),
    ]:
        (root / name).mkdir(parents=True)
        make_repo(root / name, f"git@github.com:{owner}/{name}.git")
    gitconfig = tmp_path / "gitconfig"
    gitconfig.write_text("[user]\n\tname = New Comer\n\temail = 4242+newcomer@users.noreply.github.com\n")
    vault = tmp_path / "vault"
    result = run_cli("memory", "init", "--root", str(root), "--json", vault=vault, GIT_CONFIG_GLOBAL=str(gitconfig))
    assert result.code == 0, result.err
    groups = result.json["groups"]
    acme = ["github.com/acme/billing", "github.com/acme/ledger", "github.com/acme/search"]
    assert [(g["name"], g["repos"]) for g in groups["suggestions"]] == [("acme", acme)]
    assert groups["personal_handles"] == ["newcomer"]
    considered = {c["owner"]: c for c in groups["considered"]}
    assert (considered["github.com/acme"]["suggested"], considered["github.com/acme"]["name"]) == (True, "acme")
    mine = considered["github.com/newcomer"]
    assert (mine["suggested"], mine["code"], mine["name"]) == (False, "personal", None)
    assert (
        mine["repos"] == ["github.com/newcomer/blog", "github.com/newcomer/dotfiles"]
        and "your own account" in mine["reason"]
    )

    human = run_cli("memory", "group", "suggest", "--root", str(root), vault=vault, GIT_CONFIG_GLOBAL=str(gitconfig))
    assert human.code == 0, human.err
    lines = human.out.splitlines()
    assert "suggested group acme (3 repos share the remote owner github.com/acme): " + ", ".join(acme) in lines
    assert any(
        line.startswith("not grouped: github.com/newcomer/blog, github.com/newcomer/dotfiles (")
        and "your own account" in line
        for line in lines
    )
    assert "Traceback" not in human.err and "{" not in human.out


# --- secrets in what a person gives `group map` (issue 17.8, 17.9) -------------------------


def _slack_slug() -> str:
    """A Slack bot token that is also a valid group slug (lowercase, digits, dashes)."""
    return "xo" + "xb-" + "1234567890" + "-" + "1234567890123" + "-" + "abcdefghijklmnopqrstuvwx"


def _assert_nowhere(vault: Path, secret: str, *outputs: str) -> None:
    """`secret` is in no output and nowhere in the vault's history (every ref, every patch)."""
    for output in outputs:
        assert secret not in output
    assert secret not in git(vault, "log", "-p", "--all")


def test_group_map_refuses_a_group_name_that_is_a_token(tmp_path: Path):
    vault = tmp_path / "vault"
    run_cli("memory", "init", "--no-scan", vault=vault)
    token = _slack_slug()
    head = git(vault, "rev-parse", "HEAD")
    before = snapshot(vault)
    for as_json in ([], ["--json"]):
        result = run_cli("memory", "group", "map", "github.com/acme/q", token, *as_json, vault=vault)
        assert result.code == 1, (result.out, result.err)
        output = result.out + result.err
        assert "JACKED_MEMORY_SECRET" in output and "Slack token" in output
        _assert_nowhere(vault, token, result.out, result.err)
    assert json.loads(result.out)["error"]["code"] == "JACKED_MEMORY_SECRET"
    assert git(vault, "rev-parse", "HEAD") == head
    assert snapshot(vault) == before


def test_a_vault_json_arriving_with_a_token_as_group_name_is_refused_by_the_gate(tmp_path: Path):
    from jacked_vault.errors import VaultError
    from jacked_vault.store.gate import inspect
    from jacked_vault.store.vault import Store

    vault = tmp_path / "vault"
    run_cli("memory", "init", "--no-scan", vault=vault)
    token = _slack_slug()
    config = json.loads((vault / "vault.json").read_text())
    config["groups"] = {token: {"repos": ["github.com/acme/q"]}, "ok": {"repos": []}}
    data = (json.dumps(config, indent=2) + "\n").encode()
    with pytest.raises(VaultError) as refused:
        inspect(Store(vault), "vault.json", data, arrival=True)
    error = refused.value
    assert error.code == "SECRET" and error.details["gate"] == "SECRET"
    assert error.details["findings"] == [{"field": "vault.json.groups (a key)", "kind": "Slack token"}]
    assert token not in str(error) + json.dumps(error.to_json())


def test_no_output_of_group_map_or_unmap_echoes_a_credential_given_as_repo(tmp_path: Path):
    """Issue 17.9: `group map 'https://admin:S3cr3tPw9xQ@github.com/a/b' g1` printed the password.
    Every refusal and every answer names the argument, never what was given."""
    vault = tmp_path / "vault"
    run_cli("memory", "init", "--no-scan", vault=vault)
    password = "S3cr3t" + "Pw9xQ"
    token = "gh" + "p_" + "a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8"  # lowercase: a valid repo identity
    folder = tmp_path / f"deploy-{password}"  # an existing folder outside any git repo
    folder.mkdir()
    with_password = tmp_path / "code" / "api"
    with_password.mkdir(parents=True)
    make_repo(with_password, f"https://admin:{password}@github.com/acme/api.git")
    head = git(vault, "rev-parse", "HEAD")
    refusals = [
        (("map", f"https://admin:{password}@github.com/a/b", "g1"), password, "JACKED_MEMORY_USAGE"),
        (("map", f"admin:{password}@github.com/a/b", "g1"), password, "JACKED_MEMORY_VALIDATION"),
        (("map", str(folder), "g1"), password, "JACKED_MEMORY_USAGE"),
        (("map", "github.com/acme/q", password), password, "JACKED_MEMORY_VALIDATION"),
        (("unmap", f"https://admin:{password}@github.com/a/b"), password, "JACKED_MEMORY_USAGE"),
        (("unmap", f"github.com/acme/{token}"), token, "JACKED_MEMORY_NOT_FOUND"),
        (("map", f"github.com/acme/{token}", "g1"), token, "JACKED_MEMORY_SECRET"),
    ]
    for args, secret, code in refusals:
        for as_json in ([], ["--json"]):
            result = run_cli("memory", "group", *args, *as_json, vault=vault)
            assert result.code != 0 and code in result.out + result.err, (args, result.out, result.err)
            _assert_nowhere(vault, secret, result.out, result.err)
    assert git(vault, "rev-parse", "HEAD") == head
    for as_json in ([], ["--json"]):  # a folder whose origin holds a password: mapped, never shown
        mapped = run_cli("memory", "group", "map", str(with_password), "g1", *as_json, vault=vault)
        assert mapped.code == 0 and "github.com/acme/api" in mapped.out, mapped.err
        _assert_nowhere(vault, password, mapped.out, mapped.err)
