"""The production artifact selector: a pure, deterministic function of a Graph and a Query.

It runs the selection pipeline (:mod:`prooftext.select.pipeline`) over the Graph with the context
framework's binary ranking (:mod:`prooftext.select.binary`) and a ledger of canonical bytes.

* Required references — the Graph's required nodes and the Query's — and their contradiction closure
  allocate first and are never evicted; optional candidates follow in rank order, each admitted whole or
  recorded as an exclusion with its reason.
* BFS visits each node once and orders neighbours by edge type, target node id, then edge id. A frontier
  beyond the hard depth, node or edge bound is a blocker (:class:`SelectionBlockedError`), never a silent
  partial result; depth 0 turns the traversal phase off.
* Costs are ``canonical_utf8_bytes``: a node or edge costs the UTF-8 length of its canonical content. A
  node brings the edges it induces with the nodes already selected.
* ``contradicts`` is the one undirected edge: the first candidate of any source of a
  contradiction-connected component — an endpoint, or a section or symbol of an endpoint's file — decides
  the whole component (nodes and edges) atomically, with itself. The endpoint of the candidate's own
  source is recorded in the candidate's phase, the other endpoints as ``contradiction``. An excluded
  component's endpoints carry the exact reason, and every other node of its sources, then or later, is
  excluded as ``contradiction``; once a component is admitted, such a node is an ordinary candidate with
  its own bytes (the quality report counts what it repeats as redundant). A required component that is
  stale, over clearance or over budget blocks. No winner is ever chosen.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import prooftext.artifacts.governance as gov
import prooftext.canonical as canonical
import prooftext.select.pipeline as pipeline
from prooftext.artifacts.fields import artifact_head
from prooftext.artifacts.models import Graph, GraphNode
from prooftext.artifacts.models import Query as WireQuery
from prooftext.artifacts.query import from_wire
from prooftext.artifacts.view import GraphView
from prooftext.errors import (
    ArtifactError,
    CandidateMismatchError,
    FreshnessError,
    SelectionBlockedError,
    SensitivityError,
)
from prooftext.select.binary import BinaryRanker, BinaryRanking
from prooftext.select.candidates import PHASE_NAMES, PHASE_REQUIRED
from prooftext.select.pipeline import Decision
from prooftext.select.query import Query
from prooftext.select.traverse import BlockingBounds

ARTIFACT_TYPE = "selection"
UNIT = "canonical_utf8_bytes"
REASON_CONTRADICTION = "contradiction"
REASON_OVER_CLEARANCE = "over_clearance"
REASON_STALE = "stale"
REASON_NODE_CEILING = "node_ceiling"
REASON_EDGE_CEILING = "edge_ceiling"
REASON_OVER_BUDGET = "over_budget"


def _labels(node: GraphNode) -> str:
    return " ".join(x for x in (node.kind, node.symbol_kind, node.language, node.authority) if x)


def _fields(node: GraphNode) -> tuple[str, str, str, str]:
    """Title, labels, path and content: what the binary ranking scores."""
    return node.name, _labels(node), node.path, node.text


@dataclass
class ByteLedger:
    """The artifact side of a fill: canonical bytes of nodes and induced edges, node and edge ceilings,
    clearance and freshness."""

    view: GraphView
    query: Query
    ranking: BinaryRanking[GraphNode]
    explicit: set[str]
    """Nodes the Graph or the query requires; the rest of the required closure is ``contradiction``."""
    nodes: list[dict[str, Any]] = field(default_factory=list)
    node_ids: set[str] = field(default_factory=set)
    edges: list[dict[str, Any]] = field(default_factory=list)
    edge_ids: set[str] = field(default_factory=set)
    excluded: list[dict[str, Any]] = field(default_factory=list)
    used: int = 0

    def induced(self, members: Iterable[GraphNode]) -> list[str]:
        group = {m.node_id for m in members}
        inside = self.node_ids | group
        found = set()
        for node in group:
            for edge in self.view.incident.get(node, ()):
                _type, source, target = self.view.edge_ends[edge]
                if source in inside and target in inside and edge not in self.edge_ids:
                    found.add(edge)
        return sorted(found)

    def member_problem(self, node: GraphNode) -> str | None:
        if gov.sensitivity_rank(node.sensitivity) > gov.sensitivity_rank(self.query.clearance):
            return REASON_OVER_CLEARANCE
        window = self.view.sources[node.source_id].expires
        return gov.stale_reason(node.freshness, window, self.query.as_of)

    def _problem(self, members: list[GraphNode], edges: list[str]) -> str | None:
        for member in members:
            reason = self.member_problem(member)
            if reason is not None:
                return reason
        if len(self.node_ids) + len(members) > self.query.max_nodes:
            return REASON_NODE_CEILING
        if len(self.edge_ids) + len(edges) > self.query.max_edges:
            return REASON_EDGE_CEILING
        return REASON_OVER_BUDGET if self.used + self._cost(members, edges) > self.query.max_tokens else None

    def _cost(self, members: list[GraphNode], edges: list[str]) -> int:
        return sum(self.view.node_cost[m.node_id] for m in members) + sum(
            self.view.edge_cost[e] for e in edges
        )

    def entry(self, node: GraphNode, phase: int) -> dict[str, Any]:
        comp = self.view.contradictions.of(node)
        return {
            "node_id": node.node_id,
            "component_id": comp.key if comp is not None and node.node_id in comp.member_ids else None,
            "cost_bytes": self.view.node_cost[node.node_id],
            "rank": self.ranking.components(node, phase),
        }

    def _admit(self, members: list[GraphNode], phase: int, reasons: dict[str, str]) -> None:
        edges = self.induced(members)
        required = phase == PHASE_REQUIRED
        for node in members:
            self.nodes.append(
                {**self.entry(node, phase), "reason": reasons[node.node_id], "required": required}
            )
        for edge in edges:
            kind = self.view.edge_ends[edge][0]
            self.edges.append(
                {"edge_id": edge, "type": kind, "required": required, "cost_bytes": self.view.edge_cost[edge]}
            )
        self.node_ids.update(m.node_id for m in members)
        self.edge_ids.update(edges)
        self.used += self._cost(members, edges)

    def require(self, required: Sequence[GraphNode]) -> None:
        ordered = sorted(required, key=self.ranking.key)
        for node in ordered:
            reason = self.member_problem(node)
            if reason == REASON_OVER_CLEARANCE:
                raise SensitivityError(
                    f"required node in {node.path} is above the clearance {self.query.clearance}",
                    path=node.path,
                )
            if reason == REASON_STALE:
                raise FreshnessError(
                    f"required node in {node.path} is not fresh at as_of {self.query.as_of}", path=node.path
                )
        reason = self._problem(ordered, self.induced(ordered))
        if reason is not None:
            raise SelectionBlockedError(
                f"required context does not fit the query limits ({reason})", reason=reason
            )
        reasons = {
            n.node_id: "required" if n.node_id in self.explicit else REASON_CONTRADICTION for n in ordered
        }
        self._admit(ordered, PHASE_REQUIRED, reasons)

    def holds(self, node: GraphNode) -> bool:
        return node.node_id in self.node_ids

    def barrier(self, cand: GraphNode) -> str | None:
        """A node's own clearance or freshness problem, except an endpoint's: its component decides that."""
        comp = self.view.contradictions.of(cand)
        return None if comp is not None and cand.node_id in comp.member_ids else self.member_problem(cand)

    @staticmethod
    def _parts(
        cand: GraphNode, decision: Decision[GraphNode] | None
    ) -> tuple[list[GraphNode], list[GraphNode]]:
        """What one decision covers: (``cand`` when it is not an endpoint, the endpoints with ``cand``'s own
        first), or ``cand`` alone."""
        if decision is None:
            return [], [cand]
        members = decision.members
        if cand.node_id in decision.component.member_ids:
            return [], [cand, *(m for m in members if m.node_id != cand.node_id)]
        own = [m for m in members if m.source_id == cand.source_id]
        return [cand], [*own, *(m for m in members if m.source_id != cand.source_id)]

    def problem(self, cand: GraphNode, decision: Decision[GraphNode] | None) -> str | None:
        lead, endpoints = self._parts(cand, decision)
        members = [*lead, *endpoints]
        return self._problem(members, self.induced(members))

    def admit(self, cand: GraphNode, decision: Decision[GraphNode] | None) -> None:
        phase = self.ranking.phase[cand.node_id]
        lead, endpoints = self._parts(cand, decision)
        if lead:
            self._admit(lead, phase, {cand.node_id: PHASE_NAMES[phase]})
        reasons = dict.fromkeys((m.node_id for m in endpoints), REASON_CONTRADICTION)
        reasons[endpoints[0].node_id] = PHASE_NAMES[phase]
        self._admit(endpoints, phase, reasons)

    def exclude(self, cand: GraphNode, decision: Decision[GraphNode] | None, reason: str) -> None:
        phase = self.ranking.phase[cand.node_id]
        lead, endpoints = self._parts(cand, decision)
        for node in lead:
            self.excluded.append({**self.entry(node, phase), "reason": REASON_CONTRADICTION})
        for node in endpoints:
            self.excluded.append({**self.entry(node, phase), "reason": reason})

    def settle(self, cand: GraphNode, admitted: bool) -> bool:
        """After an excluded component, a node of its sources is left out: for its own clearance or
        freshness problem if it has one, else as ``contradiction``."""
        if admitted:
            return False
        phase = self.ranking.phase[cand.node_id]
        reason = self.member_problem(cand) or REASON_CONTRADICTION
        self.excluded.append({**self.entry(cand, phase), "reason": reason})
        return True

    def components(self) -> list[dict[str, Any]]:
        """Every contradiction component with a selected endpoint; ``required`` when one is required."""
        required = {n["node_id"] for n in self.nodes if n["required"]}
        chosen = {c.key: c for c in self.view.contradictions if c.member_ids & self.node_ids}
        return [
            {
                "component_id": c.key,
                "node_ids": sorted(c.member_ids),
                "edge_ids": list(c.edge_ids),
                "required": bool(required & c.member_ids),
            }
            for _key, c in sorted(chosen.items())
        ]


def _check_binding(graph: Graph, query: WireQuery) -> None:
    if query.graph_id != graph.artifact_id:
        raise ArtifactError("the query is bound to another graph", field="graph_id")
    if query.candidate != graph.candidate:
        raise CandidateMismatchError("the query and the graph bind different candidates")


def _fill(view: GraphView, query: Query) -> tuple[ByteLedger, dict[str, object]]:
    bounds = BlockingBounds(query.max_depth, query.max_nodes, query.max_edges)
    prepared = pipeline.prepare(view, query, BinaryRanker(view.graph.nodes, _fields), bounds)
    ledger = ByteLedger(view, query, prepared.ordered.detail, view.explicit(query))
    pipeline.fill(prepared.required, prepared.optional, ledger, prepared.components)
    return ledger, prepared.traversal


def select(graph: Graph, wire: WireQuery, view: GraphView | None = None) -> dict[str, Any]:
    """The Selection artifact of the ``wire`` Query over ``graph`` (see the module docstring)."""
    _check_binding(graph, wire)
    query = from_wire(wire)
    ledger, traversal = _fill(view or GraphView.of(graph), query)
    node_bytes = sum(n["cost_bytes"] for n in ledger.nodes)
    body = {
        **artifact_head(ARTIFACT_TYPE, wire.candidate, graph_id=graph.artifact_id),
        "query": wire.model_dump(mode="json"),
        "as_of": wire.as_of,
        "sensitivity": gov.highest_sensitivity(n["rank"]["sensitivity"] for n in ledger.nodes),
        "budget": {
            "unit": UNIT,
            "max_bytes": query.max_tokens,
            "used_bytes": ledger.used,
            "node_bytes": node_bytes,
            "edge_bytes": ledger.used - node_bytes,
            "max_nodes": query.max_nodes,
            "max_edges": query.max_edges,
        },
        "traversal": traversal,
        "nodes": ledger.nodes,
        "edges": ledger.edges,
        "excluded": ledger.excluded,
        "contradictions": ledger.components(),
    }
    return canonical.with_artifact_id(body)
