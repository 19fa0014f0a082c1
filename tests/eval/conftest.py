"""Fixtures over the synthetic data of :mod:`evaldata` (built in temporary directories per session/test)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .evaldata import CONVERSATION, MISSING_COMMIT, QUERY_1, QUERY_2, SweFixture, make_repo, task


@pytest.fixture(scope="session")
def swe_fixture(tmp_path_factory: pytest.TempPathFactory) -> SweFixture:
    """Three tasks: one per commit, and one at a commit that does not exist (it must fail, not crash)."""
    base = tmp_path_factory.mktemp("swe")
    git_dir, first, second = make_repo(base / "upstream")
    tasks = [
        task("demo-1", first, QUERY_1, [("pkg/alpha.py", [[2, 3]])]),
        task("demo-2", second, QUERY_2, [("pkg/beta.py", [[5, 6]]), ("pkg/gamma.py", [[1, 1]])]),
        task("demo-3", MISSING_COMMIT, QUERY_1, [("pkg/alpha.py", [[1, 1]])]),
    ]
    tasks_path = base / "tasks.jsonl"
    tasks_path.write_text("".join(json.dumps(t) + "\n" for t in tasks), encoding="utf-8")
    repo_map = base / "repos.json"
    repo_map.write_text(json.dumps({"demo/demo": str(git_dir)}), encoding="utf-8")
    return SweFixture(git_dir, first, second, tasks_path, repo_map)


@pytest.fixture(scope="session")
def locomo_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("locomo") / "locomo.json"
    path.write_text(json.dumps([CONVERSATION]), encoding="utf-8")
    return path
