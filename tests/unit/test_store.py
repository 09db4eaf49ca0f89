"""The store: init, create-only commits, audit, project scope, symlink and gitignore refusals."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pygit2
import pytest
from conftest import git, make_repo, snapshot

from jacked_vault.context import Context
from jacked_vault.document import parse_note
from jacked_vault.errors import VaultError
from jacked_vault.notes import AddRequest, add
from jacked_vault.store import audit
from jacked_vault.store.layout import gitignore_template
from jacked_vault.store.machine_state import machine_id
from jacked_vault.write.init import init_vault
from tests.helpers.state import state_dir


def _add(ctx: Context, **kw):
    req = {"title": "Use FTS5", "body": "Because it ships with Python.", "kind": "decision", "group": "tools", **kw}
    return add(ctx, AddRequest(**req))


def test_init_creates_repo_with_readme_json_gitignore_and_one_commit(tmp_path: Path):
    result = init_vault(tmp_path / "v")
    root = result.store.root
    assert result.created and result.commit
    assert (root / ".gitignore").read_text() == gitignore_template()
    assert json.loads((root / "vault.json").read_text())["version"] == 1
    assert "unreviewed context, not instructions" in (root / "README.md").read_text()
    assert git(root, "log", "--format=%s").splitlines() == ["memory: init vault"]
    assert git(root, "status", "--porcelain") == ""
    (audit_file,) = [p for p in git(root, "ls-files").split() if p.startswith("audit/")]
    assert git(root, "ls-files").split() == [".gitignore", "README.md", audit_file, "vault.json"]


def test_init_is_idempotent(tmp_path: Path):
    init_vault(tmp_path / "v")
    again = init_vault(tmp_path / "v")
    assert not again.created and again.commit is None
    assert len(git(tmp_path / "v", "log", "--format=%H").split()) == 1


def test_init_refuses_unexpected_gitignore_and_writes_nothing(tmp_path: Path):
    root = tmp_path / "v"
    root.mkdir()
    pygit2.init_repository(str(root))
    (root / ".gitignore").write_text("*.tmp\n")
    with pytest.raises(VaultError) as err:
        init_vault(root)
    assert err.value.code == "GITIGNORE"
    assert sorted(p.name for p in root.iterdir()) == [".git", ".gitignore"]


def test_init_refuses_non_empty_non_vault_dir(tmp_path: Path):
    (tmp_path / "v").mkdir()
    (tmp_path / "v" / "notes.txt").write_text("mine")
    with pytest.raises(VaultError) as err:
        init_vault(tmp_path / "v")
    assert err.value.code == "CONFIG"
    assert [p.name for p in (tmp_path / "v").iterdir()] == ["notes.txt"]


def test_create_writes_valid_file_and_one_commit_with_trailers(ctx: Context):
    created = _add(ctx, tags=("search",))
    root = ctx.vault.root
    assert created.rel == "groups/tools/decision/use-fts5.md"
    note = parse_note((root / created.rel).read_bytes())
    assert note == created.note
    message = git(root, "log", "-1", "--format=%B")
    assert message.startswith("memory(decision): Use FTS5\n\n")
    assert f"Memory-Id: {note.id}" in message
    assert "Memory-Origin: cli" in message and "Memory-Harness: tester" in message
    assert git(root, "show", "--name-only", "--format=", "HEAD").split() == sorted(
        [created.rel, "groups/tools/index.md", f"audit/{machine_id(ctx.vault.state)}/{note.created_at[:7]}.jsonl"]
    )
    assert git(root, "status", "--porcelain") == ""
    git(root, "fsck", "--strict")


def test_name_clash_gets_numbered_suffix_and_never_replaces(ctx: Context):
    first = _add(ctx)
    second = _add(
        ctx, body="Because it ships with Python, and is fast."
    )  # the same title, other text (the same text is a duplicate)
    third = _add(ctx, body="Because nothing else ships with Python.")
    assert [first.rel, second.rel, third.rel] == [
        "groups/tools/decision/use-fts5.md",
        "groups/tools/decision/use-fts5-2.md",
        "groups/tools/decision/use-fts5-3.md",
    ]
    assert parse_note((ctx.vault.root / first.rel).read_bytes()).id == first.note.id


def test_audit_lines_form_a_hash_chain_without_bodies(ctx: Context):
    a = _add(ctx, body="first body text")
    b = _add(ctx, title="Second", body="second body text")
    machine = machine_id(ctx.vault.state)
    every = (ctx.vault.root / "audit" / machine / f"{a.note.created_at[:7]}.jsonl").read_text().splitlines()
    assert [json.loads(line)["op"] for line in every[:-2]] == ["init"] * 3  # the vault's own first commit
    lines = every[-2:]
    first, second = (json.loads(line) for line in lines)
    assert first["prev"] == audit.line_hash(every[-3]) and second["prev"] == audit.line_hash(lines[0])
    assert (first["op"], first["id"], second["id"]) == ("create", a.note.id, b.note.id)
    assert first["sha256"] == audit.content_hash((ctx.vault.root / a.rel).read_bytes())
    assert "body text" not in "".join(lines)
    assert audit.verify(ctx.vault.root).problems == []


def test_tampered_audit_line_breaks_the_chain(ctx: Context):
    _add(ctx)
    _add(ctx, title="Two")
    path = next((ctx.vault.root / "audit").rglob("*.jsonl"))
    lines = path.read_text().splitlines()
    lines[3] = lines[3].replace('"create"', '"CREATE"')
    path.write_text("\n".join(lines) + "\n")
    assert [p["code"] for p in audit.verify(ctx.vault.root).problems] == ["CHAIN_BROKEN"]


def test_supersedes_transitions_old_note_in_the_same_commit(ctx: Context):
    old = _add(ctx, title="Use Whoosh")
    new = _add(ctx, title="Use FTS5 instead", supersedes=(old.note.id,))
    root = ctx.vault.root
    old_now = parse_note((root / old.rel).read_bytes())
    assert old_now.status == "superseded" and old_now.status_reason == f"superseded by {new.note.id}"
    assert old_now.body == old.note.body and old_now.id == old.note.id
    changed = git(root, "show", "--name-only", "--format=", "HEAD").split()
    assert old.rel in changed and new.rel in changed
    with pytest.raises(VaultError) as err:
        _add(ctx, title="Again", supersedes=(old.note.id,))
    assert err.value.code == "VALIDATION"


def test_group_scope_outside_a_repo_without_group_is_usage_error(ctx: Context):
    with pytest.raises(VaultError) as err:
        add(ctx, AddRequest(title="t", body="b"))
    assert err.value.code == "USAGE"


def test_group_defaults_to_repo_solo_group_and_repo_identity(vault_path: Path, code_repo: Path):
    ctx = Context.create(vault=str(vault_path), cwd=code_repo, harness="t")
    created = add(ctx, AddRequest(title="Fact", body="b", kind="fact"))
    assert created.note.group == "api"
    assert created.note.repos == ["github.com/acme/api"]
    assert created.rel == "groups/api/fact/fact.md"


def test_group_comes_from_vault_json_mapping(vault_path: Path, code_repo: Path):
    config = json.loads((vault_path / "vault.json").read_text())
    config["groups"] = {"acme": {"repos": ["github.com/acme/api"]}}
    (vault_path / "vault.json").write_text(json.dumps(config))
    ctx = Context.create(vault=str(vault_path), cwd=code_repo, harness="t")
    assert add(ctx, AddRequest(title="Fact", body="b")).note.group == "acme"


def test_project_scope_is_its_own_repo_invisible_to_the_code_repo(vault_path: Path, code_repo: Path):
    ctx = Context.create(vault=str(vault_path), cwd=code_repo, harness="t")
    created = add(ctx, AddRequest(title="Private fact", body="only here", scope="project"))
    store = code_repo / ".jacked" / "memory"
    assert (code_repo / ".jacked" / ".gitignore").read_text() == "*\n"
    assert (store / created.rel).is_file() and created.rel == "note/private-fact.md"
    assert created.display_path == "project:note/private-fact.md"
    assert git(code_repo, "status", "--porcelain", "--untracked-files=all") == ""
    assert git(store, "log", "--format=%s").splitlines()[0] == "memory(note): Private fact"
    assert git(store, "status", "--porcelain") == ""
    vault_head = git(vault_path, "rev-parse", "HEAD")
    assert git(vault_path, "log", "--format=%s").count("Private fact") == 0 and vault_head


def test_project_scope_refuses_wrong_outer_gitignore(vault_path: Path, code_repo: Path):
    (code_repo / ".jacked").mkdir()
    (code_repo / ".jacked" / ".gitignore").write_text("memory/\n")
    ctx = Context.create(vault=str(vault_path), cwd=code_repo, harness="t")
    with pytest.raises(VaultError) as err:
        add(ctx, AddRequest(title="t", body="b", scope="project"))
    assert err.value.code == "GITIGNORE"
    assert sorted(p.name for p in (code_repo / ".jacked").iterdir()) == [".gitignore"]


def test_project_scope_refuses_symlinked_dot_jacked(vault_path: Path, code_repo: Path, tmp_path: Path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (code_repo / ".jacked").symlink_to(elsewhere)
    ctx = Context.create(vault=str(vault_path), cwd=code_repo, harness="t")
    with pytest.raises(VaultError) as err:
        add(ctx, AddRequest(title="t", body="b", scope="project"))
    assert err.value.code == "UNSAFE_PATH"
    assert list(elsewhere.iterdir()) == []


def test_vault_gitignore_changed_stops_every_write(ctx: Context):
    root = ctx.vault.root
    (root / ".gitignore").write_text(".jacked/\n!keep\n")
    before = snapshot(root)
    with pytest.raises(VaultError) as err:
        _add(ctx)
    assert err.value.code == "GITIGNORE"
    assert snapshot(root) == before


def test_symlink_planted_at_destination_is_never_followed(ctx: Context, tmp_path: Path):
    root = ctx.vault.root
    target = tmp_path / "outside.md"
    target.write_text("precious")
    (root / "groups" / "tools" / "decision").mkdir(parents=True)
    (root / "groups" / "tools" / "decision" / "use-fts5.md").symlink_to(target)
    created = _add(ctx)
    assert created.rel == "groups/tools/decision/use-fts5-2.md"
    assert target.read_text() == "precious"


def test_symlinked_kind_dir_is_refused(ctx: Context, tmp_path: Path):
    root = ctx.vault.root
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "groups" / "tools").mkdir(parents=True)
    (root / "groups" / "tools" / "decision").symlink_to(outside)
    before = snapshot(root)
    with pytest.raises(VaultError) as err:
        _add(ctx)
    assert err.value.code == "UNSAFE_PATH"
    assert list(outside.iterdir()) == []
    assert snapshot(root) == before


def test_symlinked_group_dir_is_refused(ctx: Context, tmp_path: Path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (ctx.vault.root / "groups").mkdir()
    (ctx.vault.root / "groups" / "tools").symlink_to(outside)
    with pytest.raises(VaultError) as err:
        _add(ctx)
    assert err.value.code == "UNSAFE_PATH"
    assert list(outside.iterdir()) == []


def test_failed_commit_undoes_the_file_and_audit(ctx: Context, monkeypatch):
    """If the commit step fails (e.g. the branch moved), nothing is left behind."""
    from jacked_vault.store import git as store_git

    _add(ctx, title="Existing")
    root = ctx.vault.root
    before = snapshot(root)

    def refuse(*args, **kwargs):
        raise VaultError("LOCKED", "the vault moved")

    monkeypatch.setattr(store_git, "commit_files", refuse)
    with pytest.raises(VaultError):
        _add(ctx, title="Doomed")
    assert snapshot(root) == before


def test_tree_surgery_commit_matches_what_git_sees(ctx: Context):
    for n in range(5):
        _add(ctx, title=f"Note {n}", group=f"g{n % 2}")
    root = ctx.vault.root
    assert git(root, "status", "--porcelain", "--untracked-files=all") == ""
    tracked = set(git(root, "ls-files").split())
    on_disk = {
        str(p.relative_to(root))
        for p in root.rglob("*")
        if p.is_file() and ".git" not in p.parts and ".jacked" not in p.parts
    }
    assert tracked == on_disk
    assert len(git(root, "log", "--format=%H").split()) == 6


def test_author_from_settings_else_git_config(ctx: Context):
    root = ctx.vault.root
    config = json.loads((root / "vault.json").read_text())
    config["settings"] = {"author": {"name": "Vault Bot", "email": "bot@example.com"}}
    (root / "vault.json").write_text(json.dumps(config))
    _add(ctx)
    assert git(root, "log", "-1", "--format=%an <%ae>").strip() == "Vault Bot <bot@example.com>"


def test_invalid_vault_json_is_a_config_error_naming_the_field(ctx: Context):
    root = ctx.vault.root
    (root / "vault.json").write_text(json.dumps({"version": 1, "groups": {"Bad Name": {"repos": []}}}))
    before = snapshot(root)
    with pytest.raises(VaultError) as err:
        _add(ctx)
    assert err.value.code == "CONFIG" and "vault.json" in err.value.message and "groups" in err.value.message
    assert snapshot(root) == before


def test_local_override_merges_over_vault_json(ctx: Context):
    root = ctx.vault.root
    (state_dir(root) / "vault.local.json").write_text(
        json.dumps({"settings": {"author": {"name": "Laptop", "email": "l@example.com"}}})
    )
    _add(ctx)
    assert git(root, "log", "-1", "--format=%an").strip() == "Laptop"


def test_lock_times_out_with_locked(ctx: Context):
    import fcntl

    root = ctx.vault.root
    config = json.loads((root / "vault.json").read_text())
    config["settings"] = {"lock_timeout_s": 0.2}
    (root / "vault.json").write_text(json.dumps(config))
    ctx = Context.create(vault=str(root), cwd=ctx.cwd, harness="t")
    fd = os.open(state_dir(root) / "lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        before = snapshot(root)
        with pytest.raises(VaultError) as err:
            _add(ctx)
        assert err.value.code == "LOCKED"
        assert snapshot(root) == before
    finally:
        os.close(fd)


def test_code_repo_with_its_own_repo_layout_stays_untouched(vault_path: Path, tmp_path: Path):
    repo_path = tmp_path / "r"
    repo_path.mkdir()
    make_repo(repo_path)
    ctx = Context.create(vault=str(vault_path), cwd=repo_path, harness="t")
    add(ctx, AddRequest(title="Group fact", body="b"))
    assert git(repo_path, "status", "--porcelain", "--untracked-files=all") == ""


def test_git_ref_lock_left_by_a_killed_commit_is_recovered(ctx: Context):
    _add(ctx, title="Before the crash")
    root = ctx.vault.root
    (state_dir(root) / "committing").write_text("12345")  # what a writer killed inside libgit2 leaves
    (root / ".git" / "refs" / "heads" / "main.lock").write_text("")
    created = _add(ctx, title="After the crash")
    assert git(root, "log", "-1", "--format=%s").strip() == "memory(decision): After the crash"
    assert not (root / ".git" / "refs" / "heads" / "main.lock").exists()
    assert not (state_dir(root) / "committing").exists() and created.commit


def test_git_ref_lock_of_a_live_git_is_respected(ctx: Context):
    _add(ctx, title="Before")
    root = ctx.vault.root
    lock = root / ".git" / "refs" / "heads" / "main.lock"
    lock.write_text("")
    before = snapshot(root)
    with pytest.raises(VaultError) as err:
        _add(ctx, title="Blocked")
    assert err.value.code == "LOCKED" and "stale git lock" in err.value.message
    assert lock.exists() and snapshot(root) == before
