"""Fake credentials built at test time by concatenation: no literal secret is ever committed.

Every value comes from a seeded generator, so runs are reproducible, and each prefix is split in two
(``"AK" + "IA"``) so that this file itself matches no scanner rule.
"""

from __future__ import annotations

import base64
import json
import random
import string

UPPER_DIGITS = string.ascii_uppercase + string.digits
BASE32 = string.ascii_uppercase + "234567"
"""The alphabet of an AWS access key id's body."""
ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "-_"
HEX = "0123456789abcdef"


def _pick(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def fake_secrets(seed: int = 7) -> dict[str, str]:
    """One fake value per rule family, keyed by the rule id expected to catch it."""
    rng = random.Random(seed)
    header = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = _b64url(json.dumps({"sub": _pick(rng, string.digits, 10), "name": "fake"}).encode())
    return {
        "aws-access-key-id": "AK" + "IA" + _pick(rng, BASE32, 16),
        "aws-secret-access-key": _pick(rng, ALNUM + "/+", 40),
        "github-token": "gh" + "p_" + _pick(rng, ALNUM, 36),
        "github-fine-grained-token": "github" + "_pat_" + _pick(rng, ALNUM + "_", 82),
        "gitlab-token": "gl" + "pat-" + _pick(rng, URLSAFE, 20),
        "slack-token": "xo" + "xb-" + _pick(rng, string.digits, 12) + "-" + _pick(rng, ALNUM, 24),
        "slack-webhook": "https://hooks.sl"
        + "ack.com/services/T"
        + _pick(rng, UPPER_DIGITS, 9)
        + "/B"
        + _pick(rng, UPPER_DIGITS, 9)
        + "/"
        + _pick(rng, ALNUM, 24),
        "stripe-secret-key": "sk" + "_live_" + _pick(rng, ALNUM, 24),
        "openai-api-key": "sk-" + _pick(rng, ALNUM, 20) + "T3Blb" + "kFJ" + _pick(rng, ALNUM, 20),
        "google-api-key": "AI" + "za" + _pick(rng, URLSAFE, 35),
        "npm-token": "np" + "m_" + _pick(rng, ALNUM, 36),
        "telegram-bot-token": _pick(rng, string.digits, 9) + ":A" + "A" + _pick(rng, URLSAFE, 33),
        "sendgrid-api-key": "S" + "G." + _pick(rng, URLSAFE, 22) + "." + _pick(rng, URLSAFE, 43),
        "jwt": header + "." + payload + "." + _pick(rng, URLSAFE, 43),
        "discord-webhook": "https://discord.com/api/web"
        + "hooks/"
        + _pick(rng, string.digits, 18)
        + "/"
        + _pick(rng, URLSAFE, 68),
        "square-token": "sq0" + "atp-" + _pick(rng, URLSAFE, 22),
        "twilio-api-key": "S" + "K" + _pick(rng, HEX, 32),
        "anthropic-api-key": "sk-" + "ant-api03-" + _pick(rng, URLSAFE, 93),
        "pypi-token": "pypi-" + "AgEIcHlwaS5vcmc" + _pick(rng, URLSAFE, 60),
        "huggingface-token": "h" + "f_" + _pick(rng, string.ascii_letters, 34),
        "azure-storage-key": _pick(rng, ALNUM + "+/", 86) + "==",
        "password-assignment": _pick(rng, ALNUM, 14) + "!9",
        "url-credentials": _pick(rng, ALNUM, 12) + "7",
        "authorization-header": _pick(rng, URLSAFE, 40),
        "command-line-password": _pick(rng, ALNUM, 14) + "#2",
        "netrc-password": _pick(rng, ALNUM, 16) + "%5",
        "xml-password": _pick(rng, ALNUM, 12) + "@3",
        "slack-app-token": "xa"
        + "pp-1-A"
        + _pick(rng, UPPER_DIGITS, 10)
        + "-"
        + _pick(rng, string.digits, 13)
        + "-"
        + _pick(rng, HEX, 64),
        "azure-ad-client-secret": _pick(rng, ALNUM, 3) + "8Q" + "~" + _pick(rng, ALNUM + "_~.-", 31),
        "digitalocean-token": "do" + "p_v1_" + _pick(rng, HEX, 64),
        "vault-token": "hv" + "s." + _pick(rng, URLSAFE, 95),
        "terraform-cloud-token": _pick(rng, HEX, 14) + ".atlas" + "v1." + _pick(rng, URLSAFE, 64),
        "heroku-api-key": "HR" + "KU-AA" + _pick(rng, URLSAFE, 58),
        "pulumi-token": "pu" + "l-" + _pick(rng, HEX, 40),
        "shopify-token": "shp" + "at_" + _pick(rng, HEX, 32),
        "grafana-token": "gl" + "sa_" + _pick(rng, ALNUM, 32) + "_" + _pick(rng, HEX, 8),
        "databricks-token": "da" + "pi" + _pick(rng, HEX, 32),
        "doppler-token": "dp" + ".pt." + _pick(rng, ALNUM, 43),
        "linear-api-key": "lin" + "_api_" + _pick(rng, ALNUM, 40),
        "postman-api-key": "PM" + "AK-" + _pick(rng, HEX, 24) + "-" + _pick(rng, HEX, 34),
        "rubygems-token": "ruby" + "gems_" + _pick(rng, HEX, 48),
        "age-secret-key": "AGE-SECRET" + "-KEY-1" + _pick(rng, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58),
        "credentials-call": _pick(rng, ALNUM, 14) + "$8",
        "pgpass-password": _pick(rng, ALNUM, 16) + "&4",
        "atlassian-api-token": "ATA" + "TT3" + _pick(rng, URLSAFE, 186),
        "brevo-api-key": "xkey" + "sib-" + _pick(rng, HEX, 64) + "-" + _pick(rng, ALNUM, 16),
        "contentful-token": "CFP" + "AT-" + _pick(rng, URLSAFE, 43),
        "firebase-server-key": "AA" + "AA" + _pick(rng, URLSAFE, 7) + ":" + _pick(rng, URLSAFE, 140),
        "mailchimp-api-key": _pick(rng, HEX, 32) + "-u" + "s12",
        "private-key": "\n".join(_pick(rng, ALNUM + "+/", 64) for _ in range(6)),
        "name-value-pair": _pick(rng, ALNUM, 14) + "#7",
        "sql-password": _pick(rng, ALNUM, 14) + "%3",
    }


def pem_block(body: str, kind: str = "RSA ") -> str:
    return f"-----BEGIN {kind}PRIV" + "ATE KEY-----\n" + body + f"\n-----END {kind}PRIV" + "ATE KEY-----\n"


PLANT_NAMES: dict[str, str] = {"pgpass-password": ".pgpass"}
"""Rules of a format known by its file name: the file a planted value goes in."""


def plant(rule: str, value: str) -> str:
    """A line (or block) of source text carrying ``value`` the way it is usually written."""
    if rule == "aws-secret-access-key":
        return f'aws_secret_access_key = "{value}"\n'
    if rule == "password-assignment":
        return f'DB_PASSWORD = "{value}"\n'
    if rule == "url-credentials":
        return f"DATABASE_URL = 'postgres://app:{value}@db.internal:5432/app'\n"
    if rule == "private-key":
        return pem_block(value)
    if rule == "authorization-header":
        return f'curl -H "Authorization: Bearer {value}" https://api.internal/v1\n'
    if rule == "command-line-password":
        return f"mysqldump -u backup -p{value} app > app.sql\n"
    if rule == "netrc-password":
        return f"machine api.internal login deploy password {value}\n"
    if rule == "credentials-call":
        return f'session.auth = HTTPBasicAuth("deploy", "{value}")\n'
    if rule == "pgpass-password":
        return f"db.internal:5432:billing:deploy:{value}\n"
    if rule == "xml-password":
        return f"<password>{value}</password>\n"
    if rule == "sql-password":
        return f"SQL = \"CREATE USER app IDENTIFIED BY '{value}'\"\n"
    if rule == "name-value-pair":
        return f'ENVIRONMENT = [{{"name": "DB_PASSWORD", "value": "{value}"}}]\n'
    if rule == "azure-storage-key":
        return f'CONN = "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={value};"\n'

    return f'TOKEN = "{value}"\n'


def secret_values(secrets: dict[str, str]) -> list[str]:
    """What must never appear in output: every value, and each line of a multi-line one."""
    out: list[str] = []
    for value in secrets.values():
        out.extend(part for part in value.split("\n") if len(part) >= 8)
    return out


def negatives(seed: int = 11) -> dict[str, str]:
    """Digest-like and id-like strings that are not secrets (M7's false positives among them)."""
    rng = random.Random(seed)
    return {
        "git-sha": _pick(rng, HEX, 40),
        "sha256-hex": _pick(rng, HEX, 64),
        "prooftext-id": _pick(rng, HEX.upper(), 64),
        "uuid": "-".join(_pick(rng, HEX, n) for n in (8, 4, 4, 4, 12)),
        "npm-integrity": "sha512-" + base64.b64encode(rng.randbytes(64)).decode("ascii"),
        "docker-digest": "sha256:" + _pick(rng, HEX, 64),
        "aws-docs-example": "AK" + "IAIOSFODNN7" + "EXAMPLE",
        "password-placeholder": 'password = "changeme"',
        "password-template": 'password: "${DB_PASSWORD}"',
        "password-reference": "password = settings.DB_PASSWORD",
        "password-annotation": "def login(user: str, password: str) -> None:",
        "password-format-field": 'password = "{password}"',
        "password-name-constant": 'PRIVATE_KEY = "private-key"',
    }
