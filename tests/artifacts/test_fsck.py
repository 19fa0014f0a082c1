"""``fsck``: stored artifacts recomputed, store integrity, indexed sources re-hashed; bitmask 1/2/4."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from prooftext import canonical
from prooftext.artifacts.fsck import BIT_DIGEST, BIT_SOURCE, fsck
from prooftext.gates import fixture
from prooftext.gates.context import Run
from prooftext.index import open_index
from prooftext.store.db import STORE_DIR, STORE_FILE


def test_a_clean_root_passes(run: Run) -> None:
    report = fsck(run.repo)
    assert report.status == 0 and report.artifacts_checked == 4 and report.store == "absent"


def test_an_edited_artifact_sets_bit_1(run: Run) -> None:
    value = run.value("query")
    value["text"] = "edited"
    run.out("query").write_bytes(canonical.encode(value))
    report = fsck(run.repo)
    assert report.status == BIT_DIGEST
    assert report.problems[0]["code"] == "artifact_id_mismatch"


def _indexed(run: Run) -> Path:
    with open_index(run.repo) as index:
        index.refresh()
    return run.repo / STORE_DIR / STORE_FILE


def test_indexed_sources_are_rehashed(run: Run) -> None:
    _indexed(run)
    report = fsck(run.repo)
    assert (
        report.status == 0
        and report.store == "ok"
        and report.sources_checked == len(fixture.REPOSITORY_FILES)
    )
    (run.repo / fixture.LEDGER).write_text("changed\n", encoding="utf-8")
    (run.repo / fixture.DRAFT).unlink()
    report = fsck(run.repo)
    assert report.status == BIT_SOURCE
    assert {(p["kind"], p["path"]) for p in report.problems} == {
        ("source_drift", fixture.LEDGER),
        ("source_missing", fixture.DRAFT),
    }


def test_a_corrupt_store_sets_bit_1(run: Run) -> None:
    store = _indexed(run)
    for suffix in ("-wal", "-shm"):
        Path(f"{store}{suffix}").unlink(missing_ok=True)
    store.write_bytes(b"this is not a database" * 100)
    report = fsck(run.repo)
    assert report.status & BIT_DIGEST and report.store == "corrupt"


def test_a_store_missing_its_fts_table_sets_bit_1(run: Run) -> None:
    store = _indexed(run)
    with sqlite3.connect(store) as conn:
        conn.execute("DROP TABLE nodes_fts")
    report = fsck(run.repo)
    assert report.status == BIT_DIGEST and report.store == "corrupt"
    assert report.sources_checked == len(fixture.REPOSITORY_FILES)
    assert [p["kind"] for p in report.problems] == ["store"]
    assert report.problems[0]["detail"].startswith("missing tables: nodes_fts")
