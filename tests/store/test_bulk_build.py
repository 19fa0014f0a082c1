"""A first build of many files defers its secondary indexes and syncs; it writes the same rows."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from tests.store.test_index_contents import TREE, build

import prooftext
from prooftext.store import refresh, schema
from prooftext.store.digest import table_digests
from prooftext.store.schema import DEFERRED_INDEXES, missing_indexes


def _indexes(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}


def test_a_bulk_first_build_writes_the_rows_of_an_ordinary_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ordinary = build(tmp_path / "a")
    monkeypatch.setattr(refresh, "BULK_MIN_FILES", 1)
    monkeypatch.setattr(refresh, "BATCH_FILES", 4)  # several commits without the indexes
    monkeypatch.setattr(refresh, "PARALLEL_MIN_FILES", 1)  # rows read in worker processes
    assert build(tmp_path / "b") == ordinary
    with prooftext.open(tmp_path / "b") as index:
        assert set(DEFERRED_INDEXES) <= _indexes(index.conn)
        assert index.conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL again


def test_a_bulk_first_build_creates_its_deferred_indexes_before_it_syncs_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for path, text in TREE.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    monkeypatch.setattr(refresh, "BULK_MIN_FILES", 1)
    seen: list[int] = []
    ensure = refresh.ensure_indexes

    def recorded(conn: sqlite3.Connection) -> None:
        seen.append(conn.execute("PRAGMA synchronous").fetchone()[0])
        ensure(conn)

    monkeypatch.setattr(refresh, "ensure_indexes", recorded)
    with prooftext.open(tmp_path) as index:
        index.refresh()
        assert seen == [0]  # OFF: its checkpoints wait on no disk
        assert not missing_indexes(index.conn)
        assert index.conn.execute("PRAGMA synchronous").fetchone()[0] == 1


def test_a_killed_bulk_build_is_completed_with_its_indexes_by_the_next_refresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = build(tmp_path / "a")
    root = tmp_path / "b"
    for path, text in TREE.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    monkeypatch.setattr(refresh, "BULK_MIN_FILES", 1)
    monkeypatch.setattr(refresh, "BATCH_FILES", 4)
    calls = 0
    flush = refresh._flush

    def killed(*args: object, **kwargs: object) -> int:
        nonlocal calls
        calls += 1
        if calls == 3:
            raise KeyboardInterrupt  # the process is stopped after two committed batches
        return flush(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(refresh, "_flush", killed)
    with prooftext.open(root) as index, pytest.raises(KeyboardInterrupt):
        index.refresh()
    monkeypatch.setattr(refresh, "_flush", flush)
    with prooftext.open(root) as index:
        assert missing_indexes(index.conn)  # the build stopped before creating them
        assert index.conn.execute("SELECT count(*) FROM files").fetchone()[0] == 8
        index.refresh()
        assert not missing_indexes(index.conn)
        assert index.conn.execute("PRAGMA synchronous").fetchone()[0] == 1
    # The files of the killed run are completed, not read twice: the same rows as one uninterrupted build.
    for path in ("blob.bin", "latin.txt"):
        (root / path).write_bytes((tmp_path / "a" / path).read_bytes())
    with prooftext.open(root) as index:
        index.refresh()
        assert table_digests(index.conn) == expected


def _version_3_tables() -> str:
    """Migration 1's nodes and edges tables and their indexes: the shape a store of version 3 has."""
    text = schema._MIGRATION_1
    return text[text.index("CREATE TABLE nodes") : text.index("CREATE TABLE uses")]


def test_a_store_of_schema_version_3_keeps_its_rows_and_gains_the_unique_indexes(tmp_path: Path) -> None:
    expected = build(tmp_path / "a")
    root = tmp_path / "b"
    build(root)
    with prooftext.open(root) as index:
        rows = sorted(index.conn.execute("SELECT rowid, id FROM nodes"))
    old = sqlite3.connect(root / ".prooftext" / "index.sqlite")
    old.executescript(
        "PRAGMA foreign_keys = OFF; BEGIN;"
        " CREATE TABLE n3 AS SELECT * FROM nodes; CREATE TABLE e3 AS SELECT * FROM edges;"
        f" DROP TABLE nodes; DROP TABLE edges; {_version_3_tables()}"
        " INSERT INTO nodes SELECT * FROM n3; INSERT INTO edges SELECT * FROM e3; DROP TABLE n3; DROP TABLE e3;"
        " PRAGMA user_version = 3; COMMIT;"
    )
    old.close()
    with prooftext.open(root) as index:
        conn = index.conn
        assert conn.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION
        assert {"nodes_id", "edges_key"} <= _indexes(conn) and not missing_indexes(conn)
        assert sorted(conn.execute("SELECT rowid, id FROM nodes")) == rows  # FTS rows keep their nodes
        assert table_digests(conn) == expected
        columns = [r[1] for r in conn.execute("PRAGMA table_info(nodes)")][1:]  # all but the rowid
        with pytest.raises(sqlite3.IntegrityError, match=r"nodes\.id"):
            conn.execute(f"INSERT INTO nodes ({', '.join(columns)}) SELECT {', '.join(columns)} FROM nodes")
        index.refresh()
        assert table_digests(conn) == expected
