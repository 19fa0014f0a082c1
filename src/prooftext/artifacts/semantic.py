"""Semantic checks of each artifact type: the rules that span fields, run after the schema and the model.

All checks are pure (no I/O). They recompute every nested id (sources, nodes, edges, components, embedded
queries), check ordering and uniqueness, line geometry and text digests, the authority, freshness and
sensitivity rules of :mod:`prooftext.artifacts.governance`, and the byte arithmetic of budgets.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import pairwise
from typing import Any, Protocol

import prooftext.artifacts.governance as gov
import prooftext.canonical as canonical
from prooftext.artifacts.fields import Envelope
from prooftext.artifacts.ids import EDGE_CONTRADICTS, component_id, cost_bytes, edge_value, model_id
from prooftext.artifacts.limits import BPS_WHOLE
from prooftext.artifacts.models import (
    Compaction,
    Component,
    Extract,
    ExtractDigest,
    Graph,
    GraphNode,
    GraphSource,
    HostSummary,
    HostSummaryProposal,
    Manifest,
    ManifestSource,
    QualityReport,
    Query,
    Selection,
    Snapshot,
)
from prooftext.corpus.lines import count_text_lines
from prooftext.errors import (
    ArtifactIdMismatchError,
    AuthorityError,
    EmptyQueryError,
    SchemaViolationError,
    SensitivityError,
)
from prooftext.graph.extract import extract as extract_file
from prooftext.graph.resolve import PathIndex
from prooftext.text import ascii_tokens

NODE_FILE = "file"


def _violation(message: str, **details: Any) -> SchemaViolationError:
    return SchemaViolationError(message, **details)


def strictly_increasing(keys: Sequence[Any], what: str) -> None:
    for before, after in pairwise(keys):
        if not before < after:
            raise _violation(f"{what} must be sorted and unique", field=what)


def unique(values: Iterable[str], what: str) -> None:
    seen: set[str] = set()
    for value in values:
        if value in seen:
            raise _violation(f"duplicate {what}: {value[:80]}", field=what)
        seen.add(value)


def _check_id(recorded: str, recomputed: str, what: str) -> None:
    if recorded != recomputed:
        raise ArtifactIdMismatchError(
            f"{what} id does not match its content", recorded=recorded, recomputed=recomputed
        )


def check_line_range(line_range: list[int], what: str) -> None:
    start, end = line_range
    if not 1 <= start <= end + 1:
        raise _violation(f"{what}: line range {start}-{end} is not 1-based and inclusive", field="line_range")


def check_text(text: str, text_sha256: str, line_range: list[int], what: str) -> None:
    """Exact text of a 1-based inclusive range: its digest and its number of lines."""
    check_line_range(line_range, what)
    if canonical.sha256_hex(text.encode("utf-8")) != text_sha256:
        raise _violation(f"{what}: text does not match text_sha256", field="text_sha256")
    start, end = line_range
    if count_text_lines(text) != end - start + 1:
        raise _violation(f"{what}: text does not span lines {start}-{end}", field="text")


# --- sources -------------------------------------------------------------------------------------------


def _source_key(source: ManifestSource | GraphSource) -> tuple[str, str]:
    return (source.locator.root_scope, source.locator.path)


def _check_specification(sources: Sequence[ManifestSource | GraphSource], spec_sha256: str) -> None:
    specs = [s for s in sources if s.authority == gov.CANONICAL_SPECIFICATION]
    if len(specs) != 1 or specs[0].locator.root_scope != gov.SCOPE_REPOSITORY:
        raise AuthorityError(
            f"exactly one repository {gov.CANONICAL_SPECIFICATION} is required, found {len(specs)}"
        )
    if specs[0].locator.sha256 != spec_sha256:
        raise AuthorityError("the canonical specification's digest is not the candidate's source_spec_sha256")


def _check_source_rules(source: ManifestSource | GraphSource, spec_sha256: str) -> None:
    check_line_range(source.locator.line_range, source.locator.path)
    gov.check_authority(source, spec_sha256)
    gov.check_freshness_declaration(source)


def check_graph_sources(sources: Sequence[GraphSource], what: str) -> dict[str, GraphSource]:
    """Sorted, unique, self-identifying sources without secret text; returns them by id."""
    strictly_increasing([_source_key(s) for s in sources], f"{what}.sources")
    out: dict[str, GraphSource] = {}
    for source in sources:
        _check_id(source.source_id, model_id(source, "source_id"), f"source {source.locator.path}")
        gov.check_sensitivity(source.locator.root_scope, source.locator.path, source.sensitivity)
        out[source.source_id] = source
    return out


def _manifest(m: Manifest) -> None:
    strictly_increasing([_source_key(s) for s in m.sources], "sources")
    strictly_increasing([(x.path, x.reason, x.detail) for x in m.excluded], "excluded")
    spec = m.candidate.source_spec_sha256
    _check_specification(m.sources, spec)
    for source in m.sources:
        _check_source_rules(source, spec)


# --- graph ---------------------------------------------------------------------------------------------


def _carried_source(item: GraphNode | Extract, source: GraphSource | None, what: str) -> GraphSource:
    """The source a node or an extract names, after checking that it exists, that the item carries its
    locator and labels, and that the item's text matches its digest."""
    if source is None:
        raise _violation(f"{what} {item.node_id[:12]} names an unknown source", field="source_id")
    same = (item.root_scope, item.path, item.authority, item.freshness, item.sensitivity) == (
        source.locator.root_scope,
        source.locator.path,
        source.authority,
        source.freshness,
        source.sensitivity,
    )
    if not same:
        raise _violation(f"{what} {item.node_id[:12]} does not carry its source's locator and labels")
    check_text(item.text, item.text_sha256, item.line_range, item.path)
    return source


def _check_node(node: GraphNode, source: GraphSource | None) -> None:
    _check_id(node.node_id, model_id(node, "node_id"), f"node {node.path}")
    source = _carried_source(node, source, "node")
    low, high = source.locator.line_range
    if node.line_range[0] < low or node.line_range[1] > high:
        raise _violation(f"node {node.node_id[:12]} lies outside its source's line range")
    if node.required and not (node.kind == NODE_FILE and source.required):
        raise _violation(f"node {node.node_id[:12]}: only the file node of a required source is required")


def _check_required_sources(g: Graph, sources: dict[str, GraphSource]) -> None:
    required_files = {n.source_id for n in g.nodes if n.required}
    for source in sources.values():
        if source.authority == gov.CANONICAL_SPECIFICATION and not source.required:
            raise _violation("the canonical specification must be a required source")
        if source.required and source.source_id not in required_files:
            raise _violation(f"required source {source.locator.path} has no required file node")


def check_edges(edges: Sequence[Any], node_ids: set[str], what: str) -> None:
    """Sorted unique edges whose ids recompute and whose endpoints exist; contradicts endpoints sorted."""
    strictly_increasing([e.edge_id for e in edges], f"{what}.edges")
    for edge in edges:
        expected = edge_value(edge.type, edge.source, edge.target)
        _check_id(edge.edge_id, expected["edge_id"], "edge")
        if edge.type == EDGE_CONTRADICTS and edge.source > edge.target:
            raise _violation("contradicts endpoints must be sorted", field="edges")
        if edge.source == edge.target or edge.source not in node_ids or edge.target not in node_ids:
            raise _violation(f"edge {edge.edge_id[:12]} does not join two known nodes", field="edges")


def _declared_contradictions(g: Graph) -> set[str]:
    """The ids of the contradicts edges the Graph's file nodes declare in their front matter, resolved as
    indexing resolves them: among the sources of the declaring file's own root scope."""
    paths: dict[str, set[str]] = {}
    for source in g.sources:
        paths.setdefault(source.locator.root_scope, set()).add(source.locator.path)
    files = {(n.root_scope, n.path): n for n in g.nodes if n.kind == NODE_FILE}
    indexes = {scope: PathIndex(scope_paths) for scope, scope_paths in paths.items()}
    out: set[str] = set()
    for (scope, path), node in files.items():
        if not node.text.startswith("---"):
            continue  # front matter opens the file
        for declared in extract_file(path, node.text).contradicts:
            other = files.get((scope, indexes[scope].resolve_declared(path, declared) or ""))
            if other is not None and other.node_id != node.node_id:
                out.add(edge_value(EDGE_CONTRADICTS, node.node_id, other.node_id)["edge_id"])
    return out


def _check_contradictions(g: Graph) -> None:
    recorded = {e.edge_id for e in g.edges if e.type == EDGE_CONTRADICTS}
    if recorded != _declared_contradictions(g):
        raise _violation(
            "the graph's contradicts edges are not the ones its documents' front matter declares",
            field="edges",
        )


def _graph(g: Graph) -> None:
    spec = g.candidate.source_spec_sha256
    sources = check_graph_sources(g.sources, "graph")
    for source in sources.values():
        _check_source_rules(source, spec)
    _check_specification(g.sources, spec)
    expected = gov.highest_sensitivity(s.sensitivity for s in g.sources)
    if g.sensitivity != expected:
        raise SensitivityError(f"graph sensitivity must be the highest included level, {expected}")
    strictly_increasing([n.node_id for n in g.nodes], "graph.nodes")
    for node in g.nodes:
        _check_node(node, sources.get(node.source_id))
    _check_required_sources(g, sources)
    check_edges(g.edges, {n.node_id for n in g.nodes}, "graph")
    _check_contradictions(g)


# --- query and selection -------------------------------------------------------------------------------


def _query(q: Query) -> None:
    strictly_increasing(q.required, "required")
    gov.check_caller_text("text", q.text)
    if not ascii_tokens(q.text):
        raise EmptyQueryError("query must contain at least one searchable token", field="text")
    if q.as_of is not None:
        gov.parse_timestamp(q.as_of)


def check_embedded_query(q: Query, candidate: Any, as_of: str | None) -> None:
    _check_id(q.artifact_id, canonical.artifact_id(q.model_dump(mode="json")), "embedded query")
    _query(q)
    if candidate != q.candidate or as_of != q.as_of:
        raise _violation("candidate and as_of must equal the embedded query's", field="query")


class Member(Protocol):
    """A selected node or an extract, as a contradiction component sees it."""

    @property
    def node_id(self) -> str: ...
    @property
    def component_id(self) -> str | None: ...
    @property
    def required(self) -> bool: ...


def check_components(components: Sequence[Component], members: Sequence[Member]) -> None:
    """Sorted components whose ids recompute, each included whole, each member naming it, and required when a
    member is; every component a member names is listed, so no contradiction can be dropped from the list."""
    by_id = {m.node_id: m for m in members}
    strictly_increasing([c.component_id for c in components], "contradictions")
    for comp in components:
        strictly_increasing(comp.node_ids, "contradictions.node_ids")
        strictly_increasing(comp.edge_ids, "contradictions.edge_ids")
        _check_id(comp.component_id, component_id(comp.node_ids, comp.edge_ids), "contradiction component")
        if not set(comp.node_ids) <= set(by_id):
            raise _violation("a contradiction component is only partly included", field="contradictions")
        if any(by_id[n].component_id != comp.component_id for n in comp.node_ids):
            raise _violation("a contradiction member does not name its component", field="contradictions")
        if comp.required != any(by_id[n].required for n in comp.node_ids):
            raise _violation("a contradiction component is required exactly when a member is")
    named = {m.component_id for m in members if m.component_id is not None}
    if not named <= {c.component_id for c in components}:
        raise _violation("a contradiction component a member names is not listed", field="contradictions")


def _check_clearance(levels: Iterable[str], clearance: str) -> None:
    for level in levels:
        if gov.sensitivity_rank(level) > gov.sensitivity_rank(clearance):
            raise SensitivityError(f"an included node is {level}, above the clearance {clearance}")


def _selection_budget(s: Selection) -> None:
    b, limits = s.budget, s.query.limits
    node_bytes = sum(n.cost_bytes for n in s.nodes)
    edge_bytes = sum(e.cost_bytes for e in s.edges)
    exact = (b.node_bytes, b.edge_bytes, b.used_bytes) == (node_bytes, edge_bytes, node_bytes + edge_bytes)
    limits_copied = (b.max_bytes, b.max_nodes, b.max_edges) == (
        limits.max_bytes,
        limits.max_nodes,
        limits.max_edges,
    )
    within = b.used_bytes <= b.max_bytes and len(s.nodes) <= b.max_nodes and len(s.edges) <= b.max_edges
    if not (exact and limits_copied and within):
        raise _violation("selection budget does not add up to its node and edge costs within its limits")


def _selection(s: Selection) -> None:
    check_embedded_query(s.query, s.candidate, s.as_of)
    if s.graph_id != s.query.graph_id or s.traversal.depth_limit != s.query.limits.max_depth:
        raise _violation("selection must be bound to its query's graph and depth", field="graph_id")
    unique([n.node_id for n in s.nodes] + [x.node_id for x in s.excluded], "node_id")
    unique([e.edge_id for e in s.edges], "edge_id")
    _selection_budget(s)
    levels = [n.rank.sensitivity for n in s.nodes]
    _check_clearance(levels, s.query.clearance)
    if s.sensitivity != gov.highest_sensitivity(levels):
        raise SensitivityError("selection sensitivity must equal the highest selected level")
    required = {n.node_id for n in s.nodes if n.required}
    if not set(s.query.required) <= required:
        raise _violation("every required reference of the query must be selected as required")
    check_components(s.contradictions, s.nodes)


# --- snapshot and compaction ---------------------------------------------------------------------------


def check_digest(digest: ExtractDigest, source: GraphSource | None) -> None:
    """A compacted-away extract keeps its source's path and labels: a digest cannot relabel its text."""
    if source is None:
        raise _violation(f"digest {digest.node_id[:12]} names an unknown source", field="source_id")
    same = (digest.path, digest.authority, digest.sensitivity) == (
        source.locator.path,
        source.authority,
        source.sensitivity,
    )
    if not same:
        raise _violation(f"digest {digest.node_id[:12]} does not carry its source's path and labels")
    check_line_range(digest.line_range, digest.path)


def check_used_sources(sources: dict[str, GraphSource], used: set[str], what: str) -> None:
    if set(sources) != used:
        raise _violation(f"{what} must list exactly the sources of its extracts", field="sources")


def _check_derived_sources(
    sources: Sequence[GraphSource], spec_sha256: str, what: str
) -> dict[str, GraphSource]:
    """The sources a Snapshot or Compaction carries obey the same structural rules as the Graph's: the one
    canonical specification (always required, so always included) and each source's authority rules."""
    by_id = check_graph_sources(sources, what)
    _check_specification(sources, spec_sha256)
    for source in sources:
        _check_source_rules(source, spec_sha256)
    return by_id


def _check_required_extracts(
    extracts: Sequence[Extract], sources: dict[str, GraphSource], query_required: Iterable[str], what: str
) -> None:
    """Required context is never dropped: the selector allocates it first and a failed observation of it
    blocks. So every required source keeps its required file extract and every required reference of the
    query is a required extract; an artifact missing one is not what its selection produced."""
    required = {e.node_id for e in extracts if e.required}
    files = {e.source_id for e in extracts if e.required and e.kind == NODE_FILE}
    for source in sources.values():
        if source.required and source.source_id not in files:
            raise _violation(f"{what}: required source {source.locator.path} has no required file extract")
    if not set(query_required) <= required:
        raise _violation(f"{what}: every required reference of the query must be a required extract")


def _check_snapshot_edges(s: Snapshot, node_ids: set[str]) -> None:
    """Snapshot edges keep the selection's order, so they are not sorted; each id and byte cost is
    recomputed from the edge's type and endpoints, as in the Graph."""
    unique([e.edge_id for e in s.edges], "edge_id")
    for edge in s.edges:
        expected = edge_value(edge.type, edge.source, edge.target)
        _check_id(edge.edge_id, expected["edge_id"], "snapshot edge")
        if edge.type == EDGE_CONTRADICTS and edge.source > edge.target:
            raise _violation("contradicts endpoints must be sorted", field="edges")
        if edge.source == edge.target or edge.source not in node_ids or edge.target not in node_ids:
            raise _violation("snapshot edges must join included extracts", field="edges")
        if edge.cost_bytes != cost_bytes(expected):
            raise _violation(f"edge {edge.edge_id[:12]}: cost_bytes is not its canonical size", field="edges")


def _snapshot(s: Snapshot) -> None:
    check_embedded_query(s.query, s.candidate, s.as_of)
    sources = _check_derived_sources(s.sources, s.candidate.source_spec_sha256, "snapshot")
    unique([e.node_id for e in s.extracts] + [x.node_id for x in s.excluded], "node_id")
    for extract in s.extracts:
        _carried_source(extract, sources.get(extract.source_id), "extract")
    check_used_sources(sources, {e.source_id for e in s.extracts}, "snapshot")
    _check_required_extracts(s.extracts, sources, s.query.required, "snapshot")
    levels = [e.sensitivity for e in s.extracts]
    _check_clearance(levels, s.query.clearance)
    if gov.sensitivity_rank(s.sensitivity) < gov.sensitivity_rank(gov.highest_sensitivity(levels)):
        raise SensitivityError("snapshot sensitivity cannot be lower than its highest extract")
    node_ids = {e.node_id for e in s.extracts}
    _check_snapshot_edges(s, node_ids)
    used = sum(e.cost_bytes for e in s.extracts) + sum(e.cost_bytes for e in s.edges)
    b = s.budget
    if (b.used_bytes, b.max_bytes) != (used, s.query.limits.max_bytes) or used > b.max_bytes:
        raise _violation("snapshot byte use must be the exact sum of its extract and edge costs")
    check_components(s.contradictions, s.extracts)


def check_claims(claims: Sequence[Any], extracts: Mapping[str, tuple[str, str]]) -> None:
    """Every claim links selected nodes by exact extract digest, and a decision never rests on untrusted
    text alone. ``extracts`` maps node id → (text digest, authority)."""
    for index, claim in enumerate(claims):
        unique([link.node_id for link in claim.links], f"claims[{index}].links")
        backing: list[str] = []
        for link in claim.links:
            known = extracts.get(link.node_id)
            if known is None or known[0] != link.text_sha256:
                raise _violation(f"claims[{index}] links a node or digest that is not a selected extract")
            backing.append(known[1])
        if claim.decision != "none" and all(a in gov.UNTRUSTED for a in backing):
            raise AuthorityError(
                f"claims[{index}]: a {claim.decision} decision cannot rest on untrusted text alone",
                field=f"claims[{index}]",
            )


def _compaction_bytes(c: Compaction) -> None:
    b = c.bytes
    retained = sum(e.cost_bytes for e in c.retained)
    digests = sum(d.cost_bytes for d in c.digests)
    text = sum(len(e.text.encode("utf-8")) for e in c.retained)
    if (b.retained_cost_bytes, b.digest_cost_bytes, b.retained_text_bytes) != (retained, digests, text):
        raise _violation("compaction byte use must be exact")
    if b.snapshot_used_bytes < retained + digests:
        raise _violation("compaction cannot account for more bytes than its snapshot used")


def _check_adopted_summary(c: Compaction, summary: HostSummary) -> None:
    """An adopted summary is the proposal it names: that proposal's id recomputes from the claims and
    labels the Compaction carries, so no claim can be edited, added or relabelled after adoption."""
    proposal = {
        "schema_version": c.schema_version,
        "artifact_type": "host-summary-proposal",
        "snapshot_id": c.snapshot_id,
        "candidate": c.candidate.model_dump(mode="json"),
        "authority": summary.authority,
        "sensitivity": summary.sensitivity,
        "claims": [claim.model_dump(mode="json") for claim in summary.claims],
    }
    _check_id(summary.proposal_id, canonical.artifact_id(proposal), "adopted host summary proposal")


def _compaction(c: Compaction) -> None:
    sources = _check_derived_sources(c.sources, c.candidate.source_spec_sha256, "compaction")
    unique([e.node_id for e in c.retained] + [d.node_id for d in c.digests], "node_id")
    for extract in c.retained:
        _carried_source(extract, sources.get(extract.source_id), "extract")
        if not extract.required and extract.component_id is None:
            raise _violation("only required and contradiction extracts are retained with text")
    for digest in c.digests:
        check_digest(digest, sources.get(digest.source_id))
    _check_required_extracts(c.retained, sources, (), "compaction")
    check_used_sources(
        sources, {e.source_id for e in c.retained} | {d.source_id for d in c.digests}, "compaction"
    )
    _compaction_bytes(c)
    levels = [e.sensitivity for e in c.retained] + [d.sensitivity for d in c.digests]
    if c.host_summary is not None:
        _check_adopted_summary(c, c.host_summary)
        levels.append(c.host_summary.sensitivity)
        known = {e.node_id: (e.text_sha256, e.authority) for e in c.retained}
        known.update({d.node_id: (d.text_sha256, d.authority) for d in c.digests})
        check_claims(c.host_summary.claims, known)
    if gov.sensitivity_rank(c.sensitivity) < gov.sensitivity_rank(gov.highest_sensitivity(levels)):
        raise SensitivityError("compaction sensitivity cannot be lower than anything it includes")
    check_components(c.contradictions, c.retained)


def _proposal(p: HostSummaryProposal) -> None:
    if p.sensitivity == gov.SECRET:
        raise SensitivityError(f"a host summary proposal cannot carry {gov.SECRET} text")
    for index, claim in enumerate(p.claims):
        unique([link.node_id for link in claim.links], f"claims[{index}].links")
        gov.check_caller_text(f"claims[{index}].text", claim.text)


def _quality(r: QualityReport) -> None:
    recall = r.required_reference_recall
    expected = recall.included * BPS_WHOLE // recall.required if recall.required else BPS_WHOLE
    if recall.included > recall.required or recall.bps != expected:
        raise _violation("required_reference_recall is inconsistent", field="required_reference_recall")
    if r.sensitivity == gov.SECRET:
        raise SensitivityError(f"a quality report cannot be {gov.SECRET}")


_CHECKS: dict[type[Envelope], Callable[[Any], None]] = {
    Manifest: _manifest,
    Graph: _graph,
    Query: _query,
    Selection: _selection,
    Snapshot: _snapshot,
    Compaction: _compaction,
    HostSummaryProposal: _proposal,
    QualityReport: _quality,
}


def check_semantics(model: Envelope) -> None:
    """Run the semantic rules of the model's artifact type (raises the rule's own error)."""
    _CHECKS[type(model)](model)
