"""Source kinds and labels (authority, freshness, sensitivity) with the context framework's structural rules.

Kinds, by file name first, then by lowercase extension (anything else is ``text``):

=========  =====================================================================================
kind       names / extensions
=========  =====================================================================================
code       .py .pyi .pyx .js .mjs .cjs .jsx .ts .mts .cts .tsx .go .rs .java .kt .kts .scala .c .h
           .cc .cpp .cxx .hh .hpp .hxx .cs .swift .m .mm .rb .php .pl .pm .lua .r .jl .dart .ex .exs
           .erl .hs .ml .mli .clj .elm .zig .nim .sh .bash .zsh .fish .ps1 .sql .vue .svelte;
           ``Makefile``, ``GNUmakefile``, ``Rakefile``, ``Gemfile``, ``Justfile``, ``Dockerfile``
doc        .md .markdown .mdx .rst .adoc .asciidoc .org .tex .rtf .html .htm; ``README``, ``CHANGELOG``,
           ``CHANGES``, ``AUTHORS``, ``CONTRIBUTING``, ``LICENSE``, ``COPYING``, ``NOTICE``
config     .toml .ini .cfg .conf .yaml .yml .properties .env .editorconfig .gitignore .gitattributes
           .dockerignore .lock; ``CMakeLists.txt``, ``MANIFEST.in``
data       .json .jsonl .ndjson .csv .tsv .xml .svg .geojson
text       everything else (.txt, .log, no extension, ...)
=========  =====================================================================================

Case never changes a kind: ``Foo.PY``, ``.C`` and ``.H`` are code. The parser's
:func:`prooftext.graph.languages.language_for` compares extensions in lower case too, so every file it
parses with a grammar is ``code`` here (``doc`` for Markdown and RST); the one place case matters there,
``.C`` and ``.H`` read as C++ as GCC does, picks a language, not a kind.

Labels start from the defaults (``repository-record``, ``candidate-bound``, ``repository-private``) and are
changed by ordered ``[[labels]]`` rules: every rule whose glob matches sets the fields it names, so a later
rule overrides an earlier one field by field. Globs use gitignore wildmatch (``docs/adr/**``, ``**/*.md``;
a glob without ``/`` matches the name at any depth).

Structural rules (context framework): authority is evidence to validate, never a free-form claim.

* ``owner-approved`` comes only from explicit owner-root records, never from a repository scan;
* ``canonical-specification`` is exactly the one declared ``[scan] specification`` path (which always gets
  it, whatever the rules say), never a rule;
* ``accepted-public-contract`` only for repository requirements, decisions and designs
  (:data:`CONTRACT_AREAS`);
* ``verified-evidence`` only for repository evidence: tests and fixtures (:data:`EVIDENCE_AREAS`);
* ``repository-record`` and the two untrusted classes anywhere.

A rule asking for more than its paths may carry raises :class:`AuthorityError` (``authority_invalid``): when
the glob itself reaches outside the allowed areas at load time, or when it matches such a path at scan time.
Freshness from a repository rule can only be ``candidate-bound``: ``immutable`` needs verified self-linked
JSON and ``expires-at`` an explicit observation interval, neither of which a repository scan has.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from prooftext.corpus.ignore import PATTERN_ERRORS, Globs
from prooftext.corpus.model import AUTHORITIES, FRESHNESS, SENSITIVITIES, Labels
from prooftext.errors import AuthorityError, ConfigError, FreshnessError

if TYPE_CHECKING:
    from prooftext.corpus.config import CorpusConfig

KIND_CODE = "code"
KIND_DOC = "doc"
KIND_CONFIG = "config"
KIND_DATA = "data"
KIND_TEXT = "text"
KINDS: tuple[str, ...] = (KIND_CODE, KIND_DOC, KIND_CONFIG, KIND_DATA, KIND_TEXT)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_CODE_EXTENSIONS = _words(
    ".py .pyi .pyx .js .mjs .cjs .jsx .ts .mts .cts .tsx .go .rs .java .kt .kts .scala .c .h .cc .cpp .cxx "
    ".hh .hpp .hxx .cs .swift .m .mm .rb .php .pl .pm .lua .r .jl .dart .ex .exs .erl .hs .ml .mli .clj "
    ".elm .zig .nim .sh .bash .zsh .fish .ps1 .sql .vue .svelte"
)
_DOC_EXTENSIONS = _words(".md .markdown .mdx .rst .adoc .asciidoc .org .tex .rtf .html .htm")
_CONFIG_EXTENSIONS = _words(
    ".toml .ini .cfg .conf .yaml .yml .properties .env .editorconfig .gitignore .gitattributes "
    ".dockerignore .lock"
)
_DATA_EXTENSIONS = _words(".json .jsonl .ndjson .csv .tsv .xml .svg .geojson")
_KIND_BY_EXTENSION: dict[str, str] = {
    **dict.fromkeys(_CODE_EXTENSIONS, KIND_CODE),
    **dict.fromkeys(_DOC_EXTENSIONS, KIND_DOC),
    **dict.fromkeys(_CONFIG_EXTENSIONS, KIND_CONFIG),
    **dict.fromkeys(_DATA_EXTENSIONS, KIND_DATA),
}
_KIND_BY_NAME: dict[str, str] = {
    **dict.fromkeys(("Makefile", "GNUmakefile", "Rakefile", "Gemfile", "Justfile", "Dockerfile"), KIND_CODE),
    **dict.fromkeys(
        ("README", "CHANGELOG", "CHANGES", "AUTHORS", "CONTRIBUTING", "LICENSE", "COPYING", "NOTICE"),
        KIND_DOC,
    ),
    **dict.fromkeys(("CMakeLists.txt", "MANIFEST.in"), KIND_CONFIG),
}

AUTHORITY_OWNER = "owner-approved"
AUTHORITY_SPEC = "canonical-specification"
AUTHORITY_CONTRACT = "accepted-public-contract"
AUTHORITY_EVIDENCE = "verified-evidence"
FRESHNESS_CANDIDATE = "candidate-bound"

CONTRACT_AREAS: tuple[str, ...] = (
    "**/adr/**",
    "**/adrs/**",
    "**/decisions/**",
    "**/design*/**",
    "**/requirements/**",
    "DESIGN.md",
    "REQUIREMENTS.md",
)
"""Where ``accepted-public-contract`` may apply: repository requirements, decisions and designs."""

EVIDENCE_AREAS: tuple[str, ...] = (
    "**/tests/**",
    "**/test/**",
    "**/testdata/**",
    "**/fixtures/**",
    "**/__tests__/**",
    "test_*.py",
    "*_test.py",
    "*_test.go",
)
"""Where ``verified-evidence`` may apply: repository tests and fixtures."""

_AREAS: dict[str, tuple[str, ...]] = {AUTHORITY_CONTRACT: CONTRACT_AREAS, AUTHORITY_EVIDENCE: EVIDENCE_AREAS}
_NEVER_FROM_RULES: dict[str, str] = {
    AUTHORITY_OWNER: "comes only from explicit owner-root records, never from a repository scan",
    AUTHORITY_SPEC: "belongs only to the declared [scan] specification path",
}


_PROBE_NAME = "_"


def kind_for(path: str) -> str:
    """``code`` | ``doc`` | ``config`` | ``data`` | ``text`` for a portable path (see the module table)."""
    name = posixpath.basename(path)
    by_name = _KIND_BY_NAME.get(name)
    if by_name is not None:
        return by_name
    # ".gitignore" has no stem: splitext would give no extension, but the whole name is the type.
    extension = name.lower() if name.startswith(".") and name.count(".") == 1 else posixpath.splitext(name)[1]
    return _KIND_BY_EXTENSION.get(extension.lower(), KIND_TEXT)


@dataclass(frozen=True)
class LabelRule:
    """One ``[[labels]]`` rule: a gitignore-style glob and the fields it sets (None leaves a field alone)."""

    glob: str
    authority: str | None = None
    freshness: str | None = None
    sensitivity: str | None = None
    kind: str | None = None


_SPEC_CACHE_SIZE = 1024
"""Compiled globs kept: one per label rule and structural area set, so a scan compiles each once."""


@lru_cache(maxsize=_SPEC_CACHE_SIZE)
def _spec(patterns: tuple[str, ...]) -> Globs:
    # Globs, not pathspec's own matching: its regexes backtrack exponentially on a glob with many stars.
    return Globs.compile(patterns)


def matches(patterns: tuple[str, ...], path: str) -> bool:
    """True when a portable path matches any of the gitignore-style ``patterns``."""
    return _spec(patterns).decide(path) is True


def authority_allowed(authority: str, path: str) -> bool:
    """Structural rule: may a repository path (or a glob read as a path) carry ``authority`` from a rule?"""
    if authority in _NEVER_FROM_RULES:
        return False
    areas = _AREAS.get(authority)
    return areas is None or matches(areas, path)


def _check_choice(value: str | None, allowed: tuple[str, ...], key: str) -> None:
    if value is not None and value not in allowed:
        raise ConfigError(f"{key} must be one of {', '.join(allowed)}; got {value!r}", key=key)


def _check_glob(glob: str, key: str) -> None:
    if not glob or glob.startswith("!") or "\n" in glob:
        raise ConfigError(f"{key} must be a non-empty glob without negation", key=key)
    try:
        _spec((glob,))
    except PATTERN_ERRORS as exc:
        raise ConfigError(f"{key} is not a valid glob: {exc}", key=key) from None


def check_rule(rule: LabelRule, key: str) -> None:
    """Validate one rule at load time; ``key`` (``labels[i]``) names it in the error."""
    _check_glob(rule.glob, f"{key}.glob")
    _check_choice(rule.authority, AUTHORITIES, f"{key}.authority")
    _check_choice(rule.freshness, FRESHNESS, f"{key}.freshness")
    _check_choice(rule.sensitivity, SENSITIVITIES, f"{key}.sensitivity")
    _check_choice(rule.kind, KINDS, f"{key}.kind")
    if rule.freshness is not None and rule.freshness != FRESHNESS_CANDIDATE:
        raise FreshnessError(
            f"{key}.freshness: a repository scan binds sources to the candidate ({FRESHNESS_CANDIDATE})",
            key=f"{key}.freshness",
        )
    if rule.authority is not None:
        _check_authority(rule.authority, rule.glob, key)


def _check_authority(authority: str, glob: str, key: str) -> None:
    if authority in _NEVER_FROM_RULES:
        raise AuthorityError(
            f"{key}.authority: {authority} {_NEVER_FROM_RULES[authority]}", key=f"{key}.authority"
        )
    # Read as a path, a glob such as "docs/adr/**" must itself lie inside an allowed area; a bare directory
    # glob such as "tests" matches what is inside it, so it is read as a path inside that directory too.
    inside = f"{glob.rstrip('/')}/{_PROBE_NAME}"
    if not (authority_allowed(authority, glob) or authority_allowed(authority, inside)):
        raise AuthorityError(
            f"{key}.authority: {authority} is not allowed for {glob!r}; "
            f"allowed areas: {', '.join(_AREAS[authority])}",
            key=f"{key}.authority",
        )


def _apply(labels: Labels, rule: LabelRule, index: int, path: str) -> Labels:
    authority = rule.authority or labels.authority
    if rule.authority is not None and not authority_allowed(rule.authority, path):
        raise AuthorityError(
            f"labels[{index}].authority: {rule.authority} is not allowed for {path!r}",
            key=f"labels[{index}].authority",
            path=path,
        )
    return Labels(
        authority=authority,
        freshness=rule.freshness or labels.freshness,
        sensitivity=rule.sensitivity or labels.sensitivity,
    )


def labels_for(path: str, config: CorpusConfig) -> Labels:
    """The labels of a repository source: defaults, then every matching rule in order, then the spec rule."""
    labels = Labels()
    for index, rule in enumerate(config.label_rules):
        if matches((rule.glob,), path):
            labels = _apply(labels, rule, index, path)
    if path == config.specification:
        labels = Labels(AUTHORITY_SPEC, labels.freshness, labels.sensitivity)
    return labels


def source_kind(path: str, config: CorpusConfig) -> str:
    """The kind of a source: the last matching rule's ``kind``, else :func:`kind_for`."""
    kind = kind_for(path)
    for rule in config.label_rules:
        if rule.kind is not None and matches((rule.glob,), path):
            kind = rule.kind
    return kind
