"""[[wikilinks]] in note bodies (issue 24.4): resolved the way Obsidian resolves them (file name,
path-qualified name, alias and heading parts, code excluded; then, as jacked adds, the title and
the id) into links (`read` shows where each goes) and backlinks (`read` of the target lists the
linking note); a link that names no note is a doctor warning, never a failure. Frontmatter
`links` stay ids. A small vault is built with the real CLI and each link checked against the
note Obsidian would open."""

from __future__ import annotations

from pathlib import Path

from conftest import git, run_cli

from jacked_vault.document.wikilinks import targets


def _add(vault: Path, title: str, body: str, *extra: str, group: str = "api", kind: str = "note") -> dict:
    result = run_cli(
        "memory",
        "add",
        "--group",
        group,
        "--kind",
        kind,
        "--title",
        title,
        "--body",
        body,
        "--json",
        *extra,
        vault=vault,
    )
    assert result.code == 0, result.out + result.err
    return {"id": result.json["memory"]["id"], "path": result.json["path"].removeprefix("group:")}


def _read(vault: Path, note_id: str) -> dict:
    result = run_cli("memory", "read", note_id, "--json", vault=vault)
    assert result.code == 0, result.out + result.err
    return result.json


def test_the_parser_reads_links_as_obsidian_does():
    body = (
        "See [[Use FTS5|the decision]], [[use-fts5#Why]] and ![[diagram.md]].\n"
        "Inline `[[not a link]]` and\n```\n[[nor this]]\n```\n"
        "[[groups/api/decision/use-fts5]] [[ ]] [[mem_20260101_abc]]"
    )
    assert targets(body) == ["use fts5", "use-fts5", "diagram", "groups/api/decision/use-fts5", "mem_20260101_abc"]


def test_a_small_vault_resolves_like_obsidian_and_gives_backlinks(vault_path: Path):
    vault = vault_path
    fts = _add(
        vault, "Use FTS5 for search", "We chose FTS5.", kind="decision"
    )  # groups/api/decision/use-fts5-for-search.md
    other = _add(
        vault, "Use FTS5 for search", "The web group's own note.", group="web", kind="decision"
    )  # same file name, another folder
    port = _add(vault, "Service port", "It listens on 8080.", kind="fact")
    runbook = _add(vault, "Deploy runbook", "Steps.", kind="runbook")
    linker = _add(
        vault,
        "How search works",
        "By file name [[use-fts5-for-search|FTS5]] (two notes have it, neither in this note's folder), "
        "by path [[web/decision/use-fts5-for-search]], "
        "by title [[Service port#Details]], by id [[" + runbook["id"] + "]], `[[in code]]` and [[Nothing like this]].",
    )
    same_folder = _add(vault, "Sibling decision", "See [[use-fts5-for-search]].", group="web", kind="decision")

    # What Obsidian would open for each link, written down from its rules (search/wikilinks.py):
    links = {w["target"]: w["id"] for w in _read(vault, linker["id"])["wikilinks"]}
    assert links == {
        "use-fts5-for-search": fts[
            "id"
        ],  # no file of that name beside the linker: the shortest path (groups/api < groups/web by path)
        "web/decision/use-fts5-for-search": other["id"],  # path-qualified: that file, no fallback
        "service port": port["id"],  # no file named so: the title (jacked's addition)
        runbook["id"]: runbook["id"],  # an id (jacked's addition)
        "nothing like this": None,  # broken
    }, links
    assert {w["target"]: w["id"] for w in _read(vault, same_folder["id"])["wikilinks"]} == {
        "use-fts5-for-search": other["id"]
    }  # its own folder first

    def backlinks(note: dict) -> set[str]:
        return {b["id"] for b in _read(vault, note["id"])["backlinks"]}

    assert backlinks(fts) == {linker["id"]}
    assert backlinks(other) == {linker["id"], same_folder["id"]}
    assert backlinks(port) == {linker["id"]} and backlinks(runbook) == {linker["id"]}
    text = run_cli("memory", "read", linker["id"], vault=vault).out
    assert (
        "links to:" in text
        and f"[[service port]] -> {port['id']}" in text
        and "[[nothing like this]] -> no note" in text
    )
    assert "linked from:" in run_cli("memory", "read", port["id"], vault=vault).out
    assert _read(vault, linker["id"])["memory"]["links"] == []  # frontmatter links stay ids, given on purpose

    report = run_cli("memory", "doctor", "--json", vault=vault)
    assert report.code == 0 and report.json["ok"] is True, report.out
    assert report.json["broken_wikilinks"] == [{"id": linker["id"], "target": "nothing like this"}]
    assert [w["code"] for w in report.json["warnings"]] == ["BROKEN_WIKILINK"]
    assert "[[nothing like this]]" in run_cli("memory", "doctor", vault=vault).out
    assert git(vault, "status", "--porcelain") == ""


def test_a_link_follows_the_note_it_names_and_breaks_when_it_goes(vault_path: Path):
    """Backlinks are resolved when asked (not frozen at write time): a note written later that a
    link names is linked from then on; a note forgotten leaves the link broken."""
    linker = _add(vault_path, "Linker", "Depends on [[Later note]].")
    assert _read(vault_path, linker["id"])["wikilinks"] == [{"target": "later note", "id": None, "title": None}]
    later = _add(vault_path, "Later note", "Written after.")
    assert [b["id"] for b in _read(vault_path, later["id"])["backlinks"]] == [linker["id"]]
    assert run_cli("memory", "forget", later["id"], "--json", vault=vault_path).code == 0
    assert run_cli("memory", "doctor", "--json", vault=vault_path).json["broken_wikilinks"] == [
        {"id": linker["id"], "target": "later note"}
    ]


def test_backlinks_by_wikilink_pass_the_read_policy(vault_path: Path):
    """A note for codex links to one for all: a claude reader never sees codex's note among the backlinks."""
    target = _add(vault_path, "Shared target", "For everyone.")
    hidden = _add(vault_path, "Codex only", "See [[Shared target]].", "--target", "codex")
    seen = run_cli("memory", "read", target["id"], "--json", vault=vault_path, JACKED_MEMORY_HARNESS="claude").json
    assert seen["backlinks"] == [] and hidden["id"] not in str(seen)
    person = run_cli("memory", "read", target["id"], "--json", vault=vault_path).json
    assert [b["id"] for b in person["backlinks"]] == [hidden["id"]]


def _full_reading(body: str) -> list[str]:
    """`targets` without its shortcut for a body that can hold no link (no `[[`, no code)."""
    from jacked_vault.document import wikilinks as read
    from jacked_vault.safety.text import compiled

    text = compiled(read._CODE_SPAN).sub("", compiled(read._FENCE).sub("", body))
    seen: dict[str, None] = {}
    for match in compiled(read._LINK).finditer(text):
        name = read.normalise(match.group(1))
        if name and len(name) <= read.MAX_TARGET:
            seen.setdefault(name)
    return list(seen)


def test_the_shortcut_for_a_body_without_links_reads_every_body_as_the_full_reading():
    import random

    odd = ["[`x`[name]]", "[``[a]]``[b]]", "~~~\n[[in code]]\n~~~\n[[out]]", "```\n[[a]]", "[ [a]]", "[[a|b#c]]", ""]
    rng = random.Random(34)
    fuzzed = ["".join(rng.choice("[]`~|#\n ab.") for _ in range(rng.randint(0, 40))) for _ in range(5000)]
    for body in odd + fuzzed:
        assert targets(body) == _full_reading(body), body
    assert targets("[`x`[name]]") == ["name"]  # removing a code span can make a link
