"""Scan configuration: limits, extra excludes, label rules and the declared canonical specification.

Read from ``ROOT/prooftext.toml`` when present (every key optional; other top-level tables belong to other
parts of prooftext and are left alone)::

    [scan]
    max_file_bytes = 1048576        # per source, at most 8 MiB; larger files are excluded with reason "size"
    max_total_bytes = 67108864      # all adopted sources together; the rest get "total_size"
    exclude = ["*.min.js"]          # extra gitignore-style patterns, relative to the root
    specification = "SPEC.md"       # portable relative path of the one canonical specification
    secrets = "redact"              # a source carrying a credential: "redact" (default) or "exclude"
    secrets_allow_pragma = false    # honour inline "pragma: allowlist secret" / "gitleaks:allow"

    [[labels]]                      # ordered; a later matching rule overrides earlier ones field by field
    glob = "docs/adr/**"            # gitignore wildmatch on the portable path
    authority = "accepted-public-contract"
    sensitivity = "public"
    # freshness = "candidate-bound"
    # kind = "doc"                  # code | doc | config | data | text

Secrets policy (rules in :mod:`prooftext.corpus.secrets`): under ``redact`` (the default) a source with a
credential is indexed with each value replaced by ``[REDACTED:<rule>]``, except private-key blocks, which
are always excluded; under ``exclude`` it is not indexed and is recorded with reason ``secret`` (rule ids
and line numbers, never the value). A path spelling a credential is always excluded, recorded under a redacted path.
Inline allowlist pragmas are ignored unless ``secrets_allow_pragma`` is true; prompts redact such values
anyway.

The file is UTF-8, optionally after one byte order mark (:data:`UTF8_BOM`). Label values and the structural
authority rules are described in :mod:`prooftext.corpus.labels`. A corrupt or ill-typed file raises
:class:`ConfigError` naming the file and the key (``scan.max_file_bytes``, ``labels[2].authority``); an
authority a path may not carry raises :class:`AuthorityError`.
"""

from __future__ import annotations

import difflib
import os
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from prooftext.canonical import MAX_SAFE_INTEGER
from prooftext.corpus.ignore import PATTERN_ERRORS, Globs, pattern_problem, posix_classes
from prooftext.corpus.labels import LabelRule, check_rule
from prooftext.corpus.model import REASON_SYMLINK
from prooftext.corpus.safeio import Refusal, Stamp, open_root, read_below, split_portable, stat_stamp
from prooftext.corpus.secrets import DEFAULT_POLICY, POLICIES
from prooftext.errors import ConfigError, ProoftextError

__all__ = [
    "CONFIG_FILE",
    "DEFAULT_MAX_FILE_BYTES",
    "DEFAULT_MAX_TOTAL_BYTES",
    "MAX_FILE_BYTES_LIMIT",
    "CorpusConfig",
    "LabelRule",
    "load_config",
]

MIB = 1 << 20
DEFAULT_MAX_FILE_BYTES = 1 * MIB
MAX_FILE_BYTES_LIMIT = 8 * MIB
"""The largest ``max_file_bytes`` accepted. A pack re-reads every quoted source whole to check its digest,
bounded by this same limit (``prooftext.pack.sources``); a larger file could be indexed yet never quoted.
A fixed ceiling, rather than a re-read bounded by the configuration, keeps what one file may cost in memory
bounded whatever a repository's ``prooftext.toml`` says."""
DEFAULT_MAX_TOTAL_BYTES = 64 * MIB
CONFIG_FILE = "prooftext.toml"
MAX_CONFIG_BYTES = 1 * MIB
"""The config is read with the same bounded, no-symlink reader as sources."""

_SCAN_KEYS = frozenset(
    {"max_file_bytes", "max_total_bytes", "exclude", "specification", "secrets", "secrets_allow_pragma"}
)
_RULE_KEYS = frozenset(f.name for f in fields(LabelRule))


def _check_positive(value: object, key: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"{key} must be a positive integer; got {value!r}", key=key)
    # The configuration is part of the store's reading key, a canonical JSON document, whose integers
    # stop at 2**53 - 1; a larger limit would otherwise fail every refresh with an error naming no key.
    if value > MAX_SAFE_INTEGER:
        raise ConfigError(f"{key} must be at most {MAX_SAFE_INTEGER}; got {value}", key=key)


def _check_file_limit(value: object) -> None:
    key = "scan.max_file_bytes"
    _check_positive(value, key)
    if isinstance(value, int) and value > MAX_FILE_BYTES_LIMIT:
        raise ConfigError(
            f"{key} must be at most {MAX_FILE_BYTES_LIMIT} ({MAX_FILE_BYTES_LIMIT // MIB} MiB, the most a"
            f" pack re-reads to quote a source); got {value}",
            key=key,
        )


def _check_patterns(patterns: tuple[str, ...], key: str) -> None:
    for index, pattern in enumerate(patterns):
        if not isinstance(pattern, str) or "\n" in pattern or "\0" in pattern:
            raise ConfigError(f"{key}[{index}] must be a one-line string", key=f"{key}[{index}]")
        try:
            Globs.compile([posix_classes(pattern)])
        except PATTERN_ERRORS as exc:
            raise ConfigError(
                f"{key}[{index}] is not a valid pattern: {pattern_problem(exc)}", key=f"{key}[{index}]"
            ) from None


def _check_secrets(policy: object, allow_pragma: object) -> None:
    if policy not in POLICIES:
        raise ConfigError(
            f"scan.secrets must be one of {', '.join(POLICIES)}; got {policy!r}", key="scan.secrets"
        )
    if not isinstance(allow_pragma, bool):
        raise ConfigError(
            f"scan.secrets_allow_pragma must be true or false; got {allow_pragma!r}",
            key="scan.secrets_allow_pragma",
        )


def _check_specification(value: object, key: str) -> None:
    if value is None:
        return
    if not isinstance(value, str):
        raise ConfigError(f"{key} must be a string path; got {value!r}", key=key)
    try:
        split_portable(value)
    except Refusal as refusal:
        raise ConfigError(f"{key} must be a portable relative path: {refusal.detail}", key=key) from None


@dataclass(frozen=True)
class CorpusConfig:
    """What a scan adopts and how it labels it. Validated on construction (lists become tuples)."""

    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    max_total_bytes: int = DEFAULT_MAX_TOTAL_BYTES
    exclude: tuple[str, ...] = ()
    label_rules: tuple[LabelRule, ...] = field(default=())
    specification: str | None = None
    secrets: str = DEFAULT_POLICY
    secrets_allow_pragma: bool = False

    def __post_init__(self) -> None:
        # Accept lists from callers while keeping the frozen value hashable.
        object.__setattr__(self, "exclude", tuple(self.exclude))
        object.__setattr__(self, "label_rules", tuple(self.label_rules))
        _check_file_limit(self.max_file_bytes)
        _check_positive(self.max_total_bytes, "scan.max_total_bytes")
        _check_patterns(self.exclude, "scan.exclude")
        _check_specification(self.specification, "scan.specification")
        _check_secrets(self.secrets, self.secrets_allow_pragma)
        for index, rule in enumerate(self.label_rules):
            if not isinstance(rule, LabelRule):
                raise ConfigError(f"labels[{index}] must be a LabelRule", key=f"labels[{index}]")
            check_rule(rule, f"labels[{index}]")


def _string_list(value: object, key: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{key} must be a list of strings", key=key)
    return list(value)


def _unknown_keys(table: dict[str, Any], allowed: frozenset[str], key: str) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise ConfigError(f"{key}.{unknown[0]} is not a known key", key=f"{key}.{unknown[0]}")


def _table(value: object, key: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(f"{key} must be a table", key=key)
    return value


def _rule(value: object, index: int) -> LabelRule:
    key = f"labels[{index}]"
    table = _table(value, key)
    _unknown_keys(table, _RULE_KEYS, key)
    for name, item in table.items():
        if not isinstance(item, str):
            raise ConfigError(f"{key}.{name} must be a string; got {item!r}", key=f"{key}.{name}")
    if "glob" not in table:
        raise ConfigError(f"{key}.glob is required", key=f"{key}.glob")
    return LabelRule(**table)


_TOP_KEYS = ("scan", "labels")
NEAR_MISS = 0.75
"""How alike (difflib's ratio, ignoring case) a table's name and one of ours are for it to be read as a
misspelling of ours rather than another tool's table."""


def _known_top_keys(document: dict[str, Any]) -> None:
    """Other tools' tables are left alone, but a top-level key that is not a table (a scan setting written
    above ``[scan]``) or a table named almost as one of ours (``[scna]``, ``[label]``) would be ignored without
    a word: both are refused."""
    for name in sorted(set(document) - set(_TOP_KEYS)):
        value = document[name]
        if not (isinstance(value, dict) or (isinstance(value, list) and value and _tables(value))):
            where = "; scan settings go under [scan]" if name in _SCAN_KEYS else ""
            raise ConfigError(f"{name} is not a known key (known: [scan], [[labels]]){where}", key=name)
        near = difflib.get_close_matches(name.lower(), _TOP_KEYS, n=1, cutoff=NEAR_MISS)
        if near:
            raise ConfigError(f"{name} is not a known table: did you mean {near[0]}?", key=name)


def _tables(values: list[Any]) -> bool:
    return all(isinstance(v, dict) for v in values)


def _config_from(document: dict[str, Any]) -> CorpusConfig:
    _known_top_keys(document)
    scan = _table(document.get("scan", {}), "scan")
    _unknown_keys(scan, _SCAN_KEYS, "scan")
    rules = document.get("labels", [])
    if not isinstance(rules, list):
        raise ConfigError("labels must be an array of tables ([[labels]])", key="labels")
    kwargs: dict[str, Any] = {k: v for k, v in scan.items() if k != "exclude"}
    if "exclude" in scan:
        kwargs["exclude"] = tuple(_string_list(scan["exclude"], "scan.exclude"))
    return CorpusConfig(**kwargs, label_rules=tuple(_rule(rule, i) for i, rule in enumerate(rules)))


_LINK_DETAIL = "it is a symbolic link, which is never followed; put the file itself at the root"


def _config_bytes(root: Path) -> bytes | None:
    root_fd = open_root(root)
    try:
        return read_below(root_fd, CONFIG_FILE, MAX_CONFIG_BYTES)
    except Refusal as refusal:
        if refusal.missing:
            return None
        detail = _LINK_DETAIL if refusal.reason == REASON_SYMLINK else refusal.detail
        raise ConfigError(
            f"{CONFIG_FILE} cannot be read ({refusal.reason}): {detail}", file=CONFIG_FILE
        ) from None
    finally:
        os.close(root_fd)


UTF8_BOM = b"\xef\xbb\xbf"
"""Windows editors (Notepad, older Visual Studio) start a UTF-8 file with it; TOML 1.0 does not allow it.
One leading BOM is dropped before parsing, so it changes neither the settings nor the store's reading key;
a second one, or one anywhere else, is still invalid TOML."""


def _parse(data: bytes) -> dict[str, Any]:
    body = data.removeprefix(UTF8_BOM)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        offset = exc.start + len(data) - len(body)  # the offset in the file as the user's editor shows it
        raise ConfigError(f"{CONFIG_FILE} is not UTF-8 (byte {offset})", file=CONFIG_FILE) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{CONFIG_FILE} is not valid TOML: {exc}", file=CONFIG_FILE) from None


def config_stamp(root: Path) -> Stamp:
    """What a long-lived handle compares to notice an edit of the configuration (stat data, no read)."""
    return stat_stamp(Path(root) / CONFIG_FILE)


def load_config(root: Path) -> CorpusConfig:
    """The configuration in ``ROOT/prooftext.toml``, or the defaults when the file does not exist."""
    data = _config_bytes(Path(root))
    if data is None:
        return CorpusConfig()
    document = _parse(data)
    try:
        return _config_from(document)
    except ProoftextError as exc:
        # Same class and details, with the file named: the key alone does not say where to look.
        raise type(exc)(f"{CONFIG_FILE}: {exc.message}", **{**exc.details, "file": CONFIG_FILE}) from None
