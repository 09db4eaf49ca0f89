"""Fake secrets of every family the scanner knows (FAMILIES: kind -> examples), and the pieces to
build more: seeded random characters (`rand`), base64url, PEM headers, DER blobs.

They are assembled at run time from pieces and seeded random characters, so this file never
contains a literal that other scanners (e.g. push protection) would flag.
"""

from __future__ import annotations

import base64
import json
import random
import string

ALNUM = string.ascii_letters + string.digits
UPPER_DIGITS = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
rng = random.Random(20261129)


def rand(n: int, alphabet: str = ALNUM) -> str:
    """Seeded random characters; ALNUM strings always mix upper, lower and digits."""
    while True:
        value = "".join(rng.choice(alphabet) for _ in range(n))
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


def der_b64(header_hex: str, size: int = 600) -> str:
    """Base64 of a DER blob: `header_hex` (the structure that tells keys from certificates)
    followed by random bytes, wrapped at 64 columns like a PEM body."""
    text = base64.b64encode(bytes.fromhex(header_hex) + rng.randbytes(size)).decode()
    return "\n".join(text[i : i + 64] for i in range(0, len(text), 64))


def discord_token() -> str:
    """base64(user id, 18 digits) . 6 . 38, the shape of a Discord bot token."""
    user_id = str(rng.randrange(10**17, 10**18)).encode()
    return b64url(user_id) + "." + rand(6, B64URL) + "." + rand(38, B64URL)


# DER openings (hex): SEQUENCE header, then what tells a private key from the rest.
RSA_OID = "06092a864886f70d0101010500"  # rsaEncryption, NULL parameters
PKCS8_RSA = "308204bd020100300d" + RSA_OID + "048204a7"  # version 0, algorithm, key
PKCS1_RSA = "308204a40201000282010100"  # version 0, modulus
SEC1_EC = "307702010104"  # version 1, private key octet string
PKCS8_ED25519 = "302e020100300506032b657004220420"
ENCRYPTED_PKCS8 = "3082050c305606092a864886f70d01050d"  # PBES2
CERTIFICATE = "30820377308202" + "5fa003020102"  # tbsCertificate, version [0]
SPKI = "30820122300d" + RSA_OID + "0382010f00"
RSA_PUBLIC = "3082010a0282010100"  # PKCS#1 public key: modulus first
CSR = "308202a23082018a020100"  # CertificationRequestInfo, version 0 inside
BECH32_UPPER = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
COOKIE = rand(32)  # a session id: long and random

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
        # issue 33.19: AWS's documented example secret key is a key in the key's exact shape
        "aws_secret_access_" + "key = wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY",
        "AWS_SECRET_ACCESS_" + "KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY",
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
    "Twilio API key": [
        "Twilio API key SK" + rand(32, HEX),
        "TWILIO_ACCOUNT=AC" + rand(32, HEX),
        "api key sid: SK" + rand(32, HEX),  # no "twilio": a key/sid/token word is enough
        "export TW_KEY=SK" + rand(32, HEX),
    ],
    "SendGrid API key": ["SG." + rand(22, B64URL) + "." + rand(43, B64URL)],
    "JSON Web Token": ["Authorization-less " + JWT],
    "Hugging Face token": ["hf" + "_" + rand(34, string.ascii_letters)],
    "Discord bot token": [
        "bot: " + discord_token(),  # no "discord" needed: the first part decodes to an id
        "discord bot: " + discord_token(),
        b64url(str(rng.randrange(10**16, 10**17)).encode()) + "." + rand(6) + "." + rand(27),
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
        "admin:" + "Sup3rPass@db.internal:5432",  # no scheme
        f"DATABASE_HOST=app:{URL_PASSWORD}@localhost:5432",
        "connect to svc:" + "Hunt3r2Blue!@[::1]:6379",
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
        "password = 'S3cr" + "3tPassw0rd!'",  # contains "pass": still a literal
        "db password=" + "Hunter2Secret!",  # key word after another word
        json.dumps({"smtp_password": "Hunter2" + "Secret!"}),
        'password = "Hunter2' + 'yourSecret!"',  # contains "your": not a placeholder
        "PASSWORD=" + "myExample" + "Pass1!",
        # issue 18.13: a value that is a word-like identifier is still a password under a
        # password key unless it names one (a password word, or separated words with a secret word)
        "password=" + "Hunter2" + "Secret",
        "DB_PASSWORD=" + "Hunter2" + "Secret",
        "database:\n  password: " + "Hunter2" + "Secret\n",
        json.dumps({"password": "Monkey" + "123abc"}),  # "key" inside: no name
        "export SMTP_PASSWORD='" + "Tr0ub4" + "dor3'",
        "pwd=" + PASSWORD,
        "DB_PWD: " + "Tr0ub4" + "dor3",
        "Server=db.internal;Uid=app;Pwd=" + "Tr0ub4" + "dor3;",
        "DB_PASS=" + "Hunter2" + "Secret",
        "pass: " + PASSWORD,
        "$env:DB_PASSWORD = '" + "Hunter2" + "Secret'",
        "ConnectionString=Server=db;User Id=sa;Password=" + "Hunter2" + "Secret;",
        # issue 33.19: shell-special characters inside an env file's value
        "DB_PASSWORD=" + "x^&!Qz" + "9pLw",
        "DB_PASSWORD=" + "Sup3r^&!" + "Secret",
    ],
    "password in prose": [
        "the db password is " + "Tr0ub4" + "dor3xyzQ",
        "The password for the staging db is now `" + "Tr0ub4" + "dor3xyzQ`.",
        "the root password has been set to " + "p@ssw0rd" + "9 for now",
        "password of bob@db.internal is " + "Hunter2" + "secret",
        'our wifi passphrase was "' + "p@ssw0rd" + '-2024"',
        "DB password was changed to " + "Hunter2" + "Secret!",
        "Passwords are " + "Tr0ub4" + "dor3xyzQ, then the mail one",
        "the db password is\n" + "Tr0ub4" + "dor3xyzQ",  # issue 33.19: the value on the next line
        "The password for the staging db is now:\n  " + "p@ssw0rd" + "9x\n",
    ],
    "credential in command-line flag": [
        f"mysql --password {PASSWORD} app",
        f"vault login --token '{rand(28)}'",
        "deploy --api-key " + rand(32, HEX),
        "curl -u admin:" + f"{PASSWORD} https://api.acme.io",
        f'curl --user "deploy:{PASSWORD}" https://api.acme.io',
        f"wget --user=bob:{PASSWORD} https://files.acme.io",
        "psql --password " + "Hunter2" + "Secret",
        "tool --db-pass " + "Tr0ub4" + "dor3",
        # issue 33.19: the password flags of mysql (glued `-pPW`) and redis-cli (`-a PW`)
        "mysql -uroot -p" + "Hunter2" + "Secret! app",
        "mysqldump -h db.internal -u app -p" + "S3cr3t" + "Pw9 app > dump.sql",
        "mariadb --user=app -p'" + "Tr0ub4" + "dor3!'",
        "redis-cli -h cache -a " + "Hunter2" + "Secret! ping",
        "redis-cli -a '" + "Tr0ub4" + "dor3!' --no-auth-warning",
    ],
    "password in .netrc entry": [
        f"machine api.acme.io login bob password {PASSWORD}",
        f"machine git.acme.io\n  login bot\n  password {PASSWORD}\n",
    ],
    "password in .pgpass line": [
        f"db.internal:5432:app:bob:{PASSWORD}",
        f"echo '*:*:*:postgres:{URL_PASSWORD}' >> ~/.pgpass",
        f"127.0.0.1:6432:*:app:{URL_PASSWORD}\n",
    ],
    "session cookie": [
        "Cookie: session=" + COOKIE,
        f"curl -H 'Cookie: theme=dark; _ga=GA1.2.1234567890.1600000000; sid={COOKIE}'",
        "Set-" + "Cookie: sessionid=" + rand(32, string.ascii_lowercase + DIGITS) + "; HttpOnly",
    ],
    "private key (base64 body)": [
        der_b64(PKCS8_RSA),
        der_b64(PKCS1_RSA),
        der_b64(SEC1_EC, 100),
        der_b64(PKCS8_ED25519, 32),
        der_b64(ENCRYPTED_PKCS8),
        '{"key": "' + der_b64(PKCS8_RSA).replace("\n", "") + '"}',
        "b3BlbnNzaC1" + "rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"
        + rand(300, B64),
    ],
    "age secret key": ["AGE-" + "SECRET-KEY-1" + rand(58, BECH32_UPPER)],
    "credential in Authorization header": [
        'curl -H "Authorization: Bearer ' + rand(40) + '"'
    ],
}


def token_lines(size: int, seed: int = 0) -> str:
    """About `size` bytes of short random alphanumeric lines: nothing the scanner reports, and its
    slowest common shape (each line break may split a token, so windows of joined lines are
    scanned too: ~66 ms a 64 KiB body on the 2-core VM, against ~20 ms for prose). Issue 31.9's
    pushed notes were made of such lines."""
    local = random.Random(seed)
    return "\n".join("".join(local.choice(ALNUM) for _ in range(10)) for _ in range(max(1, size // 11)))
