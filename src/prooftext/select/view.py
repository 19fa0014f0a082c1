"""The graph a selection reads: the small protocol both the SQLite index and the Graph artifact implement.

The selection pipeline (:mod:`prooftext.select.pipeline`) asks a view for the required nodes of a query,
for a node's outgoing edges and for a node by id (to walk breadth-first), and for the contradiction
components; nothing else of either store takes part in the phase machinery.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from prooftext.select.components import Components, N
from prooftext.select.query import Query

Edge = tuple[str, str, str]
"""An outgoing edge as ``(edge type, target node id, edge id)``."""

_HEX = frozenset("0123456789ABCDEF")
NODE_ID_LENGTH = 64


def is_node_id(ref: str) -> bool:
    """Whether a required reference spells a node id (the full SHA-256 in uppercase hex) rather than a path."""
    return len(ref) == NODE_ID_LENGTH and set(ref) <= _HEX


class GraphView(Protocol[N]):
    def required(self, query: Query) -> list[N]:
        """The nodes the query requires, resolved against this graph; raises when one is not in it."""

    def brought(self, member: N, by: N) -> N:
        """``member`` of a contradiction component, made required because ``by`` is."""

    def neighbours(self, node_id: str) -> Sequence[Edge]:
        """Edges leaving ``node_id``, ordered by edge type, target node id, then edge id."""

    def node(self, node_id: str) -> N | None:
        """The node with this id as the traversal reaches it, or None when the graph does not hold it."""

    def components(self) -> Components[N]:
        """Every contradiction component of the graph."""
