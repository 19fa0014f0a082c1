"""Opening a SQLite file the way every prooftext store does: WAL mode, a busy timeout, foreign keys on.

On a full disk a store still opens for reading: a WAL connection needs a shared-memory index (the ``-shm``
file, 32 KiB) that the first connection creates, and when the file system has no room for it the store is
opened again in exclusive locking mode, whose index lives in the process's memory (no ``-shm`` file)."""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

SQLITE_FULL = 13
SQLITE_IOERR = 10
SQLITE_IOERR_SHMSIZE = 4874
"""The shared-memory index could not grow: SQLite's word for a file system without room for it."""
LOW_SPACE_BYTES = 64 * 1024
"""Below this much free space an I/O error of SQLite's (a write, an fsync, a truncate) is a full disk."""


def free_bytes(directory: Path) -> int | None:
    """The bytes an unprivileged writer may still use in ``directory``'s file system, or None if unknown."""
    try:
        stats = os.statvfs(directory)
    except OSError:
        return None
    return stats.f_bavail * stats.f_frsize


def is_disk_full(exc: BaseException, path: Path | None) -> bool:
    """Whether ``exc``, raised while using the SQLite file ``path`` (or writing beside it), means the file
    system is full: ``SQLITE_FULL``, a shared-memory index that cannot grow, ``ENOSPC``/``EDQUOT``, or
    (when ``path`` is known) another I/O error while less than :data:`LOW_SPACE_BYTES` are free."""
    if isinstance(exc, OSError):
        return exc.errno in (errno.ENOSPC, errno.EDQUOT)
    code = getattr(exc, "sqlite_errorcode", None)
    if not isinstance(code, int):
        return "database or disk is full" in str(exc)
    if code & 0xFF == SQLITE_FULL or code == SQLITE_IOERR_SHMSIZE:
        return True
    if code & 0xFF != SQLITE_IOERR or path is None:
        return False
    free = free_bytes(path.parent)
    return free is not None and free < LOW_SPACE_BYTES


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
    On a full disk the store opens in exclusive locking mode (see the module). SQLite's errors propagate for
    the caller to name; the connection is closed when opening fails."""
    try:
        return _open(path, busy_timeout_ms, wal_lock, shared=shared, exclusive=False)
    except sqlite3.Error as exc:
        if not is_disk_full(exc, path):
            raise
    conn = _open(path, busy_timeout_ms, wal_lock, shared=shared, exclusive=True)
    _remove_shared_memory(path)
    return conn


def is_exclusive(conn: sqlite3.Connection) -> bool:
    """Whether ``conn`` was opened in exclusive locking mode (on a full disk): it locks out every other
    connection to its file, this process's included, until it closes."""
    return str(conn.execute("PRAGMA locking_mode").fetchone()[0]).lower() == "exclusive"


def open_read_only(path: Path) -> sqlite3.Connection:
    """A connection that reads ``path`` and never writes it (``mode=ro``); on a full disk, where a read-only
    connection cannot create the shared-memory index, one in exclusive locking mode that only reads. Any
    other error surfaces at the caller's first statement, as with a plain read-only connection."""
    # A quoted file URI: a root holding "?" or "#" must not end the path early (SQLite would open, and
    # create, another file outside the store, and drop mode=ro).
    uri = path.absolute().as_uri()
    conn = sqlite3.connect(f"{uri}?mode=ro", uri=True)
    try:
        conn.execute("PRAGMA schema_version").fetchone()
        return conn
    except sqlite3.Error as exc:
        if not is_disk_full(exc, path):
            return conn
    conn.close()
    conn = sqlite3.connect(f"{uri}?mode=rw", uri=True)
    try:
        conn.execute("PRAGMA locking_mode = EXCLUSIVE")
        conn.execute("PRAGMA schema_version").fetchone()  # takes the exclusive lock
    except BaseException:
        conn.close()
        raise
    _remove_shared_memory(path)
    return conn


def _remove_shared_memory(path: Path) -> None:
    """Remove the ``-shm`` file a failed open left, while this process holds the store's exclusive lock: no
    other connection maps it (nor may one until the lock is released), and SQLite's last connection would
    have removed it. The connection's ``-wal`` file is removed when it closes."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(f"{path}-shm")


def _open(
    path: Path,
    busy_timeout_ms: int,
    wal_lock: Callable[[], AbstractContextManager[object]],
    *,
    shared: bool,
    exclusive: bool,
) -> sqlite3.Connection:
    conn = sqlite3.connect(
        path, isolation_level=None, check_same_thread=not shared, timeout=busy_timeout_ms / 1000
    )
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        if exclusive:
            conn.execute("PRAGMA locking_mode = EXCLUSIVE")
        if str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower() != "wal":
            with wal_lock():
                conn.execute("PRAGMA journal_mode = WAL")
        if exclusive:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # takes the exclusive lock
        conn.execute("PRAGMA foreign_keys = ON")
    except BaseException:
        conn.close()
        raise
    return conn
