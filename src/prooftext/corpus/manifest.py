"""The Manifest artifact: each adopted source with its locator and labels, each exclusion with its reason.

Canonical-JSON-ready (integers and strings only) and self-identifying: ``artifact_id`` is the content id of
everything else. Paths are portable and relative; the absolute root is never serialized. An empty source
has the line range ``[1, 0]`` (it starts at line 1 and holds no line).
"""

from __future__ import annotations

from typing import Any

from prooftext.canonical import with_artifact_id
from prooftext.corpus.model import CandidateIdentity, Exclusion, SourceFile

SCHEMA_VERSION = "1.0"
ARTIFACT_TYPE = "manifest"
ROOT_SCOPE_REPOSITORY = "repository"
PROVENANCE_SCAN = "scan"
FIRST_LINE = 1


def source_entry(source: SourceFile) -> dict[str, Any]:
    """The manifest entry of one adopted source; ``hardlinked`` marks content with more than one name."""
    entry: dict[str, Any] = {
        "locator": {
            "root_scope": ROOT_SCOPE_REPOSITORY,
            "path": source.path,
            "sha256": source.sha256,
            "line_range": [FIRST_LINE, source.line_count],
        },
        "kind": source.kind,
        "authority": source.labels.authority,
        "freshness": source.labels.freshness,
        "sensitivity": source.labels.sensitivity,
        "provenance": [{"type": PROVENANCE_SCAN, "locator_path": source.path, "sha256": source.sha256}],
        "bytes": source.size,
    }
    if source.links > 1:
        entry["hardlinked"] = True
    return entry


def build_manifest(
    sources: list[SourceFile], excluded: list[Exclusion], candidate: CandidateIdentity
) -> dict[str, Any]:
    """The Manifest artifact; sources sorted by path, exclusions by (path, reason)."""
    body: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "artifact_type": ARTIFACT_TYPE,
        "candidate": candidate.to_dict(),
        "sources": [source_entry(s) for s in sorted(sources, key=lambda s: s.path)],
        "excluded": [e.to_dict() for e in sorted(excluded, key=lambda e: (e.path, e.reason, e.detail))],
    }
    return with_artifact_id(body)
