"""Opening the store: a new store switches to WAL under the writer lock; an existing one opens without it."""

from __future__ import annotations

import fcntl
from pathlib import Path

import pytest

from prooftext.store import db


def _record_locks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = fcntl.flock

    def recording(fd: int, op: int) -> None:
        calls.append(op)
        real(fd, op)

    monkeypatch.setattr(db.fcntl, "flock", recording)
    return calls


def test_a_new_store_switches_to_wal_under_the_writer_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _record_locks(monkeypatch)
    conn = db.connect(tmp_path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert calls == [fcntl.LOCK_EX, fcntl.LOCK_UN]


def test_an_existing_store_opens_without_waiting_on_a_writer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db.connect(tmp_path).close()
    calls = _record_locks(monkeypatch)
    conn = db.connect(tmp_path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert calls == []
