"""Re-hash the sources a stored artifact names, read-only: ``fsck`` and ``context validate --repository-root``.

Every repository source an artifact lists (Manifest, Graph, Snapshot, Compaction) is reread strictly
(:func:`prooftext.artifacts.observe.read_strict`) and its digest compared with its locator's. When the
digest still holds, every node, extract and compacted digest of that source must hash to the lines it
claims: an artifact whose text was altered and re-identified is caught here, against the file itself.
Owner sources are read only through an owner root, which neither command takes: they are listed in
``skipped``, never passed over silently. Labels, provenance and the candidate are re-observed by the
publishing commands (``context snapshot``, ``compact``), not here.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import prooftext.artifacts.governance as gov
import prooftext.canonical as canonical
from prooftext.artifacts.fields import Envelope
from prooftext.artifacts.limits import MAX_TOTAL_SOURCE_BYTES
from prooftext.artifacts.models import (
    Compaction,
    Extract,
    ExtractDigest,
    Graph,
    GraphNode,
    GraphSource,
    ManifestSource,
    Snapshot,
)
from prooftext.artifacts.observe import REASON_HARD_LINK, read_strict
from prooftext.corpus.lines import LineText
from prooftext.corpus.model import REASON_NOT_REGULAR, REASON_SYMLINK
from prooftext.errors import LimitError, ProoftextError, SourceDriftError, SourceError, SourceMissingError

Claim = tuple[str, Sequence[int], str]
"""What an artifact says a source holds: (node id, line range, text digest)."""


STALE = "stale"
"""The source is missing or its digest changed since the artifact was made."""
ALTERED = "altered"
"""The source is as recorded, and the artifact's text is not what its lines hold."""
UNREADABLE = "unreadable"
"""The source cannot be read (an I/O error, or it changed while it was read). One larger than
:data:`READ_LIMIT` is past a limit (``limit_exceeded``) and :data:`STALE`: it cannot be what was recorded;
so is a path that now holds a link or something other than a regular file (:data:`NOT_ADOPTABLE`), as
``verify`` counts it."""
NOT_ADOPTABLE = frozenset({REASON_SYMLINK, REASON_NOT_REGULAR, REASON_HARD_LINK})


@dataclass(frozen=True)
class Finding:
    """One source that does not hold what the artifact says, and why (:data:`STALE`, :data:`ALTERED` or
    :data:`UNREADABLE`); ``error`` says what differs and names the path."""

    path: str
    error: ProoftextError
    cause: str

    @property
    def detail(self) -> str:
        """What differs, without the path the message starts with."""
        return self.error.message.removeprefix(f"{self.path}: ")


@dataclass
class Recheck:
    checked: int = 0
    skipped: list[str] = field(default_factory=list)
    """Owner sources, which need an owner root."""
    findings: list[Finding] = field(default_factory=list)


READ_LIMIT = MAX_TOTAL_SOURCE_BYTES
"""The most one source is read to re-hash it: a Manifest may name a source larger than the Graph adopts (up
to the scan's ``max_file_bytes``, at most 8 MiB); one larger than this cannot be what was recorded."""


@dataclass(frozen=True)
class _Read:
    sha256: str
    data: bytes | None
    """Kept only for a source whose lines are checked (a Graph adopts at most 8 MiB of them)."""


ReadError = SourceError | LimitError
"""Why a source could not be re-hashed: unreadable or missing, or larger than :data:`READ_LIMIT`."""
SourceCache = dict[str, "_Read | ReadError"]
"""Root-relative path → what reading it found: one read per file, however many artifacts name it."""


def _read(repository: Path, path: str, cache: SourceCache, keep: bool) -> _Read:
    found = cache.get(path)
    if found is None or (keep and isinstance(found, _Read) and found.data is None):
        try:
            data = read_strict(repository, path, READ_LIMIT)
            found = _Read(canonical.sha256_hex(data), data if keep else None)
        except (SourceError, LimitError) as exc:
            found = exc
        cache[path] = found
    if isinstance(found, (SourceError, LimitError)):
        raise found
    return found


def _claims(model: Envelope) -> dict[str, list[Claim]]:
    """Source id → every line range (with its text digest) the artifact claims in that source."""
    items: Sequence[GraphNode | Extract | ExtractDigest] = []
    if isinstance(model, Graph):
        items = model.nodes
    elif isinstance(model, Snapshot):
        items = model.extracts
    elif isinstance(model, Compaction):
        items = [*model.retained, *model.digests]
    out: dict[str, list[Claim]] = defaultdict(list)
    for item in items:
        out[item.source_id].append((item.node_id, item.line_range, item.text_sha256))
    return out


def _range_sha256(lines: LineText, line_range: Sequence[int]) -> str | None:
    start, end = line_range
    if not (1 <= start <= end + 1 and end <= lines.count):
        return None
    return canonical.sha256_hex((lines.slice(start, end) if end >= start else "").encode("utf-8"))


def _check_claims(data: bytes, path: str, claims: list[Claim]) -> Finding | None:
    """The first claim whose lines no longer hash to its digest (the file's digest holds, so the artifact's
    text is what differs)."""
    lines = LineText(data.decode("utf-8", errors="replace"))
    for node_id, line_range, text_sha256 in claims:
        if _range_sha256(lines, line_range) != text_sha256:
            start, end = line_range
            message = (
                f"{path}: lines {start}-{end} of the source do not hash to the text_sha256 recorded for"
                f" node {node_id[:16]}"
            )
            return Finding(path, SourceDriftError(message, path=path, node_id=node_id), ALTERED)
    return None


def _cause(exc: SourceError | LimitError) -> str:
    if isinstance(exc, (SourceMissingError, LimitError)) or exc.details.get("reason") in NOT_ADOPTABLE:
        return STALE
    return UNREADABLE


def _check_source(
    source: ManifestSource | GraphSource, claims: list[Claim], repository: Path, cache: SourceCache
) -> Finding | None:
    path = source.locator.path
    try:
        found = _read(repository, path, cache, keep=bool(claims))
    except (SourceError, LimitError) as exc:
        return Finding(path, exc, _cause(exc))
    if found.sha256 != source.locator.sha256:
        message = f"{path}: digest is now {found.sha256}, the artifact records {source.locator.sha256}"
        return Finding(path, SourceDriftError(message, path=path), STALE)
    return _check_claims(found.data, path, claims) if found.data is not None else None


def recheck_sources(model: Envelope, repository: Path, cache: SourceCache | None = None) -> Recheck:
    """Re-hash every repository source ``model`` names below ``repository`` (see the module docstring)."""
    result = Recheck()
    claims = _claims(model)
    cache = {} if cache is None else cache
    sources: list[ManifestSource | GraphSource] = list(getattr(model, "sources", []))
    for source in sources:
        if source.locator.root_scope != gov.SCOPE_REPOSITORY:
            result.skipped.append(source.locator.path)
            continue
        result.checked += 1
        source_claims = claims.get(source.source_id, []) if isinstance(source, GraphSource) else []
        finding = _check_source(source, source_claims, repository, cache)
        if finding is not None:
            result.findings.append(finding)
    return result
