"""Each thread may keep its own identity; a schema-1 store gains the table on open, its data untouched."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from prooftext.errors import LimitError, RequestError
from prooftext.memory import SCHEMA_VERSION, MemoryStore
from prooftext.memory.store import MAX_RECORD_BYTES
from prooftext.memory.transfer import export_memory, import_memory


def test_a_thread_keeps_its_identity_and_other_threads_do_not_share_it(tmp_path: Path) -> None:
    with MemoryStore.open(tmp_path) as store:
        assert store.thread_identity("garden") is None
        store.set_thread_identity("garden", "You are Luminos.")
        store.set_thread_identity("garden", "You are Luminos, calm.")
        assert store.thread_identity("garden") == "You are Luminos, calm."
        assert store.thread_identity("main") is None and store.has_thread("garden")
        with pytest.raises(RequestError):
            store.set_thread_identity("garden", "  ")


def test_a_schema_one_store_is_migrated_on_open_keeping_its_messages(tmp_path: Path) -> None:
    with MemoryStore.open(tmp_path) as store:
        store.append_message("main", "user", "hello", tier="surface")
        path = store.path
    db = sqlite3.connect(path)
    db.execute("DROP TABLE thread_settings")
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()
    with MemoryStore.open(tmp_path) as store:
        assert store.schema_version() == SCHEMA_VERSION == 3
        assert [m.text for m in store.history("main")] == ["hello"]
        store.set_thread_identity("main", "You are careful.")
        assert store.thread_identity("main") == "You are careful."


def test_an_export_and_import_keep_when_a_thread_given_its_identity_first_was_created(
    tmp_path: Path,
) -> None:
    ticks = iter(range(100, 10_000, 100))
    (tmp_path / "a").mkdir()
    with MemoryStore.open(tmp_path / "a", clock=lambda: next(ticks)) as store:
        store.set_thread_identity("garden", "You are Luminos.")  # the thread starts here, before any message
        store.append_message("garden", "user", "hello", tier="surface")
        store.append_message("garden", "assistant", "Hello.", tier="surface")
        store.set_thread_identity("quiet", "You say little.")  # a thread with an identity and no message
        before = [t.to_dict() for t in store.threads()]
        data = "\n".join(export_memory(store.path).lines()).encode()
    (tmp_path / "b").mkdir()
    with MemoryStore.open(tmp_path / "b") as copy:
        import_memory(copy, data)
        assert [t.to_dict() for t in copy.threads()] == before


def test_a_kept_identity_is_held_to_a_record_s_size_and_characters(tmp_path: Path) -> None:
    """An identity is text sent as a system prompt on every turn of its thread: like a record's text, it has
    a size limit and no control characters (a terminal escape would reach every prompt)."""
    with MemoryStore.open(tmp_path) as store:
        with pytest.raises(RequestError) as escaped:
            store.set_thread_identity("garden", "You are \x1b[2Jcalm.")
        with pytest.raises(LimitError) as large:
            store.set_thread_identity("garden", "x" * (MAX_RECORD_BYTES + 1))
        store.set_thread_identity("garden", "You are calm.\n\tAnswer briefly.")
        assert store.thread_identity("garden") == "You are calm.\n\tAnswer briefly."
    assert escaped.value.details["field"] == "identity" and "control" in str(escaped.value)
    assert large.value.details["limit"] == MAX_RECORD_BYTES
