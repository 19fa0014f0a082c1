"""``fsck`` and ``memory export`` leave ``.prooftext/`` as they found it: on a store with no ``-wal`` or ``-shm`` file it leaves none
behind (for the index store and the memory store alike), its stores' bytes are unchanged, and a ``-wal``
file another connection holds open, with commits not yet checkpointed, is left in place with its commits."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from prooftext.cli import main
from prooftext.corpus.stores import INDEX_FILE, STORE_DIR


def _store(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / STORE_DIR).iterdir()) if p.is_file()}


def _indexed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "app.py").write_text("def hello():\n    return 1\n")
    assert main(["index", str(root), "--json"]) == 0
    assert main(["memory", "add", "decision", "Use JSON lines", "--root", str(root), "--json"]) == 0
    capsys.readouterr()
    return root


def test_fsck_leaves_no_wal_or_shm_file_where_there_was_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _indexed(tmp_path, capsys)
    before = _store(root)
    assert not [name for name in before if name.endswith(("-wal", "-shm"))]
    assert main(["fsck", str(root), "--json"]) == 0
    assert '"store": "ok"' in capsys.readouterr().out
    assert _store(root) == before


def test_fsck_leaves_a_wal_file_holding_commits_in_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _indexed(tmp_path, capsys)
    other = sqlite3.connect(root / STORE_DIR / INDEX_FILE, isolation_level=None)
    try:
        other.execute("PRAGMA wal_autocheckpoint = 0")
        other.execute("CREATE TABLE held (x)")
        other.execute("INSERT INTO held VALUES (7)")
        wal = root / STORE_DIR / f"{INDEX_FILE}-wal"
        held = wal.read_bytes()
        assert held
        main(["fsck", str(root), "--json"])
        capsys.readouterr()
        assert wal.read_bytes() == held
        assert other.execute("SELECT x FROM held").fetchall() == [(7,)]
    finally:
        other.close()


def test_memory_export_leaves_no_wal_or_shm_file_where_there_was_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _indexed(tmp_path, capsys)
    before = _store(root)
    assert main(["memory", "export", "--root", str(root)]) == 0
    assert "Use JSON lines" in capsys.readouterr().out
    assert _store(root) == before
