"""`.git/jacked/sync-state.json` keeps times in the one timestamp format (`YYYY-MM-DDTHH:MM:SS.mmmZ`),
reads a file an earlier version wrote (epoch seconds), and `status` shows both the same way."""

from __future__ import annotations

import json
import subprocess
from datetime import UTC, datetime
from pathlib import Path

from conftest import git, run_cli
from helpers.sync_world import bare_remote, vault_in

from jacked_vault.document.model import TIMESTAMP_RE
from jacked_vault.store.sync_state import read_states, write_state
from tests.helpers.state import state_dir

EPOCH = 1764648000.25  # 2025-12-02T04:00:00.250Z
EPOCH_STAMP = "2025-12-02T04:00:00.250Z"


def _state_file(root: Path) -> Path:
    return state_dir(root) / "sync-state.json"


def test_a_recorded_outcome_keeps_the_canonical_timestamp(tmp_path):
    before = datetime.now(UTC).replace(microsecond=0)
    state = write_state(tmp_path, "ok", "fast-forwarded")
    write_state(tmp_path, "failed", "not pushed: no route", kind="push")
    data = json.loads(_state_file(tmp_path).read_text())
    for kind in ("pull", "push"):
        assert TIMESTAMP_RE.fullmatch(data[kind]["at"]), data
    assert data["pull"]["at"] == state.at
    assert datetime.fromisoformat(state.at.replace("Z", "+00:00")) >= before
    read = read_states(tmp_path)
    assert read["pull"] == state and read["push"] is not None and read["push"].result == "failed"


def test_a_file_written_by_the_old_version_is_read(tmp_path):
    """Epoch seconds (both records and the one-record format before pushes were kept) read as
    the canonical timestamp of the same instant."""
    _state_file(tmp_path).parent.mkdir(parents=True)
    _state_file(tmp_path).write_text(json.dumps({
        "pull": {"result": "ok", "message": "fast-forwarded", "at": EPOCH},
        "push": {"result": "failed", "message": "no route", "at": int(EPOCH)},
    }))  # fmt: skip
    states = read_states(tmp_path)
    assert states["pull"] is not None and states["pull"].at == EPOCH_STAMP
    assert states["push"] is not None and states["push"].at == "2025-12-02T04:00:00.000Z"
    _state_file(tmp_path).write_text(json.dumps({"result": "diverged", "message": "m", "at": EPOCH}))
    pull = read_states(tmp_path)["pull"]
    assert pull is not None and (pull.result, pull.at) == ("diverged", EPOCH_STAMP)


def test_a_record_with_a_broken_time_reads_as_none(tmp_path):
    _state_file(tmp_path).parent.mkdir(parents=True)
    for bad in ("yesterday", "2026-02-30T00:00:00.000Z", True, None, [1]):
        _state_file(tmp_path).write_text(json.dumps({"pull": {"result": "ok", "message": "m", "at": bad}}))
        assert read_states(tmp_path)["pull"] is None, bad


def test_status_shows_an_old_and_a_new_record_alike(tmp_path):
    """The real CLI: `status --json` gives `at` as a timestamp string for a file either version
    wrote, and the human text the minute in UTC."""
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    vault = tmp_path / "vault"
    run_cli("memory", "init", "--no-scan", vault=vault)
    assert run_cli("memory", "remote", "set", f"file://{remote}", vault=vault).code == 0
    _state_file(vault).write_text(json.dumps({
        "pull": {"result": "ok", "message": "fast-forwarded", "at": EPOCH},
        "push": {"result": "ok", "message": "pushed", "at": "2026-01-03T10:20:30.400Z"},
    }))  # fmt: skip
    shown = run_cli("memory", "status", "--json", vault=vault).json["vault"]
    assert shown["last_pull"]["at"] == shown["last_sync"]["at"] == EPOCH_STAMP
    assert shown["last_push"]["at"] == "2026-01-03T10:20:30.400Z"
    text = run_cli("memory", "status", vault=vault).out
    assert "last pull ok at 2025-12-02 04:00 UTC (fast-forwarded)" in text, text
    assert "last push ok at 2026-01-03 10:20 UTC (pushed)" in text, text


def _plant_old_pull(vault: Path) -> None:
    _state_file(vault).write_text(json.dumps({"result": "ok", "message": "fast-forwarded", "at": EPOCH}))


def test_sync_keeps_the_outcome_recorded_where_it_failed(tmp_path):
    """The unrelated remote is refused and recorded as such; sync's own `failed` never covers it
    (an earlier version's record was there before)."""
    url = bare_remote(tmp_path / "team.git")
    team, laptop = vault_in(tmp_path / "team"), vault_in(tmp_path / "laptop")
    for vault in (team, laptop):
        run_cli("memory", "init", "--no-scan", vault=vault)
        added = run_cli("memory", "add", "--group", "g", "--title", f"On {vault.name}", "--body", "b", vault=vault)
        assert added.code == 0, added.err
    run_cli("memory", "remote", "set", url, vault=team)
    assert run_cli("memory", "push", vault=team).code == 0
    git(laptop, "remote", "add", "origin", url)
    _plant_old_pull(laptop)
    head = git(laptop, "rev-parse", "HEAD")
    refused = run_cli("memory", "sync", "--json", vault=laptop)
    assert refused.code == 1 and "--join" in refused.json["error"]["message"], refused.out
    pull = read_states(laptop)["pull"]
    assert pull is not None and pull.result == "refused" and pull.at > EPOCH_STAMP, pull
    assert git(laptop, "rev-parse", "HEAD") == head


def test_sync_records_a_failure_it_did_not_record_where_it_failed(tmp_path):
    vault = vault_in(tmp_path / "laptop")
    run_cli("memory", "init", "--no-scan", vault=vault)
    git(vault, "remote", "add", "origin", f"file://{tmp_path / 'missing.git'}")
    _plant_old_pull(vault)
    failed = run_cli("memory", "sync", "--json", vault=vault)
    assert failed.code == 1 and failed.json["error"]["code"] == "JACKED_MEMORY_SYNC", failed.out
    pull = read_states(vault)["pull"]
    assert pull is not None and pull.result == "failed" and TIMESTAMP_RE.fullmatch(pull.at) and pull.at > EPOCH_STAMP
