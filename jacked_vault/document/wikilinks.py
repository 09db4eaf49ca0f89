"""`[[wikilinks]]` in a note's body, read the way Obsidian reads them (https://help.obsidian.md/links):

- `[[name]]`, `[[name|shown text]]`, `[[name#Heading]]`, `[[name#^block]]` and the embed
  `![[name]]` all link to `name` (the text after `|` is only what is shown; `#…` points inside it);
- a code span (`` `…` ``) or a fenced code block holds no link;
- `name` may end in `.md` and may carry a folder path (`[[groups/api/decision/use-fts5]]`).

`targets` gives each link's target normalised for comparison: the shown text, the heading or
block part and a trailing `.md` removed, whitespace folded, lower-cased (Obsidian matches names
case-insensitively). Which note a target names is `search.wikilinks.resolve`'s to say.
"""

from __future__ import annotations

from jacked_vault.safety.text import compiled

_FENCE = r"(?ms)^(`{3,}|~{3,})[^\n]*\n.*?(?:^\1[ \t]*$|\Z)"
_CODE_SPAN = r"(?s)(`+)(?!`).*?(?<!`)\1(?!`)"
_LINK = r"!?\[\[([^\[\]\n]+?)\]\]"
MAX_TARGET = 300  # a longer one names no note file or title (titles are at most 200 characters)


def normalise(text: str) -> str:
    """A link's target as compared: before `|` and `#`, without `.md`, whitespace folded, lower case."""
    name = text.split("|", 1)[0].split("#", 1)[0]
    name = " ".join(name.split()).strip().strip("/")
    if name.lower().endswith(".md"):
        name = name[: -len(".md")]
    return name.lower()


def targets(body: str) -> list[str]:
    """The distinct targets of the body's wikilinks, in order of first appearance (code excluded)."""
    # No link, and no code whose removal makes one: taking out a fenced block joins two line
    # ends, and taking out a code span joins what is around it, which makes a `[[` only where a
    # `[` stands just before the span's first backtick
    if "[[" not in body and "[`" not in body:
        return []
    text = compiled(_CODE_SPAN).sub("", compiled(_FENCE).sub("", body))
    seen: dict[str, None] = {}
    for match in compiled(_LINK).finditer(text):
        name = normalise(match.group(1))
        if name and len(name) <= MAX_TARGET:
            seen.setdefault(name)
    return list(seen)
