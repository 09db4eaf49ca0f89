"""Which note a `[[wikilink]]` names, resolved over one store's index the way Obsidian resolves it
(https://help.obsidian.md/links; the parsing is `document.wikilinks`). A store is one Obsidian
vault. For a link written in the note at `source`, the target (compared case-insensitively):

1. with a `/`: the note whose path (without `.md`) is the target or ends with `/<target>`
   (Obsidian's path-qualified link; no fallback to the file name);
2. else the note whose file name (without `.md`) is the target; of several, the one in the
   source's own folder, else the shortest path, then the first by path (Obsidian prefers the
   source's folder, and writes a path whenever a bare name would be ambiguous);
3. else (no file of that name: an unresolved link in Obsidian) jacked also tries the note whose
   title is the target, chosen the same way among several,
4. then the note whose id is the target (`[[mem_…]]`).

A link that names no note is broken: doctor warns about it (never fails). Frontmatter `links`
stay what they are: ids, checked when written.
"""

from __future__ import annotations

import sqlite3


def _stem(rel: str) -> str:
    return rel.rsplit("/", 1)[-1].removesuffix(".md").lower()


def title_name(title: str) -> str:
    """A title as a name: whitespace folded, lower case (what a wikilink's target is compared to)."""
    return " ".join(title.split()).lower()


WIKILINKS = "INSERT INTO wikilinks(src, target) VALUES(?,?)"  # a note's wikilink targets
NAMES = "INSERT INTO note_names(doc, name, by_title) VALUES(?,?,?)"  # the names a wikilink may give a note


def names(rowid: int, rel: str, title: str) -> list[tuple[int, str, int]]:
    """The `note_names` rows of a note: the names a wikilink may give it (its file name, its title)."""
    return [(rowid, _stem(rel), 0), (rowid, title_name(title), 1)]


def forget(db: sqlite3.Connection, rowid: int) -> None:
    db.execute("DELETE FROM wikilinks WHERE src=?", (rowid,))
    db.execute("DELETE FROM note_names WHERE doc=?", (rowid,))


def _best(rows: list[tuple[int, str]], source: str) -> int | None:
    """Of the notes a name gives, the one Obsidian would open from `source` (rule 2)."""
    if not rows:
        return None
    folder = source.rsplit("/", 1)[0]
    return min(rows, key=lambda r: (r[1].rsplit("/", 1)[0] != folder, r[1].count("/"), len(r[1]), r[1]))[0]


def resolve(db: sqlite3.Connection, source: str, target: str) -> int | None:
    """The rowid of the note `target` names from the note at `source`, or None (a broken link)."""
    if "/" in target:
        rows = db.execute(
            "SELECT rowid, path FROM docs WHERE tier='note' AND path LIKE ? ESCAPE '\\'", ("%" + _like(target) + ".md",)
        )
        found = [
            (r, p)
            for r, p in rows
            if p[: -len(".md")].lower() == target or p[: -len(".md")].lower().endswith("/" + target)
        ]
        return _best(found, source)
    for by_title in (0, 1):
        named = db.execute(
            "SELECT d.rowid, d.path FROM note_names n JOIN docs d ON d.rowid = n.doc WHERE n.name=? AND n.by_title=? "
            "AND d.tier='note'",
            (target, by_title),
        ).fetchall()
        if named:
            return _best(named, source)
    row = db.execute("SELECT rowid FROM docs WHERE id=? AND tier='note' ORDER BY path LIMIT 1", (target,)).fetchone()
    return row[0] if row else None


def _like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def linking(db: sqlite3.Connection, rowid: int) -> list[int]:
    """The rowids of the notes whose wikilinks resolve to the note `rowid`."""
    row = db.execute("SELECT path, id FROM docs WHERE rowid=?", (rowid,)).fetchone()
    if row is None:
        return []
    path, note_id = row
    names = [name for (name,) in db.execute("SELECT name FROM note_names WHERE doc=?", (rowid,))] + [note_id]
    bare = path[: -len(".md")].lower()
    marks = ",".join("?" * len(names))
    candidates = db.execute(
        f"SELECT w.src, w.target, d.path FROM wikilinks w JOIN docs d ON d.rowid = w.src WHERE w.target IN ({marks})"
        " OR (instr(w.target, '/') > 0 AND (? = w.target OR ? LIKE '%/' || w.target))",
        (*names, bare, bare),
    ).fetchall()
    return sorted({src for src, target, source in candidates if resolve(db, source, target) == rowid})


def broken(db: sqlite3.Connection) -> list[tuple[str, str]]:
    """(id of the linking note, target) for every wikilink that names no note of this store."""
    rows = db.execute(
        "SELECT d.id, d.path, w.target FROM wikilinks w JOIN docs d ON d.rowid = w.src ORDER BY d.id, w.target"
    ).fetchall()
    return [(note_id, target) for note_id, source, target in rows if resolve(db, source, target) is None]
