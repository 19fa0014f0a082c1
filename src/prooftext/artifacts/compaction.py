"""``context compact``: an extractive Compaction of a persisted Snapshot, re-observed before publication.

Order of work (context framework): strictly round-trip the complete in-memory Snapshot and optional
HostSummaryProposal; a pure preflight that recomputes every canonical source identity and rejects
duplicates, before any I/O; then candidate, labels (authority and sensitivity against the repository root's
configuration), source text, freshness and provenance re-observation through the explicit roots. Required and contradiction extracts keep their text; every other extract keeps its ids,
labels, text digest and byte cost. A merely rehashed or parser-bypassing artifact cannot authenticate
itself: every check reruns here. The adopted proposal stays ``untrusted-proposal`` with
``decision_authority`` false, and the Compaction's sensitivity is the maximum of the Snapshot and proposal.
"""

from __future__ import annotations

import copy
from collections import defaultdict
from typing import Any

import prooftext.artifacts.governance as gov
import prooftext.canonical as canonical
from prooftext.artifacts.fields import Envelope, artifact_head
from prooftext.artifacts.indexer import spec_source
from prooftext.artifacts.loader import dump, parse_value
from prooftext.artifacts.models import Extract, ExtractDigest, HostSummaryProposal, Snapshot
from prooftext.artifacts.observe import (
    LabelRules,
    Roots,
    check_node_text,
    observe_source,
    require_candidate,
)
from prooftext.artifacts.semantic import check_claims, check_semantics
from prooftext.errors import (
    ArtifactError,
    CandidateMismatchError,
    FreshnessError,
    SchemaViolationError,
    SensitivityError,
)

ARTIFACT_TYPE = "compaction"


def round_trip(model: Envelope) -> None:
    """The in-memory artifact must survive a full strict parse unchanged (no parser bypass)."""
    value = dump(model)
    again = parse_value(copy.deepcopy(value))
    if dump(again) != value or canonical.encode(dump(again)) != canonical.encode(value):
        raise SchemaViolationError(f"the {value.get('artifact_type')} does not round-trip strictly")


def _preflight_proposal(snapshot: Snapshot, proposal: HostSummaryProposal) -> None:
    if proposal.snapshot_id != snapshot.artifact_id:
        raise ArtifactError("the host summary proposal is for another snapshot", field="snapshot_id")
    if proposal.candidate != snapshot.candidate:
        raise CandidateMismatchError("the host summary proposal binds another candidate")
    known = {e.node_id: (e.text_sha256, e.authority) for e in snapshot.extracts}
    check_claims(proposal.claims, known)
    levels = {e.node_id: e.sensitivity for e in snapshot.extracts}
    linked = [levels[link.node_id] for claim in proposal.claims for link in claim.links]
    if gov.sensitivity_rank(proposal.sensitivity) < gov.sensitivity_rank(gov.highest_sensitivity(linked)):
        raise SensitivityError("a host summary cannot be less sensitive than the extracts it summarizes")


def preflight(snapshot: Snapshot, proposal: HostSummaryProposal | None) -> None:
    """Pure checks before any candidate or source I/O: identities, duplicates, links."""
    check_semantics(snapshot)
    if proposal is not None:
        check_semantics(proposal)
        _preflight_proposal(snapshot, proposal)


def _reobserve(snapshot: Snapshot, roots: Roots) -> None:
    """Candidate, labels, source text, freshness and provenance: any failure blocks the compaction."""
    spec_path = spec_source(snapshot.sources).locator.path
    require_candidate(snapshot.candidate, roots.repository, spec_path)
    rules = LabelRules.of(roots.repository, spec_path, snapshot.candidate.source_spec_sha256)
    by_source: dict[str, list[Extract]] = defaultdict(list)
    for extract in snapshot.extracts:
        by_source[extract.source_id].append(extract)
    for source in snapshot.sources:
        _data, text = observe_source(roots, source, rules)
        for extract in by_source[source.source_id]:
            check_node_text(text, extract.path, extract.line_range, extract.text)
    windows = {s.source_id: s.expires for s in snapshot.sources}
    for extract in snapshot.extracts:
        if gov.stale_reason(extract.freshness, windows[extract.source_id], snapshot.as_of) is not None:
            raise FreshnessError(f"{extract.path} is not fresh at as_of {snapshot.as_of}", path=extract.path)
    roots.check_owner_used()


def _digest(extract: Extract) -> dict[str, Any]:
    """An extract compacted away: exactly its fields that an :class:`ExtractDigest` keeps."""
    return extract.model_dump(mode="json", include=set(ExtractDigest.model_fields))


def _host_summary(proposal: HostSummaryProposal | None) -> dict[str, Any] | None:
    if proposal is None:
        return None
    return {
        "proposal_id": proposal.artifact_id,
        "authority": gov.UNTRUSTED_PROPOSAL,
        "sensitivity": proposal.sensitivity,
        "decision_authority": False,
        "claims": [c.model_dump(mode="json") for c in proposal.claims],
    }


def build_compaction(
    snapshot: Snapshot, proposal: HostSummaryProposal | None, roots: Roots
) -> dict[str, Any]:
    """The Compaction artifact (see the module docstring)."""
    round_trip(snapshot)
    if proposal is not None:
        round_trip(proposal)
    preflight(snapshot, proposal)
    _reobserve(snapshot, roots)
    return assemble_compaction(snapshot, _host_summary(proposal))


def assemble_compaction(snapshot: Snapshot, summary: dict[str, Any] | None) -> dict[str, Any]:
    """The Compaction of ``snapshot`` adopting the host ``summary`` (or none): pure, so a stored Compaction
    can be checked against its stored Snapshot without roots."""
    retained = [e for e in snapshot.extracts if e.required or e.component_id is not None]
    digested = [e for e in snapshot.extracts if not (e.required or e.component_id is not None)]
    levels = [snapshot.sensitivity] + ([summary["sensitivity"]] if summary else [])
    body = {
        **artifact_head(
            ARTIFACT_TYPE,
            snapshot.candidate,
            snapshot_id=snapshot.artifact_id,
            graph_id=snapshot.graph_id,
            selection_id=snapshot.selection_id,
        ),
        "sensitivity": gov.highest_sensitivity(levels),
        "bytes": {
            "unit": snapshot.budget.unit,
            "snapshot_used_bytes": snapshot.budget.used_bytes,
            "retained_cost_bytes": sum(e.cost_bytes for e in retained),
            "digest_cost_bytes": sum(e.cost_bytes for e in digested),
            "retained_text_bytes": sum(len(e.text.encode("utf-8")) for e in retained),
        },
        "sources": [s.model_dump(mode="json") for s in snapshot.sources],
        "retained": [e.model_dump(mode="json") for e in retained],
        "digests": [_digest(e) for e in digested],
        "contradictions": [c.model_dump(mode="json") for c in snapshot.contradictions],
        "host_summary": summary,
    }
    return canonical.with_artifact_id(body)
