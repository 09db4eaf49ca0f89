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
    """Seeded random characters; ALNUM strings always mix upper, lower and digits (so at least 3)."""
    if alphabet == ALNUM and n < 3:
        raise ValueError(f"rand({n}): an ALNUM string mixing upper, lower and digits needs 3 characters")
    while True:
        value = "".join(rng.choice(alphabet) for _ in range(n))
        if alphabet != ALNUM or (
            any(c.isupper() for c in value) and any(c.islower() for c in value) and any(c.isdigit() for c in value)
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
    "Discord webhook URL": ["https://discord.com/api/webhooks/" + rand(18, DIGITS) + "/" + rand(68, B64URL)],
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
        "b3BlbnNzaC1" + "rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW" + rand(300, B64),
    ],
    "age secret key": ["AGE-" + "SECRET-KEY-1" + rand(58, BECH32_UPPER)],
    "credential in Authorization header": ['curl -H "Authorization: Bearer ' + rand(40) + '"'],
}


def token_lines(size: int, seed: int = 0) -> str:
    """About `size` bytes of short random alphanumeric lines: nothing the scanner reports, and its
    slowest common shape (each line break may split a token, so windows of joined lines are
    scanned too: ~66 ms a 64 KiB body on the 2-core VM, against ~20 ms for prose). Issue 31.9's
    pushed notes were made of such lines."""
    local = random.Random(seed)
    return "\n".join("".join(local.choice(ALNUM) for _ in range(10)) for _ in range(max(1, size // 11)))


def _lockfile() -> str:
    integrity = "sha512-" + base64.b64encode(rng.randbytes(64)).decode()
    return (
        json.dumps(
            {
                "node_modules/lodash": {
                    "version": "4.17.21",
                    "resolved": "https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz",
                    "integrity": integrity,
                }
            },
            indent=2,
        )
        + f"\n  integrity: {integrity}\n"
    )


# Texts that look like secrets and are not: each must scan clean (tests/unit/test_secrets.py,
# tests/e2e/test_secret_engine.py).
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
    "base64 image": "![chart](data:image/png;base64," + base64.b64encode(rng.randbytes(6000)).decode() + ")",
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
    # placeholders must *be* placeholders
    "your password here": 'password = "your_password_here1"',
    "YOUR TOKEN": "TOKEN=YOUR_TOKEN_123",
    "your prefix": "password: yourpassword123",
    "example segment": 'secret = "my-example-S3cret"',
    "code call": "password = get_password()",
    "names naming secrets": 'password = "DB_PASSWORD2"\nsecret: vault_db_secret_v2',
    "type naming a key": "private_key: PKCS7PrivateKeyTypes,",
    "escaped secret word": "events={'(?i)password':'secret\\\\n'}",
    "aws doc suffixes": 'authKey=asdf34example,\n"authKey": "0xC_ukbCerl6EYA0example"\n'
    + '"clientRequestToken": "123Example"',
    "ipv6 in xml": "<addr>2001:db8:1100:2f0:0:1:9cb4:4216/125</addr>",
    "regex with colons": '"pattern": "(?:([0-1](\\\\d)|[2][0-3]):[0-5](\\\\d):'
    + "[0-5](\\\\d)|23:59:60)"
    + '(?:\\\\.(\\\\d)+)?([Z]|[+-](\\\\d\\\\d)(:?(\\\\d\\\\d))?)$"',
    # command-line flags
    "password flag with variable": 'mysql --password "$DB_PASSWORD" app',
    "password flag prose": "pass the --password flag and --token option",
    "password stdin": "docker login --password-stdin < token.txt",
    "token file flag": "gh auth login --with-token --token-file ~/.tok",
    "short -p skipped": "docker run -p 5432:5432 -p 8080:80 postgres",
    "curl user without password": "curl -u admin https://api.acme.io",
    "curl user variables": 'curl -u "$USER:$PASS" https://api.acme.io',
    "docker uid gid": "docker run -u 1000:1000 --user www-data:www-data img",
    # .netrc and .pgpass look-alikes
    "netrc prose": "the build machine login page asks for a password reset",
    "netrc placeholder": "machine api.acme.io login bob password ${NETRC_PASSWORD}",
    "ipv6": "listen on 2001:0db8:85a3:0000:0000:8a2e:0370:7334 and fe80::1:2:3:4",
    "passwd line": "root:x:0:0:root:/root:/bin/bash",
    "pgpass mask": "localhost:5432:*:postgres:********",
    "times": "12:30:45:67:89 and 2026-11-29T17:00:00.000Z:ok",
    # cookies
    "cookie prose": "The Cookie: header and Set-Cookie: header carry the session",
    "short cookies": "Set-" + "Cookie: theme=dark; Path=/; Max-Age=3600; SameSite=Lax",
    "analytics cookies": "Cookie: _ga=GA1.2.1234567890.1600000000; " + "_fbp=fb.1.1596403881668.1116446470",
    "cookie variable": "Cookie: session=${SESSION_ID}",
    "cookie redacted": "Cookie: sessionid=<redacted>; csrftoken=****",
    # base64 bodies of public material
    "certificate body": der_b64(CERTIFICATE),
    "public key body": der_b64(SPKI, 270),
    "rsa public key body": der_b64(RSA_PUBLIC, 260),
    "csr body": der_b64(CSR),
    "certificate body in json": '{"cert": "' + der_b64(CERTIFICATE).replace("\n", "\\n") + '"}',
    "short M word": "MIGRATION_LOCK and MAX_BODY_BYTES and MIIIIIIIII",
    # user:pass@host look-alikes
    "email": "mail alice@example.com or bob.smith99@corp.com",
    "user at host": "ssh deploy@build.internal and scp f.txt deploy@host:/tmp",
    "mailto": "mailto:Bob.Smith99@corp.com and sip:Alice.B2@voip.acme.io",
    "image digest": "nginx:1.25-alpine@sha256:" + rand(64, HEX),
    "purl": "pkg:npm/lodash@4.17.21 and pkg:pypi/Django2x@4.2",
    "time at host": "12:30@db.internal",
    # age, twilio, discord look-alikes
    "age public key": "age1" + rand(58, BECH32_UPPER.lower()),
    "age secret placeholder": "AGE-" + "SECRET-KEY-1...",
    "hex after SK in a word": "TASK" + rand(32, HEX) + " and DISK " + rand(32, HEX),
    "dotted base64 not an id": "M" + rand(23, B64URL) + "." + rand(6, B64URL) + "." + rand(27),
    # AWS documentation: EXAMPLE inside, in capitals
    "aws doc session token": '"SessionToken": "AQoEXAMPLEH4aoAH0gNCAPyJxz4BlCFFxWNE1OPTgk5Tth'
    + 'T+FvwqnKwRcOIfrRh3c/LTo6UDdyJwOOvEVPvLXCrrrUtdnniCEXAMPLE/IvU1dYUg2RVAJBanLiHb4IgRmpRV3"',
    "aws doc key in presigned url": "X-Amz-Credential=AKIA" + "EXAMPLEPBUMBC3GA%2F20170824%2F",
    # pagination, idempotency and request tokens passed on a command line
    # passwords (issue 18.13): names, code, placeholders and words, in assignments and prose
    "password prose words": "The password is required. The password is hashed with bcrypt and "
    + "the password was reset; passwords are never logged. The password is 8 characters long.",
    "password prose technical": "the password is sha256-hashed, the password is PBKDF2-SHA256, "
    + "the password is base64-encoded and the passphrase is argon2id-derived",
    "password prose terms": "the password is Argon2id-hashed, the password is OAuth2-based, the "
    + "password is Base64Encoded; password Argon2id hashing; password reset for User42Account",
    "password prose placeholders": "the password is <your-password>, the password is ${DB_PASSWORD}, "
    + "the password is $PASSWORD, the password is ****, the password is `os.environ['DB_PASSWORD']`",
    "password prose reference": "the password is in vault:secret/db and the password is ~/.pgpass",
    "password prose name": "the password is DB_PASSWORD2, set by the password_reset_v2 job",
    "password prose short": "my password is hunter2 and the password is abc12",
    "pass prose": "the first pass is O(n2) and the second pass was 2x faster; pass it Tr0ub4dor3",
    "password named by a word": "password = DB_PASSWORD2\npassword: generatedwebdavpassword1\n"
    + "password=userPass1\npasswd = old_passwd2\npassword = token_v2",
    "password code": "password = get_password()\npassword: str\npwd = os.getcwd()\n"
    + "password = self.password2\npassword = kwargs['password1']",
    "pwd path": "PWD=/home/user/project2 and pwd: ~/src2 and cd $PWD",
    "bypass and compass": "bypass = True2x\ncompass = North3East\nsurpass: Level4Boss",
    "pass in python": "if ok:\n    pass\nelse:  # pass\n    pass  # noqa: E501",
    "pass booleans": '{"pass": true, "passed": 12, "pass_rate": "95.5%"}',
    "password placeholders": 'password = "<your-password>"\nDB_PASSWORD=${DB_PASSWORD}\n'
    + "password: '****'\npwd=%DB_PWD%",
    "password flag placeholder": 'psql --password "$PGPASSWORD" and --db-pass ${DB_PASS}',
    # issue 33.19's rules, where they must not reach: `-p` before a space (mysql asks), ports, paths
    "mysql asks for the password": "mysql -u root -p app_db\nmysql -uroot -p < schema.sql",
    "other -p flags": "psql -h db -p 5432 app\nmkdir -p /srv/app/releases2024\nssh -p 2222 deploy@host",
    "redis-cli references": 'redis-cli -a "$REDIS_PASSWORD" ping; redis-cli -h cache -p 6380 -n 2 info',
    "query string": "GET /search?token=abc&page=2&q=docs",
    "one word a line": "Shopping:\napples\nbananas\ncherries\ndates\nelderberries\nfigs\n",
    "short hex lines": "offsets:\n0x1f\n0x2a\n0x3c\n0x4d\n0x5e\n",
    "cli public tokens": "aws dynamodb list-tables --starting-token "
    + rand(60)
    + " --client-token "
    + uuid()
    + " --next-token "
    + rand(40)
    + " --idempotency-token 91adc45q --registration-token "
    + uuid(),
}
