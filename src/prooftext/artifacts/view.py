"""The Graph artifact as a graph view of the selection pipeline, with the indexes its readers share.

Neighbours include both directions of ``contradicts``, the one undirected edge; every list is sorted by
edge type, target node id, then edge id. Contradiction components come from the ``contradicts`` edges and
are keyed by their endpoints' sources.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from prooftext.artifacts.ids import EDGE_CONTRADICTS, component_id, cost_bytes
from prooftext.artifacts.models import Graph, GraphNode, GraphSource
from prooftext.errors import SelectionBlockedError
from prooftext.select.components import Component, Components, connected
from prooftext.select.query import Query
from prooftext.select.view import Edge


def _source(node: GraphNode) -> str:
    return node.source_id


@dataclass
class GraphView:
    """Indexes over one Graph: nodes, costs, sorted adjacency, incident edges, contradiction components."""

    graph: Graph
    nodes: dict[str, GraphNode] = field(default_factory=dict)
    sources: dict[str, GraphSource] = field(default_factory=dict)
    node_cost: dict[str, int] = field(default_factory=dict)
    edge_cost: dict[str, int] = field(default_factory=dict)
    edge_ends: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    adjacency: dict[str, list[Edge]] = field(default_factory=lambda: defaultdict(list))
    incident: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    contradictions: Components[GraphNode] = field(default_factory=lambda: Components((), _source))

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
        view.contradictions = Components(_components(view), _source)
        return view

    def explicit(self, query: Query) -> set[str]:
        """Node ids the Graph or the query requires (before the contradiction closure)."""
        return {n.node_id for n in self.graph.nodes if n.required} | set(query.required)

    def required(self, query: Query) -> list[GraphNode]:
        wanted = self.explicit(query)
        missing = sorted(wanted - set(self.nodes))
        if missing:
            raise SelectionBlockedError(
                f"required node {missing[0][:16]}... is not in the graph", reason="required_missing"
            )
        return [self.nodes[n] for n in sorted(wanted)]

    def brought(self, member: GraphNode, by: GraphNode) -> GraphNode:
        return member

    def neighbours(self, node_id: str) -> Sequence[Edge]:
        return self.adjacency.get(node_id, ())

    def node(self, node_id: str) -> GraphNode | None:
        return self.nodes.get(node_id)

    def components(self) -> Components[GraphNode]:
        return self.contradictions


def _components(view: GraphView) -> list[Component[GraphNode]]:
    """Contradiction-connected components, each with its endpoint nodes and contradiction edges (sorted)."""
    contradictions = [(eid, s, t) for eid, (kind, s, t) in view.edge_ends.items() if kind == EDGE_CONTRADICTS]
    groups = connected((s, t) for _eid, s, t in contradictions)
    place = {node: i for i, ids in enumerate(groups) for node in ids}
    edges: list[list[str]] = [[] for _ in groups]
    for eid, source, _target in contradictions:
        edges[place[source]].append(eid)
    out = []
    for ids, comp_edges in zip(groups, edges, strict=True):
        members = tuple(view.nodes[n] for n in ids)
        key = component_id(ids, comp_edges)
        out.append(
            Component(key, members, frozenset(m.source_id for m in members), tuple(sorted(comp_edges)))
        )
    return out
