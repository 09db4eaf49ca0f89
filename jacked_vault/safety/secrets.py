"""Secret scanner: known credential shapes, private keys and real-looking passwords.

Reports only the *kind* of secret found, never the value. One table of rules (`_RULES`)
drives everything; every field is scanned over up to three views of its text:

1. the text as written;
2. decoded: JSON/shell escapes (`\\n`, `\\t`, `\\"`, `\\\\`, `\\/`, `\\uXXXX` with surrogate
   pairs, `\\xNN`) and percent-encoding undone, repeatedly up to `DECODE_ROUNDS` times
   (`%253D` is `=`), then format characters (Unicode Cf: zero-width space/joiner, word
   joiner, BOM, soft hyphen, ...) removed;
3. the decoded text with split tokens joined: where a line break (with the blanks around
   it) may split a token (between runs of token characters that make at least SPLIT_TOKEN
   characters together, also through a short middle line, or between quoted halves joined
   by `+` or juxtaposition), windows of whole lines are scanned with those breaks removed:
   every 2 and 3 lines, so a word on the line before or after is never glued to a token
   split in two or three, and each whole series of such lines (with and without its first
   and last line) for longer ones, each window on lines of its own between lines holding a
   NUL (no match spans two windows); only those a match may be in are built (below), in
   batches. Only token shapes are looked for here: generic rules (a secret told by the key
   or syntax around it, `fallback` in the table) would read glued lines of code (`x = token`
   + `self.y = 1`) as assignments. Context words are looked for in the windows, anywhere in
   the text and in every whole series joined (it holds every word of every window). A PEM
   header is found in every view whatever blanks or line breaks split it.

A view is built only when it can differ: plain text without a backslash, `%`, format
character or line break is scanned once. The raw view keeps the bare-word value of an
assignment from running through an escape (`\\n`) and does not count a backslash as a
symbol: the decoded view sees what the escape stands for.

Speed: rules run on the UTF-8 bytes (one byte per character whatever the text holds).
Each view first goes through one RE2 set of every rule's prefilter (`_superset` of its
pattern: lookarounds dropped, counts loosened; google-re2, linear time, imported on the first
scan): only the rules it hits run as exact `re` patterns. Most start with a literal, so `re`
skips ahead with its fast prefix search; left boundaries are lookbehinds placed *after* that
literal. A scan that runs on to the end of a line or name stops at the next place the rule
starts (`_until_next`), so no rule rescans a line once per start. Rules marked `fold` run on
the ASCII-lowercased bytes (same offsets); `gated` rules run only if a context word occurs.
The joined windows are the costly view (all of them: up to ~9 times the text for short
token-like lines, built in Python), so only those a token rule may match in are built. The
joints are found in one pass over the lines' ends (`_joints`: run lengths, then arithmetic).
`_may_join` tells which token rules may match in a window of some lines: the set over those
lines with every line break joined, which holds every window but for the blanks and quotes
at its ends, then each rule's `core` (its pattern without lookarounds, counts kept, by RE2);
the base64 key body, whose prefilter hits any long run, only from an `M` whose first
characters may pass its check. Nothing is built if none may; else, for each group of series
it does not rule out, the whole series, then stretch by stretch of joints (`_STRETCH`, doubling
while each holds a possible start) the 2 and 3 lines around every joint of a stretch in which a
rule's core matches (`_may_start`), all at once by slicing and concatenation (`_stretch_windows`:
no Python step per window), then its cut ends. They are built in batches as the scan reads them
(`_batches`), only for rules of a kind not yet found, none once every kind they may hold is
found: the kinds a scan reports (all any caller reads) are the same. The windows carry the rules
found (`_Source`): the set does not read them again. A rule checks a value once a view
(`_findings_in`): the AWS documentation key on every line is checked once. Once a kind is
found, a rule's further matches are checked only while a later fallback rule of another kind
still reads what they cover.

Decisions about near misses:

- Placeholders are not secrets, but a placeholder must *be* one, not merely contain a
  word: values starting with `$ % { < [ (` (`${VAR}`, `$VAR`, `%VAR%`, `{{ secrets.X }}`,
  `<your-token>`), masks (`****`, `xxxx`, `...`, fewer than four distinct characters),
  values that start or end with a placeholder word (example, dummy, fake, sample,
  placeholder, redacted, your, changeme, change_me, replace_me: `your_password_here`,
  `changeme123`, AWS's `asdf34example`) or hold one as a separate word (`sk_example_...`,
  `my-DUMMY-key`), and AWS's documentation keys (`EXAMPLE` in capitals anywhere:
  `AKIA...EXAMPLE`, `...EXAMPLEKEY`, `AQoEXAMPLEH4...`). A word glued inside a value
  (`...2your...`, `myExample...`) does not make it a placeholder.
- In URLs, `user:pass@` and `user:password@` are placeholders; any other password
  (including defaults like `postgres:postgres`) is reported. Without a scheme
  (`user:pw@host:port`), the host must look like one (dotted, bracketed, `localhost` or
  with a port) and the password must mix case and digits or hold a symbol: so
  `git@host:o/r`, emails, image digests (`name:tag@sha256:...`) and
  `mailto:`/`sip:`/`from:`-style addresses are not flagged.
- Assignments (`password = ...`, `token: ...`, `"smtp_password": ...`) count only when the
  key ends in a secret word (so not `password_min_length`, `token_url`, `NextToken`) and
  the value is a literal of at least 8 characters without whitespace that mixes letters
  with digits or symbols. Not values: code (`get_token()`, `os.environ[...]`,
  `process.env.X`, `request.form[...]`), identifiers naming a secret (letters, digits,
  `_ . -` only, with pass/secret/token/key/credential in them: `user_password`,
  `"NextToken"`, `PKCS7PrivateKeyTypes`, while a value with another symbol,
  `S3cr3tPassw0rd!`, is a literal), and references (URLs, ARNs, paths). A YAML/JSON colon
  must be followed by a space or quote, so `arn:...:secret:name` is no assignment.
- Password keys (issue 18.13): `password`, `passwd`, `passphrase`, `pwd` (ODBC `Pwd=`,
  `DB_PWD`) and `pass` as a word of its own (`DB_PASS`, `pass:`; not `bypass`, `compass`),
  ending the key (`DB_PASSWORD`, `smtp-pass`), also as `--password`/`--db-pass`/`--pwd` flags.
  An identifier under such a key names a password only when it has separated words with a
  secret or password word in them (`DB_PASSWORD2`, `token_v2`) or a password word and is not
  PascalCase (`userPass1`, `password1`, `generatedwebdavpassword1`): so `Hunter2Secret`,
  `Monkey123` (a "key" inside) and `Password123` are passwords. An all-letter value
  (`correcthorsebatterystaple`, `SecretStr`) and a digits-only one are not (words, types,
  numbers), nor is one shorter than 8 (`hunter2`).
- Passwords in prose: `the db password is X`, `password for the staging db is now X`,
  `passwords are X`, `password was changed/set/reset/rotated to X` (up to three words after
  for/of/on/to, then a verb). Nothing but the words says it is a password, so the value must
  be stronger: >= 8 characters with letters, digits and a symbol (`p@ssw0rd9`), or upper case,
  lower case and digits other than capitalised words and numbers run together (`Tr0ub4dor3x`;
  not `Base64Encoded`, `OAuth2`, `Hunter2Secret`), not a hyphenated adjective
  (`Argon2id-hashed`), code or a reference. Not caught: `password X` without a verb (`password
  Argon2id hashing` reads the same), `X is the password`, `pass is X` (`the first pass is`).
- Command lines: `--password X` and other flags ending in password/passphrase/secret,
  `--token X` and `--auth-token`-like flags (auth, access, api, bearer, refresh, session,
  bot; not `--next-token`, `--client-token`, `--starting-token`...), `--api-key X` (same
  value rules as assignments), and `-u`/`--user user:pw` with a password-like `pw` (not
  `1000:1000`, `www-data:www-data`, `$USER:$PASS`); the short `-p` is too generic (ports,
  paths) and counts only glued to its value after `mysql`/`mysqldump`/`mariadb` (`-pPW`; `-p
  db` asks for the password), and `-a PW` only after `redis-cli`.
- `.netrc` entries (`machine h login u password p`, one line or several) and `.pgpass`
  lines (`host:port:db:user:pw`: port digits or `*`, database and user names, a
  password-like `pw`; not `/etc/passwd` lines, IPv6 addresses or regexes with colons).
- Cookies (`Cookie:`/`Set-Cookie:`) only with a long random value (>= 20 characters, >= 4
  letters, >= 4 digits, >= 12 distinct): not `theme=dark`, nor analytics ids like
  `GA1.2.123.456` (two letters).
- Private key bodies without their PEM header: a base64 run of >= 64 characters whose DER
  opens like a private key (PKCS#8 or PKCS#1/DSA: version 0 or 1, then an algorithm, an
  integer or an octet string; encrypted PKCS#8: a PBES/PKCS#12 algorithm), or an OpenSSH
  key body. Certificates, CSRs and public keys also start with `MII`/`MIG`/`M[A-H]` but
  not with that structure.
- Git SHAs, hashes, lockfile `integrity`/`resolved` lines, UUIDs, ULIDs, note ids,
  public keys, certificates and base64 images match no rule. Shapes that are secret
  only in context need it: Heroku UUIDs and Datadog hex keys must be assigned to a
  heroku/datadog (`DD_`) key name; Twilio `SK`/`AC` + 32 hex need twilio, sid, auth,
  token, key or secret within CONTEXT_CHARS; Mailgun and legacy Vault `s.` tokens need
  their service named. Discord bot tokens need no context: their first part must
  base64-decode to a 17-20 digit user id.
- Stripe `pk_` publishable keys are not secrets; `sk_`/`rk_` live and test keys are.
"""

from __future__ import annotations

import binascii
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from itertools import accumulate, compress
from operator import add, eq, itemgetter, methodcaller, or_
from typing import Any, NamedTuple, overload

from jacked_vault.errors import VaultError
from jacked_vault.safety._prefilters import PREFILTERS
from jacked_vault.safety.text import compiled

CONTEXT_CHARS = 512  # how far from a match a rule's context word may be
DECODE_ROUNDS = 3  # escape + percent decoding passes (double-encoded `%253D` needs two)
# A pattern a plain note's scan never runs is kept as text and compiled on first use
# (`safety.text.compiled`): the 20 of them cost ~2 ms to compile at every import.

# --- views -------------------------------------------------------------------------------

# Unicode category Cf (format characters), as of Unicode 14 (Python 3.11); a test checks
# every Cf code point of the running Python.
_CF_BMP = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u180e\u200b-\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
)
_CF_ASTRAL = (
    "\U000110bd\U000110cd\U00013430-\U00013438\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
)
_FORMAT = f"[{_CF_BMP}{_CF_ASTRAL}]"
# "May hold one": 3x faster to search for than `_FORMAT` (one range beyond the BMP).
_MAYBE_FORMAT = re.compile(f"[{_CF_BMP}\U00010000-\U0010ffff]")
# Two-character escapes, undone with str.replace (a view need not be exact: `\\\n` may
# end up a line break, as the next round would make it anyway). `\` + line break is a
# shell line continuation: the break stays, for the joined view.
_ESCAPES = (
    ("\\n", "\n"),
    ("\\t", "\t"),
    ("\\r", "\r"),
    ('\\"', '"'),
    ("\\'", "'"),
    ("\\/", "/"),
    ("\\\n", "\n"),
    ("\\\\", "\\"),
)
_CODE_ESCAPE = (
    r"\\(?:u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})"  # surrogate pair
    r"|u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2}))"
)
_PERCENT = r"%[0-9A-Fa-f]{2}(?:%[0-9A-Fa-f]{2})*"
# What decodes to a `%` or a backslash: only then can a round leave work for the next.
_NESTED = ("%25", "%5c", "%5C", "\\\\", "\\u0025", "\\u005", "\\x25", "\\x5")
# A line break inside a token. Only the decoded text's breaks that may split one are joined
# ("joints"), and only in windows of whole lines (`_rejoined`):
# - a break between two runs of token characters (`_T`) that make at least SPLIT_TOKEN
#   together, each at least one, with the next line's indentation, so wrapped prose and lines
#   of code are rarely joined;
# - both breaks around a line that is one short run (fewer than SPLIT_TOKEN - 1 characters)
#   when its run and those it touches make SPLIT_TOKEN: a token split over three lines whose
#   middle part is too short for either break alone;
# - quoted halves (`"abc" +\n "def"`, `'abc'\n 'def'`, `"abc"\n + "def"`: `_JOIN_QUOTED`,
#   tried only when a line ends in a quote or a `+`), the quotes and `+` removed too;
# - every break of 4 to MAX_SPLIT_LINES lines that are each one short run, making SPLIT_TOKEN
#   together and holding a digit (`_SHORT_LINES`): a token cut into many short lines (one cut
#   up inside a longer list of short lines is not found).
SPLIT_TOKEN = 20  # the shortest token shape: an AWS access key id
MAX_SPLIT_LINES = 64  # a longer series of short lines is a list of words, not one token cut up
_T_CHARS = r"\w+/=.:-"
_T = f"[{_T_CHARS}]"
_RUNS_ONLY = f"[\n{_T_CHARS}]*"  # lines that are each one run (or empty): no blanks, nothing else
# The blanks and token run each line starts with, its blanks; on the reversed text, the run each
# line ends with (each found at every line start, so once per line; SPLIT_TOKEN is as long as a
# run need be).
_LINE_HEAD = rf"(?m)^[ \t]*+{_T}{{0,{SPLIT_TOKEN}}}"
_LINE_BLANKS = r"(?m)^[ \t]*"
_LINE_TAIL = rf"(?m)^{_T}{{0,{SPLIT_TOKEN}}}"
_RUN_AFTER_BREAK = rf"\n[ \t]*{_T}"  # a line after a break that starts with a run (after its blanks)
_JOINT_RUN = re.compile(rb"\x01+")  # joints on consecutive lines, in the per-break flags
# A series of 4 or more lines that are each one short run (a token cut into many short lines,
# `_SHORT_LINES`): every break inside is a joint when the runs make SPLIT_TOKEN together.
_SHORT_LINES = rf"(?m)^(?:[ \t]*+{_T}{{1,{SPLIT_TOKEN - 1}}}\n){{3,}}[ \t]*+{_T}{{1,{SPLIT_TOKEN - 1}}}$"
_DIGIT = r"[0-9]"
_QUOTED_BREAK = r"""(?:[ \t]*\+)?{}[ \t]*\+?[ \t]*["'`]"""
_QUOTED_JOINT = _QUOTED_BREAK.format(r"(\n)")  # after a quote; the break in a group
_JOIN_QUOTED = f"[\"'`]{_QUOTED_JOINT}"
_QUOTED_CUT = "[\"'`]" + _QUOTED_BREAK.format(r"\n")  # the same, no group: what a series of them is split at
_QUOTED_LINE_ENDS = ('"\n', "'\n", "`\n", "+\n")


def _indented(lines: str) -> bool:
    """A line of `lines` starts with a blank (told at once when there is none)."""
    return (" " in lines or "\t" in lines) and (lines.startswith((" ", "\t")) or "\n " in lines or "\n\t" in lines)


def _quoted_ends(lines: str) -> bool:
    """A line of `lines` ends with a quote or `+`, and a quote is in it: a quoted joint
    (`_JOIN_QUOTED`) may be (told at once when no quote is)."""
    return ('"' in lines or "'" in lines or "`" in lines) and any(end in lines for end in _QUOTED_LINE_ENDS)


def _runs_only(lines: str) -> bool:
    """Each line of `lines` is one run of token characters, or empty (`_RUNS_ONLY`); an ASCII text
    told by deleting those characters and its line breaks (`_ascii_runs`)."""
    if lines.isascii():
        return not lines.encode().translate(None, _ascii_runs())
    return compiled(_RUNS_ONLY).fullmatch(lines) is not None


@cache
def _ascii_runs() -> bytes:
    """The ASCII characters of `_RUNS_ONLY`'s class (`_T`'s and the line break), made on first use
    (not at import: the scan's module is on every command's path)."""
    return bytes(code for code in range(128) if compiled(_RUNS_ONLY).fullmatch(chr(code)))


def _code_point(match: re.Match[str]) -> str:
    high, low, code, byte = match.groups()
    if high:
        return chr(0x10000 + ((int(high, 16) - 0xD800) << 10) + int(low, 16) - 0xDC00)
    return chr(int(code or byte, 16))


def _unescape(text: str) -> str:
    """JSON/shell escapes undone: `\\n \\t \\r \\" \\' \\/ \\\\`, `\\uXXXX`, `\\xNN`."""
    if "\\" not in text:
        return text
    for escape, char in _ESCAPES:
        text = text.replace(escape, char)
    return compiled(_CODE_ESCAPE).sub(_code_point, text) if "\\u" in text or "\\x" in text else text


def _unpercent_one(match: re.Match[str]) -> str:
    """A run of `%XX` as the UTF-8 text it encodes; kept as is if it is not UTF-8
    (`%DB_PASSWORD%` is a Windows variable)."""
    try:
        return bytes.fromhex(match.group().replace("%", "")).decode("utf-8")
    except UnicodeDecodeError:
        return match.group()


def _decoded(text: str) -> str:
    """`text` with escapes and percent-encoding undone (bounded) and format chars removed."""
    for _ in range(DECODE_ROUNDS):
        decoded = _unescape(text)
        if "%" in decoded:
            decoded = compiled(_PERCENT).sub(_unpercent_one, decoded)
        nested = any(marker in text for marker in _NESTED)
        text = decoded
        if not nested:
            break
    return text if text.isascii() else compiled(_FORMAT).sub("", text)


class _Joints(NamedTuple):
    """`_joints`: the spans of some lines whose removal joins a line to the next where a token may
    be split, in order (at most one per line break); each series of them on consecutive lines as
    (first, last) indices in those spans; the line break in each span (None: each span is its
    break); what the lines of a series split at are its pieces (`_pieces`), if one pattern tells:
    `\n` when each span is its break or a quote, a break and a quote (`trim`: 1, the characters
    around the break it also removes), `_QUOTED_CUT` when each is a quoted one (`_JOIN_QUOTED`)."""

    spans: Sequence[tuple[int, int]]
    series: list[tuple[int, int]]
    breaks: list[int] | None
    cut: str | None
    trim: int


def _joints(lines: str) -> _Joints:
    """The joints of `lines` (`_Joints`). One pass over the lines' ends (`_LINE_HEAD`, `_LINE_TAIL`:
    a line that is one run after its blanks ends with that run, so the tails are read only when
    some line is not; none when no line after a break starts with a run, `_RUN_AFTER_BREAK`; their
    lengths alone when every line is one run, `_RUNS_ONLY`), then arithmetic on their lengths;
    `_SHORT_LINES` and `_JOIN_QUOTED` add theirs."""
    sizes = list(map(len, lines.split("\n")))
    starts = list(accumulate(map((1).__add__, sizes)))  # where each line after a break starts
    indented = _indented(lines)
    blanks = list(map(len, compiled(_LINE_BLANKS).findall(lines))) if indented else [0] * len(sizes)
    flags = bytearray(len(sizes) - 1)  # 1 for each break that is a joint
    if compiled(_RUN_AFTER_BREAK).search(lines):  # else no break joins runs (quoted lines)
        runs_only = not indented and _runs_only(lines)
        if runs_only:  # each line starts and ends with its run of up to SPLIT_TOKEN, without a regex
            heads = [size if size < SPLIT_TOKEN else SPLIT_TOKEN for size in sizes]
        else:
            heads = list(map(len, compiled(_LINE_HEAD).findall(lines)))  # blanks and run
        runs = [head - blank for head, blank in zip(heads, blanks, strict=True)] if indented else heads
        whole_runs = bytes(map(eq, heads, sizes))  # 1 for a line that is its blanks and one run (of 20 at most)
        if runs_only or 0 not in whole_runs:  # every line ends with its run
            ends = runs
        else:  # the run each line ends with, from the reversed text
            ends = list(map(len, compiled(_LINE_TAIL).findall(lines[::-1])))
            ends.reverse()
        flags = _run_joints(runs, ends, whole_runs)
        for first, breaks in _short_lines(lines, whole_runs, runs, starts):
            flags[first : first + breaks] = b"\x01" * breaks
    quoted_at: list[int] = []  # the breaks of the quoted joints
    quoted_spans: Sequence[tuple[int, int]] = []
    quoted_flags = bytearray()
    narrow = False  # every quoted joint a quote, a break and a quote
    if _quoted_ends(lines):
        quoted_at, quoted_spans, quoted_flags, narrow = _quoted_joints(lines, sizes, starts, indented)
        if quoted_at:
            flags = bytearray(map(or_, flags, quoted_flags)) if 1 in flags else quoted_flags
    every_quoted = bool(quoted_at) and flags == quoted_flags
    spans: Sequence[tuple[int, int]]
    if every_quoted:
        spans = quoted_spans
    elif quoted_at:
        quoted = dict(zip(quoted_at, quoted_spans, strict=True))
        after = compress(zip(starts, blanks[1:], strict=False), flags)  # per joint: the next line's start, blanks
        spans = [quoted.get(start - 1) or (start - 1, start + blank) for start, blank in after]
    elif indented:
        spans = [(start - 1, start + blank) for start, blank in compress(zip(starts, blanks[1:], strict=False), flags)]
    else:
        spans = _BreakSpans(list(map((-1).__add__, compress(starts, flags))))
    series, count = [], 0
    for run in _JOINT_RUN.finditer(flags):
        series.append((count, count + run.end() - run.start() - 1))
        count += run.end() - run.start()
    if every_quoted:
        where: list[int] | None = quoted_at
    else:
        where = list(map((-1).__add__, compress(starts, flags))) if quoted_at or indented else None
    if where is None:  # each joint its break alone
        return _Joints(spans, series, None, "\n", 0)
    if every_quoted and narrow:  # each a quote, a break and a quote
        return _Joints(spans, series, where, "\n", 1)
    return _Joints(spans, series, where, _QUOTED_CUT if every_quoted else None, 0)


class _BreakSpans(Sequence[tuple[int, int]]):
    """The spans of joints that each remove their line break and `trim` characters either side of
    it, `(break - trim, break + 1 + trim)`, each made when it is read: the windows read a few (a
    series' ends), and a list of them all costs more than that."""

    def __init__(self, breaks: list[int], trim: int = 0) -> None:
        self._breaks = breaks
        self._trim = trim

    def __len__(self) -> int:
        return len(self._breaks)

    @overload
    def __getitem__(self, index: int) -> tuple[int, int]: ...

    @overload
    def __getitem__(self, index: slice) -> list[tuple[int, int]]: ...

    def __getitem__(self, index: int | slice) -> tuple[int, int] | list[tuple[int, int]]:
        trim = self._trim
        if isinstance(index, slice):
            return [(brk - trim, brk + 1 + trim) for brk in self._breaks[index]]
        brk = self._breaks[index]
        return brk - trim, brk + 1 + trim


def _quoted_joints(
    lines: str, sizes: list[int], starts: list[int], indented: bool
) -> tuple[list[int], Sequence[tuple[int, int]], bytearray, bool]:
    """The quoted joints of `lines` (`_JOIN_QUOTED`): their breaks and spans, in order, 1 for each
    line break that is one (of `_joints`' lines: `sizes` their lengths, `starts` where each after a
    break starts), and whether each is a quote, a break and a quote. When each may only be that (an
    ASCII text without `+` beside a break, a blank after one or a line of one character, which two
    of them could share), told from the characters around the breaks, without a regex."""
    breaks = list(map((-1).__add__, starts[:-1]))
    simple = len(breaks) > 1 and lines.isascii() and not indented and 1 not in sizes
    if simple and ("+" not in lines or ("+\n" not in lines and "\n+" not in lines)):
        data = b"\n" + lines.encode() + b"\n"  # a break's characters around it at `break` and `break + 2`
        around = itemgetter(*breaks)
        flags = bytearray(_all(bytes(around(data)).translate(_QUOTE), bytes(around(data[2:])).translate(_QUOTE)))
        at = list(compress(breaks, flags))
        return at, _BreakSpans(at, 1), flags, True
    quoted = {match.start(1): match.span() for match in compiled(_JOIN_QUOTED).finditer(lines)}
    if len(quoted) == len(breaks):  # every break
        flags = bytearray(b"\x01" * len(breaks))
    else:
        flags = bytearray(map(quoted.__contains__, breaks))
    return list(quoted), list(quoted.values()), flags, False


_QUOTE = bytes(34) + b"\x01" + bytes(4) + b"\x01" + bytes(56) + b"\x01" + bytes(159)  # `"`, `'` and a backtick to 1


def _run_joints(runs: list[int], ends: list[int], whole_runs: bytes) -> bytearray:
    """1 for every line break that joins two runs (of `_joints`' lines: `runs` the runs they start
    with after their blanks, `ends` the runs they end with, each SPLIT_TOKEN at most, `whole_runs` 1
    for each that is its blanks and one run): the runs before and after it make SPLIT_TOKEN, also
    through a short middle line (`_run_sum` and `_all`: a byte per break, no Python step each)."""
    n = len(runs) - 1  # the breaks: line `i` to line `i + 1`
    end, run, run1 = bytes(ends[:n]), bytes(runs[:n]), bytes(runs[1:])
    run2 = bytes(runs[2:]) + b"\x00"  # the line after next's: none after the last break
    end0 = b"\x00" + end[:-1]  # the line before's: none before the first break
    ran, ran1 = end.translate(_POSITIVE), run1.translate(_POSITIVE)
    two = _all(ran, ran1, _run_sum(end, run1))  # the runs before and after it
    if 0 not in two:  # every break joins the runs before and after it
        return bytearray(two)
    short1 = _all(run1.translate(_SHORT_RUN), whole_runs[1 : n + 1])  # the next line is one short run
    short = _all(run.translate(_SHORT_RUN), whole_runs[:n])  # this line is one short run
    through_next = _all(ran, run2.translate(_POSITIVE), short1, _run_sum(end, run1, run2))
    through_this = _all(end0.translate(_POSITIVE), ran1, short, _run_sum(end0, run, run1))
    return bytearray(_any(two, through_next, through_this))


# Byte tables for `_run_joints`: a run length to 1 or 0.
_POSITIVE = b"\x00" + b"\x01" * 255
_SHORT_RUN = b"\x00" + b"\x01" * (SPLIT_TOKEN - 2) + bytes(257 - SPLIT_TOKEN)  # a middle line's run, too short alone
_LONG_ENOUGH = bytes(SPLIT_TOKEN) + b"\x01" * (256 - SPLIT_TOKEN)


def _run_sum(*lengths: bytes) -> bytes:
    """1 where the run lengths (bytes of SPLIT_TOKEN at most, so their sum never carries into the
    next byte) at the same place make SPLIT_TOKEN together, else 0: added as big integers."""
    total = sum(int.from_bytes(each, "big") for each in lengths)
    return total.to_bytes(len(lengths[0]), "big").translate(_LONG_ENOUGH)


def _all(*flags: bytes) -> bytes:
    """1 where every one of `flags` (bytes of 0 and 1, of one length) is 1."""
    total = int.from_bytes(flags[0], "big")
    for each in flags[1:]:
        total &= int.from_bytes(each, "big")
    return total.to_bytes(len(flags[0]), "big")


def _any(*flags: bytes) -> bytes:
    """1 where one of `flags` (bytes of 0 and 1, of one length) is 1."""
    total = int.from_bytes(flags[0], "big")
    for each in flags[1:]:
        total |= int.from_bytes(each, "big")
    return total.to_bytes(len(flags[0]), "big")


def _short_lines(lines: str, whole_runs: bytes, runs: list[int], starts: list[int]) -> Iterator[tuple[int, int]]:
    """(first break, breaks) of every series of 4 to MAX_SPLIT_LINES lines that are each one short
    run, making SPLIT_TOKEN together and holding a digit (`_SHORT_LINES`). Such a series lies in a
    stretch of 4 or more lines that are each their blanks and one run (`whole_runs`); a stretch of
    more than MAX_SPLIT_LINES lines whose runs are all short is one series too long, and is not
    read, nor is one without a short run."""
    for stretch in _WHOLE_STRETCH.finditer(whole_runs):
        first, last = stretch.start(), stretch.end() - 1  # lines
        shortest = min(runs[first : last + 1])
        if shortest >= SPLIT_TOKEN or (
            last - first >= MAX_SPLIT_LINES and shortest > 0 and max(runs[first : last + 1]) < SPLIT_TOKEN
        ):  # no line short enough, or every line short and too many
            continue
        offset = starts[first - 1] if first else 0
        end = starts[last] - 1  # the end of line `last`
        for match in compiled(_SHORT_LINES).finditer(lines, offset, end):
            block = match.group()
            breaks = block.count("\n")
            if (
                breaks < MAX_SPLIT_LINES
                and len(block) - breaks - block.count(" ") - block.count("\t") >= SPLIT_TOKEN
                and compiled(_DIGIT).search(block)  # every token shape holds digits; a list of words does not
            ):
                yield first + lines.count("\n", offset, match.start()), breaks  # its first line's break


_WHOLE_STRETCH = re.compile(rb"\x01{4,}")  # 4 or more lines on end that are each their blanks and one run


def _pieces(
    lines: str, joints: Sequence[tuple[int, int]], first: int, last: int, cut: str | None = None, trim: int = 0
) -> list[str]:
    """The whole lines around joints `first` to `last` (consecutive lines), each without what
    those joints remove: joined, their window. `cut`: a pattern every joint of `lines` is a match
    of, and nothing else is (the pieces are those lines split at it); with `\n`, `trim`: the
    characters each joint also removes around its break."""
    start = lines.rfind("\n", 0, joints[first][0]) + 1
    end = lines.find("\n", joints[last][1])
    text = lines[start : end if end >= 0 else len(lines)]
    if cut == "\n":
        pieces = text.split("\n")
        if trim:
            pieces[1:-1] = [piece[trim:-trim] for piece in pieces[1:-1]]
            pieces[0], pieces[-1] = pieces[0][:-trim], pieces[-1][trim:]
        return pieces
    if cut is not None:
        pieces = compiled(cut).split(text)
        if len(pieces) == last - first + 2:
            return pieces
    between = zip(joints[first:last], joints[first + 1 : last + 1], strict=True)
    return [
        lines[start : joints[first][0]],
        *[lines[after:before] for (_, after), (before, _) in between],
        lines[joints[last][1] : end if end >= 0 else len(lines)],
    ]


def _cut(
    lines: str, joints: Sequence[tuple[int, int]], first: int, last: int, whole: str
) -> dict[tuple[int, int], str]:
    """The windows of the series of joints `first` to `last` without its first line, its last line
    or both, cut from `whole` (its window): what the first joint removed from the start of the
    line after it and the last joint from the end of the line before it put back."""
    (start, end), (last_start, last_end) = joints[first], joints[last]
    head = start - lines.rfind("\n", 0, start) - 1  # the first line, up to its joint
    line_end = lines.find("\n", last_end)
    tail = len(whole) - ((line_end if line_end >= 0 else len(lines)) - last_end)  # up to the last joint
    lead = lines[lines.index("\n", start) + 1 : end]
    trail = lines[last_start : lines.index("\n", last_start)]
    return {
        (first + 1, last): lead + whole[head:],
        (first, last - 1): whole[:tail] + trail,
        (first + 1, last - 1): lead + whole[head:tail] + trail,
    }


def _groups(series: list[tuple[int, int]]) -> Iterator[list[tuple[int, int]]]:
    """`series` in groups of consecutive ones with _CHUNK joints together at most, or one longer."""
    group: list[tuple[int, int]] = []
    count = 0
    for first, last in series:
        if group and count + last - first + 1 > _CHUNK:
            yield group
            group, count = [], 0
        group.append((first, last))
        count += last - first + 1
    if group:
        yield group


def _rejoined(
    lines: str, rules: frozenset[int] | None = None, found: set[str] | None = None
) -> tuple[str, Iterator[tuple[str, frozenset[int]]]] | None:
    """Windows of `lines` (trimmed: `_TRAILING_BLANKS` removed) with split tokens joined, each
    on lines of its own between lines holding a NUL (no rule reads across one, so no match spans
    two windows); None if no line break may split a token. For each series of joints on
    consecutive lines: every 2 and 3 lines around them joined (a token split in two or three,
    whatever the lines before and after hold: a word there would be glued to it), and the whole
    series joined, also without its first line, its last line or both (a longer token).

    Only the windows in which one of `rules` (default: every token rule) may match are built:
    none in a group of series `_may_join` rules out; in the others, the whole series, then the 2
    and 3 lines around the joints of each stretch of it where a match may start (`_may_start`),
    then its windows without its ends. Returned: every whole series joined, one a line (it holds
    every word of every window: the context words), and the windows in batches (`_batches`), built
    as they are read; with `found`, only where a rule of a kind not in it may match."""
    joined = _joints(lines)
    joints = joined.spans
    if not joints:
        return None
    rules = _TOKEN_RULES if rules is None else rules
    built: list[tuple[int, int, list[str], str, bool]] = []
    for group in _groups(joined.series):
        start = lines.rfind("\n", 0, joints[group[0][0]][0]) + 1
        end = lines.find("\n", joints[group[-1][1]][1])
        # one series alone is told apart by `_may_start`
        hit = len(group) == 1 or bool(_may_join(lines[start : end if end >= 0 else len(lines)], rules))
        for first, last in group:
            pieces = _pieces(lines, joints, first, last, joined.cut, joined.trim)
            built.append((first, last, pieces, "".join(pieces), hit))
    return "\n".join(whole for _, _, _, whole, _ in built), _batches(lines, joined, built, rules, found)


def _batches(
    lines: str,
    joined: _Joints,
    built: list[tuple[int, int, list[str], str, bool]],
    rules: frozenset[int],
    found: set[str] | None,
) -> Iterator[tuple[str, frozenset[int]]]:
    """The windows `_rejoined` builds, in batches, each with the rules that may match in it: each
    whole series a match may be in first (in batches of at least `_BATCH` characters, doubling from
    one of several windows to the next), then in each, stretch by stretch of joints (`_STRETCH`,
    doubling while a rule may match in each), the 2 and 3 lines around every joint of a stretch
    (`_stretch_windows`) where a rule's `core` matches in the stretch joined (`_may_start`), then
    its cut ends. With `found` (the kinds its reader has found, growing between batches), only
    rules of a kind not yet found are looked for: a window only another one may match in could only
    add a kind found; a stretch's windows are read only by the rules that may match in them, each
    window of a stretch once when the series' lines repeat (then its windows may: hashing them all
    costs more than reading a few twice otherwise). A series of one joint is its whole window."""
    windows: list[str] = []
    size, batch = 0, _BATCH

    def add(window: str) -> Iterator[tuple[str, frozenset[int]]]:
        nonlocal size, batch, windows
        windows.append(window)
        size += len(window)
        if size >= batch:
            yield _WINDOW_SEPARATOR.join(windows), rules
            batch *= 2 if len(windows) > 1 else 1  # a long whole series alone leaves it
            windows, size = [], 0

    def live() -> frozenset[int]:
        """The rules of a kind not yet found."""
        return rules if found is None else frozenset(i for i in rules if _RULES[i].kind not in found)

    for _, _, _, whole, hit in built:
        if hit:
            yield from add(whole)
    if windows:
        yield _WINDOW_SEPARATOR.join(windows), rules
    joints = joined.spans
    for first, last, pieces, whole, hit in built:
        if not hit or first == last:  # a series of one joint is its window, read first
            continue
        data = whole.encode("utf-8", "surrogatepass")
        texts = {False: data, True: data.lower()}
        sizes = map(len, pieces if len(data) == len(whole) else (p.encode("utf-8", "surrogatepass") for p in pieces))
        ends = [0, *accumulate(sizes)]  # where each piece starts in `data`, and the end
        hit_rules = {i for i in live() if _may_start(i, pieces, texts, ends, 0, len(pieces))}
        if not hit_rules:
            continue
        sample = pieces[:_SAMPLE]
        repeats = len(set(sample)) * 4 < len(sample) * 3  # a quarter of its lines repeat: so may its windows
        at, stretch = first, _STRETCH
        while at <= last:
            stop = min(at + stretch, last + 1)  # joints `at` to `stop - 1`; their windows read pieces to `stop + 1`
            now = hit_rules & live()
            if not now:  # every kind this series may hold is found: the next series
                break
            lo, hi = at - first, min(stop + 2 - first, len(pieces))  # the pieces its windows read
            may = frozenset(i for i in now if _may_start(i, pieces, texts, ends, lo, hi))
            if may:
                fresh = _stretch_windows(lines, joined, pieces, first, at - first, stop - first)
                yield _WINDOW_SEPARATOR.join(dict.fromkeys(fresh) if repeats else fresh), may  # each once if repeating
                at, stretch = stop, stretch * 2  # matches may start on many lines: longer stretches
            else:
                at, stretch = stop, _STRETCH
        if last - first >= 2 and hit_rules & live():  # a match in them starts where one in the whole series may
            cuts = _cut(lines, joints, first, last, whole).values()
            yield _WINDOW_SEPARATOR.join(cuts), frozenset(hit_rules) & live()


def _may_start(index: int, pieces: list[str], texts: dict[bool, bytes], ends: list[int], lo: int, hi: int) -> bool:
    """Rule `index` may match in a window of pieces `lo` to `hi - 1` of a series (`_pieces`;
    `texts`: the series joined as bytes, and lowercased; `ends`: where each piece starts in them):
    its `core` matches in those pieces joined; the base64 key body's only at an `M` whose run
    may be a private key's (`_key_body_in`)."""
    if index == _KEY_BODY_AT:
        return _key_body_in("\x00".join(pieces[lo:hi]))
    rule = _RULES[index]
    return rule.core.search(texts[rule.fold], ends[lo], ends[hi]) is not None


def _stretch_windows(lines: str, joined: _Joints, pieces: list[str], first: int, a: int, b: int) -> list[str]:
    """The windows of joints `a` to `b - 1` of a series (counted from its first, `first` in
    `joined`: the text's `_Joints`; `pieces`: `_pieces` of the series): the 2 lines around
    each joint and the 3 lines around it and the next, built from the pieces over all of them at
    once. A piece is its line but for what the joints around it remove: the blanks and quote the
    line starts with (its lead), the quote it ends with (its trail); a window's first line keeps
    its lead (`heads`: from the break before it), its last line its trail (`tails`: to the break
    after it), each one slice of `lines`."""
    middles = pieces[a + 1 : b + 2]  # pieces `a + 1` to `b + 1`
    joints, breaks = joined.spans, joined.breaks
    if breaks is None:  # each joint removes its break only: a piece is its line
        heads, tails = pieces[a:b], middles
    else:
        last = len(pieces) - 2  # the series' last joint
        lo = max(a, 1)  # the series' first line is whole in its first piece
        hi = min(b + 1, last)  # the last piece with a trail
        if joined.cut == "\n":  # each joint its break and `trim` characters either side
            trim, top = joined.trim, min(lo, a + 1)  # lines `top` to `max(b - 1, hi)`, split at once
            whole_lines = lines[breaks[first + top - 1] + 1 : breaks[first + max(b - 1, hi)]].split("\n")
            heads = [line[:-trim] for line in whole_lines[lo - top : b - top]]
            tails = [line[trim:] for line in whole_lines[a + 1 - top : hi + 1 - top]]
        else:
            spans_before = zip(breaks[first + lo - 1 : first + b - 1], joints[first + lo : first + b], strict=True)
            heads = [lines[brk + 1 : start] for brk, (start, _) in spans_before]  # pieces `lo` to `b - 1` and leads
            spans_after = zip(joints[first + a : first + hi], breaks[first + a + 1 : first + hi + 1], strict=True)
            tails = [lines[end:brk] for (_, end), brk in spans_after]  # pieces `a + 1` to `hi` and trails
        if a == 0:
            heads.insert(0, pieces[0])
        if b + 1 > last:
            tails.append(pieces[-1])  # the series' last line is whole in its last piece
    return [*map(add, heads, tails), *map(add, map(add, heads, middles), tails[1:])]


_WINDOW_SEPARATOR = "\n\x00\n"
_CHUNK = 32  # joints of the series `_rejoined` tells apart together (`_groups`)
_BATCH = 4096  # characters of whole series in the first batch `_batches` yields
_STRETCH = 32  # joints whose windows `_batches` builds together, doubling while each holds a start
_SAMPLE = 512  # lines of a series `_batches` looks at to tell if its windows may repeat
_BLANK_LINE_ENDS = (" \n", "\t\n", "\r\n")
_TRAILING_BLANKS = r"(?m)(?<![ \t\r])[ \t\r]+$"
# Every line break a window may join, with what a joint removes around it (`_joints`: the next
# line's blanks; the quotes and `+` between quoted halves).
# One character class first: `re` skips to the next quote or break at once.
_BREAK = re.compile(f"[\\n\"'`](?:(?<=\\n)[ \\t]*|(?<=[\"'`]){_QUOTED_JOINT})")
# An `M` that starts a run of 64 base64 characters when line breaks (here NUL) are skipped,
# whose first characters may pass `_der_private_key` (what base64 makes of its DER: SEQUENCE with
# a short length, then 02 or 30; with 0x81 and a length >= 0x80, then 02 or 30 in the fourth
# byte; with 0x82, in the fifth), so a line of random characters after an `M` is seldom read on.
_B64 = r"\x00*[A-Za-z0-9+/]"
_KEY_BODY_RUN = (
    r"M(?<![A-Za-z0-9+/]M)"
    + r"(?=\x00*(?:[A-H]\x00*[AEIMQUYcgkosw048]\x00*[Cw]"  # 30 LL (02|30)
    + rf"|I\x00*(?:[GH]{_B64}\x00*[AM]"  # 30 81 LL (02|30)
    + rf"|[I-L]{_B64}{_B64}\x00*[AQgwDTjz])))"  # 30 82 LL LL (02|30)
    + rf"(?=((?:{_B64}){{63}}))"
)


def _glued(lines: str, glue: str) -> str:
    """`lines` with every `_BREAK` replaced by `glue` (by `str.replace` when each is a bare `\\n`)."""
    if _indented(lines) or _quoted_ends(lines):
        return _BREAK.sub(glue, lines)
    return lines.replace("\n", glue)


def _may_join(lines: str, rules: frozenset[int] | None = None) -> frozenset[int]:
    """The token rules (indices in `_RULES`; of `rules` if given) that may match in the windows of
    `lines` (`_rejoined`), told without finding the joints; none: the windows need not be built. A
    window is a piece of `lines` with every line break in it joined, that is a piece of `lines`
    with all of them joined (`_BREAK` removed), but for the blanks, `+` and quote its first line
    starts with and the quote (and `+`) its last line ends with; no token rule's match starts with
    those or ends with a quote. So the RE2 set over the fully joined text hits every token rule
    that may match in a window (without `rules`, a gated one only with its context word in that
    text or in `lines`), but the base64 key body's (its prefilter hits any long run; there an `M`
    need not start one): that rule counts only for an `M` starting a run in `lines` with 63 base64
    characters after it across the breaks, whose first 32 pass its check."""
    if "\x00" in lines:
        return _TOKEN_RULES if rules is None else rules
    joined = _glued(lines, "").encode("utf-8", "surrogatepass")
    lower = joined.lower()
    if rules is None:
        rules = _TOKEN_RULES & _candidates(joined, lower)
        if any(_RULES[index].gated for index in rules):  # it runs only with a context word in the windows or text
            around = lower + b"\n" + lines.encode("utf-8", "surrogatepass").lower()
            rules = frozenset(
                index
                for index in rules
                if not _RULES[index].gated or any(word in around for word in _RULES[index].context)
            )
    hits = frozenset(index for index in rules if _RULES[index].core.search(lower if _RULES[index].fold else joined))
    if hits != {_KEY_BODY_AT}:
        return hits
    return hits if _key_body_in(_glued(lines, "\x00")) else frozenset()


def _key_body_in(marked: str) -> bool:
    """An `M` in `marked` (lines, each break a NUL) starts a run of 64 base64 characters across
    the breaks whose DER may be a private key's (`_KEY_BODY_RUN`, `_der_private_key`)."""
    return any(_der_private_key("M" + run.replace("\x00", "")) for run in compiled(_KEY_BODY_RUN).findall(marked))


@dataclass(frozen=True)
class _Source:
    """Where windows of joined lines come from: the decoded text and every whole series joined,
    lowercased as bytes once for every batch (their context: every word of the windows, whichever
    batch holds them), and the token rules that may match in a batch of them (`_may_join`, then
    `_may_start` for a stretch's: the engine's set need not read the windows)."""

    folded: bytes
    rules: frozenset[int]


def _views(text: str, found: set[str] | None = None) -> Iterator[tuple[str, _Source | None]]:
    """(view, context): `text`, then its decoded form when it differs, scanned by every rule
    (no context); then, when a line break may split a token that a token rule may find
    (`_may_join`), the decoded text's windows with split tokens joined (`_rejoined`), in batches,
    scanned for token shapes only, the context words some of them need looked up in the whole
    decoded text and series. With `found` (the kinds the views read so far hold), no batch is
    built once it holds every kind the windows' rules report: the kinds found are the same."""
    yield text, None
    decodable = "\\" in text or "%" in text or (not text.isascii() and _MAYBE_FORMAT.search(text))
    clean = _decoded(text) if decodable else text
    if clean != text:
        yield clean, None
    if "\n" in clean:
        trailing = (" " in clean or "\t" in clean or "\r" in clean) and (
            any(end in clean for end in _BLANK_LINE_ENDS) or clean.endswith((" ", "\t", "\r"))
        )
        lines = compiled(_TRAILING_BLANKS).sub("", clean) if trailing else clean
        rules = _may_join(lines)
        joined = _rejoined(lines, rules, found) if rules else None
        if joined is None:
            return
        series, batches = joined
        folded = (clean + "\n" + series).encode("utf-8", "surrogatepass").lower()
        kinds = {_RULES[index].kind for index in rules}
        for batch, batch_rules in batches:
            if found is not None and kinds <= found:
                return
            yield batch, _Source(folded, batch_rules)


# --- value checks ------------------------------------------------------------------------

_PLACEHOLDER_WORDS = [
    "example",
    "dummy",
    "fake",
    "sample",
    "placeholder",
    "redacted",
    "your",
    "changeme",
    "change_me",
    "replace_me",
]
_PLACEHOLDER = (  # compiled on first use (9 ms)
    r"^[$%{<\[(]|\*\*\*|\.\.\.|xxxx|XXXX"  # references and masks
    + rf"|^(?i:{'|'.join(_PLACEHOLDER_WORDS)})"  # starts with one: `your_password_here`
    + rf"|(?i:{'|'.join(_PLACEHOLDER_WORDS)})$"  # ends with one: AWS's `asdf34example`
    + r"|(?<![A-Za-z0-9])(?:"  # a separate word: `sk_example_1`, `my-DUMMY-key`
    + "|".join(f"{w}|{w.upper()}|{w.capitalize()}" for w in _PLACEHOLDER_WORDS)
    + r")(?![a-z])"
    + r"|EXAMPLE"  # AWS documentation keys: `AKIA…EXAMPLE`, `…EXAMPLEKEY`, `AQoEXAMPLEH4…`
)
_BARE_SECRET_WORDS = frozenset({"pass", "password", "passwd", "secret", "token"})
# An unquoted identifier path, optionally called or indexed: code, not a literal.
_CODE = r"(?a)[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?P<access>[(\[].*)?"
# An identifier containing a secret word (`NextToken`, `DB_PASSWORD`) names a secret; a
# value with another symbol (`S3cr3tPassw0rd!`) does not.
_SECRET_WORD = r"(?i)pass|secret|token|key|credential"
_IDENTIFIER = r"[\w.-]+"
# A value that is a URL, ARN, vault reference or path points at a secret elsewhere.
_REFERENCE = r"[A-Za-z][A-Za-z0-9+.-]*:|[/~.]"


def _has(value: str, test: Callable[[str], bool]) -> bool:
    return any(test(c) for c in value)


def _symbol(c: str) -> bool:
    """Not a letter, digit, space or a separator common in names (`_ - . +`)."""
    return not c.isalnum() and not c.isspace() and c not in "_-.+"


# What every match of `_PLACEHOLDER` in an ASCII value holds (lowercased) or starts with: most
# values are cleared with a few substring searches (a 64 KiB token would cost 9 ms in the regex).
_PLACEHOLDER_HINTS = ("***", "...", "xxxx", *_PLACEHOLDER_WORDS)
_PLACEHOLDER_STARTS = tuple("$%{<[(")


def _placeholder(value: str) -> bool:
    """`value` is (or holds, as its own word) a placeholder or a mask (`_PLACEHOLDER`)."""
    if "EXAMPLE" in value:  # the pattern's last branch: every AWS documentation key, without the regex
        return True
    if value.isascii() and not value.startswith(_PLACEHOLDER_STARTS):
        lower = value.lower()
        if not any(hint in lower for hint in _PLACEHOLDER_HINTS):
            return False
    return compiled(_PLACEHOLDER).search(value) is not None


def _real(value: str) -> bool:
    """Not a placeholder, a bare secret word or a mask of a few repeated characters."""
    return not _placeholder(value) and len(set(value)) >= 4 and value.lower() not in _BARE_SECRET_WORDS


def _varied(value: str) -> bool:
    """A generated value whatever words it spells (not a mask): 12 or more distinct characters."""
    return len(set(value)) >= 12


def _with_digit(value: str) -> bool:
    return _real(value) and _has(value, str.isdigit)


def _cased(value: str) -> bool:
    """Real and mixing upper and lower case, like a generated key (not a slug)."""
    return _real(value) and _has(value, str.isupper) and _has(value, str.islower)


def _generated(value: str) -> bool:
    """Real and mixing upper case, lower case and digits."""
    return _cased(value) and _has(value, str.isdigit)


def _credible(value: str) -> bool:
    """A password-like literal: >= 8 chars, no whitespace, letters mixed with digits
    or symbols (so not a word like `NextToken`)."""
    return (
        len(value) >= 8
        and _has(value, str.isalpha)
        and _has(value, lambda c: not c.isalpha() and c not in "_-.=\\" and not c.isspace())
        and not _has(value, str.isspace)
        and _real(value)
    )


def _strong(value: str) -> bool:
    """Credible and either holding a symbol or mixing upper case, lower case and digits
    (so not an email local part like `bob.smith99`)."""
    return _credible(value) and (_has(value, _symbol) or _generated(value))


def _unquoted(value: str) -> str | None:
    """An assigned value without its quotes; None when it is code (`os.environ[...]`,
    `get_token()`, `config.apiKey`)."""
    if value[0] in "\"'`":
        return value[1:-1]
    code = compiled(_CODE).fullmatch(value)
    return None if code and ("." in value or code["access"]) else value


def _literal(value: str) -> bool:
    """An assigned value (quotes included) is a credible literal, not code or a
    reference to a secret kept elsewhere."""
    value = _unquoted(value)  # type: ignore[assignment]
    if value is None:
        return False
    names_secret = compiled(_IDENTIFIER).fullmatch(value) and compiled(_SECRET_WORD).search(value)
    return _credible(value) and not names_secret and not compiled(_REFERENCE).match(value)


# A password word as its own part of a name: `DB_PASSWORD2`, `userPass1`, `old_passwd2`
# (not the `Passw` of a leet `Passw0rd`).
_PASSWORD_WORD = r"(?i)(?:pass(?:w(?:or)?d|phrase)?|pwd)(?![a-z])"
_NAME_SEPARATOR = r"[_.-]"


def _names_password(value: str) -> bool:
    """An identifier that names a password rather than being one: separated words with a
    secret or password word in them (`DB_PASSWORD2`, `vault_db_secret_v2`, `token_v2`), or a
    password word in a name that is not PascalCase (`userPass1`, `password1`,
    `generatedwebdavpassword1`). `Hunter2Secret`, `Monkey123`, `Password123` are literals."""
    if not compiled(_IDENTIFIER).fullmatch(value):
        return False
    if compiled(_NAME_SEPARATOR).search(value):
        return bool(compiled(_SECRET_WORD).search(value) or compiled(_PASSWORD_WORD).search(value))
    pascal = value[0].isupper() and _has(value, str.islower)
    return not pascal and bool(compiled(_PASSWORD_WORD).search(value))


def _password_literal(value: str) -> bool:
    """A value assigned to a password key (quotes included) is a credible literal, not code, a
    reference or a name of a password (`_names_password`)."""
    value = _unquoted(value)  # type: ignore[assignment]
    return (
        value is not None and _credible(value) and not _names_password(value) and not compiled(_REFERENCE).match(value)
    )


# Capitalised words, acronyms and numbers run together: a name or a term (`Base64Encoded`,
# `OAuth2`, `Http2Server`), not a password in prose; and a hyphenated adjective
# (`Argon2id-hashed`, `OAuth2-based`).
_CAMEL_WORDS = r"(?:[A-Z][a-z]+|[A-Z]+(?![a-z])|[0-9]+)+"
_COMPOUND = r".-[a-z]{3,}\Z"


def _prose_password(value: str) -> bool:
    """A password told in prose (`the db password is X`): stronger than an assignment's, as
    nothing but the words around says it is one: >= 8 characters with letters, digits and a
    symbol, or mixing upper case, lower case and digits other than as capitalised words and
    numbers (so `Tr0ub4dor3xyzQ`, `p@ssw0rd!`, not `hunter22`, `sha256-hashed`,
    `PBKDF2-SHA256`, `Base64Encoded`, `Argon2id-hashed`); not code or a reference."""
    if not _credible(value) or compiled(_REFERENCE).match(value) or compiled(_COMPOUND).search(value):
        return False
    code = compiled(_CODE).fullmatch(value)
    if code and ("." in value or code["access"]):
        return False
    if _has(value, str.isdigit) and _has(value, _symbol):
        return True
    return _generated(value) and not compiled(_CAMEL_WORDS).fullmatch(value)


def _user_password(value: str) -> bool:
    """`user:password` with a password-like password."""
    return _credible(value.partition(":")[2])


# A name starts a run (`(?<!...)`): a try from inside a run without `=` would rescan it (quadratic).
_COOKIE_PAIR = r"(?<![^\s=;])([^\s=;]+)=([^\s;]*)"


def _random(value: str) -> bool:
    """A long random value: >= 20 chars, >= 4 letters, >= 4 digits, >= 12 distinct."""
    return (
        len(value) >= 20
        and sum(c.isalpha() for c in value) >= 4
        and sum(c.isdigit() for c in value) >= 4
        and len(set(value)) >= 12
        and _real(value)
    )


def _cookie_secret(header: str) -> bool:
    """A `Cookie:`/`Set-Cookie:` header value holding a long random cookie value."""
    return any(_random(value) for _, value in compiled(_COOKIE_PAIR).findall(header))


def _discord_id(token: str) -> bool:
    """The first part of `token` is base64 of a 17-20 digit user id."""
    first = token.partition(".")[0]
    try:
        user_id = binascii.a2b_base64(first.replace("-", "+").replace("_", "/") + "==")
    except binascii.Error:
        return False
    return 17 <= len(user_id) <= 20 and user_id.isdigit()


def _der_content(der: bytes, at: int) -> int | None:
    """Offset of the content of the DER element at `at` (tag, then a 1-3 byte length)."""
    if at + 1 >= len(der):
        return None
    length = der[at + 1]
    if length < 0x80:
        return at + 2
    return at + 2 + (length & 0x7F) if length in (0x81, 0x82) else None


_SEQUENCE = b"\x30"
_VERSIONS = (b"\x02\x01\x00", b"\x02\x01\x01")  # INTEGER 0 or 1
_AFTER_VERSION = (_SEQUENCE, b"\x02", b"\x04")  # algorithm (PKCS#8), INTEGER, OCTET STRING
_PBE_OIDS = (bytes.fromhex("2a864886f70d0105"), bytes.fromhex("2a864886f70d010c01"))


def _der_private_key(block: str) -> bool:
    """The base64 `block` decodes to DER shaped like a private key: SEQUENCE { version 0/1,
    then an algorithm, an integer or an octet string } (PKCS#8, PKCS#1, DSA, SEC1 EC), or
    SEQUENCE { SEQUENCE { PBES/PKCS#12 algorithm } ... } (encrypted PKCS#8).
    Certificates, CSRs and public keys open with a SEQUENCE or a large INTEGER instead."""
    try:
        der = binascii.a2b_base64(block[:32])
    except binascii.Error:
        return False
    inner = _der_content(der, 0) if der[:1] == _SEQUENCE else None
    if inner is None:
        return False
    if der[inner : inner + 3] in _VERSIONS:
        return der[inner + 3 : inner + 4] in _AFTER_VERSION
    algorithm = _der_content(der, inner) if der[inner : inner + 1] == _SEQUENCE else None
    return (
        algorithm is not None
        and der[algorithm : algorithm + 1] == b"\x06"
        and der[algorithm + 2 :].startswith(_PBE_OIDS)
    )


# --- rules -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Rule:
    """One secret shape. `check` sees the named group `v` (or the whole match). The pattern is
    compiled on first use (a process that scans nothing does not pay for 53 compilations)."""

    kind: str
    regex: bytes
    check: Callable[[str], bool] | None
    context: tuple[bytes, ...]  # lowercase; one must occur within CONTEXT_CHARS
    gated: bool  # skip the rule unless a context word occurs somewhere in the text
    fold: bool  # match against the lowercased text (pattern written in lowercase)
    # Generic: a secret told by the key name or the syntax around it, not by its own
    # shape. Skipped where an earlier rule already matched, and on the joined view (where
    # glued lines of code would read as `key = value`).
    fallback: bool

    @cached_property
    def pattern(self) -> re.Pattern[bytes]:
        return re.compile(self.regex)

    @cached_property
    def prefilter(self) -> bytes:
        """The RE2 pattern of the engine's set (`_superset` of `regex`), read from the table made
        ahead (safety/_prefilters.py, `prefilter_source`) when it holds this rule's."""
        return PREFILTERS.get(self.regex) or _superset(self.regex)

    @cached_property
    def core(self) -> Any:
        """`regex` without its lookarounds but with its counts (`_superset` uncapped), compiled by
        RE2: it finds every match of the rule in any text that holds it (`_may_join`)."""
        import re2

        return re2.compile(_superset(self.regex, None), _re2_options())


COUNT_CAP = 8  # a prefilter's counts: enough to skip most rules, few enough DFA states
_LOOKAROUNDS = (b"(?=", b"(?!", b"(?<=", b"(?<!")
_QUANTIFIERS = b"*+?}"
_SPACE = rb"\t\n\x0b\f\r "  # Python's `\s` on bytes; RE2's lacks `\v`


def _superset(regex: bytes, cap: int | None = COUNT_CAP) -> bytes:
    """`regex` as an RE2 pattern that matches every string it matches: lookarounds dropped (each
    only narrows a match), possessive quantifiers made greedy, counts loosened (`{m,n}` as
    `{min(m, cap),}`: a DFA of a few states per loop, fast on any text; kept with no cap), `\\s`/`\\S`
    spelled out, `\\Z` as `\\z`. Every match of the rule is a match of this pattern
    (tests/e2e/test_secret_engine.py checks it)."""
    out = bytearray()
    at, in_class, quantified = 0, False, False
    while at < len(regex):
        char = regex[at : at + 1]
        if char == b"\\":
            escape = regex[at : at + 2]
            if escape == rb"\s":
                escape = _SPACE if in_class else b"[" + _SPACE + b"]"
            elif escape == rb"\S":
                escape = b"[^" + _SPACE + b"]"
            elif escape == rb"\Z":
                escape = rb"\z"
            out += escape
            at, quantified = at + 2, False
            continue
        if in_class:
            in_class = char != b"]" or regex[at - 1 : at] == b"["
            out += char
        elif regex.startswith(_LOOKAROUNDS, at):
            at = _group_end(regex, at)
            continue
        elif char == b"+" and quantified:  # possessive: `*+`, `}+`
            quantified = False
        elif char == b"{" and cap is not None:  # `{m,n}`, `{m}`: at least min(m, cap), as many as may come
            end = regex.index(b"}", at)
            least = min(int(regex[at + 1 : end].partition(b",")[0]), cap)
            out += b"{%d,}" % least if least else b"*"
            at, quantified = end + 1, True
            continue
        else:
            in_class = char == b"["
            if in_class and regex[at + 1 : at + 2] == b"^":  # `[^]...]`: the `^` is not the end
                out += b"[^"
                at += 2
                continue
            quantified = char in _QUANTIFIERS and regex[at - 1 : at] != b"(" and not quantified
            out += char
        at += 1
    return bytes(out)


def _group_end(regex: bytes, at: int) -> int:
    """The offset just after the group that opens at `at` (escapes and classes skipped)."""
    depth, in_class = 0, False
    while True:
        char = regex[at : at + 1]
        if char == b"\\":
            at += 2
            continue
        if in_class:
            in_class = char != b"]"
        elif char == b"[":
            in_class = True
            if regex[at + 1 : at + 2] == b"^":
                at += 1
        elif char == b"(":
            depth += 1
        elif char == b")":
            depth -= 1
            if depth == 0:
                return at + 1
        at += 1


def _rule(
    kind: str,
    regex: str,
    check: Callable[[str], bool] | None = _real,
    *,
    context: tuple[str, ...] = (),
    gated: bool = False,
    fold: bool = False,
    fallback: bool = False,
) -> _Rule:
    words = tuple(word.encode() for word in context)
    return _Rule(kind, regex.encode(), check, words, gated, fold, fallback)


def _after(literal: str, chars: str = "A-Za-z0-9") -> str:
    """`literal`, not glued to a preceding character from `chars`."""
    return f"{re.escape(literal)}(?<![{chars}]{re.escape(literal)})"


def _spaced(literal: str) -> str:
    """`literal` with any blanks and line breaks between its characters (a PEM header split
    over lines is found in every view, the joined words of `PRIVATE KEY` too)."""
    return r"\s*".join(map(re.escape, literal))


_E = r"(?![A-Za-z0-9])"  # right boundary
_E64 = r"(?![\w-])"  # right boundary for base64url
_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
# Closing quote (or bracket) of the key and the separator: = := ?= += => or a colon
# followed by a space or quote (YAML/JSON; not `arn:…:secret:name`).
_KEY_END = r"""["']?\]?[ \t]*(?:=>|[:?+]?=|:(?=[ \t"'`]))[ \t]*"""
_SEP = _KEY_END + r"""["']?"""  # ... and the value's opening quote, if any
# Assigned value: a quoted string (quotes kept) or a bare word, which ends before an
# escape (`\n`, `\"`: the text is a JSON dump, scanned decoded as well) and before a `&`
# that ends it in a shell (`&&`, `& `) or a query string (`&page=2`), not one inside (`x^&!Q`).
_VALUE = r"""(?:[bru]{1,2}(?=["'`]))?""" + (
    r"""(?P<v>"[^"\r\n]*"|'[^'\r\n]*'|`[^`\r\n]*`|(?:[^\s"'`,;&<)\]}\\]|&(?![&\s]|[\w.-]*=|$)|\\[^\s"'`nrtux\\/])+)"""
)
_KEY_QUALIFIERS = ["api", "access", "secret", "private", "signing", "encryption", "master", "auth"]
_PUBLIC_TOKENS = ["next", "page", "continuation", "pagination", "change", "lock", "client", "idempotency", "publickey"]
_WS = r"[ \t\r\n]+"
_MYSQL = r"m(?<![\w-]m)(?:ysql(?:dump|admin|import|check|slap)?|ariadb(?:-dump|-admin)?)(?![\w-])"
_REDIS = _after("redis-cli", r"\w-") + r"(?![\w-])"


def _until_next(start: str, char: str) -> str:
    """`char` unless a next `start` begins there: a scan from one start stops at the next (tried
    from there), so many starts on one long line cost its length, not its length squared."""
    return f"(?:(?!{start}){char})"


# `scheme:user@host` addresses that are not credentials.
_ADDRESS_SCHEMES = ["mailto", "sip", "sips", "xmpp", "acct", "from", "to", "cc", "bcc"]
# A host after `@`: dotted, bracketed (IPv6), localhost, or a name with a port.
_HOST = r"(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+|\[[0-9A-Fa-f:.]+\]|localhost|[A-Za-z0-9-]+(?=:\d))"


def _assignment(key: str, check: Callable[[str], bool] = _literal) -> _Rule:
    """`<…key> = value` in env/ini/YAML/JSON/code style, `key` ending the name."""
    return _rule(
        "password or secret assignment",
        key + r"s?(?![\w.-])" + _KEY_END + _VALUE,
        check,
        fold=True,
        fallback=True,
    )


# A password told in prose: `the db password is X`, `password for the staging db is now X`,
# `password was changed to X` (a verb is needed: `password X` alone is too often a term).
# The value (on the same line or the next) must hold a digit or a symbol
# (a quick necessary test, so a qualifier like `for the db` is tried word by word) and ends
# before blanks, quotes or trailing punctuation.
_PROSE_LINK = (
    r"(?:(?:[ \t]+(?:for|of|on|to)(?:[ \t]+[^\s\"'`:=]{1,40}){1,3}?)?[ \t]+"  # for the staging db
    r"(?:(?:is|was|are|were|remains|stays)(?:[ \t]+(?:now|still|currently|just|simply|actually))?"
    r"|(?:(?:is|was|are|were|has[ \t]+been|have[ \t]+been|got|been)[ \t]+)?"
    r"(?:set|changed|reset|updated|rotated)[ \t]+to)[ \t]*:?)"
)
_PROSE_VALUE = (
    r"""(?:[ \t]+|[ \t]*\n[ \t]*)["'`]?(?=[^\s"'`]*[^\s"'`a-z_.-])(?P<v>[^\s"'`]*?[^\s"'`.,;:)])"""
    r"""(?=[.,;:)]*(?:[\s"'`]|$))"""
)


_KEY_BODY = _rule(  # its prefilter hits any long base64 run: `_may_join` tells it apart
    "private key (base64 body)",  # DER SEQUENCE: "M" + a length, >= 64 characters
    r"M(?<![A-Za-z0-9+/]M)(?=[A-H]|I[G-L])[A-Za-z0-9+/]{63,}",
    _der_private_key,
)

# Specific shapes first; fallback rules last, so they only label what nothing else did.
_RULES: tuple[_Rule, ...] = (
    _rule(
        "AWS access key",
        _after("A") + r"(?P<v>(?:KIA|SIA|BIA|CCA)[A-Z0-9]{16})" + _E,
    ),
    _rule(
        "AWS secret access key",
        r"secret_?access_?key" + _SEP + r"(?P<v>[a-z0-9/+]{40})(?![a-z0-9/+=])",
        _varied,  # in the key's exact shape, words inside excuse nothing (AWS's doc example too)
        fold=True,
    ),
    _rule(
        "GitHub token",
        _after("g") + r"(?:h[pousr]_[A-Za-z0-9]{36,251}|ithub_pat_\w{36,251})" + _E,
    ),
    _rule(
        "GitLab token",
        _after("gl") + r"(?:pat|dt|rtr?|ptt|ft|soat|cbt|oas|imt|agent|ffct)-(?P<v>[\w.-]{20,})",
    ),
    _rule(
        "Slack token",
        _after("x") + r"(?:ox[abeoprs]|app)-(?P<v>[A-Za-z0-9-]{10,})",
        _with_digit,
    ),
    _rule(
        "Slack webhook URL",
        r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<v>T[A-Z0-9]{6,}/[\w/-]{16,})",
    ),
    _rule(
        "Stripe secret key",
        r"k_(?<=[sr]k_)(?<![A-Za-z0-9].k_)(?:live|test)_(?P<v>[A-Za-z0-9]{16,})" + _E,
    ),
    _rule("Anthropic API key", _after("sk-ant-") + r"(?P<v>[\w-]{32,})"),
    _rule(
        "OpenAI API key",
        _after("sk-") + r"(?!ant-)(?:proj-|svcacct-|admin-|None-)?(?P<v>[\w-]{20,})",
        _generated,
    ),
    _rule("Google API key", _after("AIza") + r"(?P<v>[\w-]{35})" + _E64),
    _rule(
        "GCP service-account key",
        r"""private_key(?<=["']private_key)["'][ \t]*:[ \t]*["'](?P<v>[^"'\n]{8,64})""",
        context=("service_account", "private_key_id"),
    ),
    _rule(
        "Azure storage account key",
        r"accountkey[ \t]*=[ \t]*(?P<v>[a-z0-9+/]{86}==)",
        fold=True,
    ),
    _rule("npm token", _after("npm_") + r"(?P<v>[A-Za-z0-9]{36})" + _E),
    _rule("PyPI token", r"pypi-(?:AgEIcHlwaS5vcmc|AgENdGVzdC5weXBpLm9yZw)(?P<v>[\w-]{50,})"),
    *(
        _rule(
            "Twilio API key",  # API key SID (SK) or account SID (AC), 32 lowercase hex
            _after(prefix) + r"(?P<v>[0-9a-f]{32})" + _E,
            context=("twilio", "sid", "auth", "token", "key", "secret"),
            gated=True,
        )
        for prefix in ("SK", "AC")  # one literal each: `re` skips ahead fastest
    ),
    _rule("SendGrid API key", _after("SG.") + r"(?P<v>[\w-]{22}\.[\w-]{43})" + _E64),
    # `[\w-]` boundary: inside a base64url run every "eyJ" would rescan the run.
    _rule("JSON Web Token", _after("eyJ", r"\w-") + r"(?P<v>[\w-]{8,}\.[\w-]{8,}\.[\w-]*)"),
    _rule("Hugging Face token", _after("hf_") + r"(?P<v>[A-Za-z0-9]{34,})" + _E, _cased),
    *(
        _rule(
            "Discord bot token",  # base64 of a 17-20 digit id, a dot, 6, a dot, 27-40
            _after(first, r"\w-") + r"[DTjz][\w-]{21,25}\.[\w-]{6}\.[\w-]{27,40}" + _E64,
            _discord_id,
        )
        for first in "MNO"  # base64 of a digit: M, N or O, then one of D T j z
    ),
    _rule(
        "Discord webhook URL",
        r"discord(?:app)?\.com/api/(?:v\d+/)?webhooks/\d+/(?P<v>[\w-]{30,})",
    ),
    _rule(
        "Telegram bot token",  # 8-10 digits, a colon, 35 characters
        r":(?<=\d{8}:)(?<!\d{11}:)(?P<v>[\w-]{35})" + _E64,
        _cased,
    ),
    _rule(
        "Heroku API key",
        r"heroku[\w .-]{0,24}?(?:key|token|secret|auth)"
        + _until_next("heroku", r"\w")
        + "*"
        + _SEP
        + f"(?P<v>{_UUID})(?![0-9a-z-])",
        None,
        context=("heroku",),
        fold=True,
    ),
    _rule("Heroku API key", _after("HRKU-AA") + r"(?P<v>[\w-]{58})" + _E64),
    _rule(
        "Datadog API key",
        r"d(?<![a-z0-9]d)(?:atadog|d)[\w .-]{0,24}?(?:key|token)"
        + _SEP
        + r"(?P<v>[0-9a-f]{40}|[0-9a-f]{32})(?![0-9a-z])",
        None,
        fold=True,
    ),
    _rule(
        "DigitalOcean token",
        r"_v1_(?<=do[opr]_v1_)(?<![A-Za-z0-9]do._v1_)(?P<v>[a-f0-9]{64})" + _E,
    ),
    _rule("Shopify token", _after("shp") + r"(?:at|ca|pa|ss)_(?P<v>[a-fA-F0-9]{32})" + _E),
    _rule(
        "Mailgun API key",
        _after("key-") + r"(?P<v>[0-9A-Za-z]{32})" + _E,
        context=("mailgun",),
        gated=True,
    ),
    _rule(
        "Mailgun API key",  # 32 hex, a dash, 8 hex, a dash, 8 hex
        r"-(?<=[0-9a-f]{32}-)(?<![A-Za-z0-9]{33}-)(?P<v>[0-9a-f]{8}-[0-9a-f]{8})" + _E,
        context=("mailgun",),
        gated=True,
    ),
    _rule("HashiCorp Vault token", _after("hv") + r"[sbr]\.(?P<v>[\w-]{24,})"),
    _rule(
        "HashiCorp Vault token",
        _after("s.", r"A-Za-z0-9.") + r"(?P<v>[A-Za-z0-9]{24})" + _E,
        _generated,
        context=("vault",),
        gated=True,
    ),
    _rule("age secret key", _after("AGE-SECRET-KEY-1") + r"[02-9AC-HJ-NP-Z]{58}" + _E, None),
    _rule(
        "private key (PEM header)",  # the header alone, blanks and line breaks anywhere in it
        _spaced("-----BEGIN")
        + r"[\sA-Z0-9]{0,48}?"
        + _spaced("PRIVATEKEY")
        + rf"(?:\s*{_spaced('BLOCK')})?\s*{_spaced('-----')}",
        None,
    ),
    _KEY_BODY,
    _rule(
        "private key (base64 body)",  # base64 of "openssh-key-v1\0"
        _after("b3BlbnNzaC1rZXktdjEA", "A-Za-z0-9+/") + r"[A-Za-z0-9+/]{40,}",
        None,
    ),
    _rule("PuTTY private key", r"PuTTY-User-Key-File-\d+:", None),
    _rule(
        "password in .netrc entry",
        r"machine(?<![\w-]machine)"
        + _WS
        + r"\S+"
        + rf"(?:{_WS}(?:login|account|port){_WS}\S+)*"
        + rf"{_WS}password{_WS}(?P<v>[^\s\"'`]+)",
        fold=True,
        fallback=True,
    ),
    _rule(
        "password in .pgpass line",  # host:port:database:user:password
        r":(?<=[\w.*\]]:)(?:\d{1,5}|\*):(?:[\w.*-]+:){2}(?P<v>(?:\\.|[^\s:\\\"'`<>])+)" + r"(?![^\s\"'`<])",
        _credible,
        fallback=True,
    ),
    _rule(
        "session cookie",
        r"cookie(?<![\w.]cookie)[ \t]*:[ \t]*(?P<v>[^\r\n\"'`]+)",
        _cookie_secret,
        fold=True,
        fallback=True,
    ),
    _rule(
        "credential in command-line flag",  # --password X, --db-pass X, --pwd X
        r"--(?<![\w-]--)(?:[a-z0-9]+-)*(?:pass(?:w(?:or)?d|phrase)?|pwd)(?![\w-])[ \t]+" + _VALUE,
        _password_literal,
        fold=True,
        fallback=True,
    ),
    _rule(
        "credential in command-line flag",  # --client-secret X, --token X, --api-key X
        r"--(?<![\w-]--)(?:(?:[a-z0-9]+-)*secret|"
        + r"(?:(?:auth|access|api|bearer|refresh|session|bot)-)?token|"
        + r"(?:api|access|secret|private|auth)-?key)(?![\w-])[ \t]+"
        + _VALUE,
        _literal,
        fold=True,
        fallback=True,
    ),
    _rule(
        "credential in command-line flag",  # mysql -pPW (glued: `-p PW` asks, PW is the database)
        _MYSQL + _until_next(_MYSQL, r"[^\n|;&]") + r"*?[ \t]-p" + _VALUE,
        _password_literal,
        fallback=True,
    ),
    _rule(
        "credential in command-line flag",  # redis-cli -a PW
        _REDIS + _until_next(_REDIS, r"[^\n|;&]") + r"*?[ \t]-a[ \t]+" + _VALUE,
        _password_literal,
        fallback=True,
    ),
    _rule(
        "credential in command-line flag",  # curl -u user:pw, --user user:pw
        r"-(?<![\w-]-)(?:u|-user)(?:[ \t]+|=)[\"']?(?P<v>[^\s\"':]+:[^\s\"']+)",
        _user_password,
        fallback=True,
    ),
    _rule(
        "password in URL",
        r"""://[^\s:/?#@"'<>]*:(?P<v>[^\s/?#@"'<>]+)@""",
        fallback=True,
    ),
    _rule(
        "password in URL",  # no scheme: user:pw@host
        r":(?<=[\w.%+-]:)"
        + "".join(f"(?<![^\\w]{s}:)(?<!^{s}:)" for s in _ADDRESS_SCHEMES)
        + rf"""(?P<v>[^\s:/?#@"'<>]+)@(?={_HOST}(?![\w.-]))""",
        _strong,
        fallback=True,
    ),
    _rule(
        "credential in Authorization header",
        r"authorization" + _SEP + r"(?:bearer|basic|token)[ \t]+(?P<v>[\w.~+/=-]{16,})",
        _credible,
        fold=True,
        fallback=True,
    ),
    # password, passwd, passphrase, and `pass` as a word of its own (`DB_PASS`, not `bypass`)
    _assignment(r"pass(?:w(?:or)?d|phrase|(?<![a-z]pass))", _password_literal),
    _assignment(r"pwd", _password_literal),  # ODBC `Pwd=`, `DB_PWD`; `PWD=/path` is a reference
    _assignment(r"secret"),
    _assignment(
        "token"  # not pagination, idempotency or lock tokens
        + "".join(f"(?<!{word}{sep}token)" for word in _PUBLIC_TOKENS for sep in ("", "_", "-"))
    ),
    _assignment(  # api_key, secretKey, private-key, …
        "key(?:" + "|".join(f"(?<={word}{sep}key)" for word in _KEY_QUALIFIERS for sep in ("", "_", "-")) + ")"
    ),
    _rule(
        "password in prose",
        r"pass(?:w(?:or)?d|phrase)s?(?![\w-])" + _PROSE_LINK + _PROSE_VALUE,
        _prose_password,
        fold=True,
        fallback=True,
    ),
)

_GATE_WORDS = frozenset(word for rule in _RULES if rule.gated for word in rule.context)
_ALL_RULES = frozenset(range(len(_RULES)))
_NO_RULES: frozenset[int] = frozenset()
_TOKEN_RULES = frozenset(index for index, rule in enumerate(_RULES) if not rule.fallback)  # run on the windows
_KEY_BODY_AT = _RULES.index(_KEY_BODY)


def prefilter_source() -> str:
    """safety/_prefilters.py: every rule's prefilter (`_superset` of its regex), made ahead so a
    process that scans does not derive them all first (~22M instructions, a third of building the
    engine). A rule it does not hold still works (its prefilter is derived); tests/unit/test_secrets.py
    checks the file is current. Regenerate:
    `python -c "from jacked_vault.safety.secrets import write_prefilters; write_prefilters()"`."""
    entries = "".join(f"    {rule.regex!r}:\n        {_superset(rule.regex)!r},\n" for rule in _RULES)
    return (
        '"""Each secret rule\'s regex -> its RE2 prefilter. Generated by `safety.secrets.prefilter_source`:'
        ' do not edit."""\n\n# ruff: noqa: E501\n# fmt: off\n'
        f"PREFILTERS: dict[bytes, bytes] = {{\n{entries}}}\n"
    )


def write_prefilters() -> None:
    """Write safety/_prefilters.py from the rules as they are."""
    with open(os.path.join(os.path.dirname(__file__), "_prefilters.py"), "w", encoding="utf-8") as out:
        out.write(prefilter_source())


def _re2_options() -> Any:
    """RE2 options: bytes as bytes (as `re` sees them), 64 MiB for a DFA, no logging."""
    import re2

    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    options.max_mem = 64 << 20
    options.log_errors = False
    return options


@cache
def _engine() -> tuple[Any, list[int], Any, list[int]]:
    """Two RE2 sets of the rules' prefilters (`_Rule.prefilter`), built on first use: the plain
    rules' for the bytes, the `fold` rules' for the lowercased bytes; each with the index in
    `_RULES` of its pattern k at k - 1. Pattern 0 (`\\z`) matches every text: a set that gave
    up (its DFA out of memory) is told from one that found nothing."""
    import re2  # google-re2: linear time whatever the text; imported only by a process that scans

    options = _re2_options()
    built: list[Any] = []
    for fold in (False, True):
        rules = re2.Set.SearchSet(options)
        rules.Add(rb"\z")
        indices = [index for index, rule in enumerate(_RULES) if rule.fold == fold]
        for index in indices:
            rules.Add(_RULES[index].prefilter)
        rules.Compile()
        built += [rules, indices]
    return built[0], built[1], built[2], built[3]


def _candidates(data: bytes, lower: bytes) -> frozenset[int]:
    """Indices in `_RULES` of the rules that may match: their prefilter occurs in `data` (in
    `lower` for `fold` rules); all of them if a set gave up."""
    plain, plain_rules, folded, folded_rules = _engine()
    plain_hits, folded_hits = plain.Match(data), folded.Match(lower)
    if not plain_hits or not folded_hits or 0 not in plain_hits or 0 not in folded_hits:
        return _ALL_RULES
    if len(plain_hits) == len(folded_hits) == 1:  # only `\z` each: most texts, no rule to run
        return _NO_RULES
    return frozenset(
        [plain_rules[hit - 1] for hit in plain_hits if hit] + [folded_rules[hit - 1] for hit in folded_hits if hit]
    )


def _findings_in(text: str, context: _Source | None, found: set[str]) -> None:
    """Add to `found` the kind of every secret in one view of a text; with a `context` (where
    windows of joined lines come from), in a batch of those windows (`_window_findings`).

    A rule whose kind is in `found` runs on only while a later fallback rule of a kind not yet
    found may run: its matches only mark what those skip (`covered`); so a text of a thousand
    assignments checks one."""
    if context is not None:
        _window_findings(text, context, found)
        return
    data = text.encode("utf-8", "surrogatepass")
    lower = data.lower()  # ASCII only, so offsets are unchanged
    candidates = _candidates(data, lower)
    if not candidates:
        return
    present: set[bytes] | None = None  # the gate words in the text, once a gated rule may match
    covered = bytearray(len(data))  # 1 where an earlier rule already matched
    order = range(len(_RULES)) if candidates is _ALL_RULES else sorted(candidates)  # in the rules' order

    def settled(at: int) -> bool:
        """No fallback rule after `order[at]` may find a kind not yet found."""
        return all(_RULES[i].kind in found for i in order[at + 1 :] if _RULES[i].fallback)

    for at, index in enumerate(order):
        rule = _RULES[index]
        if rule.kind in found and settled(at):
            continue
        if rule.gated:
            if present is None:
                present = _gate_words(lower)
            if present.isdisjoint(rule.context):
                continue
        pattern, fallback, check = rule.pattern, rule.fallback, rule.check
        group = "v" if "v" in pattern.groupindex else 0  # what the check reads
        verdicts: dict[bytes, bool] = {}  # the rule's check of each value: a value met again is not checked again
        for match in pattern.finditer(lower if rule.fold else data):
            start, end = match.span(group)
            if fallback and covered.find(1, start, end) != -1:
                continue
            if check:
                value = data[start:end]
                verdict = verdicts.get(value)
                if verdict is None:
                    verdict = verdicts[value] = check(value.decode(errors="replace"))
                if not verdict:
                    continue
            if rule.context:
                near = lower[max(0, match.start() - CONTEXT_CHARS) : match.end() + CONTEXT_CHARS]
                if not any(word in near for word in rule.context):
                    continue
            covered[match.start() : match.end()] = b"\x01" * (match.end() - match.start())
            if rule.kind not in found:  # `found` grows only here: once per rule is enough to ask
                found.add(rule.kind)
                if settled(at):
                    break


def _gate_words(text: bytes) -> set[bytes]:
    """The words of `_GATE_WORDS` in `text` (lowercased): a gated rule runs only with one of its own."""
    return {word for word in _GATE_WORDS if word in text}


def _window_findings(text: str, context: _Source, found: set[str]) -> None:
    """Add to `found` the kind of every token shape in a batch of windows of joined lines: only the
    rules `context` names run (no set over the windows), fallback rules and those of a kind found
    are skipped, a match counts by its value alone (`_a_value_passes`), and context words are looked
    for anywhere in the windows or in `context`. The text is lowercased only if a rule reads it so."""
    data = text.encode("utf-8", "surrogatepass")
    lowered: list[bytes] = []  # the windows lowercased, once a rule reads them so
    joined_around: list[bytes] = []  # the windows and their context, joined once a rule reads them

    def lower() -> bytes:
        if not lowered:
            lowered.append(data.lower())  # ASCII only, so offsets are unchanged
        return lowered[0]

    def around() -> bytes:
        """Where context words are looked for: the windows and their context."""
        if not joined_around:
            joined_around.append(lower() + b"\n" + context.folded)
        return joined_around[0]

    present: set[bytes] | None = None  # the gate words in `around`, once a gated rule may match
    for index in sorted(context.rules):
        rule = _RULES[index]
        if rule.fallback or rule.kind in found:
            continue
        if rule.gated:
            if present is None:
                present = _gate_words(around())
            if present.isdisjoint(rule.context):
                continue
        group = "v" if "v" in rule.pattern.groupindex else 0  # what the check reads
        if _a_value_passes(rule, _values(rule.pattern, group, data, lower() if rule.fold else None), around):
            found.add(rule.kind)


def _values(pattern: re.Pattern[bytes], group: str | int, data: bytes, lower: bytes | None) -> set[bytes]:
    """The distinct values (`group`) `pattern` matches in `data`, in one pass; with `lower` (a
    `fold` rule's text), matched there and taken from `data` at the same places. `findall` gives
    them without a match object each when `group` is the pattern's only group or the whole match
    of a pattern without groups."""
    if lower is None:
        if pattern.groups == (group != 0):
            return set(pattern.findall(data))
        return {*map(methodcaller("group", group), pattern.finditer(data))}
    return {data[start:end] for start, end in map(methodcaller("span", group), pattern.finditer(lower))}


def _a_value_passes(rule: _Rule, values: set[bytes], around: Callable[[], bytes]) -> bool:
    """Whether one of `values` (what `rule` matched in windows of joined lines, each once) passes
    its check, and a context word it needs occurs `around` (anywhere: the windows and their
    context, so the same for every value)."""
    if not values or (rule.context and not any(word in around() for word in rule.context)):
        return False
    check = rule.check
    return check is None or any(check(value.decode(errors="replace")) for value in values)


def scan_text(text: str) -> list[str]:
    """Sorted unique kinds of secret found in `text` or its decoded and joined views
    (never the values)."""
    found: set[str] = set()
    for view, context in _views(text, found):
        _findings_in(view, context, found)
    return sorted(found)


_Path = tuple[str | int, ...]


def _strings(path: _Path, value: object) -> Iterator[tuple[_Path, str, bool]]:
    """(path, text, a key?) for every str in `value`, through lists, tuples and dicts, the
    keys of dicts too (a key has its dict's path)."""
    if isinstance(value, str):
        yield path, value, False
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            if isinstance(item, str):  # most items (a note's tags, repos, links): no generator each
                yield (*path, index), item, False
            else:
                yield from _strings((*path, index), item)
    elif isinstance(value, dict | Mapping):  # a dict told first: the ABC's check costs more
        for key, item in value.items():
            if isinstance(key, str):
                yield path, key, True
            if isinstance(item, str):  # most values (an audit line's): no generator each
                yield (*path, str(key)), item, False
            else:
                yield from _strings((*path, str(key)), item)


def _field(path: _Path, key: bool, secret_keys: set[str]) -> str:
    """`links[0].url`, `vault.json.groups (a key)`; a key that holds a secret shows as `<key>`."""
    text = str(path[0])
    for part in path[1:]:
        text += f"[{part}]" if isinstance(part, int) else "." + ("<key>" if part in secret_keys else part)
    return text + " (a key)" if key else text


# A lowercase word of letters, digits and `._/-` (ids, slugs, repo identities, tags): it holds no
# space, quote, colon, `%`, backslash, line break or non-ASCII character, so no view but itself
# exists and no rule's match or boundary can reach past the spaces that separate such words.
_PLAIN_WORD = re.compile(r"[a-z0-9][a-z0-9._/-]*")


def scan_fields(fields: Mapping[str, object]) -> list[tuple[str, str]]:
    """(field path, kind) for every secret in the string values of `fields` (and the keys of
    the mappings in them; not the names of `fields` themselves, which the caller chose).

    Lists, tuples and dicts are walked: `tags[3]`, `meta.key`, `links[0].url`, `groups (a
    key)`; a key that holds a secret is never named (`groups.<key>.repos[0]`). Plain words
    (`_PLAIN_WORD`) are scanned together first, joined by spaces: a text in which nothing is
    found has nothing in any of its words; only when something is found is each one scanned
    alone, so the answer is always the one a word-by-word scan gives.
    """
    strings: list[tuple[_Path, str, bool]] = []
    for name, value in fields.items():  # a note's values are strings, None or lists of strings: walked inline
        if type(value) is str:
            strings.append(((name,), value, False))
        elif type(value) is list and all(type(item) is str for item in value):
            strings += [((name, index), item, False) for index, item in enumerate(value)]
        else:
            strings += _strings((name,), value)
    words = [text for _, text, _ in strings if _PLAIN_WORD.fullmatch(text)]
    if len(words) > 1 and not scan_text(" ".join(words)):
        clean = set(words)
        strings = [found for found in strings if found[1] not in clean]
    found = [(path, text, key, kind) for path, text, key in strings for kind in scan_text(text)]
    secret_keys = {text for _, text, key, _ in found if key}
    return [(_field(path, key, secret_keys), kind) for path, _, key, kind in found]


def _article(kind: str) -> str:
    return ("an " if kind[0] in "AEIO" or kind.startswith("npm") else "a ") + kind


def assert_no_secrets(fields: Mapping[str, object]) -> None:
    """Raise `VaultError("SECRET")` naming each field and kind found; never a value."""
    found = scan_fields(fields)
    if not found:
        return
    by_field: dict[str, list[str]] = {}
    for path, kind in found:
        by_field.setdefault(path, []).append(kind)
    parts = [
        f"{path} contains what looks like {' and '.join(map(_article, kinds))}" for path, kinds in by_field.items()
    ]
    raise VaultError(
        "SECRET",
        f"refused: {'; '.join(parts)}; nothing was written",
        details={"findings": [{"field": path, "kind": kind} for path, kind in found]},
    )
