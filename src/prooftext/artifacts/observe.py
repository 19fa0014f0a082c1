"""Re-observation through explicit roots: strict source reads, provenance, candidate identity.

Before a source is read, its authority and sensitivity are checked against the explicit root's
configuration (:class:`LabelRules`): labels come from the root, never from the artifact being replayed.
A source is read as a regular, unlinked (one hard link, never a symlink anywhere on its path) file below its
explicit root, component by component, at most ``MAX_SOURCE_BYTES`` bytes, with its stat data compared
before and after the read; then its digest, strict UTF-8, line range and freshness are checked. Absolute
roots are command arguments only: errors name root-relative paths, never a root.
"""

from __future__ import annotations

import os
import stat as stat_module
from dataclasses import dataclass, field, replace
from pathlib import Path

import prooftext.artifacts.governance as gov
import prooftext.canonical as canonical
from prooftext.artifacts.fields import CandidateModel
from prooftext.artifacts.limits import KIB, MAX_SOURCE_BYTES
from prooftext.artifacts.models import GraphSource, ManifestSource, ProvenanceRef
from prooftext.corpus.config import CorpusConfig, load_config
from prooftext.corpus.lines import count_lines, line_slice
from prooftext.corpus.model import REASON_CHANGED, REASON_NOT_REGULAR, REASON_SIZE, CandidateIdentity
from prooftext.corpus.safeio import (
    LEAF_FLAGS,
    Refusal,
    open_parent,
    open_root,
    read_upto,
    refusal_from,
    same_file,
    source_error,
    split_portable,
)
from prooftext.corpus.scan import scan
from prooftext.errors import (
    CandidateMismatchError,
    CanonicalJSONError,
    FreshnessError,
    LimitError,
    OwnerRootError,
    ProoftextError,
    ProvenanceError,
    SourceDriftError,
    SourceError,
    SourceUnreadableError,
)

REASON_HARD_LINK = "hard_link"

SourceRecord = ManifestSource | GraphSource


@dataclass
class Roots:
    """The explicit roots of one command; records whether the owner root was actually used."""

    repository: Path
    owner: Path | None = None
    owner_used: bool = field(default=False, init=False)

    def root_for(self, scope: str, path: str) -> Path:
        if scope == gov.SCOPE_REPOSITORY:
            return self.repository
        if self.owner is None:
            raise OwnerRootError(f"owner:{path} is read only when --owner-root is supplied", path=path)
        self.owner_used = True
        return self.owner

    def check_owner_used(self) -> None:
        """An owner root that no owner source used is rejected: a command never appears to consume it."""
        if self.owner is not None and not self.owner_used:
            raise OwnerRootError("--owner-root was supplied but no owner source was read through it")

    def absolute_forms(self) -> list[str]:
        """Every spelling of the roots that must never appear in a serialized artifact."""
        out: set[str] = set()
        for root in (self.repository, self.owner):
            if root is not None:
                out.update({str(root), str(Path(root).resolve())})
        return sorted(text for text in out if len(text) > 1)


def spec_config(repository: Path, spec_path: str) -> CorpusConfig:
    """The repository root's configuration with the artifact's canonical specification declared (a
    manifest may name it with ``--specification`` only when the root declares no ``[scan] specification``;
    naming another file is ``authority_invalid``, see :func:`gov.check_declared_specification`)."""
    config = load_config(repository)
    gov.check_declared_specification(config.specification, spec_path)
    return replace(config, specification=spec_path)


@dataclass(frozen=True)
class LabelRules:
    """What every re-observed source's labels are checked against: the repository root's configuration
    and the candidate's canonical specification digest (see :func:`gov.check_configured_labels`)."""

    config: CorpusConfig
    spec_sha256: str

    @classmethod
    def of(cls, repository: Path, spec_path: str, spec_sha256: str) -> LabelRules:
        return cls(spec_config(repository, spec_path), spec_sha256)

    def check(self, source: SourceRecord) -> None:
        gov.check_configured_labels(source, self.config, self.spec_sha256)


def over_limit(path: str, size: str, limit: int) -> LimitError:
    """A source larger than the read's ``limit``: past a limit (``limit_exceeded``, as the lifecycle says of
    a source it excludes for its size), never unreadable. ``size`` says how large it was found."""
    return LimitError(
        f"{path}: {size} bytes, over the limit of {limit} bytes ({limit // KIB} KiB) for one source",
        path=path,
        reason=REASON_SIZE,
        limit=limit,
    )


def _read_fd(fd: int, path: str, limit: int) -> bytes:
    before = os.fstat(fd)
    if not stat_module.S_ISREG(before.st_mode):
        raise SourceUnreadableError(f"{path}: not a regular file", path=path, reason=REASON_NOT_REGULAR)
    if before.st_nlink != 1:
        raise SourceUnreadableError(
            f"{path}: has {before.st_nlink} hard links", path=path, reason=REASON_HARD_LINK
        )
    if before.st_size > limit:
        raise over_limit(path, str(before.st_size), limit)
    data = read_upto(fd, limit + 1)
    after = os.fstat(fd)
    if len(data) > limit:
        raise over_limit(path, f"more than {limit}", limit)
    if not same_file(before, after) or len(data) != after.st_size:
        raise SourceUnreadableError(f"{path}: changed while it was read", path=path, reason=REASON_CHANGED)
    return data


def read_strict(root: Path, path: str, limit: int = MAX_SOURCE_BYTES) -> bytes:
    """The complete bytes of a regular, unlinked file ``path`` below ``root``: a ``LimitError`` when it is
    larger than ``limit`` bytes, a ``SourceError`` when it cannot be read otherwise."""
    root_fd = open_root(root)
    try:
        parts = split_portable(path)
        parent = open_parent(root_fd, parts)
        try:
            fd = os.open(parts[-1], LEAF_FLAGS, dir_fd=parent)
        except OSError as exc:
            raise source_error(refusal_from(exc), path) from None
        finally:
            os.close(parent)
        try:
            return _read_fd(fd, path, limit)
        finally:
            os.close(fd)
    except Refusal as refusal:
        raise source_error(refusal, path) from None
    except OSError as exc:
        raise source_error(refusal_from(exc), path) from None
    finally:
        os.close(root_fd)


def check_provenance(roots: Roots, source: SourceRecord) -> None:
    """Reread every provenance reference as a regular, unlinked, bounded file and check its digest."""
    for ref in source.provenance:
        _check_ref(roots, ref, source.locator.path)


def _check_ref(roots: Roots, ref: ProvenanceRef, owner_path: str) -> None:
    scope = gov.ref_scope(ref)
    try:
        data = read_strict(roots.root_for(scope, ref.locator_path), ref.locator_path)
    except LimitError as exc:
        raise LimitError(
            f"{owner_path}: provenance {scope}:{exc.message}",
            path=owner_path,
            reference=ref.locator_path,
            reason=REASON_SIZE,
            limit=exc.details["limit"],
        ) from None
    except SourceError as exc:
        raise ProvenanceError(
            f"{owner_path}: provenance {scope}:{ref.locator_path} cannot be reread ({exc.code})",
            path=owner_path,
            reference=ref.locator_path,
        ) from None
    if canonical.sha256_hex(data) != ref.sha256:
        raise ProvenanceError(
            f"{owner_path}: provenance {scope}:{ref.locator_path} no longer has its recorded digest",
            path=owner_path,
            reference=ref.locator_path,
        )


def _decode(data: bytes, path: str) -> str:
    try:
        return data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        raise SourceUnreadableError(
            f"{path}: not strict UTF-8 at byte {exc.start}", path=path, reason="encoding"
        ) from None


def _check_range(data: bytes, source: SourceRecord) -> None:
    start, end = source.locator.line_range
    total = count_lines(data)
    if not (1 <= start <= end + 1 and end <= total):
        raise SourceDriftError(
            f"{source.locator.path}: line range {start}-{end} is outside 1-{total}", path=source.locator.path
        )


def _check_immutable(data: bytes, source: SourceRecord) -> None:
    if source.freshness != gov.IMMUTABLE:
        return
    try:
        canonical.load(data)
    except CanonicalJSONError as exc:
        raise FreshnessError(
            f"{source.locator.path}: immutable source is not strict JSON ({exc.code})",
            path=source.locator.path,
            reason=exc.code,
        ) from None


def _read_source(roots: Roots, source: SourceRecord) -> bytes:
    """A source's bytes; one over ``MAX_SOURCE_BYTES`` is past a limit (``limit_exceeded``, as the total of all
    sources is), not unreadable: its reason is recorded as that code when it is excluded."""
    loc = source.locator
    return read_strict(roots.root_for(loc.root_scope, loc.path), loc.path)


def observe_source(roots: Roots, source: SourceRecord, rules: LabelRules) -> tuple[bytes, str]:
    """Re-observe one source: labels and a credential-free path (before any read), bytes, digest, strict
    UTF-8, range, immutable JSON and provenance."""
    loc = source.locator
    gov.check_path_secrets(loc.root_scope, loc.path)  # first: any later error would name the path raw
    rules.check(source)
    data = _read_source(roots, source)
    actual = canonical.sha256_hex(data)
    if actual != loc.sha256:
        raise SourceDriftError(f"{loc.root_scope}:{loc.path}: digest is now {actual}", path=loc.path)
    text = _decode(data, loc.path)
    _check_range(data, source)
    _check_immutable(data, source)
    check_provenance(roots, source)
    return data, text


def check_node_text(text: str, path: str, line_range: list[int], expected: str) -> None:
    """The selected line text must be exactly what the artifact recorded."""
    start, end = line_range
    try:
        actual = line_slice(text, start, end) if end >= start else ""
    except ProoftextError:
        actual = None
    if actual != expected:
        raise SourceDriftError(f"{path}: lines {start}-{end} differ from the recorded extract", path=path)


def observe_candidate(repository: Path, spec_path: str) -> CandidateIdentity:
    """Re-observe the explicit repository root: git HEAD, repository digest and specification digest."""
    return scan(repository, spec_config(repository, spec_path)).candidate


def require_candidate(expected: CandidateModel, repository: Path, spec_path: str) -> None:
    """Fail closed unless the repository root is exactly the expected CandidateIdentity."""
    observed = observe_candidate(repository, spec_path).to_dict()
    differing = sorted(key for key, value in expected.model_dump().items() if observed.get(key) != value)
    if differing:
        raise CandidateMismatchError(
            f"the repository is no longer the bound candidate ({', '.join(differing)} changed)",
            fields=differing,
        )
