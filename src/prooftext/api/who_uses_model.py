"""What who-uses works with: the nodes it reports, the definitions it resolves names to, what a name
resolves to, and the store reads every language's classifier shares (:class:`WhoUsesStore`)."""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from prooftext.store.risk_queries import (
    file_and_symbol_nodes,
    file_lines,
    file_node_id,
    file_symbols,
    importers,
    member_symbols,
    nodes_by_ids,
    spelled_uses,
    symbol_row,
)


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
"""What a name resolves to: ("node", node id), ("module", path), :data:`UNKNOWN`, :data:`VARIABLE` or
:data:`OUTSIDE`."""
UNKNOWN: Target = ("unknown", "")
VARIABLE: Target = ("variable", "")
"""A module-level variable assigned a value (``session = LocalProxy(…)``): no definition the index holds."""
OUTSIDE: Target = ("outside", "")
"""A name of a module from outside the repository (``os.environ``, ``click.echo``): no definition of it."""


def importing_paths(conn: sqlite3.Connection, path: str) -> list[str]:
    """The other files whose imports resolve to the file at ``path``, in path order."""
    return sorted({n.path for n in nodes_by_id(conn, list(importers(conn, path)))} - {path})


def nodes_by_id(conn: sqlite3.Connection, ids: list[str]) -> list[Node]:
    return node_list(nodes_by_ids(conn, ids))


FOUND_CALL = "call"
FOUND_REFERENCE = "reference"
FOUND_IMPORT = "import"
FOUND_POSSIBLE = "possible"
FOUND_MENTION = "mention"
SELF_NAMES = frozenset({"self", "cls", "this"})
MAX_IMPORT_HOPS = 4
"""Re-exports followed (``flask.url_for`` → ``flask/__init__.py`` → ``helpers.url_for``)."""
CLASS_KINDS = frozenset({"class", "struct", "interface", "trait", "impl", "record", "enum"})


class WhoUsesStore:
    """What who-uses reads of the store for one request, cached: symbols, files' lines and nodes, class
    members and spelled uses. The language classifiers (:mod:`prooftext.api.who_uses_js`,
    :mod:`prooftext.api.who_uses_go`) build on it, and who-uses itself on them."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._syms: dict[str, Sym | None] = {}
        self._file_defs: dict[str, dict[str, list[Sym]]] = {}
        self._children: dict[str, dict[str, list[str]]] = {}
        self._file_nodes: dict[str, str | None] = {}
        self._spans: dict[str, list[Node]] = {}
        self._lines: dict[str, list[str]] = {}
        self._texts: dict[str, str] = {}

    def sym(self, node_id: str) -> Sym | None:
        if node_id not in self._syms:
            row = symbol_row(self.conn, node_id)
            self._syms[node_id] = Sym(*row) if row else None
        return self._syms[node_id]

    def defs(self, path: str) -> dict[str, list[Sym]]:
        """Symbols of a file by qualified name."""
        if path not in self._file_defs:
            out: dict[str, list[Sym]] = defaultdict(list)
            for row in file_symbols(self.conn, path):
                found = Sym(*row)
                self._syms[found.node_id] = found
                out[found.qualname].append(found)
            self._file_defs[path] = out
        return self._file_defs[path]

    def lines(self, path: str) -> list[str]:
        if path not in self._lines:
            self._lines[path] = file_lines(self.conn, path)
        return self._lines[path]

    def spans(self, path: str) -> list[Node]:
        """The file's own node and its symbols' nodes."""
        if path not in self._spans:
            self._spans[path] = node_list(file_and_symbol_nodes(self.conn, path))
        return self._spans[path]

    def file_id(self, path: str) -> str | None:
        """The node id of a file's own node (the parent of its top-level definitions)."""
        if path not in self._file_nodes:
            self._file_nodes[path] = file_node_id(self.conn, path)
        return self._file_nodes[path]

    def children(self, class_id: str) -> dict[str, list[str]]:
        if class_id not in self._children:
            out: dict[str, list[str]] = defaultdict(list)
            for node_id, name in member_symbols(self.conn, class_id):
                out[name].append(node_id)
            self._children[class_id] = out
        return self._children[class_id]

    def node(self, found: Sym) -> Node | None:
        return next((n for n in self.spans(found.path) if n.node_id == found.node_id), None)

    def text_of(self, found: Sym) -> str:
        """A definition's lines as the index holds them."""
        if found.node_id not in self._texts:
            node = self.node(found)
            lines = self.lines(found.path)[node.start_line - 1 : node.end_line] if node else []
            self._texts[found.node_id] = "\n".join(lines)
        return self._texts[found.node_id]

    def own_lines(self, holder: Sym, lines: list[str]) -> list[str]:
        """A definition's lines out of its file's ``lines``, without those of the definitions it holds (a
        class's fields, properties and ``use`` of traits, without its methods and inner classes)."""
        node = self.node(holder)
        if node is None:
            return []
        members = {m for found in self.children(holder.node_id).values() for m in found}
        inside = {
            number
            for inner in self.spans(holder.path)
            if inner.node_id in members
            for number in range(inner.start_line, inner.end_line + 1)
        }
        held = lines[node.start_line - 1 : node.end_line]
        return [line for number, line in enumerate(held, node.start_line) if number not in inside]

    def enclosing_class(self, node_id: str) -> Sym | None:
        current = self.sym(node_id)
        while current is not None:
            if current.symbol_kind in CLASS_KINDS:
                return current
            current = self.sym(current.parent_id) if current.parent_id else None
        return None

    def holder(self, path: str, line: int) -> Node | None:
        """The innermost node of the file holding ``line`` (its own node for top-level code)."""
        return min(
            (n for n in self.spans(path) if n.start_line <= line <= n.end_line),
            key=lambda n: n.end_line - n.start_line,
            default=None,
        )

    def spelled_uses(self, name: str, path: str | None = None) -> list[tuple[str, str, int, str]]:
        """(owner node id, spelled reference, line, path) of every spelled reference to ``name``."""
        return spelled_uses(self.conn, name, path)
