"""The selection pipeline over an in-memory graph view and ledger: traversal bounds, closure, decisions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest

from prooftext.errors import SelectionBlockedError
from prooftext.select.components import Component, Components, connected
from prooftext.select.pipeline import Decision, closure, fill
from prooftext.select.query import Query
from prooftext.select.traverse import BlockingBounds, CountingBounds, traverse
from prooftext.select.view import Edge


@dataclass(frozen=True)
class Node:
    node_id: str
    source: str


def _source(node: Node) -> str:
    return node.source


@dataclass
class MemoryView:
    """A graph view held in dictionaries: ``edges`` maps a node id to its sorted outgoing edges."""

    nodes: dict[str, Node]
    edges: dict[str, list[Edge]] = field(default_factory=dict)
    groups: list[Component[Node]] = field(default_factory=list)

    def required(self, query: Query) -> list[Node]:
        return [self.nodes[r] for r in query.required]

    def brought(self, member: Node, by: Node) -> Node:
        return member

    def neighbours(self, node_id: str) -> Sequence[Edge]:
        return self.edges.get(node_id, [])

    def node(self, node_id: str) -> Node | None:
        return self.nodes.get(node_id)

    def components(self) -> Components[Node]:
        return Components(self.groups, _source)


@dataclass
class CountingLedger:
    """Admits up to ``room`` nodes; ``blocked`` node ids have a problem of their own."""

    room: int
    blocked: frozenset[str] = frozenset()
    admitted: list[str] = field(default_factory=list)
    excluded: list[tuple[str, str]] = field(default_factory=list)

    def require(self, required: Sequence[Node]) -> None:
        self.admitted.extend(n.node_id for n in required)

    def holds(self, node: Node) -> bool:
        return node.node_id in self.admitted

    def barrier(self, cand: Node) -> str | None:
        return "blocked" if cand.node_id in self.blocked else None

    @staticmethod
    def _nodes(cand: Node, decision: Decision[Node] | None) -> list[str]:
        ids = [m.node_id for m in decision.members] if decision is not None else []
        return ids if cand.node_id in ids else [cand.node_id, *ids]

    def problem(self, cand: Node, decision: Decision[Node] | None) -> str | None:
        return "full" if len(self.admitted) + len(self._nodes(cand, decision)) > self.room else None

    def admit(self, cand: Node, decision: Decision[Node] | None) -> None:
        self.admitted.extend(self._nodes(cand, decision))

    def exclude(self, cand: Node, decision: Decision[Node] | None, reason: str) -> None:
        self.excluded.extend((n, reason) for n in self._nodes(cand, decision))

    def settle(self, cand: Node, admitted: bool) -> bool:
        if not admitted:
            self.excluded.append((cand.node_id, "contradiction"))
        return not admitted


def _pair(*nodes: Node) -> Components[Node]:
    return Components([Component("c", nodes, frozenset(n.source for n in nodes))], _source)


A, B = Node("A", "a.md"), Node("B", "b.md")
A_SECTION, B_SECTION, OTHER = Node("a1", "a.md"), Node("b1", "b.md"), Node("x", "x.py")


def test_connected_groups_are_sorted_and_disjoint() -> None:
    assert connected([("b", "a"), ("c", "d"), ("a", "c"), ("e", "f")]) == [("a", "b", "c", "d"), ("e", "f")]


def test_a_section_raises_its_components_decision_and_later_sections_follow_it() -> None:
    ledger = CountingLedger(room=2)
    fill([], [A_SECTION, OTHER, B_SECTION, A], ledger, _pair(A, B))
    assert ledger.admitted == ["x"]
    assert ledger.excluded == [("a1", "full"), ("A", "full"), ("B", "full"), ("b1", "contradiction")]


def test_an_admitted_component_leaves_the_other_nodes_of_its_sources_to_the_ledger() -> None:
    ledger = CountingLedger(room=5)
    fill([], [A_SECTION, B_SECTION, A, OTHER], ledger, _pair(A, B))
    assert ledger.admitted == ["a1", "A", "B", "b1", "x"]


def test_a_node_with_a_problem_of_its_own_does_not_decide_its_component() -> None:
    ledger = CountingLedger(room=5, blocked=frozenset({"a1"}))
    fill([], [A_SECTION, B], ledger, _pair(A, B))
    assert ledger.excluded == [("a1", "blocked")] and ledger.admitted == ["A", "B"]


def test_a_required_member_brings_its_component_and_the_rest_are_ordinary() -> None:
    assert closure([A_SECTION], _pair(A, B)) == [(A, A_SECTION), (B, A_SECTION)]
    ledger = CountingLedger(room=4)
    fill([A_SECTION, A, B], [B_SECTION], ledger, _pair(A, B))
    assert ledger.admitted == ["a1", "A", "B", "b1"]


CHAIN = MemoryView(
    {n: Node(n, n) for n in "rstu"},
    {
        "r": [("links", "s", "e1"), ("links", "t", "e2")],
        "s": [("links", "u", "e3")],
        "t": [("links", "v", "e4")],
    },
)


def test_counting_bounds_leave_the_frontier_out_and_count_it() -> None:
    bounds = CountingBounds(max_nodes=2, max_edges=10)
    reached = traverse(CHAIN, ["r"], 2, bounds)
    assert [(n.node_id, depth) for n, depth in reached.nodes] == [("s", 1)]
    assert bounds.record() == {"edges_used": 1, "truncated_frontier": 2}


def test_counting_bounds_visit_a_missing_target_without_walking_from_it() -> None:
    bounds = CountingBounds(max_nodes=10, max_edges=10)
    reached = traverse(CHAIN, ["r"], 3, bounds)
    assert [n.node_id for n, _ in reached.nodes] == ["s", "t", "u"] and "v" in reached.distance
    assert bounds.record() == {"edges_used": 4, "truncated_frontier": 0}


@pytest.mark.parametrize(
    ("depth", "nodes", "edges", "reason"),
    [(1, 10, 10, "depth_bound"), (2, 3, 10, "node_bound"), (2, 10, 3, "edge_bound")],
)
def test_blocking_bounds_block(depth: int, nodes: int, edges: int, reason: str) -> None:
    with pytest.raises(SelectionBlockedError) as blocked:
        traverse(CHAIN, ["r"], depth, BlockingBounds(depth, nodes, edges))
    assert blocked.value.details["reason"] == reason


def test_blocking_bounds_record_a_walk_within_them() -> None:
    bounds = BlockingBounds(8, 10, 10)
    traverse(CHAIN, ["r"], 8, bounds)
    assert bounds.record() == {
        "depth_limit": 8,
        "depth_reached": 2,
        "visited_nodes": 4,
        "visited_edges": 4,
        "truncated": False,
    }
