"""``context snapshot``: re-observe a Selection through explicit roots and record the exact extracts.

The Selection must be exactly what the production selector produces for its Graph and embedded Query (it is
recreated and rerun, and the canonical bytes compared). The repository root must still be the bound
candidate, every selected source's authority and sensitivity must be what the root's configuration allows
(a rehashed Graph cannot relabel a source), and every selected source is reread: digest, strict UTF-8, selected line text, freshness and
provenance. A failing required node or required contradiction component blocks; a failing optional node
is recorded in ``excluded``, and a failing member of an optional contradiction component excludes the
whole component atomically. Every unresolved contradiction that remains is recorded; none is resolved.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import prooftext.canonical as canonical
from prooftext.artifacts import governance as gov
from prooftext.artifacts.fields import CandidateModel, artifact_head
from prooftext.artifacts.indexer import ADOPTION_ERRORS, spec_source
from prooftext.artifacts.limits import shortened_detail
from prooftext.artifacts.loader import dump
from prooftext.artifacts.models import (
    Graph,
    GraphNode,
    GraphSource,
    SelectedNode,
    Selection,
    Snapshot,
    SnapshotExclusion,
)
from prooftext.artifacts.observe import (
    LabelRules,
    Roots,
    check_node_text,
    observe_source,
    require_candidate,
)
from prooftext.artifacts.selector import select
from prooftext.artifacts.view import GraphView
from prooftext.corpus.secrets import redact_path
from prooftext.errors import ArtifactError, OwnerRootError, ProoftextError, SelectionMismatchError

ARTIFACT_TYPE = "snapshot"
STAGE_SELECTION = "selection"
STAGE_OBSERVATION = "observation"
REASON_COMPONENT = "contradiction_component"


def replay_selection(graph: Graph, selection: Selection, view: GraphView | None = None) -> None:
    """Recreate the Query, rerun the production selector, and require byte equality."""
    if selection.graph_id != graph.artifact_id:
        raise ArtifactError("the selection was made from another graph", field="graph_id")
    rerun = select(graph, selection.query, view)
    if canonical.encode(rerun) != canonical.encode(dump(selection)):
        raise SelectionMismatchError(
            "the selection is not the deterministic output of its graph and query",
            expected=rerun["artifact_id"],
            supplied=selection.artifact_id,
        )


def _require_owner_root(view: GraphView, nodes: list[SelectedNode], roots: Roots) -> None:
    """Owner sources are read only through an explicit owner root: selecting one without it fails closed."""
    owner = [view.nodes[e.node_id].path for e in nodes if view.nodes[e.node_id].root_scope == gov.SCOPE_OWNER]
    if owner and roots.owner is None:
        raise OwnerRootError(f"the selection includes owner:{owner[0]}; supply --owner-root", path=owner[0])


def _observe(
    view: GraphView, nodes: list[SelectedNode], roots: Roots, rules: LabelRules
) -> dict[str, ProoftextError]:
    """Reread every selected source once; node id → the error that makes it unusable."""
    _require_owner_root(view, nodes, roots)
    by_source: dict[str, list[GraphNode]] = defaultdict(list)
    for entry in nodes:
        node = view.nodes[entry.node_id]
        by_source[node.source_id].append(node)
    failures: dict[str, ProoftextError] = {}
    for source_id in sorted(
        by_source, key=lambda s: (view.sources[s].locator.root_scope, view.sources[s].locator.path)
    ):
        members = by_source[source_id]
        try:
            _data, text = observe_source(roots, view.sources[source_id], rules)
        except ADOPTION_ERRORS as exc:
            failures.update(dict.fromkeys((n.node_id for n in members), exc))
            continue
        for node in members:
            try:
                check_node_text(text, node.path, node.line_range, node.text)
            except ADOPTION_ERRORS as exc:
                failures[node.node_id] = exc
    return failures


def _observation_exclusions(
    selection: Selection, failures: dict[str, ProoftextError]
) -> dict[str, dict[str, Any]]:
    """Blocks on a failed required node; otherwise node id → exclusion, components excluded whole."""
    for entry in selection.nodes:
        if entry.required and entry.node_id in failures:
            raise failures[entry.node_id]
    failed_components = {e.component_id for e in selection.nodes if e.node_id in failures and e.component_id}
    out: dict[str, dict[str, Any]] = {}
    for entry in selection.nodes:
        error = failures.get(entry.node_id)
        if error is None and entry.component_id not in failed_components:
            continue
        if error is None:
            reason, detail = REASON_COMPONENT, ""
        else:  # the message names the source's path: redacted, like every exclusion record
            reason, detail = error.code, shortened_detail(redact_path(error.message))
        out[entry.node_id] = {
            "node_id": entry.node_id,
            "stage": STAGE_OBSERVATION,
            "reason": reason,
            "detail": detail,
            "component_id": entry.component_id,
        }
    return out


def _extract(node: GraphNode, entry: SelectedNode) -> dict[str, Any]:
    return {
        "node_id": node.node_id,
        "source_id": node.source_id,
        "root_scope": node.root_scope,
        "path": node.path,
        "kind": node.kind,
        "qualname": node.qualname,
        "line_range": list(node.line_range),
        "text": node.text,
        "text_sha256": node.text_sha256,
        "authority": node.authority,
        "freshness": node.freshness,
        "sensitivity": node.sensitivity,
        "required": entry.required,
        "reason": entry.reason,
        "component_id": entry.component_id,
        "cost_bytes": entry.cost_bytes,
    }


def _edges(view: GraphView, selection: Selection, kept: set[str]) -> list[dict[str, Any]]:
    out = []
    for entry in selection.edges:
        kind, source, target = view.edge_ends[entry.edge_id]
        if source in kept and target in kept:
            out.append(
                {
                    "edge_id": entry.edge_id,
                    "type": kind,
                    "source": source,
                    "target": target,
                    "required": entry.required,
                    "cost_bytes": entry.cost_bytes,
                }
            )
    return out


def _sources(view: GraphView, extracts: list[dict[str, Any]]) -> list[GraphSource]:
    used = {e["source_id"] for e in extracts}
    return sorted((view.sources[s] for s in used), key=lambda s: (s.locator.root_scope, s.locator.path))


def _selection_exclusions(selection: Selection) -> list[dict[str, Any]]:
    return [
        {
            "node_id": x.node_id,
            "stage": STAGE_SELECTION,
            "reason": x.reason,
            "detail": "",
            "component_id": x.component_id,
        }
        for x in selection.excluded
    ]


def build_snapshot(graph: Graph, selection: Selection, roots: Roots) -> dict[str, Any]:
    """The Snapshot artifact (see the module docstring); raises on anything that blocks publication."""
    view = GraphView.of(graph)
    replay_selection(graph, selection, view)
    spec_path = spec_source(graph.sources).locator.path
    require_candidate(selection.candidate, roots.repository, spec_path)
    rules = LabelRules.of(roots.repository, spec_path, selection.candidate.source_spec_sha256)
    failures = _observe(view, selection.nodes, roots, rules)
    dropped = _observation_exclusions(selection, failures)
    roots.check_owner_used()
    return assemble_snapshot(graph, selection, dropped, view)


def assemble_snapshot(
    graph: Graph, selection: Selection, dropped: dict[str, dict[str, Any]], view: GraphView | None = None
) -> dict[str, Any]:
    """The Snapshot of a replayed ``selection`` once the ``dropped`` observation exclusions (node id →
    exclusion) are removed: pure, so a Snapshot can be checked against its selection without roots."""
    view = view or GraphView.of(graph)
    extracts = [_extract(view.nodes[e.node_id], e) for e in selection.nodes if e.node_id not in dropped]
    kept = {e["node_id"] for e in extracts}
    edges = _edges(view, selection, kept)
    used = sum(e["cost_bytes"] for e in extracts) + sum(e["cost_bytes"] for e in edges)
    body = {
        **artifact_head(
            ARTIFACT_TYPE, selection.candidate, graph_id=graph.artifact_id, selection_id=selection.artifact_id
        ),
        "query": selection.query.model_dump(mode="json"),
        "as_of": selection.as_of,
        "sensitivity": gov.highest_sensitivity((e["sensitivity"] for e in extracts), selection.sensitivity),
        "budget": {
            "unit": selection.budget.unit,
            "max_bytes": selection.budget.max_bytes,
            "used_bytes": used,
        },
        "traversal": selection.traversal.model_dump(mode="json"),
        "sources": [s.model_dump(mode="json") for s in _sources(view, extracts)],
        "extracts": extracts,
        "edges": edges,
        "excluded": _selection_exclusions(selection)
        + [dropped[e.node_id] for e in selection.nodes if e.node_id in dropped],
        "contradictions": [
            c.model_dump(mode="json") for c in selection.contradictions if set(c.node_ids) <= kept
        ],
    }
    return canonical.with_artifact_id(body)


def _check_dropped(selection: Selection, dropped: dict[str, SnapshotExclusion]) -> None:
    """Observation exclusions as :func:`_observation_exclusions` makes them: only selected optional nodes,
    each with its selection entry's component, and a component dropped whole for a member's own failure."""
    entries = {e.node_id: e for e in selection.nodes}
    for node_id, exclusion in dropped.items():
        entry = entries.get(node_id)
        if entry is None or entry.required or exclusion.component_id != entry.component_id:
            raise SelectionMismatchError(
                f"observation exclusion {node_id[:16]}... is not an optional node of the selection"
            )
    for component in selection.contradictions:
        members = [n for n in component.node_ids if n in entries]
        gone = [n for n in members if n in dropped]
        failed = [n for n in gone if dropped[n].reason != REASON_COMPONENT]
        if gone and (len(gone) != len(members) or not failed):
            raise SelectionMismatchError(
                f"contradiction component {component.component_id[:16]}... is not excluded whole for a failure"
            )


def check_against_selection(graph: Graph, selection: Selection, snapshot: Snapshot) -> None:
    """The Snapshot must be exactly what ``selection`` produces with the Snapshot's own observation
    exclusions removed: an extract dropped without an exclusion, a changed edge or label, a moved byte is a
    :class:`SelectionMismatchError`. (Whether an observation failure really happened needs the roots.)"""
    if selection.artifact_id != snapshot.selection_id or snapshot.graph_id != graph.artifact_id:
        raise SelectionMismatchError("the snapshot was not made from this graph and selection")
    recorded = {x.node_id: x for x in snapshot.excluded if x.stage == STAGE_OBSERVATION}
    _check_dropped(selection, recorded)
    dropped = {node_id: x.model_dump(mode="json") for node_id, x in recorded.items()}
    expected = assemble_snapshot(graph, selection, dropped)
    if canonical.encode(expected) != canonical.encode(dump(snapshot)):
        raise SelectionMismatchError(
            "the snapshot is not its selection's extracts less its recorded exclusions",
            expected=expected["artifact_id"],
            supplied=snapshot.artifact_id,
        )


def publication_check(artifact: dict[str, Any], roots: Roots) -> None:
    """Immediately before publication: the candidate of the artifact about to be serialized still holds."""
    sources = [GraphSource.model_validate(s) for s in artifact["sources"]]
    candidate = CandidateModel.model_validate(artifact["candidate"])
    require_candidate(candidate, roots.repository, spec_source(sources).locator.path)
