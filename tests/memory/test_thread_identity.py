"""Each thread may keep its own identity; a schema-1 store gains the table on open, its data untouched."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from prooftext.errors import RequestError
from prooftext.memory import SCHEMA_VERSION, MemoryStore


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
