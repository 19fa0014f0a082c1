"""Risk of changing (ADR-0025's pre-edit question): what depends on these paths or symbols, and which
decisions, constraints and documentation cover them."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prooftext.api.memory import existing_store
from prooftext.corpus.safeio import Refusal, display_name, split_portable
from prooftext.errors import PathOutsideRootError, RangeError, RequestError
from prooftext.graph.model import NODE_FILE, NODE_SECTION, NODE_SYMBOL
from prooftext.graph.resolve import MAX_REFERENCE_FANOUT
from prooftext.index import Index
from prooftext.memory.store import MemoryRecord
from prooftext.store.fts import fts_quote

RISK_DEFAULT_DEPTH = 1
RISK_DEFAULT_LIMIT = 100
MAX_DIRECTORY_FILES = 500
"""A directory target covers at most this many indexed files (the rest are reported as truncated)."""
MAX_DOC_HITS = 20
"""Documentation sections mentioning a target: at most this many."""
MAX_TARGET_CHARS = 4096
"""A risk target is at most this long (Linux's ``PATH_MAX``): no indexed path or name is longer, and a longer
pattern would pass SQLite's limit on LIKE patterns."""
MIN_BASENAME_CHARS = 4
"""A path's file name is matched in memory text only when it is at least this long (``a.py`` is noise)."""


_NODE_SQL = (
    "SELECT n.id, n.kind, n.name, n.qualname, f.path, n.start_line, n.end_line"
    " FROM nodes n JOIN files f ON f.id = n.file_id"
)


@dataclass(frozen=True)
class _Node:
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


def _nodes(conn: sqlite3.Connection, where: str, args: Sequence[Any]) -> list[_Node]:
    rows = conn.execute(f"{_NODE_SQL} WHERE {where}", tuple(args)).fetchall()
    return sorted((_Node(*r) for r in rows), key=lambda n: n.order)


def _is_path_like(ref: str) -> bool:
    return "/" in ref or "\\" in ref or ref.startswith(".") or "\x00" in ref


def _checked_path(ref: str) -> str:
    try:
        split_portable(ref)
    except Refusal as refusal:
        raise PathOutsideRootError(
            f"target {display_name(ref)!r} is not a path under the root: {refusal.detail}",
            field="targets",
            path=display_name(ref),
        ) from None
    return ref


def _like_prefix(path: str) -> str:
    return path.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "/%"


def _path_targets(conn: sqlite3.Connection, path: str) -> tuple[str, list[_Node], bool]:
    """(kind, nodes, truncated): a file's own node and its symbols, or every file under a directory."""
    where = "f.path = ? AND n.kind IN (?, ?)"
    found = _nodes(conn, where, (path, NODE_FILE, NODE_SYMBOL))
    if found:
        return "path", found, False
    files = [
        r[0]
        for r in conn.execute(
            "SELECT path FROM files WHERE path LIKE ? ESCAPE '\\' ORDER BY path LIMIT ?",
            (_like_prefix(path.rstrip("/")), MAX_DIRECTORY_FILES + 1),
        )
    ]
    truncated = len(files) > MAX_DIRECTORY_FILES
    nodes: list[_Node] = []
    for file_path in files[:MAX_DIRECTORY_FILES]:
        nodes.extend(_nodes(conn, where, (file_path, NODE_FILE, NODE_SYMBOL)))
    return "directory", nodes, truncated


def _resolve_target(conn: sqlite3.Connection, ref: str) -> tuple[str, list[_Node], bool]:
    if not isinstance(ref, str) or not ref.strip():
        raise RequestError("every target must be a non-empty string", field="targets")
    if len(ref) > MAX_TARGET_CHARS:
        raise RangeError(f"a target is at most {MAX_TARGET_CHARS} characters", field="targets")
    if _is_path_like(ref):
        return _path_targets(conn, _checked_path(ref.rstrip("/") or ref))
    exact_file = conn.execute("SELECT 1 FROM files WHERE path = ?", (ref,)).fetchone()
    if exact_file is not None:
        return _path_targets(conn, ref)
    symbols = _nodes(conn, "n.kind = ? AND (n.name = ? OR n.qualname = ?)", (NODE_SYMBOL, ref, ref))
    if symbols:
        return "symbol", symbols, False
    kind, nodes, truncated = _path_targets(conn, ref)  # a top-level directory named without a slash
    return (kind, nodes, truncated) if nodes else ("symbol", [], False)


def _definitions(conn: sqlite3.Connection, name: str) -> int:
    row = conn.execute(
        "SELECT count(*) FROM nodes WHERE kind = ? AND name = ?", (NODE_SYMBOL, name)
    ).fetchone()
    return int(row[0])


def _dependents_of(conn: sqlite3.Connection, node: _Node) -> tuple[list[tuple[_Node, str]], str | None]:
    """Direct dependents of one node, and a note when its name is too common to follow."""
    if node.kind == NODE_FILE:
        where = "n.id IN (SELECT node_id FROM imports WHERE resolved_path = ?)"
        return [(n, f"imports {node.path}") for n in _nodes(conn, where, (node.path,))], None
    if node.kind != NODE_SYMBOL:
        return [], None
    if _definitions(conn, node.name) > MAX_REFERENCE_FANOUT:
        return [], f"{node.name}: defined more than {MAX_REFERENCE_FANOUT} times; references not followed"
    users = _nodes(conn, "n.id IN (SELECT node_id FROM uses WHERE name = ?)", (node.name,))
    return [(n, f"references {node.qualname}") for n in users if n.node_id != node.node_id], None


def _walk_dependents(
    conn: sqlite3.Connection, roots: list[_Node], depth: int, limit: int
) -> tuple[list[dict[str, Any]], list[str], bool]:
    """Breadth-first over "is used by" and "is imported by", each node once, at most ``limit`` found."""
    seen = {n.node_id for n in roots}
    frontier = list(roots)
    found: list[dict[str, Any]] = []
    notes: list[str] = []
    for distance in range(1, depth + 1):
        next_frontier: list[_Node] = []
        for node in frontier:
            deps, note = _dependents_of(conn, node)
            if note and note not in notes:
                notes.append(note)
            for dep, via in deps:
                if dep.node_id in seen:
                    continue
                if len(found) >= limit:
                    return found, notes, True
                seen.add(dep.node_id)
                found.append({**dep.to_dict(), "distance": distance, "via": via})
                next_frontier.append(dep)
        frontier = next_frontier
    return found, notes, False


def _terms_of(ref: str, kind: str, nodes: Iterable[_Node]) -> list[str]:
    """Words that name a target in free text: the reference itself, a path's file name, symbol names."""
    terms = [ref.rstrip("/")]
    if kind != "symbol":
        base = ref.rstrip("/").rsplit("/", 1)[-1]
        if len(base) >= MIN_BASENAME_CHARS:
            terms.append(base)
    else:
        terms.extend(n.name for n in nodes)
    return list(dict.fromkeys(t for t in terms if t))


def _mentions(text: str, terms: Sequence[str]) -> list[str]:
    return [t for t in terms if re.search(rf"(?<![\w/.-]){re.escape(t)}(?![\w/-])", text, re.IGNORECASE)]


def _memory_cover(root: Path, terms: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {"constraints": [], "decisions": [], "other_memory": []}
    store = existing_store(root)
    if store is None or not terms:
        return out
    with store:
        records: list[MemoryRecord] = store.candidates()
    for record in records:
        matched = _mentions(record.text, terms)
        if not matched:
            continue
        bucket = {"constraint": "constraints", "decision": "decisions"}.get(record.kind, "other_memory")
        out[bucket].append({**record.to_dict(), "matched": matched})
    return out


def _docs_mentioning(conn: sqlite3.Connection, names: Sequence[str]) -> list[dict[str, Any]]:
    hits: dict[str, dict[str, Any]] = {}
    for name in names:
        rows = conn.execute(
            f"{_NODE_SQL} WHERE n.kind = ? AND n.rowid IN"
            " (SELECT rowid FROM nodes_fts WHERE nodes_fts MATCH ? LIMIT ?)",
            (NODE_SECTION, "content:" + fts_quote(name), MAX_DOC_HITS),
        ).fetchall()
        for row in rows:
            node = _Node(*row)
            entry = hits.setdefault(node.node_id, {**node.to_dict(), "mentions": []})
            entry["mentions"].append(name)
    return sorted(hits.values(), key=lambda d: (d["path"], d["lines"][0], d["node_id"]))[:MAX_DOC_HITS]


def risk_of_changing(
    index: Index,
    targets: Sequence[str],
    *,
    depth: int = RISK_DEFAULT_DEPTH,
    limit: int = RISK_DEFAULT_LIMIT,
) -> dict[str, Any]:
    """What depends on these paths or symbols in the graph, and which decisions and constraints cover them.

    Paths are repository-relative files or directories (anything that would leave the root is refused);
    other strings are symbol names or qualified names. Dependents are the symbols that reference a target's
    name and the files that import a target file, followed ``depth`` hops. Memory records (active decisions,
    constraints, discoveries, unresolved failures) and documentation sections that mention a target are
    listed with the words that matched.
    """
    if not targets:
        raise RequestError("name at least one path or symbol", field="targets")
    conn = index.conn
    resolved: list[dict[str, Any]] = []
    roots: list[_Node] = []
    terms: list[str] = []
    symbol_names: list[str] = []
    truncated = False
    for ref in targets:
        kind, nodes, cut = _resolve_target(conn, ref)
        truncated = truncated or cut
        resolved.append({"kind": kind, "matches": [n.to_dict() for n in nodes], "ref": ref})
        roots.extend(n for n in nodes if n.node_id not in {r.node_id for r in roots})
        terms.extend(_terms_of(ref, kind, nodes))
        symbol_names.extend(n.name for n in nodes if n.kind == NODE_SYMBOL)
    dependents, notes, walk_cut = _walk_dependents(conn, roots, depth, limit)
    files = sorted({d["path"] for d in dependents} | {n.path for n in roots})
    return {
        "dependents": dependents,
        "docs": _docs_mentioning(conn, list(dict.fromkeys(symbol_names))),
        "files_affected": files,
        "notes": notes,
        "targets": resolved,
        "truncated": truncated or walk_cut,
        "unresolved": [t["ref"] for t in resolved if not t["matches"]],
        **_memory_cover(index.root, list(dict.fromkeys(terms))),
    }
