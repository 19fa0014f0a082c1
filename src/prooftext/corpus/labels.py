"""Source labels (authority, freshness, sensitivity) with the context framework's structural rules.

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

from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

from prooftext.corpus.ignore import PATTERN_ERRORS, Globs
from prooftext.corpus.kinds import KINDS, kind_for
from prooftext.corpus.model import AUTHORITIES, FRESHNESS, SENSITIVITIES, Labels
from prooftext.errors import AuthorityError, ConfigError, FreshnessError

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


@dataclass(frozen=True)
class LabelRule:
    """One ``[[labels]]`` rule: a gitignore-style glob and the fields it sets (None leaves a field alone)."""

    glob: str
    authority: str | None = None
    freshness: str | None = None
    sensitivity: str | None = None
    kind: str | None = None


class LabelPolicy(Protocol):
    """What labelling reads of a scan configuration (:class:`~prooftext.corpus.config.CorpusConfig`): its
    ordered rules and the declared specification path."""

    @property
    def label_rules(self) -> tuple[LabelRule, ...]: ...

    @property
    def specification(self) -> str | None: ...


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


def labels_for(path: str, config: LabelPolicy) -> Labels:
    """The labels of a repository source: defaults, then every matching rule in order, then the spec rule."""
    labels = Labels()
    for index, rule in enumerate(config.label_rules):
        if matches((rule.glob,), path):
            labels = _apply(labels, rule, index, path)
    if path == config.specification:
        labels = Labels(AUTHORITY_SPEC, labels.freshness, labels.sensitivity)
    return labels


def source_kind(path: str, config: LabelPolicy) -> str:
    """The kind of a source: the last matching rule's ``kind``, else :func:`kind_for`."""
    kind = kind_for(path)
    for rule in config.label_rules:
        if rule.kind is not None and matches((rule.glob,), path):
            kind = rule.kind
    return kind
