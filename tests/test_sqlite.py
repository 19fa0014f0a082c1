"""The one SQLite opener: WAL under the caller's lock for a new file only, busy timeout, foreign keys."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from prooftext.sqlite import open_wal


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
