"""The real CLI in a subprocess: JSON shapes, exit codes, no tracebacks, safe human output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import cli_env, git, run_cli, snapshot


@pytest.fixture
def cli_vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    result = run_cli("memory", "init", "--json", vault=vault)
    assert result.code == 0, result.err
    data = result.json
    assert (data["schema"], data["ok"], data["path"], data["created"]) == (
        "jacked.init.v1",
        True,
        str(vault.resolve()),
        True,
    )
    groups = data["groups"]  # no folder of clones in this HOME: the usual ones were looked in, none found
    assert groups["roots_source"] == "usual folders" and groups["missing_roots"] == groups["roots"]
    assert groups["roots"][:4] == ["~/code", "~/src", "~/Github", "~/projects"]
    return vault


def _add(
    vault: Path, *extra: str, title: str = "Use FTS5", body: str = "secret-free body text", cwd: Path | None = None
):
    return run_cli(
        "memory", "add", "--group", "tools", "--title", title, "--body", body, "--json", *extra, vault=vault, cwd=cwd
    )


def test_help_is_fast_path_and_lists_memory(tmp_path: Path):
    result = run_cli("--help")
    assert result.code == 0 and "memory" in result.out
    sub = run_cli("memory", "--help")
    assert sub.code == 0
    for command in ("init", "status", "add", "handoff", "read", "search", "doctor", "log"):
        assert command in sub.out


def test_add_json_shape_and_no_body_echo(cli_vault: Path):
    result = _add(cli_vault, "--kind", "decision", "--tag", "search", body="a distinctive body phrase")
    assert result.code == 0, result.err
    data = result.json
    assert data["schema"] == "jacked.add.v1" and data["ok"] is True
    assert data["path"] == "group:groups/tools/decision/use-fts5.md"
    assert len(data["commit"]) == 40
    assert "body" not in data["memory"] and data["memory"]["kind"] == "decision"
    assert "distinctive body phrase" not in result.out + result.err
    human = run_cli(
        "memory", "add", "--group", "tools", "--title", "Second", "--body", "a distinctive body phrase", vault=cli_vault
    )
    assert human.code == 0 and "distinctive" not in human.out and str(cli_vault) not in human.out


def test_body_from_file_and_stdin(cli_vault: Path, tmp_path: Path):
    body_file = tmp_path / "body.md"
    body_file.write_text("from a file\n")
    assert _add(cli_vault, "--body-file", str(body_file), title="File").code == 2  # --body given too
    from_file = run_cli(
        "memory", "add", "--group", "g", "--title", "File", "--body-file", str(body_file), "--json", vault=cli_vault
    )
    from_stdin = run_cli(
        "memory", "add", "--group", "g", "--title", "Stdin", "--stdin", "--json", vault=cli_vault, stdin="from stdin\n"
    )
    assert from_file.code == 0 and from_stdin.code == 0
    read = run_cli("memory", "read", from_stdin.json["memory"]["id"], "--json", vault=cli_vault)
    assert read.json["memory"]["body"] == "from stdin"


def test_read_search_log_status_doctor_json_shapes(cli_vault: Path):
    added = _add(cli_vault).json
    note_id = added["memory"]["id"]
    read = run_cli("memory", "read", note_id, "--json", vault=cli_vault)
    assert read.code == 0
    assert set(read.json) >= {"schema", "ok", "memory", "path", "backlinks", "backlinks_truncated"}
    assert read.json["schema"] == "jacked.read.v1" and read.json["memory"]["body"] == "secret-free body text"
    search = run_cli("memory", "search", "fts5", "--json", vault=cli_vault)
    assert search.json["schema"] == "jacked.search.v1"
    (hit,) = search.json["results"]
    assert set(hit) >= {"id", "title", "kind", "scope", "group", "status", "score", "tier", "excerpt", "path"}
    assert set(search.json["diagnostics"]) >= {"invalid_file_count", "invalid_files", "skipped_symlinks", "truncated"}
    log = run_cli("memory", "log", note_id, "--json", vault=cli_vault)
    assert log.json["schema"] == "jacked.log.v1"
    assert [e["memory_id"] for e in log.json["entries"]] == [note_id]
    rejected = run_cli("memory", "reject", note_id, "--reason", "stale", vault=cli_vault)
    assert rejected.code == 0, rejected.err
    told = run_cli("memory", "log", note_id, vault=cli_vault).out.splitlines()
    # the create's line is an old commit: the mark beside it is the note's state now, and says so (issue 33.21)
    assert len(told) == 2 and all("[now: rejected · " in line for line in told), told
    whole = run_cli("memory", "log", "--json", vault=cli_vault)
    assert [e["summary"] for e in whole.json["entries"]] == [
        "memory(reject): Use FTS5",
        "memory(note): Use FTS5",
        "memory: init vault",
    ]
    status = run_cli("memory", "status", "--json", vault=cli_vault)
    assert status.json["schema"] == "jacked.status.v1"
    assert status.json["vault"]["notes"] == 1 and status.json["repo"] is None
    assert set(status.json["vault"]) >= {"path", "head", "notes", "remote", "ahead", "behind", "diverged"}
    doctor = run_cli("memory", "doctor", "--json", vault=cli_vault)
    assert doctor.code == 0 and doctor.json["schema"] == "jacked.doctor.v1" and doctor.json["ok"] is True


def test_handoff_targets_and_harness(cli_vault: Path):
    result = run_cli(
        "memory",
        "handoff",
        "--from",
        "claude",
        "--target",
        "codex",
        "--group",
        "g",
        "--title",
        "Pick up the bench",
        "--body",
        "run it",
        "--json",
        vault=cli_vault,
    )
    assert result.code == 0, result.err
    memory = result.json["memory"]
    assert (memory["kind"], memory["source_harness"], memory["target_harnesses"]) == ("handoff", "claude", ["codex"])
    assert "Memory-Harness: claude" in git(cli_vault, "log", "-1", "--format=%B")


def test_harness_from_environment(cli_vault: Path):
    result = run_cli(
        "memory",
        "add",
        "--group",
        "g",
        "--title",
        "T",
        "--body",
        "b",
        "--json",
        vault=cli_vault,
        JACKED_MEMORY_HARNESS="cursor",
    )
    assert result.json["memory"]["source_harness"] == "cursor"


def test_init_records_the_harness_it_runs_in(tmp_path: Path):
    """`init` names its harness the way `add` does ($JACKED_MEMORY_HARNESS, else unknown), never `cli`."""
    for harness, env in (("codex", {"JACKED_MEMORY_HARNESS": "codex"}), ("unknown", {})):
        vault = tmp_path / f"vault-{harness}"
        result = run_cli("memory", "init", "--no-scan", "--json", vault=vault, **env)
        assert result.code == 0, result.err
        trailers = git(vault, "log", "--format=%(trailers:key=Memory-Harness,valueonly)").split()
        assert trailers and set(trailers) == {harness}


@pytest.mark.parametrize(
    ("args", "code", "exit_code"),
    [
        (("memory", "add", "--group", "g", "--title", "T"), "JACKED_MEMORY_USAGE", 2),
        (("memory", "add", "--group", "g", "--body", "b"), "JACKED_MEMORY_USAGE", 2),
        (
            ("memory", "add", "--group", "g", "--title", "T", "--body", "b", "--kind", "opinion"),
            "JACKED_MEMORY_VALIDATION",
            1,
        ),
        (("memory", "add", "--group", "Bad Group", "--title", "T", "--body", "b"), "JACKED_MEMORY_VALIDATION", 1),
        (
            ("memory", "add", "--group", "g", "--title", "T", "--body", "b", "--tag", "Not A Slug"),
            "JACKED_MEMORY_VALIDATION",
            1,
        ),
        (("memory", "add", "--group", "g", "--title", "T" * 201, "--body", "b"), "JACKED_MEMORY_VALIDATION", 1),
        (("memory", "add", "--group", "g", "--title", "T", "--body", "   "), "JACKED_MEMORY_VALIDATION", 1),
        (("memory", "add", "--group", "g", "--title", "T\x1b[31m", "--body", "b"), "JACKED_MEMORY_VALIDATION", 1),
        (("memory", "add", "--group", "g", "--title", "T", "--body", "b\u202eevil"), "JACKED_MEMORY_VALIDATION", 1),
        (
            ("memory", "add", "--group", "g", "--title", "T", "--body", "b", "--link", "not-an-id"),
            "JACKED_MEMORY_VALIDATION",
            1,
        ),
        (
            ("memory", "add", "--group", "g", "--title", "T", "--body", "b", "--supersedes", "mem_20260101_absent"),
            "JACKED_MEMORY_NOT_FOUND",
            1,
        ),
        (
            ("memory", "add", "--group", "g", "--title", "T", "--body", "b", "--scope", "world"),
            "JACKED_MEMORY_USAGE",
            2,
        ),
        (
            ("memory", "add", "--group", "g", "--title", "T", "--body", "b", "--valid-from", "yesterday"),
            "JACKED_MEMORY_USAGE",
            2,
        ),
        (("memory", "add", "--title", "T", "--body", "b"), "JACKED_MEMORY_USAGE", 2),
        (("memory", "read", "mem_20260101_absent"), "JACKED_MEMORY_NOT_FOUND", 1),
        (("memory", "log", "mem_20260101_absent"), "JACKED_MEMORY_NOT_FOUND", 1),
        (("memory", "search", "x", "--limit", "0"), "JACKED_MEMORY_USAGE", 2),
        (("memory", "frobnicate"), "JACKED_MEMORY_USAGE", 2),
    ],
)
def test_refusals_have_stable_codes_change_nothing_and_no_traceback(
    cli_vault: Path, args, code, exit_code, tmp_path: Path
):
    before = snapshot(cli_vault)
    result = run_cli(*args, "--json", vault=cli_vault, cwd=tmp_path)
    assert result.code == exit_code, (result.out, result.err)
    assert result.json["ok"] is False and result.json["error"]["code"] == code
    assert "Traceback" not in result.out + result.err
    human = run_cli(*args, vault=cli_vault, cwd=tmp_path)
    assert human.code == exit_code and "Traceback" not in human.out + human.err
    assert snapshot(cli_vault) == before


def test_oversized_body_file_refused_before_reading_it_all(cli_vault: Path, tmp_path: Path):
    big = tmp_path / "big.md"
    big.write_bytes(b"x" * (64 * 1024 + 1))
    before = snapshot(cli_vault)
    result = run_cli(
        "memory", "add", "--group", "g", "--title", "T", "--body-file", str(big), "--json", vault=cli_vault
    )
    assert result.code == 1 and result.json["error"]["code"] == "JACKED_MEMORY_VALIDATION"
    assert snapshot(cli_vault) == before


def test_non_utf8_body_refused(cli_vault: Path, tmp_path: Path):
    bad = tmp_path / "bad.md"
    bad.write_bytes(b"\xff\xfe not utf-8")
    result = run_cli(
        "memory", "add", "--group", "g", "--title", "T", "--body-file", str(bad), "--json", vault=cli_vault
    )
    assert result.json["error"]["code"] == "JACKED_MEMORY_VALIDATION"


def test_secret_refused_with_kind_named_not_value(cli_vault: Path):
    token = "ghp_" + "Zq7Lm2Nx9Vb4Kc8Wd1Rt6Yh3Ju5Ep0Sa7Fg2"
    before = snapshot(cli_vault)
    result = _add(cli_vault, body=f"deploy with {token} please")
    assert result.code == 1 and result.json["error"]["code"] == "JACKED_MEMORY_SECRET"
    assert token not in result.out + result.err and token[4:12] not in result.out
    assert snapshot(cli_vault) == before


def test_no_vault_error_says_how_to_init(tmp_path: Path):
    result = run_cli("memory", "search", "x", "--json", vault=tmp_path / "missing")
    assert result.code == 1 and result.json["error"]["code"] == "JACKED_MEMORY_NO_VAULT"
    assert "jacked memory init" in result.json["error"]["message"]


def test_vault_option_after_memory_and_after_command(cli_vault: Path, tmp_path: Path):
    first = run_cli("memory", "--vault", str(cli_vault), "add", "--group", "g", "--title", "A", "--body", "b", "--json")
    second = run_cli(
        "memory", "add", "--vault", str(cli_vault), "--group", "g", "--title", "B", "--body", "b", "--json"
    )
    assert first.code == 0 and second.code == 0
    assert len(git(cli_vault, "log", "--format=%H").split()) == 3


def test_human_output_strips_terminal_escapes(cli_vault: Path):
    git(cli_vault, "remote", "add", "origin", "https://example.com/o/r\x1b]0;owned\x07.git")
    result = run_cli("memory", "status", vault=cli_vault)
    assert result.code == 0
    assert "\x1b" not in result.out and "\x07" not in result.out


def test_group_and_repo_from_cwd(cli_vault: Path, code_repo: Path):
    result = run_cli("memory", "add", "--title", "Inside", "--body", "b", "--json", vault=cli_vault, cwd=code_repo)
    assert result.json["memory"]["group"] == "api" and result.json["memory"]["repos"] == ["github.com/acme/api"]
    status = run_cli("memory", "status", "--json", vault=cli_vault, cwd=code_repo / ".")
    assert status.json["repo"] == {"identity": "github.com/acme/api", "group": "api", "path": str(code_repo.resolve())}


def test_a_note_for_another_group_records_no_repo_of_this_one(cli_vault: Path, code_repo: Path):
    """Issue 33.18: `add --group g` run inside a repo of another group is about g, not that repo;
    the repo of the cwd is recorded only when it is the note's group's (or given with --repo)."""
    other = run_cli(
        "memory", "add", "--group", "tools", "--title", "Elsewhere", "--body", "b", "--json",
        vault=cli_vault, cwd=code_repo,
    )  # fmt: skip
    assert other.json["memory"]["group"] == "tools" and other.json["memory"]["repos"] == [], other.json
    same = run_cli(
        "memory", "add", "--group", "api", "--title", "Here", "--body", "b", "--json", vault=cli_vault, cwd=code_repo
    )
    assert same.json["memory"]["repos"] == ["github.com/acme/api"]
    given = run_cli(
        "memory", "add", "--group", "tools", "--repo", "github.com/acme/api", "--title", "Named", "--body", "b",
        "--json", vault=cli_vault, cwd=code_repo,
    )  # fmt: skip
    assert given.json["memory"]["repos"] == ["github.com/acme/api"]


def test_doctor_exit_code_reflects_problems(cli_vault: Path):
    _add(cli_vault)
    (cli_vault / "groups" / "tools" / "note" / "stray.md").write_text("junk")
    result = run_cli("memory", "doctor", "--json", vault=cli_vault)
    assert result.code == 1 and result.json["ok"] is False


@pytest.mark.parametrize("lead_s", [0.0, 1.5], ids=["first-chunk-early", "nothing-yet-at-read"])
def test_stdin_from_a_non_blocking_pipe_is_read_to_eof(cli_vault: Path, lead_s: float):
    """Agent tool runners hand over O_NONBLOCK pipes; a late second chunk must not be lost (nor crash the CLI)."""
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)  # the flag lives on the shared open file: the child's stdin is non-blocking too
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jacked_vault.cli.main",
            "memory",
            "add",
            "--group",
            "g",
            "--title",
            "Late",
            "--stdin",
            "--json",
        ],
        stdin=read_end,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=cli_env(cli_vault),
        cwd=cli_vault.parent,
    )
    os.close(read_end)
    try:
        for pause, chunk in [(lead_s, b"first half of the body, "), (1.5, b"second half after a pause\n")]:
            time.sleep(pause)
            os.write(write_end, chunk)
    except BrokenPipeError:
        pass  # the CLI stopped reading early: the assertions below say what it did
    finally:
        os.close(write_end)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert b"Traceback" not in err
    read = run_cli("memory", "read", json.loads(out)["memory"]["id"], "--json", vault=cli_vault)
    assert read.json["memory"]["body"] == "first half of the body, second half after a pause"


def test_stdin_over_the_cap_is_refused_without_reading_it_all(cli_vault: Path):
    from jacked_vault.document import MAX_BODY_BYTES

    before = snapshot(cli_vault)
    result = run_cli(
        "memory",
        "add",
        "--group",
        "g",
        "--title",
        "Big",
        "--stdin",
        "--json",
        vault=cli_vault,
        stdin="x" * (MAX_BODY_BYTES + 10),
    )
    assert result.code == 1 and result.json["error"]["code"] == "JACKED_MEMORY_VALIDATION"
    assert "cap" in result.json["error"]["message"] and snapshot(cli_vault) == before
