"""The memory store as JSON lines, out and back in: the repair of a damaged store.

``export_memory`` reads every record and message it can, read-only: a row on a damaged page is skipped and
its id listed as unreadable (never guessed), and a row that does not hold its types or a state its kind
allows is listed as invalid. The damaged file is then moved aside, and ``import_memory`` writes the export into
a fresh, empty store with the ids, states, timestamps and links it had. A supersede link to a record the
damage took is dropped, and the import says which.

Each line is one canonical JSON object: ``{"type": "record", <every column>}``, ``{"type": "message", …}`` or
``{"type": "thread_setting", "thread": …, "identity": …, "updated_ms": …}`` (the identity a thread keeps).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import prooftext.canonical as canonical
from prooftext.conversation.items import check_thread
from prooftext.corpus.secrets import redact_text
from prooftext.errors import MemoryStoreError, ProoftextError, RangeError, RequestError
from prooftext.memory.integrity import message_problems, open_readonly, record_problems
from prooftext.memory.store import (
    MAX_RECORD_BYTES,
    MAX_SOURCE_BYTES,
    MESSAGE_COLUMNS,
    RECORD_COLUMNS,
    SETTING_COLUMNS,
    MemoryStore,
    check_identity,
    check_text,
    column_problem,
    damaged,
    is_corruption,
)

TYPE_FIELD = "type"
LINE_TYPES: dict[str, Mapping[str, tuple[type, ...]]] = {
    "record": RECORD_COLUMNS,
    "message": MESSAGE_COLUMNS,
    "thread_setting": SETTING_COLUMNS,
}
ROWID = "salvage_rowid"
"""The name an export reads each row's rowid under (no table of the store has a column of that name)."""
MAX_PROBES = 1_000_000
"""How many ids past a damaged page an export tries, one by one, before it gives up on a table."""


@dataclass
class MemoryExport:
    """What an export read: the rows, the ids it could not read and the rows it left out as invalid."""

    records: list[dict[str, Any]] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)
    settings: list[dict[str, Any]] = field(default_factory=list)
    unreadable: dict[str, list[int]] = field(default_factory=dict)
    invalid: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return not self.invalid and not any(self.unreadable.values())

    def lines(self) -> Iterator[str]:
        for kind, rows in (
            ("record", self.records),
            ("message", self.messages),
            ("thread_setting", self.settings),
        ):
            for row in rows:
                yield canonical.encode({TYPE_FIELD: kind, **row}).decode("ascii")

    def summary(self) -> dict[str, Any]:
        return {
            "complete": self.complete,
            "invalid": self.invalid,
            "messages": len(self.messages),
            "records": len(self.records),
            "thread_settings": len(self.settings),
            "unreadable": {table: id_ranges(ids) for table, ids in self.unreadable.items() if ids},
        }

    def to_dict(self) -> dict[str, Any]:
        """The summary, and under ``rows`` every row read, as the export's lines hold them."""
        rows = {"messages": self.messages, "records": self.records, "thread_settings": self.settings}
        return {**self.summary(), "rows": rows}


def id_ranges(ids: list[int]) -> list[str]:
    """Sorted ids as ranges: ``[3, 4, 5, 9]`` is ``["3-5", "9"]``."""
    out: list[list[int]] = []
    for i in sorted(ids):
        if out and i == out[-1][1] + 1:
            out[-1][1] = i
        else:
            out.append([i, i])
    return [str(a) if a == b else f"{a}-{b}" for a, b in out]


def _first_value(conn: sqlite3.Connection, sql: str, *args: Any) -> int | None:
    try:
        row = conn.execute(sql, args).fetchone()
    except sqlite3.DatabaseError:
        return None
    return row[0] if row is not None and isinstance(row[0], int) else None


def _salvage(conn: sqlite3.Connection, table: str) -> tuple[list[dict[str, Any]], list[int]]:
    """Every readable row of ``table`` in rowid order (a table's ``id`` is its rowid), and the rowids whose
    rows could not be read. When a scan fails, the next rowid is read alone (a row beside a damaged page may
    still be read that way) or listed, and the scan starts again after it, until it is past the damage or
    the largest rowid ever given."""
    seq = "SELECT seq FROM sqlite_sequence WHERE name = ?"
    upper = _first_value(conn, seq, table) or _first_value(conn, f"SELECT max(rowid) FROM {table}")
    first = _first_value(conn, f"SELECT min(rowid) FROM {table}")
    next_id = 1 if first is None else first
    rows: list[dict[str, Any]] = []
    lost: list[int] = []
    scan = f"SELECT rowid AS {ROWID}, * FROM {table} WHERE rowid >= ? ORDER BY rowid"
    while True:
        try:
            for row in conn.execute(scan, (next_id,)):
                rows.append(_without_rowid(row))
                next_id = int(row[ROWID]) + 1
            return rows, lost
        except sqlite3.DatabaseError:
            if upper is None or next_id > upper or len(lost) >= MAX_PROBES:
                return rows, lost
        try:
            alone = conn.execute(f"SELECT rowid AS {ROWID}, * FROM {table} WHERE rowid = ?", (next_id,))
            rows += [_without_rowid(row) for row in alone.fetchall()]
        except sqlite3.DatabaseError:
            lost.append(next_id)
        next_id += 1


def _without_rowid(row: sqlite3.Row) -> dict[str, Any]:
    out = dict(row)
    del out[ROWID]
    return out


def _valid_records(rows: list[dict[str, Any]], export: MemoryExport) -> None:
    by_id = {int(r["id"]): r for r in rows}
    for rid, row in by_id.items():
        problems = record_problems({rid: {**row, "supersedes": None, "superseded_by": None}})
        if problems:
            export.invalid += problems
        else:
            export.records.append(row)


def export_memory(path: Path) -> MemoryExport:
    """Every record and message of the memory store at ``path`` that can be read (nothing is written)."""
    export = MemoryExport()
    if not path.is_file():
        return export
    try:
        conn = open_readonly(path)
        try:
            records, export.unreadable["records"] = _salvage(conn, "records")
            messages, export.unreadable["messages"] = _salvage(conn, "messages")
            settings, export.unreadable["thread_settings"] = _salvage(conn, "thread_settings")
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:  # the header itself is damaged: nothing can be read
        if is_corruption(exc):
            raise damaged(path, str(exc)) from None
        raise MemoryStoreError(f"cannot read {path}: {exc}") from None
    _valid_records(records, export)
    for message in messages:
        problems = message_problems([message], {message.get("thread")})
        export.invalid += problems
        if not problems:
            export.messages.append(message)
    for setting in settings:
        problem = _setting_problem(setting)
        if problem is None:
            export.settings.append(setting)
        else:
            export.invalid.append(problem)
    return export


def _setting_problem(setting: dict[str, Any]) -> str | None:
    """Why a thread's settings row cannot be exported, or None."""
    problem = column_problem(setting, SETTING_COLUMNS, "thread setting")
    if problem is None:
        try:
            check_thread(setting["thread"])
        except ProoftextError as exc:
            problem = f"thread setting: {exc.message}"
    return problem


@dataclass(frozen=True)
class MemoryImport:
    """What an import wrote, and the supersede links it dropped because they named a record not exported."""

    records: int
    messages: int
    links_dropped: list[str]
    thread_settings: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "links_dropped": self.links_dropped,
            "messages": self.messages,
            "records": self.records,
            "thread_settings": self.thread_settings,
        }


@contextmanager
def _at_line(number: int) -> Iterator[None]:
    """An error about one line of an export names the line."""
    try:
        yield
    except ProoftextError as exc:
        raise type(exc)(f"line {number}: {exc.message}", **{**exc.details, "line": number}) from None


def _parse_line(number: int, line: bytes) -> tuple[str, dict[str, Any]]:
    with _at_line(number):
        value = canonical.load(line)
        kind = value.pop(TYPE_FIELD, None) if isinstance(value, dict) else None
        if not isinstance(value, dict) or kind not in LINE_TYPES:
            raise RequestError("not a record or message line of a memory export", field="file")
        columns = LINE_TYPES[kind]
        if kind == "record":
            value.setdefault("resolved_by", None)  # an export written before stores kept the resolver
        if set(value) != set(columns):
            raise RequestError(f"a {kind} has exactly the fields type, {', '.join(columns)}", field="file")
        problem = column_problem(value, columns, kind)
        if problem is not None:
            raise RequestError(problem, field="file")
        return kind, value


def _checked(number: int, kind: str, row: dict[str, Any]) -> dict[str, Any]:
    """``row`` held to the rules a write holds it to (limits, control characters, thread names), with any
    credential redacted, as a write would."""
    with _at_line(number):
        if row["thread"] is not None:
            check_thread(row["thread"])
        if kind == "message":
            return {**row, "text": redact_text(row["text"])}
        if kind == "thread_setting":
            identity = row["identity"]
            return {**row, "identity": None if identity is None else check_identity(identity)}
        if row["id"] < 1:
            raise RangeError(
                f"a record id is at least 1 (a write's ids start at 1), got {row['id']}", field="id"
            )
        row["text"] = check_text(row["text"], "text", MAX_RECORD_BYTES)
        row["source"] = check_text(row["source"], "source", MAX_SOURCE_BYTES)
        if row["resolution"] is not None:
            row["resolution"] = check_text(row["resolution"], "resolution", MAX_RECORD_BYTES)
        if row["resolved_by"] is not None:
            row["resolved_by"] = check_text(row["resolved_by"], "resolved_by", MAX_SOURCE_BYTES)
        return row


@dataclass(frozen=True)
class ParsedExport:
    """An export's records by id, its messages and its thread settings."""

    records: dict[int, dict[str, Any]]
    messages: list[dict[str, Any]]
    settings: list[dict[str, Any]]


def parse_export(data: bytes) -> ParsedExport:
    """The records, messages and thread settings of an export; an error names the first line that is not
    one of them, or that repeats a record's or message's id or a thread's settings."""
    found: dict[str, dict[Any, dict[str, Any]]] = {kind: {} for kind in LINE_TYPES}
    for number, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        kind, row = _parse_line(number, line)
        key = row["thread"] if kind == "thread_setting" else row["id"]
        if key in found[kind]:
            raise RequestError(f"line {number}: a second {kind} {key}", field="file", line=number)
        found[kind][key] = _checked(number, kind, row)
    return ParsedExport(
        found["record"], list(found["message"].values()), list(found["thread_setting"].values())
    )


def _drop_dangling(records: dict[int, dict[str, Any]]) -> list[str]:
    dropped: list[str] = []
    for rid, record in records.items():
        for name in ("supersedes", "superseded_by"):
            if record[name] is not None and record[name] not in records:
                dropped.append(f"record {rid}: {name} {record[name]}")
                record[name] = None
    return dropped


def import_memory(store: MemoryStore, data: bytes) -> MemoryImport:
    """Write the export ``data`` into ``store``, which must be empty: all of it, or nothing when any line or
    invariant is broken."""
    parsed = parse_export(data)
    records, messages = parsed.records, parsed.messages
    dropped = _drop_dangling(records)
    problems = record_problems(records) + message_problems(messages, {m["thread"] for m in messages})
    if problems:
        raise RequestError(f"the export is not consistent memory: {problems[0]}", field="file")
    store.restore(list(records.values()), messages, parsed.settings)
    return MemoryImport(len(records), len(messages), dropped, len(parsed.settings))
