"""Opening a SQLite file the way every prooftext store does: WAL mode, a busy timeout, foreign keys on.

On a full disk a store still opens for reading: a WAL connection needs a shared-memory index (the ``-shm``
file, 32 KiB) that the first connection creates, and when the file system has no room for it the store is
opened again in exclusive locking mode, whose index lives in the process's memory (no ``-shm`` file). On a
read-only file system, where no ``-shm`` file can be created either, a store with no ``-wal`` file beside it
(every commit in the file itself) is opened as immutable: read-only, without locks, as nothing can change it."""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

SQLITE_READONLY = 8
SQLITE_IOERR = 10
SQLITE_CORRUPT = 11
SQLITE_FULL = 13
SQLITE_CANTOPEN = 14
SQLITE_NOTADB = 26
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


def _primary_code(exc: BaseException) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


DAMAGE_SIGNS = ("not a database", "malformed", "no such table", "no such column")
"""SQLite's words for a file that lost pages or schema objects its version creates (a table dropped by hand):
damage a rebuild repairs, not a busy, unreadable or failing disk."""


def is_damage(exc: BaseException) -> bool:
    """Whether ``exc`` says the database file itself is damaged (see :data:`DAMAGE_SIGNS`), rather than that it
    could not be opened, read or locked."""
    if _primary_code(exc) in (SQLITE_CORRUPT, SQLITE_NOTADB):
        return True
    return isinstance(exc, sqlite3.DatabaseError) and any(sign in str(exc) for sign in DAMAGE_SIGNS)


def is_unopenable(exc: BaseException) -> bool:
    """Whether ``exc`` says a database file could not be opened or written (``SQLITE_CANTOPEN``,
    ``SQLITE_READONLY``): a file system or a permission that refuses it, not damage."""
    if _primary_code(exc) in (SQLITE_CANTOPEN, SQLITE_READONLY):
        return True
    return "unable to open database file" in str(exc) or "readonly database" in str(exc)


def is_read_only_file_system(directory: Path) -> bool:
    """Whether ``directory`` lies on a file system mounted read-only."""
    try:
        return bool(os.statvfs(directory).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def why_unopenable(path: Path) -> str | None:
    """Why the database file ``path`` cannot be opened or written, when the file system says: it is mounted
    read-only, or this user may not write beside the file (where SQLite creates ``-wal`` and ``-shm``) or
    may not read and write the file."""
    if is_read_only_file_system(path.parent):
        return "the file system is read-only"
    if not os.access(path.parent, os.W_OK | os.X_OK):
        return f"no permission to create files in {path.parent.name}/"
    if os.path.exists(path) and not os.access(path, os.R_OK | os.W_OK):
        return "no permission to read and write it"
    return None


def _unchangeable(exc: BaseException, path: Path) -> bool:
    """Whether ``exc`` is a failure to open ``path`` on a read-only file system, where the file holds every
    commit (no ``-wal`` file with frames beside it): nothing can change it, so it may be read as immutable."""
    if not is_unopenable(exc) or not is_read_only_file_system(path.parent):
        return False
    try:
        return os.stat(f"{path}-wal").st_size == 0
    except FileNotFoundError:
        return True
    except OSError:
        return False


def _open_immutable(path: Path, *, shared: bool = False) -> sqlite3.Connection:
    """A read-only connection to ``path`` that neither locks nor reads a ``-wal`` file (``immutable=1``)."""
    uri = path.absolute().as_uri()
    conn = sqlite3.connect(
        f"{uri}?mode=ro&immutable=1", uri=True, isolation_level=None, check_same_thread=not shared
    )
    try:
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA schema_version").fetchone()
    except BaseException:
        conn.close()
        raise
    return conn


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
    On a full disk the store opens in exclusive locking mode, on a read-only file system as immutable (see the
    module). SQLite's errors propagate for the caller to name; the connection is closed when opening fails."""
    try:
        return _open(path, busy_timeout_ms, wal_lock, shared=shared, exclusive=False)
    except sqlite3.Error as exc:
        if _unchangeable(exc, path):
            return _open_immutable(path, shared=shared)
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
    connection cannot create the shared-memory index, one in exclusive locking mode that only reads, and on
    a read-only file system an immutable one (see the module). Any other error surfaces at the caller's first
    statement, as with a plain read-only connection."""
    # A quoted file URI: a root holding "?" or "#" must not end the path early (SQLite would open, and
    # create, another file outside the store, and drop mode=ro).
    uri = path.absolute().as_uri()
    conn = sqlite3.connect(f"{uri}?mode=ro", uri=True)
    try:
        conn.execute("PRAGMA schema_version").fetchone()
        return conn
    except sqlite3.Error as exc:
        if _unchangeable(exc, path):
            conn.close()
            return _open_immutable(path)
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


SIDE_FILES = ("-wal", "-shm", "-journal")
"""The files SQLite keeps beside a database while it is in use (a rollback journal, for a store not in WAL
mode)."""


@contextlib.contextmanager
def read_only_use(path: Path) -> Iterator[None]:
    """Around read-only connections to ``path``: leave no ``-wal`` or ``-shm`` file behind where there was
    none. A read-only connection cannot remove them (SQLite's last connection does, after a checkpoint), so
    when ``path`` had no side file before, a read-write connection reads once and closes after them: its
    close removes them only when it is the store's last connection and the ``-wal`` holds nothing not in
    the file, and leaves them to whoever else has the store open. A store found with side files keeps
    them, as it keeps whatever a ``-wal`` holds."""
    found = any(os.path.lexists(f"{path}{suffix}") for suffix in SIDE_FILES)
    try:
        yield
    finally:
        if not found and any(os.path.lexists(f"{path}{suffix}") for suffix in SIDE_FILES[:2]):
            _close_as_last(path)


def _close_as_last(path: Path) -> None:
    """Open ``path`` for reading and writing, read once (``query_only``: nothing is written) and close, so
    that SQLite ends its ``-wal`` and ``-shm`` files if this is the store's last connection."""
    with contextlib.suppress(sqlite3.Error):
        conn = sqlite3.connect(f"{path.absolute().as_uri()}?mode=rw", uri=True, timeout=0)
        try:
            conn.execute("PRAGMA query_only = ON")
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        finally:
            conn.close()


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
