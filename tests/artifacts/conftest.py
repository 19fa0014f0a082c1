"""Fixtures of the artifact tests: one lifecycle run per session, cloned per test (cheap, isolated)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gates.context import Run


@pytest.fixture(scope="session")
def origin(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """manifest → graph → query → selection on the gate's public fixture (with the owner root)."""
    return Run.fresh(tmp_path_factory.mktemp("origin"), "origin").standard()


@pytest.fixture
def run(origin: Run, tmp_path: Path) -> Run:
    return origin.clone(tmp_path, "run")
