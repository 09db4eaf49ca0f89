"""The joined-lines view of the secret scanner as it was built before issue 34.1's linear pass:
the joints found by regexes with lookbehinds, and every window of every series built. A test
oracle (tests/e2e/test_secret_engine.py): the scanner's joints must equal these, and its verdicts
the ones these windows give."""

from __future__ import annotations

import re

from jacked_vault.safety import secrets
from jacked_vault.safety.text import compiled

SPLIT_TOKEN = secrets.SPLIT_TOKEN
MAX_SPLIT_LINES = secrets.MAX_SPLIT_LINES
_T = r"[\w+/=.:-]"
_HALF = SPLIT_TOKEN // 2
_JOIN_BREAK = re.compile(
    r"\n"
    + rf"(?:(?<={_T}{{{_HALF}}}\n)|(?=[ \t]*{_T}{{{_HALF}}}))"
    + "(?:"
    + "|".join(f"(?<={_T}{{{k}}}\n)(?=[ \t]*{_T}{{{SPLIT_TOKEN - k}}})" for k in range(1, SPLIT_TOKEN))
    + r")[ \t]*"
)
_SHORT_MIDDLE = re.compile(
    rf"\n(?<={_T}\n)[ \t]*+(?P<middle>{_T}{{1,{SPLIT_TOKEN - 2}}}+)"
    + rf"(?=(?P<second>\n[ \t]*+)(?P<after>{_T}{{1,{SPLIT_TOKEN}}}))"
)
_RUN_END = re.compile(rf"{_T}+\Z")
_SHORT_LINES = re.compile(
    rf"^(?:[ \t]*+{_T}{{1,{SPLIT_TOKEN - 1}}}\n){{3,}}[ \t]*+{_T}{{1,{SPLIT_TOKEN - 1}}}$", re.MULTILINE
)
_LINE_BREAK = re.compile(r"\n[ \t]*+")
_DIGIT = re.compile(r"[0-9]")
_JOIN_QUOTED = re.compile(r"""["'`](?:[ \t]*\+)?\n[ \t]*\+?[ \t]*["'`]""")
_QUOTED_LINE_ENDS = ('"\n', "'\n", "`\n", "+\n")


def joints(lines: str) -> list[tuple[int, int]]:
    """The spans whose removal joins a line to the next where a token may be split."""
    found = {match.start(): match.span() for match in _JOIN_BREAK.finditer(lines)}
    for match in _SHORT_MIDDLE.finditer(lines):
        start = match.start()
        before = _RUN_END.search(lines, max(0, start - SPLIT_TOKEN), start)
        run = len(before.group()) if before else 0
        if run + len(match["middle"]) + len(match["after"]) >= SPLIT_TOKEN:
            found[start] = (start, match.start("middle"))
            found[match.start("second")] = match.span("second")
    for match in _SHORT_LINES.finditer(lines):
        series = match.group()
        breaks = series.count("\n")
        if (
            breaks < MAX_SPLIT_LINES
            and len(series) - breaks - series.count(" ") - series.count("\t") >= SPLIT_TOKEN
            and _DIGIT.search(series)
        ):
            offset = match.start()
            for brk in _LINE_BREAK.finditer(series):
                found[offset + brk.start()] = (offset + brk.start(), offset + brk.end())
    if any(end in lines for end in _QUOTED_LINE_ENDS):
        for match in _JOIN_QUOTED.finditer(lines):
            found[lines.index("\n", match.start())] = match.span()
    return [found[key] for key in sorted(found)]


def _window(lines: str, spans: list[tuple[int, int]], first: int, last: int) -> str:
    start = lines.rfind("\n", 0, spans[first][0]) + 1
    end = lines.find("\n", spans[last][1])
    parts = [lines[start : spans[first][0]]]
    parts += [lines[spans[k][1] : spans[k + 1][0]] for k in range(first, last)]
    parts.append(lines[spans[last][1] : end if end >= 0 else len(lines)])
    return "".join(parts)


def rejoined(lines: str) -> str | None:
    """Every window: each 2 and 3 lines around joints, each whole series with and without its
    first and last line, between lines holding a NUL; None without a joint."""
    spans = joints(lines)
    windows: set[tuple[int, int]] = set()
    first = 0
    for index, (_, end) in enumerate(spans):
        windows.add((index, index))
        if index > first:
            windows.add((index - 1, index))
        if index + 1 == len(spans) or "\n" in lines[end : spans[index + 1][0]]:
            if index - first >= 2:
                windows |= {(first, index), (first + 1, index), (first, index - 1), (first + 1, index - 1)}
            first = index + 1
    if not windows:
        return None
    return "\n\x00\n".join(_window(lines, spans, a, b) for a, b in sorted(windows))


def scan_text(text: str) -> list[str]:
    """The scanner's verdict with every window of joined lines built (no `_may_join` skip)."""
    found: set[str] = set()
    clean = secrets._decoded(text)
    for view in dict.fromkeys([text, clean]):
        secrets._findings_in(view, None, found)
    if "\n" in clean:
        windows = rejoined(compiled(secrets._TRAILING_BLANKS).sub("", clean))
        if windows is not None:  # the rules the engine's set finds over these windows, `clean` their context
            data = windows.encode("utf-8", "surrogatepass")
            rules = secrets._candidates(data, data.lower())
            context = secrets._Source(clean.encode("utf-8", "surrogatepass").lower(), rules)
            secrets._findings_in(windows, context, found)
    return sorted(found)
