"""The SQLite index as a graph view of the selection pipeline: nodes are packet candidates.

Required references are node ids or portable repository paths (a path names its file's whole-file node);
contradiction components join the files whose ``contradicts`` declarations resolve to each other.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import replace

import prooftext.store.graph_queries as gq
import prooftext.store.queries as queries
from prooftext.errors import PathOutsideRootError, RequestError, SourceMissingError
from prooftext.graph.resolve import PathIndex
from prooftext.select.candidates import PHASE_REQUIRED, PHASE_TRAVERSAL, Candidate, candidate_from_row
from prooftext.select.components import Component, Components, connected
from prooftext.select.query import Query
from prooftext.select.view import Edge, is_node_id
from prooftext.store.queries import NODE_COLUMNS, NodeRow


def _portable(path: str) -> str:
    """A required path must be a portable path below the root; ``..`` and absolute paths never are.

    It must also be spelled exactly as the index spells it: ``./a.py`` or ``a//b`` would be a second
    spelling of a source, and provenance must name one path."""
    if path.startswith("/") or "\\" in path or ".." in path.split("/"):
        raise PathOutsideRootError(f"required path is outside the root: {path}", field="required", path=path)
    if "" in path.split("/") or "." in path.split("/"):
        raise RequestError(
            f"required path {path!r} is not in canonical form (no '.' or empty components)", field="required"
        )
    return path


def _path(cand: Candidate) -> str:
    return cand.path


class StoreView:
    """The index behind ``conn`` as a :class:`prooftext.select.view.GraphView` of candidates."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def required(self, query: Query) -> list[Candidate]:
        """Each required reference, in order; one that is not a member of the index is an error."""
        out: list[Candidate] = []
        for ref in query.required:
            if is_node_id(ref):
                row = gq.node_by_id(self.conn, NODE_COLUMNS, ref)
            else:
                row = gq.file_node_by_path(self.conn, NODE_COLUMNS, _portable(ref))
            if row is None:
                raise self._missing(ref)
            out.append(candidate_from_row(NodeRow(*row), PHASE_REQUIRED, "required"))
        return out

    def _missing(self, ref: str) -> SourceMissingError:
        """The error for a required reference that is not indexed, naming why when the scan left it out."""
        left_out = None if is_node_id(ref) else queries.exclusion_of(self.conn, _portable(ref))
        if left_out is None:
            return SourceMissingError(
                f"required reference is not in the index: {ref}", field="required", ref=ref
            )
        return SourceMissingError(
            f"required reference is not in the index: {ref} was left out ({left_out.reason}: "
            f"{left_out.detail or left_out.path}); {left_out.remedy}",
            field="required",
            ref=ref,
            reason=left_out.reason,
        )

    def brought(self, member: Candidate, by: Candidate) -> Candidate:
        return replace(member, phase=PHASE_REQUIRED, reason=f"contradicts {by.path}")

    def neighbours(self, node_id: str) -> Sequence[Edge]:
        return gq.edges_from(self.conn, node_id)

    def node(self, node_id: str) -> Candidate | None:
        row = gq.node_by_id(self.conn, NODE_COLUMNS, node_id)
        return None if row is None else candidate_from_row(NodeRow(*row), PHASE_TRAVERSAL, "traversal")

    def components(self) -> Components[Candidate]:
        """Files joined by resolved ``contradicts`` declarations; members are whole files, by path."""
        declared = gq.contradiction_declarations(self.conn)
        if not declared:
            return Components((), _path)
        index = PathIndex(gq.file_paths(self.conn))
        pairs = []
        for source, target in declared:
            other = index.resolve_declared(source, target)
            if other is not None and other != source:
                pairs.append((source, other))
        groups = []
        for paths in connected(pairs):
            rows = sorted((NodeRow(*r) for r in gq.file_nodes(self.conn, NODE_COLUMNS, paths)), key=_row_path)
            members = tuple(candidate_from_row(r, PHASE_TRAVERSAL, "contradiction") for r in rows)
            groups.append(Component(paths[0], members, frozenset(paths)))
        return Components(groups, _path)


def _row_path(row: NodeRow) -> str:
    return row.path
