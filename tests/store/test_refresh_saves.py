"""A file saved while a refresh reads it is read once more, as it is now; one that never holds still is
left out as ``changed`` and read at the next refresh."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

import prooftext
from helpers import write_tree
from prooftext.cli import main
from prooftext.cli.common import EXIT_PARTIAL
from prooftext.corpus import safeio

SAVED = b"def saved():\n    return 2\n"


def _writer_during_reads(monkeypatch: pytest.MonkeyPatch, target: Path, times: int) -> list[int]:
    """Another writer rewrites ``target`` after each of the first ``times`` reads of its bytes."""
    real_read = safeio.os.read
    writes: list[int] = []

    def read_and_write(fd: int, n: int) -> bytes:
        data = real_read(fd, n)
        if data.startswith(b"def ") and len(writes) < times:
            writes.append(len(writes))
            target.write_bytes(SAVED + b"# save %d\n" % len(writes))
        return data

    monkeypatch.setattr(safeio.os, "read", read_and_write)
    return writes


def _stored_text(root: Path, path: str) -> str | None:
    with sqlite3.connect(root / ".prooftext" / "index.sqlite") as conn:
        row = conn.execute("SELECT text FROM files WHERE path = ?", (path,)).fetchone()
    return None if row is None else str(row[0])


def test_a_file_saved_while_it_is_read_is_indexed_as_it_is_now(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_tree(tmp_path / "repo", {"a.py": "def first():\n    return 1\n", "b.md": "# B\n"})
    _writer_during_reads(monkeypatch, root / "a.py", times=1)
    with prooftext.open(root) as index:
        report = index.refresh()
        assert "changed" not in report.files_skipped and report.files_indexed == 2
        assert _stored_text(root, "a.py") == (root / "a.py").read_text()
        assert index.status().fresh


def test_a_file_that_never_holds_still_is_left_out_as_changed_and_read_at_the_next_refresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_tree(tmp_path / "repo", {"a.py": "def first():\n    return 1\n"})
    writes = _writer_during_reads(monkeypatch, root / "a.py", times=2)
    with prooftext.open(root) as index:
        report = index.refresh()
        assert report.files_skipped.get("changed") == 1 and len(writes) == 2
        assert not index.status().fresh
        assert index.refresh().files_indexed == 1
        assert _stored_text(root, "a.py") == (root / "a.py").read_text()
        assert index.exclusions("changed") == []


def test_index_exits_partial_when_a_file_is_left_out_as_changed_and_zero_once_the_next_run_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_tree(tmp_path / "repo", {"a.py": "def first():\n    return 1\n", "b.md": "# B\n"})
    _writer_during_reads(monkeypatch, root / "a.py", times=2)
    assert main(["index", str(root), "--json"]) == EXIT_PARTIAL
    assert json.loads(capsys.readouterr().out)["files_skipped"]["changed"] == 1
    assert main(["index", str(root), "--json"]) == 0
    assert "changed" not in json.loads(capsys.readouterr().out)["files_skipped"]
