"""The SQLite schema of the index store, as ordered migrations.

Each migration moves ``PRAGMA user_version`` up by one; a store newer than this code is refused rather than
misread. Text is stored once per file; nodes hold line ranges into it.
"""

from __future__ import annotations

import re
import sqlite3

from prooftext.errors import StoreSchemaError
from prooftext.store.fts import FTS_TOKENIZER

_MIGRATION_1 = f"""
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    inode INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    kind TEXT NOT NULL,
    language TEXT NOT NULL,
    authority TEXT NOT NULL,
    freshness TEXT NOT NULL,
    sensitivity TEXT NOT NULL,
    line_count INTEGER NOT NULL,
    text TEXT NOT NULL
);
CREATE TABLE nodes (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    qualname TEXT NOT NULL,
    symbol_kind TEXT NOT NULL,
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    language TEXT NOT NULL,
    signature TEXT NOT NULL,
    docstring TEXT NOT NULL,
    parent_id TEXT
);
CREATE INDEX nodes_file ON nodes(file_id);
CREATE INDEX nodes_name ON nodes(name);
CREATE INDEX nodes_parent ON nodes(parent_id);
CREATE TABLE edges (
    id TEXT NOT NULL,
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    type TEXT NOT NULL,
    source TEXT NOT NULL,
    target TEXT NOT NULL,
    PRIMARY KEY (id, file_id)
);
CREATE INDEX edges_source ON edges(source);
CREATE INDEX edges_target ON edges(target);
CREATE TABLE uses (
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    node_id TEXT NOT NULL,
    name TEXT NOT NULL,
    line INTEGER NOT NULL
);
CREATE INDEX uses_name ON uses(name);
CREATE INDEX uses_node ON uses(node_id);
CREATE TABLE imports (
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    node_id TEXT NOT NULL,
    module TEXT NOT NULL,
    line INTEGER NOT NULL,
    resolved_path TEXT
);
CREATE INDEX imports_file ON imports(file_id);
CREATE INDEX imports_resolved ON imports(resolved_path);
CREATE TABLE links (
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    node_id TEXT NOT NULL,
    target TEXT NOT NULL,
    line INTEGER NOT NULL
);
CREATE TABLE contradicts (
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    target TEXT NOT NULL
);
CREATE TABLE excluded (
    path TEXT PRIMARY KEY,
    reason TEXT NOT NULL,
    detail TEXT NOT NULL,
    size INTEGER,
    mtime_ns INTEGER,
    inode INTEGER
);
CREATE VIRTUAL TABLE nodes_fts USING fts5(title, labels, path, content, tokenize="{FTS_TOKENIZER}");
CREATE VIRTUAL TABLE nodes_vocab USING fts5vocab(nodes_fts, 'row');
"""

_MIGRATION_2 = """
CREATE INDEX IF NOT EXISTS edges_file ON edges(file_id);
CREATE INDEX IF NOT EXISTS uses_file ON uses(file_id);
CREATE INDEX IF NOT EXISTS links_file ON links(file_id);
CREATE INDEX IF NOT EXISTS contradicts_file ON contradicts(file_id);
"""
"""Deleting a changed file cascades to these tables; without an index on ``file_id`` each delete scanned
them whole (17 ms per file on a sympy store, 1 ms with the indexes)."""

_MIGRATION_3 = """
ALTER TABLE files ADD COLUMN ctime_ns INTEGER;
ALTER TABLE excluded ADD COLUMN ctime_ns INTEGER;
CREATE INDEX IF NOT EXISTS files_stat ON files(path, id, size, mtime_ns, inode, ctime_ns);
"""
"""A file's inode change time joins its stat signature: a copy that keeps size and mtime (``cp -p``) was
taken for unchanged, and the drift every pack then found was never repaired. Rows written before hold
None, so each file is read once more after the upgrade. An added column is stored after the file's text,
so reading it would read every text's overflow pages at each refresh (15 ms a refresh on sphinx); the
covering index serves the signatures of every file without touching the texts."""

_MIGRATION_4 = """
CREATE TABLE nodes_4 (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL,
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    qualname TEXT NOT NULL,
    symbol_kind TEXT NOT NULL,
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    language TEXT NOT NULL,
    signature TEXT NOT NULL,
    docstring TEXT NOT NULL,
    parent_id TEXT
);
INSERT INTO nodes_4 (rowid, id, file_id, kind, name, qualname, symbol_kind, start_line, end_line, language,
    signature, docstring, parent_id)
    SELECT rowid, id, file_id, kind, name, qualname, symbol_kind, start_line, end_line, language, signature,
    docstring, parent_id FROM nodes;
DROP TABLE nodes;
ALTER TABLE nodes_4 RENAME TO nodes;
CREATE UNIQUE INDEX nodes_id ON nodes(id);
CREATE INDEX nodes_file ON nodes(file_id);
CREATE INDEX nodes_name ON nodes(name);
CREATE INDEX nodes_parent ON nodes(parent_id);
CREATE TABLE edges_4 (
    id TEXT NOT NULL,
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    type TEXT NOT NULL,
    source TEXT NOT NULL,
    target TEXT NOT NULL
);
INSERT INTO edges_4 (id, file_id, type, source, target)
    SELECT id, file_id, type, source, target FROM edges ORDER BY rowid;
DROP TABLE edges;
ALTER TABLE edges_4 RENAME TO edges;
CREATE UNIQUE INDEX edges_key ON edges(id, file_id);
CREATE INDEX edges_source ON edges(source);
CREATE INDEX edges_target ON edges(target);
CREATE INDEX edges_file ON edges(file_id);
"""
"""A node's id and an edge's (id, file) key are unique through named indexes instead of constraints of
their tables, so that a first build defers them with the other secondary indexes: content ids are random,
and keeping those two ordered under every batch dirtied pages all over them (half of a first build's
store writes over 100,000 small files). A first build writes each file once, its nodes' ids distinct and
its edges deduplicated where they are read (:func:`prooftext.store.refresh.file_rows`), so creating
them at its end finds no duplicate; every other refresh writes with them in place."""

MIGRATIONS: tuple[str, ...] = (_MIGRATION_1, _MIGRATION_2, _MIGRATION_3, _MIGRATION_4)
SCHEMA_VERSION = len(MIGRATIONS)

_INDEX = re.compile(r"CREATE (UNIQUE )?INDEX (?:IF NOT EXISTS )?(\w+) ON (\w+\([^)]*\))")
KEPT_DURING_BUILD = frozenset({"files_stat"})
"""The one secondary index a first build keeps: a status check during it reads every file's signature."""


def _deferred_indexes() -> dict[str, str]:
    found: dict[str, str] = {}
    for script in MIGRATIONS:
        for unique, name, target in _INDEX.findall(script):
            if name not in KEPT_DURING_BUILD:
                found[name] = f"CREATE {unique}INDEX IF NOT EXISTS {name} ON {target}"
    return found


DEFERRED_INDEXES: dict[str, str] = _deferred_indexes()
"""Index name -> its statement, for the secondary indexes a first build drops and creates at its end:
creating an index over the rows once costs a fraction of keeping it ordered under every insert (a third
of a first build's store writes on sphinx). Only lookups need them, never the correctness of a row, so a
build killed before their creation leaves a store that answers (slowly) and that the next refresh
completes (see :func:`ensure_indexes`)."""


def drop_deferred_indexes(conn: sqlite3.Connection) -> None:
    """Drop the :data:`DEFERRED_INDEXES`, inside the caller's transaction (for a first build)."""
    for name in DEFERRED_INDEXES:
        conn.execute(f"DROP INDEX IF EXISTS {name}")


def missing_indexes(conn: sqlite3.Connection) -> list[str]:
    """The statements of the :data:`DEFERRED_INDEXES` the store lacks (a first build dropped them)."""
    present = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    return [sql for name, sql in DEFERRED_INDEXES.items() if name not in present]


def ensure_indexes(conn: sqlite3.Connection) -> None:
    """Create the indexes a first build deferred, inside the caller's transaction: at its end, or at the
    next refresh when it was killed before."""
    for sql in missing_indexes(conn):
        conn.execute(sql)


def migrate(conn: sqlite3.Connection) -> None:
    """Bring the store up to ``SCHEMA_VERSION``; refuse a store written by a newer prooftext."""
    current = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if current > SCHEMA_VERSION:
        raise StoreSchemaError(
            f"index store has schema version {current}, newer than this prooftext ({SCHEMA_VERSION})",
            found=current,
            supported=SCHEMA_VERSION,
        )
    if current == SCHEMA_VERSION:
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        # Re-read under the write lock: another process may have migrated meanwhile.
        current = int(conn.execute("PRAGMA user_version").fetchone()[0])
        for version in range(current, SCHEMA_VERSION):
            for statement in _statements(MIGRATIONS[version]):
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def create_all(conn: sqlite3.Connection) -> None:
    """Every migration's statements and the version, inside the caller's transaction (for an emptied store)."""
    for script in MIGRATIONS:
        for statement in _statements(script):
            conn.execute(statement)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";\n") if s.strip()]
