"""Governance rules of the context framework as pure functions: authority, sensitivity and freshness.

Authority order (strongest first) is :data:`AUTHORITIES`; labels are evidence to validate, never claims:

* ``owner-approved`` only for explicit owner-root records (``root_scope`` ``owner``);
* ``canonical-specification`` only for the unique repository specification (its digest is the candidate's
  ``source_spec_sha256``), which is the root's declared ``[scan] specification`` when it declares one
  (:func:`check_declared_specification`): an artifact cannot name another file as the specification;
* ``accepted-public-contract`` only for repository requirements, decisions and designs, and
  ``verified-evidence`` only for repository evidence (the areas of :mod:`prooftext.corpus.labels`);
* generated content stays untrusted: a ``tool-observation`` provenance means ``untrusted-observation`` and a
  ``generated`` one ``untrusted-proposal``; a higher label written on it is rejected;
* an authoritative source must carry a provenance reference to its own exact locator (self-linked);
* a repository source re-observed through its root may claim no more authority, and no less sensitivity,
  than the root's configuration gives its path (:func:`check_configured_labels`): an artifact's labels are
  evidence to check, so a rehashed artifact cannot raise them.

Sensitivity increases ``public`` → ``repository-private`` → ``owner-private`` → ``secret-or-prohibited``;
derived artifacts carry the highest included level and never less; a missing label is ``owner-private``;
owner-root content is at least ``owner-private``; ``secret-or-prohibited`` text never enters an artifact, and
text that carries a credential (:mod:`prooftext.corpus.secrets`) is treated as such whatever its label. A path
that spells a credential is never adopted, and every record that names one (an exclusion, an error) names it
redacted (:func:`redacted_record`), as the scan and the index store do.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from prooftext.artifacts.models import ExpiryWindow, Locator, ProvenanceRef
from prooftext.corpus.labels import CONTRACT_AREAS, EVIDENCE_AREAS, labels_for, matches
from prooftext.corpus.model import AUTHORITIES, SENSITIVITIES
from prooftext.corpus.secrets import blocking, describe, find_secrets, path_findings, redact_path
from prooftext.errors import AuthorityError, FreshnessError, SensitivityError

if TYPE_CHECKING:
    from prooftext.corpus.config import CorpusConfig

OWNER_APPROVED = "owner-approved"
CANONICAL_SPECIFICATION = "canonical-specification"
ACCEPTED_PUBLIC_CONTRACT = "accepted-public-contract"
VERIFIED_EVIDENCE = "verified-evidence"
UNTRUSTED_OBSERVATION = "untrusted-observation"
UNTRUSTED_PROPOSAL = "untrusted-proposal"
AUTHORITATIVE = frozenset(
    {OWNER_APPROVED, CANONICAL_SPECIFICATION, ACCEPTED_PUBLIC_CONTRACT, VERIFIED_EVIDENCE}
)
UNTRUSTED = frozenset({UNTRUSTED_OBSERVATION, UNTRUSTED_PROPOSAL})
OWNER_AUTHORITIES = frozenset({OWNER_APPROVED, *UNTRUSTED})
"""What an owner-root source may carry: an owner record, or an untrusted observation or proposal."""

PUBLIC = "public"
OWNER_PRIVATE = "owner-private"
SECRET = "secret-or-prohibited"
MISSING_SENSITIVITY = OWNER_PRIVATE
"""A source without a sensitivity label is treated as owner-private, before its identity is computed."""

SCOPE_REPOSITORY = "repository"
SCOPE_OWNER = "owner"

IMMUTABLE = "immutable"
CANDIDATE_BOUND = "candidate-bound"
EXPIRES_AT = "expires-at"
IMMUTABLE_EXTENSION = ".json"

GENERATED_AUTHORITY = {"tool-observation": UNTRUSTED_OBSERVATION, "generated": UNTRUSTED_PROPOSAL}
"""Provenance types that mark generated content, and the one authority such content keeps."""

_TIMESTAMP_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


class SourceLike(Protocol):
    """What the rules read from a Manifest or Graph source."""

    @property
    def locator(self) -> Locator: ...
    @property
    def authority(self) -> str: ...
    @property
    def freshness(self) -> str: ...
    @property
    def provenance(self) -> list[ProvenanceRef]: ...
    @property
    def expires(self) -> ExpiryWindow | None: ...


class LabelledSource(SourceLike, Protocol):
    """A source with its sensitivity (None, in a Manifest, means :data:`MISSING_SENSITIVITY`)."""

    @property
    def sensitivity(self) -> str | None: ...


def authority_rank(authority: str) -> int:
    """0 for the strongest class (``owner-approved``)."""
    return AUTHORITIES.index(authority)


def sensitivity_rank(sensitivity: str) -> int:
    """0 for ``public``."""
    return SENSITIVITIES.index(sensitivity)


def highest_sensitivity(levels: Iterable[str], floor: str = PUBLIC) -> str:
    """The highest level among ``levels`` and ``floor``: what a derived artifact carries."""
    return max([floor, *levels], key=sensitivity_rank)


def canonical_sensitivity(level: str | None) -> str:
    return MISSING_SENSITIVITY if level is None else level


def ref_scope(ref: ProvenanceRef) -> str:
    return ref.root_scope or SCOPE_REPOSITORY


def self_linked(source: SourceLike) -> bool:
    """True when a provenance reference names the source's own exact locator (scope, path, digest)."""
    loc = source.locator
    return any(
        (ref_scope(ref), ref.locator_path, ref.sha256) == (loc.root_scope, loc.path, loc.sha256)
        for ref in source.provenance
    )


def _where(source: SourceLike) -> str:
    return f"{source.locator.root_scope}:{source.locator.path}"


def _reject(source: SourceLike, why: str) -> AuthorityError:
    return AuthorityError(
        f"{_where(source)}: {source.authority} {why}", path=source.locator.path, authority=source.authority
    )


def _check_generated(source: SourceLike) -> None:
    for ref in source.provenance:
        kept = GENERATED_AUTHORITY.get(ref.type)
        if kept is not None and source.authority != kept:
            raise _reject(source, f"is not allowed on {ref.type} content, which stays {kept}")


def _check_scope(source: SourceLike, spec_sha256: str) -> None:
    scope, path = source.locator.root_scope, source.locator.path
    authority = source.authority
    if scope == SCOPE_OWNER:
        if authority not in OWNER_AUTHORITIES:
            raise _reject(source, "cannot come from the owner root")
        return
    if authority == OWNER_APPROVED:
        raise _reject(source, "comes only from explicit owner-root records")
    if authority == CANONICAL_SPECIFICATION and source.locator.sha256 != spec_sha256:
        raise _reject(source, "belongs only to the candidate's canonical specification")
    if authority == ACCEPTED_PUBLIC_CONTRACT and not matches(CONTRACT_AREAS, path):
        raise _reject(source, "is limited to repository requirements, decisions and designs")
    if authority == VERIFIED_EVIDENCE and not matches(EVIDENCE_AREAS, path):
        raise _reject(source, "is limited to repository evidence (tests and fixtures)")


def check_declared_specification(declared: str | None, named: str) -> None:
    """The specification an artifact (or ``--specification``) names must be the root's declared one.

    Labels are re-derived from the root's configuration with ``named`` as its specification, so without
    this check an artifact could name any file, with that file's digest as the candidate's
    ``source_spec_sha256``, and have it re-observed as ``canonical-specification``. Only a root that declares
    none lets the caller name it (``context manifest --specification``)."""
    if declared is not None and named != declared:
        raise AuthorityError(
            f"repository:{named}: {CANONICAL_SPECIFICATION} belongs only to the root's declared "
            f"[scan] specification {declared}",
            path=named,
            authority=CANONICAL_SPECIFICATION,
            configured=declared,
        )


def check_authority(source: SourceLike, spec_sha256: str) -> None:
    """Raise :class:`AuthorityError` when the source's label is more than its structure allows."""
    _check_generated(source)
    _check_scope(source, spec_sha256)
    if source.authority in AUTHORITATIVE and not self_linked(source):
        raise _reject(source, "requires a provenance reference to its own exact locator")


def check_sensitivity(scope: str, path: str, level: str) -> None:
    """Secret text never enters an active artifact; owner-root content is at least owner-private."""
    if level == SECRET:
        raise SensitivityError(f"{scope}:{path}: {SECRET} source text is rejected", path=path, reason=SECRET)
    if scope == SCOPE_OWNER and sensitivity_rank(level) < sensitivity_rank(OWNER_PRIVATE):
        raise SensitivityError(
            f"{scope}:{path}: owner-root content cannot be labelled {level}", path=path, reason="downgrade"
        )


def check_configured_labels(source: LabelledSource, config: CorpusConfig, spec_sha256: str) -> None:
    """The labels of a source about to be re-observed, checked against what its root allows.

    Structural rules first (:func:`check_sensitivity`, :func:`check_authority`). A repository source is
    then compared with the labels the root's configuration gives its path (``config.specification`` must
    be the artifact's canonical specification): more authority or less sensitivity is refused. Less
    authority and more sensitivity are kept, because they only restrict (a missing sensitivity is read as
    owner-private, and generated content stays untrusted whatever the configuration says). Owner records
    have no configuration; the structural rules are all that bind them."""
    loc = source.locator
    level = canonical_sensitivity(source.sensitivity)
    check_sensitivity(loc.root_scope, loc.path, level)
    check_authority(source, spec_sha256)
    if loc.root_scope != SCOPE_REPOSITORY:
        return
    configured = labels_for(loc.path, config)
    if authority_rank(source.authority) < authority_rank(configured.authority):
        raise AuthorityError(
            f"{_where(source)}: labelled {source.authority}, but the root's configuration gives this path "
            f"{configured.authority}",
            path=loc.path,
            authority=source.authority,
            configured=configured.authority,
        )
    if sensitivity_rank(level) < sensitivity_rank(configured.sensitivity):
        raise SensitivityError(
            f"{_where(source)}: labelled {level}, but the root's configuration gives this path "
            f"{configured.sensitivity}",
            path=loc.path,
            reason="downgrade",
            configured=configured.sensitivity,
        )


def check_text_secrets(scope: str, path: str, text: str) -> None:
    """Source text that carries a credential is ``secret-or-prohibited`` whatever its label says; only the
    bounded reason (rule ids and line numbers, never a value) is reported."""
    findings = blocking(find_secrets(text, path=path))
    if findings:
        raise SensitivityError(f"{scope}:{path}: {describe(findings)}", path=path, reason=SECRET)


def check_caller_text(field: str, text: str) -> None:
    """Text a caller wrote (a query, a claim) is redacted when its artifact is built, so a credential left in
    it marks a hand-written artifact: refused, naming the field and the rule, never the value."""
    findings = blocking(find_secrets(text))
    if findings:
        raise SensitivityError(f"{field}: {describe(findings)}", field=field, reason=SECRET)


def check_path_secrets(scope: str, path: str) -> None:
    """A path that spells a credential is ``secret-or-prohibited`` (the scan never adopts one); the error
    names it redacted."""
    findings = path_findings(path)
    if findings:
        shown = redact_path(path)
        raise SensitivityError(
            f"{scope}:{shown}: {describe(findings, in_path=True)}", path=shown, reason=SECRET
        )


def redacted_record(path: str, detail: str) -> tuple[str, str]:
    """The path and detail of an exclusion record with every credential they spell replaced, as
    :func:`prooftext.corpus.secrets.redact_path` does for the index store: the path gets the same
    placeholder wherever it recurs in the detail, and any other path the detail names is redacted too."""
    shown = redact_path(path)
    return shown, redact_path(detail.replace(path, shown))


def parse_timestamp(value: str) -> datetime:
    """A ``YYYY-MM-DDTHH:MM:SSZ`` instant; :class:`FreshnessError` for an impossible date."""
    try:
        return datetime.strptime(value, _TIMESTAMP_FORMAT)
    except ValueError:
        raise FreshnessError(f"not a real UTC instant YYYY-MM-DDTHH:MM:SSZ: {value[:40]}") from None


def _check_window(source: SourceLike) -> None:
    window = source.expires
    where = _where(source)
    if source.freshness != EXPIRES_AT:
        if window is not None:
            raise FreshnessError(f"{where}: only expires-at sources carry a validity interval")
        return
    if window is None:
        raise FreshnessError(f"{where}: expires-at requires an explicit observation and validity interval")
    start, observed, end = (
        parse_timestamp(t) for t in (window.valid_from, window.observed_at, window.valid_until)
    )
    if not start <= observed <= end or start == end:
        raise FreshnessError(f"{where}: the observation must lie inside a non-empty validity interval")


def check_freshness_declaration(source: SourceLike) -> None:
    """Structural freshness rules (no I/O): immutable is verified self-linked JSON with an authoritative
    class; expires-at carries its interval; other classes carry none."""
    _check_window(source)
    if source.freshness != IMMUTABLE:
        return
    where = _where(source)
    if posixpath.splitext(source.locator.path)[1] != IMMUTABLE_EXTENSION:
        raise FreshnessError(f"{where}: immutable is limited to JSON sources")
    if source.authority not in AUTHORITATIVE or not self_linked(source):
        raise FreshnessError(f"{where}: immutable requires an authoritative, self-linked source")


def stale_reason(freshness: str, window: ExpiryWindow | None, as_of: str | None) -> str | None:
    """Why a source is not fresh at ``as_of`` (``stale``), or None. Only ``expires-at`` can go stale here;
    ``candidate-bound`` and ``immutable`` are checked by re-observation."""
    if freshness != EXPIRES_AT:
        return None
    if window is None or as_of is None:
        return "stale"
    inside = window.valid_from <= as_of <= window.valid_until
    return None if inside else "stale"
