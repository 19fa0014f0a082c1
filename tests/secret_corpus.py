"""A labelled corpus of credential-bearing lines and look-alikes, for measuring secret detectors.

Each :class:`Case` is one small file: its ``path``, its whole ``text`` and, for a positive, the ``value``
(the exact secret substring) a detector must cover. ``bench/secrets_bench.py`` scores prooftext's
:mod:`prooftext.corpus.secrets` (and, optionally, detect-secrets and gitleaks' rules) on it.

No secret is stored here: every value is *generated* at import time, deterministically, from a
``random.Random`` seeded with the SHA-256 of the case's own label (so adding a case never changes another),
drawing from the alphabet and length of its shape. Fixed-prefix provider tokens are the provider's public
prefix plus a generated body. A draw that spells a placeholder word (``example``, ``test``, ``fake``,
``xxxx``, ...) is drawn again, so a miss is never explained by the value looking like a placeholder.

Positives (shape ids, grouped)
    * keyword after letters: ``env-pgpassword``, ``sh-export-pgpassword``, ``*-camel-clientSecret``,
      ``*-dbPassword``, ``yaml-adminPassword``;
    * bare and compound keywords: ``yaml-token``, ``env-TOKEN``, ``py-API_TOKEN``, ``*-auth_token``,
      ``*-access_token``, ``*-refresh_token``, ``*-secret_key``, ``py-django-SECRET_KEY``,
      ``*-private_key`` (WireGuard ``PrivateKey``), ``*-api_key`` / ``*-apiKey``, ``*-x-api-key``;
    * headers: ``py-headers-bearer``, ``js-headers-bearer``, ``curl-bearer``, ``*-basic-auth``;
    * command lines and URLs: ``curl-u``, ``mysql-p``, ``mysql-password``, ``sshpass-p``, ``url-redis``,
      ``url-postgres``, ``url-mongodb-srv``, ``url-amqp``;
    * credential files: ``netrc-oneline``, ``netrc-multiline``, ``npmrc-authToken``, ``npmrc-auth``,
      ``npmrc-password``, ``docker-config-auth``;
    * a literal default: ``py-getenv-or``, ``py-environ-get-default``, ``js-env-or``;
    * a fixed-shape key glued to a word: ``glued-aws-key`` (in text) and ``path-aws-key`` (``in_path``);
    * provider tokens (``tok-*``): AWS key id and secret, GitHub classic and fine-grained, GitLab, Slack
      token and webhook, Stripe, Google, npm, Hugging Face, SendGrid, JWT, OpenAI, Anthropic, Twilio,
      Telegram, PyPI, Azure storage and AD client secret, Square, Discord webhook;
    * config formats: ``yaml-gha-password``, ``yaml-k8s-password``, ``yaml-k8s-secret-data`` (base64 under
      ``data:``), ``properties-password``,
      ``ini-password``, ``xml-password``, ``php-define``, ``go-struct-password``,
      ``ruby-secret_key_base``, ``tf-password``.

Negatives (``neg-*``): placeholders and templates, variable references, type hints and signatures,
prose, documentation examples, digests (git SHAs, SHA-256, UUIDs, lockfile integrity, Go sums, docker
digests, SRI), base64 media, minified identifiers and source maps, constant names, public keys and
publishable keys, HTML password inputs, header and URL templates, URLs without a password, version and
locale strings, encrypted (ansible-vault) bodies, test-only word constants.

Provenance and licences
    * ``own``: written for this corpus.
    * ``detect-secrets tests (Apache-2.0)``: negatives copied from Yelp/detect-secrets
      ``tests/plugins/keyword_test.py`` of a 0.x revision (``my_password = ""``, ``my_password = True``,
      ``login(username=username, password=password)``, ``apiKey: this.apiKey,``, ...); detect-secrets
      1.5 no longer filters some of them (``"fakesecret"``, ``True``).
    * ``gitleaks config (MIT)``: negatives built to match the global and ``generic-api-key`` allowlists of
      gitleaks' ``config/gitleaks.toml`` (``${{ secrets.X }}``, ``%PASSWORD%``, ``@PASSWORD@``, ``$1``,
      paths under ``/etc``, ``api_version``, ``csrf_token``, ``AKIAIOSFODNN7EXAMPLE``, ...).
    * ``AWS documentation``: the published example key pair ``AKIAIOSFODNN7EXAMPLE`` /
      ``wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY``, which is not a credential.

Judgement calls (documented so a reviewer can disagree): a legacy npm ``_authToken`` that is a UUID is a
positive (npm issued UUID tokens) while a UUID elsewhere is a negative; a Stripe *publishable* key
(``pk_live_``) and an SSH *public* key are negatives; a test-only constant that is a plain word
(``SECRET_KEY = 'django_tests_secret_key'``) is a negative; Django's ``django-insecure-`` key is a positive
(it is still a working signing key once deployed).
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import uuid
from dataclasses import dataclass

__all__ = ["Case", "cases", "negatives", "positives"]

OWN = "own"
DS = "detect-secrets tests (Apache-2.0): tests/plugins/keyword_test.py (a 0.x revision)"
GL = "gitleaks config (MIT): config/gitleaks.toml allowlists"
AWS_DOCS = "AWS documentation example key (published, not a credential)"


@dataclass(frozen=True)
class Case:
    """One labelled file: a positive holds ``value`` (in ``text``, or in ``path`` when ``in_path``)."""

    shape: str
    positive: bool
    path: str
    text: str
    value: str
    source: str
    in_path: bool = False

    def span(self) -> tuple[int, int]:
        """Where ``value`` is, in ``path`` for an ``in_path`` case and in ``text`` otherwise."""
        where = self.path if self.in_path else self.text
        start = where.find(self.value)
        if not self.value or start < 0:
            raise ValueError(f"{self.shape}: value not found")
        return start, start + len(self.value)


# --- deterministic generation -----------------------------------------------------------------------------

LOWER = string.ascii_lowercase
UPPER = string.ascii_uppercase
DIGITS = string.digits
ALNUM = LOWER + UPPER + DIGITS
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
BASE32 = UPPER + "234567"
PW_SYMBOLS = "!*+-.^_~"
"""Symbols a human or a password manager puts in a password that survive YAML, INI, XML and quoted code."""
SHELL_SYMBOLS = "-_.+"
"""Symbols safe unquoted on a shell command line."""
URL_SYMBOLS = "-_.~"
"""Unreserved URL characters (no percent-encoding needed)."""

_PLACEHOLDER_BITS: tuple[str, ...] = (
    "example",
    "test",
    "fake",
    "dummy",
    "sample",
    "xxx",
    "changeme",
    "change",
    "secret",
    "passw",
    "token",
    "placeholder",
    "redact",
    "your",
    "null",
    "none",
    "true",
    "false",
    "undefined",
    "demo",
    "abcdef",
    "123456",
    "qwerty",
    "aaaa",
    "0000",
    "****",
    "....",
    "----",
    "____",
)


def _clean(value: str) -> bool:
    lowered = value.lower()
    return not any(bit in lowered for bit in _PLACEHOLDER_BITS)


def _rng(label: str) -> random.Random:
    return random.Random(hashlib.sha256(label.encode()).digest())


def draw(label: str, alphabet: str, length: int) -> str:
    """``length`` characters of ``alphabet``, fixed by ``label``, never spelling a placeholder word."""
    rng = _rng(label)
    while True:
        value = "".join(rng.choice(alphabet) for _ in range(length))
        if _clean(value):
            return value


def password(label: str, lo: int = 10, hi: int = 24, symbols: str = PW_SYMBOLS) -> str:
    """A realistic password: starts with a letter, holds lower, upper, a digit and (if any) a symbol."""
    rng = _rng(label)
    pool = ALNUM + symbols * 2
    while True:
        n = rng.randint(lo, hi)
        value = rng.choice(LOWER + UPPER) + "".join(rng.choice(pool) for _ in range(n - 1))
        if (
            _clean(value)
            and any(c in LOWER for c in value)
            and any(c in UPPER for c in value)
            and any(c in DIGITS for c in value)
            and (not symbols or any(c in symbols for c in value))
            and value[-1] not in symbols
        ):
            return value


def random_bytes(label: str, n: int) -> bytes:
    rng = _rng(label)
    while True:
        raw = bytes(rng.randrange(256) for _ in range(n))
        if _clean(base64.b64encode(raw).decode()):
            return raw


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def digest_hex(label: str, algo: str = "sha256") -> str:
    return hashlib.new(algo, label.encode()).hexdigest()


# --- provider token shapes (public prefix + generated body) -------------------------------------------------


def aws_key_id(label: str) -> str:
    return "AKIA" + draw(label, BASE32, 16)


def aws_secret(label: str) -> str:
    return draw(label, ALNUM + "+/", 40)


def github_classic(label: str, prefix: str = "ghp_") -> str:
    return prefix + draw(label, ALNUM, 36)


def github_fine_grained(label: str) -> str:
    return "github_pat_" + draw(label + "a", ALNUM, 22) + "_" + draw(label + "b", ALNUM, 59)


def gitlab_pat(label: str) -> str:
    return "glpat-" + draw(label, ALNUM + "_-", 20)


def slack_bot(label: str) -> str:
    return (
        f"xoxb-{draw(label + 'a', DIGITS, 12)}-{draw(label + 'b', DIGITS, 13)}-{draw(label + 'c', ALNUM, 24)}"
    )


def slack_webhook(label: str) -> str:
    return (
        "https://hooks.slack.com/services/"
        f"T{draw(label + 'a', UPPER + DIGITS, 10)}/B{draw(label + 'b', UPPER + DIGITS, 10)}/{draw(label + 'c', ALNUM, 24)}"
    )


def stripe(label: str, prefix: str = "sk_live_", n: int = 24) -> str:
    return prefix + draw(label, ALNUM, n)


def google_api_key(label: str) -> str:
    return "AIza" + draw(label, ALNUM + "_-", 35)


def npm_token(label: str) -> str:
    return "npm_" + draw(label, ALNUM, 36)


def hf_token(label: str) -> str:
    return "hf_" + draw(label, LOWER + UPPER, 34)


def sendgrid(label: str) -> str:
    return "SG." + draw(label + "a", B64URL, 22) + "." + draw(label + "b", B64URL, 43)


def jwt(label: str) -> str:
    header = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
    rng = _rng(label)
    claims = {"sub": str(rng.randrange(10**6, 10**7)), "iat": rng.randrange(1_600_000_000, 1_800_000_000)}
    payload = b64url(json.dumps(claims, separators=(",", ":")).encode())
    return f"{header}.{payload}.{b64url(random_bytes(label, 32))}"


def openai_key(label: str, project: bool = False) -> str:
    if project:
        return "sk-proj-" + draw(label + "a", B64URL, 74) + "T3BlbkFJ" + draw(label + "b", B64URL, 74)
    return "sk-" + draw(label + "a", ALNUM, 20) + "T3BlbkFJ" + draw(label + "b", ALNUM, 20)


def anthropic_key(label: str) -> str:
    return "sk-ant-api03-" + draw(label, B64URL, 93) + "AA"


def twilio_key(label: str) -> str:
    return "SK" + draw(label, HEX, 32)


def telegram_token(label: str) -> str:
    return (
        draw(label + "a", "123456789", 1)
        + draw(label + "b", DIGITS, 9)
        + ":AA"
        + draw(label + "c", B64URL, 33)
    )


def pypi_token(label: str) -> str:
    return "pypi-AgEIcHlwaS5vcmc" + draw(label, B64URL, 150)


def azure_account_key(label: str) -> str:
    return b64(random_bytes(label, 64))


def square_token(label: str, secret: bool = False) -> str:
    return "sq0csp-" + draw(label, B64URL, 43) if secret else "sq0atp-" + draw(label, B64URL, 22)


def discord_webhook(label: str) -> str:
    return f"https://discord.com/api/webhooks/{draw(label + 'a', '123456789', 1)}{draw(label + 'b', DIGITS, 17)}/{draw(label + 'c', B64URL, 68)}"


def django_key(label: str) -> str:
    return draw(label, LOWER + DIGITS + "!@#$%^&*(-_=+)", 50)


def basic(label: str, user: str = "deploy") -> str:
    return b64(f"{user}:{password(label)}".encode())


def uuid_from(label: str) -> str:
    return str(uuid.UUID(bytes=hashlib.sha256(label.encode()).digest()[:16], version=4))


# --- positives --------------------------------------------------------------------------------------------


def _p(shape: str, path: str, text: str, value: str, source: str = OWN, in_path: bool = False) -> Case:
    case = Case(shape, True, path, text, value, source, in_path)
    case.span()  # the value must be where the case says it is
    return case


def positives() -> list[Case]:
    out: list[Case] = []
    add = out.append

    # keyword after letters
    v = password("env-pgpassword-1")
    add(_p("env-pgpassword", ".env", f"PGHOST=db.internal\nPGUSER=app\nPGPASSWORD={v}\n", v))
    v = password("env-pgpassword-2")
    add(_p("env-pgpassword", "docker/db.env", f"POSTGRES_DB=orders\nPGPASSWORD={v}\n", v))
    v = password("sh-export-pgpassword-1")
    add(
        _p(
            "sh-export-pgpassword",
            "deploy.sh",
            f"#!/bin/sh\nexport PGPASSWORD='{v}'\npsql -h db.internal -U app -c 'select 1'\n",
            v,
        )
    )
    v = password("sh-export-pgpassword-2", symbols=SHELL_SYMBOLS)
    add(
        _p(
            "sh-export-pgpassword",
            "scripts/backup.sh",
            f"export PGPASSWORD={v}\npg_dump orders > dump.sql\n",
            v,
        )
    )

    v = draw("json-clientSecret-1", ALNUM + "~._-", 40)
    cid = uuid_from("json-clientSecret-1-id")
    add(
        _p(
            "json-camel-clientSecret",
            "config/settings.json",
            f'{{\n  "tenantId": "{uuid_from("tenant")}",\n  "clientId": "{cid}",\n  "clientSecret": "{v}"\n}}\n',
            v,
        )
    )
    v = draw("json-clientSecret-2", HEX, 32)
    add(_p("json-camel-clientSecret", "appsettings.json", f'{{"Auth": {{"ClientSecret": "{v}"}}}}\n', v))
    v = draw("yaml-clientSecret-1", ALNUM, 40)
    add(
        _p(
            "yaml-camel-clientSecret",
            "config/oauth.yml",
            f"oauth:\n  clientId: web-portal\n  clientSecret: {v}\n",
            v,
        )
    )
    v = draw("js-clientSecret-1", ALNUM + "_-", 35)
    add(
        _p(
            "js-camel-clientSecret",
            "src/client.js",
            f"const config = {{\n  clientId: 'web-portal',\n  clientSecret: '{v}',\n}};\n",
            v,
        )
    )
    v = password("py-dbPassword-1")
    add(_p("py-dbPassword", "app.py", f'dbUser = "orders"\ndbPassword = "{v}"\n', v))
    v = password("js-dbPassword-1")
    add(_p("js-dbPassword", "src/db.js", f"const dbPassword = '{v}';\nconnect(dbUser, dbPassword);\n", v))
    v = password("yaml-adminPassword-1")
    add(
        _p(
            "yaml-adminPassword",
            "charts/app/values.yaml",
            f"auth:\n  adminUser: admin\n  adminPassword: {v}\n",
            v,
        )
    )
    v = password("yaml-adminPassword-2")
    add(_p("yaml-adminPassword", "values-prod.yaml", f'grafana:\n  adminPassword: "{v}"\n', v))

    # bare and compound keywords
    v = draw("yaml-token-1", ALNUM, 40)
    add(_p("yaml-token", "config.yml", f"bot:\n  name: deploy-bot\n  token: {v}\n", v))
    v = draw("yaml-token-2", HEX, 40)
    add(_p("yaml-token", ".github/config.yaml", f"token: {v}\n", v))
    v = draw("env-TOKEN-1", ALNUM, 32)
    add(_p("env-TOKEN", ".env", f"TOKEN={v}\n", v))
    v = draw("env-TOKEN-2", B64URL, 43)
    add(_p("env-TOKEN", ".env.production", f"NODE_ENV=production\nTOKEN={v}\n", v))
    v = draw("py-API_TOKEN-1", ALNUM, 40)
    add(_p("py-API_TOKEN", "app/settings.py", f'API_TOKEN = "{v}"\n', v))
    v = draw("py-API_TOKEN-2", HEX, 48)
    add(_p("py-API_TOKEN", "bot.py", f"import requests\n\nAPI_TOKEN = '{v}'\n", v))
    v = draw("auth_token-1", HEX, 32)
    add(
        _p(
            "py-auth_token",
            "notify.py",
            f'account_sid = "AC{draw("sid-1", HEX, 32)}"\nauth_token = "{v}"\n',
            v,
        )
    )
    v = draw("auth_token-2", ALNUM, 40)
    add(_p("env-auth_token", ".env", f"AUTH_TOKEN={v}\n", v))
    v = draw("access_token-1", B64URL, 43)
    add(_p("yaml-access_token", "config/app.yaml", f"dropbox:\n  access_token: {v}\n", v))
    v = draw("access_token-2", ALNUM, 64)
    add(_p("json-access_token", "credentials.json", f'{{"access_token": "{v}", "expires_in": 3600}}\n', v))
    v = draw("refresh_token-1", B64URL, 64)
    add(
        _p(
            "json-refresh_token",
            "token.json",
            f'{{"token_type": "Bearer", "refresh_token": "{v}", "scope": "drive"}}\n',
            v,
        )
    )
    v = draw("refresh_token-2", ALNUM, 45)
    add(_p("yaml-refresh_token", "config/gdrive.yml", f"refresh_token: {v}\n", v))
    v = draw("secret_key-1", ALNUM + "/+", 40)
    add(
        _p(
            "yaml-secret_key",
            "config/storage.yml",
            f"s3:\n  access_key: {aws_key_id('sk-1-id')}\n  secret_key: {v}\n",
            v,
        )
    )
    v = draw("secret_key-2", HEX, 64)
    add(_p("env-secret_key", ".env", f"SECRET_KEY={v}\n", v))
    v = django_key("django-1")
    add(_p("py-django-SECRET_KEY", "mysite/settings.py", f"DEBUG = False\nSECRET_KEY = '{v}'\n", v))
    v = "django-insecure-" + django_key("django-2")
    add(_p("py-django-SECRET_KEY", "project/settings.py", f'SECRET_KEY = "{v}"\n', v))
    v = b64(random_bytes("wg-1", 32))
    add(
        _p(
            "ini-private_key",
            "wg0.conf",
            f"[Interface]\nAddress = 10.0.0.1/24\nPrivateKey = {v}\nListenPort = 51820\n",
            v,
        )
    )
    v = b64(random_bytes("private_key-2", 32))
    add(_p("yaml-private_key", "config/signing.yaml", f'signing:\n  private_key: "{v}"\n', v))
    v = draw("py-api_key-1", HEX, 32)
    add(
        _p(
            "py-api_key",
            "weather.py",
            f'api_key = "{v}"\nurl = f"https://api.openweathermap.org/data/2.5?appid={{api_key}}"\n',
            v,
        )
    )
    v = draw("js-apiKey-1", ALNUM, 32)
    add(_p("js-apiKey", "src/config.js", f'export default {{\n  apiKey: "{v}",\n  region: "eu"\n}};\n', v))
    v = draw("yaml-api_key-1", ALNUM, 40)
    add(_p("yaml-api_key", "datadog.yaml", f"api_key: {v}\nsite: datadoghq.eu\n", v))
    v = draw("x-api-key-1", ALNUM, 40)
    add(
        _p(
            "curl-x-api-key",
            "docs/api.sh",
            f'curl -s -H "x-api-key: {v}" https://api.service.io/v1/items\n',
            v,
        )
    )
    v = draw("x-api-key-2", ALNUM, 32)
    add(
        _p(
            "py-x-api-key",
            "client.py",
            f'HEADERS = {{"x-api-key": "{v}", "Accept": "application/json"}}\n',
            v,
        )
    )

    # headers
    v = draw("py-bearer-1", ALNUM, 40)
    add(
        _p(
            "py-headers-bearer",
            "app.py",
            f'headers = {{"Authorization": "Bearer {v}"}}\nrequests.get(url, headers=headers)\n',
            v,
        )
    )
    v = draw("py-bearer-2", B64URL, 43)
    add(_p("py-headers-bearer", "sync.py", f'session.headers["Authorization"] = "Bearer {v}"\n', v))
    v = jwt("py-bearer-jwt")
    add(_p("py-headers-bearer", "tests_live/check.py", f'HEADERS = {{"Authorization": "Bearer {v}"}}\n', v))
    v = draw("js-bearer-1", ALNUM, 40)
    add(
        _p(
            "js-headers-bearer",
            "src/client.js",
            f"fetch(url, {{\n  headers: {{ Authorization: 'Bearer {v}' }},\n}});\n",
            v,
        )
    )
    v = draw("js-bearer-2", ALNUM + "_-", 48)
    add(
        _p(
            "js-headers-bearer",
            "src/api.ts",
            f'axios.defaults.headers.common["Authorization"] = `Bearer {v}`;\n',
            v,
        )
    )
    v = draw("curl-bearer-1", ALNUM, 40)
    add(
        _p(
            "curl-bearer",
            "README.md",
            f'```sh\ncurl -H "Authorization: Bearer {v}" https://api.service.io/v2/me\n```\n',
            v,
        )
    )
    v = draw("curl-bearer-2", B64URL, 86)
    add(
        _p(
            "curl-bearer",
            "scripts/release.sh",
            f"curl -X POST \\\n  -H 'Authorization: Bearer {v}' \\\n  https://uploads.service.io/v1/release\n",
            v,
        )
    )
    v = basic("basic-1")
    add(
        _p(
            "curl-basic-auth",
            "scripts/ping.sh",
            f'curl -H "Authorization: Basic {v}" https://ci.internal/api/json\n',
            v,
        )
    )
    v = basic("basic-2", "svc-reporting")
    add(_p("py-basic-auth", "report.py", f'HEADERS = {{"Authorization": "Basic {v}"}}\n', v))

    # command lines and URLs
    v = password("curl-u-1", symbols=SHELL_SYMBOLS)
    add(
        _p(
            "curl-u",
            "scripts/deploy.sh",
            f"curl -u admin:{v} https://nexus.internal/service/rest/v1/status\n",
            v,
        )
    )
    v = password("curl-u-2", symbols=SHELL_SYMBOLS)
    add(
        _p(
            "curl-u",
            "Makefile",
            f"upload:\n\tcurl --user ci:{v} -T dist/app.tgz https://files.internal/\n",
            v,
        )
    )
    v = password("mysql-p-1", symbols=SHELL_SYMBOLS)
    add(_p("mysql-p", "backup.sh", f"mysqldump -u root -p{v} shop > shop.sql\n", v))
    v = password("mysql-p-2", symbols=SHELL_SYMBOLS)
    add(
        _p(
            "mysql-p",
            "docs/setup.md",
            f"Then load the schema:\n\n    mysql -uroot -p{v} app < schema.sql\n",
            v,
        )
    )
    v = password("mysql-password-1", symbols=SHELL_SYMBOLS)
    add(_p("mysql-password", "scripts/restore.sh", f"mysql --user=root --password={v} app < dump.sql\n", v))
    v = password("sshpass-1")
    add(_p("sshpass-p", "deploy.sh", f"sshpass -p '{v}' ssh deploy@10.0.3.7 'systemctl restart app'\n", v))
    v = password("sshpass-2", symbols=SHELL_SYMBOLS)
    add(_p("sshpass-p", "ansible/run.sh", f"sshpass -p {v} scp build.tgz pi@raspberrypi.local:/srv/\n", v))
    v = password("redis-1", symbols=URL_SYMBOLS)
    add(_p("url-redis", ".env", f"REDIS_URL=redis://:{v}@cache.internal:6379/0\n", v))
    v = password("redis-2", symbols=URL_SYMBOLS)
    add(
        _p(
            "url-redis",
            "config/cache.yml",
            f'cache:\n  url: "rediss://default:{v}@redis-12345.cloud.io:12345"\n',
            v,
        )
    )
    v = password("postgres-1", symbols=URL_SYMBOLS)
    add(_p("url-postgres", ".env", f"DATABASE_URL=postgres://app:{v}@db.internal:5432/orders\n", v))
    v = password("postgres-2", symbols=URL_SYMBOLS)
    add(
        _p(
            "url-postgres",
            "alembic.ini",
            f"[alembic]\nsqlalchemy.url = postgresql+psycopg2://app:{v}@localhost/app\n",
            v,
        )
    )
    v = password("mongo-1", symbols=URL_SYMBOLS)
    add(
        _p(
            "url-mongodb-srv",
            "src/db.js",
            f'const uri = "mongodb+srv://appUser:{v}@cluster0.ab1cd.mongodb.net/shop?retryWrites=true";\n',
            v,
        )
    )
    v = password("mongo-2", symbols=URL_SYMBOLS)
    add(
        _p(
            "url-mongodb-srv",
            "config.yaml",
            f"mongo_uri: mongodb+srv://admin:{v}@prod.x7y8z.mongodb.net/\n",
            v,
        )
    )
    v = password("amqp-1", symbols=URL_SYMBOLS)
    add(_p("url-amqp", "celeryconfig.py", f"broker_url = 'amqp://worker:{v}@rabbit.internal:5672//'\n", v))

    # credential files
    v = password("netrc-1")
    add(_p("netrc-oneline", ".netrc", f"machine api.service.io login me password {v}\n", v))
    v = draw("netrc-2", ALNUM, 40)
    add(
        _p(
            "netrc-multiline",
            ".netrc",
            f"machine api.heroku.com\n  login me@corp.io\n  password {v}\nmachine git.heroku.com\n",
            v,
        )
    )
    v = password("netrc-3")
    add(_p("netrc-multiline", "home/_netrc", f"machine ftp.corp.io\nlogin backup\npassword {v}\n", v))
    v = npm_token("npmrc-authToken-1")
    add(_p("npmrc-authToken", ".npmrc", f"//registry.npmjs.org/:_authToken={v}\n", v))
    v = uuid_from("npmrc-authToken-legacy")
    add(
        _p(
            "npmrc-authToken",
            ".npmrc",
            f"registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken={v}\n",
            v,
        )
    )
    v = draw("npmrc-authToken-3", B64, 64)
    add(
        _p(
            "npmrc-authToken",
            "frontend/.npmrc",
            f"@corp:registry=https://npm.corp.io/\n//npm.corp.io/:_authToken={v}\n",
            v,
        )
    )
    v = basic("npmrc-auth-1", "ci")
    add(
        _p(
            "npmrc-auth",
            ".npmrc",
            f"registry=https://artifactory.corp.io/api/npm/npm/\n_auth={v}\nalways-auth=true\n",
            v,
        )
    )
    v = b64(password("npmrc-password-1").encode())
    add(
        _p(
            "npmrc-password",
            ".npmrc",
            f"//npm.corp.io/:username=ci\n//npm.corp.io/:_password={v}\n//npm.corp.io/:email=ci@corp.io\n",
            v,
        )
    )
    v = basic("docker-1", "robot")
    add(
        _p(
            "docker-config-auth",
            ".docker/config.json",
            f'{{\n  "auths": {{\n    "registry.corp.io": {{\n      "auth": "{v}"\n    }}\n  }}\n}}\n',
            v,
        )
    )
    v = basic("docker-2", "AWS")
    add(
        _p(
            "docker-config-auth",
            "ci/docker-config.json",
            f'{{"auths": {{"ghcr.io": {{"auth": "{v}"}}}}}}\n',
            v,
        )
    )

    # a literal default
    v = password("getenv-or-1")
    add(_p("py-getenv-or", "app/db.py", f'DB_PASSWORD = os.getenv("DB_PASSWORD") or "{v}"\n', v))
    v = draw("environ-get-1", ALNUM, 40)
    add(
        _p("py-environ-get-default", "settings.py", f'CLIENT_SECRET = os.environ.get("X_SECRET", "{v}")\n', v)
    )
    v = password("environ-get-2")
    add(_p("py-environ-get-default", "config.py", f"password = os.environ.get('DB_PASS', '{v}')\n", v))
    v = draw("js-env-or-1", HEX, 32)
    add(_p("js-env-or", "src/server.js", f'const apiKey = process.env.API_KEY || "{v}";\n', v))
    v = password("js-env-or-2")
    add(_p("js-env-or", "src/db.ts", f"const password = process.env.DB_PASSWORD ?? '{v}';\n", v))

    # a fixed-shape key glued to a word
    v = aws_key_id("glued-1")
    add(_p("glued-aws-key", "notes/rotate.sh", f"aws s3 cp s3://ops/backup_{v}.csv ./\n", v))
    v = aws_key_id("glued-2")
    add(_p("glued-aws-key", "ops.md", f"The old credential is archived as key_{v} in the vault.\n", v))
    v = github_classic("glued-gh")
    add(_p("glued-github-token", "notes/setup.txt", f"then paste it: import{v}\n", v))
    v = slack_bot("glued-slack")
    add(_p("glued-slack-token", "notes/bot.md", f"bot token: token{v}\n", v))
    v = npm_token("glued-npm")
    add(_p("glued-npm-token", "ci.log", f"npm config set authToken{v}\n", v))
    v = hf_token("glued-hf")
    add(_p("glued-hf-token", "README.txt", f"HF_TOKEN{v}\n", v))
    v = stripe("glued-stripe")
    add(_p("glued-stripe-key", "billing.txt", f"stripe key{v}\n", v))
    # Kotlin, Scala, C# and PowerShell forms
    v = draw("kt-bearer", ALNUM, 32)
    add(
        _p(
            "kotlin-mapof-bearer",
            "src/Client.kt",
            f'val headers = mapOf("Authorization" to "Bearer {v}")\n',
            v,
        )
    )
    v = password("kt-pw")
    add(
        _p(
            "kotlin-mapof-password",
            "src/Db.kt",
            f'val props = mapOf("user" to "app", "password" to "{v}")\n',
            v,
        )
    )
    v = password("scala-pw")
    add(
        _p(
            "scala-map-arrow-password",
            "src/Db.scala",
            f'val props = Map("user" -> "app", "password" -> "{v}")\n',
            v,
        )
    )
    v = password("cs-jwt", 32, 40, symbols="")
    add(_p("csharp-configuration-secret", "Program.cs", f'builder.Configuration["Jwt:Secret"] = "{v}";\n', v))
    v = password("ps-ss")
    add(
        _p(
            "powershell-securestring",
            "deploy.ps1",
            f'$pw = ConvertTo-SecureString "{v}" -AsPlainText -Force\n',
            v,
        )
    )
    # lists of literals under a credential name, on the name's line
    v = draw("list-api-keys-1", ALNUM, 32)
    w = draw("list-api-keys-2", ALNUM, 32)
    add(_p("py-list-api-keys", "settings.py", f'API_KEYS = ["{w}", "{v}"]\n', v))
    add(_p("py-list-api-keys", "settings.py", f'API_KEYS = ["{w}", "{v}"]\n', w))
    v = password("list-yaml-pw")
    add(_p("yaml-flow-list-passwords", "users.yml", f"admin_passwords: [{v}]\n", v))
    v = draw("list-json-tokens", ALNUM, 40)
    add(_p("json-list-access-tokens", "fixtures/auth.json", f'{{"accessTokens": ["{v}"], "ttl": 60}}\n', v))
    # YAML values on the lines after their key
    v = password("yaml-block-seq-1")
    w = password("yaml-block-seq-2")
    add(_p("yaml-block-list-passwords", "users.yml", f"admin_passwords:\n  - {w}\n  - '{v}'\nusers: 2\n", v))
    v = draw("yaml-block-seq-keys", ALNUM, 32)
    add(
        _p(
            "yaml-block-list-api-keys",
            "config/keys.yaml",
            f"service:\n  api_keys:\n  - {v}\n  timeout: 30\n",
            v,
        )
    )
    v = password("yaml-block-scalar")
    add(_p("yaml-block-scalar-password", "values.yaml", f"db:\n  password: |\n    {v}\n  user: app\n", v))
    v = password("yaml-folded-scalar")
    add(_p("yaml-folded-scalar-secret", "app.yml", f"jwt_secret: >-\n  {v}\nissuer: shop\n", v))
    v = aws_key_id("path-1")
    add(_p("path-aws-key", f"keys/key_{v}.json", '{"note": "rotated"}\n', v, in_path=True))
    v = aws_key_id("path-2")
    add(_p("path-aws-key", f"backups/backup_{v}/README", "archive\n", v, in_path=True))

    # provider tokens
    v = aws_key_id("tok-aws-1")
    add(_p("tok-aws-key-id", ".env", f"AWS_ACCESS_KEY_ID={v}\nAWS_DEFAULT_REGION=eu-west-1\n", v))
    v = aws_key_id("tok-aws-2")
    add(_p("tok-aws-key-id", "config/aws.json", f'{{"accessKeyId": "{v}", "region": "us-east-1"}}\n', v))
    v = aws_secret("tok-aws-secret-1")
    add(
        _p(
            "tok-aws-secret",
            ".aws/credentials",
            f"[default]\naws_access_key_id = {aws_key_id('tok-aws-secret-1-id')}\naws_secret_access_key = {v}\n",
            v,
        )
    )
    v = aws_secret("tok-aws-secret-2")
    add(_p("tok-aws-secret", "s3.py", f'AWS_SECRET_ACCESS_KEY = "{v}"\n', v))
    v = github_classic("tok-gh-1")
    add(_p("tok-github-classic", ".env", f"GITHUB_TOKEN={v}\n", v))
    v = github_classic("tok-gh-2")
    add(_p("tok-github-classic", "release.yml", f"env:\n  GH_TOKEN: {v}\n", v))
    v = github_classic("tok-gh-3", "gho_")
    add(_p("tok-github-classic", "src/gh.ts", f'const octokit = new Octokit({{ auth: "{v}" }});\n', v))
    v = github_fine_grained("tok-ghfg-1")
    add(_p("tok-github-fine-grained", ".env", f"GH_PAT={v}\n", v))
    v = github_fine_grained("tok-ghfg-2")
    add(_p("tok-github-fine-grained", "scripts/sync.py", f'g = Github("{v}")\n', v))
    v = gitlab_pat("tok-gl-1")
    add(_p("tok-gitlab", ".gitlab-ci.yml", f"variables:\n  GITLAB_TOKEN: {v}\n", v))
    v = gitlab_pat("tok-gl-2")
    add(
        _p("tok-gitlab", "tools/mr.py", f'gl = gitlab.Gitlab("https://gitlab.com", private_token="{v}")\n', v)
    )
    v = slack_bot("tok-slack-1")
    add(_p("tok-slack", ".env", f"SLACK_BOT_TOKEN={v}\n", v))
    v = slack_bot("tok-slack-2")
    add(_p("tok-slack", "bot.py", f'client = WebClient(token="{v}")\n', v))
    v = slack_webhook("tok-slack-wh-1")
    add(_p("tok-slack-webhook", "alerts.yaml", f"slack:\n  webhook_url: {v}\n", v))
    v = slack_webhook("tok-slack-wh-2")
    add(_p("tok-slack-webhook", "notify.sh", f"curl -X POST -d @payload.json {v}\n", v))
    v = stripe("tok-stripe-1")
    add(_p("tok-stripe", ".env", f"STRIPE_SECRET_KEY={v}\n", v))
    v = stripe("tok-stripe-2", "sk_live_", 99)
    add(_p("tok-stripe", "billing.py", f'stripe.api_key = "{v}"\n', v))
    v = stripe("tok-stripe-3", "rk_live_", 99)
    add(_p("tok-stripe", "config/payments.json", f'{{"stripe": {{"restrictedKey": "{v}"}}}}\n', v))
    v = google_api_key("tok-google-1")
    add(
        _p(
            "tok-google",
            "src/firebase.js",
            f'const firebaseConfig = {{\n  apiKey: "{v}",\n  projectId: "shop-prod",\n}};\n',
            v,
        )
    )
    v = google_api_key("tok-google-2")
    add(
        _p(
            "tok-google",
            "android/app/google-services.json",
            f'{{"api_key": [{{"current_key": "{v}"}}]}}\n',
            v,
        )
    )
    v = npm_token("tok-npm-1")
    add(_p("tok-npm", ".github/workflows/publish.yml", f"env:\n  NODE_AUTH_TOKEN: {v}\n", v))
    v = hf_token("tok-hf-1")
    add(_p("tok-huggingface", ".env", f"HF_TOKEN={v}\n", v))
    v = hf_token("tok-hf-2")
    add(_p("tok-huggingface", "train.py", f'login(token="{v}")\n', v))
    v = sendgrid("tok-sg-1")
    add(_p("tok-sendgrid", "mailer.py", f"sg = SendGridAPIClient('{v}')\n", v))
    v = sendgrid("tok-sg-2")
    add(_p("tok-sendgrid", ".env", f"SENDGRID_API_KEY={v}\n", v))
    v = jwt("tok-jwt-1")
    add(_p("tok-jwt", "config/service.yaml", f"service:\n  jwt: {v}\n", v))
    v = jwt("tok-jwt-2")
    add(_p("tok-jwt", "src/supabase.js", f'const supabase = createClient(url, "{v}");\n', v))
    v = openai_key("tok-openai-1")
    add(_p("tok-openai", ".env", f"OPENAI_API_KEY={v}\n", v))
    v = openai_key("tok-openai-2", project=True)
    add(_p("tok-openai", "chat.py", f'client = OpenAI(api_key="{v}")\n', v))
    v = anthropic_key("tok-anthropic-1")
    add(_p("tok-anthropic", ".env", f"ANTHROPIC_API_KEY={v}\n", v))
    v = anthropic_key("tok-anthropic-2")
    add(_p("tok-anthropic", "agent.py", f'client = anthropic.Anthropic(api_key="{v}")\n', v))
    v = twilio_key("tok-twilio-1")
    add(_p("tok-twilio", "sms.py", f'client = Client("{v}", api_secret, account_sid)\n', v))
    v = twilio_key("tok-twilio-2")
    add(_p("tok-twilio", ".env", f"TWILIO_API_KEY={v}\n", v))
    v = telegram_token("tok-telegram-1")
    add(_p("tok-telegram", "bot.py", f'bot = telebot.TeleBot("{v}")\n', v))
    v = telegram_token("tok-telegram-2")
    add(_p("tok-telegram", "config.yml", f"telegram:\n  bot: {v}\n", v))
    v = pypi_token("tok-pypi-1")
    add(_p("tok-pypi", ".pypirc", f"[pypi]\nusername = __token__\npassword = {v}\n", v))
    v = azure_account_key("tok-azure-1")
    add(
        _p(
            "tok-azure-storage",
            "appsettings.json",
            '{"Storage": "DefaultEndpointsProtocol=https;AccountName=shopdata;'
            f'AccountKey={v};EndpointSuffix=core.windows.net"}}\n',
            v,
        )
    )
    v = azure_account_key("tok-azure-2")
    add(
        _p(
            "tok-azure-storage",
            ".env",
            f"AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=logs;AccountKey={v};EndpointSuffix=core.windows.net\n",
            v,
        )
    )
    v = square_token("tok-square-1")
    add(_p("tok-square", ".env", f"SQUARE_ACCESS_TOKEN={v}\n", v))
    v = square_token("tok-square-2", secret=True)
    add(_p("tok-square", "config/square.yml", f"application_secret: {v}\n", v))
    v = (
        draw("tok-azure-ad-1a", ALNUM, 3)
        + draw("tok-azure-ad-1b", DIGITS, 1)
        + "Q~"
        + draw("tok-azure-ad-1c", ALNUM + "_~.-", 34)
    )
    add(
        _p("tok-azure-ad-client-secret", "appsettings.json", f'{{"AzureAd": {{"ClientSecret": "{v}"}}}}\n', v)
    )
    v = discord_webhook("tok-discord-1")
    add(_p("tok-discord-webhook", "notify.py", f'WEBHOOK = "{v}"\n', v))

    # config formats
    v = password("gha-1")
    add(
        _p(
            "yaml-gha-password",
            ".github/workflows/ci.yml",
            f"services:\n  postgres:\n    image: postgres:16\n    env:\n      POSTGRES_PASSWORD: {v}\n",
            v,
        )
    )
    v = password("gha-2")
    add(
        _p(
            "yaml-gha-password",
            "docker-compose.yml",
            f"services:\n  db:\n    environment:\n      - MYSQL_ROOT_PASSWORD={v}\n",
            v,
        )
    )
    v = password("k8s-1")
    add(
        _p(
            "yaml-k8s-password",
            "k8s/secret.yaml",
            f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\nstringData:\n  password: {v}\n",
            v,
        )
    )
    v = b64(password("k8s-data-1").encode())
    add(
        _p(
            "yaml-k8s-secret-data",
            "k8s/db-secret.yaml",
            f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  username: YXBw\n  password: {v}\n",
            v,
        )
    )
    v = password("k8s-2")
    add(_p("yaml-k8s-password", "deploy/values.yaml", f'postgresql:\n  auth:\n    password: "{v}"\n', v))
    v = password("properties-1")
    add(
        _p(
            "properties-password",
            "src/main/resources/application.properties",
            f"spring.datasource.url=jdbc:postgresql://db:5432/app\nspring.datasource.username=app\nspring.datasource.password={v}\n",
            v,
        )
    )
    v = password("properties-2")
    add(_p("properties-password", "gradle.properties", f"signing.keyId=24875D73\nsigning.password={v}\n", v))
    v = password("ini-1")
    add(_p("ini-password", "config.ini", f"[database]\nhost = db.internal\nuser = app\npassword = {v}\n", v))
    v = password("ini-2")
    add(_p("ini-password", "my.cnf", f"[client]\nuser=root\npassword={v}\n", v))
    v = password("xml-1")
    add(
        _p(
            "xml-password",
            "settings.xml",
            f"<server>\n  <id>releases</id>\n  <username>deploy</username>\n  <password>{v}</password>\n</server>\n",
            v,
        )
    )
    v = password("xml-2")
    add(_p("xml-password", "App.config", f'<add key="DbPassword" value="{v}" />\n', v))
    v = password("nuget-1")
    add(
        _p(
            "xml-password",
            "nuget.config",
            '<packageSourceCredentials>\n  <corp>\n    <add key="Username" value="ci" />\n'
            f'    <add key="ClearTextPassword" value="{v}" />\n  </corp>\n</packageSourceCredentials>\n',
            v,
        )
    )
    v = password("php-1")
    add(
        _p(
            "php-define",
            "wp-config.php",
            f"<?php\ndefine('DB_USER', 'wp');\ndefine('DB_PASSWORD', '{v}');\n",
            v,
        )
    )
    v = password("go-1")
    add(
        _p(
            "go-struct-password",
            "internal/db/db.go",
            f'cfg := mysql.Config{{\n\tUser:     "app",\n\tPassword: "{v}",\n\tNet:      "tcp",\n}}\n',
            v,
        )
    )
    v = draw("ruby-skb-1", HEX, 128)
    add(
        _p(
            "ruby-secret_key_base",
            "config/environments/production.rb",
            f'Rails.application.configure do\n  config.secret_key_base = "{v}"\nend\n',
            v,
        )
    )
    v = password("tf-1")
    add(
        _p(
            "tf-password",
            "main.tf",
            f'resource "aws_db_instance" "main" {{\n  username = "app"\n  password = "{v}"\n}}\n',
            v,
        )
    )
    v = password("tf-2")
    add(_p("tf-password", "terraform.tfvars", f'db_password = "{v}"\n', v))
    return out


# --- negatives --------------------------------------------------------------------------------------------


def _n(shape: str, path: str, text: str, source: str = OWN) -> Case:
    return Case(shape, False, path, text, "", source)


def negatives() -> list[Case]:
    out: list[Case] = []
    add = out.append

    # placeholders and templates
    add(_n("neg-changeme", ".env.example", "DB_USER=app\nDB_PASSWORD=changeme\n"))
    add(_n("neg-changeme", "docker-compose.yml", "environment:\n  POSTGRES_PASSWORD: changeme\n"))
    add(
        _n(
            "neg-angle",
            "docs/config.rst",
            "Set it in ``config.ini``::\n\n    [database]\n    password = <password>\n",
        )
    )
    add(_n("neg-angle", "README.md", "curl -u admin:<password> https://localhost:8443/api\n"))
    add(_n("neg-env-template", "config/app.yml", "database:\n  password: ${DB_PASSWORD}\n"))
    add(_n("neg-env-template", "application.properties", "spring.datasource.password=${DB_PASSWORD}\n"))
    add(
        _n("neg-jinja", "templates/app.conf.j2", "token: {{ secrets.TOKEN }}\npassword = {{ db_password }}\n")
    )
    add(
        _n(
            "neg-helm",
            "charts/app/templates/secret.yaml",
            "stringData:\n  password: {{ .Values.db.password | quote }}\n",
        )
    )
    add(_n("neg-pyformat", "app/db.py", 'DSN = "host=%(host)s user=%(user)s password=%(password)s"\n'))
    add(_n("neg-strformat", "app/db.py", 'url = "postgres://{user}:{password}@{host}/{db}".format(**cfg)\n'))
    add(_n("neg-fstring-url", "app/db.py", 'url = f"postgres://{user}:{password}@{host}/{db}"\n'))
    add(_n("neg-code-template", "scripts/gen_env.py", 'env.write(f"DB_PASSWORD={password}\\n")\n'))
    add(_n("neg-code-template", "tools/render.py", "line = f\"SECRET_KEY = '{key}'\"\n"))
    add(_n("neg-code-template", "deploy/run.py", 'cmd = f"mysql --user=root --password={pw} app"\n'))
    add(_n("neg-your-api-key", "README.md", 'export OPENAI_API_KEY="your-api-key"\n'))
    add(_n("neg-your-api-key", "src/config.js", "apiKey: 'YOUR_API_KEY',\n"))
    add(_n("neg-xxxx", ".env.sample", "STRIPE_SECRET_KEY=sk_live_xxxxxxxxxxxxxxxxxxxxxxxx\n"))
    add(_n("neg-xxxx", "docs/auth.md", "Authorization: Bearer xxxxxxxxxxxxxxxxxxxx\n"))
    add(_n("neg-stars", "docs/setup.md", "password: ********\n"))
    add(_n("neg-stars", "logs/sample.log", "connecting with user=app password=****\n"))
    add(_n("neg-replace-me", "config.yaml", "api_key: REPLACE_ME\n"))
    add(_n("neg-none", "settings.py", "PASSWORD = None\nSECRET_KEY = None\n"))
    add(_n("neg-null", "config/default.json", '{"password": null, "token": null}\n'))
    add(_n("neg-empty", "config.py", 'password = ""\napi_key = ""\n'))
    add(_n("neg-empty", ".env.example", "DB_PASSWORD=\nAPI_TOKEN=\n"))
    add(_n("neg-ds-empty", "mock_filename.foo", 'my_password = ""\n', DS))
    add(_n("neg-ds-empty", "mock_filename.foo", 'theapikey := ""\n', DS))
    add(_n("neg-ds-fake", "mock_filename.foo", 'my_password = "fakesecret"\n', DS))
    add(_n("neg-ds-fake", "mock_filename.go", 'theapikey := "somefakekey"\n', DS))
    add(_n("neg-ds-open-empty", "mock_filename.py", 'def open(self, password = ""):\n', DS))
    add(_n("neg-ds-true", "mock_filename.foo", "my_password = True\n", DS))
    add(_n("neg-ds-template", "mock_filename.yaml", "password: ${link}\n", DS))
    add(_n("neg-ds-private-key-empty", "mock_filename.foo", 'private_key "";\n', DS))
    add(_n("neg-ds-private-key-fake", "mock_filename.foo", 'private_key "fake";\n', DS))
    add(_n("neg-gl-gha-secret", ".github/workflows/ci.yml", "env:\n  password: ${{ secrets.DB }}\n", GL))
    add(
        _n("neg-gl-gha-secret", ".github/workflows/release.yml", "with:\n  api-key: ${{ env.API_KEY }}\n", GL)
    )
    add(_n("neg-gl-true", "config.yml", "auth:\n  token: true\n  password: false\n", GL))
    add(_n("neg-gl-dollar-n", "scripts/login.sh", 'password="$1"\ntoken="$2"\n', GL))
    add(
        _n("neg-gl-dollar-var", "scripts/login.sh", "mysql -u root --password=$MYSQL_ROOT_PASSWORD app\n", GL)
    )
    add(_n("neg-gl-percent-var", "build.bat", "set PASSWORD=%PASSWORD%\n", GL))
    add(_n("neg-gl-at-var", "config.h.in", "#define DEFAULT_PASSWORD @DEFAULT_PASSWORD@\n", GL))
    add(_n("neg-gl-format-verb", "main.go", 'fmt.Printf("token: %s\\n", tok)\n', GL))
    add(_n("neg-gl-path-value", "config.yaml", "tls:\n  private_key: /etc/ssl/private/server.key\n", GL))
    add(
        _n(
            "neg-gl-path-value",
            "docker-compose.yml",
            "secrets:\n  db_password:\n    file: /run/secrets/db_password\n",
            GL,
        )
    )

    # variable references
    add(_n("neg-ref-call", "app.py", "password = get_password()\n"))
    add(_n("neg-ref-args", "cli.py", "connect(host=args.host, password=args.password)\n"))
    add(
        _n(
            "neg-ref-environ",
            "app.py",
            'token = os.environ["TOKEN"]\nSECRET_KEY = os.environ["SECRET_KEY"]\n',
        )
    )
    add(_n("neg-ref-getpass", "cli.py", "password = getpass.getpass()\n"))
    add(_n("neg-ref-request", "views.py", 'password = request.form["password"]\n'))
    add(_n("neg-ref-self", "models.py", "        self.password = password\n"))
    add(_n("neg-ref-settings", "client.py", "api_key = settings.API_KEY\n"))
    add(
        _n("neg-ref-process-env", "src/config.js", "module.exports = {\n  apiKey: process.env.API_KEY,\n};\n")
    )
    add(_n("neg-ref-go-getenv", "main.go", 'cfg := Config{\n\tPassword: os.Getenv("DB_PASSWORD"),\n}\n'))
    add(_n("neg-ref-php-getenv", "wp-config.php", "define('DB_PASSWORD', getenv('DB_PASSWORD'));\n"))
    add(
        _n(
            "neg-ref-ruby-env",
            "config/environments/production.rb",
            'config.secret_key_base = ENV["SECRET_KEY_BASE"]\n',
        )
    )
    add(_n("neg-ref-tf-var", "main.tf", "  password = var.db_password\n"))
    add(_n("neg-ref-tf-resource", "main.tf", "  password = random_password.db.result\n"))
    add(_n("neg-ref-maven-env", "settings.xml", "<password>${env.DEPLOY_PASSWORD}</password>\n"))
    add(_n("neg-ref-shell-subst", "scripts/release.sh", "export GITHUB_TOKEN=$(gh auth token)\n"))
    add(
        _n(
            "neg-ref-k8s-secretref",
            "k8s/deploy.yaml",
            "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: app-secrets\n        key: password\n",
        )
    )
    add(_n("neg-ds-call", "mock_filename.foo", "my_password = foo(hey)you\n", DS))
    add(_n("neg-ds-lookup", "mock_filename.foo", "my_password = request.json_body['hey']\n", DS))
    add(_n("neg-ds-kwarg", "mock_filename.foo", "login(username=username, password=password)\n", DS))
    add(_n("neg-ds-js-this", "mock_filename.js", "apiKey: this.apiKey,\n", DS))
    add(_n("neg-ds-js-read", "mock_filename.js", "apiKey: fs.readFileSync('foo',\n", DS))
    add(_n("neg-ds-php-var", "mock_filename.php", "$password = $input;\n", DS))
    add(_n("neg-tuple-fields", "forms.py", 'fields = ("username", "password", "email")\n'))
    add(
        _n(
            "neg-tuple-fields",
            "models.py",
            'CHOICES = [("api_key", "API key"), ("oauth_token", "OAuth token")]\n',
        )
    )
    add(
        _n(
            "neg-tuple-fields",
            "loader.py",
            'FILES = [("dbPassword", "conf/db.pass"), ("apiToken", "conf/api.token")]\n',
        )
    )
    add(
        _n("neg-path-value", "settings.py", 'SECRET_FILES = {"clientSecret": "secrets/client_secret.json"}\n')
    )
    add(_n("neg-argparse", "cli.py", 'parser.add_argument("--password", "-p", help="database password")\n'))
    add(_n("neg-jwt-encode", "auth.py", "token = jwt.encode(payload, key, algorithm='HS256')\n"))
    add(_n("neg-csrf-token", "views.py", 'csrf_token = request.cookies.get("csrftoken")\n', GL))

    # type hints and signatures
    add(_n("neg-signature", "auth.py", "def login(username: str, password: str) -> Session:\n"))
    add(
        _n("neg-type-hint", "config.py", "    password: Optional[str] = None\n    token: str | None = None\n")
    )
    add(_n("neg-pydantic-field", "schemas.py", "    password: str = Field(..., min_length=8)\n"))
    add(
        _n(
            "neg-ts-interface",
            "src/types.ts",
            "interface Credentials {\n  username: string;\n  password: string;\n}\n",
        )
    )
    add(_n("neg-go-struct-tag", "models.go", 'type User struct {\n\tPassword string `json:"password"`\n}\n'))
    add(
        _n(
            "neg-java-param",
            "UserService.java",
            "public boolean checkPassword(String rawPassword, String encodedPassword) {\n",
        )
    )

    # prose and docs
    add(_n("neg-prose", "docs/security.md", "The password must be at least 8 characters long.\n"))
    add(_n("neg-prose", "docs/deploy.rst", "Set ``SECRET_KEY`` to a random value before deploying.\n"))
    add(_n("neg-prose", "README.md", "Your token: paste the personal access token you created above.\n"))
    add(
        _n(
            "neg-docs-table",
            "docs/config.md",
            "| key | type | description |\n| password | string | the database user's password |\n",
        )
    )
    add(_n("neg-aws-doc-example", "docs/aws.md", "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\n", AWS_DOCS))
    add(
        _n(
            "neg-aws-doc-example",
            "tests/fixtures/credentials",
            "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
            AWS_DOCS,
        )
    )
    add(
        _n(
            "neg-html-password-input",
            "templates/login.html",
            '<input type="password" name="password" id="password">\n',
        )
    )
    add(_n("neg-password-field", "forms.py", 'password_field = "password"\n'))
    add(
        _n(
            "neg-i18n",
            "locale/en.json",
            '{"password": "Password", "forgot_password": "Forgot your password?"}\n',
        )
    )

    # constant names and config knobs
    add(
        _n(
            "neg-const-name",
            "settings.py",
            "PASSWORD_RESET_TIMEOUT = 3600\nACCESS_TOKEN_EXPIRE_MINUTES = 30\n",
        )
    )
    add(_n("neg-const-name", "auth.py", 'TOKEN_TYPE = "bearer"\n'))
    add(_n("neg-token-bearer", "client.py", 'token = "Bearer"\n'))
    add(
        _n(
            "neg-password-hashers",
            "settings.py",
            'PASSWORD_HASHERS = ["django.contrib.auth.hashers.Argon2PasswordHasher"]\n',
        )
    )
    add(_n("neg-token-url", "oauth.py", 'token_url = "https://oauth2.googleapis.com/token"\n', GL))
    add(_n("neg-api-version", "client.py", 'api_version = "2023-10-16"\n', GL))
    add(_n("neg-api-key-header-name", "server.py", 'API_KEY_HEADER = "X-API-Key"\n'))
    add(_n("neg-secret-name", "k8s/app.yaml", "secretName: app-tls\nsecret_name: db-credentials\n", GL))
    add(
        _n("neg-keystore-file", "gradle.properties", "keystore_file=release.keystore\nkey_alias=upload\n", GL)
    )
    add(_n("neg-password-policy", "config.yaml", "password_min_length: 12\npassword_require_symbols: true\n"))
    add(_n("neg-passwordless", "package.json", '{"keywords": ["token", "secret", "passwordless"]}\n'))
    add(
        _n(
            "neg-flask-test-key",
            "tests/conftest.py",
            'app.config.update(TESTING=True, SECRET_KEY="test key")\n',
        )
    )
    add(_n("neg-django-test-key", "tests/runtests.py", "SECRET_KEY = 'django_tests_secret_key'\n"))
    add(_n("neg-word-constant", "app/config.py", 'SECRET_KEY = "development"\n'))

    # headers and URLs without a literal credential
    add(
        _n(
            "neg-bearer-var",
            "scripts/api.sh",
            'curl -H "Authorization: Bearer $TOKEN" https://api.service.io/v1/me\n',
        )
    )
    add(
        _n(
            "neg-bearer-var",
            "scripts/api.sh",
            'curl -H "Authorization: Bearer ${GITHUB_TOKEN}" https://api.github.com/user\n',
        )
    )
    add(_n("neg-bearer-angle", "docs/api.md", "Authorization: Bearer <token>\n"))
    add(_n("neg-bearer-fstring", "client.py", 'headers = {"Authorization": f"Bearer {token}"}\n'))
    add(_n("neg-bearer-js-template", "src/api.js", "headers: { Authorization: `Bearer ${token}` },\n"))
    add(_n("neg-curl-u-vars", "scripts/ping.sh", 'curl -u "$USER:$PASS" https://ci.internal/api/json\n'))
    add(_n("neg-url-no-password", ".env", "REDIS_URL=redis://localhost:6379/0\n"))
    add(_n("neg-url-no-password", "alembic.ini", "sqlalchemy.url = postgres://app@db.internal/orders\n"))
    add(_n("neg-url-port", "README.md", "Open http://localhost:8080/@admin/dashboard in a browser.\n"))
    add(_n("neg-git-ssh", ".gitmodules", '[submodule "vendor/lib"]\n\turl = git@github.com:org/lib.git\n'))
    add(_n("neg-ssh-url", "deploy.yml", "repo: ssh://git@git.corp.io:2222/ops/infra.git\n"))
    add(_n("neg-email", "setup.cfg", "author_email = maintainers@project.org\n"))

    # digests and ids
    add(
        _n(
            "neg-git-sha",
            ".pre-commit-config.yaml",
            f"repos:\n  - repo: https://github.com/psf/black\n    rev: {digest_hex('black', 'sha1')}\n",
        )
    )
    add(_n("neg-git-sha", "CHANGELOG.md", f"* fix the parser (commit {digest_hex('fix-parser', 'sha1')})\n"))
    add(
        _n(
            "neg-sha256",
            "Formula/tool.rb",
            f'  url "https://files.io/tool-1.2.tar.gz"\n  sha256 "{digest_hex("tool-1.2")}"\n',
        )
    )
    add(_n("neg-sha256", "SHA256SUMS", f"{digest_hex('app.tgz')}  app-1.4.0-linux-amd64.tar.gz\n"))
    add(_n("neg-docker-digest", "k8s/deploy.yaml", f"image: nginx@sha256:{digest_hex('nginx')}\n"))
    add(
        _n(
            "neg-lfs-pointer",
            "assets/model.bin",
            f"version https://git-lfs.github.com/spec/v1\noid sha256:{digest_hex('model')}\nsize 48213\n",
        )
    )
    add(
        _n(
            "neg-uuid",
            "config/app.json",
            f'{{"id": "{uuid_from("app-id")}", "tenant": "{uuid_from("tenant-id")}"}}\n',
        )
    )
    add(
        _n(
            "neg-uuid",
            "terraform.tfvars",
            f'subscription_id = "{uuid_from("sub-id")}"\nclient_id = "{uuid_from("client-id")}"\n',
        )
    )
    integrity = "sha512-" + b64(hashlib.sha512(b"left-pad-1.3.0").digest())
    add(
        _n(
            "neg-npm-integrity",
            "package-lock.json",
            '    "node_modules/left-pad": {\n      "version": "1.3.0",\n'
            f'      "integrity": "{integrity}"\n    }}\n',
        )
    )
    add(
        _n(
            "neg-yarn-integrity",
            "yarn.lock",
            f'left-pad@^1.3.0:\n  version "1.3.0"\n  integrity {integrity}\n',
        )
    )
    sri = "sha384-" + b64(hashlib.sha384(b"bootstrap.min.js").digest())
    add(
        _n(
            "neg-sri",
            "templates/base.html",
            f'<script src="/static/app.js" integrity="{sri}" crossorigin="anonymous"></script>\n',
        )
    )
    gosum = "h1:" + b64(hashlib.sha256(b"github.com/pkg/errors v0.9.1").digest())
    add(_n("neg-go-sum", "go.sum", f"github.com/pkg/errors v0.9.1 {gosum}\n"))
    add(
        _n(
            "neg-go-sum",
            "go.sum",
            f"github.com/pkg/errors v0.9.1/go.mod h1:{b64(hashlib.sha256(b'gomod').digest())}\n",
        )
    )
    add(
        _n(
            "neg-cargo-checksum",
            "Cargo.lock",
            f'[[package]]\nname = "serde"\nversion = "1.0.197"\nchecksum = "{digest_hex("serde")}"\n',
        )
    )
    add(
        _n(
            "neg-pip-hash",
            "requirements.txt",
            f"requests==2.31.0 \\\n    --hash=sha256:{digest_hex('requests')}\n",
        )
    )

    # encoded media and generated code
    png = b64(b"\x89PNG\r\n\x1a\n" + random_bytes("png", 90))
    add(_n("neg-data-image", "src/logo.js", f'export const logo = "data:image/png;base64,{png}";\n'))
    add(_n("neg-data-image", "static/app.css", f".logo {{ background: url(data:image/png;base64,{png}) }}\n"))
    font = b64(b"wOF2" + random_bytes("font", 120))
    add(
        _n(
            "neg-data-font",
            "static/fonts.css",
            f"@font-face {{ src: url(data:font/woff2;base64,{font}) format('woff2'); }}\n",
        )
    )
    add(_n("neg-css-classes", "dist/index.html", '<div class="css-1q2w3e4 e1x2y3z0 sc-bdVaJa kXzXyK">\n'))
    add(_n("neg-minified", "dist/app.min.js", "var a=function(t,e){return t.Kd9xQz2Pm(e)},b=a.Yh7Lw3Nc;\n"))
    add(
        _n(
            "neg-source-map",
            "dist/app.js.map",
            '{"version":3,"mappings":"AAAA,SAASA,EAAIC,GACX,OAAOA,EAAE,KACV;AAED,IAAMC,IAAI"}\n',
        )
    )
    ssh_pub = b64(b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00 " + random_bytes("ed25519", 32))
    add(_n("neg-ssh-public-key", ".ssh/authorized_keys", f"ssh-ed25519 {ssh_pub} deploy@ci\n"))
    pub = b64(random_bytes("pubkey", 96))
    add(
        _n(
            "neg-pem-public-key",
            "keys/signing.pub",
            f"-----BEGIN PUBLIC KEY-----\n{pub[:64]}\n{pub[64:]}\n-----END PUBLIC KEY-----\n",
        )
    )
    add(
        _n(
            "neg-stripe-publishable",
            "src/checkout.js",
            f'const stripe = Stripe("pk_live_{draw("pk-live", ALNUM, 24)}");\n',
        )
    )
    vault = "\n".join(draw(f"vault-{i}", HEX, 80) for i in range(3))
    add(
        _n(
            "neg-ansible-vault",
            "group_vars/prod/vault.yml",
            f"db_password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n{vault}\n",
        )
    )

    # versions, locales, misc
    add(_n("neg-version", "pyproject.toml", 'version = "1.2.3-beta.4+sha.5114f85"\n'))
    add(_n("neg-locale", ".env", "LANG=en_US.UTF-8\nLC_ALL=en_US.UTF-8\n"))
    add(_n("neg-timestamp", "data/events.csv", "2024-03-01T12:34:56.789Z,login,ok\n"))
    add(_n("neg-ip-port", "hosts.ini", "[db]\n10.0.3.7:5432\n"))
    add(_n("neg-mac-cidr", "network.yaml", "mac: 52:54:00:12:34:56\ncidr: 10.10.0.0/16\n"))
    add(
        _n(
            "neg-path-like",
            "config.yaml",
            "auth:\n  token_file: /var/run/secrets/kubernetes.io/serviceaccount/token\n",
        )
    )
    add(_n("neg-pragma-like", "tox.ini", "passenv = HOME PASSWORD_STORE_DIR\n"))
    add(
        _n(
            "neg-openapi",
            "openapi.yaml",
            "components:\n  securitySchemes:\n    bearerAuth:\n      type: http\n      scheme: bearer\n      bearerFormat: JWT\n",
        )
    )
    add(_n("neg-sql", "schema.sql", "CREATE TABLE users (id serial, password_hash text NOT NULL);\n"))
    add(_n("neg-path-in-path", "docs/rotating_AKIAIOSFODNN7EXAMPLE.md", "How to rotate keys.\n", AWS_DOCS))
    add(
        _n(
            "neg-glued-prefix-name",
            "src/shelves.py",
            "shelf_ThisIsAVeryLongCamelCaseNamesXY = 1\nbenchmark_test_SomeLongCamelCaseName(x)\n"
            "risk_live_PortfolioExposureSummary = {}\npnpm_lockfileVersionWithExtraWords1 = 9\n",
        )
    )
    add(
        _n(
            "neg-kotlin-mapof-reference",
            "src/Client.kt",
            'val h = mapOf("Authorization" to "Bearer $token", "password" to password, "token" to "<token>")\n',
        )
    )
    add(_n("neg-csharp-configuration-read", "Program.cs", 'var key = builder.Configuration["Jwt:Secret"];\n'))
    add(
        _n(
            "neg-arn-in-subscript",
            "infra/lambda.py",
            'os.environ["SECRET_ARN"] = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:db-password-Ab12Cd"\n',
        )
    )
    add(
        _n(
            "neg-powershell-securestring-reference",
            "deploy.ps1",
            "$pw = ConvertTo-SecureString $env:DEPLOY_PASSWORD -AsPlainText -Force\n"
            '$enc = ConvertTo-SecureString "$encrypted"\n',
        )
    )
    add(
        _n(
            "neg-list-of-names",
            "settings.py",
            'SECRET_KEYS = ["SECRET_KEY", "API_TOKEN"]\nsensitive = ["password", "api_key"]\n'
            "api_keys = [key for key in keys if key]\npasswords = []\n"
            "token_variants = ['+i6t-not-inline', '+i6t-inline']\n"
            '_pass_through_attributes = ["Condition", "DeletionPolicy"]\n',
        )
    )
    add(
        _n(
            "neg-tokenizer-token-list",
            "tokenizer/test_vocab.py",
            'stop_tokens = ["</s>", "<|endoftext|>"]\nspecial_tokens = ["[CLS]", "abc123def456ghi"]\n'
            'tokens = ["hello", "world2024edition"]\n',
        )
    )
    add(
        _n(
            "neg-list-placeholders",
            "values.yaml",
            "passwords: [changeme, ${DB_PASSWORD}]\napi_keys: [<key>]\n",
        )
    )
    add(
        _n(
            "neg-yaml-block-names-and-scripts",
            ".github/workflows/ci.yml",
            "secrets:\n  - DB_PASSWORD\n  - API_TOKEN\npasswords:\n  - name: admin\n    value: ${{ secrets.ADMIN }}\n"
            "tokens:\n  - Ab3dE5fG7hJ9kL1mN3pQ\nsecret_script: |\n  echo setting the password\n  vault kv get db\n"
            "password: |\n  ${DB_PASSWORD}\n",
        )
    )
    add(_n("neg-test-name", "tests/test_auth.py", "def test_password_reset_token_expires():\n    pass\n"))
    return out


def cases() -> list[Case]:
    """Every case, positives first."""
    return [*positives(), *negatives()]
