"""What the five-machine soak (issue 32) found wedging sync once three machines took part, each
reproduced on a plain file remote with three real vaults:

- a note whose two machines' transitions were settled by the rule (a person's reject wins, else
  the later transition) reaches a third machine that made its own transition meanwhile: its
  version no longer follows the remote's, and sync stopped for good with "changed the same
  file(s) differently";
- two machines picked one file name for two new notes: the second to sync moved the remote's
  note (already on every other machine) to the free name and put its own where the remote's was,
  so a third machine that changed the remote's note at its old path met another note there.

A merge settles both by the rules that settle them, on every machine alike.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli
from helpers.sync_world import add_note, team

from jacked_vault.context import Context
from jacked_vault.sync import sync
from jacked_vault.write.transitions import transition


def _team(tmp_path: Path) -> list[Context]:
    return team([tmp_path / name for name in ("a", "b", "c")], tmp_path / "remote.git")


def _status(ctx: Context, note_id: str) -> str:
    return run_cli("memory", "read", note_id, "--all", "--json", vault=ctx.vault.root).json["memory"]["status"]


def _same_everywhere(*team: Context) -> None:
    for _ in range(2):
        for ctx in team:
            sync(ctx)
    heads = {run_cli("memory", "status", "--json", vault=ctx.vault.root).json["vault"]["head"] for ctx in team}
    files = [
        sorted(p.relative_to(ctx.vault.root).as_posix() for p in ctx.vault.root.glob("groups/*/note/*.md"))
        for ctx in team
    ]
    assert all(f == files[0] for f in files), files
    for ctx in team:
        report = run_cli("memory", "doctor", "--json", vault=ctx.vault.root).json
        assert report["ok"], json.dumps({k: v for k, v in report.items() if v and k not in ("schema", "captures")})
    assert len(heads) == 1, heads


def test_a_settled_note_meets_a_third_machines_own_transition(tmp_path: Path):
    a, b, c = _team(tmp_path)
    note = add_note(a, "Shared fact", status="candidate", origin="mcp")
    sync(a)
    sync(b)
    sync(c)
    transition(a, note.note.id, "accept")
    sync(a)
    sync(c)  # c holds it active
    transition(b, note.note.id, "reject", reason="wrong")
    sync(b)  # settled: b's reject wins over a's accept, and is pushed
    transition(c, note.note.id, "expire")  # c's own transition of the active note
    result = sync(c)
    assert result.action == "merged", result
    assert _status(c, note.note.id) == "rejected"  # a person's reject wins here too
    _same_everywhere(a, b, c)
    assert {_status(ctx, note.note.id) for ctx in (a, b, c)} == {"rejected"}


def test_one_file_name_picked_twice_never_moves_a_note_the_remote_holds(tmp_path: Path):
    a, b, c = _team(tmp_path)
    first = add_note(a, "Same title", status="candidate", origin="mcp")
    sync(a)
    sync(c)  # c holds a's note at its path
    second = add_note(b, "Same title", status="candidate", origin="mcp")
    assert first.rel == second.rel
    result = sync(b)  # one file name, two notes: b's own (not pushed yet) moves
    assert result.renamed == [f"{second.rel} -> {second.rel[:-3]}-2.md"], result
    assert (b.vault.root / first.rel).read_bytes() == (a.vault.root / first.rel).read_bytes()
    transition(c, first.note.id, "accept")  # c changes a's note where every machine has it
    assert sync(c).action == "merged"
    _same_everywhere(a, b, c)
    assert {_status(ctx, first.note.id) for ctx in (a, b, c)} == {"active"}
    assert {_status(ctx, second.note.id) for ctx in (a, b, c)} == {"candidate"}


def _audit_ok(ctx: Context) -> None:
    report = run_cli("memory", "doctor", "--json", vault=ctx.vault.root).json
    assert not report["audit_problems"], report["audit_problems"]


def _accepted_twice_rejected_once(tmp_path: Path) -> tuple[Context, Context, Context, str]:
    """Three machines that hold one note: m1 and m2 accept it and m0 rejects it, each apart;
    m2's accept is on the remote. Returns them and the note's id."""
    m0, m1, m2 = team([tmp_path / name for name in ("m0", "m1", "m2")], tmp_path / "remote.git")
    note_id = add_note(m0, "Shared fact", status="candidate", origin="mcp").note.id
    for ctx in (m0, m1, m2):
        sync(ctx)
    transition(m1, note_id, "accept")
    transition(m0, note_id, "reject", reason="wrong")
    transition(m2, note_id, "accept")
    sync(m2)  # the remote: m2's accept
    return m0, m1, m2, note_id


def test_a_settling_taken_from_the_remote_is_the_last_word_in_the_audit(tmp_path: Path):
    """The soak's last finding (seed 2): m0 rejects N, m1 and m2 accept it, each apart. m0 settles
    its reject against m2's accept (the reject wins) at t1; m1, which has not seen the reject yet,
    settles its accept against m2's (the later accept wins) at t2 > t1. Their two merges share m2's
    commit as merge base, so the next merge takes m0's reject cleanly, with no conflict, while the
    latest audit line for N (t2) names m1's accept: doctor said EDITED_OUTSIDE_TOOL on every
    machine. The machine whose merge takes a settling writes its own `resolve` line for it."""
    import shutil
    import subprocess

    m0, m1, m2, note_id = _accepted_twice_rejected_once(tmp_path)
    snapshot = tmp_path / "before-m0.git"  # the remote as m1 fetched it, before m0 pushed
    shutil.copytree(tmp_path / "remote.git", snapshot)
    assert sync(m0).transitions[0]["kept"] == "rejected"  # m0: its reject wins over m2's accept (t1)
    subprocess.run(["git", "-C", str(m1.vault.root), "remote", "set-url", "origin", f"file://{snapshot}"], check=True)
    assert sync(m1).transitions[0]["kept"] == "active"  # m1: m2's later accept wins over its own (t2)
    subprocess.run(
        ["git", "-C", str(m1.vault.root), "remote", "set-url", "origin", f"file://{tmp_path / 'remote.git'}"],
        check=True,
    )
    sync(m1)  # m0's reject arrives as a settling, merged cleanly (the base holds m2's accept)
    assert _status(m1, note_id) == "rejected"
    _audit_ok(m1)
    _same_everywhere(m0, m1, m2)
    assert {_status(ctx, note_id) for ctx in (m0, m1, m2)} == {"rejected"}


def test_a_hot_md_taken_from_the_remote_is_the_last_word_in_the_audit(tmp_path: Path):
    """The same for hot.md (the soak's seed 1 in CI): m1's merge settles its hot.md against m2's
    (m2's newer one wins) after m0 settled its own, newer still, against m2's; the next merge takes
    m0's cleanly while m1's later line names m2's: the merge writes the last word."""
    import shutil
    import subprocess

    from jacked_vault.write.hot import set_hot

    m0, m1, m2 = team([tmp_path / name for name in ("m0", "m1", "m2")], tmp_path / "remote.git")
    set_hot(m1, "m1: the oldest.", group="tools")
    set_hot(m2, "m2: in between.", group="tools")
    set_hot(m0, "m0: the newest.", group="tools")
    sync(m2)
    snapshot = tmp_path / "before-m0.git"
    shutil.copytree(tmp_path / "remote.git", snapshot)
    sync(m0)  # m0's newest wins over m2's (a line at t1)
    subprocess.run(["git", "-C", str(m1.vault.root), "remote", "set-url", "origin", f"file://{snapshot}"], check=True)
    sync(m1)  # m2's wins over m1's (a line at t2 > t1, for m2's)
    subprocess.run(
        ["git", "-C", str(m1.vault.root), "remote", "set-url", "origin", f"file://{tmp_path / 'remote.git'}"],
        check=True,
    )
    sync(m1)  # m0's arrives over the merge base's (m2's): taken cleanly
    assert "m0: the newest." in (m1.vault.root / "groups/tools/hot.md").read_text()
    _audit_ok(m1)
    _same_everywhere(m0, m1, m2)


def test_a_settling_kept_over_the_remotes_later_line_is_the_last_word_in_the_audit(tmp_path: Path):
    """The same race the other way round (the soak's seed 2 again, in CI): m0 settles its reject
    against m2's accept at t1 but loses the push race to m1, which settled its accept against m2's
    at t2 > t1 and pushed first. m0's next merge keeps its own reject cleanly (m1's side holds the
    merge base's bytes, m2's accept), while the remote's latest line for N (t2) names that accept:
    doctor said EDITED_OUTSIDE_TOOL on every machine. The machine whose merge keeps its settling
    over a later line of the remote's writes its own `resolve` line for it."""
    import shutil
    import subprocess

    m0, m1, m2, note_id = _accepted_twice_rejected_once(tmp_path)
    snapshot = tmp_path / "before-m1.git"  # the remote as m0 fetched it, before m1 pushed
    shutil.copytree(tmp_path / "remote.git", snapshot)
    remote = f"file://{tmp_path / 'remote.git'}"
    subprocess.run(["git", "-C", str(m0.vault.root), "remote", "set-url", "origin", f"file://{snapshot}"], check=True)
    assert sync(m0).transitions[0]["kept"] == "rejected"  # m0: its reject wins over m2's accept (t1)
    assert sync(m1).transitions[0]["kept"] == "active"  # m1: m2's later accept wins over its own (t2), pushed
    subprocess.run(["git", "-C", str(m0.vault.root), "remote", "set-url", "origin", remote], check=True)
    sync(m0)  # m1's merge arrives holding the base's bytes: m0's reject is kept, merged cleanly
    assert _status(m0, note_id) == "rejected"
    _audit_ok(m0)
    _same_everywhere(m0, m1, m2)
    assert {_status(ctx, note_id) for ctx in (m0, m1, m2)} == {"rejected"}
