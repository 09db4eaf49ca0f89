"""Secret scanner: known credential shapes, private keys and real-looking passwords.

Scans raw text (never an escaped form) and reports only the *kind* of secret found,
never the value. One table of rules drives everything.

Speed: rules run on the UTF-8 bytes (one byte per character whatever the text holds),
and every ungated pattern starts with a literal, so `re` skips ahead with its fast prefix
search: one cheap pass per rule. Left boundaries are therefore lookbehinds placed *after*
that literal. Rules marked `fold` run on the ASCII-lowercased bytes (same offsets); `gated`
rules (whose patterns are costly or common) run only if a context word occurs at all.

Decisions about near misses:

- Placeholders are not secrets: values starting with `$ % { < [ (` (`${VAR}`, `$VAR`,
  `%VAR%`, `{{ secrets.X }}`, `<your-token>`), masks (`****`, `xxxx`, `...`, fewer
  than four distinct characters), and values containing example/dummy/fake/sample/
  placeholder/redacted/your/changeme/change_me/replace_me (lower, UPPER or Title
  case). So `changeme` is a placeholder, and so is AWS's `…EXAMPLE` documentation key.
- In URLs, `user:pass@` and `user:password@` are placeholders; any other password
  (including defaults like `postgres:postgres`) is reported.
- Assignments (`password = …`, `token: …`, `"apiKey": …`) count only when the key ends
  in a secret word (so not `password_min_length`, `token_url`, `NextToken`) and the
  value is a literal of at least 8 characters without whitespace that mixes letters
  with digits or symbols. Not values: code (`get_token()`, `os.environ[...]`,
  `process.env.X`, `request.form[...]`), values naming a secret (`user_password`,
  `"NextToken"`), and references (URLs, ARNs, paths). A YAML/JSON colon must be
  followed by a space or quote, so `arn:…:secret:name` is no assignment.
- Git SHAs, hashes, lockfile `integrity`/`resolved` lines, UUIDs, ULIDs, note ids,
  public keys, certificates and base64 images match no rule. Shapes that are secret
  only in context need it: Heroku UUIDs and Datadog hex keys must be assigned to a
  heroku/datadog (`DD_`) key name; Twilio, Mailgun, Discord bot and legacy Vault `s.`
  tokens need their service named within CONTEXT_CHARS.
- Stripe `pk_` publishable keys are not secrets; `sk_`/`rk_` live and test keys are.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from jacked_vault.errors import VaultError

CONTEXT_CHARS = 512  # how far from a match a rule's context word may be

_PLACEHOLDER = re.compile(
    r"^[$%{<\[(]|\*\*\*|\.\.\.|xxxx|XXXX|"
    + "|".join(
        f"{word}|{word.upper()}|{word.capitalize()}"
        for word in (
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
        )
    )
)
_PLACEHOLDER_WORDS = frozenset({"pass", "password", "passwd", "secret", "token"})
# An unquoted identifier path, optionally called or indexed: code, not a literal.
_CODE = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?P<access>[(\[].*)?", re.ASCII)
# A value naming a secret (`NextToken`, `DB_PASSWORD`, `PrivateKeyTypes`) refers to one.
_SECRET_WORD = re.compile(r"pass|secret|token|key|credential", re.IGNORECASE)
# A value that is a URL, ARN, vault reference or path points at a secret elsewhere.
_REFERENCE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:|[/~.]")


def _has(value: str, test: Callable[[str], bool]) -> bool:
    return any(test(c) for c in value)


def _real(value: str) -> bool:
    """Not a placeholder, a bare secret word or a mask of a few repeated characters."""
    return (
        len(set(value)) >= 4
        and value.lower() not in _PLACEHOLDER_WORDS
        and not _PLACEHOLDER.search(value)
    )


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
        and _has(value, lambda c: not c.isalpha() and c not in "_-." and not c.isspace())
        and not _has(value, str.isspace)
        and _real(value)
    )


def _literal(value: str) -> bool:
    """An assigned value (quotes included) is a credible literal, not code or a
    reference to a secret kept elsewhere."""
    if value[0] in "\"'`":
        value = value[1:-1]
    else:
        code = _CODE.fullmatch(value)
        if code and ("." in value or code["access"]):
            return False
    return _credible(value) and not _SECRET_WORD.search(value) and not _REFERENCE.match(value)


@dataclass(frozen=True)
class _Rule:
    """One secret shape. `check` sees the named group `v` (or the whole match)."""

    kind: str
    pattern: re.Pattern[bytes]
    check: Callable[[str], bool] | None
    context: tuple[bytes, ...]  # lowercase; one must occur within CONTEXT_CHARS
    gated: bool  # skip the rule unless a context word occurs somewhere in the text
    fold: bool  # match against the lowercased text (pattern written in lowercase)
    fallback: bool  # generic: skipped where an earlier rule already matched


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
    return _Rule(kind, re.compile(regex.encode()), check, words, gated, fold, fallback)


def _after(literal: str, chars: str = "A-Za-z0-9") -> str:
    """`literal`, not glued to a preceding character from `chars`."""
    return f"{re.escape(literal)}(?<![{chars}]{re.escape(literal)})"


_E = r"(?![A-Za-z0-9])"  # right boundary
_E64 = r"(?![\w-])"  # right boundary for base64url
_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
# Closing quote (or bracket) of the key and the separator: = := ?= += => or a colon
# followed by a space or quote (YAML/JSON; not `arn:…:secret:name`).
_KEY_END = r"""["']?\]?[ \t]*(?:=>|[:?+]?=|:(?=[ \t"'`]))[ \t]*"""
_SEP = _KEY_END + r"""["']?"""  # ... and the value's opening quote, if any
# Assigned value: a quoted string (quotes kept) or a bare word.
_VALUE = r"""(?:[bru]{1,2}(?=["'`]))?""" + (
    r"""(?P<v>"[^"\r\n]*"|'[^'\r\n]*'|`[^`\r\n]*`|[^\s"'`,;&<)\]}]+)"""
)
_KEY_QUALIFIERS = "api access secret private signing encryption master auth".split()
_PUBLIC_TOKENS = (
    "next page continuation pagination change lock client idempotency publickey".split()
)


def _assignment(key: str) -> _Rule:
    """`<…key> = value` in env/ini/YAML/JSON/code style, `key` ending the name."""
    return _rule(
        "password or secret assignment",
        key + r"s?(?![\w.-])" + _KEY_END + _VALUE,
        _literal,
        fold=True,
        fallback=True,
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
    _rule(
        "Twilio API key",
        r"(?:SK|AC)(?<![A-Za-z0-9]..)(?P<v>[0-9a-fA-F]{32})" + _E,
        context=("twilio",),
        gated=True,
    ),
    _rule("SendGrid API key", _after("SG.") + r"(?P<v>[\w-]{22}\.[\w-]{43})" + _E64),
    # `[\w-]` boundary: inside a base64url run every "eyJ" would rescan the run.
    _rule("JSON Web Token", _after("eyJ", r"\w-") + r"(?P<v>[\w-]{8,}\.[\w-]{8,}\.[\w-]*)"),
    _rule("Hugging Face token", _after("hf_") + r"(?P<v>[A-Za-z0-9]{34,})" + _E, _cased),
    _rule(
        "Discord bot token",  # 24-28 characters (the id), a dot, 6, a dot, 27-40
        r"\.(?<=[\w-]{24}\.)(?<![\w-]{29}\.)[\w-]{6}\.(?P<v>[\w-]{27,40})" + _E64,
        _cased,
        context=("discord",),
        gated=True,
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
        r"heroku[\w .-]{0,24}?(?:key|token|secret|auth)\w*"
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
    _rule(
        "private key (PEM header)",
        r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----",  # the header alone
        None,
    ),
    _rule("PuTTY private key", r"PuTTY-User-Key-File-\d+:", None),
    _rule(
        "password in URL",
        r"""://[^\s:/?#@"'<>]*:(?P<v>[^\s/?#@"'<>]+)@""",
        fallback=True,
    ),
    _rule(
        "credential in Authorization header",
        r"authorization" + _SEP + r"(?:bearer|basic|token)[ \t]+(?P<v>[\w.~+/=-]{16,})",
        _credible,
        fold=True,
        fallback=True,
    ),
    _assignment(r"pass(?:w(?:or)?d|phrase)"),
    _assignment(r"secret"),
    _assignment(
        "token"  # not pagination, idempotency or lock tokens
        + "".join(f"(?<!{word}{sep}token)" for word in _PUBLIC_TOKENS for sep in ("", "_", "-"))
    ),
    _assignment(  # api_key, secretKey, private-key, …
        "key(?:"
        + "|".join(f"(?<={word}{sep}key)" for word in _KEY_QUALIFIERS for sep in ("", "_", "-"))
        + ")"
    ),
)

_GATE_WORDS = frozenset(word for rule in _RULES if rule.gated for word in rule.context)


def _findings(text: str) -> Iterator[str]:
    """Yield the kind of every secret in `text` (repeats possible)."""
    data = text.encode("utf-8", "surrogatepass")
    lower = data.lower()  # ASCII only, so offsets are unchanged
    present = {word for word in _GATE_WORDS if word in lower}
    covered = bytearray(len(data))  # 1 where an earlier rule already matched
    for rule in _RULES:
        if rule.gated and present.isdisjoint(rule.context):
            continue
        for match in rule.pattern.finditer(lower if rule.fold else data):
            start, end = match.span("v") if "v" in rule.pattern.groupindex else match.span()
            if rule.fallback and covered.find(1, start, end) != -1:
                continue
            if rule.check and not rule.check(data[start:end].decode(errors="replace")):
                continue
            if rule.context:
                near = lower[max(0, match.start() - CONTEXT_CHARS) : match.end() + CONTEXT_CHARS]
                if not any(word in near for word in rule.context):
                    continue
            covered[match.start() : match.end()] = b"\x01" * (match.end() - match.start())
            yield rule.kind


def scan_text(text: str) -> list[str]:
    """Sorted unique kinds of secret found in `text` (never the values)."""
    return sorted(set(_findings(text)))


def _strings(path: str, value: object) -> Iterator[tuple[str, str]]:
    """(path, text) for every str in `value`, through lists, tuples and dicts."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from _strings(f"{path}[{index}]", item)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _strings(f"{path}.{key}", item)


def scan_fields(fields: Mapping[str, object]) -> list[tuple[str, str]]:
    """(field path, kind) for every secret in the string values of `fields`.

    Lists, tuples and dicts are walked: `tags[3]`, `meta.key`, `links[0].url`.
    """
    return [
        (path, kind)
        for name, value in fields.items()
        for path, text in _strings(name, value)
        for kind in scan_text(text)
    ]


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
        f"{path} contains what looks like {' and '.join(map(_article, kinds))}"
        for path, kinds in by_field.items()
    ]
    raise VaultError(
        "SECRET",
        f"refused: {'; '.join(parts)}; nothing was written",
        details={"findings": [{"field": path, "kind": kind} for path, kind in found]},
    )
