"""Credential-named keys given a literal: ``password = "…"``, ``PGPASSWORD=…``, ``"clientSecret": "…"``.

detect-secrets' keyword plugin finds ``password``-like names only at a word start; real configurations spell
them inside longer names (``PGPASSWORD``, ``dbPassword``, ``API_TOKEN``, ``_authToken``, ``x-api-key``). Here
the key is the whole identifier around a keyword (letters, digits, ``_``, ``-``, ``.``; at most
:data:`MAX_KEY_CHARS` each side of the keyword), split into words (``_``, ``-``, ``.`` and camelCase):

* a **strong** part (``password``, ``passwd``, ``passphrase``, ``secret``) anywhere inside a word;
* a **weak** word standing alone (``token``, ``pwd``, ``pass``, ``credentials``, ``apikey``, ...), or ``key``
  after a qualifier (``api``, ``private``, ``access``, ...), or a key that is ``auth`` alone (docker's
  ``"auth"``, npm's ``_auth``);
* and no word that names something *about* the credential (``timeout``, ``length``, ``file``, ``type``,
  ``name``, ``url``, ...): ``PASSWORD_RESET_TIMEOUT = 3600`` and ``TOKEN_TYPE = "bearer"`` are settings.

The value follows an assignment (``=``, ``:``, ``:=``, ``=>``, ``==``, a type annotation then ``=``), or is
the second argument of a call whose first is the key (``define('DB_PASSWORD', '…')``,
``os.environ.get("API_TOKEN", "…")``, ``props.put("mail.smtp.password", "…")``), the ``value`` of an
``<add key="…">`` element, the argument of a flag (``--password …``) or of a setter (``setPassword("…")``),
or, when the assigned value is an expression, a literal fallback later on the line
(``os.getenv("P") or "…"``, ``process.env.API_KEY || "…"``). The quotes may be the escaped ones of code held
in a JSON string (a notebook cell); a Dockerfile's ``ENV KEY VALUE`` and C's ``#define KEY "…"`` need no
``=``, and Go's ``var key string = "…"`` names a type before it. A name/value pair
(:func:`find_named_values`: Kubernetes' and ECS's ``env`` entries, CloudFormation's parameters) gives its
``value`` to the key its ``name`` holds, on the same line or the next; in YAML (:func:`find_yaml_blocks`) a
block sequence's scalars and a one-line block scalar (``password: |``) are given to the key above them. The
literals of a list on the key's line (``API_KEYS = ["…", "…"]``) are each a value when the key's last word
names credentials (:func:`list_key_strength`), and Kotlin's ``"key" to "…"`` and Scala's ``"key" -> "…"``
assign too. An unquoted value in code is an expression,
except in shell and after ``;``, ``?`` or ``&`` (a parameter inside a connection string); a key right after
``:`` is a segment of an ARN, not a key, unless it closes a subscript (.NET's ``Configuration["Jwt:Secret"]``).
A value is credible unless
it is a placeholder or template, prose (quoted text with spaces), a path or URL, a reference (an unquoted
value in code other than shell), an identifier-like constant in code, or, for weak keys, too short and
plain. The finding covers the value only, never its quotes, so redaction keeps the syntax around it.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from prooftext.corpus.kinds import KIND_CODE, kind_for
from prooftext.text import identifier_parts

REDACTED_PREFIX = "[REDACTED:"
MAX_KEY_CHARS = 64
"""How far a key may reach either side of its keyword; a longer run is not a key (and scanning stays
linear in a hostile run of keyword letters)."""
MAX_VALUE_CHARS = 1024
MIN_VALUE_CHARS = 6
MIN_WEAK_VALUE_CHARS = 10
PLAIN_WORD_CHARS = 12
"""A lone lowercase word up to this long is a name or an example (``"config"``, ``"postgres"``), not a
credential."""

ANCHORS: tuple[str, ...] = ("pass", "pwd", "pw", "secret", "token", "key", "auth", "credential")
"""Fragments (lowercased) one of which every key holds: where the scan looks."""

_STRONG_PARTS: tuple[str, ...] = ("password", "passwd", "passphrase", "secret")
_STRONG_WORDS: frozenset[str] = frozenset({"pass"})
"""Whole words as strong as the parts: ``DB_PASS``, ``SMTP_PASS``."""
_SETTERS: frozenset[str] = frozenset({"set", "with", "use"})
"""A credential-named key whose first word is one of these is a setter: ``setPassword("…")``."""
_WEAK_WORDS: frozenset[str] = frozenset(
    {
        "pwd",
        "pw",
        "token",
        "credential",
        "credentials",
        "apikey",
        "authtoken",
        "accesstoken",
        "authkey",
        "privatekey",
        "accesskey",
    }
)
_KEY_QUALIFIERS: frozenset[str] = frozenset(
    {
        "api",
        "app",
        "private",
        "access",
        "signing",
        "encryption",
        "master",
        "account",
        "auth",
        "client",
        "license",
    }
)
_ABOUT_WORDS: frozenset[str] = frozenset(
    {
        "age",
        "arn",
        "param",
        "parameter",
        "params",
        "backend",
        "budget",
        "chars",
        "class",
        "cmd",
        "command",
        "count",
        "csrf",
        "digest",
        "dir",
        "enabled",
        "endpoint",
        "error",
        "expiration",
        "expires",
        "expiry",
        "factory",
        "field",
        "fields",
        "file",
        "format",
        "handler",
        "hash",
        "header",
        "help",
        "hint",
        "input",
        "interval",
        "kind",
        "label",
        "len",
        "length",
        "lifetime",
        "limit",
        "manager",
        "mask",
        "max",
        "message",
        "method",
        "min",
        "mode",
        "name",
        "names",
        "path",
        "pattern",
        "placeholder",
        "policy",
        "prefix",
        "prompt",
        "provider",
        "ref",
        "regex",
        "required",
        "reset",
        "rules",
        "scheme",
        "size",
        "source",
        "store",
        "strength",
        "style",
        "text",
        "timeout",
        "title",
        "ttl",
        "type",
        "uri",
        "url",
        "usage",
        "validator",
        "var",
        "version",
        "xsrf",
    }
)
_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")

STRONG = "strong"
WEAK = "weak"
KEY_CACHE_SIZE = 4096
"""Keys whose strength is remembered: a configuration names the same few keys again and again."""


def _word_strength(words: list[str], at: int) -> str | None:
    word = words[at]
    if word in _STRONG_WORDS or any(part in word for part in _STRONG_PARTS):
        return STRONG
    if word in _WEAK_WORDS or (word == "key" and at > 0 and words[at - 1] in _KEY_QUALIFIERS):
        return WEAK
    return WEAK if words == ["auth"] else None


@lru_cache(maxsize=KEY_CACHE_SIZE)
def key_strength(key: str) -> str | None:
    """``strong`` or ``weak`` when ``key`` names a credential, else ``None``: the first credential word
    decides, unless a word after it says the key is *about* the credential (``PASSWORD_RESET_TIMEOUT``;
    a word before it does not: ``ClearTextPassword``)."""
    words = list(identifier_parts(key))
    for at in range(len(words)):
        strength = _word_strength(words, at)
        if strength is not None:
            return None if any(w in _ABOUT_WORDS for w in words[at + 1 :]) else strength
    return None


# --- values -----------------------------------------------------------------------------------------------

_PLACEHOLDER_WORDS: frozenset[str] = frozenset(
    {
        "password",
        "passwd",
        "passphrase",
        "secret",
        "changeme",
        "change_me",
        "changeit",
        "example",
        "dummy",
        "fake",
        "test",
        "testing",
        "placeholder",
        "none",
        "null",
        "nil",
        "true",
        "false",
        "undefined",
        "redacted",
        "hidden",
        "required",
        "optional",
        "string",
        "your_password",
        "yourpassword",
        "mypassword",
        "my_password",
        "replace_me",
        "replaceme",
        "todo",
        "fixme",
        "foobared",
    }
)
_PLACEHOLDER_MARKERS: tuple[str, ...] = (
    REDACTED_PREFIX.lower(),
    "${",
    "{{",
    "{%",
    "%(",
    "$(",
    "<",
    "example",
    "placeholder",
    "your_",
    "your-",
    "xxxx",
    "****",
    "....",
    "os.environ",
    "getenv",
    "env(",
    "process.env",
    "replace_me",
    "replace-me",
    "changeme",
    "change_me",
)
_FORMAT_FIELD = re.compile(r"\{[\w.\[\]!:]*\}|%\(\w+\)[sd]|%[sd]")
_HAS_LETTER = re.compile(r"[A-Za-z]")
_HAS_DIGIT = re.compile(r"[0-9]")
_HAS_DIGIT_OR_SYMBOL = re.compile(r"[^A-Za-z_.\-]")
_NAME_LIKE = re.compile(rf"[a-z]+(?:[-_.][a-z]+)+|[a-z]{{1,{PLAIN_WORD_CHARS}}}")
"""``private-key``, ``db_password``, ``config``: an identifier-like constant or a plain word."""
_PATH_OR_URL = re.compile(
    r"(?:[\w.-]+/)+[\w-]+\.[A-Za-z]{1,5}$|"
    r"(?:/|\./|\.\./|~/|[A-Za-z][A-Za-z0-9+.-]*://)|.*\.(?:pem|key|crt|json|txt|ya?ml|env)$"
)
_NOT_A_SECRET = re.compile(r"(?i)arn:|pk[._]|(?:pbkdf2_\w+|argon2\w*|bcrypt\w*|scrypt|sha1|sha256|md5)\$")
"""An ARN (a name), a publishable key (``pk_live_``, ``pk.eyJ``: meant for browsers), a password hash."""
_INDIRECT = re.compile(r"[\w.-]+[\[({]")
"""detect-secrets' ``is_indirect_reference``: ``getpass(``, ``request.form[``: a call or a lookup."""
_SHELL_SUFFIXES: tuple[str, ...] = (".sh", ".bash", ".zsh", ".fish", ".ps1")
_SHELL_NAMES: frozenset[str] = frozenset({"Dockerfile", "Makefile", "GNUmakefile", "Justfile"})


def is_placeholder(value: str) -> bool:
    """detect-secrets' ``is_templated_secret`` and friends: not a real value."""
    lowered = value.lower().strip("'\"`")
    if lowered in _PLACEHOLDER_WORDS or len(set(lowered)) <= 2:
        return True
    if _FORMAT_FIELD.search(lowered):
        return True  # "{value}", "%(password)s": a template, filled in elsewhere
    if lowered.startswith(("$", "%", "@", "&", "*", "!")):
        return True
    return any(marker in lowered for marker in _PLACEHOLDER_MARKERS)


def is_code_path(path: str) -> bool:
    """Source code, where an unquoted right-hand side is an expression, not a literal."""
    return bool(path) and kind_for(path) == KIND_CODE


def _literal_unquoted(path: str) -> bool:
    """Whether an unquoted value in ``path`` is a literal: configuration, prose, shell."""
    name = posixpath.basename(path)
    return not is_code_path(path) or name.endswith(_SHELL_SUFFIXES) or name in _SHELL_NAMES


def credible_quoted(value: str, strength: str, path: str) -> bool:
    """A quoted literal that may be a credential."""
    if len(value) < MIN_VALUE_CHARS or any(c.isspace() for c in value) or is_placeholder(value):
        return False  # detect-secrets' keyword values hold no whitespace: 'development key' is prose
    if _PATH_OR_URL.match(value) or _NAME_LIKE.fullmatch(value) or _NOT_A_SECRET.match(value):
        return False
    if strength == WEAK:
        return len(value) >= MIN_WEAK_VALUE_CHARS and bool(
            _HAS_LETTER.search(value) and _HAS_DIGIT.search(value)
        )
    return True


def credible_unquoted(value: str, strength: str, path: str, *, literal: bool = False) -> bool:
    """An unquoted value that may be a credential: never in code other than shell (an expression there)
    unless ``literal`` (a parameter inside a connection string)."""
    if not (literal or _literal_unquoted(path)) or _INDIRECT.match(value):
        return False
    value = value.rstrip(")]}").rstrip(":.,")  # ``secret: credential:`` in prose ends a clause
    if not credible_quoted(value, strength, path) or not _HAS_LETTER.search(value):
        return False
    long_plain = strength == STRONG and len(value) > PLAIN_WORD_CHARS and value.isalpha() and value.islower()
    return long_plain or bool(_HAS_DIGIT_OR_SYMBOL.search(value))


# --- the scan ---------------------------------------------------------------------------------------------

_V = f"{{0,{MAX_VALUE_CHARS}}}"
_QUOTED = rf"""[rbuRBUfF]{{0,2}}(?:"([^"\n]{_V})"|'([^'\n]{_V})'|`([^`\n]{_V})`|\\"([^"\\\n]{_V})\\")"""
"""A literal in double, single or back quotes, or in the escaped double quotes of code held in a JSON
string (a notebook cell's ``"api_key = \\"…\\"\\n"``): four groups, the value in the one that matched."""
_QUOTES = 4
_BARE = rf"""([^\s'"`,;]{{1,{MAX_VALUE_CHARS}}})"""
_SEPARATOR = (
    r"""\\?['"`]?\]?[ \t]*(?::[ \t]*(?:&(?:'\w+[ \t]+)?)?[A-Za-z_][\w.\[\]|, ]{0,60}?[ \t]*=(?!=)|[ \t]+string[ \t]*=(?!=)|:=|=>|\?\??=|\|\|=|={1,3}"""
    r"""|:(?!:)|(?<=")[ \t]+to(?=[ \t]+")|(?<=['"])[ \t]*->(?=[ \t]*['"]))[ \t]*"""
)
_ASSIGN = re.compile(_SEPARATOR + "(?:" + _QUOTED + "|" + _BARE + ")")
_LIST_OPEN = re.compile(_SEPARATOR + r"\[")
"""A list given to the key: ``API_KEYS = ["…", "…"]``, ``passwords: [a, b]``."""
_LIST_ITEM = re.compile(
    r"[ \t]*(?:" + _QUOTED + r"""|([^\s'"`,\[\]{}()]{1,""" + str(MAX_VALUE_CHARS) + r"}))[ \t]*(,|\])"
)
"""One item of a list on its key's line and what follows it (``,`` or the closing ``]``)."""
LIST_REACH = 80
"""How far after its key a list's ``[`` may be (the separator, a type annotation): past it, none is tried."""
_CONSTANT_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
"""``SECRET_KEY``, ``API_TOKEN``: the name of a setting."""
_CALL_OPEN = re.compile(
    r"(?<![\w])(?:[\w.]*\.)?(?i:define|getenv|get|fetch|setdefault|env|setenv|putenv|put|set|setProperty|add)"
    r"\([ \t]*$"
)
"""A call that names a setting and its value just before the key (``define(``, ``environ.get(``)."""
_XML_VALUE = re.compile(r"""['"][ \t]+value[ \t]*=[ \t]*""" + _QUOTED)
"""``<add key="DbPassword" value="…"/>`` (.NET ``App.config``, ``nuget.config``)."""
_FLAG_VALUE = re.compile(r"[ \t]+(?:" + _QUOTED + "|" + _BARE + ")")
"""``--password VALUE``: a command-line flag and its argument."""
_SETTER_CALL = re.compile(r"\([ \t]*" + _QUOTED)
"""``setPassword("…")``: a setter given a literal."""
_CALL_ARGUMENT = re.compile(r"""['"][ \t]*,[ \t]*""" + _QUOTED)
_FALLBACK = re.compile(
    r"""(?:\bor\b|\|\||\?\?|\?:|\b(?:getenv|get|fetch|setdefault|env)\([ \t]*['"][^'"\n]{1,100}['"][ \t]*,)"""
    r"[ \t]*" + _QUOTED
)
FALLBACK_REACH = 300


@dataclass(frozen=True)
class Assignment:
    """A credible value for a credential-named key: its span in the text (quotes excluded)."""

    start: int
    end: int


def _key_span(text: str, at: int, anchor_len: int) -> tuple[int, int] | None:
    start = at
    floor = max(0, at - MAX_KEY_CHARS)
    while start > floor and text[start - 1] in _KEY_CHARS:
        start -= 1
    end = at + anchor_len
    ceiling = min(len(text), end + MAX_KEY_CHARS)
    while end < ceiling and text[end] in _KEY_CHARS:
        end += 1
    if (start == floor and start > 0 and text[start - 1] in _KEY_CHARS) or (
        end == ceiling and end < len(text) and text[end] in _KEY_CHARS
    ):
        return None
    return start, end


def _quoted_span(match: re.Match[str], first: int) -> tuple[int, int] | None:
    for group in range(first, first + _QUOTES):
        if match.group(group) is not None:
            return match.span(group)
    return None


def _called(text: str, key_start: int) -> bool:
    """Whether the key is the first, quoted argument of a call: ``define('KEY'``, ``.get("KEY"``."""
    if key_start == 0 or text[key_start - 1] not in "'\"":
        return False
    return _CALL_OPEN.search(text, max(0, key_start - 60), key_start - 1) is not None


_DIRECTIVE = re.compile(r"[ \t]*(?:(?i:env)|#[ \t]*define)[ \t]+")
"""A Dockerfile's ``ENV KEY VALUE`` and C's ``#define KEY "…"``, forms without ``=``: the key is the
instruction's first word."""
_DIRECTIVE_REACH = 40


def _after_directive(text: str, key_start: int) -> bool:
    floor = max(0, key_start - _DIRECTIVE_REACH - 1)  # the line feed before a line of the most characters
    line_start = text.rfind("\n", floor, key_start) + 1
    if line_start == 0 and floor > 0:
        return False  # the line starts further back: more than an indented ENV before the key
    return _DIRECTIVE.fullmatch(text, line_start, key_start) is not None


def _assigned(text: str, key: tuple[int, int]) -> re.Match[str] | None:
    """The separator and value after the key, in the first form that fits."""
    start, end = key
    found = _ASSIGN.match(text, end)
    if found is None and _called(text, start):
        found = _CALL_ARGUMENT.match(text, end)
    if found is None:
        found = _XML_VALUE.match(text, end)
    if found is None and (text[start] == "-" or _after_directive(text, start)):
        found = _FLAG_VALUE.match(text, end)
    words = identifier_parts(text[start:end].rsplit(".", 1)[-1])  # ``ds.setPassword``: the method's words
    if found is None and words and words[0] in _SETTERS:
        found = _SETTER_CALL.match(text, end)
    return found


_SUBSCRIPT_ENDS = frozenset({'"]', "']"})


def _value(text: str, key: tuple[int, int], strength: str, path: str) -> Assignment | None:
    start, end = key
    before = text[start - 1] if start else ""
    if before == ":" and text[start - 2 : start - 1] != "/" and text[end : end + 2] not in _SUBSCRIPT_ENDS:
        # a segment of an ARN or a URN (``arn:aws:…:secret:db-password``), not npm's ``/:_auth`` nor the last
        # section of a .NET configuration key (``Configuration["Jwt:Secret"] = …``)
        return None
    assigned = _assigned(text, key)
    if assigned is not None:
        span = _quoted_span(assigned, 1)
        if span is not None:
            value = text[span[0] : span[1]]
            return Assignment(*span) if credible_quoted(value, strength, path) else None
        literal = before in (";", "?", "&")  # ``;Password=…;`` inside a connection string
        bare = assigned.group(_QUOTES + 1)  # the unquoted value, when there are no quotes
        if bare is not None and credible_unquoted(bare, strength, path, literal=literal):
            return Assignment(*assigned.span(_QUOTES + 1))
    line_end = text.find("\n", end)
    stop = min(len(text) if line_end < 0 else line_end, end + FALLBACK_REACH)
    fallback = _FALLBACK.search(text, end, stop)
    span = _quoted_span(fallback, 1) if fallback is not None else None
    if span is not None and credible_quoted(text[span[0] : span[1]], strength, path):
        return Assignment(*span)
    return None


def list_key_strength(key: str) -> str | None:
    """Whether a key given a list names credentials: by its last word, singular or plural (``passwords``,
    ``API_KEYS``, ``accessTokens``, ``credentials``), a token after a qualifier (``auth_tokens``, not
    ``stop_tokens``); a list whose name only starts with a credential word (``token_variants``,
    ``_pass_through_attributes``) is something else."""
    words = list(identifier_parts(key))
    if not words:
        return None
    last = words[-1]
    singular = last[:-1] if last.endswith("s") and last not in _STRONG_WORDS else last
    if singular == "token":
        return WEAK if len(words) >= 2 and words[-2] in _KEY_QUALIFIERS else None
    return _word_strength([*words[:-1], singular], len(words) - 1)


def _item_value(
    text: str, item: re.Match[str], group: int, strength: str, path: str
) -> tuple[bool, list[Assignment]]:
    """Of one item of a list under a credential key (its value in ``group``, quoted or not): whether it is a
    name, which makes the list one of settings, and the credential it holds, if any."""
    span = _quoted_span(item, group)
    start, end = span if span is not None else item.span(_QUOTES + group)
    value = text[start:end]
    if _CONSTANT_NAME.fullmatch(value) or key_strength(value) is not None:
        return True, []
    credible = credible_quoted if span is not None else credible_unquoted
    return False, [Assignment(start, end)] if credible(value, strength, path) else []


def _list_values(text: str, key: tuple[int, int], at: int, path: str) -> Iterator[Assignment]:
    """The credible items of a list of literals given to the key, opened at ``at`` and closed on the same
    line; nothing when it holds anything else (``[key for key in keys]``) or is not closed there, nor when an
    item is a name (``SECRET_KEYS = ["SECRET_KEY", "API_TOKEN"]`` lists settings, not their values)."""
    strength = list_key_strength(text[key[0] : key[1]])
    if strength is None or text[key[0] - 1 : key[0]] == ":":  # a segment of an ARN
        return
    found: list[Assignment] = []
    while (item := _LIST_ITEM.match(text, at)) is not None:
        named, value = _item_value(text, item, 1, strength, path)
        if named:
            return
        found.extend(value)
        at = item.end()
        if item.group(_QUOTES + 2) == "]":
            yield from found
            return


def _key_values(text: str, key: tuple[int, int], path: str) -> Iterator[Assignment]:
    """The credible values given to one key: a literal, or the items of a list."""
    bracket = text.find("[", key[1], key[1] + LIST_REACH)
    opened = None if bracket < 0 else _LIST_OPEN.match(text, key[1])
    if opened is not None:
        yield from _list_values(text, key, opened.end(), path)
        return
    strength = key_strength(text[key[0] : key[1]])
    found = None if strength is None else _value(text, key, strength, path)
    if found is not None:
        yield found


def find_assignments(text: str, folded: str, path: str) -> Iterator[Assignment]:
    """Every credible value for a credential-named key in ``text`` (``folded`` is its ASCII lowercase)."""
    seen: set[tuple[int, int]] = set()
    for anchor in ANCHORS:
        at = folded.find(anchor)
        while at >= 0:
            key = _key_span(text, at, len(anchor))
            if key is not None and key not in seen:
                seen.add(key)
                yield from _key_values(text, key, path)
            at = folded.find(anchor, at + 1)


# --- name/value pairs ------------------------------------------------------------------------------------

_NAME_FIELD = re.compile(
    r"""(?:name|Name|NAME|key|Key|ParameterKey)['"]?[ \t]*[:=][ \t]*['"]?"""
    r"""([A-Za-z_][\w.-]{0,63})['"]?[ \t]*(?=[,}\r\n]|$)"""
)
"""The name of a name/value pair: Kubernetes' and ECS's ``env`` entries, CloudFormation's parameters. The
field's own name must not follow a word character (:func:`_field_start`), checked apart: a pattern that
starts with its literal is searched many times faster."""
_VALUE_FIELD = re.compile(r"""(?:value|Value|VALUE|ParameterValue)['"]?[ \t]*[:=][ \t]*""")
_VALUE = re.compile("(?:" + _QUOTED + "|" + _BARE + ")")
PAIR_REACH = 300
"""How far after its name a pair's value field may start (in a long line of names, each looks this far)."""
_FLOW_END = ")]},"
"""What ends a bare value inside a flow collection (``{name: K, value: V}``), not part of the value."""


def _pair_value(text: str, name_end: int, strength: str, path: str) -> Assignment | None:
    """The credible value of the pair whose name ends at ``name_end``: on the same line or the next."""
    line_end = text.find("\n", name_end)
    next_end = -1 if line_end < 0 else text.find("\n", line_end + 1)
    stop = len(text) if line_end < 0 or next_end < 0 else next_end
    fields = _VALUE_FIELD.finditer(text, name_end, min(stop, name_end + PAIR_REACH))
    field = next((f for f in fields if _field_start(text, f.start())), None)
    found = None if field is None else _VALUE.match(text, field.end(), stop)
    if found is None:
        return None
    span = _quoted_span(found, 1)
    if span is not None:
        value = text[span[0] : span[1]]
        return Assignment(*span) if credible_quoted(value, strength, path) else None
    value = found.group(_QUOTES + 1).rstrip(_FLOW_END)
    start = found.start(_QUOTES + 1)
    if value and credible_unquoted(value, strength, path):
        return Assignment(start, start + len(value))
    return None


def _field_start(text: str, at: int) -> bool:
    """Whether a field name found at ``at`` starts a word (``name``, ``"name"``, not ``username``)."""
    before = text[at - 1] if at else ""
    if before in ("'", '"'):
        before = text[at - 2] if at > 1 else ""
    return not (before.isalnum() or before in "_-")


def find_named_values(text: str, path: str) -> Iterator[Assignment]:
    """Every credible value paired with a credential name (``- name: DB_PASSWORD`` then ``value: …``, or
    ``{"name": "API_TOKEN", "value": "…"}``), the value on the name's line or the next."""
    for match in _NAME_FIELD.finditer(text):
        strength = key_strength(match.group(1)) if _field_start(text, match.start()) else None
        if strength is not None:
            found = _pair_value(text, match.end(), strength, path)
            if found is not None:
                yield found


# --- YAML blocks -----------------------------------------------------------------------------------------

_YAML_SUFFIXES: tuple[str, ...] = (".yml", ".yaml")
_YAML_KEY = re.compile(
    r"""(?m)^([ \t]*)(?:-[ \t]+)?['"]?([A-Za-z_][\w.-]{0,63})['"]?[ \t]*:[ \t]*([|>][-+1-9]{0,2})?[ \t]*(?:#[^\n]*)?\r?$"""
)
"""A YAML key whose value starts on the next line: a block sequence (nothing after ``:``) or a block scalar
(``|``, ``>``, with their chomping and indentation indicators)."""
_YAML_ITEM = re.compile(
    r"([ \t]*)-[ \t]+(?:"
    + _QUOTED
    + r"""|([^\s'"`#]{1,"""
    + str(MAX_VALUE_CHARS)
    + r"""}))[ \t]*(?:#[^\n]*)?\r?$"""
)
_YAML_LINE = re.compile(r"([ \t]*)(\S[^\n]*?)[ \t]*\r?$")


def _lines_after(text: str, at: int) -> Iterator[tuple[int, int]]:
    """The (start, end) of each line after offset ``at``'s line, end excluding the line feed."""
    start = text.find("\n", at)
    while start >= 0:
        start += 1
        end = text.find("\n", start)
        yield start, len(text) if end < 0 else end
        start = end


def _yaml_sequence(text: str, key_end: int, indent: int, strength: str, path: str) -> Iterator[Assignment]:
    """The credible items of a block sequence of scalars under a key (``passwords:`` then ``- …`` lines);
    nothing when an item is a name (a list of settings) or not a scalar."""
    found: list[Assignment] = []
    for start, end in _lines_after(text, key_end):
        item = _YAML_ITEM.fullmatch(text, start, end)
        if item is None or len(item.group(1)) < indent:
            break
        named, value = _item_value(text, item, 2, strength, path)
        if named:
            return
        found.extend(value)
    yield from found


def _yaml_block_scalar(text: str, key_end: int, indent: int, strength: str, path: str) -> Assignment | None:
    """The value of a block scalar (``password: |``) that holds one line: a credential spelled on the line
    after its key. A block of several lines (a script, a certificate) is not one value."""
    value: tuple[int, int] | None = None
    for start, end in _lines_after(text, key_end):
        line = _YAML_LINE.fullmatch(text, start, end)
        if line is None:
            if text[start:end].strip():
                break
            continue  # a blank line inside the block
        if len(line.group(1)) <= indent or value is not None:
            if len(line.group(1)) > indent:
                return None  # a second line
            break
        value = line.span(2)
    if value is None or not credible_quoted(text[value[0] : value[1]], strength, path):
        return None
    return Assignment(*value)


def find_yaml_blocks(text: str, path: str) -> Iterator[Assignment]:
    """In a YAML file, or free text (a memory record, a message: a pasted configuration), the credible values
    of a credential-named key that start on the line after it: the scalars of a block sequence (``api_keys:``
    then ``- …``) and a one-line block scalar (``password: |``)."""
    if path and not path.lower().endswith(_YAML_SUFFIXES):
        return
    for match in _YAML_KEY.finditer(text):
        indent = len(match.group(1))
        key = match.group(2)
        if match.group(3) is not None:
            strength = key_strength(key)
            found = (
                None if strength is None else _yaml_block_scalar(text, match.end(), indent, strength, path)
            )
            if found is not None:
                yield found
            continue
        strength = list_key_strength(key)
        if strength is not None:
            yield from _yaml_sequence(text, match.end(), indent, strength, path)
