"""Every refused write leaves the working tree, the git index and HEAD exactly as before."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from conftest import snapshot
from helpers.secret_samples import FAMILIES, GH

from jacked_vault.context import Context
from jacked_vault.document import parse_note
from jacked_vault.errors import VaultError
from jacked_vault.notes import AddRequest, add
from jacked_vault.write.create import build_note, create_note


def _refused(ctx: Context, code: str, **fields) -> VaultError:
    root = ctx.vault.root
    before = snapshot(root)
    request = {"title": "Title", "body": "body", "group": "tools", **fields}
    with pytest.raises(VaultError) as err:
        add(ctx, AddRequest(**request))
    assert err.value.code == code, err.value.message
    assert snapshot(root) == before
    return err.value


@pytest.fixture
def seeded(ctx: Context) -> Context:
    add(ctx, AddRequest(title="Existing", body="already here", group="tools"))
    return ctx


@pytest.mark.parametrize("kind", sorted(FAMILIES))
def test_each_secret_family_is_refused_and_nothing_changes(seeded: Context, kind: str):
    secret = FAMILIES[kind][0]
    error = _refused(seeded, "SECRET", body=f"notes from the deploy:\n{secret}\n")
    assert secret not in error.message


@pytest.mark.parametrize(
    "field",
    [
        {"title": f"deploy with {GH}"},
        {"tags": (f"deploy-{GH.lower()}",)},
        {"repos": (f"github.com/o/{GH.lower()}",)},
        {"body": f"\t{GH}"},
        {"body": f"https://example.com/cb?token={GH}&x=1"},
    ],
    ids=["title", "tag", "repo", "after-tab", "in-url"],
)
def test_secret_in_any_field_or_position_is_refused(seeded: Context, field: dict):
    _refused(seeded, "SECRET", **field)


@pytest.mark.parametrize(
    "fields",
    [
        {"kind": "opinion"},
        {"title": ""},
        {"title": "x" * 201},
        {"title": "two\nlines"},
        {"title": "bell\x07"},
        {"body": "   \n\t  "},
        {"body": "esc \x1b[2J clear"},
        {"body": "c1 \x85 control"},
        {"body": "bidi \u2066 isolate"},
        {"body": "x" * (64 * 1024 + 1)},
        {"group": "Not A Slug"},
        {"group": "../escape"},
        {"tags": ("Bad Tag",)},
        {"tags": tuple(f"t{n}" for n in range(33))},
        {"links": ("not-an-id",)},
        {"links": tuple(f"mem_20260101_{n:04d}" for n in range(65))},
        {"targets": ("Claude Code",)},
        {"repos": ("github.com/o/../../etc",)},
        {"valid_from": "2026-02-30T00:00:00.000Z"},
    ],
    ids=lambda f: next(iter(f)) + ":" + repr(next(iter(f.values())))[:24],
)
def test_each_bad_field_is_refused_and_nothing_changes(seeded: Context, fields: dict):
    _refused(seeded, "VALIDATION", **fields)


def test_path_tricks_are_refused_and_nothing_changes(seeded: Context, tmp_path: Path):
    root = seeded.vault.root
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "groups" / "evil").symlink_to(outside)
    _refused(seeded, "UNSAFE_PATH", group="evil")
    assert list(outside.iterdir()) == []
    (root / "groups" / "tools" / "fact").symlink_to(outside)
    _refused(seeded, "UNSAFE_PATH", kind="fact")
    assert list(outside.iterdir()) == []


def test_duplicate_id_is_refused(seeded: Context):
    existing = seeded.vault.root / "groups" / "tools" / "note" / "existing.md"
    taken = parse_note(existing.read_bytes()).id
    note = replace(
        build_note(
            title="Other",
            body="b",
            kind="note",
            scope="group",
            group="tools",
            repos=[],
            source_harness="t",
            origin="cli",
        ),
        id=taken,
    )
    before = snapshot(seeded.vault.root)
    with pytest.raises(VaultError) as err:
        create_note(seeded.vault, note)
    assert err.value.code == "EXISTS"
    assert snapshot(seeded.vault.root) == before
