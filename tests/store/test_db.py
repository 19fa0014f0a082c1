"""Opening the store: a new store switches to WAL under the writer lock; an existing one opens without it."""

from __future__ import annotations

import fcntl
import sqlite3
from pathlib import Path

import pytest

import prooftext
from helpers import read_only_file_system
from prooftext.corpus.stores import INDEX_FILE, STORE_DIR
from prooftext.errors import StoreError
from prooftext.store import db
from prooftext.store.schema import SCHEMA_VERSION


def _record_locks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = fcntl.flock

    def recording(fd: int, op: int) -> None:
        calls.append(op)
        real(fd, op)

    monkeypatch.setattr(db.fcntl, "flock", recording)
    return calls


def test_a_new_store_switches_to_wal_under_the_writer_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _record_locks(monkeypatch)
    conn = db.connect(tmp_path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert calls == [fcntl.LOCK_EX, fcntl.LOCK_UN]


def test_an_existing_store_opens_without_waiting_on_a_writer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db.connect(tmp_path).close()
    calls = _record_locks(monkeypatch)
    conn = db.connect(tmp_path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert calls == []


def test_reads_inside_a_snapshot_see_one_state_while_a_writer_commits(tmp_path: Path) -> None:
    writer, reader = db.connect(tmp_path), db.connect(tmp_path)

    def meta_rows() -> int:
        return int(reader.execute("SELECT count(*) FROM meta").fetchone()[0])

    before = meta_rows()
    with db.read_snapshot(reader):
        assert meta_rows() == before
        with db.transaction(writer):
            writer.execute("INSERT INTO meta (key, value) VALUES ('snapshot-test', '1')")
        assert meta_rows() == before
        with db.read_snapshot(reader):  # nested: the open snapshot holds
            assert meta_rows() == before
    assert not reader.in_transaction
    assert meta_rows() == before + 1


def test_a_rebuild_is_seen_by_another_open_handle_which_never_reads_a_deleted_file(sample_repo: Path) -> None:
    with prooftext.open(sample_repo) as reader, prooftext.open(sample_repo) as writer:
        reader.refresh()
        before = reader.pack("separability_matrix").evidence
        report = writer.rebuild()
        assert report.files_indexed > 0 and report.files_unchanged == 0
        assert reader.status().fresh
        assert reader.pack("separability_matrix").evidence == before


def test_a_reset_store_has_every_table_of_its_version_as_soon_as_it_commits(sample_repo: Path) -> None:
    """Another process reading between the reset and the next connect sees an empty store, never one
    without tables."""
    with prooftext.open(sample_repo) as index:
        index.refresh()
    assert db.reset(sample_repo) == db.RESET_IN_PLACE
    raw = sqlite3.connect(sample_repo / STORE_DIR / INDEX_FILE)
    try:
        assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert raw.execute("SELECT count(*) FROM files").fetchone()[0] == 0
        assert raw.execute("SELECT count(*) FROM meta").fetchone()[0] == 0
    finally:
        raw.close()


@pytest.mark.parametrize("shape", ["symlink", "directory"])
def test_a_store_file_that_is_a_link_or_a_directory_is_refused_and_nothing_is_followed(
    tmp_path: Path, shape: str
) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    store = tmp_path / STORE_DIR
    store.mkdir()
    victim = tmp_path / "victim.sqlite"
    with sqlite3.connect(victim) as conn:
        conn.execute("CREATE TABLE precious (v TEXT)")
    if shape == "symlink":
        (store / INDEX_FILE).symlink_to(victim)
    else:
        (store / INDEX_FILE).mkdir()
    for attempt in (lambda: db.reset(tmp_path), lambda: prooftext.open(tmp_path)):
        with pytest.raises(StoreError) as caught:
            attempt()
        assert caught.value.code == "store_error" and "neither follows nor replaces" in caught.value.message
    with sqlite3.connect(victim) as conn:
        assert conn.execute("SELECT count(*) FROM precious").fetchone()[0] == 0
    assert (store / INDEX_FILE).is_symlink() or (store / INDEX_FILE).is_dir()


def test_a_fresh_store_on_a_read_only_file_system_packs_and_a_refresh_names_what_refused_it(
    sample_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with prooftext.open(sample_repo) as index:
        index.refresh()
    read_only_file_system(monkeypatch, sample_repo / STORE_DIR)
    with prooftext.open(sample_repo) as index:
        assert index.status().fresh
        assert index.pack("separability_matrix").evidence
        (sample_repo / "added.py").write_text("def added():\n    pass\n", encoding="utf-8")
        with pytest.raises(StoreError) as info:
            index.pack("separability_matrix")
    assert info.value.code == "store_error"
    assert str(info.value).endswith(f"writer lock {STORE_DIR}/index.lock: Read-only file system")


def test_a_store_that_cannot_be_opened_is_a_store_error_naming_the_file_and_why(
    sample_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with prooftext.open(sample_repo) as index:
        index.refresh()
    Path(f"{sample_repo / STORE_DIR / INDEX_FILE}-wal").write_bytes(b"frames the file does not hold")
    read_only_file_system(monkeypatch, sample_repo / STORE_DIR)
    with pytest.raises(StoreError) as info:
        prooftext.open(sample_repo)
    assert info.value.code == "store_error"
    assert str(info.value) == (
        f"cannot use the index store {STORE_DIR}/{INDEX_FILE}: unable to open database file"
        " (the file system is read-only)"
    )


def test_a_store_directory_that_is_a_file_is_refused_as_not_a_plain_directory(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / STORE_DIR).write_text("not a directory\n")
    for attempt in (lambda: db.reset(tmp_path), lambda: prooftext.open(tmp_path)):
        with pytest.raises(StoreError) as caught:
            attempt()
        assert caught.value.message == f"{STORE_DIR} under the root is not a plain directory"
    assert (tmp_path / STORE_DIR).read_text() == "not a directory\n"
