"""``bench/first_impressions_bench.py``: arguments it cannot use stop it before it builds any environment."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import bench_module


def test_a_tree_that_is_not_a_folder_stops_the_run_before_the_environments_are_built(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="--tree is not a folder"):
        bench_module("first_impressions_bench").measure(tmp_path / "missing", 1, "query")


def test_no_timed_run_stops_the_run_before_the_environments_are_built(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="--repeat must be at least 1"):
        bench_module("first_impressions_bench").measure(tmp_path, 0, "query")
