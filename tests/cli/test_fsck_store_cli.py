"""A damaged index store: fsck flags it with the repair, pack fails with a code, ``index --rebuild`` mends it."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

import prooftext.cli.context  # noqa: F401  (registers `fsck` on the app)
from prooftext.cli import main
from prooftext.cli.common import EXIT_INTERNAL
from prooftext.corpus.stores import INDEX_FILE, STORE_DIR


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    status = main(list(argv))
    return status, capsys.readouterr().out


def _index_and_drop_the_fts_table(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(capsys, "index", str(root), "--json")[0] == 0
    with sqlite3.connect(root / STORE_DIR / INDEX_FILE) as conn:
        conn.execute("DROP TABLE nodes_fts")


def test_fsck_flags_a_dropped_fts_table_and_pack_reports_a_store_error(
    sample_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _index_and_drop_the_fts_table(sample_repo, capsys)
    status, out = _run(capsys, "fsck", str(sample_repo), "--json")
    report = json.loads(out)
    assert status == 1 and report["store"] == "corrupt"
    assert "nodes_fts" in report["problems"][0]["detail"]
    assert report["problems"][0]["repair"] == "prooftext index --rebuild"
    status, out = _run(capsys, "pack", "separability_matrix", "--root", str(sample_repo), "--json")
    assert status not in (0, EXIT_INTERNAL)
    error = json.loads(out)["error"]
    assert error["code"] == "store_corrupt" and "prooftext index --rebuild" in error["message"]


def _memory_file(root: Path) -> bytes:
    path = root / STORE_DIR / "memory.sqlite"
    path.write_bytes(b"kept as it is")
    return path.read_bytes()


def test_index_rebuild_mends_a_store_that_lost_a_table_and_keeps_memory(
    sample_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _run(capsys, "index", str(sample_repo), "--json")
    memory = _memory_file(sample_repo)
    with sqlite3.connect(sample_repo / STORE_DIR / INDEX_FILE) as conn:
        conn.execute("DROP TABLE nodes_fts")
    status, out = _run(capsys, "index", str(sample_repo), "--rebuild", "--json")
    assert status == 0 and json.loads(out)["files_unchanged"] == 0
    assert json.loads(_run(capsys, "fsck", str(sample_repo), "--json")[1])["store"] == "ok"
    status, out = _run(capsys, "pack", "separability_matrix", "--root", str(sample_repo), "--json")
    assert status == 0 and json.loads(out)["evidence"]
    assert (sample_repo / STORE_DIR / "memory.sqlite").read_bytes() == memory


def test_index_rebuild_replaces_a_store_file_that_is_not_a_database(
    sample_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _run(capsys, "index", str(sample_repo), "--json")
    (sample_repo / STORE_DIR / INDEX_FILE).write_bytes(b"garbage " * 512)
    status, out = _run(capsys, "index", str(sample_repo), "--json")
    assert status != 0 and json.loads(out)["error"]["code"] == "store_corrupt"
    status, out = _run(capsys, "index", str(sample_repo), "--rebuild", "--json")
    assert status == 0 and json.loads(out)["files_indexed"] > 0
    assert json.loads(_run(capsys, "fsck", str(sample_repo), "--json")[1])["store"] == "ok"


def test_rebuild_and_status_together_are_refused(
    sample_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = _run(capsys, "index", str(sample_repo), "--status", "--rebuild", "--json")
    assert status != 0 and json.loads(out)["error"]["details"]["field"] == "rebuild"


def test_fsck_names_the_store_file_in_its_human_line_with_one_repair(
    sample_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _index_and_drop_the_fts_table(sample_repo, capsys)
    assert main(["fsck", str(sample_repo)]) == 1
    line = capsys.readouterr().err
    assert line.startswith(f"fsck: store: {STORE_DIR}/{INDEX_FILE} missing tables: nodes_fts, ")
    assert line.endswith(" (repair: prooftext index --rebuild)\n") and line.count("repair") == 1
