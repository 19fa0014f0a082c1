"""Emptying the store (``index --rebuild``) when the root or the disk refuses: the user's error, nothing left."""

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path
from typing import Any

import pytest

import prooftext
from helpers import SAMPLE_FILES, tmpfs, write_tree
from prooftext.corpus.stores import STORE_DIR
from prooftext.errors import DiskFullError, RootUnreadableError


def _fill(where: Path) -> Path:
    filler = where / "filler"
    with open(filler, "wb", buffering=0) as handle:
        for size in (64 * 1024, 1024, 1):
            with contextlib.suppress(OSError):
                while True:
                    handle.write(b"\0" * size)
    return filler


def _listing(root: Path) -> list[str]:
    return sorted(p.name for p in (root / STORE_DIR).iterdir())


def test_a_rebuild_on_a_full_disk_fails_disk_full_and_leaves_no_wal_or_shm_file(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "disk", "2m") as disk:
        root = write_tree(disk / "repo", SAMPLE_FILES)
        with prooftext.open(root) as index:
            index.refresh()
        before = _listing(root)
        filler = _fill(disk)
        with pytest.raises(DiskFullError):
            prooftext.reset_index(root)
        assert _listing(root) == before
        assert prooftext.Index.status_of(root).fresh  # the old index is whole
        filler.unlink()
        prooftext.reset_index(root)
        with prooftext.open(root) as index:
            assert index.refresh().files_indexed == len(SAMPLE_FILES)


def test_a_rebuild_of_a_root_that_cannot_be_opened_is_root_unreadable_and_creates_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No permission to open the root (root's own permissions cannot show it: ``os.open`` refuses here)."""
    root = write_tree(tmp_path / "repo", SAMPLE_FILES).resolve()
    real_open = os.open

    def refusing(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if os.fspath(path) == str(root) and flags & os.O_DIRECTORY:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refusing)
    with pytest.raises(RootUnreadableError) as info:
        prooftext.reset_index(root)
    assert info.value.code == "root_unreadable"
    assert not (root / STORE_DIR).exists()
