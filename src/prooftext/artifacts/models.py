"""Typed models of the eight context artifacts; the shipped JSON Schemas are generated from these.

Every artifact is immutable canonical JSON with ``schema_version`` 1.0, an ``artifact_type`` and a full
content-addressed ``artifact_id`` (uppercase SHA-256 of the canonical content without the id). Models are
closed (no unknown fields) and strict (no coercion); semantic rules that span fields live in
:mod:`prooftext.artifacts.semantic`.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field

from prooftext.artifacts.fields import (
    ArtifactId,
    CandidateModel,
    Clearance,
    Count,
    Decision,
    Detail,
    EdgeType,
    Envelope,
    Label,
    LineRange,
    Name,
    NodeKind,
    NodeText,
    PortablePath,
    PositiveCount,
    ProvenanceType,
    ReasonCode,
    RootScope,
    SelectReason,
    Sha256,
    SourceKind,
    Strict,
    Timestamp,
    Unit,
)
from prooftext.artifacts.limits import (
    ARTIFACT_MAX_BYTES,
    BPS_WHOLE,
    MAX_CLAIM_LINKS,
    MAX_CLAIMS,
    MAX_LIST_ITEMS,
    MAX_PROVENANCE_REFS,
    MAX_QUERY_BYTES,
    MAX_QUERY_CHARS,
    MAX_QUERY_DEPTH,
    MAX_QUERY_EDGES,
    MAX_QUERY_NODES,
    MAX_TEXT_CHARS,
    MIN_QUERY_BYTES,
    MIN_QUERY_DEPTH,
    MIN_QUERY_EDGES,
    MIN_QUERY_NODES,
    UNREACHED_DISTANCE,
)
from prooftext.corpus.model import Authority, Freshness, Sensitivity


def _ceiling(artifact_type: str) -> ConfigDict:
    return ConfigDict(json_schema_extra={"x-max-canonical-bytes": ARTIFACT_MAX_BYTES[artifact_type]})


# --- sources -------------------------------------------------------------------------------------------


class Locator(Strict):
    root_scope: RootScope
    path: PortablePath
    sha256: Sha256
    line_range: LineRange


class ProvenanceRef(Strict):
    """A file that vouches for a source; it is reread and digest-checked. No scope means ``repository``."""

    type: ProvenanceType
    root_scope: RootScope | None = None
    locator_path: PortablePath
    sha256: Sha256


class ExpiryWindow(Strict):
    """``expires-at`` freshness: an explicit UTC observation and the interval it is valid for."""

    observed_at: Timestamp
    valid_from: Timestamp
    valid_until: Timestamp


ProvenanceList = Annotated[list[ProvenanceRef], Field(min_length=1, max_length=MAX_PROVENANCE_REFS)]


class ManifestSource(Strict):
    """A source as the Manifest names it; a missing sensitivity is read as ``owner-private``."""

    locator: Locator
    kind: SourceKind
    authority: Authority
    freshness: Freshness
    sensitivity: Sensitivity | None = None
    provenance: ProvenanceList
    bytes: Count
    required: bool = False
    expires: ExpiryWindow | None = None


class ManifestExclusion(Strict):
    path: Name
    reason: ReasonCode
    detail: Name


class Manifest(Envelope):
    model_config = _ceiling("manifest")
    artifact_type: Literal["manifest"]
    candidate: CandidateModel
    sources: Annotated[list[ManifestSource], Field(min_length=1, max_length=MAX_LIST_ITEMS)]
    excluded: Annotated[list[ManifestExclusion], Field(max_length=MAX_LIST_ITEMS)]


# --- graph ---------------------------------------------------------------------------------------------


class GraphSource(Strict):
    """An adopted source with its canonical identity (``source_id`` = content id of everything else)."""

    source_id: ArtifactId
    locator: Locator
    kind: SourceKind
    authority: Authority
    freshness: Freshness
    sensitivity: Sensitivity
    provenance: ProvenanceList
    bytes: Count
    required: bool
    expires: ExpiryWindow | None


class NodeTextFields(Strict):
    """What a graph node and a snapshot's extract both state: the node, its source and place, its exact text
    and digest, its labels, and whether it is required."""

    node_id: ArtifactId
    source_id: ArtifactId
    root_scope: RootScope
    path: PortablePath
    kind: NodeKind
    qualname: Name
    line_range: LineRange
    text: NodeText
    text_sha256: Sha256
    authority: Authority
    freshness: Freshness
    sensitivity: Sensitivity
    required: bool


class GraphNode(NodeTextFields):
    name: Name
    symbol_kind: Label
    language: Label


class GraphEdge(Strict):
    edge_id: ArtifactId
    type: EdgeType
    source: ArtifactId
    target: ArtifactId


class SourceExclusion(Strict):
    root_scope: RootScope
    path: PortablePath
    reason: ReasonCode
    detail: Detail


class NodeExclusion(Strict):
    source_id: ArtifactId
    kind: NodeKind
    qualname: Name
    line_range: LineRange
    reason: ReasonCode


class GraphLimits(Strict):
    max_source_bytes: PositiveCount
    max_total_source_bytes: PositiveCount
    max_text_chars: PositiveCount


class Graph(Envelope):
    model_config = _ceiling("graph")
    artifact_type: Literal["graph"]
    manifest_id: ArtifactId
    candidate: CandidateModel
    sensitivity: Sensitivity
    limits: GraphLimits
    sources: Annotated[list[GraphSource], Field(min_length=1, max_length=MAX_LIST_ITEMS)]
    nodes: Annotated[list[GraphNode], Field(min_length=1, max_length=MAX_LIST_ITEMS)]
    edges: Annotated[list[GraphEdge], Field(max_length=MAX_LIST_ITEMS)]
    excluded_sources: Annotated[list[SourceExclusion], Field(max_length=MAX_LIST_ITEMS)]
    excluded_nodes: Annotated[list[NodeExclusion], Field(max_length=MAX_LIST_ITEMS)]


# --- query and selection -------------------------------------------------------------------------------


class QueryLimits(Strict):
    max_bytes: Annotated[int, Field(ge=MIN_QUERY_BYTES, le=MAX_QUERY_BYTES)]
    max_nodes: Annotated[int, Field(ge=MIN_QUERY_NODES, le=MAX_QUERY_NODES)]
    max_edges: Annotated[int, Field(ge=MIN_QUERY_EDGES, le=MAX_QUERY_EDGES)]
    max_depth: Annotated[int, Field(ge=MIN_QUERY_DEPTH, le=MAX_QUERY_DEPTH)]


class Query(Envelope):
    # The wire form of prooftext.select.query.Query in bytes, bound to one Graph; prooftext.artifacts.query
    # converts both ways. (A docstring here would become the shipped schema's description.)
    model_config = _ceiling("query")
    artifact_type: Literal["query"]
    graph_id: ArtifactId
    candidate: CandidateModel
    text: Annotated[str, Field(min_length=1, max_length=MAX_QUERY_CHARS)]
    as_of: Timestamp | None
    clearance: Clearance
    unit: Unit
    limits: QueryLimits
    required: Annotated[list[ArtifactId], Field(max_length=MAX_QUERY_NODES)]


class RankComponents(Strict):
    """The ranking tuple, in order: phase, authority, graph distance, lexical score (desc), sensitivity, id."""

    phase: Literal["required", "traversal", "identifier", "lexical"]
    authority: Authority
    distance: Annotated[int, Field(ge=0, le=UNREACHED_DISTANCE)]
    lexical_score: Count
    sensitivity: Sensitivity


class SelectedNode(Strict):
    node_id: ArtifactId
    reason: SelectReason
    required: bool
    component_id: ArtifactId | None
    cost_bytes: PositiveCount
    rank: RankComponents


class SelectedEdge(Strict):
    edge_id: ArtifactId
    type: EdgeType
    required: bool
    cost_bytes: PositiveCount


class ExcludedCandidate(Strict):
    node_id: ArtifactId
    reason: ReasonCode
    component_id: ArtifactId | None
    cost_bytes: PositiveCount
    rank: RankComponents


class Component(Strict):
    """A contradiction-connected component: one atomic decision. Nothing here chooses a winner."""

    component_id: ArtifactId
    node_ids: Annotated[list[ArtifactId], Field(min_length=2, max_length=MAX_LIST_ITEMS)]
    edge_ids: Annotated[list[ArtifactId], Field(min_length=1, max_length=MAX_LIST_ITEMS)]
    required: bool


class Traversal(Strict):
    depth_limit: Annotated[int, Field(ge=MIN_QUERY_DEPTH, le=MAX_QUERY_DEPTH)]
    depth_reached: Annotated[int, Field(ge=0, le=MAX_QUERY_DEPTH)]
    visited_nodes: Count
    visited_edges: Count
    truncated: Literal[False]


class SelectionBudget(Strict):
    unit: Unit
    max_bytes: PositiveCount
    used_bytes: Count
    node_bytes: Count
    edge_bytes: Count
    max_nodes: PositiveCount
    max_edges: Count


class Selection(Envelope):
    model_config = _ceiling("selection")
    artifact_type: Literal["selection"]
    graph_id: ArtifactId
    candidate: CandidateModel
    query: Query
    as_of: Timestamp | None
    sensitivity: Sensitivity
    budget: SelectionBudget
    traversal: Traversal
    nodes: Annotated[list[SelectedNode], Field(min_length=1, max_length=MAX_QUERY_NODES)]
    edges: Annotated[list[SelectedEdge], Field(max_length=MAX_QUERY_EDGES)]
    excluded: Annotated[list[ExcludedCandidate], Field(max_length=MAX_LIST_ITEMS)]
    contradictions: Annotated[list[Component], Field(max_length=MAX_QUERY_NODES)]


# --- snapshot ------------------------------------------------------------------------------------------


class Extract(NodeTextFields):
    """A selected node's exact text, re-observed from its source through an explicit root."""

    reason: SelectReason
    component_id: ArtifactId | None
    cost_bytes: PositiveCount


class SnapshotEdge(Strict):
    edge_id: ArtifactId
    type: EdgeType
    source: ArtifactId
    target: ArtifactId
    required: bool
    cost_bytes: PositiveCount


class SnapshotExclusion(Strict):
    node_id: ArtifactId
    stage: Literal["selection", "observation"]
    reason: ReasonCode
    detail: Detail
    component_id: ArtifactId | None


class SnapshotBudget(Strict):
    unit: Unit
    max_bytes: PositiveCount
    used_bytes: Count


class Snapshot(Envelope):
    model_config = _ceiling("snapshot")
    artifact_type: Literal["snapshot"]
    graph_id: ArtifactId
    selection_id: ArtifactId
    candidate: CandidateModel
    query: Query
    as_of: Timestamp | None
    sensitivity: Sensitivity
    budget: SnapshotBudget
    traversal: Traversal
    sources: Annotated[list[GraphSource], Field(min_length=1, max_length=MAX_QUERY_NODES)]
    extracts: Annotated[list[Extract], Field(min_length=1, max_length=MAX_QUERY_NODES)]
    edges: Annotated[list[SnapshotEdge], Field(max_length=MAX_QUERY_EDGES)]
    excluded: Annotated[list[SnapshotExclusion], Field(max_length=MAX_LIST_ITEMS)]
    contradictions: Annotated[list[Component], Field(max_length=MAX_QUERY_NODES)]


# --- host summary proposal and compaction --------------------------------------------------------------


class ClaimLink(Strict):
    """A claim's evidence: a selected node and the exact digest of its extract text."""

    node_id: ArtifactId
    text_sha256: Sha256


class Claim(Strict):
    text: Annotated[str, Field(min_length=1, max_length=MAX_TEXT_CHARS)]
    decision: Decision
    links: Annotated[list[ClaimLink], Field(min_length=1, max_length=MAX_CLAIM_LINKS)]


class HostSummaryProposal(Envelope):
    model_config = _ceiling("host-summary-proposal")
    artifact_type: Literal["host-summary-proposal"]
    snapshot_id: ArtifactId
    candidate: CandidateModel
    authority: Literal["untrusted-proposal"]
    sensitivity: Sensitivity
    claims: Annotated[list[Claim], Field(min_length=1, max_length=MAX_CLAIMS)]


class ExtractDigest(Strict):
    """An extract compacted away: its identity, labels, digest and byte cost remain."""

    node_id: ArtifactId
    source_id: ArtifactId
    path: PortablePath
    line_range: LineRange
    authority: Authority
    sensitivity: Sensitivity
    text_sha256: Sha256
    cost_bytes: PositiveCount


class HostSummary(Strict):
    """An adopted proposal: always untrusted, never the sole authority for a decision."""

    proposal_id: ArtifactId
    authority: Literal["untrusted-proposal"]
    sensitivity: Sensitivity
    decision_authority: Literal[False]
    claims: Annotated[list[Claim], Field(min_length=1, max_length=MAX_CLAIMS)]


class CompactionBytes(Strict):
    unit: Unit
    snapshot_used_bytes: Count
    retained_cost_bytes: Count
    digest_cost_bytes: Count
    retained_text_bytes: Count


class Compaction(Envelope):
    model_config = _ceiling("compaction")
    artifact_type: Literal["compaction"]
    snapshot_id: ArtifactId
    graph_id: ArtifactId
    selection_id: ArtifactId
    candidate: CandidateModel
    sensitivity: Sensitivity
    bytes: CompactionBytes
    sources: Annotated[list[GraphSource], Field(min_length=1, max_length=MAX_QUERY_NODES)]
    retained: Annotated[list[Extract], Field(min_length=1, max_length=MAX_QUERY_NODES)]
    digests: Annotated[list[ExtractDigest], Field(max_length=MAX_QUERY_NODES)]
    contradictions: Annotated[list[Component], Field(max_length=MAX_QUERY_NODES)]
    host_summary: HostSummary | None


# --- quality report ------------------------------------------------------------------------------------


class RequiredRecall(Strict):
    required: Count
    included: Count
    bps: Annotated[int, Field(ge=0, le=BPS_WHOLE)]


class ProvenanceCounts(Strict):
    complete: Count
    missing: Count


class QualityReport(Envelope):
    """Exactly the seed's measurements; deliberately no aggregate score."""

    model_config = _ceiling("quality-report")
    artifact_type: Literal["quality-report"]
    graph_id: ArtifactId
    snapshot_id: ArtifactId
    candidate: CandidateModel
    sensitivity: Sensitivity
    required_reference_recall: RequiredRecall
    stale_required_count: Count
    provenance: ProvenanceCounts
    sensitivity_violations: Count
    selected_bytes: Count
    budget_bytes: PositiveCount
    redundant_bytes: Count
    selected_nodes: Count
    excluded_nodes: Count
    unresolved_contradictions: Count
    traversal_truncation: bool


ArtifactModel = (
    Manifest | Graph | Query | Selection | Snapshot | Compaction | HostSummaryProposal | QualityReport
)

MODELS: dict[str, type[Envelope]] = {
    "manifest": Manifest,
    "graph": Graph,
    "query": Query,
    "selection": Selection,
    "snapshot": Snapshot,
    "compaction": Compaction,
    "host-summary-proposal": HostSummaryProposal,
    "quality-report": QualityReport,
}
"""Artifact type → model, in lifecycle order."""

ARTIFACT_TYPES: tuple[str, ...] = tuple(MODELS)

QUALITY_FIELDS: tuple[str, ...] = (
    "required_reference_recall",
    "stale_required_count",
    "provenance",
    "sensitivity_violations",
    "selected_bytes",
    "budget_bytes",
    "redundant_bytes",
    "selected_nodes",
    "excluded_nodes",
    "unresolved_contradictions",
    "traversal_truncation",
)
"""The seed's quality measurements, in its order."""

__all__ = [
    "ARTIFACT_TYPES",
    "MAX_TEXT_CHARS",
    "MODELS",
    "QUALITY_FIELDS",
    "ArtifactModel",
    "Claim",
    "ClaimLink",
    "Compaction",
    "CompactionBytes",
    "Component",
    "ExcludedCandidate",
    "ExpiryWindow",
    "Extract",
    "ExtractDigest",
    "Graph",
    "GraphEdge",
    "GraphLimits",
    "GraphNode",
    "GraphSource",
    "HostSummary",
    "HostSummaryProposal",
    "Locator",
    "Manifest",
    "ManifestExclusion",
    "ManifestSource",
    "NodeExclusion",
    "ProvenanceRef",
    "QualityReport",
    "Query",
    "QueryLimits",
    "RankComponents",
    "SelectedEdge",
    "SelectedNode",
    "Selection",
    "SelectionBudget",
    "Snapshot",
    "SnapshotBudget",
    "SnapshotEdge",
    "SnapshotExclusion",
    "SourceExclusion",
    "Traversal",
]
