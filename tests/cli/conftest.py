"""Fixtures shared by the command-line tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def frobnicate_root(tmp_path: Path) -> Path:
    """A repository of one Python file defining one function, ``frobnicate``."""
    folder = tmp_path / "repo"
    folder.mkdir()
    (folder / "app.py").write_text("def frobnicate():\n    return 1\n")
    return folder
