"""The production artifact selector: a pure, deterministic function of a Graph and a Query.

Phases: (1) required references — the Graph's required nodes and the Query's — with their contradiction
closure; (2) breadth-first traversal from them; (3) exact identifiers; (4) lexical matches. Ranking is the
tuple (phase, authority, graph distance, descending lexical score, sensitivity, node id).

* BFS visits each node once and orders neighbours by edge type, target node id, then edge id. A frontier
  beyond the hard depth, node or edge bound is a blocker (:class:`SelectionBlockedError`), never a silent
  partial result; depth 0 turns the traversal phase off.
* Costs are ``canonical_utf8_bytes``: a node or edge costs the UTF-8 length of its canonical content. A
  node brings the edges it induces with the nodes already selected.
* ``contradicts`` is the one undirected edge: selecting any endpoint decides its whole
  contradiction-connected component (nodes and edges) atomically. A required component that is stale, over
  clearance or over budget blocks; an optional one is excluded as a unit with an exact reason. No winner is
  ever chosen.
* Required nodes, induced required edges and the closure allocate first and are never evicted; optional
  candidates follow in rank order, each admitted whole or recorded as an exclusion with its reason.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from prooftext import canonical
from prooftext.artifacts import governance as gov
from prooftext.artifacts.ids import EDGE_CONTRADICTS, component_id, cost_bytes
from prooftext.artifacts.lexical import binary_score, identifiers, lexical_tokens
from prooftext.artifacts.limits import SCHEMA_VERSION, UNREACHED_DISTANCE
from prooftext.artifacts.models import Graph, GraphNode, GraphSource, Query, QueryLimits
from prooftext.errors import (
    ArtifactError,
    CandidateMismatchError,
    FreshnessError,
    SelectionBlockedError,
    SensitivityError,
)

ARTIFACT_TYPE = "selection"
UNIT = "canonical_utf8_bytes"
PHASES = ("required", "traversal", "identifier", "lexical")
PHASE_REQUIRED, PHASE_TRAVERSAL, PHASE_IDENTIFIER, PHASE_LEXICAL = range(len(PHASES))
NODE_SYMBOL = "symbol"
REASON_CONTRADICTION = "contradiction"
REASON_OVER_CLEARANCE = "over_clearance"
REASON_STALE = "stale"
REASON_NODE_CEILING = "node_ceiling"
REASON_EDGE_CEILING = "edge_ceiling"
REASON_OVER_BUDGET = "over_budget"


@dataclass(frozen=True)
class Comp:
    component_id: str
    node_ids: tuple[str, ...]
    edge_ids: tuple[str, ...]


@dataclass
class GraphView:
    """Indexes over one Graph: nodes, costs, sorted adjacency, incident edges, contradiction components."""

    graph: Graph
    nodes: dict[str, GraphNode] = field(default_factory=dict)
    sources: dict[str, GraphSource] = field(default_factory=dict)
    node_cost: dict[str, int] = field(default_factory=dict)
    edge_cost: dict[str, int] = field(default_factory=dict)
    edge_ends: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    adjacency: dict[str, list[tuple[str, str, str]]] = field(default_factory=lambda: defaultdict(list))
    incident: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    components: dict[str, Comp] = field(default_factory=dict)

    @classmethod
    def of(cls, graph: Graph) -> GraphView:
        view = cls(graph)
        view.sources = {s.source_id: s for s in graph.sources}
        for node in graph.nodes:
            view.nodes[node.node_id] = node
            view.node_cost[node.node_id] = cost_bytes(node.model_dump(mode="json"))
        for edge in graph.edges:
            view.edge_cost[edge.edge_id] = cost_bytes(edge.model_dump(mode="json"))
            view.edge_ends[edge.edge_id] = (edge.type, edge.source, edge.target)
            view.adjacency[edge.source].append((edge.type, edge.target, edge.edge_id))
            if edge.type == EDGE_CONTRADICTS:
                view.adjacency[edge.target].append((edge.type, edge.source, edge.edge_id))
            view.incident[edge.source].append(edge.edge_id)
            view.incident[edge.target].append(edge.edge_id)
        for neighbours in view.adjacency.values():
            neighbours.sort()
        view.components = _components(view)
        return view


def _components(view: GraphView) -> dict[str, Comp]:
    """Contradiction-connected components (two or more nodes), by member node id."""
    parent: dict[str, str] = {}

    def find(node: str) -> str:
        while parent.setdefault(node, node) != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    contradictions = [(eid, s, t) for eid, (kind, s, t) in view.edge_ends.items() if kind == EDGE_CONTRADICTS]
    for _eid, source, target in contradictions:
        parent[find(source)] = find(target)
    groups: dict[str, tuple[list[str], list[str]]] = defaultdict(lambda: ([], []))
    for node in parent:
        groups[find(node)][0].append(node)
    for eid, source, _target in contradictions:
        groups[find(source)][1].append(eid)
    out: dict[str, Comp] = {}
    for nodes, edges in groups.values():
        comp = Comp(component_id(nodes, edges), tuple(sorted(nodes)), tuple(sorted(edges)))
        out.update(dict.fromkeys(comp.node_ids, comp))
    return out


# --- phases --------------------------------------------------------------------------------------------


def _blocked(message: str, reason: str, **details: Any) -> SelectionBlockedError:
    return SelectionBlockedError(message, reason=reason, **details)


def _required(view: GraphView, query: Query) -> list[str]:
    wanted = {n.node_id for n in view.graph.nodes if n.required} | set(query.required)
    missing = sorted(wanted - set(view.nodes))
    if missing:
        raise _blocked(f"required node {missing[0][:16]}... is not in the graph", "required_missing")
    closure = set(wanted)
    for node in wanted:
        comp = view.components.get(node)
        if comp is not None:
            closure.update(comp.node_ids)
    return sorted(closure)


def _check_bounds(nodes: int, edges: int, limits: QueryLimits) -> None:
    if nodes > limits.max_nodes:
        raise _blocked(
            f"traversal frontier reaches {nodes} nodes, beyond max_nodes {limits.max_nodes}", "node_bound"
        )
    if edges > limits.max_edges:
        raise _blocked(
            f"traversal frontier uses {edges} edges, beyond max_edges {limits.max_edges}", "edge_bound"
        )


def traverse(view: GraphView, roots: list[str], limits: QueryLimits) -> tuple[dict[str, int], dict[str, Any]]:
    """Breadth-first distances from ``roots`` and the traversal record; a blocker past any bound."""
    distance = dict.fromkeys(roots, 0)
    frontier, seen_edges, reached = list(roots), set[str](), 0
    for depth in range(1, limits.max_depth + 1):
        following: list[str] = []
        for node in frontier:
            for _type, target, edge in view.adjacency.get(node, ()):
                seen_edges.add(edge)
                if target not in distance:
                    distance[target] = depth
                    following.append(target)
        _check_bounds(len(distance), len(seen_edges), limits)
        frontier = following
        if not following:
            break
        reached = depth
    if limits.max_depth and any(
        t not in distance for n in frontier for _, t, _e in view.adjacency.get(n, ())
    ):
        raise _blocked(f"traversal frontier continues beyond max_depth {limits.max_depth}", "depth_bound")
    record = {
        "depth_limit": limits.max_depth,
        "depth_reached": reached,
        "visited_nodes": len(distance),
        "visited_edges": len(seen_edges),
        "truncated": False,
    }
    return distance, record


def _labels(node: GraphNode) -> str:
    return " ".join(x for x in (node.kind, node.symbol_kind, node.language, node.authority) if x)


@dataclass
class Ranking:
    """Rank components of every node: BFS distance, binary lexical score and the phase it qualifies for."""

    distance: dict[str, int]
    score: dict[str, int]
    phase: dict[str, int]

    def key(self, node: GraphNode) -> tuple[int, int, int, int, int, str]:
        """(phase, authority, graph distance, descending lexical score, sensitivity, node id)."""
        node_id = node.node_id
        return (
            self.phase.get(node_id, PHASE_LEXICAL),
            gov.authority_rank(node.authority),
            self.distance.get(node_id, UNREACHED_DISTANCE),
            -self.score[node_id],
            gov.sensitivity_rank(node.sensitivity),
            node_id,
        )

    def components(self, node: GraphNode, phase: int) -> dict[str, Any]:
        return {
            "phase": PHASES[phase],
            "authority": node.authority,
            "distance": self.distance.get(node.node_id, UNREACHED_DISTANCE),
            "lexical_score": self.score[node.node_id],
            "sensitivity": node.sensitivity,
        }


def _phase(
    node: GraphNode, required: set[str], distance: dict[str, int], names: frozenset[str], score: int
) -> int | None:
    if node.node_id in required:
        return PHASE_REQUIRED
    if node.node_id in distance:
        return PHASE_TRAVERSAL
    if node.kind == NODE_SYMBOL and node.name in names:
        return PHASE_IDENTIFIER
    return PHASE_LEXICAL if score > 0 else None


def rank_nodes(view: GraphView, query: Query, required: list[str], distance: dict[str, int]) -> Ranking:
    tokens = lexical_tokens(query.text)
    names = identifiers(query.text)
    required_set = set(required)
    ranking = Ranking(distance, {}, {})
    for node in view.graph.nodes:
        score = binary_score(tokens, node.name, _labels(node), node.path, node.text)
        ranking.score[node.node_id] = score
        phase = _phase(node, required_set, distance, names, score)
        if phase is not None:
            ranking.phase[node.node_id] = phase
    return ranking


# --- allocation ----------------------------------------------------------------------------------------


@dataclass
class _Alloc:
    view: GraphView
    query: Query
    ranking: Ranking
    nodes: list[dict[str, Any]] = field(default_factory=list)
    node_ids: set[str] = field(default_factory=set)
    edges: list[dict[str, Any]] = field(default_factory=list)
    edge_ids: set[str] = field(default_factory=set)
    excluded: list[dict[str, Any]] = field(default_factory=list)
    decided: set[str] = field(default_factory=set)
    used: int = 0

    def induced(self, members: Iterable[str]) -> list[str]:
        group = set(members)
        inside = self.node_ids | group
        found = set()
        for node in group:
            for edge in self.view.incident.get(node, ()):
                _type, source, target = self.view.edge_ends[edge]
                if source in inside and target in inside and edge not in self.edge_ids:
                    found.add(edge)
        return sorted(found)

    def member_problem(self, node_id: str) -> str | None:
        node = self.view.nodes[node_id]
        if gov.sensitivity_rank(node.sensitivity) > gov.sensitivity_rank(self.query.clearance):
            return REASON_OVER_CLEARANCE
        window = self.view.sources[node.source_id].expires
        return gov.stale_reason(node.freshness, window, self.query.as_of)

    def problem(self, members: list[str], edges: list[str]) -> str | None:
        for member in members:
            reason = self.member_problem(member)
            if reason is not None:
                return reason
        limits = self.query.limits
        if len(self.node_ids) + len(members) > limits.max_nodes:
            return REASON_NODE_CEILING
        if len(self.edge_ids) + len(edges) > limits.max_edges:
            return REASON_EDGE_CEILING
        cost = sum(self.view.node_cost[m] for m in members) + sum(self.view.edge_cost[e] for e in edges)
        return REASON_OVER_BUDGET if self.used + cost > limits.max_bytes else None

    def _entry(self, node_id: str, phase: int) -> dict[str, Any]:
        comp = self.view.components.get(node_id)
        return {
            "node_id": node_id,
            "component_id": comp.component_id if comp else None,
            "cost_bytes": self.view.node_cost[node_id],
            "rank": self.ranking.components(self.view.nodes[node_id], phase),
        }

    def admit(self, members: list[str], edges: list[str], phase: int, reasons: dict[str, str]) -> None:
        required = phase == PHASE_REQUIRED
        for node_id in members:
            self.nodes.append(
                {**self._entry(node_id, phase), "reason": reasons[node_id], "required": required}
            )
        for edge in edges:
            kind = self.view.edge_ends[edge][0]
            self.edges.append(
                {"edge_id": edge, "type": kind, "required": required, "cost_bytes": self.view.edge_cost[edge]}
            )
        self.node_ids.update(members)
        self.edge_ids.update(edges)
        self.decided.update(members)
        self.used += sum(self.view.node_cost[m] for m in members) + sum(self.view.edge_cost[e] for e in edges)

    def exclude(self, members: list[str], phase: int, reason: str) -> None:
        for node_id in members:
            self.excluded.append({**self._entry(node_id, phase), "reason": reason})
        self.decided.update(members)


def _required_reasons(view: GraphView, query: Query, members: list[str]) -> dict[str, str]:
    explicit = {n.node_id for n in view.graph.nodes if n.required} | set(query.required)
    return {m: "required" if m in explicit else REASON_CONTRADICTION for m in members}


def _allocate_required(alloc: _Alloc, required: list[str]) -> None:
    ordered = sorted(required, key=lambda n: alloc.ranking.key(alloc.view.nodes[n]))
    for node_id in ordered:
        reason = alloc.member_problem(node_id)
        path = alloc.view.nodes[node_id].path
        if reason == REASON_OVER_CLEARANCE:
            raise SensitivityError(
                f"required node in {path} is above the clearance {alloc.query.clearance}", path=path
            )
        if reason == REASON_STALE:
            raise FreshnessError(
                f"required node in {path} is not fresh at as_of {alloc.query.as_of}", path=path
            )
    edges = alloc.induced(ordered)
    reason = alloc.problem(ordered, edges)
    if reason is not None:
        raise _blocked(f"required context does not fit the query limits ({reason})", reason)
    alloc.admit(ordered, edges, PHASE_REQUIRED, _required_reasons(alloc.view, alloc.query, ordered))


def _group(alloc: _Alloc, node_id: str) -> list[str]:
    """The node, or its whole undecided contradiction component (trigger first, then by id)."""
    comp = alloc.view.components.get(node_id)
    rest = [] if comp is None else [n for n in comp.node_ids if n != node_id and n not in alloc.decided]
    return [node_id, *rest]


def _allocate_optional(alloc: _Alloc, ordered: list[GraphNode]) -> None:
    for node in ordered:
        if node.node_id in alloc.decided:
            continue
        phase = alloc.ranking.phase[node.node_id]
        members = _group(alloc, node.node_id)
        edges = alloc.induced(members)
        reason = alloc.problem(members, edges)
        if reason is None:
            reasons = dict.fromkeys(members, REASON_CONTRADICTION)
            reasons[node.node_id] = PHASES[phase]
            alloc.admit(members, edges, phase, reasons)
        else:
            alloc.exclude(members, phase, reason)


def _selected_components(alloc: _Alloc) -> list[dict[str, Any]]:
    required = {n["node_id"] for n in alloc.nodes if n["required"]}
    comps = {
        alloc.view.components[n].component_id: alloc.view.components[n]
        for n in alloc.node_ids
        if n in alloc.view.components
    }
    return [
        {
            "component_id": c.component_id,
            "node_ids": list(c.node_ids),
            "edge_ids": list(c.edge_ids),
            "required": bool(required & set(c.node_ids)),
        }
        for _key, c in sorted(comps.items())
    ]


def _check_binding(graph: Graph, query: Query) -> None:
    if query.graph_id != graph.artifact_id:
        raise ArtifactError("the query is bound to another graph", field="graph_id")
    if query.candidate != graph.candidate:
        raise CandidateMismatchError("the query and the graph bind different candidates")


def select(graph: Graph, query: Query, view: GraphView | None = None) -> dict[str, Any]:
    """The Selection artifact of ``query`` over ``graph`` (see the module docstring)."""
    _check_binding(graph, query)
    view = view or GraphView.of(graph)
    required = _required(view, query)
    distance, traversal = traverse(view, required, query.limits)
    ranking = rank_nodes(view, query, required, distance)
    alloc = _Alloc(view, query, ranking)
    _allocate_required(alloc, required)
    optional = [view.nodes[n] for n, phase in ranking.phase.items() if phase != PHASE_REQUIRED]
    _allocate_optional(alloc, sorted(optional, key=ranking.key))
    node_bytes = sum(n["cost_bytes"] for n in alloc.nodes)
    limits = query.limits
    body = {
        "schema_version": SCHEMA_VERSION,
        "artifact_type": ARTIFACT_TYPE,
        "graph_id": graph.artifact_id,
        "candidate": query.candidate.model_dump(mode="json"),
        "query": query.model_dump(mode="json"),
        "as_of": query.as_of,
        "sensitivity": gov.highest_sensitivity(n["rank"]["sensitivity"] for n in alloc.nodes),
        "budget": {
            "unit": UNIT,
            "max_bytes": limits.max_bytes,
            "used_bytes": alloc.used,
            "node_bytes": node_bytes,
            "edge_bytes": alloc.used - node_bytes,
            "max_nodes": limits.max_nodes,
            "max_edges": limits.max_edges,
        },
        "traversal": traversal,
        "nodes": alloc.nodes,
        "edges": alloc.edges,
        "excluded": alloc.excluded,
        "contradictions": _selected_components(alloc),
    }
    return canonical.with_artifact_id(body)
