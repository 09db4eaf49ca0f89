"""Secret scanner: every family, positions, near misses, field paths, refusal message.

Fake secrets are assembled at run time from pieces and seeded random characters, so this
file never contains a literal that other scanners (e.g. push protection) would flag.
"""

from __future__ import annotations

import base64
import json
import random
import string

import pytest

from jacked_vault.errors import VaultError
from jacked_vault.safety.secrets import assert_no_secrets, scan_fields, scan_text

ALNUM = string.ascii_letters + string.digits
UPPER_DIGITS = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
_rng = random.Random(20261129)


def rand(n: int, alphabet: str = ALNUM) -> str:
    """Seeded random characters; ALNUM strings always mix upper, lower and digits."""
    while True:
        value = "".join(_rng.choice(alphabet) for _ in range(n))
        if alphabet != ALNUM or (
            any(c.isupper() for c in value)
            and any(c.islower() for c in value)
            and any(c.isdigit() for c in value)
        ):
            return value


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def pem(label: str) -> str:
    return "-----" + "BEGIN " + label + "-----"


def uuid() -> str:
    h = rand(32, HEX)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


GH = "gh" + "p_" + rand(36)
AWS_KEY = "AK" + "IA" + rand(16, UPPER_DIGITS)
SLACK = "xo" + "xb-" + rand(12, string.digits) + "-" + rand(13, string.digits) + "-" + rand(24)
OPENAI = "sk-" + "proj-" + rand(64) + "_" + rand(40)
JWT = (
    b64url(b'{"alg":"HS256","typ":"JWT"}')
    + "."
    + b64url(b'{"sub":"1234567890","name":"Ada","iat":1700000000}')
    + "."
    + rand(43, B64URL)
)
PASSWORD = "Vq7#" + rand(12)
URL_PASSWORD = rand(14) + "!7"  # no URL delimiters (# / ? @)

def slack_webhook() -> str:
    team, bot = rand(8, UPPER_DIGITS), rand(10, UPPER_DIGITS)
    return f"https://hooks.slack.com/services/T{team}/B{bot}/{rand(24)}"


def gcp_service_account() -> str:
    return json.dumps(
        {
            "type": "service_account",
            "project_id": "acme-prod",
            "private_key_id": rand(40, HEX),
            "private_key": "MIIE" + "vQIBADANBgkqhkiG9w0BAQEFAASC" + rand(40, B64) + "\\n",
            "client_email": "deploy@acme-prod.iam.gserviceaccount.com",
        },
        indent=2,
    )


DIGITS = string.digits
# kind -> examples (each one parametrised case, id "<kind> <n>")
FAMILIES: dict[str, list[str]] = {
    "AWS access key": [f"key id {AWS_KEY}", "AS" + "IA" + rand(16, UPPER_DIGITS)],
    "AWS secret access key": [
        "aws_secret_access_key = " + rand(40, B64),
        "AWS_SECRET_ACCESS_KEY=" + rand(40, B64),
        '{"SecretAccessKey": "' + rand(40, B64) + '"}',
    ],
    "GitHub token": [
        GH,
        "gh" + "o_" + rand(36),
        "gh" + "u_" + rand(36),
        "gh" + "s_" + rand(36),
        "gh" + "r_" + rand(36),
        "github" + "_pat_" + rand(22) + "_" + rand(59),
        "tags: [deploy-" + GH.lower() + "]",  # slugs are lowercase
    ],
    "GitLab token": ["gl" + "pat-" + rand(20), "gl" + "dt-" + rand(20), "gl" + "rt-" + rand(20)],
    "Slack token": [
        SLACK,
        "xo" + "xp-" + rand(11, DIGITS) + "-" + rand(32),
        "xa" + "pp-1-A" + rand(10, UPPER_DIGITS) + "-" + rand(13, DIGITS) + "-" + rand(64, HEX),
    ],
    "Slack webhook URL": [slack_webhook()],
    "Stripe secret key": [
        "sk" + "_live_" + rand(24),
        "rk" + "_live_" + rand(24),
        "sk" + "_test_" + rand(24),
    ],
    "OpenAI API key": ["sk-" + rand(48), OPENAI],
    "Anthropic API key": ["sk-" + "ant-" + "api03-" + rand(93) + "-" + rand(6) + "AA"],
    "Google API key": ["AI" + "za" + rand(35, B64URL)],
    "GCP service-account key": [gcp_service_account()],
    "Azure storage account key": [
        "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey="
        + rand(86, B64)
        + "==;EndpointSuffix=core.windows.net"
    ],
    "npm token": ["//registry.npmjs.org/:_authToken=" + "np" + "m_" + rand(36)],
    "PyPI token": ["pypi-" + "AgEIcHlwaS5vcmc" + rand(70, B64URL)],
    "Twilio API key": ["Twilio API key SK" + rand(32, HEX), "TWILIO_ACCOUNT=AC" + rand(32, HEX)],
    "SendGrid API key": ["SG." + rand(22, B64URL) + "." + rand(43, B64URL)],
    "JSON Web Token": ["Authorization-less " + JWT],
    "Hugging Face token": ["hf" + "_" + rand(34, string.ascii_letters)],
    "Discord bot token": [
        "discord bot: M" + rand(23, B64URL) + "." + rand(6, B64URL) + "." + rand(27)
    ],
    "Discord webhook URL": [
        "https://discord.com/api/webhooks/" + rand(18, DIGITS) + "/" + rand(68, B64URL)
    ],
    "Telegram bot token": ["bot " + rand(10, DIGITS) + ":AA" + rand(33)],
    "Heroku API key": ["HEROKU_API_KEY=" + uuid(), "HR" + "KU-AA" + rand(58, B64URL)],
    "Datadog API key": ["DD_API_KEY=" + rand(32, HEX), "datadog app key: " + rand(40, HEX)],
    "DigitalOcean token": ["do" + "p_v1_" + rand(64, HEX)],
    "Shopify token": ["shp" + "at_" + rand(32, HEX)],
    "Mailgun API key": [
        "mailgun: key-" + rand(32),
        "MAILGUN_KEY " + rand(32, HEX) + "-" + rand(8, HEX) + "-" + rand(8, HEX),
    ],
    "HashiCorp Vault token": [
        "hv" + "s." + rand(90, B64URL),
        "hv" + "b." + rand(120, B64URL),
        "export VAULT_TOKEN=s." + rand(24),
    ],
    "private key (PEM header)": [
        pem(label)
        for label in (
            "RSA PRIVATE KEY",
            "OPENSSH PRIVATE KEY",
            "PRIVATE KEY",
            "EC PRIVATE KEY",
            "ENCRYPTED PRIVATE KEY",
            "DSA PRIVATE KEY",
            "PGP PRIVATE KEY BLOCK",
        )
    ],
    "PuTTY private key": ["PuTTY-User-Key-" + "File-3: ssh-ed25519\nEncryption: none"],
    "password in URL": [
        f"https://deploy:{URL_PASSWORD}@git.acme.io/org/repo.git",
        f"postgres://app:{URL_PASSWORD}@db.internal:5432/app",
        f"mysql://root:{URL_PASSWORD}@127.0.0.1/app",
        f"redis://:{URL_PASSWORD}@cache:6379/0",
        f"amqp://worker:{URL_PASSWORD}@mq/vhost",
        f"mongodb+srv://svc:{URL_PASSWORD}@cluster0.mongodb.net/db",
        "postgres://postgres:" + "postgres@localhost/dev",
    ],
    "password or secret assignment": [
        f"DB_PASSWORD={PASSWORD}",
        f"database:\n  password: {PASSWORD}\n",
        json.dumps({"password": PASSWORD}),
        f"[db]\npasswd = {PASSWORD}\n",
        f"client_secret = '{PASSWORD}'",
        f"SECRET={PASSWORD}",
        f'api_key="{PASSWORD}"',
        f'const config = {{ apiKey: "{PASSWORD}" }}',
        "token: " + rand(32, HEX),
        f'{{ "passphrase" => "{PASSWORD}" }}',
        f"mysql --password={PASSWORD} app",
    ],
    "credential in Authorization header": [
        'curl -H "Authorization: Bearer ' + rand(40) + '"'
    ],
}


@pytest.mark.parametrize(
    ("kind", "text"),
    [(kind, text) for kind, texts in FAMILIES.items() for text in texts],
    ids=[f"{kind} {i}" for kind, texts in FAMILIES.items() for i in range(len(texts))],
)
def test_family_is_detected(kind: str, text: str) -> None:
    assert kind in scan_text(text)


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


def _lockfile() -> str:
    integrity = "sha512-" + base64.b64encode(_rng.randbytes(64)).decode()
    return json.dumps(
        {
            "node_modules/lodash": {
                "version": "4.17.21",
                "resolved": "https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz",
                "integrity": integrity,
            }
        },
        indent=2,
    ) + f"\n  integrity: {integrity}\n"


NEAR_MISSES = {
    "git sha": "fixed in " + rand(40, HEX) + " (see also " + rand(40, HEX) + ")",
    "short shas": f"cherry-picked {rand(7, HEX)}, {rand(10, HEX)} and {rand(12, HEX)}",
    "uuid": f"request id {uuid()} failed",
    "ulid": "01JDZ5K6X9F3Q8W2V7N4M1C0AB and 01jdz5k6x9f3q8w2v7n4m1c0ab",
    "note id": "links: [mem_20261129_01jdz5k6x9f3q8w2v7n4m1c0ab]",
    "sha256": "sha256:" + rand(64, HEX),
    "sha512": "sha512 " + rand(128, HEX),
    "lockfile": _lockfile(),
    "ssh-rsa public key": "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ" + rand(500, B64) + " me@host",
    "ssh-ed25519 public key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + rand(43, B64) + " me@host",
    "public key pem": pem("PUBLIC KEY") + "\n" + rand(64, B64) + "\n-----END PUBLIC KEY-----",
    "rsa public key pem": pem("RSA PUBLIC KEY"),
    "certificate pem": pem("CERTIFICATE") + "\nMIID" + rand(60, B64),
    "pgp public key": pem("PGP PUBLIC KEY BLOCK"),
    "env var reference": "password = ${DB_PASSWORD}",
    "dollar var": "export TOKEN=$GITHUB_TOKEN",
    "angle placeholder": 'api_key = "<your-api-key>"',
    "mask": "password: ****************",
    "x mask": 'secret = "xxxxxxxxxxxxxxxx"',
    "changeme": 'password = "changeme"',
    "changeme with digits": 'password = "changeme123"',
    "os.environ": 'password = os.environ["DB_PASSWORD"]',
    "os.getenv": 'token = os.getenv("GITHUB_TOKEN")',
    "process.env": "const token = process.env.GITHUB_TOKEN;",
    "actions secret": "token: ${{ secrets.GITHUB_TOKEN }}",
    "jinja": 'password: "{{ vault_db_password }}"',
    "windows env": "set PASSWORD=%DB_PASSWORD%",
    "aws doc key id": "AKIA" + "IOSFODNN7" + "EXAMPLE",
    "aws doc secret": "aws_secret_access_" + "key = wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY",
    "example value": 'api_key = "sk_example_4f9a8b7c6d5e"',
    "dummy value": 'token = "dummy-T0ken-for-tests"',
    "fake value": 'password = "fake_Passw0rd!"',
    "sample value": "secret: Sample-S3cret-value",
    "placeholder github token": "gh" + "p_" + "x" * 36,
    "empty password": 'password = ""',
    "null password": "password: null",
    "none password": "password = None",
    "min length setting": "password_min_length = 12",
    "token url": "token_url: https://auth.acme.io/oauth/token",
    "max tokens": "max_tokens: 4096",
    "prose": "The password field is required. Rotate the API key and the token monthly.",
    "validation message": '{"password": "This field is required."}',
    "url without password": "https://user@host.example.org/path",
    "url with port": "https://git.acme.io:8443/org/repo",
    "scp-style git url": "git@github.com:org/repo.git",
    "url placeholder password": "https://user:pass@host/path and https://u:password@h/",
    "url env password": "postgres://app:${DB_PASSWORD}@db/app",
    "stripe publishable": "pk" + "_live_" + rand(24),
    "base64 image": "![chart](data:image/png;base64,"
    + base64.b64encode(_rng.randbytes(6000)).decode()
    + ")",
    "function call": "token = get_token()",
    "request form": 'password = request.form["password"]',
    "variable reference": "password = user_password\napiKey = config.apiKey",
    "slug starting sk-": "tags: [sk-learn-pipeline-tuning-notes]",
    "task ids": "task-0123456789abcdefghij and disk-usage-monitoring-dashboard",
    "hf-like identifier": "hf_tokenizer_config_loader_module",
    "twilio sid without context": "SK" + rand(32, HEX),
    "heroku uuid without key": f"heroku app id {uuid()}",
    "mailgun shape without context": "key-" + rand(32),
    "vault-like without context": "s." + rand(24),
    "pagination token": '{"NextToken": "' + rand(60, B64) + '"}',
    "secret arn": "arn:aws:secretsmanager:us-west-2:123456789012:secret:prod/db-AbC123",
    "type annotations": "def login(password: str, token: Optional[str]) -> None:",
    "secret named in value": 'password: "generatedwebdavpassword1"',
    ".NET public key token": '<assemblyIdentity publicKeyToken="1fc8b3b9a1e18e3b"/>',
    "html": "<code>tokens: true</code>",
    "timestamps": "2026-11-29T17:00:00.000Z 12:34:56",
    "date-colon slug": "20261129:deploy-notes-for-release-abc",
}


@pytest.mark.parametrize("text", NEAR_MISSES.values(), ids=NEAR_MISSES.keys())
def test_near_miss_is_not_flagged(text: str) -> None:
    assert scan_text(text) == []


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


def test_clean_fields_pass() -> None:
    assert scan_fields({"title": "ok", "tags": ["a", "b"]}) == []
    assert_no_secrets({"title": "Use SQLite FTS5", "body": "We chose FTS5.", "tags": ["search"]})


def test_refusal_names_field_and_kind_but_never_the_value() -> None:
    with pytest.raises(VaultError) as caught:
        assert_no_secrets({"title": "deploy notes", "body": f"token is {GH}"})
    error = caught.value
    assert error.code == "SECRET"
    assert error.message == (
        "refused: body contains what looks like a GitHub token; nothing was written"
    )
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
        assert_no_secrets(
            {"body": f"{AWS_KEY} and {pem('RSA PRIVATE KEY')}", "tags": ["a", "deploy-" + GH]}
        )
    assert caught.value.message == (
        "refused: body contains what looks like an AWS access key and a private key "
        "(PEM header); tags[1] contains what looks like a GitHub token; nothing was written"
    )


def test_scan_handles_non_ascii_text() -> None:
    text = "Zürich 東京 🚀 İstanbul — " + GH + " — ok"
    assert scan_text(text) == ["GitHub token"]
    unicode_assignment = "İİİ pass" + "word = Ünïcödé-Pässwörd-42 ok"
    assert scan_text(unicode_assignment) == ["password or secret assignment"]
