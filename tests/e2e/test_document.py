"""The note document: canonical writer, strict reader, validation, ids, timestamps, slugs."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jacked_vault.document import (
    FRONTMATTER_KEYS,
    ID_RE,
    KINDS,
    MAX_BODY_BYTES,
    MAX_FILE_BYTES,
    MAX_LINKS,
    MAX_TAGS,
    MAX_TARGETS,
    MAX_TITLE,
    ORIGINS,
    REPO_RE,
    SCOPES,
    SLUG_RE,
    STATUSES,
    TIMESTAMP_RE,
    Note,
    format_timestamp,
    new_note_id,
    parse_note,
    parse_timestamp,
    render_note,
    slugify_title,
    utc_now,
    validate_note,
)
from jacked_vault.errors import VaultError
from jacked_vault.resources import data_file

UTC = UTC
BODY_MARKER = "BODY-MARKER-7f3a"

BASE_FIELDS: dict = {
    "schema": "jacked.memory.v1",
    "id": "mem_20261129_01jdz5k6x9f3q8w2v7n4m1c0ab",
    "title": "Use SQLite FTS5 for the search index",
    "kind": "decision",
    "scope": "group",
    "group": "vault-tools",
    "repos": ["github.com/acme/vault"],
    "trust": "unreviewed",
    "status": "active",
    "origin": "cli",
    "source_harness": "claude",
    "target_harnesses": ["all"],
    "tags": ["search", "sqlite"],
    "links": ["mem_20261101_01jc0000000000000000000000"],
    "supersedes": [],
    "valid_from": "2026-11-29T17:00:00.000Z",
    "valid_until": None,
    "created_at": "2026-11-29T17:00:00.000Z",
    "updated_at": "2026-11-29T17:00:00.000Z",
}
BASE_BODY = f"We chose FTS5 because it ships with Python. See [[other-note-slug]]. {BODY_MARKER}"

CANONICAL = f"""---
schema: "jacked.memory.v1"
id: "mem_20261129_01jdz5k6x9f3q8w2v7n4m1c0ab"
title: "Use SQLite FTS5 for the search index"
kind: "decision"
scope: "group"
group: "vault-tools"
repos: ["github.com/acme/vault"]
trust: "unreviewed"
status: "active"
origin: "cli"
source_harness: "claude"
target_harnesses: ["all"]
tags: ["search", "sqlite"]
links: ["mem_20261101_01jc0000000000000000000000"]
supersedes: []
valid_from: "2026-11-29T17:00:00.000Z"
valid_until: null
created_at: "2026-11-29T17:00:00.000Z"
updated_at: "2026-11-29T17:00:00.000Z"
---

We chose FTS5 because it ships with Python. See [[other-note-slug]]. {BODY_MARKER}
"""


def make_note(**changes: object) -> Note:
    fields = {k: v for k, v in BASE_FIELDS.items() if k not in ("schema", "trust")}
    return Note(**{**fields, "body": BASE_BODY, **changes})


def raw_file(body: str = BASE_BODY, **changes: object) -> bytes:
    """A file in the canonical layout, written WITHOUT validation (to feed the reader)."""
    fields = {**BASE_FIELDS, **changes}
    lines = [f"{k}: {json.dumps(v)}" for k, v in fields.items()]
    return ("---\n" + "\n".join(lines) + "\n---\n\n" + body + "\n").encode("utf-8")


def refusal(data: bytes, source: str = "n.md") -> str:
    """Parse `data`, expect a VALIDATION error naming the source; return its message."""
    with pytest.raises(VaultError) as caught:
        parse_note(data, source=source)
    assert caught.value.code == "VALIDATION"
    assert caught.value.message.startswith(f"{source}: ")
    return caught.value.message


# --- canonical writer -------------------------------------------------------------------


def test_canonical_rendering_is_exact() -> None:
    assert render_note(make_note()).decode("utf-8") == CANONICAL


def test_canonical_rendering_escapes_json_and_keeps_unicode() -> None:
    note = make_note(
        title='Say "hi" \\ to café now',  # a title holds no tab (issue 19.11); a reason may
        status="rejected",
        status_reason="Duplicate\tof a runbook",
        tags=[],
        links=[],
        valid_until="2027-01-01T00:00:00.000Z",
        body="\nLine one\r\n---\nlast\n",
    )
    expected = (
        "---\n"
        'schema: "jacked.memory.v1"\n'
        'id: "mem_20261129_01jdz5k6x9f3q8w2v7n4m1c0ab"\n'
        'title: "Say \\"hi\\" \\\\ to café now"\n'
        'kind: "decision"\n'
        'scope: "group"\n'
        'group: "vault-tools"\n'
        'repos: ["github.com/acme/vault"]\n'
        'trust: "unreviewed"\n'
        'status: "rejected"\n'
        'status_reason: "Duplicate\\tof a runbook"\n'
        'origin: "cli"\n'
        'source_harness: "claude"\n'
        'target_harnesses: ["all"]\n'
        "tags: []\n"
        "links: []\n"
        "supersedes: []\n"
        'valid_from: "2026-11-29T17:00:00.000Z"\n'
        'valid_until: "2027-01-01T00:00:00.000Z"\n'
        'created_at: "2026-11-29T17:00:00.000Z"\n'
        'updated_at: "2026-11-29T17:00:00.000Z"\n'
        "---\n"
        "\n"
        "\nLine one\r\n---\nlast\n"
        "\n"
    )
    data = render_note(note)
    assert data.decode("utf-8") == expected
    assert parse_note(data) == note


def test_note_api() -> None:
    note = make_note()
    assert note.schema == "jacked.memory.v1" and note.trust == "unreviewed"
    assert note.status_reason is None
    assert tuple(note.frontmatter()) == tuple(k for k in FRONTMATTER_KEYS if k != "status_reason")
    assert note.to_json() == {**BASE_FIELDS, "body": BASE_BODY}
    assert list(note.to_json())[-1] == "body"
    note.frontmatter()["tags"].append("mutated")
    assert note.tags == ["search", "sqlite"]
    assert list(make_note(status_reason="why").frontmatter()).index("status_reason") == 9
    assert BODY_MARKER not in repr(note)


# --- round trip property ----------------------------------------------------------------

_EXCLUDED = {*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x2028, 0x2029, 0xFFFE, 0xFFFF}
# Everything check_text allows on one line (plus tab, added where used), beyond the BMP too.
safe_char = st.characters(blacklist_categories=("Cc", "Cs")).filter(lambda c: ord(c) not in _EXCLUDED)
slugs = st.from_regex(SLUG_RE, fullmatch=True)
ids = st.from_regex(ID_RE, fullmatch=True)
repos = st.from_regex(REPO_RE, fullmatch=True).filter(lambda r: len(r) <= 255)
timestamps = st.datetimes(min_value=datetime(1970, 1, 1), max_value=datetime(9999, 12, 31), timezones=st.just(UTC)).map(
    format_timestamp
)
titles = st.text(safe_char, min_size=1, max_size=MAX_TITLE).filter(str.strip)  # no tab in a title (issue 19.11)
reasons = st.text(st.one_of(safe_char, st.just("\t")), min_size=1, max_size=500)
bodies = (
    st.lists(
        st.one_of(
            st.text(safe_char, max_size=30),
            st.sampled_from(["\n", "\r\n", "\r", "\t", "---", "\n---\n", "---\r\n", " ", "\n\n"]),
        ),
        max_size=12,
    )
    .map("".join)
    .filter(str.strip)
)


@st.composite
def notes(draw: st.DrawFn) -> Note:
    start, end = sorted([draw(timestamps), draw(timestamps)])
    return Note(
        id=draw(ids),
        title=draw(titles),
        kind=draw(st.sampled_from(KINDS)),
        scope=draw(st.sampled_from(SCOPES)),
        group=draw(st.none() | slugs),
        repos=draw(st.lists(repos, max_size=4, unique=True)),
        status=draw(st.sampled_from(STATUSES)),
        status_reason=draw(st.none() | reasons),
        origin=draw(st.sampled_from(ORIGINS)),
        source_harness=draw(slugs),
        target_harnesses=draw(st.lists(slugs, min_size=1, max_size=MAX_TARGETS, unique=True)),
        tags=draw(st.lists(slugs, max_size=MAX_TAGS, unique=True)),
        links=draw(st.lists(ids, max_size=5)),
        supersedes=draw(st.lists(ids, max_size=5)),
        valid_from=start,
        valid_until=draw(st.sampled_from([None, end])),
        created_at=draw(timestamps),
        updated_at=draw(timestamps),
        body=draw(bodies),
    )


@settings(max_examples=300, deadline=None)
@given(notes())
def test_round_trip(note: Note) -> None:
    data = render_note(note)
    assert parse_note(data) == note
    assert render_note(parse_note(data)) == data


# --- the reader never crashes -----------------------------------------------------------


def assert_clean_outcome(data: bytes) -> None:
    try:
        note = parse_note(data, source="fuzz.md")
    except VaultError as error:
        assert error.code == "VALIDATION"
        assert error.message.startswith("fuzz.md: ")
    else:
        validate_note(note)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=4096))
def test_arbitrary_bytes_give_a_clean_error(data: bytes) -> None:
    assert_clean_outcome(data)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=2000), st.text(max_size=200))
def test_arbitrary_frontmatter_text_gives_a_clean_error(frontmatter: str, body: str) -> None:
    assert_clean_outcome(f"---\n{frontmatter}\n---\n\n{body}\n".encode())


yaml_bits = st.sampled_from(
    [
        "&a ",
        "*a",
        "!!str ",
        "!x ",
        "<<: ",
        "? ",
        ": ",
        "- ",
        "[",
        "]",
        "{",
        "}",
        ",",
        "'",
        '"',
        "|",
        ">",
        "%YAML 1.1",
        "---",
        "...",
        "#",
        "\n",
        "  ",
        "\t",
        "2026-02-30",
        ".nan",
        ".inf",
        "~",
        "0x1f",
        "title",
        "tags",
        "kind",
        "null",
        "yes",
        "\\u0000",
        "\x00",
        "\ufeff",
        "é",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(yaml_bits, max_size=40).map("".join))
def test_yaml_soup_gives_a_clean_error(soup: str) -> None:
    assert_clean_outcome(f"---\n{soup}\n---\n\nbody\n".encode())


edits = st.tuples(
    st.integers(0, len(CANONICAL.encode("utf-8")) - 1),  # where
    st.binary(max_size=3),  # what to insert
    st.integers(0, 3),  # how many bytes to replace
)


@settings(max_examples=300, deadline=None)
@given(st.lists(edits, min_size=1, max_size=4))
def test_mutated_canonical_file_gives_a_clean_outcome(edits: list[tuple[int, bytes, int]]) -> None:
    data = bytearray(CANONICAL.encode("utf-8"))
    for position, insert, delete in edits:
        position = min(position, len(data))
        data[position : position + delete] = insert
    assert_clean_outcome(bytes(data))


# --- refused YAML constructs ------------------------------------------------------------


def with_line(key: str, text: str) -> bytes:
    """CANONICAL with the line of field `key` replaced by `text` (may span lines)."""
    return re.sub(f"^{key}: .*$", lambda _: text, CANONICAL, count=1, flags=re.M).encode("utf-8")


def fenced(frontmatter: str) -> bytes:
    return f"---\n{frontmatter}---\n\nbody\n".encode()


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (with_line("kind", 'kind: &k "decision"'), "field 'kind' (line 5): YAML anchors are not allowed"),
        (with_line("scope", "scope: *k"), "field 'scope' (line 6): YAML aliases are not allowed"),
        (with_line("kind", "kind: !!str decision"), "field 'kind' (line 5): YAML tags are not allowed"),
        (with_line("kind", "kind: !my decision"), "field 'kind' (line 5): YAML tags are not allowed"),
        (with_line("tags", "tags: !!set {a, b}"), "field 'tags' (line 14): YAML tags are not allowed"),
        (with_line("kind", "<<: {kind: decision}"), "YAML merge keys ('<<') are not allowed"),
        (with_line("scope", 'scope: "group"\nkind: "fact"'), "field 'kind' (line 7) is given twice"),
        (
            with_line("valid_from", "valid_from: 2026-11-29T17:00:00.000Z"),
            "field 'valid_from': an unquoted date or timestamp is not a JSON value; quote it",
        ),
        (with_line("title", "title: 2026-11-29"), "field 'title': an unquoted date or timestamp"),
        (with_line("title", "title: .nan"), "field 'title': nan is not a JSON number"),
        (with_line("title", "title: -.inf"), "field 'title': -inf is not a JSON number"),
        (with_line("kind", 'kind: "decision"\ncolor: "blue"'), "n.md: an unknown field"),
        (
            with_line("kind", "x: 1\ny: 2\nz: 3\nu: 4\nv: 5\nw: 6"),
            "n.md: 6 unknown fields",
        ),
        (CANONICAL.replace('kind: "decision"\n', "").encode(), "missing required field(s) 'kind'"),
        (fenced("- a\n- b\n"), "frontmatter must be a mapping of fields, not list"),
        (fenced("just a string\n"), "frontmatter must be a mapping of fields, not str"),
        (fenced(""), "frontmatter is empty"),
        (fenced("".join(f"k{i}: v\n" for i in range(600))), "holds more than 1000 values"),
        (with_line("tags", "tags: [[a], b]"), "field 'tags' (line 14): nested lists or mappings are not allowed"),
        (with_line("kind", "? [a, b]\n: decision"), "mapping keys must be plain scalars"),
        # `--- ` alone on a line is a fence (issue 18.8: trailing spaces do not unmake one);
        # a marker with text after it is YAML's
        (with_line("kind", "kind: decision\n--- foo: 1"), "holds more than one YAML document"),
        (with_line("schema", "--- schema: x"), "YAML directives and '---' markers are not allowed"),
        (with_line("schema", "%YAML 1.1\nschema: x"), "not valid YAML (line 3, column 1)"),
        (with_line("kind", "kind: [decision"), "frontmatter is not valid YAML"),
        (with_line("title", "title: 12"), "field 'title': expected a string, got a number"),
        (with_line("group", "group: {a: 1}"), "field 'group': expected a string or null, got a mapping"),
    ],
)
def test_refused_yaml(data: bytes, problem: str) -> None:
    assert problem in refusal(data)


def test_quoted_merge_key_is_just_an_unknown_field() -> None:
    assert refusal(with_line("kind", 'kind: decision\n"<<": {a: 1}')) == "n.md: an unknown field"


def test_obsidian_style_rewrite_is_accepted() -> None:
    rewritten = f"""---
schema: jacked.memory.v1
id: mem_20261129_01jdz5k6x9f3q8w2v7n4m1c0ab
title: Use SQLite FTS5 for the search index
kind: decision
scope: group
group: vault-tools
repos:
  - github.com/acme/vault
trust: unreviewed
status: active
origin: cli
source_harness: claude
target_harnesses:
  - all
tags:
  - search
  - sqlite
links:
  - mem_20261101_01jc0000000000000000000000
supersedes: []
valid_from: '2026-11-29T17:00:00.000Z'
valid_until:
created_at: "2026-11-29T17:00:00.000Z"
updated_at: "2026-11-29T17:00:00.000Z"  # a comment
---

{BASE_BODY}
"""
    assert parse_note(rewritten.encode("utf-8")) == make_note()


def test_crlf_file_and_bom_are_tolerated() -> None:
    crlf = CANONICAL.replace("\n", "\r\n").encode("utf-8")
    assert parse_note(crlf) == make_note()
    multi = CANONICAL.replace(BASE_BODY, "one\ntwo").replace("\n", "\r\n").encode("utf-8")
    assert parse_note(multi).body == "one\r\ntwo"
    assert parse_note(b"\xef\xbb\xbf" + CANONICAL.encode("utf-8")) == make_note()


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"no frontmatter\n", "missing frontmatter: the first line must be '---'"),
        (b"---", "missing frontmatter"),
        (b"---\ntitle: x\n", "missing the closing '---' line"),
        (
            b"--- x\ntitle: x\n---\n\nbody\n",
            "missing frontmatter",
        ),  # `--- ` (trailing spaces) is a fence (issue 18.8); text after it is not
        (b"--- \ntitle: x\n---\n\nbody\n", "missing required field(s)"),
        (CANONICAL.encode()[:50] + b"\xff" + CANONICAL.encode()[50:], "not valid UTF-8 (byte 0xff at"),
    ],
)
def test_refused_file_shapes(data: bytes, problem: str) -> None:
    assert problem in refusal(data)


def test_utf8_error_names_the_offset() -> None:
    assert refusal(CANONICAL.encode()[:50] + b"\xff") == "n.md: not valid UTF-8 (byte 0xff at offset 50)"


def test_body_boundaries() -> None:
    note = parse_note(CANONICAL.replace(BASE_BODY, "\n\n  indented\n---\nend\n\n").encode())
    assert note.body == "\n\n  indented\n---\nend\n\n"


# --- schema bounds ----------------------------------------------------------------------

MANY = [f"tag{i}" for i in range(40)]
MANY_IDS = [f"mem_20260101_{i:026d}" for i in range(70)]
BAD_DATE = "2026-02-30T00:00:00.000Z"

FIELD_CASES = [
    ({"title": "x" * (MAX_TITLE + 1)}, "field 'title': is 201 characters long; the limit is 200"),
    ({"title": ""}, "field 'title': must not be empty"),
    ({"title": "   "}, "field 'title': must not be blank"),
    ({"title": "a\tb"}, "field 'title' contains control character U+0009"),
    ({"tags": MANY[: MAX_TAGS + 1]}, "field 'tags': has 33 items; the limit is 32"),
    ({"tags": ["ok", "ok"]}, "field 'tags': items must be unique"),
    ({"tags": ["ok", "fine", "Bad Tag"]}, "field 'tags[2]': does not match the slug grammar"),
    ({"tags": ["-leading"]}, "field 'tags[0]': does not match the slug grammar"),
    ({"tags": ["a" * 65]}, "field 'tags[0]': does not match the slug grammar"),
    ({"tags": ["trailing-newline\n"]}, "field 'tags[0]': line breaks are not allowed"),
    ({"links": MANY_IDS[: MAX_LINKS + 1]}, "field 'links': has 65 items; the limit is 64"),
    ({"supersedes": MANY_IDS[: MAX_LINKS + 1]}, "field 'supersedes': has 65 items; the limit is 64"),
    ({"links": ["note_123"]}, "field 'links[0]': does not match the memory id grammar"),
    ({"target_harnesses": MANY[: MAX_TARGETS + 1]}, "field 'target_harnesses': has 33 items"),
    ({"target_harnesses": []}, "field 'target_harnesses': needs at least 1 item"),
    ({"id": "mem_ab"}, "field 'id': does not match the memory id grammar"),
    ({"id": "mem_ABC123"}, "field 'id': does not match the memory id grammar"),
    ({"id": "note_20261129_abc"}, "does not match the memory id grammar"),
    ({"id": "mem_20261129_abc\n"}, "field 'id': line breaks are not allowed"),
    ({"group": "Vault Tools"}, "field 'group': does not match the slug grammar"),
    ({"source_harness": ".hidden"}, "field 'source_harness': does not match the slug grammar"),
    ({"repos": ["GitHub.com/o/r"]}, "field 'repos[0]': does not match the repo identity grammar"),
    ({"repos": ["a/" * 8 + "b"]}, "does not match the repo identity grammar"),
    ({"repos": ["a" * 256]}, "field 'repos[0]': is 256 characters long; the limit is 255"),
    ({"kind": "essay"}, "field 'kind': not one of: decision, convention, vision"),
    ({"scope": "world"}, "field 'scope': not one of: group, user, project"),
    ({"status": "done"}, "field 'status': not one of: candidate, active"),
    ({"origin": "web"}, "field 'origin': not one of: cli, mcp"),
    ({"trust": "trusted"}, "field 'trust'"),
    ({"schema": "jacked.memory.v2"}, "field 'schema': must be \"jacked.memory.v1\""),
    ({"status_reason": ""}, "field 'status_reason': must not be empty"),
    ({"status_reason": "r" * 501}, "field 'status_reason': is 501 characters long; the limit is 500"),
    ({"status_reason": "two\nlines"}, "field 'status_reason' contains control character U+000A"),
    ({"valid_from": BAD_DATE}, "field 'valid_from': not a real date and time"),
    ({"created_at": "2026-13-01T00:00:00.000Z"}, "field 'created_at': not a real date and time"),
    ({"updated_at": "2026-01-01T24:00:00.000Z"}, "field 'updated_at': not a real date and time"),
    ({"valid_until": "2026-11-29T17:00:00Z"}, "field 'valid_until': does not match the timestamp"),
    ({"valid_from": "٢٠٢٦-11-29T17:00:00.000Z"}, "does not match the timestamp"),
    ({"valid_until": "2026-11-29T16:59:59.999Z"}, "field 'valid_until': is before valid_from"),
    ({"title": "bad\x1bescape"}, "field 'title' contains control character U+001B"),
    ({"title": "two\nlines"}, "field 'title' contains control character U+000A"),
    ({"title": "del\x7f"}, "field 'title' contains control character U+007F"),
    ({"title": "c1\x9b"}, "field 'title' contains control character U+009B"),
    ({"title": "bidi\u202e"}, "field 'title' contains bidirectional control character U+202E"),
    ({"title": "isolate\u2066"}, "field 'title' contains bidirectional control character U+2066"),
]
BODY_CASES = [
    ("   \n\t\r\n ", "body is empty"),
    (f"{BODY_MARKER}\x1b[31m", "body contains control character U+001B"),
    (f"{BODY_MARKER}\x00", "body contains control character U+0000"),
    (f"{BODY_MARKER}\x7f", "body contains control character U+007F"),
    (f"{BODY_MARKER}\x85", "body contains control character U+0085"),
    (f"{BODY_MARKER}\u2067", "body contains bidirectional control character U+2067"),
    ("é" * (MAX_BODY_BYTES // 2) + "x", "body is 65537 bytes of UTF-8; the limit is 65536"),
]


@pytest.mark.parametrize(
    ("changes", "body", "problem"),
    [(changes, BASE_BODY, problem) for changes, problem in FIELD_CASES]
    + [({}, body, problem) for body, problem in BODY_CASES],
)
def test_invalid_note_is_refused_everywhere(changes: dict, body: str, problem: str) -> None:
    """The writer refuses it, validate_note refuses it, and the reader refuses it from disk,
    all with the same message and never quoting the body."""
    with pytest.raises(VaultError) as caught:
        render_note(make_note(**changes, body=body))
    assert caught.value.code == "VALIDATION"
    assert problem in caught.value.message
    assert BODY_MARKER not in caught.value.message
    with pytest.raises(VaultError) as caught_again:
        validate_note(make_note(**changes, body=body))
    assert caught_again.value.message == caught.value.message
    assert refusal(raw_file(body, **changes)) == f"n.md: {caught.value.message}"


# A bad value that carries a credential: the message names the field and the rule, never
# the value (nor any 8-character piece of it).
LEAKY = "admin:" + "Hunt3r2" + "Blue@db.internal"
LEAKY_CASES = {
    "links[0]": {"links": ["mem_https://" + LEAKY]},
    "supersedes[0]": {"supersedes": ["mem_" + LEAKY]},
    "id": {"id": "mem_" + LEAKY},
    "tags[0]": {"tags": [LEAKY]},
    "repos[0]": {"repos": [LEAKY]},
    "group": {"group": LEAKY},
    "source_harness": {"source_harness": LEAKY},
    "target_harnesses[0]": {"target_harnesses": [LEAKY]},
    "kind": {"kind": LEAKY},
    "scope": {"scope": LEAKY},
    "status": {"status": LEAKY},
    "origin": {"origin": LEAKY},
    "trust": {"trust": LEAKY},
    "valid_from": {"valid_from": LEAKY},
    "valid_until": {"valid_until": "2026-02-30T00:00:00.000Z"},
}


@pytest.mark.parametrize(("where", "changes"), LEAKY_CASES.items(), ids=LEAKY_CASES.keys())
def test_validation_message_never_echoes_the_value(where: str, changes: dict) -> None:
    with pytest.raises(VaultError) as caught:
        validate_note(make_note(**changes))
    message = caught.value.message
    assert message.startswith(f"field '{where}': ")
    for value in (LEAKY, "2026-02-30T00"):
        assert all(value[i : i + 8] not in message for i in range(len(value) - 7))
    assert refusal(raw_file(**changes)) == f"n.md: {message}"


def test_limits_are_inclusive() -> None:
    note = make_note(
        title="t" * MAX_TITLE,
        tags=MANY[:MAX_TAGS],
        target_harnesses=MANY[:MAX_TARGETS],
        links=MANY_IDS[:MAX_LINKS],
        supersedes=MANY_IDS[:MAX_LINKS],
        repos=["a" * 255, "h/" * 7 + "r"],
        status_reason="r" * 500,
        valid_until=BASE_FIELDS["valid_from"],
        body="é" * (MAX_BODY_BYTES // 2),
    )
    assert parse_note(render_note(note)) == note


def test_body_allows_tab_lf_cr() -> None:
    note = make_note(body="a\tb\nc\r\nd\re")
    assert parse_note(render_note(note)).body == "a\tb\nc\r\nd\re"


def test_python_types_are_checked_in_memory() -> None:
    with pytest.raises(VaultError, match="field 'tags': expected a list, got a tuple"):
        validate_note(make_note(tags=("search",)))
    with pytest.raises(VaultError, match="body: expected a string, got null"):
        validate_note(make_note(body=None))


def test_file_size_is_checked_before_parsing() -> None:
    oversized = b"\xff" * (MAX_FILE_BYTES + 1)  # also invalid UTF-8: the size must be reported
    assert refusal(oversized) == "n.md: file is 131073 bytes; the limit is 131072"
    # At exactly the cap the file is parsed (and its too-big body found); one byte more is not.
    at_cap = raw_file(BASE_BODY + " " * (MAX_FILE_BYTES - len(raw_file())))
    assert len(at_cap) == MAX_FILE_BYTES
    assert "body is " in refusal(at_cap)
    assert refusal(at_cap + b" ").startswith(f"n.md: file is {MAX_FILE_BYTES + 1} bytes")


def test_default_source_is_named() -> None:
    with pytest.raises(VaultError, match=r"^<note>: missing frontmatter"):
        parse_note(b"hello")


# --- schema file agrees with the code ---------------------------------------------------


def test_schema_file_matches_the_model() -> None:
    from jsonschema import Draft202012Validator

    schema = json.loads(data_file("schemas", "note.schema.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    props = schema["properties"]
    assert tuple(props) == FRONTMATTER_KEYS
    assert schema["additionalProperties"] is False
    assert schema["required"] == [k for k in FRONTMATTER_KEYS if k != "status_reason"]
    assert (props["kind"]["enum"], props["scope"]["enum"]) == (list(KINDS), list(SCOPES))
    assert (props["status"]["enum"], props["origin"]["enum"]) == (list(STATUSES), list(ORIGINS))
    defs = schema["$defs"]
    regexes = {"slug": SLUG_RE, "memory_id": ID_RE, "repo": REPO_RE, "timestamp": TIMESTAMP_RE}
    assert {name: defs[name]["pattern"] for name in regexes} == {
        name: f"^{regex.pattern}$" for name, regex in regexes.items()
    }
    assert Draft202012Validator(schema).is_valid(BASE_FIELDS)


def test_import_is_light() -> None:
    code = (
        "import sys, jacked_vault.document\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('ruamel', 'jsonschema')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --- ids, timestamps, slugs -------------------------------------------------------------

ULID_RE = re.compile(r"[0-7][0-9a-hjkmnp-tv-z]{25}")
CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz"


def test_new_note_id_format_and_time() -> None:
    now = datetime(2026, 11, 29, 23, 30, 0, 123000, tzinfo=timezone(timedelta(hours=-5)))
    note_id = new_note_id(now)
    prefix, date, ulid = note_id.split("_")
    assert (prefix, date) == ("mem", "20261130")  # the UTC date
    assert ULID_RE.fullmatch(ulid) and ID_RE.fullmatch(note_id) and len(note_id) == 39
    millis = 0
    for char in ulid[:10]:
        millis = millis * 32 + CROCKFORD.index(char)
    assert millis == (now - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(milliseconds=1)


def test_new_note_id_unique_and_time_ordered() -> None:
    generated = [new_note_id() for _ in range(10_000)]
    assert len(set(generated)) == 10_000
    assert all(ID_RE.fullmatch(i) for i in generated)
    early = new_note_id(datetime(2026, 1, 1, tzinfo=UTC))
    late = new_note_id(datetime(2026, 1, 1, 0, 0, 0, 1000, tzinfo=UTC))
    assert early[13:23] < late[13:23]


def test_new_note_id_refuses_naive_time() -> None:
    with pytest.raises(ValueError):
        new_note_id(datetime(2026, 1, 1))


def test_timestamps() -> None:
    dt = datetime(2026, 11, 29, 17, 0, 5, 123999, tzinfo=UTC)
    assert format_timestamp(dt) == "2026-11-29T17:00:05.123Z"
    plus_one = timezone(timedelta(hours=1))
    assert format_timestamp(datetime(2026, 11, 29, 18, 0, tzinfo=plus_one)) == "2026-11-29T17:00:00.000Z"
    assert format_timestamp(datetime(999, 1, 2, tzinfo=UTC)) == "0999-01-02T00:00:00.000Z"
    assert parse_timestamp("2026-11-29T17:00:05.123Z") == dt.replace(microsecond=123000)
    assert TIMESTAMP_RE.fullmatch(utc_now())
    with pytest.raises(ValueError):
        format_timestamp(datetime(2026, 1, 1))


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("2026-02-30T00:00:00.000Z", "not a real date and time"),
        ("2026-02-29T00:00:00.000Z", "not a real date and time"),
        ("2026-01-01T00:00:60.000Z", "not a real date and time"),
        ("2026-01-01T00:00:00Z", "must look like"),
        ("2026-01-01 00:00:00.000Z", "must look like"),
        ("2026-01-01T00:00:00.000+00:00", "must look like"),
        ("2026-01-01T00:00:00.000Z\n", "must look like"),
        (20260101, "must look like"),
    ],
)
def test_parse_timestamp_refuses(value: object, problem: str) -> None:
    with pytest.raises(VaultError) as caught:
        parse_timestamp(value)  # type: ignore[arg-type]
    assert caught.value.code == "VALIDATION" and problem in caught.value.message


@given(st.datetimes(min_value=datetime(1, 1, 1), timezones=st.just(UTC)))
def test_timestamp_round_trip(dt: datetime) -> None:
    text = format_timestamp(dt)
    assert parse_timestamp(text) == dt.replace(microsecond=dt.microsecond // 1000 * 1000)


@pytest.mark.parametrize(
    ("title", "stem"),
    [
        ("Use SQLite FTS5 for the search index", "use-sqlite-fts5-for-the-search-index"),
        ("Café déjà vu — naïve façade", "cafe-deja-vu-naive-facade"),
        ("ﬁle ① ２", "file-1-2"),  # noqa: RUF001 - the compatibility characters are the point
        ("  --Hello,   World!--  ", "hello-world"),
        ("...hidden", "hidden"),
        ("", "note"),
        ("!!!", "note"),
        ("日本語のメモ", "note"),
        ("CON", "con-note"),
        ("nul", "nul-note"),
        ("Com1", "com1-note"),
        ("LPT9", "lpt9-note"),
        ("console", "console"),
        ("a" * 100, "a" * 80),
        ("word " * 30, "-".join(["word"] * 16)),
        ("x" * 79 + " yy", "x" * 79),
        ("x" * 80 + " yy", "x" * 80),
        # issue 18.17: letters NFKD cannot take apart are transliterated, not dropped
        ("Søren Kierkegaard", "soren-kierkegaard"),
        ("Łódź, Straße, Æsir, Œuvre", "lodz-strasse-aesir-oeuvre"),
        ("Đorđe, Þór and Ðóra", "dorde-thor-and-dora"),
        ("ØRESUND ẞ", "oresund-ss"),
        ("ß" * 50, "s" * 80),
        ("Smørrebrød " * 8, "-".join(["smorrebrod"] * 7)),
    ],
)
def test_slugify_title(title: str, stem: str) -> None:
    assert slugify_title(title) == stem


@given(st.text())
def test_slugify_title_is_always_a_safe_stem(title: str) -> None:
    stem = slugify_title(title)
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", stem)
    assert len(stem) <= 80
    assert stem not in {"con", "prn", "aux", "nul"} and not re.fullmatch(r"(com|lpt)[0-9]", stem)


# -- the fast schema check agrees with the reference validator --------------------------------


_FIELD_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.text(max_size=30),
    st.lists(st.text(max_size=12), max_size=4),
    st.sampled_from(
        [
            "mem_20260101_abcdef",
            "2026-01-01T00:00:00.000Z",
            "2026-13-01T00:00:00.000Z",
            "Bad Tag",
            "ok-slug",
            "github.com/o/r",
            "active",
            "decision",
            "group",
            "unreviewed",
            "jacked.memory.v1",
            "cli",
            "",
        ]
    ),
)


@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_fast_schema_check_is_never_laxer_than_jsonschema(data):
    from jacked_vault.document.validate import _validator, schema_accepts
    from jacked_vault.write.create import build_note

    fields = build_note(
        title="T", body="b", kind="note", scope="group", group="g", repos=[], source_harness="h", origin="cli"
    ).frontmatter()
    for key in data.draw(st.lists(st.sampled_from([*sorted(fields), "extra", "status_reason"]), max_size=3)):
        if data.draw(st.booleans()) and key in fields:
            del fields[key]
        else:
            fields[key] = data.draw(_FIELD_VALUES)
    if schema_accepts(fields):
        assert _validator().is_valid(fields)


@pytest.mark.parametrize("schema", ["note.schema.json", "vault.schema.json", "config.schema.json"])
def test_the_shipped_fast_check_was_generated_from_this_schema(schema: str):
    """`_note_check.py` (and the vault.json and machine config checks, issue 34.5) are generated
    (no fastjsonschema import or compile per process); each must follow its schema: same digest,
    and byte for byte what this fastjsonschema generates."""
    import fastjsonschema

    from jacked_vault.document import validate

    shipped = validate.fast_check_module(schema).read_text(encoding="utf-8")
    assert f"(sha256 {validate.schema_digest(schema)})" in shipped.splitlines()[0], "regenerate: see the file's header"
    if f'VERSION = "{fastjsonschema.VERSION}"' in shipped:
        assert shipped == validate.fast_check_source(schema)


def test_notes_and_configs_are_checked_without_fastjsonschema(tmp_path):
    """fastjsonschema only generates the checks (a test extra, not a run-time dependency): the real
    CLI makes a vault and adds a note, and every generated check loads, with it unimportable."""
    from conftest import cli_env

    vault = tmp_path / "vault"
    code = (
        "import sys\n"
        "sys.modules['fastjsonschema'] = None  # import fastjsonschema now raises ImportError\n"
        "from jacked_vault.cli.main import main\n"
        "from jacked_vault.document import validate\n"
        "for name in validate.FAST_CHECKS: validate._fast_check(name)\n"
        "assert main(['memory', 'init', '--no-scan', '--json']) in (0, None)\n"
        "sys.exit(main(['memory', 'add', '--group', 'g', '--title', 'Checked', '--body', 'b', '--json']))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=cli_env(vault), timeout=120)
    assert proc.returncode == 0, proc.stderr
    decoder = json.JSONDecoder()
    made, end = decoder.raw_decode(proc.stdout)
    added, _ = decoder.raw_decode(proc.stdout[end:].lstrip())
    assert made["created"] and added["memory"]["title"] == "Checked"


# A valid document of each configuration schema, and values to put anywhere in it.
_CONFIGS = {
    "vault.schema.json": {
        "version": 1,
        "roots": ["~/code"],
        "groups": {"api": {"repos": ["github.com/acme/api"]}},
        "settings": {"sync": {"push": "manual"}, "lock_timeout_s": 5, "writes": {"agents": "candidate"}},
    },
    "config.schema.json": {
        "version": 1,
        "roots": ["~/src"],
        "settings": {"author": {"name": "Ada", "email": "ada@x"}, "librarian": {"added": 20},
                     "review": {"allowed_signers": "/home/ada/.ssh/allowed_signers"}},
    },
}  # fmt: skip
_CONFIG_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 200_000) | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["", "manual", "x" * 300, "github.com/acme/api", "~/code", "API", "a b"]),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(["version", "repos", "push", "x"]), inner, max_size=2),
    max_leaves=6,
)  # fmt: skip


def _paths(node, at=()):
    """Every key path of a JSON document (mappings only)."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield (*at, key)
            yield from _paths(value, (*at, key))


@pytest.mark.parametrize("schema", sorted(_CONFIGS))
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_the_fast_config_checks_are_never_laxer_than_jsonschema(schema: str, data):
    """Issue 34.5: what the generated vault.json / machine config check accepts, jsonschema accepts."""
    import copy

    import jsonschema

    from jacked_vault.document.validate import _schema, fast_accepts

    doc = copy.deepcopy(_CONFIGS[schema])
    reference = jsonschema.Draft202012Validator(_schema(schema))
    assert fast_accepts(schema, doc) and reference.is_valid(doc)
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from([*_paths(doc), ("extra",)]))
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        if data.draw(st.booleans()) and path[-1] in parent:
            del parent[path[-1]]
        else:
            parent[path[-1]] = data.draw(_CONFIG_VALUES)
    if fast_accepts(schema, doc):
        assert reference.is_valid(doc), doc


# --- no message quotes a name or value the author wrote (issue 17.12) -------------------

SECRET_NAME = "gh" + "p_" + "Zq8Xw3Lm9Nv2Bc7Df4Gh1Jk6Pr5St0Uy3Aa9Bb"
# Frontmatter lines that refuse the file and (before) made its message quote SECRET_NAME.
QUOTING_LINES = {
    "unknown key": f'{SECRET_NAME}: "x"',
    "unknown key, nested list": f"{SECRET_NAME}: [[a]]",
    "unknown key, not JSON": f"{SECRET_NAME}: .nan",
    "unknown key, unquoted date": f"{SECRET_NAME}: 2026-11-29",
    "duplicate unknown key": f"{SECRET_NAME}: 1\n{SECRET_NAME}: 2",
    "anchor": f'kind: &{SECRET_NAME} "decision"',
    "alias": f"scope: *{SECRET_NAME}",
    "tag": f"kind: !{SECRET_NAME} decision",
    "verbatim tag": f"kind: !<{SECRET_NAME}> decision",
    "undefined tag handle": f"kind: !{SECRET_NAME}!x decision",
    "complex key": f"? {SECRET_NAME}\n: x",
}


def _never_quoted(text: str) -> None:
    assert not any(SECRET_NAME[i : i + 8] in text for i in range(len(SECRET_NAME) - 7)), text


def _planted(note: str, line: str) -> str:
    """`note` with `line` in place of its scope line (an alias) or its kind line (kept after
    `line` when `line` does not set it)."""
    key = "scope" if line.startswith("scope") else "kind"
    kept = next(row for row in note.split("\n") if row.startswith(f"{key}: "))
    return note.replace(kept, line if line.startswith(key) else f"{line}\n{kept}", 1)


@pytest.mark.parametrize("line", QUOTING_LINES.values(), ids=QUOTING_LINES.keys())
def test_refusal_never_quotes_a_name_the_author_wrote(line: str) -> None:
    _never_quoted(refusal(_planted(CANONICAL, line).encode()))


def test_unknown_fields_are_counted_not_named() -> None:
    assert refusal(with_line("kind", f'kind: "decision"\n{SECRET_NAME}: "x"')) == "n.md: an unknown field"
    many = "".join(f"{SECRET_NAME}{i}: {i}\n" for i in range(3))
    assert refusal(with_line("kind", f'kind: "decision"\n{many}'.rstrip())) == "n.md: 3 unknown fields"
    assert refusal(with_line("kind", "12345678901234567: x")) == "n.md: field names must be strings, not int"


def test_doctor_read_and_search_never_quote_a_planted_field_name(tmp_path) -> None:
    """A committed file whose frontmatter uses a token as a key (and as an anchor, a tag):
    doctor (text and --json), read and search report it without ever quoting the token."""
    from conftest import git, run_cli

    vault = tmp_path / "vault"
    assert run_cli("memory", "init", "--no-scan", vault=vault).code == 0
    added = run_cli(
        "memory",
        "add",
        "--title",
        "Rotate keys",
        "--body",
        "rotation runbook",
        "--group",
        "tools",
        "--json",
        vault=vault,
    )
    good_id = added.json["memory"]["id"]
    folder = vault / "groups" / "tools" / "note"
    good = (folder / "rotate-keys.md").read_text()
    for n, line in enumerate(QUOTING_LINES.values()):
        planted = good.replace(good_id, good_id[:-2] + f"{n:02d}")
        (folder / f"planted-{n}.md").write_text(_planted(planted, line))
    git(vault, "add", "-A")
    git(vault, "commit", "-qm", "planted by hand")
    assert SECRET_NAME in git(vault, "show", "HEAD")  # the files hold it; no output may
    outputs = []
    for args in [
        ("doctor",),
        ("doctor", "--json"),
        ("read", good_id),
        ("read", good_id, "--json"),
        ("read", "mem_20260101_01jdz5k6x9f3q8w2v7n4m1c0ab"),
        ("read", "mem_20260101_01jdz5k6x9f3q8w2v7n4m1c0ab", "--json"),
        ("search", "rotation"),
        ("search", "rotation", "--json"),
    ]:
        result = run_cli("memory", *args, vault=vault)
        outputs.append(result)
        _never_quoted(result.out + result.err)
    doctor_text, doctor_json, read_found, _, read_missing, _, search, search_json = outputs
    assert doctor_text.code == 1 and "(INVALID: an unknown field)" in doctor_text.out
    problems = {item["path"].rsplit("/", 1)[1]: item["problem"] for item in doctor_json.json["invalid_files"]}
    assert len(problems) == len(QUOTING_LINES) and problems["planted-0.md"] == "an unknown field"
    assert problems["planted-4.md"] == "an unknown field (line 6) is given twice"
    assert (
        read_found.code == 0 and good_id in read_found.out
    )  # a good note answers whatever else was refused (issue 18.8)
    assert read_missing.code != 0 and "JACKED_MEMORY_INCOMPLETE" in read_missing.err
    assert search.code == 0 and "Rotate keys" in search.out
    assert [hit["id"] for hit in search_json.json["results"]] == [good_id]
