"""Read-time exclusion rows: found again while their file stands, gone with it, never keyed by a secret."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import prooftext
from helpers import eio_on
from prooftext.corpus.config import CorpusConfig
from prooftext.store import refresh

TOKEN = "gh" + "p_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC2dF4gH6"  # split so no scanner takes this file for a leak
SECRET_NAME = f"{TOKEN}.txt"

EXCLUDED_BY_READING: dict[str, bytes] = {
    "blob.dat": b"x\0y",
    "latin.txt": "caf\xe9\n".encode("latin-1"),
    "creds.py": f'TOKEN = "{TOKEN}"\n'.encode(),
    SECRET_NAME: b"hi\n",
}
REASONS = ("binary", "encoding", "secret-in-text", "secret-in-path")
"""Test ids, in the order of :data:`EXCLUDED_BY_READING` (an id spelling the path would print the token)."""


def _tree(root: Path, extra: dict[str, bytes]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "prooftext.toml").write_text('[scan]\nsecrets = "exclude"\n')  # the opt-in policy
    (root / "a.py").write_text("def foo():\n    return 1\n")
    for name, data in extra.items():
        (root / name).write_bytes(data)
    return root


def _excluded(root: Path) -> list[tuple[str, str, str]]:
    with prooftext.open(root) as index:
        rows = index.conn.execute("SELECT path, reason, detail FROM excluded ORDER BY path").fetchall()
    return [tuple(r) for r in rows]


def _index(root: Path) -> prooftext.RefreshReport:
    with prooftext.open(root) as index:
        return index.refresh()


@pytest.mark.parametrize("name", list(EXCLUDED_BY_READING), ids=REASONS)
def test_the_exclusion_of_a_deleted_file_leaves_the_store_as_a_rebuild_would(
    tmp_path: Path, name: str
) -> None:
    root = _tree(tmp_path / "repo", EXCLUDED_BY_READING)
    first = _index(root)
    assert sum(first.files_skipped.values()) == len(EXCLUDED_BY_READING) + 1  # + .prooftext (internal)
    (root / name).unlink()
    report = _index(root)
    rebuilt = tmp_path / "rebuilt"
    shutil.copytree(root, rebuilt, ignore=shutil.ignore_patterns(".prooftext"))
    assert _index(rebuilt).files_skipped == report.files_skipped
    assert _excluded(root) == _excluded(rebuilt)


def test_a_renamed_binary_file_is_recorded_once_under_its_new_path(tmp_path: Path) -> None:
    root = _tree(tmp_path / "repo", {"blob.dat": b"x\0y"})
    _index(root)
    (root / "blob.dat").rename(root / "moved.dat")
    assert _index(root).files_skipped == {"binary": 1, "internal": 1}
    assert [row[0] for row in _excluded(root)] == [".prooftext", "moved.dat"]


def test_a_path_spelling_a_credential_is_found_unchanged_without_storing_it(tmp_path: Path) -> None:
    root = _tree(tmp_path / "repo", {SECRET_NAME: b"hi\n"})
    _index(root)
    with prooftext.open(root) as index:
        status = index.status()
        assert (status.added, status.fresh, status.excluded) == (0, True, 2)
        before = index.conn.execute("SELECT count(*) FROM excluded").fetchone()[0]
        report = index.refresh()
        assert (report.files_indexed, report.files_skipped) == (0, {"internal": 1, "secret": 1})
        dump = "\n".join(index.conn.iterdump())
        assert index.conn.execute("SELECT count(*) FROM excluded").fetchone()[0] == before
    assert (TOKEN in dump) is False  # a bool: a failure must not print the token either


def test_an_unreadable_file_whose_path_spells_a_credential_is_recorded_under_the_redacted_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _tree(tmp_path / "repo", {SECRET_NAME: b"hi\n"})
    eio_on(monkeypatch, SECRET_NAME)
    assert _index(root).files_skipped == {"internal": 1, "unreadable": 1}
    assert (TOKEN in repr(_excluded(root))) is False
    with prooftext.open(root) as index:
        assert index.status().fresh  # found again by its redacted key
    monkeypatch.undo()
    assert _index(root).files_skipped == {"internal": 1, "secret": 1}  # read again, now refused by its path
    (root / SECRET_NAME).unlink()
    assert _index(root).files_skipped == {"internal": 1}


def test_a_plan_lists_the_exclusion_rows_whose_file_is_gone(tmp_path: Path) -> None:
    root = _tree(tmp_path / "repo", {"blob.dat": b"x\0y", SECRET_NAME: b"hi\n"})
    _index(root)
    (root / SECRET_NAME).unlink()
    config = CorpusConfig(secrets="exclude")  # as the tree's prooftext.toml says
    with prooftext.open(root) as index:
        work = refresh.plan(index.conn, root, config)
    assert work.unchanged_excluded == ["blob.dat"]
    assert len(work.stale_excluded) == 1
    assert work.stale_excluded[0] == refresh.exclusion_key(SECRET_NAME)
    assert (TOKEN in work.stale_excluded[0]) is False


def test_walk_time_exclusion_rows_never_hold_a_credential_the_path_spells(tmp_path: Path) -> None:
    root = _tree(tmp_path / "repo", {".gitignore": f"{SECRET_NAME}\nbuild/\n".encode()})
    (root / SECRET_NAME).write_text("ignored\n")
    (root / "big").mkdir()
    (root / "big" / SECRET_NAME).write_bytes(b"x" * 64)
    (root / "prooftext.toml").write_text("[scan]\nmax_file_bytes = 16\n")
    (root / "link.txt").symlink_to(root / SECRET_NAME)
    (root / TOKEN).symlink_to(root / "a.py")
    report = _index(root)
    rows = _excluded(root)
    assert sum(report.files_skipped.values()) == len(rows)
    assert (TOKEN in repr(rows)) is False  # ignored, oversized and linked names alike
    reasons = sorted(reason for _path, reason, _detail in rows)
    assert {"ignored", "size", "symlink"} <= set(reasons)
    with prooftext.open(root) as index:
        assert index.status().fresh  # the next walk finds the same rows by their redacted keys


def test_a_link_made_after_a_refresh_makes_the_index_stale_until_a_refresh_lists_it(tmp_path: Path) -> None:
    root = _tree(tmp_path / "repo", {})
    _index(root)
    (root / "alias.py").symlink_to(root / "a.py")
    with prooftext.open(root) as index:
        status = index.status()
        assert (status.exclusions_changed, status.fresh) == (1, False)
        index.ensure_fresh()
        assert [e.path for e in index.exclusions("symlink")] == ["alias.py"]
        assert index.status().fresh


def test_a_left_out_file_that_is_deleted_makes_the_index_stale_until_its_row_goes(tmp_path: Path) -> None:
    root = _tree(tmp_path / "repo", {"blob.dat": b"x\0y"})
    _index(root)
    (root / "blob.dat").unlink()
    with prooftext.open(root) as index:
        assert index.status().to_dict()["exclusions_changed"] == 1
        index.ensure_fresh()
        assert index.exclusions("binary") == []
        assert index.status().fresh
