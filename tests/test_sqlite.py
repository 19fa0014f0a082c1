"""The one SQLite opener: WAL under the caller's lock for a new file only, busy timeout, foreign keys."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import read_only_file_system
from prooftext.sqlite import open_read_only, open_wal, read_only_use


def test_a_new_file_switches_to_wal_under_the_lock_and_an_existing_one_never_waits(tmp_path: Path) -> None:
    taken: list[str] = []

    @contextlib.contextmanager
    def lock() -> Iterator[None]:
        taken.append("lock")
        yield

    path = tmp_path / "store.sqlite"
    first = open_wal(path, busy_timeout_ms=1234, wal_lock=lock)
    assert first.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert first.execute("PRAGMA busy_timeout").fetchone()[0] == 1234
    assert first.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert first.isolation_level is None and taken == ["lock"]
    first.close()
    open_wal(path, busy_timeout_ms=1234, wal_lock=lock).close()
    assert taken == ["lock"]


def test_a_failed_switch_propagates_the_error(tmp_path: Path) -> None:
    class Refused(Exception):
        pass

    @contextlib.contextmanager
    def refused() -> Iterator[None]:
        raise Refused
        yield

    with pytest.raises(Refused):
        open_wal(tmp_path / "store.sqlite", busy_timeout_ms=10, wal_lock=refused)


def _table(path: Path) -> Path:
    conn = open_wal(path, busy_timeout_ms=10, wal_lock=contextlib.nullcontext)
    conn.execute("CREATE TABLE t (x)")
    conn.execute("INSERT INTO t VALUES (1)")
    conn.close()
    return path


def test_a_file_on_a_read_only_file_system_is_read_as_immutable_and_refuses_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _table(tmp_path / "store.sqlite")
    read_only_file_system(monkeypatch, tmp_path)
    for conn in (open_read_only(path), open_wal(path, busy_timeout_ms=10, wal_lock=contextlib.nullcontext)):
        assert conn.execute("SELECT x FROM t").fetchall() == [(1,)]
        with pytest.raises(sqlite3.OperationalError, match="readonly database"):
            conn.execute("INSERT INTO t VALUES (2)")
        conn.close()


def test_a_file_with_a_wal_beside_it_on_a_read_only_file_system_is_not_read_as_immutable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _table(tmp_path / "store.sqlite")
    Path(f"{path}-wal").write_bytes(b"frames the file does not hold")
    read_only_file_system(monkeypatch, tmp_path)
    with pytest.raises(sqlite3.OperationalError, match="unable to open database file"):
        open_wal(path, busy_timeout_ms=10, wal_lock=contextlib.nullcontext)
    conn = open_read_only(path)
    with pytest.raises(sqlite3.OperationalError, match="unable to open database file"):
        conn.execute("SELECT x FROM t")
    conn.close()


def _read(path: Path) -> list[tuple[int]]:
    with read_only_use(path):
        conn = open_read_only(path)
        try:
            return conn.execute("SELECT x FROM t").fetchall()
        finally:
            conn.close()


def test_read_only_use_leaves_no_side_file_where_there_was_none(tmp_path: Path) -> None:
    path = _table(tmp_path / "store.sqlite")
    data = path.read_bytes()
    assert _read(path) == [(1,)]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store.sqlite"]
    assert path.read_bytes() == data


def test_read_only_use_keeps_a_wal_file_it_found_with_its_commits(tmp_path: Path) -> None:
    path = _table(tmp_path / "store.sqlite")
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("PRAGMA wal_autocheckpoint = 0")
    writer.execute("INSERT INTO t VALUES (2)")
    copy = tmp_path / "copy"
    copy.mkdir()
    for name in ("store.sqlite", "store.sqlite-wal"):  # as a writer that ended without a checkpoint left it
        (copy / name).write_bytes((tmp_path / name).read_bytes())
    writer.close()
    wal = (copy / "store.sqlite-wal").read_bytes()
    assert _read(copy / "store.sqlite") == [(1,), (2,)]
    assert (copy / "store.sqlite-wal").read_bytes() == wal
