"""``fsck``: stored artifacts recomputed, store integrity, indexed sources re-hashed; bitmask 1/2/4."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from gates import fixture
from gates.context import Run
from prooftext import canonical
from prooftext.artifacts import fsck as fsck_module
from prooftext.artifacts.fsck import BIT_DIGEST, BIT_SOURCE, fsck
from prooftext.artifacts.limits import MAX_ARTIFACT_BYTES
from prooftext.corpus.stores import INDEX_FILE, STORE_DIR
from prooftext.index import open_index


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
    return run.repo / STORE_DIR / INDEX_FILE


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


def _retyped(path: Path) -> None:
    value = canonical.load(path.read_bytes())
    value["artifact_type"] = "Query"
    path.write_bytes(canonical.encode(canonical.with_artifact_id(value)))


def _symlinked(path: Path) -> None:
    path.unlink()
    path.symlink_to(path.parent / "manifest.json")


def _padded(path: Path) -> None:
    os.truncate(path, MAX_ARTIFACT_BYTES + 1)  # sparse: no 64 MiB is written


TAMPERED: dict[str, Callable[[Path], None]] = {
    "an unknown artifact_type": _retyped,
    "a BOM prefix": lambda p: p.write_bytes(b"\xef\xbb\xbf" + p.read_bytes()),
    "truncated to 40 bytes": lambda p: p.write_bytes(p.read_bytes()[:40]),
    "truncated to 9 bytes": lambda p: p.write_bytes(p.read_bytes()[:9]),
    "wrapped in a list": lambda p: p.write_bytes(b"[" + p.read_bytes() + b"]"),
    "padded past the largest artifact": _padded,
    "replaced by a symlink": _symlinked,
}


@pytest.mark.parametrize("case", sorted(TAMPERED))
def test_a_tampered_artifact_is_a_problem_never_passed_over(run: Run, case: str) -> None:
    TAMPERED[case](run.out("query"))
    report = fsck(run.repo)
    assert report.status & BIT_DIGEST and not report.to_dict()["ok"]
    assert ".prooftext/context/query.json" in {p.get("path") for p in report.problems}


def test_other_json_is_passed_over_with_a_notice(run: Run) -> None:
    (run.repo / ".prooftext" / "claims.json").write_text('[{"text": "x", "links": []}]', encoding="utf-8")
    report = fsck(run.repo)
    assert report.status == 0 and report.artifacts_checked == 4
    assert report.to_dict()["notices"] == [
        {
            "kind": "not_an_artifact",
            "path": ".prooftext/claims.json",
            "detail": "JSON without artifact_id or artifact_type",
        }
    ]


def test_the_artifact_file_cap_is_reported(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fsck_module, "MAX_ARTIFACT_FILES", 2)
    report = fsck(run.repo)
    assert report.artifacts_checked == 2
    assert [n["kind"] for n in report.notices] == ["artifact_cap"]


@pytest.mark.parametrize("name", ["q?x", "h#x"])
def test_a_root_whose_path_holds_uri_characters_is_read_in_place(tmp_path: Path, name: str) -> None:
    run = Run.fresh(tmp_path / name, "fsck")
    _indexed(run)
    before = sorted(p.name for p in tmp_path.iterdir())
    report = fsck(run.repo)
    assert report.status == 0 and report.store == "ok"
    assert report.sources_checked == len(fixture.REPOSITORY_FILES)
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no store opened beside the root
