"""Shared fixtures: the ``../shared`` data folder (skipped with a reason when absent)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from helpers import SAMPLE_FILES, write_tree

REPO = Path(__file__).resolve().parents[1]


def shared_path() -> Path | None:
    """``../shared`` beside the checkout, or ``$PROOFTEXT_SHARED``; None when neither exists."""
    env = os.environ.get("PROOFTEXT_SHARED")
    candidates = [Path(env)] if env else []
    candidates.append(REPO.parent / "shared")
    for path in candidates:
        if path.is_dir():
            return path
    return None


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
