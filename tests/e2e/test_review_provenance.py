"""Review with its provenance (issue 31 item 7, SPEC 5.5 as amended).

An accept is shown with where it came from: accepted here (its audit line is in this machine's
own chain), accepted on machine M by <git author> and not verified, or accepted and verified by
git against a trusted key (`review.allowed_signers`). Only accepts made here and verified ones
count as `reviewed` (the brief's mark, the tombstone rule); an unsigned accept from another
machine counts only where this machine's own config trusts that machine
(`review.trust_unsigned`), and is shown as such. With trusted keys configured, an unsigned accept
or forget arriving from the remote is quarantined. Real vaults, a real bare remote; the forged
accept is built with plain git in a third clone, as anyone with push access could."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import cli_env, git, make_repo, run_cli, write_machine_config
from helpers import sync_world
from helpers.forge import FORGER, forge_accept

from jacked_vault.context import Context
from jacked_vault.notes import AddRequest, add
from jacked_vault.store.machine_state import machine_id
from jacked_vault.sync import sync
from jacked_vault.write.transitions import transition

shared = sync_world.shared  # the fixture: (laptop, desktop, hostile clone, remote)
HARNESS = "claude"
AUTHOR = "jacked tests <tests@example.com>"
needs_ssh = pytest.mark.skipif(
    subprocess.run(["which", "ssh-keygen"], capture_output=True).returncode != 0, reason="needs ssh-keygen"
)


def _code_repo(root: Path) -> Path:
    """A code repo whose group is `tools` (the fixture's notes' group), for the brief and the hook."""
    repo = root / "code" / "tools"
    repo.mkdir(parents=True)
    make_repo(repo, "git@github.com:acme/tools.git")
    return repo


def _everywhere(vault: Path, cwd: Path, note_id: str, word: str) -> dict[str, object]:
    """The trust and the provenance every surface shows for one note."""
    from helpers.mcp_server import call, inproc, run
    from mcp import Client

    env = {"JACKED_MEMORY_HARNESS": HARNESS}
    found = run_cli("memory", "search", word, "--json", vault=vault, cwd=cwd, **env).json["results"]
    listed = run_cli("memory", "search", word, vault=vault, cwd=cwd, **env).out
    read = run_cli("memory", "read", note_id, "--json", vault=vault, cwd=cwd, **env).json["memory"]
    read_text = run_cli("memory", "read", note_id, vault=vault, cwd=cwd, **env).out
    brief = run_cli("memory", "brief", "--json", vault=vault, cwd=cwd, **env).json["text"]
    hook = subprocess.run(
        [sys.executable, "-m", "jacked_vault.cli.main", "_hook", "session-start"],
        input=json.dumps({"session_id": "s", "cwd": str(cwd), "hook_event_name": "SessionStart"}),
        capture_output=True, text=True, env=cli_env(vault, **env), cwd=cwd,
    ).stdout  # fmt: skip
    log = run_cli("memory", "log", note_id, "--json", vault=vault, cwd=cwd).json["entries"]

    async def go():
        async with Client(inproc(vault, cwd, harness=HARNESS)) as client:
            found = await call(client, "memory_search", {"query": word})
            return found, await call(client, "memory_read", {"id": note_id})

    (_, mcp_found), (_, mcp_read) = run(go)
    return {
        "search": [(r["trust"], r["review"]) for r in found],
        "search_text": [line for line in listed.splitlines() if note_id in line],
        "read": (read["trust"], read["review"]),
        "read_text": next(line for line in read_text.splitlines() if line.startswith("trust:")),
        "brief": [line for line in brief.splitlines() if word in line.lower() and line.startswith("- ")],
        "hook": [line for line in hook.splitlines() if word in line.lower() and line.startswith("- ")],
        "mcp_search": [(r["trust"], r["review"]) for r in mcp_found["results"]],
        "mcp_read": (mcp_read["memory"]["trust"], mcp_read["memory"]["review"]),
        "log": [e["review"] for e in log if e["summary"].startswith("memory(accept)")],
    }


def _author(vault: Path, commit: str) -> str:
    return git(vault, "log", "-1", "--format=%an <%ae>", commit).strip()


def _review(vault: Path, provenance: str, machine: str, commit: str, *, verified: bool, counts: bool) -> dict:
    """The `review` every surface shows for an accept (its author as git records it)."""
    return {"provenance": provenance, "machine": machine, "author": _author(vault, commit), "commit": commit,
            "verified": verified, "signed": verified, "counts": counts}  # fmt: skip


def _forged_on_the_laptop(shared, tmp_path: Path):
    """A note made on the desktop, accepted by hand in the hostile clone (unsigned, machine
    m-forger), pushed; the laptop syncs. Returns (laptop, note id, the forged commit, code repo)."""
    laptop, desktop, hostile, _ = shared
    note = add(desktop, AddRequest(title="Rotate the zebrakeys", kind="decision", body="Every quarter.", group="tools"))
    sync(desktop)
    git(hostile, "pull", "-q", "--no-rebase", "origin", "main")
    forged = forge_accept(hostile, note.rel)
    git(hostile, "push", "-q", "origin", "main")
    sync(laptop)
    return laptop, note.note.id, forged, _code_repo(tmp_path)


def test_an_unsigned_accept_from_another_machine_is_shown_as_such_and_counts_nowhere(shared, tmp_path: Path):
    laptop, note_id, forged, repo = _forged_on_the_laptop(shared, tmp_path)
    review = _review(laptop.vault.root, "machine", FORGER, forged, verified=False, counts=False)
    seen = _everywhere(laptop.vault.root, repo, note_id, "zebrakeys")
    assert seen["search"] == [("unreviewed", review)] and seen["mcp_search"] == [("unreviewed", review)]
    assert seen["read"] == ("unreviewed", review) and seen["mcp_read"] == ("unreviewed", review)
    assert seen["log"] == [review]
    said = f"accepted on machine {FORGER} by {AUTHOR}, not verified (unsigned)"
    assert seen["read_text"].startswith("trust:   unreviewed") and said in seen["read_text"]
    assert all("unreviewed (accepted on another machine, not verified)" in line
               for line in seen["search_text"]) and seen["search_text"]  # fmt: skip
    for surface in ("brief", "hook"):
        assert len(seen[surface]) == 1, seen[surface]
        line = seen[surface][0]
        # no machine id, no author in the brief: text anyone with push access chose
        assert "[reviewed]" not in line and "(accepted on another machine, not verified)" in line and FORGER not in line
    doctor = run_cli("memory", "doctor", "--json", vault=laptop.vault.root).json
    assert [(w["code"], w["id"]) for w in doctor["warnings"] if "REVIEW" in w["code"]] == [
        ("UNVERIFIED_REVIEW", note_id)
    ]
    status = run_cli("memory", "status", "--json", vault=laptop.vault.root).json["vault"]["reviews"]
    assert {k: status[k] for k in ("here", "verified", "machine", "not_counted", "unproven")} == {
        "here": 0,
        "verified": 0,
        "machine": 0,
        "not_counted": 1,
        "unproven": 0,
    }
    said = "reviewed notes: 0 counted (0 accepted here, 0 verified); 1 accepted elsewhere, not verified, not counted"
    assert said in run_cli("memory", "status", vault=laptop.vault.root).out


def test_this_machines_config_may_trust_another_machines_unsigned_accepts_shown_as_such(shared, tmp_path: Path):
    laptop, note_id, forged, repo = _forged_on_the_laptop(shared, tmp_path)
    write_machine_config({"review": {"trust_unsigned": [FORGER]}})
    review = _review(laptop.vault.root, "machine", FORGER, forged, verified=False, counts=True)
    seen = _everywhere(laptop.vault.root, repo, note_id, "zebrakeys")
    assert seen["search"] == [("reviewed", review)] and seen["read"] == ("reviewed", review)
    assert seen["mcp_read"] == ("reviewed", review) and seen["log"] == [review]
    assert (
        f"accepted on machine {FORGER} by {AUTHOR}, not verified (unsigned); counted: this machine trusts"
        in (seen["read_text"])
    )
    for surface in ("brief", "hook"):
        assert "[reviewed] (accepted on another machine, unsigned; trusted here)" in seen[surface][0]


def test_a_review_trust_setting_in_the_shared_vault_json_counts_for_nothing(vault_path: Path, tmp_path: Path):
    """Trust is the machine's own: a `review` setting anyone could push in vault.json is refused
    there (the schema), and the verdict never reads it."""
    ctx = Context.create(vault=str(vault_path), cwd=tmp_path, harness="t")
    note = add(ctx, AddRequest(title="Trust the zebraherd", body="b", group="g"))
    forge_accept(vault_path, note.rel)
    config = json.loads((vault_path / "vault.json").read_text())
    config.setdefault("settings", {})["review"] = {"trust_unsigned": ["*"]}
    (vault_path / "vault.json").write_text(json.dumps(config))
    git(vault_path, "commit", "-qam", "trust everyone")
    found = run_cli("memory", "search", "zebraherd", "--all", "--json", vault=vault_path).json["results"]
    assert [(r["trust"], r["review"]["counts"]) for r in found] == [("unreviewed", False)]
    status = run_cli("memory", "status", "--json", vault=vault_path)
    assert status.code != 0 and status.json["error"]["code"] == "JACKED_MEMORY_CONFIG"
    assert "vault.json" in status.json["error"]["message"]


def test_an_accept_naming_a_machine_no_jacked_makes_is_no_accept(vault_path: Path, tmp_path: Path):
    """A machine id is what `audit.machine_id` makes (a slug); a hand-built `Memory-Audit` naming
    anything else (text chosen to be shown) is no evidence at all."""
    ctx = Context.create(vault=str(vault_path), cwd=tmp_path, harness="t")
    note = add(ctx, AddRequest(title="Shown zebramachine", body="b", group="g"))
    forge_accept(vault_path, note.rel, machine="Read-THIS.Agent")
    found = run_cli("memory", "search", "zebramachine", "--all", "--json", vault=vault_path).json["results"]
    assert [(r["trust"], r["review"], r["claimed_trust"]) for r in found] == [("unreviewed", None, "reviewed")]


def test_an_accept_made_here_is_reviewed_and_says_here(shared, tmp_path: Path):
    laptop, _, _, _ = shared
    note = add(laptop, AddRequest(title="Pin the zebradeps", kind="decision", body="Always pin.", group="tools"))
    done = transition(laptop, note.note.id, "accept")
    here = machine_id(laptop.vault.state)
    review = _review(laptop.vault.root, "here", here, done.commit, verified=False, counts=True)
    seen = _everywhere(laptop.vault.root, _code_repo(tmp_path), note.note.id, "zebradeps")
    assert seen["search"] == [("reviewed", review)] and seen["read"] == ("reviewed", review)
    assert seen["mcp_search"] == [("reviewed", review)] and seen["log"] == [review]
    assert seen["read_text"] == f"trust:   reviewed (accepted here by {review['author']})"
    assert all("[reviewed] (accepted here)" in seen[s][0] for s in ("brief", "hook"))


def test_another_machines_honest_accept_arrives_unverified_until_it_is_signed_or_trusted(shared, tmp_path: Path):
    laptop, desktop, _, _ = shared
    note = add(desktop, AddRequest(title="Cache the zebrapages", kind="decision", body="For a day.", group="tools"))
    done = transition(desktop, note.note.id, "accept")
    sync(desktop)
    sync(laptop)
    desk = machine_id(desktop.vault.state)
    found = run_cli("memory", "search", "zebrapages", "--all", "--json", vault=laptop.vault.root).json["results"]
    assert [(r["trust"], r["review"]) for r in found] == [
        ("unreviewed", _review(laptop.vault.root, "machine", desk, done.commit, verified=False, counts=False))
    ]
    on_desktop = run_cli("memory", "search", "zebrapages", "--all", "--json", vault=desktop.vault.root).json
    assert [r["review"]["provenance"] for r in on_desktop["results"]] == ["here"]


# -- signed reviews: one step to set up, verified by git against trusted keys --------------------------


def _ssh_key(folder: Path, name: str) -> tuple[Path, str]:
    folder.mkdir(parents=True, exist_ok=True)
    key = folder / name
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(key)], check=True)
    return key, (folder / f"{name}.pub").read_text().strip()


def _fresh(ctx: Context) -> Context:
    """The same machine's context anew: a context reads the machine config once."""
    return Context.create(vault=str(ctx.vault.root), cwd=ctx.cwd, harness=ctx.harness)


def _signs_with(vault: Path, key: Path) -> None:
    git(vault, "config", "gpg.format", "ssh")
    git(vault, "config", "user.signingkey", str(key))


@needs_ssh
def test_an_accept_verified_against_a_trusted_key_counts_on_every_machine(shared, tmp_path: Path):
    laptop, desktop, _, _ = shared
    key, pub = _ssh_key(tmp_path / "keys", "desk")
    _signs_with(desktop.vault.root, key)
    note = add(desktop, AddRequest(title="Sign the zebrareleases", kind="decision", body="Always.", group="tools"))
    done = transition(desktop, note.note.id, "accept")
    sync(desktop)
    signers = tmp_path / "allowed_signers"
    signers.write_text(f'desk@example.com namespaces="git" {pub}\n')
    write_machine_config({"review": {"allowed_signers": str(signers)}})
    sync(laptop)
    desk = machine_id(desktop.vault.state)
    review = _review(laptop.vault.root, "verified", desk, done.commit, verified=True, counts=True)
    seen = _everywhere(laptop.vault.root, _code_repo(tmp_path), note.note.id, "zebrareleases")
    assert seen["search"] == [("reviewed", review)] and seen["mcp_read"] == ("reviewed", review)
    assert seen["read_text"] == (
        f"trust:   reviewed (accepted on machine {desk} by {review['author']}, verified against a trusted key)"
    )
    assert all("[reviewed] (accepted, verified against a trusted key)" in seen[s][0] for s in ("brief", "hook"))


@needs_ssh
def test_with_trusted_keys_an_unsigned_accept_or_forget_arriving_is_quarantined(shared, tmp_path: Path):
    from jacked_vault.write.forget import forget

    laptop, desktop, _, _ = shared
    waiting = add(desktop, AddRequest(title="Waits for zebras", body="A candidate.", group="tools", status="candidate"))
    doomed = add(desktop, AddRequest(title="Forget the zebrasecret", body="Said by mistake.", group="tools"))
    sync(desktop)
    sync(laptop)
    transition(desktop, waiting.note.id, "accept")  # unsigned: no key set up on the desktop
    forget(desktop, doomed.note.id)
    sync(desktop)
    _, pub = _ssh_key(tmp_path / "keys", "laptop")
    signers = tmp_path / "allowed_signers"
    signers.write_text(f"me@example.com {pub}\n")
    write_machine_config({"review": {"allowed_signers": str(signers)}})
    root = laptop.vault.root
    result = sync(_fresh(laptop))  # a context reads the machine config once
    stones = f"tombstones/{machine_id(desktop.vault.state)}.forgotten.txt"
    assert sorted((q["path"], q["code"]) for q in result.quarantined) == sorted(
        [(waiting.rel, "UNSIGNED_REVIEW"), (doomed.rel, "UNSIGNED_FORGET"), (stones, "UNSIGNED_FORGET")]
    )
    assert result.forgotten == []
    assert 'status: "candidate"' in (root / waiting.rel).read_text() and (root / doomed.rel).is_file()
    head = git(root, "log", "-1", "--format=%s").strip()
    assert head.startswith("memory: sync of origin"), head  # its index.md right the first time: no second commit
    integration = git(root, "log", "-1", "-p", "--grep", "^memory: sync of origin", "--", "audit")
    assert integration.count('"op":"quarantine"') == 3, integration  # one commit of this machine's own records all
    # the forgotten value came with no signed forget either: not taken, so the note stays as it was, live
    assert 'status: "active"' in (root / doomed.rel).read_text()
    assert not (root / stones).exists() or not (root / stones).read_text().strip()
    assert run_cli("memory", "search", "zebrasecret", "--json", vault=root).json["results"]
    quarantine = run_cli("memory", "doctor", "--json", vault=root).json["quarantine"]
    assert {(q["path"], q["source"]) for q in quarantine} >= {(waiting.rel, "sync"), (doomed.rel, "sync")}


@needs_ssh
def test_with_trusted_keys_a_signed_accept_and_forget_arriving_are_taken(shared, tmp_path: Path):
    from jacked_vault.write.forget import forget

    laptop, desktop, _, _ = shared
    waiting = add(desktop, AddRequest(title="Waits for okapis", body="A candidate.", group="tools", status="candidate"))
    doomed = add(desktop, AddRequest(title="Forget the okapisecret", body="Said by mistake.", group="tools"))
    sync(desktop)
    sync(laptop)
    key, pub = _ssh_key(tmp_path / "keys", "desk")
    signers = tmp_path / "allowed_signers"
    signers.write_text(f"desk@example.com {pub}\n")
    write_machine_config({"review": {"allowed_signers": str(signers)}})
    _signs_with(desktop.vault.root, key)
    transition(desktop, waiting.note.id, "accept")
    forget(desktop, doomed.note.id)
    sync(desktop)
    result = sync(_fresh(laptop))
    assert result.quarantined == [] and result.forgotten == [doomed.rel]
    assert 'trust: "reviewed"' in (laptop.vault.root / waiting.rel).read_text()
    assert not (laptop.vault.root / doomed.rel).exists()


def _rejected_and_known_everywhere(laptop: Context, desktop: Context, title: str) -> None:
    noted = add(desktop, AddRequest(title=title, body="Tabs everywhere.", group="tools"))
    transition(desktop, noted.note.id, "reject", reason="not then")
    sync(desktop)
    sync(laptop)


def _re_add(title: str) -> AddRequest:
    return AddRequest(title=title, body="Tabs everywhere.", group="tools", allow_rejected=True)


def _status(root: Path, rel: str) -> str:
    return next(line for line in (root / rel).read_text().splitlines() if line.startswith("status:"))


@needs_ssh
def test_with_trusted_keys_an_unsigned_re_add_lifting_a_reject_is_not_taken(shared, tmp_path: Path):
    """Issue 33.14 under signing: a person's `add --allow-rejected` lifts a reject on other
    machines as a review does, so where this machine names trusted keys, only when a trusted key
    signed it; an unsigned one (forgeable by anyone who can push) leaves the reject standing."""
    laptop, desktop, _, _ = shared
    _rejected_and_known_everywhere(laptop, desktop, "Prefer zebratabs")
    again = add(desktop, _re_add("Prefer zebratabs"))
    sync(desktop)
    _, pub = _ssh_key(tmp_path / "keys", "laptop")
    signers = tmp_path / "allowed_signers"
    signers.write_text(f"me@example.com {pub}\n")
    write_machine_config({"review": {"allowed_signers": str(signers)}})
    result = sync(_fresh(laptop))
    assert again.note.id in result.rejected, result
    assert _status(laptop.vault.root, again.rel) == 'status: "rejected"'


@needs_ssh
def test_with_trusted_keys_a_signed_re_add_lifting_a_reject_is_taken(shared, tmp_path: Path):
    laptop, desktop, _, _ = shared
    _rejected_and_known_everywhere(laptop, desktop, "Prefer okapitabs")
    key, pub = _ssh_key(tmp_path / "keys", "desk")
    signers = tmp_path / "allowed_signers"
    signers.write_text(f"desk@example.com {pub}\n")
    write_machine_config({"review": {"allowed_signers": str(signers)}})
    _signs_with(desktop.vault.root, key)
    again = add(_fresh(desktop), _re_add("Prefer okapitabs"))
    assert "Memory-Lift: " + again.note.id in git(desktop.vault.root, "log", "-1", "--format=%B")
    assert "gpgsig " in git(desktop.vault.root, "cat-file", "commit", "HEAD")  # signed, as an accept is
    sync(_fresh(desktop))
    result = sync(_fresh(laptop))
    assert again.note.id not in result.rejected and result.quarantined == [], result
    assert _status(laptop.vault.root, again.rel) == 'status: "active"'


# -- the one step: `jacked memory signing` --------------------------------------------------------------


def _machine_config() -> dict:
    import os

    path = Path(os.environ["XDG_CONFIG_HOME"]) / "jacked" / "config.json"
    return json.loads(path.read_text()) if path.exists() else {}


@needs_ssh
def test_signing_sets_up_this_persons_key_and_the_teams_in_one_step(vault_path: Path, tmp_path: Path):
    home = vault_path.parent
    key, pub = _ssh_key(home / ".ssh", "id_ed25519")
    _, mate = _ssh_key(tmp_path / "mate", "mate")
    (tmp_path / "mate.pub").write_text(mate + "\n")
    done = run_cli("memory", "signing", "--add", str(tmp_path / "mate.pub"), "--json", vault=vault_path)
    assert done.code == 0, done.out + done.err
    signers = Path(_machine_config()["settings"]["review"]["allowed_signers"])
    lines = signers.read_text().splitlines()
    assert [line.split()[-2:] for line in lines] == [pub.split()[:2], mate.split()[:2]]
    assert git(vault_path, "config", "gpg.format").strip() == "ssh"
    assert git(vault_path, "config", "user.signingkey").strip() == str(key)
    assert done.json["signers"] == str(signers) and len(done.json["keys"]) == 2
    again = run_cli("memory", "signing", "--json", vault=vault_path)
    assert again.code == 0 and signers.read_text().splitlines() == lines, "running it again adds nothing"
    ctx = Context.create(vault=str(vault_path), cwd=tmp_path, harness="t")
    note = add(ctx, AddRequest(title="Signed zebra", body="b", group="g"))
    assert run_cli("memory", "accept", note.note.id, vault=vault_path).code == 0
    read = run_cli("memory", "read", note.note.id, "--all", "--json", vault=vault_path).json["memory"]
    assert read["trust"] == "reviewed" and read["review"]["provenance"] == "verified"


@needs_ssh
def test_signing_without_a_key_says_so_and_changes_nothing(vault_path: Path, tmp_path: Path):
    before = git(vault_path, "config", "--local", "--list")
    done = run_cli("memory", "signing", "--json", vault=vault_path)
    assert done.code != 0 and done.json["error"]["code"] == "JACKED_MEMORY_USAGE"
    assert "ssh key" in done.json["error"]["message"]
    assert _machine_config() == {} and not list((Path(tmp_path / "xdg-config")).rglob("allowed_signers"))
    assert git(vault_path, "config", "--local", "--list") == before


@needs_ssh
def test_signing_with_a_teammate_key_that_is_not_one_changes_nothing(vault_path: Path, tmp_path: Path):
    _ssh_key(vault_path.parent / ".ssh", "id_ed25519")
    (tmp_path / "bad.pub").write_text("not a key at all\n")
    before = git(vault_path, "config", "--local", "--list")
    done = run_cli("memory", "signing", "--add", str(tmp_path / "bad.pub"), "--json", vault=vault_path)
    assert done.code != 0 and done.json["error"]["code"] == "JACKED_MEMORY_USAGE"
    assert _machine_config() == {} and git(vault_path, "config", "--local", "--list") == before
