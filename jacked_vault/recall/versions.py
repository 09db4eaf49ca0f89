"""A note's file as each commit of its history changed it: the diff against the commit's first
parent, read from git (for the review page's note history; `recall/history.py` finds the commits).

A version is shown only when it is this note's (its frontmatter carries the note's id: a path
a forgotten note once held shows nothing of it) and when the secret scanner finds nothing in
it (a hand edit committed past the gate may hold a credential): otherwise the diff is withheld
and the answer says why, never what.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Any

from jacked_vault.store import git
from jacked_vault.store.layout import Store

MAX_VERSION_BYTES = 256 * 1024
MAX_DIFF_LINES = 400


@dataclass(frozen=True)
class Version:
    commit: str
    diff: list[tuple[str, str]] = field(default_factory=list)  # (sign, line): "+", "-", " ", "@" (a hunk header)
    withheld: str | None = None  # why the diff is not shown
    cut: bool = False  # the diff was longer than MAX_DIFF_LINES

    def to_json(self) -> dict[str, Any]:
        return {
            "commit": self.commit,
            "diff": [sign + line for sign, line in self.diff],
            "withheld": self.withheld,
            "cut": self.cut,
        }


def _text(data: bytes | None, note_id: str) -> tuple[str | None, str | None]:
    """(text, why it is withheld) of one version of the file."""
    if data is None:
        return None, None
    if len(data) > MAX_VERSION_BYTES:
        return None, "too large to show"
    text = data.decode("utf-8", "replace")
    if not re.search(rf'^id:\s*"?{re.escape(note_id)}"?\s*$', text, re.MULTILINE):
        return None, "another note's file at this path"
    from jacked_vault.safety.secrets import scan_text

    if scan_text(text):
        return None, "the secret scanner flags this version; it is not shown"
    return text, None


def note_versions(store: Store, rel: str, note_id: str, commits: list[str]) -> list[Version]:
    """For each commit (a sha from the note's history), the diff its change made to `rel`."""
    import pygit2

    repo = git.open_repo(store.root)
    out = []
    for sha in commits:
        try:
            commit = repo[sha]
        except (KeyError, ValueError):
            out.append(Version(sha, withheld="not in this repository"))
            continue
        assert isinstance(commit, pygit2.Commit), "a note's history lists commits"
        parent = commit.parents[0] if commit.parents else None
        new, why_new = _text(git.blob_at(repo, commit.tree, rel), note_id)
        old, why_old = _text(git.blob_at(repo, parent.tree, rel), note_id) if parent is not None else (None, None)
        why = why_new or why_old
        if why is not None:
            out.append(Version(sha, withheld=why))
            continue
        lines = []
        for line in difflib.unified_diff((old or "").splitlines(), (new or "").splitlines(), lineterm="", n=2):
            if line.startswith(("---", "+++")):
                continue
            lines.append(("@" if line.startswith("@@") else line[:1], line if line.startswith("@@") else line[1:]))
        out.append(Version(sha, lines[:MAX_DIFF_LINES], cut=len(lines) > MAX_DIFF_LINES))
    return out
