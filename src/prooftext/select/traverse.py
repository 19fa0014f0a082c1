"""Breadth-first traversal from the required nodes, under depth, node and edge bounds.

The walk visits each node once and orders neighbours by edge type, target node id, then edge id (the view
returns them so). What happens at a bound is a parameter of the run: packets count the frontier they leave
out (:class:`CountingBounds`), the context artifacts block (:class:`BlockingBounds`), since a frontier beyond
a hard bound is a blocker there, never a silent partial result.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, Protocol

from prooftext.errors import SelectionBlockedError
from prooftext.select.components import N
from prooftext.select.view import GraphView


class Bounds(Protocol):
    """How one traversal meets its bounds; it also keeps the traversal's record."""

    def edge(self, edge_id: str) -> None:
        """An edge leaving the frontier was looked at."""

    def room(self, visited: int) -> bool:
        """Whether a new node may be visited over an edge, with ``visited`` nodes visited so far."""

    def level(self, visited: int) -> None:
        """One depth level is done, with ``visited`` nodes visited so far."""

    def finish(self, depth_reached: int, visited: int, frontier_open: Callable[[], bool]) -> None:
        """The last level is done; ``frontier_open()`` tells whether the last frontier has unvisited neighbours."""

    def record(self) -> dict[str, object]:
        """The traversal's record, as the selection reports it."""


@dataclass
class CountingBounds:
    """Packets: a new node past the node or edge bound is not visited and counted in ``truncated_frontier``."""

    max_nodes: int
    max_edges: int
    edges_used: int = 0
    truncated: int = 0

    def edge(self, edge_id: str) -> None:
        return None

    def room(self, visited: int) -> bool:
        if self.edges_used >= self.max_edges or visited >= self.max_nodes:
            self.truncated += 1
            return False
        self.edges_used += 1
        return True

    def level(self, visited: int) -> None:
        return None

    def finish(self, depth_reached: int, visited: int, frontier_open: Callable[[], bool]) -> None:
        return None

    def record(self) -> dict[str, object]:
        return {"edges_used": self.edges_used, "truncated_frontier": self.truncated}


def _blocked(message: str, reason: str) -> SelectionBlockedError:
    return SelectionBlockedError(message, reason=reason)


@dataclass
class BlockingBounds:
    """Context artifacts: every level is walked whole; more nodes or edges than the bounds, or a frontier
    that continues past the depth bound, is a :class:`SelectionBlockedError`."""

    max_depth: int
    max_nodes: int
    max_edges: int
    seen_edges: set[str] = field(default_factory=set)
    depth_reached: int = 0
    visited: int = 0

    def edge(self, edge_id: str) -> None:
        self.seen_edges.add(edge_id)

    def room(self, visited: int) -> bool:
        return True

    def level(self, visited: int) -> None:
        if visited > self.max_nodes:
            raise _blocked(
                f"traversal frontier reaches {visited} nodes, beyond max_nodes {self.max_nodes}", "node_bound"
            )
        if len(self.seen_edges) > self.max_edges:
            raise _blocked(
                f"traversal frontier uses {len(self.seen_edges)} edges, beyond max_edges {self.max_edges}",
                "edge_bound",
            )

    def finish(self, depth_reached: int, visited: int, frontier_open: Callable[[], bool]) -> None:
        self.depth_reached, self.visited = depth_reached, visited
        if self.max_depth and frontier_open():
            raise _blocked(f"traversal frontier continues beyond max_depth {self.max_depth}", "depth_bound")

    def record(self) -> dict[str, object]:
        return {
            "depth_limit": self.max_depth,
            "depth_reached": self.depth_reached,
            "visited_nodes": self.visited,
            "visited_edges": len(self.seen_edges),
            "truncated": False,
        }


@dataclass
class Reached(Generic[N]):
    """What a traversal reached beyond its roots, in visit order, with each node's depth."""

    nodes: list[tuple[N, int]]
    distance: dict[str, int]
    """Depth of every visited node id, the roots at 0."""


def traverse(view: GraphView[N], roots: Sequence[str], max_depth: int, bounds: Bounds) -> Reached[N]:
    """Breadth-first from ``roots`` to ``max_depth``, visiting each node once (see the module notes).

    A neighbour the view does not hold counts as visited but is neither reached nor walked from. ``roots``
    may repeat an id (a query may name one source twice): every entry counts toward the node bound and is
    walked from."""
    distance = dict.fromkeys(roots, 0)
    frontier, reached = list(roots), 0
    found: list[tuple[N, int]] = []
    for depth in range(1, max_depth + 1):
        following: list[str] = []
        for source in frontier:
            for _type, target, edge_id in view.neighbours(source):
                bounds.edge(edge_id)
                if target in distance or not bounds.room(len(roots) + len(found)):
                    continue
                distance[target] = depth
                node = view.node(target)
                if node is not None:
                    found.append((node, depth))
                    following.append(target)
        bounds.level(len(roots) + len(found))
        frontier = following
        if not following:
            break
        reached = depth

    def frontier_open() -> bool:
        return any(t not in distance for n in frontier for _, t, _e in view.neighbours(n))

    bounds.finish(reached, len(roots) + len(found), frontier_open)
    return Reached(found, distance)
