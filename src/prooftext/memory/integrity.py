"""Checking the memory store whole, read-only: SQLite's integrity check, then prooftext's own invariants.

The invariants are those every write keeps: the schema version and tables (an earlier version's are checked
as that version holds them, since opening the store migrates it), the type of every column, each
record's status and strength allowed for its kind, and the supersede links agreeing in both directions.
A superseded decision whose successor is not stored is allowed: that is what an import keeps of a decision
whose successor was lost to damage. Messages hold their types, a known role and an existing thread.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prooftext.memory.store import (
    INTEGRITY_OK,
    MESSAGE_COLUMNS,
    RECORD_COLUMNS,
    ROLES,
    SCHEMA_SQL,
    SCHEMA_VERSION,
    STATUS_ACTIVE,
    STATUS_RESOLVED,
    STATUS_SUPERSEDED,
    STATUS_UNRESOLVED,
    STRENGTHS,
    column_problem,
    decode_text,
    is_corruption,
)
from prooftext.sqlite import open_read_only

STATE_OK = "ok"
STATE_CORRUPT = "corrupt"
STATE_UNREADABLE = "unreadable"
STATE_NEWER = "newer"
"""A schema newer than this prooftext: its invariants are not this version's to check."""
MAX_PROBLEMS = 20
"""How many invariant problems are listed; the rest are counted."""

KIND_STATUSES: dict[str, tuple[str, ...]] = {
    "constraint": (STATUS_ACTIVE,),
    "decision": (STATUS_ACTIVE, STATUS_SUPERSEDED),
    "discovery": (STATUS_ACTIVE,),
    "failure": (STATUS_RESOLVED, STATUS_UNRESOLVED),
}


@dataclass
class MemoryCheck:
    """What checking one memory store found: its state and the problems (each a short sentence)."""

    state: str = STATE_OK
    records: int = 0
    messages: int = 0
    problems: list[str] = field(default_factory=list)


def open_readonly(path: Path) -> sqlite3.Connection:
    """A read-only connection to ``path`` whose rows are :class:`sqlite3.Row` and whose undecodable text is
    held as such (so one bad value is reported, not raised)."""
    conn = open_read_only(path)
    conn.row_factory = sqlite3.Row
    conn.text_factory = decode_text
    return conn


def _state_problems(record: Mapping[str, Any]) -> list[str]:
    rid, kind, status = record["id"], record["kind"], record["status"]
    if kind not in KIND_STATUSES:
        return [f"record {rid} has the unknown kind {kind!r}"]
    out: list[str] = []
    if status not in KIND_STATUSES[kind]:
        out.append(f"record {rid} is a {kind} with the status {status!r}")
    strength = record["strength"]
    if (strength is not None) != (kind == "constraint") or strength not in (None, *STRENGTHS):
        out.append(f"record {rid} is a {kind} with the strength {strength!r}")
    if (record["resolved_ms"] is not None) != (status == STATUS_RESOLVED):
        out.append(f"record {rid} is {status} but its resolved_ms is {record['resolved_ms']!r}")
    if record.get("resolved_by") is not None and status != STATUS_RESOLVED:
        out.append(f"record {rid} is {status} but names who resolved it")
    return out


def _link_problems(record: Mapping[str, Any], records: Mapping[int, Mapping[str, Any]]) -> list[str]:
    rid, out = record["id"], []
    successor, predecessor = record["superseded_by"], record["supersedes"]
    if successor is not None:
        target = records.get(successor)
        if record["status"] != STATUS_SUPERSEDED:
            out.append(f"record {rid} is {record['status']} but names {successor} as its successor")
        if target is None:
            out.append(f"record {rid} is superseded by {successor}, which is not stored")
        elif target["supersedes"] != rid:
            out.append(f"record {rid} is superseded by {successor}, which does not supersede it")
    if predecessor is not None:
        target = records.get(predecessor)
        if target is None:
            out.append(f"record {rid} supersedes {predecessor}, which is not stored")
        elif target["superseded_by"] != rid:
            out.append(f"record {rid} supersedes {predecessor}, which is not superseded by it")
    return out


def record_problems(records: Mapping[int, Mapping[str, Any]]) -> list[str]:
    """Every broken invariant of ``records`` (by id): column types, states for the kind, supersede links."""
    out: list[str] = []
    typed: dict[int, Mapping[str, Any]] = {}
    for rid, record in records.items():
        problem = column_problem(record, RECORD_COLUMNS, "record")
        if problem is None:
            typed[rid] = record
        else:
            out.append(problem)
    for record in typed.values():
        out += _state_problems(record)
        if record["kind"] == "decision":
            out += _link_problems(record, typed)
        elif record["supersedes"] is not None or record["superseded_by"] is not None:
            out.append(f"record {record['id']} is a {record['kind']} with a supersede link")
    return out


def message_problems(messages: Sequence[Mapping[str, Any]], threads: set[Any]) -> list[str]:
    """Every broken invariant of stored messages: column types, a known role, a stored thread."""
    out: list[str] = []
    for message in messages:
        problem = column_problem(message, MESSAGE_COLUMNS, "message")
        if problem is not None:
            out.append(problem)
        elif message["role"] not in ROLES:
            out.append(f"message {message['id']} has the unknown role {message['role']!r}")
        elif message["thread"] not in threads:
            out.append(
                f"message {message['id']} belongs to the thread {message['thread']!r}, which is not stored"
            )
    return out


def _columns(conn: sqlite3.Connection) -> dict[str, list[str]]:
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    return {n: [c[1] for c in conn.execute(f'PRAGMA table_info("{n}")')] for n in names}


EARLIER_VERSIONS = (1, 2)
"""Schemas an earlier prooftext wrote: sound as they are, and migrated when a store is next opened."""


def _expected_columns(version: int) -> dict[str, list[str]]:
    """The tables and columns of schema ``version``: the current schema less what later migrations add
    (2: the thread_settings table, 3: the records' resolved_by column)."""
    expected_db = sqlite3.connect(":memory:")
    try:
        expected_db.executescript(SCHEMA_SQL)
        expected = _columns(expected_db)
    finally:
        expected_db.close()
    if version < 3:
        expected["records"] = [c for c in expected["records"] if c != "resolved_by"]
    if version < 2:
        del expected["thread_settings"]
    return expected


def schema_problems(conn: sqlite3.Connection, version: int = SCHEMA_VERSION) -> list[str]:
    """The tables and columns schema ``version`` creates that the store lacks or holds differently."""
    expected = _expected_columns(version)
    found = _columns(conn)
    return [
        f"table {name} is missing" if name not in found else f"table {name} has the columns {found[name]}"
        for name, columns in sorted(expected.items())
        if found.get(name) != columns
    ]


def _invariants(conn: sqlite3.Connection, check: MemoryCheck) -> list[str]:
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if version > SCHEMA_VERSION:
        check.state = STATE_NEWER
        return []
    tables = conn.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table'").fetchone()[0]
    if version == 0 and not tables:
        return []  # an empty file: the first write creates the schema
    if version != SCHEMA_VERSION and version not in EARLIER_VERSIONS:
        return [f"schema version {version}, expected {SCHEMA_VERSION}"]
    missing = schema_problems(conn, version)
    if missing:
        return missing
    records = {int(r["id"]): dict(r) for r in conn.execute("SELECT * FROM records ORDER BY id")}
    messages = [dict(r) for r in conn.execute("SELECT * FROM messages ORDER BY id")]
    threads = {r[0] for r in conn.execute("SELECT name FROM threads")}
    check.records, check.messages = len(records), len(messages)
    return record_problems(records) + message_problems(messages, threads)


def _report(check: MemoryCheck, problems: list[str]) -> MemoryCheck:
    if problems:
        check.state = STATE_CORRUPT
        check.problems = problems[:MAX_PROBLEMS]
        if len(problems) > MAX_PROBLEMS:
            check.problems.append(f"and {len(problems) - MAX_PROBLEMS} more problems")
    return check


def check_memory_store(path: Path) -> MemoryCheck:
    """Check the memory store at ``path`` (an existing file) without writing anything: ``PRAGMA
    integrity_check`` first, then, on a sound file, the schema and every record's and message's invariants."""
    check = MemoryCheck()
    try:
        conn = open_readonly(path)
    except sqlite3.Error as exc:
        return _report(MemoryCheck(state=STATE_UNREADABLE), [str(exc)])
    try:
        rows = [str(r[0]) for r in conn.execute("PRAGMA integrity_check")]
        if rows != [INTEGRITY_OK]:
            return _report(check, ["; ".join(rows)[:300]])
        return _report(check, _invariants(conn, check))
    except sqlite3.DatabaseError as exc:
        if is_corruption(exc) or not isinstance(exc, sqlite3.OperationalError):
            return _report(check, [str(exc)[:300]])
        return _report(MemoryCheck(state=STATE_UNREADABLE), [str(exc)[:300]])
    finally:
        conn.close()
