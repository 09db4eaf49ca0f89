"""Secret scanner: every family, positions, near misses, field paths, refusal message.

Fake secrets are assembled at run time from pieces and seeded random characters, so this
file never contains a literal that other scanners (e.g. push protection) would flag.
"""

from __future__ import annotations

import datetime
import glob
import json
import random
import re
import string
import unicodedata
from pathlib import Path
from urllib.parse import quote

import pytest
from helpers.secret_samples import (
    AWS_KEY,
    B64,
    DIGITS,
    FAMILIES,
    GH,
    JWT,
    NEAR_MISSES,
    OPENAI,
    PASSWORD,
    SLACK,
    pem,
    rand,
)

from jacked_vault.errors import VaultError
from jacked_vault.safety import _prefilters, secrets
from jacked_vault.safety.secrets import assert_no_secrets, scan_fields, scan_text


@pytest.mark.parametrize(
    ("kind", "text"),
    [(kind, text) for kind, texts in FAMILIES.items() for text in texts],
    ids=[f"{kind} {i}" for kind, texts in FAMILIES.items() for i in range(len(texts))],
)
def test_family_is_detected(kind: str, text: str) -> None:
    assert kind in scan_text(text)


def test_every_rule_kind_has_a_sample() -> None:
    """The tests iterate over the scanner's own table: a kind without samples fails here."""
    kinds = {rule.kind for rule in secrets._RULES}
    assert kinds - set(FAMILIES) == set(), "rule kinds without a positive sample"
    assert set(FAMILIES) - kinds == set(), "samples for a kind no rule reports"


def test_specific_kind_wins_over_generic_assignment() -> None:
    assert scan_text(f"GITHUB_TOKEN={GH}") == ["GitHub token"]
    assert scan_text(f"https://x-access-token:{GH}@github.com/o/r.git") == ["GitHub token"]


def test_kinds_are_sorted_and_unique() -> None:
    assert scan_text(f"{GH} {AWS_KEY} {GH}") == ["AWS access key", "GitHub token"]


def test_anthropic_key_is_not_also_openai() -> None:
    assert scan_text("sk-" + "ant-" + "api03-" + rand(93)) == ["Anthropic API key"]


def test_pem_header_inside_json_is_caught() -> None:
    doc = json.dumps({"private_key": pem("PRIVATE KEY") + "\n" + rand(64, B64) + "\n"})
    assert "private key (PEM header)" in scan_text(doc)


POSITIONS = {
    "start of line": "{}\nnext line",
    "after tab": "col1\t{}\tcol3",
    "tag slug": 'tags=["deploy-{}"]',
    "url query": "https://api.acme.io/v1/items?page=2&key={}&sort=asc",
    "json": '{{"auth": {{"value": "{}"}}}}',
    "markdown code block": "Run this:\n\n```bash\nexport THING={}\n```\n",
    "middle of prose": "yesterday I pasted {} into the chat by mistake, oops",
    "after colon": "credential:{}",
    "single quotes": "x = '{}'",
}
TOKENS = {
    "GitHub token": GH,
    "AWS access key": AWS_KEY,
    "Slack token": SLACK,
    "OpenAI API key": OPENAI,
    "JSON Web Token": JWT,
}


@pytest.mark.parametrize(
    ("position", "kind"),
    # A JWT ("eyJ…") cannot sit in a lowercase slug, and its boundary excludes "-".
    [(p, k) for p in POSITIONS for k in TOKENS if (p, k) != ("tag slug", "JSON Web Token")],
)
def test_token_is_found_in_any_position(position: str, kind: str) -> None:
    assert kind in scan_text(POSITIONS[position].format(TOKENS[kind]))


# --- encoded, obfuscated and split tokens -----------------------------------------------

_RUN = "A-Za-z0-9_+/=-"  # characters a token is made of


def _longest_run(text: str) -> tuple[int, int]:
    """Span of the longest run of token characters in `text`."""
    runs = [m.span() for m in re.finditer(f"[{_RUN}]+", text)]
    return max(runs, key=lambda span: span[1] - span[0])


def _inside_run(text: str, insert: str) -> str:
    """`insert` placed in the middle of the longest token-like run of `text`."""
    start, end = _longest_run(text)
    middle = (start + end) // 2
    return text[:middle] + insert + text[middle:]


def _u_escaped_run(text: str) -> str:
    start, end = _longest_run(text)
    return text[:start] + "".join(f"\\u{ord(c):04x}" for c in text[start:end]) + text[end:]


OBFUSCATIONS = {
    "json dump after a line": lambda t: json.dumps({"log": "ok\n" + t}),
    "escaped tab before": lambda t: "col\\t" + t,
    "escaped CR LF before": lambda t: "line\\r\\n" + t,
    "percent-encoded": lambda t: "q=" + quote(t, safe=""),
    "double percent-encoded": lambda t: "q=" + quote(quote(t, safe=""), safe=""),
    "\\u-escaped": _u_escaped_run,
    "zero-width space inside": lambda t: _inside_run(t, "\u200b"),
    "soft hyphen inside": lambda t: _inside_run(t, "\u00ad"),
    "word joiner and BOM inside": lambda t: _inside_run(t, "\u2060\ufeff"),
    "split across lines": lambda t: _inside_run(t, "\n    "),
    "split string concatenation": lambda t: _inside_run(t, '" +\n    "'),
    "shell line continuation": lambda t: _inside_run(t, "\\\n  "),
}
LINE_SPLITS = {"split across lines", "split string concatenation", "shell line continuation"}
# Only tokens are rejoined: not kinds told by the key or syntax around them (`password =
# …`: glued lines of code would read as assignments), nor runs shorter than the shortest
# token (a PEM header's longest run is `-----BEGIN`).
GENERIC = {rule.kind for rule in secrets._RULES if rule.fallback}


def _rejoined(kind: str, text: str) -> bool:
    start, end = _longest_run(text)
    return kind not in GENERIC and end - start >= secrets.SPLIT_TOKEN


ENCODED = [
    (kind, i, text, how)
    for kind, texts in FAMILIES.items()
    for i, text in enumerate(texts)
    for how in OBFUSCATIONS
    if how not in LINE_SPLITS or _rejoined(kind, text)
]


@pytest.mark.parametrize(
    ("kind", "text", "how"),
    [(kind, text, how) for kind, _, text, how in ENCODED],
    ids=[f"{kind} {i} {how}" for kind, i, _, how in ENCODED],
)
def test_family_is_detected_through_encodings(kind: str, text: str, how: str) -> None:
    assert kind in scan_text(OBFUSCATIONS[how](text))


def test_joined_lines_of_code_are_no_assignment() -> None:
    code = (
        "self._token = token\nself._on_update = callback\n"
        "cache_token = current_token\ntry:\n"
        "ERRORTOKEN = 60\nCOMMENT = 61\n"
    )
    assert scan_text(code) == []


# The hostile tester's cases: each one hid these tokens from the old scanner.
HIDING = {
    "json \\n": lambda token: '{"log":"ok\\n' + token + '"}',
    "json \\t": lambda token: '{"log":"ok\\t' + token + '"}',
    "%3D": lambda token: "https://acme.io/cb?key%3D" + token,
    "%20": lambda token: "token%20" + token,
    "%253D": lambda token: "https://acme.io/cb?key%253D" + token,
    "\\u000a": lambda token: "ok\\u000a" + token,
    "\\x20": lambda token: "ok\\x20" + token,
    "surrogate pair": lambda token: "\\ud83d\\ude80" + token,
    "newline split": lambda token: token[:9] + "\n  " + token[9:],
    "quoted halves": lambda token: '"' + token[:9] + '" \n "' + token[9:] + '"',
    "zero-width space": lambda token: token[:9] + "\u200b" + token[9:],
    "soft hyphen": lambda token: token[:9] + "\u00ad" + token[9:],
}


@pytest.mark.parametrize("hiding", HIDING)
@pytest.mark.parametrize("kind", TOKENS)
def test_escape_or_split_no_longer_hides_a_token(hiding: str, kind: str) -> None:
    assert kind in scan_text(HIDING[hiding](TOKENS[kind]))


@pytest.mark.parametrize("after", ["", "\n", "\nnext line", "\nnext_line_of_a_log_file x"])
def test_shortest_token_is_rejoined_wherever_it_is_split(after: str) -> None:
    """Even when the line after it starts with a word that a join would glue to it."""
    assert len(AWS_KEY) == secrets.SPLIT_TOKEN
    for cut in range(1, len(AWS_KEY)):
        text = "key:\n  " + AWS_KEY[:cut] + "\n    " + AWS_KEY[cut:] + after
        assert scan_text(text) == ["AWS access key"], cut


def test_every_format_character_is_ignored_inside_a_token() -> None:
    format_chars = [chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) == "Cf"]
    missed = [f"U+{ord(c):04X}" for c in format_chars if not scan_text(GH[:6] + c + GH[6:])]
    assert missed == []


def test_plain_text_is_scanned_once() -> None:
    """Extra views are built only when something in the text could change them."""
    assert list(secrets._views("plain prose, one line: tokens rotate monthly")) == [
        ("plain prose, one line: tokens rotate monthly", None)
    ]
    assert len(list(secrets._views("a\\tb"))) == 2  # decoded
    assert len(list(secrets._views(GH[:9] + "\n  " + GH[9:]))) == 2  # joined
    assert len(list(secrets._views("end.\n\nNext paragraph."))) == 1  # nothing to join
    wrapped = "A paragraph of prose wrapped\nat eighty columns, with words\ntoo short for a token"
    assert len(list(secrets._views(wrapped))) == 1  # nothing long enough to be a split token


def _percent_layers(text: str, layers: int) -> str:
    for _ in range(layers):
        text = quote(text, safe="")
    return text


def test_decoding_is_bounded() -> None:
    """Up to DECODE_ROUNDS layers of encoding are undone; deeper ones are left alone."""
    rounds = secrets.DECODE_ROUNDS
    assert scan_text("q" + _percent_layers("=" + AWS_KEY, rounds)) == ["AWS access key"]
    assert scan_text("q" + _percent_layers("=" + AWS_KEY, rounds + 1)) == []


@pytest.mark.parametrize("text", NEAR_MISSES.values(), ids=NEAR_MISSES.keys())
def test_near_miss_is_not_flagged(text: str) -> None:
    assert scan_text(text) == []


@pytest.mark.parametrize("text", NEAR_MISSES.values(), ids=NEAR_MISSES.keys())
def test_near_miss_stays_clean_when_encoded(text: str) -> None:
    assert scan_text(json.dumps({"log": text})) == []
    assert scan_text(quote(text, safe="")) == []


ROOT = Path(__file__).resolve().parents[2]
EVAL = ROOT.parent / "shared" / "eval"


def _project_texts() -> dict[str, str]:
    """This repository's own code and docs: real prose and code full of near misses."""
    paths = [*ROOT.glob("jacked_vault/**/*.py"), *ROOT.glob("jacked_vault/**/*.md")]
    paths += [*ROOT.glob("docs/**/*.md"), ROOT / "README.md"]
    return {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in paths}


def test_no_false_alarm_on_this_repository() -> None:
    texts = _project_texts()
    assert len(texts) > 50
    assert {name: scan_text(text) for name, text in texts.items() if scan_text(text)} == {}


def test_no_false_alarm_on_real_pull_request_texts() -> None:
    files = sorted(glob.glob(str(EVAL / "*" / "notes.jsonl")))
    if not files:
        pytest.skip(f"no eval corpus at {EVAL}")
    notes = [json.loads(line) for name in files for line in Path(name).read_text(encoding="utf-8").splitlines()]
    assert len(notes) > 500
    alarms = {
        note["pr"]: scan_text(note["title"] + "\n" + note["body"])
        for note in notes
        if scan_text(note["title"] + "\n" + note["body"])
    }
    assert alarms == {}


def test_real_keys_and_certificates() -> None:
    """Keys made by a real library: private bodies (no header) are caught in every
    encoding; certificate, CSR and public-key bodies are not."""
    pytest.importorskip("cryptography")
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
    from cryptography.x509.oid import NameOID

    pem = serialization.Encoding.PEM
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ec_key = ec.generate_private_key(ec.SECP256R1())
    ed_key = ed25519.Ed25519PrivateKey.generate()
    formats = serialization.PrivateFormat
    none = serialization.NoEncryption()
    private = {
        "rsa pkcs8": rsa_key.private_bytes(pem, formats.PKCS8, none),
        "rsa traditional": rsa_key.private_bytes(pem, formats.TraditionalOpenSSL, none),
        "ec sec1": ec_key.private_bytes(pem, formats.TraditionalOpenSSL, none),
        "ec pkcs8": ec_key.private_bytes(pem, formats.PKCS8, none),
        "ed25519 pkcs8": ed_key.private_bytes(pem, formats.PKCS8, none),
        "openssh": ed_key.private_bytes(pem, formats.OpenSSH, none),
        "encrypted pkcs8": rsa_key.private_bytes(
            pem, formats.PKCS8, serialization.BestAvailableEncryption(b"pw-" + b"x" * 8)
        ),
    }
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "acme.test")])
    now = datetime.datetime(2026, 1, 1)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(rsa_key.public_key())
        .serial_number(12345)
        .not_valid_before(now)
        .not_valid_after(now.replace(year=2027))
        .sign(rsa_key, hashes.SHA256())
    )
    csr = x509.CertificateSigningRequestBuilder().subject_name(name).sign(ec_key, hashes.SHA256())
    public_format = serialization.PublicFormat
    spki = public_format.SubjectPublicKeyInfo
    public = {
        "certificate": cert.public_bytes(pem),
        "csr": csr.public_bytes(pem),
        "rsa spki": rsa_key.public_key().public_bytes(pem, spki),
        "rsa pkcs1 public": rsa_key.public_key().public_bytes(pem, public_format.PKCS1),
        "ec spki": ec_key.public_key().public_bytes(pem, spki),
        "ed25519 spki": ed_key.public_key().public_bytes(pem, spki),
    }

    def body(data: bytes) -> str:
        return "\n".join(line for line in data.decode().splitlines() if "-----" not in line)

    for label, data in private.items():
        assert "private key (PEM header)" in scan_text(data.decode()), label
        for shown in (body(data), json.dumps({"key": body(data)}), body(data).replace("\n", "")):
            assert "private key (base64 body)" in scan_text(shown), label
    for label, data in public.items():
        assert scan_text(data.decode()) == [], label
        assert scan_text(json.dumps({"pem": data.decode()})) == [], label
        assert scan_text(body(data).replace("\n", "")) == [], label


def test_scan_fields_paths() -> None:
    fields = {
        "title": "Rotate credentials",
        "body": f"Use {GH} for the bot",
        "tags": ["deploy", "ops", "deploy-" + GH],
        "repos": ("github.com/acme/vault",),
        "extra": {"notes": ["fine", AWS_KEY]},
        "count": 3,
        "missing": None,
    }
    assert scan_fields(fields) == [
        ("body", "GitHub token"),
        ("tags[2]", "GitHub token"),
        ("extra.notes[1]", "AWS access key"),
    ]


def test_mapping_keys_are_scanned_and_never_named() -> None:
    """Issue 17.8: a token as a key (a group name in vault.json) is found; the path says "a
    key" and masks it where it leads to a value, so no message quotes it."""
    slug = "xo" + "xb-" + rand(10, DIGITS) + "-" + rand(13, DIGITS) + "-" + rand(24, string.ascii_lowercase)
    repo = "github.com/acme/" + GH.lower()
    fields = {"vault.json": {"groups": {slug: {"repos": [repo]}, "ok": {"repos": ["github.com/acme/q"]}}}}
    assert scan_fields(fields) == [
        ("vault.json.groups (a key)", "Slack token"),
        ("vault.json.groups.<key>.repos[0]", "GitHub token"),
    ]
    assert scan_fields({"extra": {"ok": {"clean": repo}}}) == [("extra.ok.clean", "GitHub token")]
    with pytest.raises(VaultError) as caught:
        assert_no_secrets(fields)
    rendered = str(caught.value) + json.dumps(caught.value.to_json())
    assert "vault.json.groups (a key) contains what looks like a Slack token" in rendered
    assert slug not in rendered and GH.lower() not in rendered


def test_clean_fields_pass() -> None:
    assert scan_fields({"title": "ok", "tags": ["a", "b"]}) == []
    assert_no_secrets({"title": "Use SQLite FTS5", "body": "We chose FTS5.", "tags": ["search"]})


def test_refusal_names_field_and_kind_but_never_the_value() -> None:
    with pytest.raises(VaultError) as caught:
        assert_no_secrets({"title": "deploy notes", "body": f"token is {GH}"})
    error = caught.value
    assert error.code == "SECRET"
    assert error.message == ("refused: body contains what looks like a GitHub token; nothing was written")
    assert error.details == {"findings": [{"field": "body", "kind": "GitHub token"}]}


@pytest.mark.parametrize("secret", [GH, AWS_KEY, SLACK, OPENAI, JWT, PASSWORD])
def test_refusal_never_leaks_any_part_of_the_secret(secret: str) -> None:
    fields = {"body": f"DB_PASSWORD={secret}\n", "tags": ["x", f"password: {secret}"]}
    with pytest.raises(VaultError) as caught:
        assert_no_secrets(fields)
    rendered = str(caught.value) + json.dumps(caught.value.to_json())
    assert "body" in rendered and "tags[1]" in rendered
    for i in range(len(secret) - 7):
        assert secret[i : i + 8] not in rendered


def test_refusal_lists_every_field_and_kind() -> None:
    with pytest.raises(VaultError) as caught:
        assert_no_secrets({"body": f"{AWS_KEY} and {pem('RSA PRIVATE KEY')}", "tags": ["a", "deploy-" + GH]})
    assert caught.value.message == (
        "refused: body contains what looks like an AWS access key and a private key "
        "(PEM header); tags[1] contains what looks like a GitHub token; nothing was written"
    )


def test_scan_handles_non_ascii_text() -> None:
    text = "Zürich 東京 🚀 İstanbul — " + GH + " — ok"
    assert scan_text(text) == ["GitHub token"]
    unicode_assignment = "İİİ pass" + "word = Ünïcödé-Pässwörd-42 ok"
    assert scan_text(unicode_assignment) == ["password or secret assignment"]


def _plain_words_from_samples() -> list[str]:
    """Every whitespace-separated piece of the family samples and near misses that is a plain word."""
    texts = [t for ts in FAMILIES.values() for t in ts] + [t for t in NEAR_MISSES.values() if isinstance(t, str)]
    pieces = {p.strip("\"'`,;()") for t in texts for p in t.split()}
    rng = random.Random(7)
    lower = string.ascii_lowercase + string.digits
    made = [  # plain-word shapes of real tokens; the Mailgun one counts only next to its service name
        "xoxb-123456789012-1234567890123-" + rand(24, lower),
        "glpat-" + "".join(rng.choice(lower) for _ in range(20)),
        "npm_" + "".join(rng.choice(lower) for _ in range(36)),
        "key-" + rand(32, "0123456789abcdef"),
    ]
    return sorted({p for p in pieces if secrets._PLAIN_WORD.fullmatch(p)} | set(made))


@pytest.mark.parametrize("seed", range(8))
def test_plain_words_scanned_together_give_the_word_by_word_answer(seed: int) -> None:
    """scan_fields scans ids, slugs, tags and repos in one text first; the findings must be
    exactly those of scanning each word alone, whatever the words are next to."""
    samples = _plain_words_from_samples()
    assert any(scan_text(w) for w in samples)  # the mix holds real finds, or this proves nothing
    rng = random.Random(seed)
    alphabet = string.ascii_lowercase + string.digits + "._/-"
    context = ["password", "token", "secret", "key", "api", "slack", "mailgun", "twilio", "discord", "auth"]
    for _ in range(150):
        words = [
            rng.choice(
                [
                    rng.choice(samples),
                    rng.choice(context),
                    rng.choice(string.ascii_lowercase)
                    + "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 40))),
                ]
            )
            for _ in range(rng.randrange(2, 9))
        ]
        fields = {"id": words[0], "tags": words[1:]}
        alone = [(f"tags[{i - 1}]" if i else "id", kind) for i, w in enumerate(words) for kind in scan_text(w)]
        assert scan_fields(fields) == alone, words


@pytest.mark.parametrize(
    ("kind", "width"),
    [("GitHub token", w) for w in (4, 5, 6, 7, 9)] + [("AWS access key", w) for w in (3, 4, 5, 6)],
)
def test_a_token_cut_into_many_short_lines_is_found(kind: str, width: int) -> None:
    """Issue 33.19: a token cut into 4 or more lines, each too short for a line break next to
    it to look like a split (under SPLIT_TOKEN characters with its neighbour), is joined."""
    token = {"GitHub token": GH, "AWS access key": AWS_KEY}[kind]
    lines = [token[i : i + width] for i in range(0, len(token), width)]
    assert len(lines) >= 4
    for joint in ("\n", "\n    "):
        assert kind in scan_text("the key:\n" + joint.join(lines) + "\nthat is all"), joint


def test_the_prefilter_table_is_current() -> None:
    """safety/_prefilters.py holds every rule's prefilter as `_superset` derives it (issue 34.5: a
    process that scans reads them instead of deriving all 55). Regenerate with
    `python -c "from jacked_vault.safety.secrets import write_prefilters; write_prefilters()"`."""
    assert Path(_prefilters.__file__).read_text(encoding="utf-8") == secrets.prefilter_source()
    assert all(secrets.PREFILTERS[rule.regex] == rule.prefilter for rule in secrets._RULES)
