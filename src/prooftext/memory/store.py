"""Typed memory and chat history in SQLite: ``ROOT/.prooftext/memory.sqlite`` (WAL, one writer).

Records are decisions (active → superseded), constraints (hard or soft), discoveries, and failures
(unresolved → resolved), each with provenance (``source``, optional ``thread``) and timestamps in integer
milliseconds. Nothing is ever deleted: superseding a decision and resolving a failure are state changes,
each made in one ``BEGIN IMMEDIATE`` transaction, so an error leaves every record as it was.

The same file keeps threads and their messages, so chat history persists between sessions. It is a file of
its own, apart from the index store, and carries its own schema version (``PRAGMA user_version``).

Processes may open a new file at once: the switch to WAL is serialized by a lock on ``memory.sqlite.lock``,
and the schema is created under the write lock, after looking again whether another process created it.

A handle runs SQLite's ``PRAGMA quick_check`` before its first write (once per handle): a damaged file is
refused with ``store_corrupt`` even when the write itself would not touch the damaged page, so nothing more is
written into a store that needs repair. Reads are not checked, so whatever is readable can still be exported.
"""

from __future__ import annotations

import fcntl
import os
import shlex
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prooftext.conversation.items import check_thread
from prooftext.corpus.lines import CONTROL_CHARACTERS
from prooftext.corpus.safeio import existing_directory, ignore_in_git
from prooftext.corpus.secrets import redact_text, redaction_count
from prooftext.corpus.stores import INDEX_FILE, MEMORY_FILE, STORE_DIR
from prooftext.errors import (
    DiskFullError,
    LimitError,
    MemoryStoreError,
    NotFoundError,
    RangeError,
    RequestError,
    StoreBusyError,
    StoreCorruptError,
    StoreSchemaError,
    UnknownNameError,
)
from prooftext.sqlite import is_disk_full, open_wal

SCHEMA_VERSION = 3
BUSY_TIMEOUT_MS = 5000
LOCK_SUFFIX = ".lock"

KINDS: tuple[str, ...] = ("constraint", "decision", "discovery", "failure")
STRENGTHS: tuple[str, ...] = ("hard", "soft")
ROLES: tuple[str, ...] = ("assistant", "user")
MAX_HISTORY = 2**31 - 1
"""The most messages one history read may ask for (SQLite's LIMIT takes a 64-bit integer; this is plenty)."""
MESSAGE_TIERS: tuple[str, ...] = ("deep", "full", "minimal", "smart", "standard", "surface")
"""What a stored message may carry as its tier: the depth tier its turn was planned at
(``depth.tiers.Tier``), or the mode when the mode decided alone (``depth.policy.Mode``); or nothing."""

STATUS_ACTIVE = "active"
STATUS_SUPERSEDED = "superseded"
STATUS_UNRESOLVED = "unresolved"
STATUS_RESOLVED = "resolved"
STATUSES: tuple[str, ...] = (STATUS_ACTIVE, STATUS_RESOLVED, STATUS_SUPERSEDED, STATUS_UNRESOLVED)

MAX_RECORD_BYTES = 65536
"""A memory record is a statement, not a document: longer text is refused with ``limit_exceeded``."""

MAX_SOURCE_BYTES = 1024

INTEGRITY_OK = "ok"
SQLITE_CORRUPT = 11
SQLITE_NOTADB = 26
"""SQLite's primary result codes for a damaged file and for a file that is not a database."""

SQLITE_MAX_INTEGER = 2**63 - 1
"""The largest integer SQLite stores (and binds): a larger record id cannot exist, and binding it would
raise ``OverflowError`` inside the driver."""

SCHEMA_SQL = """
CREATE TABLE records (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL CHECK (kind IN ('constraint', 'decision', 'discovery', 'failure')),
    text TEXT NOT NULL CHECK (length(text) > 0),
    status TEXT NOT NULL CHECK (status IN ('active', 'resolved', 'superseded', 'unresolved')),
    strength TEXT CHECK (strength IS NULL OR strength IN ('hard', 'soft')),
    source TEXT NOT NULL CHECK (length(source) > 0),
    thread TEXT,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL,
    supersedes INTEGER REFERENCES records(id),
    superseded_by INTEGER REFERENCES records(id),
    resolved_ms INTEGER,
    resolution TEXT,
    resolved_by TEXT
);
CREATE INDEX records_kind_status ON records(kind, status);
CREATE TABLE threads (
    name TEXT PRIMARY KEY,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    thread TEXT NOT NULL REFERENCES threads(name),
    role TEXT NOT NULL CHECK (role IN ('assistant', 'user')),
    text TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    tier TEXT
);
CREATE INDEX messages_thread ON messages(thread, id);
CREATE TABLE thread_settings (
    thread TEXT PRIMARY KEY REFERENCES threads(name),
    identity TEXT,
    updated_ms INTEGER NOT NULL
);
"""

MIGRATION_2_SQL = """
CREATE TABLE IF NOT EXISTS thread_settings (
    thread TEXT PRIMARY KEY REFERENCES threads(name),
    identity TEXT,
    updated_ms INTEGER NOT NULL
);
"""
"""Schema 1 → 2: each thread may keep its own identity (the chosen AI's system voice)."""

MIGRATION_3_SQL = "ALTER TABLE records ADD COLUMN resolved_by TEXT"
"""Schema 2 → 3: who resolved a failure is kept apart from its note (a failure resolved before holds none)."""


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass(frozen=True)
class MemoryRecord:
    id: int
    kind: str
    text: str
    status: str
    strength: str | None
    source: str
    thread: str | None
    created_ms: int
    updated_ms: int
    supersedes: int | None
    superseded_by: int | None
    resolved_ms: int | None
    resolution: str | None
    resolved_by: str | None = None
    """Who resolved the failure (the resolve's ``source``); None before it resolves, or when it resolved
    in a store older than schema 3."""

    @property
    def redactions(self) -> int:
        """How many credentials were redacted from this record when it was written (the values were never
        stored)."""
        return sum(
            redaction_count(t or "") for t in (self.text, self.source, self.resolution, self.resolved_by)
        )

    @property
    def is_candidate(self) -> bool:
        """Active decisions, constraints and discoveries, and unresolved failures, are worth surfacing."""
        return self.status in (STATUS_ACTIVE, STATUS_UNRESOLVED)

    def to_dict(self) -> dict[str, Any]:
        return {
            "created_ms": self.created_ms,
            "id": self.id,
            "kind": self.kind,
            "resolution": self.resolution,
            "resolved_by": self.resolved_by,
            "redactions": self.redactions,
            "resolved_ms": self.resolved_ms,
            "source": self.source,
            "status": self.status,
            "strength": self.strength,
            "superseded_by": self.superseded_by,
            "supersedes": self.supersedes,
            "text": self.text,
            "thread": self.thread,
            "updated_ms": self.updated_ms,
        }


@dataclass(frozen=True)
class StoredMessage:
    id: int
    thread: str
    role: str
    text: str
    created_ms: int
    tier: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "created_ms": self.created_ms,
            "id": self.id,
            "role": self.role,
            "text": self.text,
            "thread": self.thread,
            "tier": self.tier,
        }


@dataclass(frozen=True)
class ThreadInfo:
    name: str
    created_ms: int
    updated_ms: int
    messages: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "created_ms": self.created_ms,
            "messages": self.messages,
            "name": self.name,
            "updated_ms": self.updated_ms,
        }


def check_text(value: Any, field: str, limit: int) -> str:
    if value is None:
        raise RequestError(f"missing field {field!r}", field=field)
    if not isinstance(value, str):
        raise RequestError(f"{field} must be a string", field=field)
    if not value.strip():
        raise RequestError(f"{field} must not be empty or whitespace", field=field)
    try:
        _check_size(field, len(value.encode("utf-8")), limit)
    except UnicodeEncodeError:
        raise RequestError(f"{field} is not valid Unicode text (lone surrogate)", field=field) from None
    if CONTROL_CHARACTERS.search(value):
        raise RequestError(
            f"{field} contains control characters (other than tab and line breaks)", field=field
        )
    text = redact_text(value)  # a credential is never stored: the placeholder flags where one was
    # What is stored is within the limit too (a placeholder can be longer than the value it replaces), so
    # that an export of the store is always imported again.
    _check_size(field, len(text.encode("utf-8")), limit, " with its credentials redacted")
    return text


def _check_size(field: str, size: int, limit: int, how: str = "") -> None:
    if size > limit:
        raise LimitError(f"{field} is {size} bytes{how}; the limit is {limit}", field=field, limit=limit)


def _check_choice(value: Any, field: str, choices: tuple[str, ...]) -> str:
    if value is None:
        raise RequestError(f"missing field {field!r}", field=field)
    if value not in choices:
        raise UnknownNameError(f"unknown {field} {value!r}; known: {', '.join(choices)}", field=field)
    return str(value)


def _record_filter(kind: str | None, status: str | None) -> tuple[str, list[Any]]:
    """The WHERE clause and arguments selecting records of ``kind`` and ``status`` (each checked)."""
    clauses: list[str] = []
    args: list[Any] = []
    if kind is not None:
        clauses.append("kind = ?")
        args.append(_check_choice(kind, "kind", KINDS))
    if status is not None:
        clauses.append("status = ?")
        args.append(_check_choice(status, "status", STATUSES))
    return (f" WHERE {' AND '.join(clauses)}" if clauses else ""), args


def check_record_id(record_id: Any) -> int:
    """``record_id`` if it is an integer SQLite can hold; otherwise an error naming the ``id``."""
    if isinstance(record_id, bool) or not isinstance(record_id, int):
        raise RequestError("a record id must be an integer", field="id")
    if not -SQLITE_MAX_INTEGER - 1 <= record_id <= SQLITE_MAX_INTEGER:
        raise RangeError(
            f"no memory record can have the id {record_id}: ids are at most {SQLITE_MAX_INTEGER}",
            field="id",
            id=str(record_id),
        )
    return int(record_id)


_TEXT = (str,)
_OPT_TEXT = (str, type(None))
_INT = (int,)
_OPT_INT = (int, type(None))

RECORD_COLUMNS: dict[str, tuple[type, ...]] = {
    "id": _INT,
    "kind": _TEXT,
    "text": _TEXT,
    "status": _TEXT,
    "strength": _OPT_TEXT,
    "source": _TEXT,
    "thread": _OPT_TEXT,
    "created_ms": _INT,
    "updated_ms": _INT,
    "supersedes": _OPT_INT,
    "superseded_by": _OPT_INT,
    "resolved_ms": _OPT_INT,
    "resolution": _OPT_TEXT,
    "resolved_by": _OPT_TEXT,
}
"""The Python type of every record column. SQLite's column types are only affinities: a file written by
hand may hold a BLOB or a number where the schema says TEXT, and such a row must not reach a caller."""


class UndecodedText(bytes):
    """A TEXT value that is not UTF-8, as a checking reader holds it (a plain read fails on it)."""


def decode_text(data: bytes) -> str | UndecodedText:
    """The ``text_factory`` of a reader that reports undecodable text by row instead of failing."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return UndecodedText(data)


STORAGE_CLASSES: dict[type, str] = {
    UndecodedText: "TEXT that is not UTF-8",
    bytes: "a BLOB",
    float: "a REAL",
    int: "an INTEGER",
    str: "TEXT",
    type(None): "NULL",
}
"""SQLite's names for what a column holds, for the error that names a damaged column."""

MESSAGE_COLUMNS: dict[str, tuple[type, ...]] = {
    "id": _INT,
    "thread": _TEXT,
    "role": _TEXT,
    "text": _TEXT,
    "created_ms": _INT,
    "tier": _OPT_TEXT,
}
SETTING_COLUMNS: dict[str, tuple[type, ...]] = {"thread": _TEXT, "identity": _OPT_TEXT, "updated_ms": _INT}
"""A thread's settings (schema 2): the identity it keeps."""


def column_problem(
    values: Mapping[str, Any], columns: Mapping[str, tuple[type, ...]], what: str
) -> str | None:
    """What is wrong with the first column of a stored row that does not hold its type, or None."""
    for name, types in columns.items():
        value = values.get(name)
        if isinstance(value, bool) or not isinstance(value, types):
            stored = STORAGE_CLASSES.get(type(value), type(value).__name__)
            return f"{what} {values.get('id')!r} holds {stored} in its {name!r} column"
    return None


def _typed_row(
    row: sqlite3.Row, columns: Mapping[str, tuple[type, ...]], what: str, path: Path
) -> dict[str, Any]:
    values = {k: row[k] for k in row.keys()}  # noqa: SIM118 - sqlite3.Row is not a Mapping
    problem = column_problem(values, columns, what)
    if problem is not None:
        raise damaged(path, problem)
    return values


def repair_hint(path: Path) -> str:
    """How to repair the damaged memory store at ``path``: export what is readable, move the file aside, import
    the export into a fresh store (memory is the one store that cannot be rebuilt from the files). The steps
    alone, as a finding's or an error's ``repair`` holds them; a message says ``repair:`` before them."""
    root = shlex.quote(str(path.parent.parent)) if path.parent.name == STORE_DIR else "ROOT"
    return (
        f"prooftext memory export --root {root} > memory.jsonl, move {shlex.quote(str(path))} "
        f"(and any -wal and -shm file beside it) aside, prooftext memory import memory.jsonl --root {root}"
    )


def damaged(path: Path, detail: str) -> StoreCorruptError:
    """The ``store_corrupt`` error of the memory store at ``path``: what is wrong, the file and the repair."""
    return StoreCorruptError(
        f"memory store {path} is damaged: {detail[:300]}; repair: {repair_hint(path)}",
        path=str(path),
        repair=repair_hint(path),
    )


def is_corruption(exc: sqlite3.DatabaseError) -> bool:
    """True when SQLite says the file is damaged or is not a database at all."""
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int) and code & 0xFF in (SQLITE_CORRUPT, SQLITE_NOTADB):
        return True
    return "malformed" in str(exc) or "not a database" in str(exc)


def _record(row: sqlite3.Row, path: Path) -> MemoryRecord:
    return MemoryRecord(**_typed_row(row, RECORD_COLUMNS, "record", path))


def _record_row(db: sqlite3.Connection, record_id: int, kind: str, only: str) -> sqlite3.Row:
    """Record ``record_id``'s row, which must be of ``kind`` (``only`` says what may be done, for the error)."""
    row: sqlite3.Row | None = db.execute("SELECT * FROM records WHERE id = ?", (record_id,)).fetchone()
    if row is None:
        raise NotFoundError(f"no memory record {record_id}", id=record_id)
    if row["kind"] != kind:
        raise RequestError(f"record {record_id} is a {row['kind']}; only {only}", field="id")
    return row


def _message(row: sqlite3.Row, path: Path) -> StoredMessage:
    return StoredMessage(**_typed_row(row, MESSAGE_COLUMNS, "message", path))


def check_identity(identity: object) -> str:
    """A thread's identity as it is kept: held to a record's text (:func:`check_text`: non-empty Unicode
    text within :data:`MAX_RECORD_BYTES`, no control characters but tabs and line breaks), any credential
    redacted."""
    if not isinstance(identity, str):
        raise RequestError("identity must be non-empty text", field="identity")
    return check_text(identity, "identity", MAX_RECORD_BYTES)


def _insert_sql(table: str, columns: Mapping[str, object]) -> str:
    return f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})"


def _values(row: Mapping[str, Any], columns: Mapping[str, object]) -> tuple[Any, ...]:
    return tuple(row[name] for name in columns)


def lock_path(path: Path) -> Path:
    """The file whose lock serializes the creation of the store at ``path``."""
    return path.with_name(path.name + LOCK_SUFFIX)


@contextmanager
def _creation_lock(path: Path) -> Iterator[None]:
    lock = lock_path(path)
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise MemoryStoreError(f"cannot create {lock}: {exc.strerror}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
    except OSError as exc:
        os.close(fd)
        raise MemoryStoreError(f"cannot lock {lock}: {exc.strerror}") from None
    try:
        yield
    finally:
        os.close(fd)  # closing the only descriptor releases the lock


def check_root(root: Path | str) -> Path:
    """``root`` as an absolute path if it is an existing directory; otherwise ``root_missing`` or
    ``root_not_directory`` (see :func:`~prooftext.corpus.safeio.existing_directory`)."""
    return existing_directory(root)


SIDE_FILES = ("-wal", "-shm")
"""SQLite's files beside a store in WAL mode."""


def _refuse_leftovers(path: Path) -> None:
    """A new store is never created beside the -wal or -shm file of one moved away: SQLite would read the
    old store's pages into the new one."""
    for suffix in SIDE_FILES:
        side = path.with_name(path.name + suffix)
        if side.exists():
            raise MemoryStoreError(
                f"{side} is left from a memory store that was moved away: move it aside too, then retry",
                path=str(side),
            )


class MemoryStore:
    """The typed memory store. Use :meth:`open` for a project root, or construct with a file path."""

    def __init__(self, path: Path | str, *, clock: Callable[[], int] | None = None) -> None:
        self.path = Path(path)
        self._clock = clock or _now_ms
        self._checked = False
        """Whether ``PRAGMA quick_check`` passed on this handle (it runs before the first write)."""
        with self._errors():
            # A new file switches to WAL under a lock on memory.sqlite.lock, one process at a time.
            self._db = open_wal(
                self.path, busy_timeout_ms=BUSY_TIMEOUT_MS, wal_lock=lambda: _creation_lock(self.path)
            )
        self._db.row_factory = sqlite3.Row
        try:
            self._migrate()
        except BaseException:
            self._db.close()
            raise

    @classmethod
    def open(cls, root: Path | str, *, clock: Callable[[], int] | None = None) -> MemoryStore:
        """The store of project ``root`` at ``ROOT/.prooftext/memory.sqlite``, created on first use."""
        folder = check_root(root) / STORE_DIR
        try:
            folder.mkdir(exist_ok=True)
        except OSError as exc:
            raise MemoryStoreError(f"cannot create {folder}: {exc.strerror}") from None
        path = folder / MEMORY_FILE
        if not path.exists():
            _refuse_leftovers(path)
            if not os.path.lexists(folder / INDEX_FILE):
                ignore_in_git(folder)  # the first store under .prooftext/ (the index writes it otherwise)
        return cls(path, clock=clock)

    @classmethod
    def existing(cls, root: Path | str) -> MemoryStore | None:
        """The store of project ``root`` when one exists; None otherwise (nothing is created)."""
        path = Path(root) / STORE_DIR / MEMORY_FILE
        return cls(path) if path.is_file() else None

    @classmethod
    def list_records(
        cls, root: Path | str, kind: str | None = None, status: str | None = None
    ) -> list[MemoryRecord]:
        """:meth:`records` of project ``root``, read without creating anything: a root with no store has
        none (its arguments are checked all the same)."""
        store = cls.existing(check_root(root))
        if store is None:
            _record_filter(kind, status)
            return []
        with store:
            return store.records(kind, status)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> MemoryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- plumbing -------------------------------------------------------------------------------------

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.OperationalError as exc:
            text = str(exc)
            if is_disk_full(exc, self.path):
                raise DiskFullError(
                    f"no space left for the memory store {self.path}: {text} (what failed was undone; free some"
                    " space and retry)"
                ) from None
            if "locked" in text or "busy" in text:
                raise StoreBusyError(f"memory store is busy: {text}") from None
            if "decode" in text:  # a TEXT value that is not UTF-8: written by hand, not by prooftext
                raise damaged(self.path, text) from None
            if is_corruption(exc):
                raise damaged(self.path, text) from None
            raise MemoryStoreError(f"memory store error: {text}") from None
        except sqlite3.DatabaseError as exc:
            if is_corruption(exc):
                raise damaged(self.path, str(exc)) from None
            raise MemoryStoreError(f"memory store error: {exc}") from None

    def check_integrity(self) -> None:
        """``PRAGMA quick_check`` of the whole file, once per handle: ``store_corrupt`` when it finds damage.

        Every write runs it first, so a damaged store takes no more writes even where the damaged page is
        not one the write touches. It reads every page once (about 14 ms for 5,000 records, 1 MiB)."""
        if self._checked:
            return
        with self._errors():
            rows = [str(r[0]) for r in self._db.execute("PRAGMA quick_check").fetchall()]
        if rows != [INTEGRITY_OK]:
            raise damaged(self.path, "; ".join(rows))
        self._checked = True

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One writer transaction, on a store that passed its integrity check: committed whole or rolled
        back whole."""
        self.check_integrity()
        with self._errors():
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    @contextmanager
    def _snapshot(self) -> Iterator[None]:
        """Reads that see one committed state (each statement alone may see a different one)."""
        with self._errors():
            self._db.execute("BEGIN")
            try:
                yield
            finally:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")

    def _migrate(self) -> None:
        with self._snapshot():
            if not self._needs_schema():
                return
        with self._write() as db:
            # Another process may have created the schema since the look above: only a look under the
            # write lock decides, or both would create the tables and one fail on "already exists".
            if not self._needs_schema():
                return
            version = int(db.execute("PRAGMA user_version").fetchone()[0])
            if version in (1, 2):
                if version == 1:
                    db.execute(MIGRATION_2_SQL)
                if "resolved_by" not in {row[1] for row in db.execute("PRAGMA table_info(records)")}:
                    db.execute(MIGRATION_3_SQL)
                db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                return
            for statement in SCHEMA_SQL.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _needs_schema(self) -> bool:
        """True for a new, empty file; False when the schema is current; otherwise the file is refused."""
        version = int(self._db.execute("PRAGMA user_version").fetchone()[0])
        if version == SCHEMA_VERSION:
            return False
        if version > SCHEMA_VERSION:
            raise StoreSchemaError(
                f"memory store schema {version} is newer than this prooftext ({SCHEMA_VERSION})",
                found=version,
                supported=SCHEMA_VERSION,
            )
        tables = self._db.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table'").fetchone()[0]
        if version == 0 and tables:
            raise StoreSchemaError("memory store file holds foreign tables and no prooftext schema version")
        return True

    def schema_version(self) -> int:
        with self._errors():
            return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    # -- records --------------------------------------------------------------------------------------

    def add(
        self,
        kind: str,
        text: str,
        *,
        source: str,
        strength: str | None = None,
        thread: str | None = None,
    ) -> MemoryRecord:
        """Record a decision, constraint (``strength`` hard or soft), discovery or failure."""
        kind = _check_choice(kind, "kind", KINDS)
        text = check_text(text, "text", MAX_RECORD_BYTES)
        source = check_text(source, "source", MAX_SOURCE_BYTES)
        if kind == "constraint":
            strength = _check_choice(strength, "strength", STRENGTHS)
        elif strength is not None:
            raise RequestError("only constraints have a strength", field="strength")
        if thread is not None:
            check_thread(thread)
        status = STATUS_UNRESOLVED if kind == "failure" else STATUS_ACTIVE
        now = self._clock()
        with self._write() as db:
            cur = db.execute(
                "INSERT INTO records (kind, text, status, strength, source, thread, created_ms, updated_ms) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (kind, text, status, strength, source, thread, now, now),
            )
            rid = int(cur.lastrowid or 0)
        return self.get(rid)

    def add_record(self, data: Mapping[str, Any]) -> MemoryRecord:
        """Add from a mapping (JSON-RPC, import); a missing or unknown field is a :class:`RequestError`."""
        if not isinstance(data, Mapping):
            raise RequestError("a memory record must be an object", field="record")
        allowed = {"kind", "text", "source", "strength", "thread"}
        extra = sorted(set(data) - allowed)
        if extra:
            raise RequestError(f"unknown field {extra[0]!r} in memory record", field=str(extra[0]))
        for name in ("kind", "text", "source"):
            if name not in data:
                raise RequestError(f"missing field {name!r} in memory record", field=name)
        return self.add(
            data["kind"],
            data["text"],
            source=data["source"],
            strength=data.get("strength"),
            thread=data.get("thread"),
        )

    def get(self, record_id: int) -> MemoryRecord:
        record_id = check_record_id(record_id)
        with self._errors():
            row = self._db.execute("SELECT * FROM records WHERE id = ?", (record_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"no memory record {record_id}", id=record_id)
        return _record(row, self.path)

    def records(self, kind: str | None = None, status: str | None = None) -> list[MemoryRecord]:
        """Records in id order, optionally of one kind and/or status."""
        where, args = _record_filter(kind, status)
        with self._errors():
            rows = self._db.execute(f"SELECT * FROM records{where} ORDER BY id", args).fetchall()
        return [_record(r, self.path) for r in rows]

    def candidates(self) -> list[MemoryRecord]:
        """Active decisions, constraints, discoveries and unresolved failures, in id order."""
        with self._errors():
            rows = self._db.execute(
                "SELECT * FROM records WHERE status IN ('active', 'unresolved') ORDER BY id"
            ).fetchall()
        return [_record(r, self.path) for r in rows]

    def resolve(self, record_id: int, note: str | None = None, *, source: str = "user") -> MemoryRecord:
        """Mark an unresolved failure resolved (the record and its history stay)."""
        record_id = check_record_id(record_id)
        if note is not None:
            note = check_text(note, "note", MAX_RECORD_BYTES)
        source = check_text(source, "source", MAX_SOURCE_BYTES)
        now = self._clock()
        with self._write() as db:
            row = _record_row(db, record_id, "failure", "failures resolve")
            if row["status"] == STATUS_RESOLVED:
                raise RequestError(f"failure {record_id} is already resolved", field="id")
            db.execute(
                "UPDATE records SET status = ?, resolved_ms = ?, resolution = ?, resolved_by = ?, updated_ms = ?"
                " WHERE id = ?",
                (
                    STATUS_RESOLVED,
                    now,
                    note if note is not None else f"resolved by {source}",
                    source,
                    now,
                    record_id,
                ),
            )
        return self.get(record_id)

    def supersede(self, record_id: int, text: str, *, source: str) -> tuple[MemoryRecord, MemoryRecord]:
        """Replace an active decision by a new one; returns (old, new). One transaction: all or nothing."""
        record_id = check_record_id(record_id)
        text = check_text(text, "text", MAX_RECORD_BYTES)
        source = check_text(source, "source", MAX_SOURCE_BYTES)
        now = self._clock()
        with self._write() as db:
            row = _record_row(db, record_id, "decision", "decisions supersede")
            if row["status"] != STATUS_ACTIVE:
                raise RequestError(
                    f"decision {record_id} is already superseded by {row['superseded_by']}", field="id"
                )
            cur = db.execute(
                "INSERT INTO records (kind, text, status, source, thread, created_ms, updated_ms, "
                "supersedes) VALUES ('decision', ?, 'active', ?, ?, ?, ?, ?)",
                (text, source, row["thread"], now, now, record_id),
            )
            new_id = int(cur.lastrowid or 0)
            db.execute(
                "UPDATE records SET status = ?, superseded_by = ?, updated_ms = ? WHERE id = ?",
                (STATUS_SUPERSEDED, new_id, now, record_id),
            )
        return self.get(record_id), self.get(new_id)

    def restore(
        self,
        records: Sequence[Mapping[str, Any]],
        messages: Sequence[Mapping[str, Any]],
        settings: Sequence[Mapping[str, Any]] = (),
    ) -> None:
        """Write exported records, messages and thread settings, ids, states, timestamps and links as they
        are, into this store, which must hold none of them (one transaction: all or nothing). The caller has
        checked them; each thread was created at its first message or its identity, whichever came first,
        and last updated at its last message (at its identity when it has no message)."""
        threads: dict[str, tuple[int, int]] = {}
        for m in messages:
            first, last = threads.get(m["thread"], (m["created_ms"], m["created_ms"]))
            threads[m["thread"]] = (min(first, m["created_ms"]), max(last, m["created_ms"]))
        for setting in settings:
            first, last = threads.get(setting["thread"], (setting["updated_ms"], setting["updated_ms"]))
            threads[setting["thread"]] = (min(first, setting["updated_ms"]), last)
        with self._write() as db:
            held = db.execute(
                "SELECT (SELECT count(*) FROM records) + (SELECT count(*) FROM messages)"
                " + (SELECT count(*) FROM thread_settings)"
            )
            if held.fetchone()[0]:
                raise MemoryStoreError(
                    f"{self.path} already holds memory: an import restores into an empty store only"
                )
            db.execute("PRAGMA defer_foreign_keys = ON")  # links may name a record inserted after them
            db.executemany(
                _insert_sql("records", RECORD_COLUMNS), [_values(r, RECORD_COLUMNS) for r in records]
            )
            db.executemany(
                "INSERT INTO threads (name, created_ms, updated_ms) VALUES (?, ?, ?)",
                [(name, first, last) for name, (first, last) in threads.items()],
            )
            db.executemany(
                _insert_sql("messages", MESSAGE_COLUMNS), [_values(m, MESSAGE_COLUMNS) for m in messages]
            )
            db.executemany(
                _insert_sql("thread_settings", SETTING_COLUMNS),
                [_values(t, SETTING_COLUMNS) for t in settings],
            )

    # -- threads and history --------------------------------------------------------------------------

    def has_thread(self, name: str) -> bool:
        check_thread(name)
        with self._errors():
            return self._db.execute("SELECT 1 FROM threads WHERE name = ?", (name,)).fetchone() is not None

    def threads(self) -> list[ThreadInfo]:
        with self._errors():
            rows = self._db.execute(
                "SELECT t.name, t.created_ms, t.updated_ms, count(m.id) AS messages FROM threads t "
                "LEFT JOIN messages m ON m.thread = t.name GROUP BY t.name ORDER BY t.name"
            ).fetchall()
        return [ThreadInfo(r["name"], r["created_ms"], r["updated_ms"], r["messages"]) for r in rows]

    def append_message(self, thread: str, role: str, text: str, *, tier: str | None = None) -> StoredMessage:
        """Append one message to a thread (created on first use), committed before this returns."""
        check_thread(thread)
        role = _check_choice(role, "role", ROLES)
        if tier is not None:
            tier = _check_choice(tier, "tier", MESSAGE_TIERS)
        if not isinstance(text, str):
            raise RequestError("message text must be a string", field="text")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise RequestError("message text is not valid Unicode text", field="text") from None
        text = redact_text(text)  # chat history keeps no credential either
        now = self._clock()
        with self._write() as db:
            db.execute(
                "INSERT INTO threads (name, created_ms, updated_ms) VALUES (?, ?, ?) "
                "ON CONFLICT(name) DO UPDATE SET updated_ms = excluded.updated_ms",
                (thread, now, now),
            )
            cur = db.execute(
                "INSERT INTO messages (thread, role, text, created_ms, tier) VALUES (?, ?, ?, ?, ?)",
                (thread, role, text, now, tier),
            )
            mid = int(cur.lastrowid or 0)
        return StoredMessage(mid, thread, role, text, now, tier)

    def thread_identity(self, thread: str) -> str | None:
        """The identity (system voice) kept with ``thread``, or ``None`` when it has none."""
        check_thread(thread)
        with self._errors():
            row = self._db.execute(
                "SELECT identity FROM thread_settings WHERE thread = ?", (thread,)
            ).fetchone()
        return None if row is None or row["identity"] is None else str(row["identity"])

    def set_thread_identity(self, thread: str, identity: str) -> None:
        """Keep ``identity`` with ``thread`` (created on first use); later turns of the thread use it."""
        check_thread(thread)
        identity = check_identity(identity)
        now = self._clock()
        with self._write() as db:
            db.execute(
                "INSERT INTO threads (name, created_ms, updated_ms) VALUES (?, ?, ?) "
                "ON CONFLICT(name) DO NOTHING",
                (thread, now, now),
            )
            db.execute(
                "INSERT INTO thread_settings (thread, identity, updated_ms) VALUES (?, ?, ?) "
                "ON CONFLICT(thread) DO UPDATE SET identity = excluded.identity, updated_ms = excluded.updated_ms",
                (thread, identity, now),
            )

    def history(self, thread: str, limit: int | None = None) -> list[StoredMessage]:
        """The last ``limit`` messages of one thread (all when ``None``), oldest first."""
        check_thread(thread)
        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, int) or limit > MAX_HISTORY
        ):
            raise RequestError(
                f"limit must be a whole number of messages, at most {MAX_HISTORY}", field="limit"
            )
        with self._errors():
            if limit is None:
                rows = self._db.execute(
                    "SELECT * FROM messages WHERE thread = ? ORDER BY id", (thread,)
                ).fetchall()
            else:
                rows = self._db.execute(
                    "SELECT * FROM messages WHERE thread = ? ORDER BY id DESC LIMIT ?",
                    (thread, max(0, limit)),
                ).fetchall()
                rows.reverse()
        return [_message(r, self.path) for r in rows]
