"""Opening the index store: WAL mode, one writer at a time, readers never blocked."""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

from prooftext.corpus.safeio import ignore_in_git, open_root
from prooftext.corpus.stores import INDEX_FILE, STORE_DIR
from prooftext.errors import DiskFullError, StoreBusyError, StoreCorruptError, StoreError
from prooftext.sqlite import is_damage, is_disk_full, is_unopenable, open_wal, why_unopenable
from prooftext.store.schema import create_all, migrate

LOCK_FILE = "index.lock"
SYNCHRONOUS = "NORMAL"
"""WAL with ``NORMAL``: a commit is not synced, a checkpoint is; a crash of the system may lose the last
commits, never the store (a first build of many files syncs less, see prooftext.store.refresh)."""
BUSY_TIMEOUT_MS = 30_000
"""How long a statement waits for another connection's lock before ``store_busy``."""


def store_dir(root: Path) -> Path:
    return root / STORE_DIR


def _ensure_dir(root: Path) -> Path:
    directory = store_dir(root)
    odd = StoreError(f"{STORE_DIR} under the root is not a plain directory")
    try:
        directory.mkdir(exist_ok=True)
    except FileExistsError:
        raise odd from None  # a file (or a link to one) holds the name
    except OSError as exc:
        raise StoreError(f"cannot create {STORE_DIR}/ under the root: {exc.strerror}") from None
    if directory.is_symlink() or not directory.is_dir():
        raise odd
    if not os.path.lexists(directory / INDEX_FILE):
        ignore_in_git(directory)  # before the store exists: a .gitignore the user removed stays removed
    return directory


def _check_store_file(path: Path) -> None:
    """The store file, when it exists, must be a regular file: SQLite follows a symbolic link, and a
    repository could ship ``.prooftext/index.sqlite`` pointing at any database of the user's (memory, or a
    file outside the root) for a refresh or a rebuild to write into."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StoreError(f"cannot inspect {STORE_DIR}/{path.name}: {exc.strerror}") from None
    if not stat.S_ISREG(mode):
        kind = "a symbolic link" if stat.S_ISLNK(mode) else "not a regular file"
        raise StoreError(f"{STORE_DIR}/{path.name} is {kind}; prooftext neither follows nor replaces it")


def connect(root: Path, *, create: bool = True) -> sqlite3.Connection:
    """A connection to ``ROOT/.prooftext/index.sqlite`` with the schema migrated; a new store switches to WAL
    under the writer lock."""
    path = (_ensure_dir(root) if create else store_dir(root)) / INDEX_FILE
    _check_store_file(path)
    try:
        conn = open_wal(
            path, busy_timeout_ms=BUSY_TIMEOUT_MS, wal_lock=lambda: writer_lock(root), shared=True
        )
        try:
            conn.execute(f"PRAGMA synchronous = {SYNCHRONOUS}")
            migrate(conn)
        except BaseException:
            conn.close()
            raise
    except sqlite3.DatabaseError as exc:
        raise _translate(exc, path) from None
    return conn


def _translate(exc: sqlite3.Error, path: Path, *, located: bool = True) -> StoreError | DiskFullError:
    text = str(exc)
    if is_disk_full(exc, path if located else None):
        return DiskFullError(
            f"no space left for the index store {STORE_DIR}/{path.name}: {text} (what failed was undone; free"
            " some space and retry)"
        )
    if "locked" in text or "busy" in text:
        return StoreBusyError(f"index store is busy: {text}")
    if is_damage(exc):
        return StoreCorruptError(
            f"index store at {STORE_DIR}/{path.name} is corrupt: {text} (repair: prooftext index --rebuild)"
        )
    if is_unopenable(exc):
        why = why_unopenable(path) if located else None
        return StoreError(
            f"cannot use the index store {STORE_DIR}/{path.name}: {text}" + (f" ({why})" if why else "")
        )
    return StoreError(f"index store error: {text}")


def translate(exc: sqlite3.Error) -> StoreError | DiskFullError:
    """The project error for a SQLite error raised while using the store."""
    return _translate(exc, Path(INDEX_FILE), located=False)


@contextlib.contextmanager
def store_errors() -> Iterator[None]:
    """A SQLite error raised by a read inside (a store damaged under a reader, a table dropped by hand) is a
    coded store error, not a crash."""
    try:
        yield
    except sqlite3.Error as exc:
        raise translate(exc) from None


@contextlib.contextmanager
def writer_lock(root: Path) -> Iterator[None]:
    """Serialize writers across processes; SQLite's WAL keeps readers unblocked meanwhile."""
    path = _ensure_dir(root) / LOCK_FILE
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise StoreError(
            f"cannot take the index store's writer lock {STORE_DIR}/{LOCK_FILE}: {exc.strerror}"
        ) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


STORE_SUFFIXES = ("", "-wal", "-shm")
"""The store file and the two files SQLite's WAL mode keeps beside it."""
RESET_IN_PLACE = "in_place"
RESET_RECREATED = "recreated"


def reset(root: Path) -> str:
    """Empty the index store of ``root`` so that the next refresh reads every file again.

    The store is emptied in place: in one transaction every table, index and trigger is dropped and the
    schema built again, so another process's handle sees either the old store or an empty one of the same
    version (never a store without tables), and never a deleted file. A file SQLite cannot use as a
    database at all is replaced instead; any other failure (busy, disk full, read-only) is raised, and no
    file is deleted. Memory and artifacts under ``.prooftext/`` are never touched. Returns
    :data:`RESET_IN_PLACE` or :data:`RESET_RECREATED`. A root that cannot be opened is the user's error
    (``root_unreadable``), as for a refresh, before anything is created under it."""
    os.close(open_root(root))
    path = _ensure_dir(root) / INDEX_FILE
    with writer_lock(root):
        _check_store_file(path)
        try:
            _empty(path)
            return RESET_IN_PLACE
        except sqlite3.Error as exc:
            error = _translate(exc, path)
            if not isinstance(error, StoreCorruptError):
                raise error from None
        for suffix in STORE_SUFFIXES:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{path}{suffix}")
        return RESET_RECREATED


def _empty(path: Path) -> None:
    # Opened as every store connection is (the caller holds the writer lock): on a full disk in exclusive
    # mode, whose shared-memory index is in memory, so a failed reset leaves no -shm or -wal file behind.
    conn = open_wal(path, busy_timeout_ms=BUSY_TIMEOUT_MS, wal_lock=contextlib.nullcontext)
    try:
        conn.execute("PRAGMA foreign_keys = OFF")  # the tables go together; no row is checked on the way
        conn.execute("BEGIN IMMEDIATE")
        try:
            # A virtual table first: dropping it drops its shadow tables, which are listed as tables too.
            objects = conn.execute(
                "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
                " ORDER BY sql NOT LIKE 'CREATE VIRTUAL TABLE%', type = 'table', name"
            ).fetchall()
            for kind, name in objects:
                quoted = '"' + name.replace('"', '""') + '"'
                conn.execute(f"DROP {kind.upper()} IF EXISTS {quoted}")
            create_all(conn)
            conn.execute("COMMIT")
        except BaseException:
            _rollback(conn)
            raise
    finally:
        conn.close()


def _rollback(conn: sqlite3.Connection) -> None:
    """Undo the open transaction; SQLite may already have rolled it back itself (disk full, I/O error)."""
    if conn.in_transaction:
        conn.execute("ROLLBACK")


def _begin(conn: sqlite3.Connection, statement: str) -> None:
    try:
        conn.execute(statement)
    except sqlite3.Error as exc:
        raise translate(exc) from None


@contextlib.contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE`` … ``COMMIT``; rolled back on any error so a killed or failed write leaves nothing."""
    _begin(conn, "BEGIN IMMEDIATE")
    try:
        yield conn
    except sqlite3.Error as exc:
        _rollback(conn)
        raise translate(exc) from None
    except BaseException:
        _rollback(conn)
        raise
    try:
        conn.execute("COMMIT")
    except sqlite3.Error as exc:
        raise translate(exc) from None


@contextlib.contextmanager
def read_snapshot(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """Every read inside sees one state of the store (a WAL read transaction), whatever a refresh commits
    meanwhile: a ranking's statements agree with each other and with the generation they read first, under
    which its caches keep what they compute. Inside an open transaction, that transaction is the snapshot."""
    if conn.in_transaction:
        yield conn
        return
    _begin(conn, "BEGIN")
    try:
        yield conn
    finally:
        # A read transaction has nothing to keep or undo; ending it releases the snapshot.
        _rollback(conn)
