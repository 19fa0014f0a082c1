"""``bench/pack_bench.py``: reading the queries file."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import bench_module


def _queries(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "queries.jsonl"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_row_gives_its_problem_statement_or_its_query(tmp_path: Path) -> None:
    path = _queries(tmp_path, '{"problem_statement": "first"}\n\n{"query": "second"}\n')
    assert bench_module("pack_bench").read_queries(path, 50) == ["first", "second"]


def test_a_queries_file_without_a_query_stops_with_a_message_instead_of_a_traceback(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="no queries in"):
        bench_module("pack_bench").read_queries(_queries(tmp_path, "\n"), 50)


def test_a_row_without_a_query_is_named_by_its_line(tmp_path: Path) -> None:
    path = _queries(tmp_path, '{"query": "first"}\n{"text": "second"}\n')
    with pytest.raises(SystemExit, match=r"line 2 has neither"):
        bench_module("pack_bench").read_queries(path, 50)
