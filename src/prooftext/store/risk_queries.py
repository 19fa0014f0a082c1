"""Named queries the risk-of-changing report and who-uses read: nodes by file, name or id, files under a
directory, a file's symbols, import bindings and class members, spelled uses and importers, and sections
whose text mentions a name.

A node row is ``(id, kind, name, qualname, path, start_line, end_line)``; a symbol row is ``(id, name,
qualname, symbol_kind, parent_id, path, signature, language)``.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from typing import Any

from prooftext.graph.model import NODE_FILE, NODE_SECTION, NODE_SYMBOL
from prooftext.store.fts import fts_quote

Row = tuple[Any, ...]
_NODE = (
    "SELECT n.id, n.kind, n.name, n.qualname, f.path, n.start_line, n.end_line"
    " FROM nodes n JOIN files f ON f.id = n.file_id"
)
_SYMBOL = (
    "SELECT n.id, n.name, n.qualname, n.symbol_kind, n.parent_id, f.path, n.signature, n.language"
    " FROM nodes n JOIN files f ON f.id = n.file_id"
)
ID_CHUNK = 500
"""Node ids looked up per statement (well under SQLite's limit on bound parameters)."""


def like_escape(text: str) -> str:
    """``text`` as a LIKE pattern matching it literally (with ``ESCAPE '\\'``)."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def file_and_symbol_nodes(conn: sqlite3.Connection, path: str) -> list[Row]:
    """The node rows of the file at ``path`` and of its symbols."""
    return conn.execute(
        f"{_NODE} WHERE f.path = ? AND n.kind IN (?, ?)", (path, NODE_FILE, NODE_SYMBOL)
    ).fetchall()


def files_under(conn: sqlite3.Connection, directory: str, limit: int) -> list[str]:
    """The paths of at most ``limit`` indexed files under ``directory``, in path order."""
    pattern = like_escape(directory) + "/%"
    rows = conn.execute(
        "SELECT path FROM files WHERE path LIKE ? ESCAPE '\\' ORDER BY path LIMIT ?", (pattern, limit)
    )
    return [str(r[0]) for r in rows]


def files_ending(conn: sqlite3.Connection, suffix: str) -> list[str]:
    """The paths of the indexed files that are ``suffix`` or end in ``/suffix``, in path order."""
    rows = conn.execute(
        "SELECT path FROM files WHERE path = ? OR path LIKE ? ESCAPE '\\' ORDER BY path",
        (suffix, "%/" + like_escape(suffix)),
    )
    return [str(r[0]) for r in rows]


def is_indexed_file(conn: sqlite3.Connection, path: str) -> bool:
    return conn.execute("SELECT 1 FROM files WHERE path = ?", (path,)).fetchone() is not None


def symbols_named(conn: sqlite3.Connection, name: str) -> list[Row]:
    """The node rows of the symbols whose name or qualified name is ``name``."""
    return conn.execute(
        f"{_NODE} WHERE n.kind = ? AND (n.name = ? OR n.qualname = ?)", (NODE_SYMBOL, name, name)
    ).fetchall()


def definitions_named(
    conn: sqlite3.Connection, name: str, kinds: Sequence[str], languages: Sequence[str]
) -> list[Row]:
    """The symbol rows of the definitions of ``kinds`` (``function``, ``method``, ``struct`` …) named
    ``name`` in files of ``languages``."""
    kind_marks, language_marks = ", ".join("?" * len(kinds)), ", ".join("?" * len(languages))
    return conn.execute(
        f"{_SYMBOL} WHERE n.kind = ? AND n.name = ? AND n.symbol_kind IN ({kind_marks})"
        f" AND n.language IN ({language_marks}) ORDER BY f.path, n.start_line",
        (NODE_SYMBOL, name, *kinds, *languages),
    ).fetchall()


def symbols_spelling(conn: sqlite3.Connection, text: str) -> list[Row]:
    """The node rows of the symbols whose signature holds ``text`` (a scan: for a target nothing else names)."""
    return conn.execute(
        f"{_NODE} WHERE n.kind = ? AND instr(n.signature, ?) > 0", (NODE_SYMBOL, text)
    ).fetchall()


def symbols_of_files_holding(conn: sqlite3.Connection, text: str) -> list[Row]:
    """The node rows of the symbols of the files whose text holds ``text`` (a scan of the files)."""
    return conn.execute(
        f"{_NODE} WHERE n.kind = ? AND n.file_id IN (SELECT id FROM files WHERE instr(text, ?) > 0)",
        (NODE_SYMBOL, text),
    ).fetchall()


def nodes_by_ids(conn: sqlite3.Connection, ids: Sequence[str]) -> list[Row]:
    """The node rows of ``ids`` (those that exist), in no particular order."""
    out: list[Row] = []
    for start in range(0, len(ids), ID_CHUNK):
        chunk = list(ids[start : start + ID_CHUNK])
        out.extend(conn.execute(f"{_NODE} WHERE n.id IN ({','.join('?' * len(chunk))})", chunk).fetchall())
    return out


def indexed_paths(conn: sqlite3.Connection) -> list[str]:
    """Every indexed file's path, in path order."""
    return [str(r[0]) for r in conn.execute("SELECT path FROM files ORDER BY path")]


def symbol_row(conn: sqlite3.Connection, node_id: str) -> Row | None:
    row: Row | None = conn.execute(
        f"{_SYMBOL} WHERE n.id = ? AND n.kind = ?", (node_id, NODE_SYMBOL)
    ).fetchone()
    return row


def file_symbols(conn: sqlite3.Connection, path: str) -> list[Row]:
    """The symbol rows of the file at ``path``."""
    return conn.execute(f"{_SYMBOL} WHERE f.path = ? AND n.kind = ?", (path, NODE_SYMBOL)).fetchall()


def file_node_id(conn: sqlite3.Connection, path: str) -> str | None:
    """The id of the whole-file node of ``path``."""
    row = conn.execute(
        "SELECT n.id FROM nodes n JOIN files f ON f.id = n.file_id WHERE f.path = ? AND n.kind = ?",
        (path, NODE_FILE),
    ).fetchone()
    return str(row[0]) if row else None


def import_uses(conn: sqlite3.Connection, path: str) -> list[str]:
    """The spelled import bindings (``… from …``, ``… import…``) the file at ``path`` records."""
    rows = conn.execute(
        "SELECT u.name FROM uses u JOIN files f ON f.id = u.file_id WHERE f.path = ?"
        " AND (u.name LIKE '% from %' OR u.name LIKE '% import%')",
        (path,),
    )
    return [str(r[0]) for r in rows]


def member_symbols(conn: sqlite3.Connection, class_id: str) -> list[tuple[str, str]]:
    """``(node id, name)`` of the symbols whose parent is ``class_id``."""
    rows = conn.execute(
        "SELECT id, name FROM nodes WHERE parent_id = ? AND kind = ?", (class_id, NODE_SYMBOL)
    )
    return [(str(a), str(b)) for a, b in rows]


def spelled_uses(
    conn: sqlite3.Connection, name: str, path: str | None = None
) -> list[tuple[str, str, int, str]]:
    """``(owner node id, spelled use, line, path)`` of every spelled use of ``name`` (in ``path`` only when
    given)."""
    sql = "SELECT u.node_id, u.name, u.line, f.path FROM uses u JOIN files f ON f.id = u.file_id WHERE u.name >= ? AND u.name < ?"
    args: tuple[Any, ...] = (name + " ", name + "!")
    if path is not None:
        sql += " AND f.path = ?"
        args = (*args, path)
    return [(str(a), str(b), int(c), str(d)) for a, b, c, d in conn.execute(sql, args)]


def importers(conn: sqlite3.Connection, path: str) -> dict[str, int]:
    """Each node that imports the file at ``path``, with the first line it does so."""
    rows = conn.execute(
        "SELECT node_id, min(line) FROM imports WHERE resolved_path = ? GROUP BY node_id", (path,)
    )
    return {str(r[0]): int(r[1]) for r in rows}


def sections_mentioning(conn: sqlite3.Connection, name: str, limit: int) -> list[Row]:
    """The node rows of at most ``limit`` sections whose text holds ``name`` as a word."""
    return conn.execute(
        f"{_NODE} WHERE n.kind = ? AND n.rowid IN (SELECT rowid FROM nodes_fts WHERE nodes_fts MATCH ? LIMIT ?)",
        (NODE_SECTION, "content:" + fts_quote(name), limit),
    ).fetchall()


def go_module_files(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """``(path, text)`` of every indexed ``go.mod``."""
    rows = conn.execute("SELECT path, text FROM files WHERE path = 'go.mod' OR path LIKE '%/go.mod'")
    return [(str(a), str(b)) for a, b in rows]


def go_package_clause(conn: sqlite3.Connection, directory: str) -> str | None:
    """The name in the ``package`` clause of the first indexed Go file (not a test's) directly in
    ``directory``, None when it holds none."""
    prefix = f"{directory}/" if directory else ""
    rows = conn.execute(
        "SELECT path, text FROM files WHERE path LIKE ? ESCAPE '\\' AND path LIKE '%.go' ORDER BY path",
        (like_escape(prefix) + "%",),
    )
    for path, text in rows:
        rest = str(path)[len(prefix) :]
        if "/" in rest or rest.endswith("_test.go"):
            continue
        found = _GO_PACKAGE.search(str(text))
        if found:
            return found.group(1)
    return None


_GO_PACKAGE = re.compile(r"^package\s+([A-Za-z_]\w*)", re.MULTILINE)


def file_imports(conn: sqlite3.Connection, path: str) -> list[tuple[str, str | None, int]]:
    """``(module as written, resolved path or None, line)`` of each import of the file at ``path``."""
    rows = conn.execute(
        "SELECT i.module, i.resolved_path, i.line FROM imports i JOIN files f ON f.id = i.file_id"
        " WHERE f.path = ?",
        (path,),
    )
    return [(str(a), None if b is None else str(b), int(c)) for a, b, c in rows]


def module_importers(conn: sqlite3.Connection, module: str, language: str) -> dict[str, int]:
    """Each node of a file in ``language`` that imports ``module`` as written, with the first line it does so."""
    rows = conn.execute(
        "SELECT i.node_id, min(i.line) FROM imports i JOIN files f ON f.id = i.file_id"
        " WHERE i.module = ? AND f.language = ? GROUP BY i.node_id",
        (module, language),
    )
    return {str(r[0]): int(r[1]) for r in rows}


def code_files_spelling(conn: sqlite3.Connection, name: str, limit: int) -> list[str]:
    """The paths of at most ``limit`` code files whose indexed text holds the word ``name`` (through the
    full-text index when ``name`` is one of its tokens, else a scan), in path order."""
    if re.fullmatch(r"\w+", name):
        rows = conn.execute(
            "SELECT DISTINCT f.path FROM nodes n JOIN files f ON f.id = n.file_id WHERE f.kind = 'code'"
            " AND n.rowid IN (SELECT rowid FROM nodes_fts WHERE nodes_fts MATCH ?) ORDER BY f.path LIMIT ?",
            ("content:" + fts_quote(name), limit),
        )
    else:
        rows = conn.execute(
            "SELECT path FROM files WHERE kind = 'code' AND instr(text, ?) > 0 ORDER BY path LIMIT ?",
            (name, limit),
        )
    return [str(r[0]) for r in rows]


def file_lines(conn: sqlite3.Connection, path: str) -> list[str]:
    """The lines of the indexed file at ``path`` as the index holds them (none when it is not indexed)."""
    row = conn.execute("SELECT text FROM files WHERE path = ?", (path,)).fetchone()
    return str(row[0]).splitlines() if row else []


def receiver_uses(conn: sqlite3.Connection, name: str) -> list[tuple[str, str, int, str]]:
    """``(owner node id, spelled use, line, path)`` of the spelled uses whose receiver starts with ``name``
    (``make_context call run_command``, ``x read name.y``), read in the files whose text holds the word (through
    the full-text index when ``name`` is one of its tokens, else every file)."""
    sql = (
        "SELECT u.node_id, u.name, u.line, f.path FROM uses u JOIN files f ON f.id = u.file_id"
        " WHERE (u.name LIKE ? ESCAPE '\\' OR u.name LIKE ? ESCAPE '\\')"
    )
    escaped = like_escape(name)
    args: tuple[Any, ...] = (f"% {escaped}", f"% {escaped}.%")
    if re.fullmatch(r"\w+", name):
        sql += (
            " AND u.file_id IN (SELECT n.file_id FROM nodes n WHERE n.rowid IN"
            " (SELECT rowid FROM nodes_fts WHERE nodes_fts MATCH ?))"
        )
        args = (*args, "content:" + fts_quote(name))
    return [(str(a), str(b), int(c), str(d)) for a, b, c, d in conn.execute(sql, args)]
