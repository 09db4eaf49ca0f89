"""store.configfile, the one editor of a person's config files: JSON and JSONC edited in place
(comments, trailing commas and every other byte kept), refusals that write nothing, backups that
keep the file's mode, writes through a symlinked dotfile, TOML headers read by tomlkit."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from jacked_vault.errors import VaultError
from jacked_vault.store import configfile

P = Path("cfg.json")
SHAPES = [
    "",
    "{}",
    '{"a": 1}',
    '{\n  "a": 1\n}\n',
    '{\n\t"a": {\n\t\t"b": 2\n\t}\n}\n',
    '{\n  "a": 1 // about a\n}\n',
    '{\n  "a": 1, // a trailing comma\n}\n',
    '// a header\n{\n  /* block */ "s": {"x": 1,} /* after */\n}\n',
]


@pytest.mark.parametrize("text", SHAPES)
def test_set_then_delete_gives_the_same_bytes_back(text):
    added = configfile.set_json(text, ["s", "ours"], {"command": ["x", "y"], "env": {"K": "v"}}, P, jsonc=True)
    doc = configfile.parse_json(added, P, jsonc=True)
    assert doc["s"]["ours"] == {"command": ["x", "y"], "env": {"K": "v"}}
    before = configfile.parse_json(text, P, jsonc=True)
    assert {k: v for k, v in doc.items() if k != "s"} == {k: v for k, v in before.items() if k != "s"}
    changed = configfile.set_json(added, ["s", "ours"], {"command": ["z"]}, P, jsonc=True)
    assert configfile.parse_json(changed, P, jsonc=True)["s"]["ours"] == {"command": ["z"]}
    back = configfile.delete_json(changed, ["s", "ours"], P, jsonc=True)
    if text.strip():
        assert back == text
    else:
        assert json.loads(back) == {}


def test_plain_json_stays_plain_and_refuses_comments():
    text = '{\n  "a": [1, 2]\n}\n'
    assert json.loads(configfile.set_json(text, ["mcpServers", "x"], {"k": "v"}, P))["a"] == [1, 2]
    with pytest.raises(VaultError) as info:
        configfile.set_json('{"a": 1, // no\n}', ["b"], 1, P)
    assert info.value.code == "CONFIG"


@pytest.mark.parametrize("text", ['{"a": /* open', "[1, 2]", '{"a": 1} trailing', '{"a": {"b": 1,,}}', '{"s": 3}'])
def test_what_cannot_be_edited_is_refused(text):
    with pytest.raises(VaultError) as info:
        configfile.set_json(text, ["s", "ours"], 1, P, jsonc=True)
    assert info.value.code == "CONFIG"


def test_delete_of_what_is_not_there_returns_the_text_itself():
    text = '{\n  // mine\n  "a": 1,\n}\n'
    assert configfile.delete_json(text, ["s", "ours"], P, jsonc=True) is text


def _check(expected: object) -> configfile.Check:
    return configfile.Check(lambda text: configfile.parse_json(text, P), expected, "test")


def test_save_backs_up_once_with_the_mode_and_goes_through_a_symlink(tmp_path):
    """Issue 35.2: one writer, one policy: the first change backs the file up (its mode kept), a
    later change makes no other backup, and uninstall puts the first bytes back."""
    real = tmp_path / "dotfiles" / "settings.json"
    real.parent.mkdir()
    real.write_text('{"a": 1}\n')
    os.chmod(real, 0o600)
    link = tmp_path / "settings.json"
    link.symlink_to(real)
    action, backup = configfile.save(link, link.read_text(), '{"a": 2}\n', _check({"a": 2}))
    assert action == "written" and link.is_symlink() and real.read_text() == '{"a": 2}\n'
    assert backup is not None and Path(backup).read_text() == '{"a": 1}\n'
    assert Path(backup).stat().st_mode & 0o777 == 0o600
    assert configfile.save(link, link.read_text(), '{"a": 3}\n', _check({"a": 3})) == ("written", None)
    assert configfile.backups(link) == [Path(backup)]
    assert configfile.save(link, link.read_text(), '{"a":1}', _check({"a": 1}), uninstall=True) == ("restored", backup)
    assert real.read_text() == '{"a": 1}\n' and configfile.backups(link) == []


def test_save_refuses_text_that_does_not_parse_to_what_was_meant(tmp_path):
    path = tmp_path / "mcp.json"
    path.write_text('{"a": 1}\n')
    for new in ('{"a": 2}\n', "{not json"):
        with pytest.raises(VaultError) as err:
            configfile.save(path, path.read_text(), new, _check({"a": 1, "b": 2}))
        assert err.value.code == "CONFIG"
    assert path.read_text() == '{"a": 1}\n' and configfile.backups(path) == []


def test_json_toward_edits_only_the_members_that_differ():
    text = '{\n    // mine\n    "keep": [1,2],\n    "s": {"old": 1, "same": true},\n    "gone": 0\n}\n'
    wanted = {"keep": [1, 2], "s": {"same": True, "new": {"k": "v"}}}
    new = configfile.json_toward(text, wanted, P, jsonc=True)
    assert configfile.parse_json(new, P, jsonc=True) == wanted
    assert new.startswith('{\n    // mine\n    "keep": [1,2],\n    "s": {') and '"same": true' in new
    assert configfile.json_toward(new, {"keep": [1, 2], "s": {}}, P, jsonc=True).count('"s": {}') == 1


def test_a_file_over_the_cap_or_not_utf8_is_refused(tmp_path):
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 101)
    with pytest.raises(VaultError):
        configfile.read(big, 100)
    odd = tmp_path / "odd.json"
    odd.write_bytes(b"\xff{}")
    with pytest.raises(VaultError):
        configfile.read(odd)
    assert configfile.read(tmp_path / "missing.json") is None


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ('[mcp_servers."jacked-memory"]', ["mcp_servers", "jacked-memory"]),
        ("[mcp_servers.jacked-memory.env]  # env", ["mcp_servers", "jacked-memory", "env"]),
        ("[[notes]]", ["notes"]),
        ('model = "o3"', None),
        ("[broken", None),
    ],
)
def test_toml_headers_are_read_by_tomlkit(line, key):
    assert configfile.toml_header(line) == key


def test_toml_strings_round_trip():
    import tomllib

    odd = 'with "quotes", \\ and \x7f and \x01'
    assert tomllib.loads(f"x = {configfile.toml_string(odd)}")["x"] == odd
    assert configfile.toml_key("jacked-memory") == "jacked-memory" and configfile.toml_key("a b") == '"a b"'
