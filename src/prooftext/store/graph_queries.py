"""Named queries the selection pipeline's SQLite view reads: nodes, edges, contradiction declarations.

A node row is read with the caller's ``columns`` (a select list over ``nodes n JOIN files f``), so the
view decides what a node carries; the statements themselves live here, beside the schema they read.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from prooftext.graph.model import NODE_FILE

_NODES = "FROM nodes n JOIN files f ON f.id = n.file_id"


def node_by_id(conn: sqlite3.Connection, columns: str, node_id: str) -> tuple[Any, ...] | None:
    """The node with this id, or None."""
    row: tuple[Any, ...] | None = conn.execute(
        f"SELECT {columns} {_NODES} WHERE n.id = ?", (node_id,)
    ).fetchone()
    return row


def file_node_by_path(conn: sqlite3.Connection, columns: str, path: str) -> tuple[Any, ...] | None:
    """The whole-file node of the indexed file at ``path``, or None."""
    row: tuple[Any, ...] | None = conn.execute(
        f"SELECT {columns} {_NODES} WHERE n.kind = '{NODE_FILE}' AND f.path = ?", (path,)
    ).fetchone()
    return row


def file_nodes(conn: sqlite3.Connection, columns: str, paths: Sequence[str]) -> list[tuple[Any, ...]]:
    """The whole-file nodes of the indexed files at ``paths`` (in no particular order)."""
    marks = ",".join("?" * len(paths))
    sql = f"SELECT {columns} {_NODES} WHERE n.kind = '{NODE_FILE}' AND f.path IN ({marks})"
    return list(conn.execute(sql, list(paths)))


def edges_from(conn: sqlite3.Connection, node_id: str) -> list[tuple[str, str, str]]:
    """``(type, target, edge id)`` of the edges leaving ``node_id``, in that order."""
    rows = conn.execute(
        "SELECT type, target, id FROM edges WHERE source = ? ORDER BY type, target, id", (node_id,)
    )
    return [(str(kind), str(target), str(edge_id)) for kind, target, edge_id in rows]


def contradiction_declarations(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """``(path, declared target)`` of every ``contradicts`` declaration, as the declaring file spells it."""
    rows = conn.execute("SELECT f.path, c.target FROM contradicts c JOIN files f ON f.id = c.file_id")
    return [(str(path), str(target)) for path, target in rows]


def file_paths(conn: sqlite3.Connection) -> set[str]:
    """The path of every indexed file."""
    return {str(row[0]) for row in conn.execute("SELECT path FROM files")}
