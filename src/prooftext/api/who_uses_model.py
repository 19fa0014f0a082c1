"""What who-uses works with: the nodes it reports, the definitions it resolves names to, and what a name
resolves to."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from prooftext.store.risk_queries import nodes_by_ids


@dataclass(frozen=True)
class Node:
    node_id: str
    kind: str
    name: str
    qualname: str
    path: str
    start_line: int
    end_line: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "lines": [self.start_line, self.end_line],
            "node_id": self.node_id,
            "path": self.path,
            "qualname": self.qualname,
        }

    @property
    def order(self) -> tuple[str, int, str]:
        return (self.path, self.start_line, self.node_id)


def node_list(rows: Sequence[Sequence[Any]]) -> list[Node]:
    return sorted((Node(*r) for r in rows), key=lambda n: n.order)


@dataclass(frozen=True)
class Sym:
    node_id: str
    name: str
    qualname: str
    symbol_kind: str
    parent_id: str | None
    path: str
    signature: str
    language: str


@dataclass(frozen=True)
class Found:
    """One dependent: the node holding the reference, how it was found and where."""

    node: Node
    found_by: str
    line: int
    spelled: str


Target = tuple[str, str]
"""What a name resolves to: ("node", node id) or ("module", path)."""
UNKNOWN: Target = ("unknown", "")


def nodes_by_id(conn: sqlite3.Connection, ids: list[str]) -> list[Node]:
    return node_list(nodes_by_ids(conn, ids))
