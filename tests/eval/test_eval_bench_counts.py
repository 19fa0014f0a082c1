"""Benchmark scripts refuse a count below 1 (runs, tasks, queries) and a root that is not a directory with a
usage error, not a traceback later."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from helpers import bench_module

BELOW_ONE = "at least 1"
NO_ROOT = "is not an existing directory"
CASES = [
    ("turn_bench", ["--repeat", "0"], BELOW_ONE),
    ("index_bench", ["ROOT", "--repeat", "0"], BELOW_ONE),
    ("history_probe", ["ROOT", "--commits", "0"], BELOW_ONE),
    ("pack_bench", ["ROOT", "QUERIES", "--limit", "0"], BELOW_ONE),
    ("index_bench", ["MISSING"], NO_ROOT),
    ("history_probe", ["MISSING"], NO_ROOT),
    ("pack_bench", ["MISSING", "QUERIES"], NO_ROOT),
]


@pytest.mark.parametrize(("script", "argv", "said"), CASES)
def test_a_bad_count_or_root_is_a_usage_error(
    script: str,
    argv: list[str],
    said: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    named = {"ROOT": tmp_path, "QUERIES": tmp_path, "MISSING": tmp_path / "missing"}
    args = [str(named[a]) if a in named else a for a in argv]
    monkeypatch.setattr(sys, "argv", [f"{script}.py", *args])
    with pytest.raises(SystemExit) as stopped:
        bench_module(script).main()
    assert stopped.value.code == 2
    assert said in capsys.readouterr().err
