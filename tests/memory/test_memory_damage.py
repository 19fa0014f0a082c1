"""A damaged memory store: fsck finds it, writes are refused, and export, move aside, import repairs it."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

import prooftext
from helpers import damage_records_page, filled_memory
from prooftext.errors import (
    JSONSyntaxError,
    MemoryStoreError,
    RangeError,
    RequestError,
    StoreCorruptError,
)
from prooftext.memory import KINDS, MemoryStore
from prooftext.memory.integrity import KIND_STATUSES

BIT_MEMORY = 8
RECORDS = 300


def _aside(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            side.rename(side.with_name(side.name + ".damaged"))


def test_a_damaged_records_page_refuses_the_next_write_though_the_write_would_not_touch_it(
    tmp_path: Path,
) -> None:
    path = filled_memory(tmp_path, RECORDS)
    lost = damage_records_page(path)
    assert max(lost) < RECORDS  # the insert appends after the damaged page
    with MemoryStore.open(tmp_path) as store, pytest.raises(StoreCorruptError) as caught:
        store.add("decision", "Keep WAL", source="test")
    error = caught.value
    assert error.code == "store_corrupt" and error.details["path"] == str(path)
    assert str(path) in error.message and "prooftext memory export" in error.message
    assert error.details["repair"].startswith("prooftext memory export --root ")
    assert f"; repair: {error.details['repair']}" in error.message


@pytest.mark.parametrize(
    "write",
    [
        lambda s: s.append_message("main", "user", "hello"),
        lambda s: s.resolve(1),
        lambda s: s.supersede(RECORDS + 2, "Another", source="test"),
    ],
    ids=["message", "resolve", "supersede"],
)
def test_every_kind_of_write_into_a_damaged_store_is_store_corrupt(
    tmp_path: Path, write: Callable[[MemoryStore], object]
) -> None:
    damage_records_page(filled_memory(tmp_path, RECORDS))
    with MemoryStore.open(tmp_path) as store, pytest.raises(StoreCorruptError):
        write(store)


def test_a_sound_store_is_checked_once_per_handle_before_its_first_write(tmp_path: Path) -> None:
    statements: list[str] = []
    filled_memory(tmp_path, 2)
    with MemoryStore.open(tmp_path) as store:
        store._db.set_trace_callback(statements.append)
        store.records()
        assert not [s for s in statements if "quick_check" in s]  # reads are not checked
        store.add("decision", "Keep WAL", source="test")
        store.add("discovery", "Retries live in settings", source="test")
    assert len([s for s in statements if "quick_check" in s]) == 1


def test_fsck_reports_a_damaged_memory_store_with_bit_8_and_the_repair(tmp_path: Path) -> None:
    damage_records_page(filled_memory(tmp_path, RECORDS))
    report = prooftext.fsck(tmp_path)
    assert report.status == BIT_MEMORY and report.memory == "corrupt"
    problem = report.problems[0]
    assert problem["kind"] == "memory_store" and problem["path"] == ".prooftext/memory.sqlite"
    assert "prooftext memory export" in problem["repair"]


def test_fsck_passes_a_sound_memory_store_and_a_root_without_one(tmp_path: Path) -> None:
    empty = prooftext.fsck(tmp_path)
    assert empty.status == 0 and empty.memory == "absent"
    filled_memory(tmp_path, 5)
    report = prooftext.fsck(tmp_path)
    assert report.status == 0 and report.memory == "ok" and not report.problems


def _hand_edit(path: Path, *statements: str) -> None:
    """Edits SQLite itself allows, which no prooftext write makes (checks and foreign keys off)."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA ignore_check_constraints = ON")
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()


SUPERSEDED, SUCCESSOR = 6, 7
"""The decision ``filled_memory(root, 5)`` supersedes, and its successor."""


@pytest.mark.parametrize(
    ("edit", "found"),
    [
        ("UPDATE records SET status = 'resolved' WHERE id = 1", "discovery with the status 'resolved'"),
        ("UPDATE records SET kind = 'wish' WHERE id = 1", "unknown kind 'wish'"),
        ("UPDATE records SET strength = 'hard' WHERE id = 1", "strength 'hard'"),
        ("UPDATE records SET text = X'00ff' WHERE id = 2", "a BLOB in its 'text' column"),
        ("UPDATE records SET created_ms = 1.5 WHERE id = 2", "a REAL in its 'created_ms' column"),
        ("UPDATE records SET text = CAST(X'ff41' AS TEXT) WHERE id = 3", "TEXT that is not UTF-8"),
        (f"UPDATE records SET superseded_by = 99 WHERE id = {SUPERSEDED}", "superseded by 99, which is not"),
        (f"UPDATE records SET supersedes = 1 WHERE id = {SUCCESSOR}", "which is not superseded by it"),
        (f"UPDATE records SET status = 'active' WHERE id = {SUPERSEDED}", "is active but names"),
        ("UPDATE records SET superseded_by = 2 WHERE id = 1", "discovery with a supersede link"),
        ("UPDATE messages SET thread = 'gone'", "thread 'gone', which is not stored"),
        ("UPDATE messages SET role = 'system'", "unknown role 'system'"),
        ("DROP TABLE messages", "table messages is missing"),
        ("PRAGMA user_version = 0", "schema version 0"),
    ],
)
def test_fsck_finds_every_broken_memory_invariant(tmp_path: Path, edit: str, found: str) -> None:
    _hand_edit(filled_memory(tmp_path, 5), edit)
    report = prooftext.fsck(tmp_path)
    assert report.status == BIT_MEMORY and report.memory == "corrupt"
    assert any(found in p["detail"] for p in report.problems), report.problems


def test_every_kind_has_its_statuses() -> None:
    assert set(KIND_STATUSES) == set(KINDS)


def test_a_newer_memory_schema_is_noted_not_failed(tmp_path: Path) -> None:
    _hand_edit(filled_memory(tmp_path, 5), "PRAGMA user_version = 99")
    report = prooftext.fsck(tmp_path)
    assert report.status == 0 and report.memory == "newer" and report.notices[0]["kind"] == "memory_store"


def test_export_move_aside_and_import_recover_every_readable_record_into_a_fresh_store(
    tmp_path: Path,
) -> None:
    path = filled_memory(tmp_path, RECORDS)
    with MemoryStore(path) as store:
        before = {r.id: r.to_dict() for r in store.records()}
    lost = damage_records_page(path)
    export = prooftext.memory_export(tmp_path)
    assert not export.complete and export.summary()["unreadable"] == {"records": [f"{lost[0]}-{lost[-1]}"]}
    data = "".join(line + "\n" for line in export.lines()).encode()
    _aside(path)
    result = prooftext.memory_import(tmp_path, data)
    assert (result.records, result.messages, result.links_dropped) == (len(before) - len(lost), 1, [])
    with MemoryStore(path) as store:
        after = {r.id: r.to_dict() for r in store.records()}
        assert [m.text for m in store.history("main")] == ["what did we decide?"]
        store.add("decision", "Writes work again", source="test")
    assert after == {i: r for i, r in before.items() if i not in lost}
    assert prooftext.fsck(tmp_path).status == 0


def test_a_sound_store_round_trips_through_export_and_import_exactly(tmp_path: Path) -> None:
    source = filled_memory(tmp_path / "a", 3)
    with MemoryStore(source) as store:
        store.resolve(store.add("failure", "Flaky test", source="ci").id, "fixed")
        store.add("constraint", "No network in tests", source="test", strength="hard", thread="main")
        records, threads = [r.to_dict() for r in store.records()], [t.to_dict() for t in store.threads()]
    export = prooftext.memory_export(tmp_path / "a")
    assert export.complete
    as_dict = export.to_dict()  # results have to_dict(), this one too: its summary and every row it read
    assert as_dict["complete"] and as_dict["records"] == len(records) == len(as_dict["rows"]["records"])
    assert json.loads(json.dumps(as_dict)) == as_dict
    file = tmp_path / "memory.jsonl"
    file.write_text("".join(line + "\n" for line in export.lines()))
    for target, named in (
        (tmp_path / "b", file),
        (tmp_path / "c", str(file)),
    ):  # a path, or a string naming it
        target.mkdir()
        prooftext.memory_import(target, named)
        with MemoryStore.open(target) as store:
            assert [r.to_dict() for r in store.records()] == records
            assert [t.to_dict() for t in store.threads()] == threads
    with pytest.raises(RequestError):
        prooftext.memory_import(tmp_path / "b", 5)  # type: ignore[arg-type]


def test_thread_identities_round_trip_through_export_and_import(tmp_path: Path) -> None:
    source = filled_memory(tmp_path / "a", 2)
    with MemoryStore(source) as store:
        store.set_thread_identity("main", "You are Ada, a careful reviewer.")
        store.set_thread_identity("quiet", "You are Bo.")  # a thread with an identity and no message yet
        threads = [t.to_dict() for t in store.threads()]
    export = prooftext.memory_export(tmp_path / "a")
    assert export.complete and export.summary()["thread_settings"] == 2
    (tmp_path / "b").mkdir()
    result = prooftext.memory_import(tmp_path / "b", "\n".join(export.lines()).encode())
    assert result.to_dict()["thread_settings"] == 2
    with MemoryStore.open(tmp_path / "b") as store:
        assert store.thread_identity("main") == "You are Ada, a careful reviewer."
        assert store.thread_identity("quiet") == "You are Bo."
        assert [t.to_dict() for t in store.threads()] == threads
    assert prooftext.fsck(tmp_path / "b").status == 0


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"identity":"  ","thread":"main","type":"thread_setting","updated_ms":1}', "must not be empty"),
        ('{"identity":"a\\u001bb","thread":"main","type":"thread_setting","updated_ms":1}', "control"),
        ('{"identity":"x","thread":"a b","type":"thread_setting","updated_ms":1}', "thread"),
        ('{"identity":"x","thread":"main","type":"thread_setting"}', "exactly the fields"),
    ],
)
def test_an_import_holds_thread_identities_to_the_rules_of_a_write(
    tmp_path: Path, line: str, message: str
) -> None:
    filled_memory(tmp_path / "a", 2)
    lines = [*prooftext.memory_export(tmp_path / "a").lines(), line]
    (tmp_path / "b").mkdir()
    with pytest.raises(RequestError, match=message) as caught:
        prooftext.memory_import(tmp_path / "b", "\n".join(lines).encode())
    assert caught.value.details["line"] == len(lines)


def test_an_import_drops_a_supersede_link_to_a_record_the_damage_took(tmp_path: Path) -> None:
    filled_memory(tmp_path / "a", 2)
    lines = [line for line in prooftext.memory_export(tmp_path / "a").lines() if '"id":4,' not in line]
    (tmp_path / "b").mkdir()
    result = prooftext.memory_import(tmp_path / "b", "\n".join(lines).encode())
    assert result.links_dropped == ["record 3: superseded_by 4"]
    with MemoryStore.open(tmp_path / "b") as store:
        assert store.get(3).status == "superseded" and store.get(3).superseded_by is None
    assert prooftext.fsck(tmp_path / "b").status == 0


def test_an_import_into_a_store_that_holds_memory_is_refused(tmp_path: Path) -> None:
    filled_memory(tmp_path, 2)
    data = "\n".join(prooftext.memory_export(tmp_path).lines()).encode()
    with pytest.raises(MemoryStoreError, match="empty store"):
        prooftext.memory_import(tmp_path, data)


@pytest.mark.parametrize(
    ("line", "error"),
    [
        ("not json", JSONSyntaxError),
        ('{"type":"note","id":1}', RequestError),
        ('{"type":"record","id":1}', RequestError),
    ],
)
def test_an_import_with_one_bad_line_writes_nothing_and_names_the_line(
    tmp_path: Path, line: str, error: type[Exception]
) -> None:
    filled_memory(tmp_path / "a", 2)
    lines = [*prooftext.memory_export(tmp_path / "a").lines(), line]
    (tmp_path / "b").mkdir()
    with pytest.raises(error) as caught:
        prooftext.memory_import(tmp_path / "b", "\n".join(lines).encode())
    assert caught.value.details["line"] == len(lines)  # type: ignore[attr-defined]
    with MemoryStore.open(tmp_path / "b") as store:
        assert store.records() == []


def test_an_import_holds_records_to_the_rules_of_a_write(tmp_path: Path) -> None:
    filled_memory(tmp_path / "a", 2)
    lines = list(prooftext.memory_export(tmp_path / "a").lines())
    lines[0] = lines[0].replace('"status":"active"', '"status":"resolved"')
    (tmp_path / "b").mkdir()
    with pytest.raises(RequestError, match="discovery with the status 'resolved'"):
        prooftext.memory_import(tmp_path / "b", "\n".join(lines).encode())


def test_a_new_store_is_not_created_beside_the_wal_of_one_moved_away(tmp_path: Path) -> None:
    path = filled_memory(tmp_path, 2)
    path.rename(tmp_path / "aside.sqlite")
    path.with_name(path.name + "-wal").write_bytes(b"left over")
    with pytest.raises(MemoryStoreError, match="-wal is left from a memory store"):
        MemoryStore.open(tmp_path)
    assert not path.exists()


def test_an_export_of_a_root_without_memory_is_empty_and_complete(tmp_path: Path) -> None:
    export = prooftext.memory_export(tmp_path)
    assert export.complete and list(export.lines()) == []
    assert not (tmp_path / ".prooftext").exists()


@pytest.mark.parametrize("record_id", [0, -5])
def test_an_import_refuses_a_record_id_no_write_could_give(tmp_path: Path, record_id: int) -> None:
    filled_memory(tmp_path / "a", 1)
    line = next(prooftext.memory_export(tmp_path / "a").lines())
    row = json.loads(line)
    assert row["id"] == 1
    row["id"] = record_id
    (tmp_path / "b").mkdir()
    with pytest.raises(RangeError) as caught:
        prooftext.memory_import(tmp_path / "b", json.dumps(row).encode() + b"\n")
    assert caught.value.field == "id" and caught.value.details["line"] == 1
    with MemoryStore.open(tmp_path / "b") as store:
        assert store.records() == []


@pytest.mark.parametrize(
    ("version", "edits"),
    [
        (2, ("ALTER TABLE records DROP COLUMN resolved_by",)),
        (1, ("ALTER TABLE records DROP COLUMN resolved_by", "DROP TABLE thread_settings")),
    ],
)
def test_fsck_passes_a_sound_store_an_earlier_prooftext_wrote_and_still_checks_its_records(
    tmp_path: Path, version: int, edits: tuple[str, ...]
) -> None:
    path = filled_memory(tmp_path, 5)
    _hand_edit(path, *edits, f"PRAGMA user_version = {version}")
    report = prooftext.fsck(tmp_path)
    assert report.status == 0 and report.memory == "ok" and not report.problems, report.problems
    _hand_edit(path, "UPDATE records SET status = 'resolved' WHERE id = 1")
    report = prooftext.fsck(tmp_path)
    assert report.status == BIT_MEMORY and "with the status 'resolved'" in report.problems[0]["detail"]
    _hand_edit(path, "UPDATE records SET status = 'active' WHERE id = 1")
    with MemoryStore.open(tmp_path) as store:  # opening it still migrates it
        assert store.schema_version() == 3
    assert prooftext.fsck(tmp_path).status == 0
