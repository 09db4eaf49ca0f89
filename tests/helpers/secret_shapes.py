"""Split-token shapes for the secret scanner's property tests (issue 17.11): every token family
cut over lines in the ways code and prose cut it, and near misses cut the same ways
(tests/unit/test_secret_shapes.py, tests/e2e/test_secret_engine.py)."""

from __future__ import annotations

import base64
import itertools
import json
import random
import string
from collections.abc import Callable

ALNUM = string.ascii_letters + string.digits
UPPER_DIGITS = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
BECH32_UPPER = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"

Rng = random.Random
# (text before the token on its line, the token, text after it on its line): only the token
# is split; the context some kinds need (a key name, a service named nearby) stays whole.
Sample = tuple[str, str, str]


def chars(rng: Rng, n: int, alphabet: str = ALNUM) -> str:
    """Random characters; ALNUM ones always mix upper case, lower case and digits."""
    while True:
        value = "".join(rng.choice(alphabet) for _ in range(n))
        if alphabet != ALNUM or (
            any(c.isupper() for c in value) and any(c.islower() for c in value) and any(c.isdigit() for c in value)
        ):
            return value


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _jwt(rng: Rng) -> str:
    head = b64url(b'{"alg":"HS256","typ":"JWT"}')
    return head + "." + b64url(b'{"sub":"' + str(rng.randrange(10**9)).encode() + b'"}') + "." + chars(rng, 43, B64URL)


def _discord(rng: Rng) -> str:
    return (
        b64url(str(rng.randrange(10**17, 10**18)).encode()) + "." + chars(rng, 6, B64URL) + "." + chars(rng, 38, B64URL)
    )


def _der_body(rng: Rng) -> str:
    """A PKCS#8 RSA private key's base64 body, unwrapped (version 0, algorithm, key)."""
    header = bytes.fromhex("308204bd020100300d06092a864886f70d0101010500048204a7")
    return base64.b64encode(header + rng.randbytes(90)).decode()


def _uuid(rng: Rng) -> str:
    h = chars(rng, 32, HEX)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


PEM_LABELS = [
    "RSA PRIVATE KEY",
    "OPENSSH PRIVATE KEY",
    "PRIVATE KEY",
    "EC PRIVATE KEY",
    "ENCRYPTED PRIVATE KEY",
    "PGP PRIVATE KEY BLOCK",
]

# kind -> makers of samples of that kind
FAMILIES: dict[str, list[Callable[[Rng], Sample]]] = {
    "GitHub token": [
        lambda r: ("", "gh" + "p_" + chars(r, 36), ""),
        lambda r: ("", "gh" + r.choice("ousr") + "_" + chars(r, 36), ""),
        lambda r: ("", "github" + "_pat_" + chars(r, 22) + "_" + chars(r, 59), ""),
    ],
    "AWS access key": [lambda r: ("", "AK" + "IA" + chars(r, 16, UPPER_DIGITS), "")],
    "AWS secret access key": [lambda r: ("", "aws_secret_access_" + "key = " + chars(r, 40, B64), "")],
    "GitLab token": [lambda r: ("", "gl" + "pat-" + chars(r, 20), "")],
    "Slack token": [
        lambda r: (
            "",
            "xo" + "xb-" + chars(r, 12, string.digits) + "-" + chars(r, 13, string.digits) + "-" + chars(r, 24),
            "",
        ),
        lambda r: ("", "xo" + "xp-" + chars(r, 11, string.digits) + "-" + chars(r, 32), ""),
    ],
    "Slack webhook URL": [
        lambda r: (
            "",
            "https://hooks.slack."
            + "com/services/T"
            + chars(r, 8, UPPER_DIGITS)
            + "/B"
            + chars(r, 10, UPPER_DIGITS)
            + "/"
            + chars(r, 24),
            "",
        )
    ],
    "Stripe secret key": [
        lambda r: ("", r.choice(["sk", "rk"]) + "_" + r.choice(["live", "test"]) + "_" + chars(r, 24), "")
    ],
    "Anthropic API key": [lambda r: ("", "sk-" + "ant-" + "api03-" + chars(r, 93) + "-" + chars(r, 6) + "AA", "")],
    "OpenAI API key": [
        lambda r: ("", "sk-" + "proj-" + chars(r, 64) + "_" + chars(r, 40), ""),
        lambda r: ("", "sk-" + chars(r, 48), ""),
    ],
    "Google API key": [lambda r: ("", "AI" + "za" + chars(r, 35, B64URL), "")],
    "GCP service-account key": [
        lambda r: (
            '{"type": "service_account", "private_key_id": "' + chars(r, 40, HEX) + '", "private_key": "',
            "MIIE" + "vQIBADANBgkqhkiG9w0BAQEFAASC" + chars(r, 40, B64),
            '"}',
        )
    ],
    "Azure storage account key": [
        lambda r: (
            "DefaultEndpointsProtocol=https;AccountName=acme;",
            "Account" + "Key=" + chars(r, 86, B64) + "==",
            ";EndpointSuffix=core.windows.net",
        )
    ],
    "npm token": [lambda r: ("", "np" + "m_" + chars(r, 36), "")],
    "PyPI token": [lambda r: ("", "pypi-" + "AgEIcHlwaS5vcmc" + chars(r, 70, B64URL), "")],
    "Twilio API key": [lambda r: ("Twilio API key ", r.choice(["SK", "AC"]) + chars(r, 32, HEX), "")],
    "SendGrid API key": [lambda r: ("", "SG." + chars(r, 22, B64URL) + "." + chars(r, 43, B64URL), "")],
    "JSON Web Token": [lambda r: ("", _jwt(r), "")],
    "Hugging Face token": [lambda r: ("", "hf" + "_" + chars(r, 34, string.ascii_letters), "")],
    "Discord bot token": [lambda r: ("bot: ", _discord(r), "")],
    "Discord webhook URL": [
        lambda r: (
            "",
            "https://discord.com/api/" + "webhooks/" + chars(r, 18, string.digits) + "/" + chars(r, 68, B64URL),
            "",
        )
    ],
    "Telegram bot token": [lambda r: ("bot ", chars(r, 10, string.digits) + ":AA" + chars(r, 33), "")],
    "Heroku API key": [
        lambda r: ("", "HR" + "KU-AA" + chars(r, 58, B64URL), ""),
        lambda r: ("", "HEROKU_API_" + "KEY=" + _uuid(r), ""),
    ],
    "Datadog API key": [lambda r: ("", "DD_API_" + "KEY=" + chars(r, 32, HEX), "")],
    "DigitalOcean token": [lambda r: ("", "do" + "p_v1_" + chars(r, 64, HEX), "")],
    "Shopify token": [lambda r: ("", "shp" + "at_" + chars(r, 32, HEX), "")],
    "Mailgun API key": [
        lambda r: ("mailgun: ", "key-" + chars(r, 32), ""),
        lambda r: ("MAILGUN_KEY ", chars(r, 32, HEX) + "-" + chars(r, 8, HEX) + "-" + chars(r, 8, HEX), ""),
    ],
    "HashiCorp Vault token": [
        lambda r: ("", "hv" + "s." + chars(r, 90, B64URL), ""),
        lambda r: ("export VAULT_TOKEN=", "s." + chars(r, 24), ""),
    ],
    "age secret key": [lambda r: ("", "AGE-" + "SECRET-KEY-1" + chars(r, 58, BECH32_UPPER), "")],
    "private key (PEM header)": [lambda r: ("", "-----" + "BEGIN " + r.choice(PEM_LABELS) + "-----", "")],
    "private key (base64 body)": [
        lambda r: ("", _der_body(r), ""),
        lambda r: (
            "",
            "b3BlbnNzaC1" + "rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW" + chars(r, 60, B64),
            "",
        ),
    ],
    "PuTTY private key": [lambda r: ("", "PuTTY-User-" + "Key-File-3:", " ssh-ed25519")],
}

# Near misses: shaped like tokens, none a secret. Split the same ways, they must stay clean.
NEAR_MISSES: list[Callable[[Rng], Sample]] = [
    lambda r: ("commit ", chars(r, 40, HEX), ""),
    lambda r: ("request ", _uuid(r), ""),
    lambda r: ("", "01JDZ5K6X9F3Q8W2V7N4M1C0AB", ""),
    lambda r: ("links: [", "mem_20261129_01jdz5k6x9f3q8w2v7n4m1c0ab", "]"),
    lambda r: ("", "sha256:" + chars(r, 64, HEX), ""),
    lambda r: ("", "gh" + "p_" + "x" * 36, ""),
    lambda r: ("", "AKIA" + "IOSFODNN7" + "EXAMPLE", ""),
    lambda r: ("", "pk" + "_live_" + chars(r, 24), ""),
    lambda r: ("", "-----BEGIN " + r.choice(["PUBLIC KEY", "CERTIFICATE", "RSA PUBLIC KEY"]) + "-----", ""),
    lambda r: ("tags: [", "sk-learn-pipeline-tuning-notes", "]"),
    lambda r: ("", "hf_tokenizer_config_loader_module", ""),
    lambda r: ("", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + chars(r, 43, B64), " me@host"),
    lambda r: ("", "https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz", ""),
    lambda r: ("", "task-0123456789abcdefghij", ""),
]

PROSE = [
    "the",
    "deploy",
    "token",
    "rotated",
    "see",
    "key",
    "note",
    "a",
    "x",
    "config",
    "2026",
    "next_line_of_a_log_file",
    "configuration_management",
    "README.md",
    "v1.2.3",
    "--verbose",
    "deployment-pipeline-settings",
    "self._on_update",
    "https://docs.acme.io/setup",
]


def _words(rng: Rng) -> str:
    return " ".join(rng.choice(PROSE) for _ in range(rng.randrange(1, 5)))


def _cuts(rng: Rng, token: str, pieces: int, cut: int | None) -> list[str]:
    """`token` in `pieces` parts: at `cut` when given (two parts), else at random positions."""
    points = [cut] if cut is not None else sorted(rng.sample(range(1, len(token)), pieces - 1))
    bounds = [0, *points, len(token)]
    return [token[a:b] for a, b in itertools.pairwise(bounds)]


_PLAIN_BREAKS = ["\n", "\r\n", " \n", "\t\n", "\n  ", "\n\t", "  \n    ", "\r\n  "]
_QUOTED_JOINS = ["{q} +\n{i}{q}", "{q}+\n{i}{q}", "{q}\n{i}+ {q}", "{q}\n{i}{q}"]


def _before(rng: Rng) -> str:
    """What comes before the token's first line: nothing, a line ending in a word (the
    shape the issue found), a long identifier alone on its line, prose on the same line."""
    return rng.choice(
        [
            "",
            _words(rng) + "\n",
            _words(rng) + "\n" + rng.choice(["", "  ", "\t"]),
            rng.choice(PROSE) + "\n",
            _words(rng) + " ",
            "key: ",
            _words(rng) + "\n" + _words(rng) + " ",
        ]
    )


def _after(rng: Rng) -> str:
    return rng.choice(
        [
            "",
            "\n",
            " " + _words(rng),
            "\n" + _words(rng),
            "\n    " + _words(rng),
            ",\n" + _words(rng),
            "\n" + rng.choice(PROSE),
        ]
    )


def split_shape(rng: Rng, sample: Sample, cut: int | None = None) -> str:
    """One split-line shape of `sample`: 2 parts at `cut`, else 2 or 3 at random places."""
    prefix, token, suffix = sample
    parts = _cuts(rng, token, 2 if cut is not None else rng.choice([2, 3]), cut)
    style = rng.choice(["plain", "plain", "plain", "quoted", "continuation", "json"])
    if style == "quoted" and prefix.endswith('"'):  # already inside a string (JSON)
        style = "plain"
    indent = rng.choice(["", "  ", "    ", "\t"])
    if style == "quoted":
        q = rng.choice(['"', "'", "`"])
        joined = q + "".join(p + rng.choice(_QUOTED_JOINS).format(q=q, i=indent) for p in parts[:-1]) + parts[-1] + q
        body = prefix + rng.choice(["x = ", "token = (", "const t = "]) + joined + suffix
    elif style == "continuation":
        body = prefix + "".join(p + "\\\n" + indent for p in parts[:-1]) + parts[-1] + suffix
    else:
        body = (
            prefix
            + "".join(p + rng.choice(_PLAIN_BREAKS) + rng.choice(["", indent]) for p in parts[:-1])
            + parts[-1]
            + suffix
        )
    text = _before(rng) + body + _after(rng)
    return json.dumps({"log": text}) if style == "json" else text
