"""The reader's fast path for canonical frontmatter (document/reader.py `_canonical_fields`):
whatever it accepts, the strict YAML reader reads the same (same keys, same values, same types);
anything else it declines, and the YAML path decides."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jacked_vault.document import FRONTMATTER_KEYS, Note, parse_note, render_note
from jacked_vault.document.frontmatter import MAX_VALUES, load_frontmatter
from jacked_vault.document.reader import _canonical_fields
from jacked_vault.document.writer import json_line
from jacked_vault.errors import VaultError

# Characters where YAML and JSON part ways, or that end a value: quotes, escapes, brackets,
# comment and flow signs, controls, DEL, C1 controls, NEL, line and paragraph separators, a BOM.
SPECIAL = "\"\\[]{},:# '\t\r\x00\x1b\x7f\x80\x85\x9f\xa0\u2028\u2029\ufeff\ufffe\U0001f600aZ09nN-."
TEXT = st.text(alphabet=st.sampled_from(SPECIAL) | st.characters(codec="utf-8"), max_size=12)
SCALARS = st.none() | st.booleans() | st.integers(-(10**20), 10**20) | st.floats(allow_nan=True) | TEXT
VALUES = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=3), max_leaves=8
)
KEYS = st.sampled_from((*FRONTMATTER_KEYS, "body", "Title", "x", ""))


def typed(value: object) -> object:
    """A value with its types spelled out (`1 == 1.0 == True` in Python; not here)."""
    if isinstance(value, dict):
        return ("dict", [(key, typed(item)) for key, item in value.items()])
    if isinstance(value, list):
        return ("list", [typed(item) for item in value])
    if isinstance(value, float) and value != value:
        return ("float", "nan")
    return (type(value).__name__, value)


def strict(text: str) -> object:
    """What the YAML path makes of `text`: the fields, or the refusal."""
    try:
        return typed(load_frontmatter(text, "n.md"))
    except VaultError as error:
        return ("refused", error.message)


def raw_value(draw, value: object, mutate: bool) -> str:
    raw = json_line(value)
    if mutate and raw:
        at = draw(st.integers(0, len(raw)))
        raw = raw[:at] + draw(TEXT) + raw[at + draw(st.integers(0, 2)) :]
    return raw


@st.composite
def frontmatter(draw) -> str:
    """Lines that are canonical, nearly canonical (a value edited, keys out of order or unknown)
    or not at all."""
    keys = draw(st.lists(KEYS, max_size=8))
    if draw(st.booleans()):
        order = {key: n for n, key in enumerate(FRONTMATTER_KEYS)}
        keys = sorted(dict.fromkeys(k for k in keys if k in order), key=order.__getitem__)
    lines = []
    for key in keys:
        value = draw(st.lists(TEXT, max_size=3) | TEXT | st.none() | VALUES)
        lines.append(f"{key}: {raw_value(draw, value, draw(st.booleans()))}")
    ending = draw(st.sampled_from(("\n", "", "\r\n", "\n\n")))
    return "\n".join(lines) + ending


@settings(max_examples=1500, deadline=None)
@given(frontmatter())
def test_the_fast_path_reads_what_yaml_reads_or_declines(text: str) -> None:
    fast = _canonical_fields(text)
    if fast is not None:
        assert strict(text) == typed(fast)


@settings(max_examples=300, deadline=None)
@given(st.lists(TEXT, max_size=4), TEXT, TEXT)
def test_canonical_values_take_the_fast_path(tags: list[str], title: str, group: str) -> None:
    """Strings (escapes and all) and lists of strings written by json_line are read without YAML
    when they hold nothing YAML reads otherwise, and read as YAML reads them."""
    text = f"id: {json_line(group)}\ntitle: {json_line(title)}\ngroup: null\ntags: {json_line(tags)}\n"
    fast = _canonical_fields(text)
    text_of = "".join([title, group, *tags])
    unusual = any(c < " " or "\x7f" <= c <= "\x9f" or c in "\u2028\u2029\ufffe\uffff" for c in text_of)
    if not unusual:
        assert fast == {"id": group, "title": title, "group": None, "tags": tags}
    if fast is not None:
        assert strict(text) == typed(fast)


@pytest.mark.parametrize(
    "text",
    [
        'title: "a\x85b"\n',  # YAML reads NEL in a quoted scalar as a line break (folded to a space)
        'title: "a\x7fb"\n',  # YAML refuses DEL
        "schema: NaN\n",  # json reads a float, YAML the text 'NaN'
        'tags: [["a"]]\n',  # the strict reader refuses nested lists
        "schema: 1\n",  # no note field is a number: left to YAML (and validation)
        'title:  "a"\n',
        'title: "a" # c\n',
        'title: "a"',
        'id: "a"\ntitle: "b"\nid: "c"\n',
        'title: "a"\nid: "b"\n',
    ],
)
def test_what_the_fast_path_declines(text: str) -> None:
    assert _canonical_fields(text) is None


def test_the_value_bound_is_the_strict_readers() -> None:
    """A frontmatter at the strict reader's value bound is read by both, one over by neither."""
    fits = MAX_VALUES - 1 - 2 * 2  # the mapping, two fields (key and list), then the items
    for n, accepted in ((fits, True), (fits + 1, False)):
        text = f'id: "a"\ntags: {json_line(["t"] * n)}\n'
        assert (_canonical_fields(text) is not None) is accepted
        assert (strict(text)[0] != "refused") is accepted


def test_a_written_note_takes_the_fast_path() -> None:
    note = Note(
        id="mem_20261129_01jdz5k6x9f3q8w2v7n4m1c0ab",
        title='Quotes " and \\ and «é»',
        kind="decision",
        scope="group",
        group="vault-tools",
        repos=["github.com/acme/vault"],
        status="active",
        origin="cli",
        source_harness="claude",
        target_harnesses=["all"],
        tags=["x-y", "z"],
        links=[],
        supersedes=[],
        valid_from="2026-11-29T17:00:00.000Z",
        valid_until=None,
        created_at="2026-11-29T17:00:00.000Z",
        updated_at="2026-11-29T17:00:00.000Z",
        body="b",
    )
    data = render_note(note)
    yaml_text = data.decode().split("---\n")[1]
    assert _canonical_fields(yaml_text) == json.loads(json.dumps(load_frontmatter(yaml_text, "n.md")))
    assert parse_note(data) == note
