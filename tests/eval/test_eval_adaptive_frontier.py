"""``bench/adaptive_frontier.py``: the probe ladder on the synthetic repository, and its oracle by hand.

demo-1 (commit 1) asks about ``frobnicate_widget``, whose whole file fits the first rung, so every rung
quotes the gold lines; demo-3 names a commit that does not exist and is reported, not dropped.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from helpers import bench_module
from prooftext.eval.executor import run_units
from prooftext.eval.swebench import load_repo_map, load_tasks, plan_shards

from .conftest import SweFixture

BUDGET = 4000
STEP = 1000


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return bench_module("adaptive_frontier")


@pytest.fixture(scope="module")
def rows(
    bench: ModuleType, swe_fixture: SweFixture, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Any]:
    shards = plan_shards(load_tasks(swe_fixture.tasks), load_repo_map(swe_fixture.repo_map), 1)
    out: list[dict[str, Any]] = []
    run_units(bench.ShardProbe(tmp_path_factory.mktemp("frontier"), BUDGET, STEP), shards, out.append)
    return {r["instance_id"]: r for r in out}


def _rung(recall: float, tokens: int) -> dict[str, Any]:
    return {"recall": recall, "tokens": tokens, "nodes": []}


def test_every_rung_of_the_probe_is_measured_within_its_ceiling(rows: dict[str, Any]) -> None:
    one = rows["demo-1"]
    assert len(one["ladder"]) == BUDGET // STEP
    assert all(r["tokens"] <= STEP * n for n, r in enumerate(one["ladder"], start=1))
    assert [r["recall"] for r in one["ladder"]] == [1.0] * (BUDGET // STEP)
    assert one["default"]["recall"] == 1.0 and one["default"]["round"] == 1


def test_a_task_that_cannot_be_built_is_reported_by_its_error_code(rows: dict[str, Any]) -> None:
    assert rows["demo-3"] == {"instance_id": "demo-3", "repo": "demo/demo", "error": "not_found"}


def test_the_oracle_stops_at_the_first_rung_holding_the_best_recall(bench: ModuleType) -> None:
    row = {"ladder": [_rung(0.2, 900), _rung(0.6, 1900), _rung(0.6, 2900), _rung(0.6, 3900)]}
    assert bench._stop_at([row], bench._oracle, 1) == [row["ladder"][1]]
    late = {"ladder": [_rung(0.2, 900), _rung(0.1, 1900), _rung(0.6, 2900), _rung(0.6, 3900)]}
    assert bench._stop_at([late], bench._oracle, 2) == [late["ladder"][3]]


def test_a_rule_that_never_holds_takes_the_last_rung(bench: ModuleType) -> None:
    row = {"ladder": [_rung(0.2, 900), _rung(0.5, 1900), _rung(0.4, 2900)]}
    assert bench._stop_at([row], lambda _row, _rung: False, 2) == [row["ladder"][2]]


def test_the_report_names_the_tasks_it_could_not_measure(
    bench: ModuleType, rows: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    bench._report(sorted(rows.values(), key=lambda r: r["instance_id"]), BUDGET, STEP)
    printed = capsys.readouterr().out
    assert printed.startswith("2 tasks, budget 4000, probe rungs of 1000 tokens")
    assert "not measured: demo-3 (not_found)" in printed
    assert "oracle, probe ladder" in printed and "target: recall >=" in printed
