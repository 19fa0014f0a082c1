"""Shared fixtures: the ``../shared`` data folder (skipped with a reason when absent), and a tokenizer
cache folder of the session's own (tests never write into the user's cache)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import SAMPLE_FILES, shared_path, write_tree
from prooftext.tokens import CACHE_ENV


@pytest.fixture(scope="session", autouse=True)
def _tokenizer_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    previous = os.environ.get(CACHE_ENV)
    os.environ[CACHE_ENV] = str(tmp_path_factory.mktemp("tokenizer-cache"))
    yield
    if previous is None:
        del os.environ[CACHE_ENV]
    else:
        os.environ[CACHE_ENV] = previous


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
