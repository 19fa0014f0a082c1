"""Named queries the repository map reads: every file, symbol and section, the names files use, and the
resolved imports between files."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

from prooftext.graph.model import NODE_SECTION, NODE_SYMBOL


def map_files(conn: sqlite3.Connection) -> Iterator[tuple[Any, ...]]:
    """``(id, path, sha256, authority, sensitivity, line_count)`` of every indexed file."""
    yield from conn.execute("SELECT id, path, sha256, authority, sensitivity, line_count FROM files")


def map_symbols(conn: sqlite3.Connection) -> Iterator[tuple[Any, ...]]:
    """``(id, file_id, kind, name, qualname, symbol_kind, start_line, end_line, signature, parent_id)`` of
    every symbol and section node."""
    yield from conn.execute(
        "SELECT id, file_id, kind, name, qualname, symbol_kind, start_line, end_line, signature, parent_id"
        f" FROM nodes WHERE kind IN ('{NODE_SYMBOL}', '{NODE_SECTION}')"
    )


def used_names(conn: sqlite3.Connection) -> Iterator[tuple[int, str, int]]:
    """``(file id, spelled use, times)``: how often each file records each spelled use."""
    for file_id, spelled, times in conn.execute(
        "SELECT file_id, name, count(*) FROM uses GROUP BY file_id, name"
    ):
        yield int(file_id), str(spelled), int(times)


def file_imports(conn: sqlite3.Connection) -> Iterator[tuple[int, int]]:
    """``(importing file id, imported file id)`` once per resolved import statement."""
    for a, b in conn.execute(
        "SELECT i.file_id, f.id FROM imports i JOIN files f ON f.path = i.resolved_path"
        " WHERE i.resolved_path IS NOT NULL"
    ):
        yield int(a), int(b)
