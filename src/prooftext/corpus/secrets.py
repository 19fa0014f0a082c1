"""Credential detection: which sources carry a secret, where, and how to redact it.

The scan runs :func:`find_secrets` on every adopted text and :func:`path_findings` on every path. What
happens next is the ``[scan] secrets`` policy (see :mod:`prooftext.corpus.config`):

``redact`` (default)
    The file is indexed with every finding replaced by ``[REDACTED:<rule>]`` (the line structure and the
    syntax around each value, such as its quotes, are kept, so line ranges and the file's SHA-256, which
    is computed on the raw bytes, stay valid). Private-key blocks span lines and are always excluded,
    whatever the policy: an excerpt cut inside a block could not be redacted line by line.
``exclude``
    The file is not indexed: it becomes an exclusion with reason ``secret``. The detail names the rules
    and line numbers (``aws-access-key-id at line 3``), never the value.

Rendering (``pack/render.py``) applies :func:`redact_text` to every excerpt as a second, policy-free line
of defence, so a value never reaches a prompt even when a source slipped past the scan (an inline
allowlist pragma, an index built by an older version). Every rule but one is *line-local* (no pattern
crosses a ``\\n``); the name/value pair rule finds a value on the line after its name (or, in YAML, the items
and the one-line block scalar under a credential key), and its values are
redacted wherever they recur, however short, so an excerpt that leaves the name's line out still redacts
the value. Redacting an excerpt is therefore equal to redacting the whole file and then slicing it: the
prompt, its exact token cost and ``prooftext verify`` all agree. A private key (PEM, OpenSSH or PuTTY)
spans lines; its file is always left out.

Two kinds of rule:

* **definite** rules (:data:`RULES`): fixed credential shapes (cloud keys, git host tokens, chat and
  payment API keys, JWTs, private keys, credentials in URLs, ``Authorization`` headers, passwords on
  ``curl``/``mysql``/``sshpass`` command lines, netrc and XML passwords) and literals assigned to
  credential-named keys (:mod:`prooftext.corpus.assignments`: ``PGPASSWORD=``, ``clientSecret:``,
  ``API_TOKEN =``, ``_authToken=``, docker's ``"auth"``, a fallback after ``or``), with the heuristics of
  detect-secrets: placeholders (``changeme``), templates (``${DB_PASSWORD}``, ``{password}``,
  ``https://{token}:x@host``), indirect references, quoted prose and identifier-like constants are not
  secrets. These drive the policy; the labelled corpus in ``tests/secret_corpus.py`` and
  ``bench/secrets_bench.py`` measure them.
* the **high-entropy** heuristic (:func:`high_entropy_count`): long random-looking strings. It only
  *labels* an excerpt (``flags=high-entropy:N``), because digests are everywhere in a repository: git
  SHAs, SHA-256 hex, UUIDs, lockfile ``integrity`` hashes and prooftext's own ids are never counted, and
  lockfiles are not examined at all.

Inline allowlist pragmas (``pragma: allowlist secret``, ``gitleaks:allow``) are honoured only when
``[scan] secrets_allow_pragma = true``; even then the value is still redacted in prompts.

Known gaps (``tests/reliability/GAPS.md``, ``docs/SECRETS_NOTES.md``): a value on another line than its key
(other than a name/value pair, a YAML block sequence or one-line block scalar: a list continued over lines in
code, a TOML multi-line string, a netrc entry spread over lines outside a netrc file), a secret split over two
lines, or wrapped in base64 or another encoding, is not recognised (the high-entropy label may still mark it),
nor is a password in prose (``the password is …``).
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import math
import posixpath
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from ahocorasick_rs import AhoCorasick, BytesAhoCorasick, MatchKind

from prooftext.corpus.assignments import (
    ANCHORS,
    STRONG,
    credible_quoted,
    find_assignments,
    find_named_values,
    find_yaml_blocks,
    is_placeholder,
    key_strength,
)
from prooftext.corpus.assignments import REDACTED_PREFIX as REDACTED_PREFIX

POLICY_EXCLUDE = "exclude"
POLICY_REDACT = "redact"
POLICIES: tuple[str, ...] = (POLICY_EXCLUDE, POLICY_REDACT)
DEFAULT_POLICY = POLICY_REDACT

"""``REDACTED_PREFIX``: every redaction is ``[REDACTED:<rule id>]``; no rule matches it again, so redaction is idempotent."""

RULE_PRIVATE_KEY = "private-key"
RULE_ASSIGNMENT = "password-assignment"
RULE_NAME_VALUE = "name-value-pair"
ALWAYS_EXCLUDED: frozenset[str] = frozenset({RULE_PRIVATE_KEY})
"""Rules whose findings exclude the file even under the redact policy (multi-line values)."""

PRAGMAS: tuple[str, ...] = ("pragma: allowlist secret", "gitleaks:allow")
MAX_DETAIL_FINDINGS = 8
"""An exclusion detail lists at most this many findings, then a count."""

_LOCK_FILES: frozenset[str] = frozenset(
    {
        "package-lock.json",
        "npm-shrinkwrap.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "poetry.lock",
        "pipfile.lock",
        "cargo.lock",
        "go.sum",
        "composer.lock",
        "gemfile.lock",
        "uv.lock",
        "pdm.lock",
        "flake.lock",
        "bun.lockb",
        "packages.lock.json",
        "mix.lock",
        "pubspec.lock",
        "podfile.lock",
    }
)


@dataclass(frozen=True)
class Finding:
    """One credential-shaped value: which rule, where. The value itself is never kept."""

    rule: str
    line: int
    start: int
    end: int
    allowlisted: bool = False

    def to_dict(self) -> dict[str, object]:
        return {"rule": self.rule, "line": self.line, "allowlisted": self.allowlisted}


Check = Callable[[str, str, str], bool]
"""``check(value, line_text, path) -> bool``: False drops a match (a placeholder, a reference, ...)."""


@dataclass(frozen=True)
class Rule:
    """A credential shape: the pattern's first group is the value a finding covers and redaction replaces."""

    id: str
    description: str
    pattern: re.Pattern[str]
    check: Check | None = None
    applies: Callable[[str], bool] | None = None
    """Only files whose path this accepts are searched (a format known by its file name)."""


def _not_example(value: str, _line: str, _path: str) -> bool:
    return "EXAMPLE" not in value.upper()


def _not_placeholder(value: str, _line: str, _path: str) -> bool:
    value = value.rstrip(",.;:)").strip("'\"`")  # ``requirepass foobared``, in prose
    return len(value) >= 3 and not is_placeholder(value) and not value.isdigit()


def _credible_password(value: str, _line: str, path: str) -> bool:
    return credible_quoted(value, STRONG, path)


_XML_TAG = re.compile(r"<([A-Za-z_][\w:.-]{0,60})>([^<\s]{4,200})</")


def _xml_credential(value: str, line: str, path: str) -> bool:
    """The element around ``value`` names a credential (``<password>``, ``<passphrase>``, ``<apiKey>``)."""
    for match in _XML_TAG.finditer(line):
        if match.group(2) == value:
            strength = key_strength(match.group(1).rsplit(":", 1)[-1])
            return strength is not None and credible_quoted(value, strength, path)
    return False


def _pgpass_file(path: str) -> bool:
    return posixpath.basename(path).lower() in {".pgpass", "pgpass.conf"}


def _netrc_password(value: str, line: str, path: str) -> bool:
    """netrc's ``password VALUE``: in a netrc file, or on a line that is a netrc entry (``machine HOST login
    USER password VALUE``, as a README quotes one)."""
    if not path:  # free text (a memory record, a chat message): a netrc entry may span its lines
        return credible_quoted(value, STRONG, path)
    netrc = posixpath.basename(path).lower() in {".netrc", "_netrc", "netrc"}
    entry = line.lstrip(" \t>$#").lower().startswith("machine ") and " login " in line.lower()
    return (netrc or entry) and _not_placeholder(value, line, path)


def _url_password(value: str, line: str, _path: str) -> bool:
    if f"/{value}:{value}@" in line:
        return False  # a service's default login, the password its user name (``postgres:postgres``)
    return len(value) >= 3 and not is_placeholder(value) and value.lower() not in {"pass", "pwd", "user"}


_E = r"(?![A-Za-z0-9_])"


MIN_DISTINCT_CHARS = 5
"""A token spelled with fewer distinct characters (its prefix included) is filler."""
_FILLER = re.compile(r"(?i)x{4}|\*{4}|0{8}|\.{4}")


_UPPER_OR_DIGIT = re.compile(r"[A-Z0-9]")


def _not_filler(value: str, _line: str, _path: str) -> bool:
    """A token whose body is filler (``sk_live_xxxxxxxx…``) is a documentation placeholder, and one spelled
    in lowercase words (``xoxb-token-setup-guide``, ``glpat-rotation-howto``) is a name, which in a path would
    leave its file out: a random body holds a capital or a digit all but always (a 20-character GitLab body
    lacks both once in fifteen million)."""
    filler = _FILLER.search(value) or len(set(value)) <= MIN_DISTINCT_CHARS
    return not filler and _UPPER_OR_DIGIT.search(value) is not None


def _token(rule_id: str, description: str, body: str, check: Check | None = None) -> Rule:
    """A rule for a credential token spelled ``body``: the whole token is the value, and no word character
    may follow it (that none precedes it is checked in :func:`_matches`)."""
    return Rule(rule_id, description, re.compile(f"({body})" + _E), check or _not_filler)


# Fixed-prefix provider tokens adopted from gitleaks' default rule set (config/gitleaks.toml, v8.30.1),
# Copyright (c) 2019 Zachary Rice, MIT licence (THIRD_PARTY_NOTICES.md); Go syntax translated to Python.
_PROVIDER_RULES: tuple[Rule, ...] = (
    _token("slack-app-token", "Slack app-level token", r"(?i:xapp)-[0-9]-[A-Za-z0-9]+-[0-9]+-[A-Za-z0-9]+"),
    Rule(
        "azure-ad-client-secret",
        "Azure AD client secret",
        re.compile(r"([a-zA-Z0-9_~.]{3}[0-9]Q~[a-zA-Z0-9_~.-]{31,34})(?![a-zA-Z0-9_~.-])"),
        _not_filler,
    ),
    _token("digitalocean-token", "DigitalOcean token", r"do[opr]_v1_[a-f0-9]{64}"),
    _token(
        "vault-token",
        "HashiCorp Vault service or batch token",
        r"(?:hvs\.[A-Za-z0-9_-]{90,120}|hvb\.[A-Za-z0-9_-]{138,300})",
    ),
    _token(
        "terraform-cloud-token",
        "Terraform Cloud API token",
        r"(?i:[a-z0-9]{14})\.atlasv1\.(?i:[a-z0-9_=-]{60,70})",
    ),
    _token("heroku-api-key", "Heroku API key (v2)", r"HRKU-AA[0-9a-zA-Z_-]{58}"),
    _token("pulumi-token", "Pulumi access token", r"pul-[a-f0-9]{40}"),
    _token("shopify-token", "Shopify access token or shared secret", r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"),
    _token(
        "grafana-token",
        "Grafana service-account or cloud token",
        r"(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,400}={0,2})",
    ),
    _token("databricks-token", "Databricks API token", r"dapi[a-f0-9]{32}(?:-[0-9])?"),
    _token("doppler-token", "Doppler API token", r"dp\.pt\.[A-Za-z0-9]{43}"),
    _token("linear-api-key", "Linear API key", r"lin_api_[A-Za-z0-9]{40}"),
    _token("postman-api-key", "Postman API key", r"PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}"),
    _token("rubygems-token", "RubyGems API token", r"rubygems_[a-f0-9]{48}"),
    _token("age-secret-key", "age secret key", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
    _token("atlassian-api-token", "Atlassian API token", r"ATATT3[A-Za-z0-9_=-]{186}"),
    _token("brevo-api-key", "Brevo (Sendinblue) API key", r"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}"),
    _token("contentful-token", "Contentful personal access token", r"CFPAT-[A-Za-z0-9_-]{43}"),
    _token(
        "firebase-server-key",
        "Firebase Cloud Messaging server key",
        r"AAAA[A-Za-z0-9_-]{7}:[A-Za-z0-9_-]{140}",
    ),
    _token("mailchimp-api-key", "Mailchimp API key", r"[a-f0-9]{32}-us[0-9]{1,2}"),
)


RULES: tuple[Rule, ...] = (
    _token(
        "aws-access-key-id",
        "AWS access key id",
        r"(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z2-7]{16}",  # base32 after the prefix, as gitleaks reads it
        _not_example,
    ),
    Rule(
        "aws-secret-access-key",
        "AWS secret access key next to its name",
        re.compile(
            r"(?i)aws[A-Za-z0-9_.-]{0,20}?(?:secret|access)[A-Za-z0-9_.-]{0,20}?['\"]?[ \t]*[=:][ \t]*['\"]?"
            r"([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
        ),
        _not_example,
    ),
    _token("github-token", "GitHub token", r"gh[pousr]_[A-Za-z0-9]{36,251}"),
    _token("github-fine-grained-token", "GitHub fine-grained token", r"github_pat_[A-Za-z0-9_]{82}"),
    _token(
        "gitlab-token",
        "GitLab personal, runner, pipeline-trigger or deploy token",
        r"(?:glpat-[A-Za-z0-9_-]{20,64}|glrt-[0-9a-zA-Z_-]{20,64}|glptt-[0-9a-f]{40}|gldt-[0-9a-zA-Z_-]{20,64})",
    ),
    _token("slack-token", "Slack token", r"xox[abposr]-[A-Za-z0-9-]{10,250}"),
    Rule(
        "slack-webhook",
        "Slack incoming webhook",
        re.compile(r"(https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9_/]{20,})"),
    ),
    Rule(
        "discord-webhook",
        "Discord webhook",
        re.compile(
            r"(https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/[0-9]+/[A-Za-z0-9_-]{20,})"
        ),
    ),
    _token("telegram-bot-token", "Telegram bot token", r"[0-9]{8,10}:AA[A-Za-z0-9_-]{33}"),
    _token(
        "stripe-secret-key", "Stripe secret or restricted key", r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,247}"
    ),
    _token("square-token", "Square access token or secret", r"sq0(?:atp|csp)-[A-Za-z0-9_-]{22,60}"),
    _token("twilio-api-key", "Twilio API key", r"SK[0-9a-f]{32}"),
    _token("sendgrid-api-key", "SendGrid API key", r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"),
    _token(
        "openai-api-key",
        "OpenAI API key",
        r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}T3BlbkFJ[A-Za-z0-9_-]{16,}",
    ),
    _token("anthropic-api-key", "Anthropic API key", r"sk-ant-(?:api|admin)[0-9]{2}-[A-Za-z0-9_-]{80,}"),
    _token("google-api-key", "Google API key", r"AIza[0-9A-Za-z_-]{35}"),
    _token("npm-token", "npm access token", r"npm_[A-Za-z0-9]{36}"),
    Rule("pypi-token", "PyPI upload token", re.compile(r"(pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,})")),
    _token("huggingface-token", "Hugging Face token", r"hf_[A-Za-z]{34}"),
    *_PROVIDER_RULES,
    Rule("azure-storage-key", "Azure storage account key", re.compile(r"AccountKey=([A-Za-z0-9+/]{86}==)")),
    _token("jwt", "JSON Web Token", r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    Rule(
        "url-credentials",
        "password inside a URL",
        # A user part that is a template (``https://{token}:x-oauth-basic@host``) is filled in elsewhere.
        # Anonymous FTP (RFC 1635) logs in as ``anonymous`` or ``ftp`` with an e-mail address by convention.
        re.compile(
            r"[A-Za-z][A-Za-z0-9+.-]{1,20}://(?![{$%<])(?!(?i:anonymous|ftp):)"
            r"[^\s/:@'\"]{0,64}:([^\s/:@'\"]{3,128})@[^\s/'\"]"
        ),
        _url_password,
    ),
    Rule(
        "authorization-header",
        "credentials in an Authorization header",
        re.compile(
            # After ``:``, ``=`` or ``,`` (code, HTTP, ``curl -H``), Kotlin's ``"…" to`` and Scala's ``"…" ->``,
            # or a blank and a quote (nginx's ``proxy_set_header Authorization "Basic …"``, Apache's
            # ``RequestHeader set``).
            r"(?i)(?<![A-Za-z0-9])authorization['\"]?\]?(?:[ \t]*(?:[:=,]|(?<=\")[ \t]to(?=[ \t])|(?<=['\"])[ \t]*->)"
            r"[ \t]*[rbuf]{0,2}['\"`]?|[ \t]+['\"])[ \t]*"
            r"(?:bearer|basic|token|bot)[ \t]+([A-Za-z0-9._~+/-]{8,}=*)"
        ),
        _not_placeholder,
    ),
    Rule(
        "command-line-password",
        "a password on a command line (curl -u, mysql -p, sshpass -p, mongosh -p, redis-cli -a, docker "
        "login -p, keytool -storepass, redis requirepass, PowerShell's ConvertTo-SecureString -AsPlainText)",
        re.compile(
            r"(?:(?<!\S)(?:-u|--user)[ \t=]+['\"]?[^\s:'\"$]{1,64}:"
            r"|\b(?:mysql|mysqldump|mysqladmin|mariadb|mysqlimport)\b[^\n]{0,200}?(?<!\S)-p['\"]?"
            r"|\bsshpass\b[^\n]{0,100}?(?<!\S)-p[ \t]*['\"]?"
            r"|\b(?:mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport)\b[^\n]{0,200}?"
            r"(?<!\S)-p(?:[ \t]+['\"]?|['\"])"
            r"|\bdocker[ \t]+login\b[^\n]{0,200}?(?<!\S)-p[ \t]+['\"]?"
            r"|\bredis-cli\b[^\n]{0,200}?(?<!\S)-a[ \t]+['\"]?"
            r"|\bkeytool\b[^\n]{0,300}?(?<!\S)-(?:dest|src)?(?:store|key)pass[ \t]+['\"]?"
            r"|(?<![\w-])-{0,2}(?:requirepass|masterauth)[ \t]+['\"]?"
            r"|(?i:\bConvertTo-SecureString[ \t]+(?:-String[ \t]+)?['\"](?=[^'\"\n]{1,128}['\"][^\n]*-AsPlainText)))"
            r"([^\s'\"-][^\s'\"]{2,127})"
        ),
        _not_placeholder,
    ),
    Rule(
        "sql-password",
        "a password in SQL (IDENTIFIED BY '…', PASSWORD '…')",
        re.compile(
            r"(?i)\b(?:user|role|grant)\b[^\n]{0,200}?[ \t](?:identified[ \t]+by|password)[ \t]+'([^'\n]{1,200})'"
        ),
        _credible_password,
    ),
    Rule(
        "netrc-password",
        "netrc password",
        re.compile(r"(?i)(?<![A-Za-z0-9_-])password[ \t]+['\"]?([^\s'\"]{3,128})"),
        _netrc_password,
    ),
    Rule(
        "xml-password",
        "a credential element in XML",
        re.compile(r"<[A-Za-z_][\w:.-]{0,60}>([^<\s]{4,200})</"),
        _xml_credential,
    ),
    Rule(
        "credentials-call",
        "a password given to a login or basic-auth call after the user name",
        re.compile(
            r"(?i)(?:basicauth|digestauth|networkcredential|passwordauthentication|\.login|(?<![A-Za-z0-9.])auth)"
            r"[ \t]*(?:=[ \t]*)?\([ \t]*\(?[ \t]*[rbuf]?['\"][^'\"\n]{1,100}['\"][ \t]*,[ \t]*[rbuf]?['\"]"
            r"([^'\"\n]{1,200})['\"]"
        ),
        _credible_password,
    ),
    Rule(
        "pgpass-password",
        "a password in a PostgreSQL password file",
        re.compile(r"(?m)^[^:\s#]{1,255}:[^:\s]{1,16}:[^:\s]{1,255}:[^:\s]{1,255}:(\S{3,200})$"),
        applies=_pgpass_file,
    ),
    Rule(RULE_NAME_VALUE, "a value paired with a credential name (name: …, value: …)", re.compile("(?!)")),
    Rule(RULE_ASSIGNMENT, "a literal assigned to a credential-named key", re.compile("(?!)")),
)
RULE_IDS: tuple[str, ...] = (*(rule.id for rule in RULES), RULE_PRIVATE_KEY)

_PAIR_FIELD = "value"
"""The field a name/value pair's value is under (any case): without it, only YAML blocks can pair."""
_TRIGGERS: dict[str, tuple[str, ...]] = {
    "aws-access-key-id": ("AKIA", "ASIA", "ABIA", "ACCA", "A3T"),
    "github-token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    "github-fine-grained-token": ("github_pat_",),
    "gitlab-token": ("glpat-", "glrt-", "glptt-", "gldt-"),
    "slack-app-token": ("xapp-", "XAPP-"),
    "azure-ad-client-secret": ("Q~",),
    "digitalocean-token": ("_v1_",),
    "vault-token": ("hvs.", "hvb."),
    "terraform-cloud-token": (".atlasv1.",),
    "heroku-api-key": ("HRKU-",),
    "pulumi-token": ("pul-",),
    "shopify-token": ("shp",),
    "grafana-token": ("glsa_", "glc_"),
    "databricks-token": ("dapi",),
    "doppler-token": ("dp.pt.",),
    "linear-api-key": ("lin_api_",),
    "postman-api-key": ("PMAK-",),
    "rubygems-token": ("rubygems_",),
    "age-secret-key": ("AGE-SECRET-KEY-1",),
    "atlassian-api-token": ("ATATT3",),
    "brevo-api-key": ("xkeysib-",),
    "contentful-token": ("CFPAT-",),
    "firebase-server-key": ("AAAA",),
    "mailchimp-api-key": ("-us",),
    "slack-token": ("xox",),
    "slack-webhook": ("hooks.slack.com",),
    "discord-webhook": ("/api/webhooks/",),
    "telegram-bot-token": (":AA",),
    "stripe-secret-key": ("k_live_", "k_test_"),
    "square-token": ("sq0",),
    "twilio-api-key": ("SK",),
    "sendgrid-api-key": ("SG.",),
    "openai-api-key": ("T3BlbkFJ",),
    "anthropic-api-key": ("sk-ant-",),
    "google-api-key": ("AIza",),
    "npm-token": ("npm_",),
    "pypi-token": ("pypi-AgEIcHlwaS5vcmc",),
    "huggingface-token": ("hf_",),
    "azure-storage-key": ("AccountKey=",),
    "jwt": ("eyJ",),
    "url-credentials": ("://",),
}
"""Literal fragments each match must contain: a rule whose fragments are all absent is not run (speed)."""
_FOLDED_TRIGGERS: dict[str, tuple[str, ...]] = {
    "aws-secret-access-key": ("aws",),
    "authorization-header": ("authorization",),
    "command-line-password": (
        "-u",
        "--user",
        "mysql",
        "mariadb",
        "sshpass",
        "mongo",
        "docker",
        "redis-cli",
        "keytool",
        "requirepass",
        "masterauth",
        "convertto-securestring",
    ),
    "sql-password": ("user", "role", "grant"),
    "netrc-password": ("password",),
    "credentials-call": ("auth", "login", "credential"),
    "xml-password": ("</",),
    "pgpass-password": (":",),
    RULE_NAME_VALUE: (_PAIR_FIELD, *ANCHORS),
    RULE_ASSIGNMENT: ANCHORS,
}
"""The same, matched against the lowercased text (case-insensitive rules)."""


_ALL_TRIGGERS = tuple(sorted({t for triggers in _TRIGGERS.values() for t in triggers}))
_ALL_FOLDED_TRIGGERS = tuple(sorted({t for triggers in _FOLDED_TRIGGERS.values() for t in triggers}))


_UNTRIGGERED = frozenset(r.id for r in RULES if r.id not in _TRIGGERS and r.id not in _FOLDED_TRIGGERS)
"""Rules that name no trigger: tried on every text."""


@dataclass(frozen=True)
class _Triggers:
    """A set of trigger fragments, all found in one Aho-Corasick pass over a text (``ahocorasick_rs``): over
    sphinx five times faster than a trie-shaped regular expression or one substring search per fragment,
    on short texts and long ones alike (``docs/SECRETS_NOTES.md``)."""

    words: tuple[str, ...]
    automaton: AhoCorasick
    bytes_automaton: BytesAhoCorasick
    """The same fragments, for a text holding a lone surrogate (which has no UTF-8 form to search)."""

    @classmethod
    def of(cls, words: tuple[str, ...]) -> _Triggers:
        kind = MatchKind.Standard  # the only kind that reports overlapping matches
        encoded = [w.encode("utf-8") for w in words]
        return cls(words, AhoCorasick(words, matchkind=kind), BytesAhoCorasick(encoded, matchkind=kind))

    def present(self, text: str) -> frozenset[str]:
        """Exactly the fragments ``text`` holds."""
        try:
            matches = self.automaton.find_matches_as_indexes(text, overlapping=True)
        except UnicodeEncodeError:
            data = text.encode("utf-8", "surrogatepass")
            matches = self.bytes_automaton.find_matches_as_indexes(data, overlapping=True)
        return frozenset(self.words[i] for i in {match[0] for match in matches})


_LITERAL_SCAN = _Triggers.of(_ALL_TRIGGERS)
_FOLDED_SCAN = _Triggers.of(_ALL_FOLDED_TRIGGERS)


def _present(text: str, folded: str) -> tuple[frozenset[str], frozenset[str]]:
    """The literal triggers ``text`` holds and the folded ones ``folded`` holds (see :class:`_Triggers`)."""
    return _LITERAL_SCAN.present(text), _FOLDED_SCAN.present(folded)


def _rules_by_trigger(triggers: dict[str, tuple[str, ...]], skip: Iterable[str]) -> dict[str, frozenset[str]]:
    by: dict[str, set[str]] = {}
    for rule_id, fragments in triggers.items():
        if rule_id not in skip:
            for fragment in fragments:
                by.setdefault(fragment, set()).add(rule_id)
    return {fragment: frozenset(ids) for fragment, ids in by.items()}


_BY_LITERAL = _rules_by_trigger(_TRIGGERS, ())
_BY_FOLDED = _rules_by_trigger(_FOLDED_TRIGGERS, _TRIGGERS)
"""Trigger -> the rules it lets run: a rule with literal triggers runs when the text holds one of them, any
other rule with folded triggers when the folded text holds one of those."""


def _may_match_ids(present: tuple[frozenset[str], frozenset[str]]) -> frozenset[str]:
    """The ids of the rules that may match a text holding the triggers ``present`` (literal, folded): the
    rules without triggers, and those a trigger present lets run (looked up trigger by trigger, where asking
    every rule cost a small text more than its scan)."""
    if not present[0] and not present[1]:
        return _UNTRIGGERED
    ids = set(_UNTRIGGERED)
    for fragment in present[0]:
        ids.update(_BY_LITERAL[fragment])
    for fragment in present[1]:
        ids.update(_BY_FOLDED.get(fragment, ()))
    return frozenset(ids)


_PATH_RULES: tuple[Rule, ...] = tuple(
    rule for rule in RULES if rule.id in _TRIGGERS and rule.id != "url-credentials"
)
"""Rules applied to file and directory names (an assignment cannot be spelled in a name)."""

_PEM_BEGIN = re.compile(r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PEM_END = re.compile(r"-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----")
# A key body line, possibly quoted or escaped in code: ``"MIIE...==\\n" +``. The language is that of
# ``[ \t'"]*[A-Za-z0-9+/=]{16,}[ \t'",]*\\?n?[ \t'",+]*``, whose overlapping classes (the two blank runs,
# and "n" and "+" in both the body and the tail) made a failing fullmatch quadratic in the line. Possessive
# repeats never give characters back: the body run may take all it can (a shorter one leaves the tail
# only "n" and "+" to match, which it could then match anyway), and the tail is spelled out as
# ``[ \t'",]* (\\n?|n)? [ \t'",+]*`` so each of its few alternatives is tried once.
_PEM_BODY_LINE = re.compile(r"[ \t'\"]*+[A-Za-z0-9+/=]{16,}+[ \t'\",]*+(?:\\n?|n)?[ \t'\",+]*+")
_BASE64_CHARS = re.compile(r"[A-Za-z0-9+/=]")
_MIN_KEY_BODY_CHARS = 64
_MAX_KEY_SCAN_CHARS = 16_384
_KEY_START = re.compile(r"[ \t'\"]*+[A-Za-z0-9+/=]{16}")
"""How the first line of key material after a BEGIN marker starts: a run of base64, perhaps quoted."""
_KEY_LEAD = re.compile(r"[\s'\"`,+();]*+|[ \t'\"]*+[A-Za-z][A-Za-z0-9-]{1,30}:[^\n]*")
"""What may come between a BEGIN marker and its key material: quotes and joins of code, blank lines, PEM
headers (``Proc-Type: 4,ENCRYPTED``, ``DEK-Info: …``)."""
_MAX_KEY_LEAD_LINES = 32
"""How many lines of lead (:data:`_KEY_LEAD`) a BEGIN marker may have before its key material."""


def _key_follows(after: str) -> bool:
    """Whether key material follows a BEGIN marker (``after``: the rest of its line, then the next lines, with
    escaped line feeds already made real): the first line that is not lead (:data:`_KEY_LEAD`) starts as a key
    body line does. Code that tests for the marker (``text.startswith("-----BEGIN …")``) and prose that
    names it are not a key, and their files are not left out."""
    start = 0
    for _ in range(_MAX_KEY_LEAD_LINES):
        stop = after.find("\n", start)
        line = after[start : len(after) if stop < 0 else stop].rstrip("\r")
        if _KEY_START.match(line):
            return True
        if stop < 0 or not _KEY_LEAD.fullmatch(line):
            return False
        start = stop + 1
    return False


def _line_starts(text: str) -> list[int]:
    """The offset of each line's first character: 0, and one past each ``\\n`` (summed line lengths, in C)."""
    starts = list(itertools.accumulate(map((1).__add__, map(len, text.split("\n"))), initial=0))
    starts.pop()  # the offset after the last line
    return starts


def _line_of(starts: list[int], offset: int) -> int:
    return bisect.bisect_right(starts, offset)


def _has_pragma(line: str) -> bool:
    lowered = line.lower()
    return any(p in lowered for p in PRAGMAS)


def _line_text(text: str, starts: list[int], line: int) -> str:
    # The next line's start, not a search for the newline: a long line holding many findings would be
    # scanned to its end once per finding.
    end = starts[line] - 1 if line < len(starts) else len(text)
    return text[starts[line - 1] : end]


@dataclass
class _Lines:
    """The lines of one text, each sliced once: one long line can hold thousands of findings."""

    text: str
    starts: list[int]
    cache: dict[int, str] = field(default_factory=dict)

    def __call__(self, line: int) -> str:
        found = self.cache.get(line)
        if found is None:
            found = self.cache[line] = _line_text(self.text, self.starts, line)
        return found


_PUTTY_HEADER = re.compile(r"PuTTY-User-Key-File-[0-9]{1,2}:")
_PUTTY_PRIVATE = re.compile(r"\nPrivate-Lines:[ \t]*([0-9]{1,4})[ \t]*\r?\n")


def _enough_key_body(body: str) -> bool:
    # Counting stops at the threshold: a file of back-to-back BEGIN markers otherwise lists every
    # base64 character of a 16 KiB window once per marker.
    enough = itertools.islice(_BASE64_CHARS.finditer(body), _MIN_KEY_BODY_CHARS - 1, None)
    return next(enough, None) is not None


def _putty_keys(text: str, starts: list[int]) -> list[Finding]:
    """A PuTTY key file (``.ppk``): its header through the last of its ``Private-Lines``."""
    found: list[Finding] = []
    for match in _PUTTY_HEADER.finditer(text):
        window = text[match.end() : match.end() + _MAX_KEY_SCAN_CHARS]
        private = _PUTTY_PRIVATE.search(window)
        if private is None:
            continue
        lines = window[private.end() :].split("\n", int(private.group(1)))[: int(private.group(1))]
        if _enough_key_body("".join(lines)):
            stop = match.end() + private.end() + len("\n".join(lines))
            found.append(Finding(RULE_PRIVATE_KEY, _line_of(starts, match.start()), match.start(), stop))
    return found


def _private_keys(text: str, starts: list[int]) -> list[Finding]:
    """A BEGIN ... PRIVATE KEY marker followed by at least 64 characters of key body (not just the marker),
    or a PuTTY key file's private lines."""
    found: list[Finding] = _putty_keys(text, starts) if "PuTTY-User-Key-File-" in text else []
    if "PRIVATE KEY" not in text:
        return found
    for match in _PEM_BEGIN.finditer(text):
        window = text[match.end() : match.end() + _MAX_KEY_SCAN_CHARS]
        end = _PEM_END.search(window)
        body = window[: end.start()] if end else window
        body = body.replace("\\n", "\n").replace("\\r", "")
        if _key_follows(body) and _enough_key_body(body):
            stop = match.end() + (end.end() if end else len(window))
            found.append(Finding(RULE_PRIVATE_KEY, _line_of(starts, match.start()), match.start(), stop))
    return found


_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_UNBOUNDED: frozenset[str] = frozenset(
    {"aws-secret-access-key", "slack-webhook", "discord-webhook", "azure-storage-key", "credentials-call"}
)
"""Rules whose match may follow a letter or digit (the others need another character before them: a key
right after ``_``, as in ``backup_AKIA...``, is still found)."""
_GLUABLE: frozenset[str] = frozenset(
    {
        "github-token",
        "github-fine-grained-token",
        "gitlab-token",
        "slack-token",
        "slack-app-token",
        "stripe-secret-key",
        "square-token",
        "sendgrid-api-key",
        "openai-api-key",
        "anthropic-api-key",
        "npm-token",
        "pypi-token",
        "huggingface-token",
        "digitalocean-token",
        "vault-token",
        "heroku-api-key",
        "pulumi-token",
        "shopify-token",
        "grafana-token",
        "doppler-token",
        "linear-api-key",
        "postman-api-key",
        "rubygems-token",
        "age-secret-key",
        "brevo-api-key",
        "contentful-token",
        "jwt",
    }
)
"""Token rules whose prefix holds a separator (``ghp_``, ``xoxb-``, ``SG.``): their token is found glued to a
word too (``tokenghp_…``, pasted without a blank), when the token looks random (:func:`_random_body`). A prefix of letters and digits only (AWS's
``AKIA``, Google's ``AIza``, Twilio's ``SK``) may start inside any long run of base64 or capitals, so those
rules still want a start of their own."""
_DIGITS = re.compile(r"[0-9]")


def _random_body(token: str) -> bool:
    """A digit, or (a body of letters only, as Hugging Face's) a capital in every four characters: what a
    random body all but always has and a name after a word rarely does (``benchmark_test_CaseName``)."""
    return _DIGITS.search(token) is not None or sum(c.isupper() for c in token) * 4 >= len(token)


_TOKEN_RUN = re.compile(r"[A-Za-z0-9_-]*")
_RUN_ANCHORS: dict[str, str] = {"openai-api-key": "sk-", "jwt": "eyJ"}
"""Rules whose match is this literal, then token characters (``[A-Za-z0-9_-]``) up to a required part:
``T3BlbkFJ`` and 16 more, or a ``.`` after at least 8. A start that fails makes every later start in the
same run of token characters fail too (each leaves less room before the same required part), yet re's
``finditer`` tries them all, each scanning the run to its end: quadratic in ``sk-sk-sk-...``."""


def _run_anchored(pattern: re.Pattern[str], text: str, anchor: str) -> Iterator[re.Match[str]]:
    """``pattern.finditer(text)`` for a rule of :data:`_RUN_ANCHORS`, trying each run of token characters
    from its first start only: linear in ``text``."""
    at = text.find(anchor)
    while at >= 0:
        match = pattern.match(text, at)
        if match is not None:
            yield match
            resume = match.end()
        else:
            run = _TOKEN_RUN.match(text, at)  # the anchor's own characters are token characters
            resume = run.end() if run is not None else at + 1
        at = text.find(anchor, resume)


_SCHEME_CHARS = (2, 21)
"""The least and most characters of the scheme before ``://`` in the url-credentials rule
(``[A-Za-z][A-Za-z0-9+.-]{1,20}``, none of them ``:``)."""


def _url_anchored(pattern: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """``pattern.finditer(text)`` for the url-credentials rule, tried only where a match can start: 2 to 21
    characters before a ``://`` (its scheme's), where ``finditer`` tries every letter of the text.

    The starts are tried in ascending order, each once, none inside an earlier match: the first that
    matches is the one ``finditer`` finds next."""
    least, most = _SCHEME_CHARS
    cursor = 0  # every start before it was tried, or lies inside a match
    at = text.find("://", least)
    while at >= 0:
        for start in range(max(cursor, at - most), at - least + 1):
            match = pattern.match(text, start)
            if match is not None:
                yield match
                cursor = match.end()
                break
        else:
            cursor = max(cursor, at - least + 1)
        at = text.find("://", max(at + 1, cursor + least))


_LINE_SCOPED: frozenset[str] = frozenset({"command-line-password", "credentials-call", "sql-password"})
"""Rules whose pattern, an alternation tried at every position, runs only on the lines holding one of their
trigger fragments (a tool's name, a call's): many times faster on text that has none."""


def _line_scoped(rule: Rule, text: str, folded: str) -> Iterator[re.Match[str]]:
    """``rule.pattern``'s matches on each line that holds one of the rule's trigger fragments, in order."""
    literal = _TRIGGERS.get(rule.id)
    source, needles = (text, literal) if literal is not None else (folded, _FOLDED_TRIGGERS[rule.id])
    lines: set[int] = set()
    for needle in needles:
        at = source.find(needle)
        while at >= 0:
            start = source.rfind("\n", 0, at) + 1
            lines.add(start)
            end = source.find("\n", at)
            at = source.find(needle, len(source) if end < 0 else end)
    for start in sorted(lines):
        end = text.find("\n", start)
        yield from rule.pattern.finditer(text, start, len(text) if end < 0 else end)


def _matches(rule: Rule, text: str, folded: str, path: str, pairs: bool) -> Iterable[tuple[int, int]]:
    """The spans of the rule's values; the assignment rule looks at each key (see :mod:`.assignments`), and
    the name/value rule at each pair (when ``pairs``: the text holds a value field) and YAML block."""
    if rule.id == RULE_ASSIGNMENT:
        yield from ((found.start, found.end) for found in find_assignments(text, folded, path))
        return
    if rule.id == RULE_NAME_VALUE:
        named = find_named_values(text, path) if pairs else ()
        for found in itertools.chain(named, find_yaml_blocks(text, path)):
            yield found.start, found.end
        return
    anchor = _RUN_ANCHORS.get(rule.id)
    if rule.id in _LINE_SCOPED:
        matches = _line_scoped(rule, text, folded)
    elif rule.id == "url-credentials":
        matches = _url_anchored(rule.pattern, text)
    elif anchor is None:
        matches = rule.pattern.finditer(text)
    else:
        matches = _run_anchored(rule.pattern, text, anchor)
    for match in matches:
        start = match.start()
        if _bounded(rule.id, text, start, match.end(1)):
            yield match.span(1)


def _bounded(rule_id: str, text: str, start: int, end: int) -> bool:
    """Whether a match at ``start`` may stand there: not glued to a letter or digit before it, unless the
    rule allows that (:data:`_UNBOUNDED`, or :data:`_GLUABLE` with a random-looking token)."""
    if rule_id in _UNBOUNDED or start == 0 or text[start - 1] not in _ALNUM:
        return True
    return rule_id in _GLUABLE and _random_body(text[start:end])


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def fold(text: str) -> str:
    """ASCII lowercase that keeps every offset (``str.lower`` can lengthen some non-ASCII text)."""
    if text.isascii():
        return text.lower()
    # Only the ASCII bytes of UTF-8 change (no byte of a multi-byte character is ASCII): the same text as
    # ``text.translate(_ASCII_LOWER)``, twenty times faster.
    return text.encode("utf-8", "surrogatepass").lower().decode("utf-8", "surrogatepass")


def _rule_findings(rules: Iterable[Rule], text: str, starts: list[int], path: str) -> list[Finding]:
    found: list[Finding] = []
    folded = fold(text)
    line_text = _Lines(text, starts)
    present = _present(text, folded)
    may = _may_match_ids(present)
    for rule in rules:
        if rule.id not in may or (rule.applies is not None and not rule.applies(path)):
            continue
        for start, end in _matches(rule, text, folded, path, _PAIR_FIELD in present[1]):
            line = _line_of(starts, start)
            if rule.check is not None and not rule.check(text[start:end], line_text(line), path):
                continue
            found.append(Finding(rule.id, line, start, end))
    return found


_PRIORITY: dict[str, int] = {
    rule_id: index for index, rule_id in enumerate((RULE_PRIVATE_KEY, *(r.id for r in RULES)))
}
"""Overlapping matches resolve to the most specific rule: private keys, then :data:`RULES` in order (the
generic assignment rule is last)."""


def _disjoint(findings: list[Finding]) -> list[Finding]:
    """Non-overlapping findings in document order, the most specific rule winning each overlap.

    In priority order, a finding is kept when it overlaps none kept before. Kept spans sorted by (start,
    end) have increasing ends too (one inside another would overlap it), so only the last one starting
    before the finding's end can reach past its start: a bisection per finding, where comparing it with
    every kept one was quadratic in a file holding thousands.
    """
    spans: list[tuple[int, int]] = []
    kept: list[Finding] = []
    for finding in sorted(findings, key=lambda f: (_PRIORITY[f.rule], f.start, -f.end)):
        before = bisect.bisect_left(spans, (finding.end,))
        if before and spans[before - 1][1] > finding.start:
            continue
        bisect.insort(spans, (finding.start, finding.end))
        kept.append(finding)
    return sorted(kept, key=lambda f: (f.start, f.end))


def find_secrets(text: str, *, path: str = "", allow_pragma: bool = False) -> list[Finding]:
    """Definite findings in ``text`` in document order; with ``allow_pragma``, lines carrying an
    allowlist pragma are reported as ``allowlisted`` (callers then ignore them)."""
    starts = _line_starts(text)
    findings = _disjoint([*_rule_findings(RULES, text, starts, path), *_private_keys(text, starts)])
    if not allow_pragma:
        return findings
    pragma_lines: dict[int, bool] = {}  # one look per line, not per finding
    out: list[Finding] = []
    for f in findings:
        allowed = pragma_lines.get(f.line)
        if allowed is None:
            allowed = pragma_lines[f.line] = _has_pragma(_line_text(text, starts, f.line))
        out.append(Finding(f.rule, f.line, f.start, f.end, allowed) if allowed else f)
    return out


def blocking(findings: Iterable[Finding]) -> list[Finding]:
    """The findings a policy acts on: all but the allowlisted ones."""
    return [f for f in findings if not f.allowlisted]


def placeholder(rule: str) -> str:
    return f"{REDACTED_PREFIX}{rule}]"


def redact(text: str, findings: Iterable[Finding]) -> str:
    """``text`` with each finding's value replaced by its placeholder; newlines are always kept."""
    out: list[str] = []
    cursor = 0
    for f in sorted(findings, key=lambda f: f.start):
        if f.start < cursor:
            continue
        out.append(text[cursor : f.start])
        span = text[f.start : f.end]
        # A multi-line value (a private key) keeps its line structure: one placeholder per line.
        out.append("\n".join(placeholder(f.rule) if part.strip() else part for part in span.split("\n")))
        cursor = f.end
    out.append(text[cursor:])
    return "".join(out)


MIN_REPEAT_CHARS = 8
"""A credential this long is redacted wherever else it occurs in its text (shorter ones are too common),
and so is the value of a name/value pair, however short (see :func:`repeats_of`)."""
Repeats = tuple[tuple[str, str], ...]
"""(value, rule) pairs, longest value first: a text's credentials, to redact where they recur unflagged
(documentation that assigns a key, then shows the same key alone as a command's output)."""


def repeats_of(text: str, findings: Iterable[Finding]) -> Repeats:
    """The values of ``findings`` in ``text`` (each under its most specific rule), longest first."""
    by_value: dict[str, str] = {}
    for f in sorted(findings, key=lambda f: (_PRIORITY[f.rule], f.start)):
        value = text[f.start : f.end]
        # A pair's value is found from the line above it, which an excerpt may leave out: redacting it
        # wherever it recurs, however short, keeps an excerpt redacted as its whole file is.
        if (len(value) >= MIN_REPEAT_CHARS or f.rule == RULE_NAME_VALUE) and "\n" not in value:
            by_value.setdefault(value, f.rule)
    return tuple(sorted(by_value.items(), key=lambda item: (-len(item[0]), item[0])))


def repeats_in(text: str, path: str = "") -> Repeats:
    """:func:`repeats_of` the findings of the whole ``text``: what an excerpt of it must also redact."""
    return repeats_of(text, find_secrets(text, path=path))


def redact_repeats(text: str, repeats: Repeats) -> str:
    """``text`` with every occurrence of each repeated value replaced by its placeholder."""
    for value, rule in repeats:
        if value in text:
            text = text.replace(value, placeholder(rule))
    return text


def redact_source(text: str, findings: list[Finding]) -> str:
    """A whole source redacted as the store keeps it: each finding, then each value where it recurs."""
    return redact_repeats(redact(text, findings), repeats_of(text, findings))


def _pem_fragment_lines(lines: list[str]) -> set[int]:
    """Lines of private-key material in an excerpt that cut a key block (BEGIN or END outside it)."""
    hit: set[int] = set()
    inside = False
    for number, line in enumerate(lines):
        begin = _PEM_BEGIN.search(line)
        if begin is not None and not _PEM_END.search(line):
            following = lines[number + 1 : number + 1 + _MAX_KEY_LEAD_LINES]
            inside = _key_follows("\n".join([line[begin.end() :], *following]).replace("\\n", "\n"))
            continue
        if _PEM_END.search(line):
            if not inside:  # the block began before this excerpt: the key body lines just above it
                back = number - 1
                while back >= 0 and _PEM_BODY_LINE.fullmatch(lines[back]):
                    hit.add(back)
                    back -= 1
            inside = False
            continue
        if inside and line.strip():
            hit.add(number)
    return hit


def redact_text(text: str, path: str = "", repeats: Repeats | None = None) -> str:
    """Every definite finding of ``text`` redacted, pragmas ignored, then every recurrence of a credential:
    of ``repeats`` (an excerpt's, found in its whole file, as the store redacted it) or, by default, of
    those found in ``text`` itself (a memory record, a message). What rendering applies to excerpts.

    Private-key material is redacted line by line, also in an excerpt that holds only part of a key block.
    """
    findings = find_secrets(text, path=path)
    redacted = redact_repeats(
        redact(text, findings), repeats_of(text, findings) if repeats is None else repeats
    )
    if "PRIVATE KEY" not in redacted:
        return redacted
    lines = redacted.split("\n")
    fragments = _pem_fragment_lines(lines)
    if not fragments:
        return redacted
    return "\n".join(
        placeholder(RULE_PRIVATE_KEY) if i in fragments else line for i, line in enumerate(lines)
    )


MIN_PLACEHOLDER_CHARS = len(placeholder(""))
"""No placeholder is shorter, whatever its rule."""


def redacted_floor(lines: Iterable[str]) -> int:
    """A length in characters that :func:`redact_text` never takes the text of ``lines`` (joined by line
    feeds) below, for any path and repeats, found without looking for a credential.

    Redaction keeps every line feed (a multi-line value keeps its line structure, a repeated value holds
    none) and leaves each line either as it was or holding a whole placeholder: the last replacement that
    touches a line writes one, and the private-key pass writes one over a whole line. So each line keeps at
    least the shorter of its own length and :data:`MIN_PLACEHOLDER_CHARS`. A long line can therefore shrink
    to almost nothing (a credential that runs its whole length), but text of many lines cannot."""
    sizes = list(map(len, lines))
    kept = sum(map(min, sizes, itertools.repeat(MIN_PLACEHOLDER_CHARS, len(sizes))))
    return max(kept + len(sizes) - 1, 0)


def redaction_count(text: str) -> int:
    """How many placeholders a (rendered) text holds."""
    return text.count(REDACTED_PREFIX)


# --- paths ------------------------------------------------------------------------------------------------


def path_findings(path: str) -> list[Finding]:
    """Credential shapes spelled in a path (file or directory names)."""
    return _disjoint(_rule_findings(_PATH_RULES, path, [0], path))


def redact_path(path: str) -> str:
    """``path`` with each credential replaced by its placeholder plus 8 hex of the path's SHA-256, so two
    redacted paths stay distinct records without revealing the value."""
    findings = path_findings(path)
    if not findings:
        return path
    tag = hashlib.sha256(path.encode("utf-8", errors="surrogateescape")).hexdigest()[:8]
    out: list[str] = []
    cursor = 0
    for f in findings:
        out.append(path[cursor : f.start])
        out.append(f"{REDACTED_PREFIX}{f.rule}#{tag}]")
        cursor = f.end
    out.append(path[cursor:])
    return "".join(out)


def describe(findings: Iterable[Finding], *, in_path: bool = False) -> str:
    """An exclusion detail: rule ids and line numbers only (never a value), bounded."""
    parts = [f"{f.rule} in the path" if in_path else f"{f.rule} at line {f.line}" for f in findings]
    shown = parts[:MAX_DETAIL_FINDINGS]
    if len(parts) > MAX_DETAIL_FINDINGS:
        shown.append(f"{len(parts) - MAX_DETAIL_FINDINGS} more")
    return "credential: " + "; ".join(shown)


# --- the high-entropy heuristic (label only) ------------------------------------------------------------

_CANDIDATE = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/=_-]{24,}")
_HEX = re.compile(r"[0-9a-fA-F]+")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_DIGEST_HEX_LENGTHS = frozenset({32, 40, 56, 64, 96, 128})
"""MD5, SHA-1 (git), SHA-224, SHA-256 (and prooftext ids, BLAKE3), SHA-384, SHA-512 in hex."""
_INTEGRITY_PREFIX = re.compile(r"(?:sha(?:1|224|256|384|512)|md5|blake2b|blake3)[-:]", re.IGNORECASE)
BASE64_ENTROPY_BITS = 4.5
LONG_BASE64_ENTROPY_BITS = 4.2
LONG_STRING_CHARS = 40
"""Longer strings need less entropy per character to look random (base64 of ASCII text scores ~4.4)."""
HEX_ENTROPY_BITS = 3.0


def shannon_entropy(value: str) -> float:
    """Bits per character of ``value``."""
    counts = Counter(value)
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in counts.values())


def is_lock_file(path: str) -> bool:
    """detect-secrets' ``is_lock_file``: lockfiles are all digests, so they are never examined."""
    return posixpath.basename(path).lower() in _LOCK_FILES


def _is_sequential(value: str) -> bool:
    lowered = value.lower()
    return any(lowered in s for s in ("abcdefghijklmnopqrstuvwxyz" * 2, "0123456789" * 4, "qwertyuiop" * 3))


def _looks_random(value: str, prefix: str) -> bool:
    if _INTEGRITY_PREFIX.match(value) or _INTEGRITY_PREFIX.search(prefix[-8:]) or _UUID.search(value):
        return False
    if _is_sequential(value):
        return False
    if _HEX.fullmatch(value):
        return len(value) not in _DIGEST_HEX_LENGTHS and shannon_entropy(value) >= HEX_ENTROPY_BITS
    if not (re.search(r"[A-Za-z]", value) and re.search(r"[0-9]", value)):
        return False  # words joined by dashes or underscores, constant names
    bits = LONG_BASE64_ENTROPY_BITS if len(value) >= LONG_STRING_CHARS else BASE64_ENTROPY_BITS
    return shannon_entropy(value) >= bits


def high_entropy_count(text: str, path: str = "") -> int:
    """How many random-looking strings ``text`` holds (a label, never a policy input)."""
    if path and is_lock_file(path):
        return 0
    count = 0
    for match in _CANDIDATE.finditer(text):
        value = match.group(0).strip("=-_")
        prefix = text[max(0, match.start() - 8) : match.start()]
        if len(value) >= 24 and "data:" not in prefix and _looks_random(value, prefix):
            count += 1
    return count
