"""A digest of each table of an index store, independent of the order rows were written in.

Two stores built from the same files under the same reading rules hold the same rows, whatever order a
refresh wrote them in, how it batched them or how many workers read the files: every row is keyed by paths
and content ids, never by a rowid or file id, and the rows of a table are sorted before hashing. A change
of extraction or of the store's writing that keeps :data:`~prooftext.store.refresh.READING_REVISION` must
keep these digests (``tests/store/test_index_contents.py``); ``bench/index_bench.py --digest`` prints them
for a real tree.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3

TABLE_QUERIES: dict[str, str] = {
    "files": (
        "SELECT path, size, sha256, kind, language, authority, freshness, sensitivity, line_count, text"
        " FROM files"
    ),
    "nodes": (
        "SELECT n.id, f.path, n.kind, n.name, n.qualname, n.symbol_kind, n.start_line, n.end_line,"
        " n.language, n.signature, n.docstring, n.parent_id FROM nodes n JOIN files f ON f.id = n.file_id"
    ),
    "edges": "SELECT e.id, f.path, e.type, e.source, e.target FROM edges e JOIN files f ON f.id = e.file_id",
    "uses": "SELECT f.path, u.node_id, u.name, u.line FROM uses u JOIN files f ON f.id = u.file_id",
    "imports": (
        "SELECT f.path, i.node_id, i.module, i.line, i.resolved_path FROM imports i"
        " JOIN files f ON f.id = i.file_id"
    ),
    "links": "SELECT f.path, l.node_id, l.target, l.line FROM links l JOIN files f ON f.id = l.file_id",
    "contradicts": "SELECT f.path, c.target FROM contradicts c JOIN files f ON f.id = c.file_id",
    "excluded": "SELECT path, reason, detail FROM excluded",
    "fts": (
        "SELECT n.id, t.title, t.labels, t.path, t.content FROM nodes_fts t JOIN nodes n ON n.rowid = t.rowid"
    ),
}
"""Each table's rows as content: paths and node ids stand for the store's own integer keys."""


def table_digests(conn: sqlite3.Connection) -> dict[str, str]:
    """Table name -> SHA-256 of its rows (see :data:`TABLE_QUERIES`), each row encoded as JSON, sorted."""
    out: dict[str, str] = {}
    for table, sql in TABLE_QUERIES.items():
        rows = sorted(json.dumps(list(row), ensure_ascii=True) for row in conn.execute(sql))
        digest = hashlib.sha256()
        for row in rows:
            digest.update(row.encode("ascii"))
            digest.update(b"\n")
        out[table] = f"{len(rows)}:{digest.hexdigest()}"
    return out
