"""Benchmark scripts refuse a count below 1 (runs, tasks, queries) and a root that is not a directory with a
usage error, not a traceback later."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from helpers import bench_module

CASES = [
    ("turn_bench", ["--repeat", "0"]),
    ("index_bench", ["ROOT", "--repeat", "0"]),
    ("history_probe", ["ROOT", "--commits", "0"]),
    ("pack_bench", ["ROOT", "QUERIES", "--limit", "0"]),
]


@pytest.mark.parametrize(("script", "argv"), CASES)
def test_a_count_below_one_is_a_usage_error(
    script: str,
    argv: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = [str(tmp_path) if a in ("ROOT", "QUERIES") else a for a in argv]
    monkeypatch.setattr(sys, "argv", [f"{script}.py", *args])
    with pytest.raises(SystemExit) as stopped:
        bench_module(script).main()
    assert stopped.value.code == 2
    assert "at least 1" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("script", "argv"),
    [("index_bench", ["MISSING"]), ("history_probe", ["MISSING"]), ("pack_bench", ["MISSING", "QUERIES"])],
)
def test_a_root_that_is_not_a_directory_is_a_usage_error(
    script: str,
    argv: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = [str(tmp_path / "missing") if a == "MISSING" else str(tmp_path) for a in argv]
    monkeypatch.setattr(sys, "argv", [f"{script}.py", *args])
    with pytest.raises(SystemExit) as stopped:
        bench_module(script).main()
    assert stopped.value.code == 2
    assert "is not an existing directory" in capsys.readouterr().err
