"""Named queries over the index tables: the statements the ranking runs, behind plain functions.

Each function takes a connection and plain values and returns plain rows, so a second store backend
implements this module and nothing above it changes. Statements with a parameter list are cut into chunks
of :data:`MAX_PARAMETERS` values each (SQLite bounds the variables of one statement).
"""

from __future__ import annotations

import os
import posixpath
import sqlite3
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

from prooftext.corpus.model import Exclusion
from prooftext.corpus.secrets import redact_path
from prooftext.graph.model import NODE_CHUNK, NODE_FILE, NODE_SYMBOL
from prooftext.store.fts import fts_quote

_T = TypeVar("_T")

MAX_PARAMETERS = 500
"""Values bound in one statement's ``IN (...)`` list."""

FTS_COLUMNS = ("title", "labels", "path", "content")
"""The full-text columns of ``nodes_fts``, in order: BM25 takes one weight per column."""

TIE_WINDOW = 2
"""A search reads this many times its limit in rows, so that the group of equal scores at the cut is
almost always complete without a second search (see docs/RANKING_NOTES.md)."""

NODE_COLUMNS = (
    "n.id, n.kind, f.path, n.name, n.qualname, n.symbol_kind, n.rowid, n.start_line, n.end_line, f.sha256,"
    " f.authority, f.sensitivity, f.freshness, n.file_id, f.kind"
)
"""The columns of a :class:`NodeRow`, in its field order, over ``nodes n JOIN files f``."""


@dataclass
class NodeIdentity:
    """What a node is: its id, kind, file path, name, qualified name and symbol kind."""

    node_id: str
    kind: str
    path: str
    name: str
    qualname: str
    symbol_kind: str


@dataclass
class NodeRow(NodeIdentity):
    """One node with the labels and digest of its file."""

    rowid: int
    start: int
    end: int
    sha256: str
    authority: str
    sensitivity: str
    freshness: str
    file_id: int
    file_kind: str


FileEntry = tuple[str, int, str, str, int, int]
"""A file's path, id, kind and SHA-256."""


def chunks(items: Sequence[_T], size: int = MAX_PARAMETERS) -> Iterator[Sequence[_T]]:
    """``items`` in consecutive slices of at most ``size``."""
    for i in range(0, len(items), size):
        yield items[i : i + size]


def _marks(values: Sequence[object]) -> str:
    return ",".join("?" * len(values))


def node_rows(conn: sqlite3.Connection, where: str, params: Sequence[object]) -> list[NodeRow]:
    """The node rows matching ``where`` (over ``nodes n JOIN files f``), in the order SQLite reads them."""
    sql = f"SELECT {NODE_COLUMNS} FROM nodes n JOIN files f ON f.id = n.file_id WHERE {where}"
    return [NodeRow(*r) for r in conn.execute(sql, params)]


def rows_by_rowid(conn: sqlite3.Connection, rowids: Sequence[int]) -> list[NodeRow]:
    """The rows of those ``rowids`` that exist, in no particular order."""
    out: list[NodeRow] = []
    for chunk in chunks([str(rowid) for rowid in rowids]):
        out.extend(node_rows(conn, f"n.rowid IN ({_marks(chunk)})", chunk))
    return out


def symbol_rows_named(conn: sqlite3.Connection, names: Sequence[str]) -> list[NodeRow]:
    """The symbols defined under any of ``names``."""
    out: list[NodeRow] = []
    for chunk in chunks(names):
        out.extend(node_rows(conn, f"n.kind = '{NODE_SYMBOL}' AND n.name IN ({_marks(chunk)})", chunk))
    return out


def file_node_rows(conn: sqlite3.Connection, file_ids: Sequence[int]) -> list[NodeRow]:
    """The whole-file nodes of ``file_ids``."""
    out: list[NodeRow] = []
    for chunk in chunks([str(fid) for fid in file_ids]):
        out.extend(node_rows(conn, f"n.kind = '{NODE_FILE}' AND n.file_id IN ({_marks(chunk)})", chunk))
    return out


def node_ids_for_rowids(conn: sqlite3.Connection, rowids: Sequence[int]) -> dict[int, str]:
    """The node id of each of ``rowids`` that exists."""
    out: dict[int, str] = {}
    for chunk in chunks(rowids):
        out.update(conn.execute(f"SELECT rowid, id FROM nodes WHERE rowid IN ({_marks(chunk)})", list(chunk)))
    return out


def generation(conn: sqlite3.Connection) -> tuple[str, int] | None:
    """The store's database file and its generation (raised by every refresh); None before the first.

    The file is read as bytes and decoded as the file system names it: a root whose path is not UTF-8 is
    named all the same."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
    if row is None:
        return None
    listed = "SELECT CAST(file AS BLOB) FROM pragma_database_list WHERE name = 'main'"
    return os.fsdecode(conn.execute(listed).fetchone()[0]), int(row[0])


def node_count(conn: sqlite3.Connection) -> int:
    """How many nodes the index holds."""
    return int(conn.execute("SELECT count(*) FROM nodes").fetchone()[0])


def term_document_count(conn: sqlite3.Connection, term: str, cap: int) -> int:
    """How many nodes hold ``term``, counted up to ``cap + 1`` (a bounded probe)."""
    probe = "SELECT count(*) FROM (SELECT rowid FROM nodes_fts WHERE nodes_fts MATCH ? LIMIT ?)"
    return int(conn.execute(probe, (fts_quote(term), cap + 1)).fetchone()[0])


def _match(phrases: Sequence[str], columns: Sequence[str]) -> str:
    match = " OR ".join(fts_quote(p) for p in phrases)
    return f"{{{' '.join(columns)}}} : ({match})" if columns else match


def _bm25(weights: Sequence[float]) -> str:
    return f"bm25(nodes_fts, {', '.join(str(w) for w in weights)})"


_UNPATHED = [0.0 if column == "path" else 1.0 for column in FTS_COLUMNS]
"""Every column but the path weighed alike, whatever a policy weighs them: a score of 0 means that nothing but
the path matched."""


def _bm25_scores(weights: Sequence[float], unpathed: bool = False) -> str:
    """The statement scoring every match; with ``unpathed``, also its score outside the path column (0 when
    nothing but the path matched)."""
    extra = f", {_bm25(_UNPATHED)} AS o" if unpathed else ""
    return f"SELECT rowid, {_bm25(weights)} AS s{extra} FROM nodes_fts WHERE nodes_fts MATCH ?"


@dataclass(frozen=True)
class LexicalHits:
    """A search's best nodes: row id to score (higher is better), best first, and the row ids among them
    that matched through their file's path alone (none of the searched words in their own text)."""

    scores: dict[int, float]
    path_only: frozenset[int] = frozenset()


def bm25_hits(
    conn: sqlite3.Connection,
    phrases: Sequence[str],
    limit: int,
    columns: Sequence[str],
    weights: Sequence[float],
) -> LexicalHits:
    """The best ``limit`` nodes holding any of ``phrases`` in ``columns`` (all when empty), by BM25 with one
    weight per column of :data:`FTS_COLUMNS`, best first, ties by node id; which of them matched through
    the path column alone (when the path column is searched and weighed).

    Row ids depend on the order in which refreshes inserted the files, so they must not decide which of
    equally scored nodes are kept or which comes first: the packet would then depend on the index's history
    and not only on the files. When the rows read end inside the group of scores equal to the cut's, the
    whole group is read by a second search."""
    match = _match(phrases, columns)
    unpathed = (not columns or "path" in columns) and weights[FTS_COLUMNS.index("path")] != 0
    scores = _bm25_scores(weights, unpathed)
    window = limit * TIE_WINDOW
    # (row id, score, score outside the path column: None when the path column is not searched)
    rows: list[tuple[int, float, float | None]] = [
        (r[0], r[1], r[2] if unpathed else None)
        for r in conn.execute(f"{scores} ORDER BY s, rowid LIMIT ?", (match, window + 1))
    ]
    if len(rows) > limit:
        edge = rows[limit - 1][1]
        rows = [r for r in rows if r[1] <= edge]
        if len(rows) > window:  # the group at the cut may go on past the rows read
            rows = [r for r in rows if r[1] != edge]
            tied = conn.execute(f"SELECT * FROM ({scores}) WHERE s = ?", (match, edge))
            rows.extend((r[0], edge, r[2] if unpathed else None) for r in tied)
    counts = Counter(score for _, score, _ in rows)
    ids = node_ids_for_rowids(conn, [rowid for rowid, score, _ in rows if counts[score] > 1])
    rows.sort(key=lambda r: (r[1], ids.get(r[0], "")))  # only tied rows need their node id
    kept = rows[:limit]
    return LexicalHits(
        {rowid: -score for rowid, score, _ in kept},
        frozenset(rowid for rowid, score, without in kept if without == 0 and score != 0),
    )


def file_list(conn: sqlite3.Connection) -> list[FileEntry]:
    """Every indexed file, by id: path, id, kind, SHA-256, size in bytes and line count."""
    return conn.execute("SELECT path, id, kind, sha256, size, line_count FROM files ORDER BY id").fetchall()


def opening_rows(conn: sqlite3.Connection, file_ids: Sequence[int]) -> list[NodeRow]:
    """Of the code files ``file_ids``, each one's chunk that starts where its first non-file node starts:
    the lines before its first definition."""
    if not file_ids:
        return []
    sql = (
        f"SELECT {NODE_COLUMNS} FROM nodes n JOIN files f ON f.id = n.file_id JOIN (SELECT file_id AS fid,"
        f" min(start_line) AS first FROM nodes WHERE file_id IN ({_marks(file_ids)}) AND kind != '{NODE_FILE}'"
        f" GROUP BY file_id) g ON g.fid = n.file_id AND g.first = n.start_line"
        f" WHERE n.kind = '{NODE_CHUNK}' AND f.kind = 'code'"
    )
    return [NodeRow(*r) for r in conn.execute(sql, list(file_ids))]


def node_spans(conn: sqlite3.Connection, file_id: int) -> list[tuple[int, int, int]]:
    """Every node of a file but the whole-file one: rowid, first line, last line."""
    sql = f"SELECT rowid, start_line, end_line FROM nodes WHERE file_id = ? AND kind != '{NODE_FILE}'"
    return conn.execute(sql, (file_id,)).fetchall()


def child_bounds(conn: sqlite3.Connection, node_ids: Sequence[str]) -> dict[str, tuple[int, int]]:
    """For each of ``node_ids`` with children: the first line of its first child and the last of its last."""
    bounds: dict[str, tuple[int, int]] = {}
    for chunk in chunks(node_ids):
        sql = (
            f"SELECT parent_id, min(start_line), max(end_line) FROM nodes WHERE parent_id IN ({_marks(chunk)})"
            " GROUP BY parent_id"
        )
        bounds.update({pid: (start, end) for pid, start, end in conn.execute(sql, chunk)})
    return bounds


def exclusions(conn: sqlite3.Connection, reason: str | None = None) -> list[Exclusion]:
    """The paths the last refresh left out, each with its reason, in path order."""
    where, params = ("WHERE reason = ?", (reason,)) if reason is not None else ("", ())
    rows = conn.execute(f"SELECT path, reason, detail FROM excluded {where} ORDER BY path, reason", params)
    return [Exclusion(path, why, detail or "") for path, why, detail in rows]


def exclusion_of(conn: sqlite3.Connection, path: str) -> Exclusion | None:
    """Why ``path`` is not in the index: its own exclusion row (keyed by its redacted path) or that of the
    nearest directory above it that the walk left out."""
    keys = [redact_path(path)]
    parent = posixpath.dirname(path)
    while parent:
        keys.append(parent)
        parent = posixpath.dirname(parent)
    for key in keys:
        row = conn.execute("SELECT path, reason, detail FROM excluded WHERE path = ?", (key,)).fetchone()
        if row is not None:
            return Exclusion(row[0], row[1], row[2] or "")
    return None
