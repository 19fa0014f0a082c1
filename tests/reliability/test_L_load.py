"""Catalogue L (RELIABILITY.md 3.3) at a small scale: the ``bench/load_*.py`` scripts, marked slow.

CI skips these (``-m "not slow"``); ``PYTHONPATH=tests python -m reliability.robustness --load`` runs them and
reports their figures (``load_*``). Full sizes: run the scripts themselves (see their docstrings).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from helpers import bench_module

from .conftest import Figure

pytestmark = pytest.mark.slow


def _record(figure: Figure, prefix: str, values: dict[str, Any]) -> None:
    """Figures are integers: seconds are recorded as milliseconds (``index_s`` → ``index_ms``)."""
    for key, value in values.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        if key.endswith("_s") and not key.endswith("per_s"):
            figure(f"load_{prefix}_{key[:-2]}_ms", round(value * 1000))
        else:
            figure(f"load_{prefix}_{key}", round(value))


def test_L01_tiny_files_are_all_indexed_or_excluded_with_a_reason(tmp_path: Path, figure: Figure) -> None:
    result = bench_module("load_corpus").l1_tiny_files(3000, base=tmp_path)
    _record(figure, "L1", result)
    figure("silent_drops", result["unaccounted"])
    assert result["unaccounted"] == 0 and result["excluded"] >= 1


def test_L02_a_huge_and_a_sparse_file_are_excluded_from_stat(tmp_path: Path, figure: Figure) -> None:
    result = bench_module("load_corpus").l2_huge_and_sparse(base=tmp_path)
    _record(figure, "L2", {k: v for k, v in result.items() if k != "excluded"})
    assert result["excluded"] == {"huge.log": "size", "sparse.bin": "size"}


def test_L03_realistic_files_index_and_answer_queries(tmp_path: Path, figure: Figure) -> None:
    result = bench_module("load_corpus").l3_realistic(300, queries=20, base=tmp_path)
    _record(figure, "L3", result)
    assert result["files"] == 300


def test_L04_concurrent_rpc_clients_are_all_answered_by_id(figure: Figure) -> None:
    pytest.importorskip("prooftext.server.http")
    result = bench_module("load_rpc").l4_concurrent_clients(clients=8, requests=10, files=40)
    _record(figure, "L4", result)
    figure("bad_inputs_tried", 1)
    figure("rpc_internal_errors", result["internal_errors"])
    assert result["mismatched_ids"] == 0 and result["internal_errors"] == 0 and result["requests"] == 80


def test_L05_queries_during_a_reindex_see_no_lock_error(figure: Figure) -> None:
    result = bench_module("load_rpc").l5_queries_during_reindex(files=200, readers=2)
    _record(figure, "L5", result)
    assert result["lock_errors"] == 0 and result["other_errors"] == 0


def test_L06_a_100k_token_query_is_rejected_in_bounded_time(figure: Figure) -> None:
    result = bench_module("load_query").l6_huge_query()
    _record(figure, "L6", result)
    assert result["huge_query_outcome"] == "value_out_of_range"


def test_L07_a_large_contradiction_graph_terminates(figure: Figure) -> None:
    pytest.importorskip("prooftext.artifacts.lifecycle")
    result = bench_module("load_query").l7_contradiction_graph(docs=40, fanout=20)
    _record(figure, "L7", result)
    assert result["contradiction_edges"] > 0 and result["outcome"]


def test_L08_a_soak_of_sequential_selections_keeps_fds_flat(figure: Figure) -> None:
    result = bench_module("load_query").l8_soak(200)
    _record(figure, "L8", result)
    assert result["fd_growth"] <= 0
