"""``bench/server_load.py``: a server that does not start says why."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import bench_module


def test_a_server_that_does_not_start_is_reported_with_its_error(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match=r"the server did not start:.*root_missing"):
        bench_module("server_load").start_server(tmp_path / "missing", workers=1, fresh_ms=0, processes=1)
