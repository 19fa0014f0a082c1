"""Opening a SQLite file the way every prooftext store does: WAL mode, a busy timeout, foreign keys on."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path


def open_wal(
    path: Path,
    *,
    busy_timeout_ms: int,
    wal_lock: Callable[[], AbstractContextManager[object]],
    shared: bool = False,
) -> sqlite3.Connection:
    """A connection to ``path`` in autocommit mode (transactions are explicit), in WAL mode with foreign
    keys on, whose statements wait up to ``busy_timeout_ms`` for another connection's lock.

    The switch to WAL needs an exclusive lock, and when two connections attempt it on the same new file at
    once, SQLite answers one of them ``database is locked`` at once (deadlock avoidance bypasses the busy
    timeout). So only a file not yet in WAL mode switches, under ``wal_lock()`` (a lock across processes),
    and opening an existing store never waits on a writer. ``shared`` lets other threads use the connection.
    SQLite's errors propagate for the caller to name; the connection is closed when opening fails."""
    conn = sqlite3.connect(
        path, isolation_level=None, check_same_thread=not shared, timeout=busy_timeout_ms / 1000
    )
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        if str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower() != "wal":
            with wal_lock():
                conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA foreign_keys = ON")
    except BaseException:
        conn.close()
        raise
    return conn
