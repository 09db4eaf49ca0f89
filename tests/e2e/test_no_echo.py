"""No error, warning or report quotes a value or field name it did not write itself (issue 17,
finding 12): two paths found while fixing it, the schema check of vault.json (whose group names
are data) and the gate's misplaced-note message (whose group is the note's own field)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import git, run_cli

from jacked_vault.errors import VaultError
from jacked_vault.store.layout import Store

TOKEN = "xo" + "xb-" + "1234567890-1234567890123-abcdefghijklmnopqrstuvwx"


def test_a_vault_json_refusal_never_quotes_a_group_name(vault_path: Path):
    from jacked_vault.store.gate import inspect

    config = json.loads((vault_path / "vault.json").read_text())
    config["groups"] = {TOKEN: {"repos": ["NOT A REPO"]}}
    with pytest.raises(VaultError) as err:
        inspect(Store(vault_path), "vault.json", json.dumps(config).encode(), arrival=True)
    assert TOKEN[:12] not in err.value.message
    from jacked_vault.store.config import validate_config

    with pytest.raises(VaultError) as err:
        validate_config("vault.json", config, local=False)
    assert TOKEN[:12] not in err.value.message and "groups/" in err.value.message


def test_a_misplaced_note_with_a_token_as_group_is_never_quoted(vault_path: Path):
    from jacked_vault.document import render_note
    from jacked_vault.write.create import build_note

    note = build_note(
        title="Planted",
        body="plain",
        kind="note",
        scope="group",
        group="other",
        repos=[],
        source_harness="x",
        origin="cli",
    )
    data = render_note(note).replace(b'group: "other"', f'group: "{TOKEN}"'.encode())
    path = vault_path / "groups" / "api" / "note" / "planted.md"
    path.parent.mkdir(parents=True)
    path.write_bytes(data)
    git(vault_path, "add", "-A")
    git(vault_path, "commit", "-qm", "planted")
    for args in (("doctor",), ("doctor", "--json"), ("search", "planted", "--all", "--json")):
        result = run_cli("memory", *args, vault=vault_path)
        assert TOKEN[:12] not in result.out + result.err, args


@pytest.mark.parametrize("command", [("read",), ("log",)])
def test_a_token_given_as_an_id_is_never_printed_back(vault_path: Path, command: tuple[str, ...]):
    """Found by the doors matrix for the transitions; the same for the read surfaces."""
    for args in ((*command, TOKEN), (*command, TOKEN, "--json")):
        result = run_cli("memory", *args, vault=vault_path)
        assert result.code != 0 and TOKEN[:12] not in result.out + result.err, (args, result.out + result.err)
