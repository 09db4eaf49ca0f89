"""How the review page turns library results into HTML: the Jinja2 environment (every value
escaped; vault text cleaned of control and bidi characters first), Markdown with raw HTML off and
links limited to http(s) and note ids, search excerpts with their matches marked, and the layout of
the two pictures the page draws itself (the weekly chart, a note's neighbourhood) as numbers the
templates turn into inline SVG.

Vault text is data: nothing here builds HTML from it by hand. The templates escape (autoescape is
on for every template, `finalize` cleans every string before it is escaped), and the only Markup
made in Python is markdown-it's output (which escapes every text and attribute itself) and the
excerpt, whose parts are escaped one by one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from markupsafe import Markup, escape

from jacked_vault.document.model import ID_RE, KINDS
from jacked_vault.safety.text import strip_terminal
from jacked_vault.search.entries import MARK

if TYPE_CHECKING:
    from jinja2 import Environment
    from markdown_it import MarkdownIt
    from markdown_it.renderer import RendererHTML
    from markdown_it.rules_core import StateCore
    from markdown_it.token import Token
    from markdown_it.utils import EnvType, OptionsDict

TEMPLATES = Path(__file__).resolve().parent / "templates"
STATIC = Path(__file__).resolve().parent / "static"
_SAFE_SCHEMES = ("http://", "https://")


def clean(value: object) -> object:
    """Every value a template prints: vault text without control or bidi characters (an RTL
    override cannot reorder what a person reads); Markup (already escaped) and numbers as they are."""
    if value is None:
        return ""
    if isinstance(value, Markup):
        return value
    if isinstance(value, str):
        return strip_terminal(value)
    return value


@cache
def environment() -> Environment:
    from jinja2 import ChainableUndefined, Environment, FileSystemLoader, select_autoescape

    env = Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        autoescape=select_autoescape(enabled_extensions=("html", "svg"), default_for_string=True, default=True),
        finalize=clean,
        undefined=ChainableUndefined,  # a key a result leaves out reads as empty, never a 500
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["markdown"] = markdown
    env.filters["excerpt"] = excerpt
    env.filters["short"] = lambda sha: (sha or "")[:10]
    env.filters["when"] = lambda ts: (ts or "")[:16].replace("T", " ")
    return env


def _link_allowed(url: str) -> bool:
    """A link a note may make: http(s), or the id of a note (shown as its page)."""
    url = url.strip()
    return url.lower().startswith(_SAFE_SCHEMES) or ID_RE.fullmatch(url) is not None


@cache
def _markdown() -> MarkdownIt:
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.disable("image")  # nothing is loaded from the network; an image's text stays readable
    md.validateLink = _link_allowed  # type: ignore[method-assign]  # markdown-it-py's way to set the link rule of one parser

    def link_open(renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        token = tokens[idx]
        href = (cast("str | None", token.attrGet("href")) or "").strip()  # a link's href is text
        if ID_RE.fullmatch(href):
            token.attrSet("href", f"/note/{href}")
        else:
            token.attrSet("rel", "noopener noreferrer nofollow")
        return renderer.renderToken(tokens, idx, options, env)

    md.add_render_rule("link_open", link_open)
    md.core.ruler.push("header_lines", _header_lines)
    return md


# `Merge-Commit: …`, `Repo: …`: a field line of a header (capture/merge/note.header), mail-style
_FIELD_LINE = re.compile(r"[A-Z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*: \S")


def _header_lines(state: StateCore) -> None:
    """A paragraph whose every line is a field line (2 or more) shows a line each, as written."""
    tokens = state.tokens
    for n, token in enumerate(tokens):
        if token.type != "inline" or n == 0 or tokens[n - 1].type != "paragraph_open":
            continue
        lines = token.content.split("\n")
        if len(lines) > 1 and all(_FIELD_LINE.match(line) for line in lines):
            for child in token.children or ():
                if child.type == "softbreak":
                    child.type, child.tag = "hardbreak", "br"


def markdown(text: str | None) -> Markup:
    """A note's body as HTML: CommonMark, raw HTML shown as text, links only to http(s) and note ids."""
    return Markup(_markdown().render(strip_terminal(text or "")))


def excerpt(text: str | None) -> Markup:
    """A search excerpt with its matched words (between the index's `**` marks) in <mark>."""

    parts = strip_terminal(" ".join((text or "").split())).split(MARK)
    if len(parts) % 2 == 0:  # an odd number of marks: the text itself held one; show it plainly
        return Markup(escape(MARK.join(parts)))
    return Markup("".join(f"<mark>{escape(p)}</mark>" if n % 2 else str(escape(p)) for n, p in enumerate(parts)))


def render(template: str, **values: Any) -> str:
    return environment().get_template(template).render(**values)


# -- the pictures ---------------------------------------------------------------------------------

CHART_W, CHART_H, CHART_PAD = 640, 160, 24


def chart(weeks: list[dict[str, Any]], sources: tuple[str, ...]) -> dict[str, Any]:
    """Stacked bars, one per week:
    {"bars": [{"x", "w", "week", "total", "parts": [{"source", "y", "h", "n"}]}], "max", "w", "h"}."""
    top = max((sum(w[s] for s in sources) for w in weeks), default=0)
    inner_h = CHART_H - 2 * CHART_PAD
    step = (CHART_W - 2 * CHART_PAD) / max(len(weeks), 1)
    bars = []
    for n, week in enumerate(weeks):
        y = CHART_H - CHART_PAD
        parts = []
        for source in sources:
            count = week[source]
            if not count:
                continue
            h = inner_h * count / top
            y -= h
            parts.append({"source": source, "y": round(y, 1), "h": round(h, 1), "n": count})
        bars.append({"x": round(CHART_PAD + n * step + 1, 1), "w": round(max(step - 2, 1), 1), "week": week["week"],
                     "total": sum(week[s] for s in sources), "parts": parts})  # fmt: skip
    return {"bars": bars, "max": top, "w": CHART_W, "h": CHART_H, "pad": CHART_PAD, "sources": sources}


GRAPH_W, GRAPH_ROW, GRAPH_SIDE = 760, 30, 230  # the side columns leave ~220 px for a title
MAX_NODES_A_SIDE = 16


def neighbourhood(
    note_id: str, title: str, links: list[dict[str, Any]], backlinks: list[dict[str, Any]]
) -> dict[str, Any]:
    """A note in the middle, the notes linking to it on the left, those it links to on the right:
    {"w", "h", "center": {...}, "nodes": [{"id", "title", "x", "y", "side", "status", "known"}], "more": {...}}."""
    left, right = backlinks[:MAX_NODES_A_SIDE], links[:MAX_NODES_A_SIDE]
    rows = max(len(left), len(right), 1)
    height = rows * GRAPH_ROW + 40
    middle = height / 2 + 10
    center = {"id": note_id, "title": _cut(title, 40), "x": GRAPH_W / 2, "y": middle}
    nodes = []
    for side, items, x in (("in", left, GRAPH_SIDE), ("out", right, GRAPH_W - GRAPH_SIDE)):
        top = middle - (len(items) - 1) * GRAPH_ROW / 2
        for n, item in enumerate(items):
            nodes.append(
                {
                    **item,
                    "title": _cut(item.get("title") or item["id"]),
                    "x": x,
                    "y": round(top + n * GRAPH_ROW, 1),
                    "side": side,
                }
            )
    more = {"in": len(backlinks) - len(left), "out": len(links) - len(right)}
    return {"w": GRAPH_W, "h": height, "center": center, "nodes": nodes, "more": more}


def _cut(text: str, n: int = 30) -> str:
    text = " ".join(strip_terminal(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"


_OP = re.compile(r"^memory\(([a-z-]+)\):")


def operation(summary: str) -> str:
    """What a vault commit did, from its subject (`transaction.commit_message`): create, accept,
    reject, supersede, expire, edit, forget, hot, config, episodic, migrate, maintenance, other."""

    found = _OP.match(summary or "")
    if found:
        return "create" if found[1] in KINDS else found[1]
    return "maintenance" if (summary or "").startswith("memory: ") else "other"


OPERATIONS = (
    "create",
    "accept",
    "reject",
    "supersede",
    "expire",
    "edit",
    "forget",
    "hot",
    "config",
    "episodic",
    "migrate",
    "maintenance",
    "other",
)
