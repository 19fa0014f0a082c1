"""Shared fixtures: the ``../shared`` data folder (skipped with a reason when absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import SAMPLE_FILES, shared_path, write_tree


@pytest.fixture(scope="session")
def shared() -> Path:
    path = shared_path()
    if path is None:
        pytest.skip("../shared (evaluation data and test vectors) is not present beside this checkout")
    return path


@pytest.fixture
def sample_repo(tmp_path: Path) -> Path:
    """A small Python/Markdown repository; ``separability_matrix`` is defined once and called twice."""
    return write_tree(tmp_path / "repo", SAMPLE_FILES)
