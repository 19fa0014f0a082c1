"""A refresh that finds nothing changed writes nothing; one after a killed refresh finishes its work."""

from __future__ import annotations

from pathlib import Path

import pytest

import prooftext
from prooftext.store import refresh
from prooftext.store.digest import table_digests
from prooftext.store.refresh import read_meta


def _tree(root: Path) -> None:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "a.py").write_text("from pkg import b\n\n\ndef f():\n    return b.g()\n")
    (root / "pkg" / "b.py").write_text("def g():\n    return 1\n")
    (root / "README.md").write_text("# Readme\n\nSee [a](pkg/a.py).\n")


def test_a_no_change_refresh_writes_nothing_and_reports_the_same(tmp_path: Path) -> None:
    _tree(tmp_path)
    with prooftext.open(tmp_path) as index:
        first = index.refresh(count_edges=True).to_dict()
        conn = index._writer
        before = conn.total_changes
        again = index.refresh(count_edges=True).to_dict()
        assert conn.total_changes == before
        first["files_unchanged"] = again["files_unchanged"]
        first["files_indexed"] = 0
        assert {k: v for k, v in again.items() if k != "seconds"} == {
            k: v for k, v in first.items() if k != "seconds"
        }


def test_a_refresh_killed_before_its_end_is_finished_by_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _tree(tmp_path)
    with prooftext.open(tmp_path) as index:
        index.refresh()
    (tmp_path / "pkg" / "c.py").write_text("from pkg.b import g\n\nVALUE = g()\n")
    finish = refresh._finish

    def killed(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(refresh, "_finish", killed)
    with prooftext.open(tmp_path) as index, pytest.raises(KeyboardInterrupt):
        index.refresh()
    monkeypatch.setattr(refresh, "_finish", finish)
    with prooftext.open(tmp_path) as index:
        report = index.refresh()
        assert report.files_indexed == 0  # the killed run committed every file
        killed_store = table_digests(index.conn), read_meta(index.conn, "candidate")
        assert report.nodes == index.conn.execute("SELECT count(*) FROM nodes").fetchone()[0]
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    for path in ("pkg/a.py", "pkg/b.py", "pkg/c.py", "README.md"):
        (fresh / path).parent.mkdir(parents=True, exist_ok=True)
        (fresh / path).write_text((tmp_path / path).read_text())
    with prooftext.open(fresh) as index:
        index.refresh()
        assert table_digests(index.conn) == killed_store[0]  # imports of c.py resolved too
        assert read_meta(index.conn, "candidate") == killed_store[1]
