"""Helpers for corpus tests: build a file tree from a mapping of portable paths to contents."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

Tree = dict[str, bytes | str]
MakeTree = Callable[[Tree], Path]


def write_tree(root: Path, files: Tree) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        data = content.encode("utf-8") if isinstance(content, str) else content
        path.write_bytes(data)
    return root


@pytest.fixture
def make_tree(tmp_path: Path) -> MakeTree:
    """``make_tree({"a/b.py": "x = 1\\n"})`` writes the files under a fresh root and returns the root."""
    root = tmp_path / "repo"
    root.mkdir()
    return lambda files: write_tree(root, files)
