"""Metric arithmetic, by hand: Acc@k, file and line recall, ranges, percentiles; declarations and verdicts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prooftext.errors import ConfigError, RangeError, RequestError
from prooftext.eval.declare import (
    Declaration,
    load_declaration,
    parse_ints,
    parse_list,
    resolve_declaration,
    verdict,
)
from prooftext.eval.metrics import (
    acc_at_k,
    file_recall,
    first_occurrences,
    gold_ranks,
    line_recall,
    merge_ranges,
    overlap,
    percentile,
)


def test_ranked_nodes_become_ranked_files_by_first_occurrence() -> None:
    assert first_occurrences(["b.py", "a.py", "b.py", "c.py", "a.py"]) == ["b.py", "a.py", "c.py"]


def test_acc_at_k_needs_every_gold_file_in_the_top_k() -> None:
    ranked = ["x.py", "gold1.py", "y.py", "gold2.py"]
    assert not acc_at_k(ranked, ["gold1.py", "gold2.py"], 3)
    assert acc_at_k(ranked, ["gold1.py", "gold2.py"], 4)
    assert acc_at_k(ranked, ["gold1.py"], 2) and not acc_at_k(ranked, ["gold1.py"], 1)
    assert not acc_at_k(ranked, [], 10)
    assert gold_ranks(ranked, ["gold2.py", "zzz.py"]) == {"gold2.py": 4, "zzz.py": None}


def test_file_recall_is_the_share_of_gold_files_touched() -> None:
    assert file_recall({"a.py", "b.py"}, ["a.py", "c.py"]) == 0.5
    assert file_recall(set(), ["a.py"]) == 0.0
    assert file_recall({"a.py"}, []) is None


def test_ranges_merge_and_overlap_count_lines_once() -> None:
    assert merge_ranges([(5, 6), (1, 2), (3, 3), (10, 12), (11, 11)]) == [(1, 3), (5, 6), (10, 12)]
    assert merge_ranges([(1, 2), (3, 4)]) == [(1, 4)]  # adjacent ranges join
    assert overlap([(1, 10)], [(5, 6), (9, 12)]) == 4  # lines 5, 6, 9, 10
    assert overlap([(1, 2)], [(3, 4)]) == 0


def test_line_recall_pools_gold_lines_over_files() -> None:
    gold = {"a.py": [(10, 19)], "b.py": [(1, 5), (4, 8)]}  # 10 + 8 gold lines
    excerpts = {"a.py": [(15, 30)], "b.py": [(8, 8)], "c.py": [(1, 100)]}  # 5 + 1 covered
    assert line_recall(excerpts, gold) == pytest.approx(6 / 18)
    assert line_recall({}, {"a.py": []}) is None


def test_percentiles_are_nearest_rank() -> None:
    values = [float(v) for v in range(1, 21)]  # 1..20
    assert percentile(values, 50) == 10.0
    assert percentile(values, 95) == 19.0
    assert percentile([7.0], 95) == 7.0
    assert percentile([], 50) is None


def test_declarations_come_from_defaults_files_and_flags(tmp_path: Path) -> None:
    default = Declaration("gold_file_recall", 0.6, 0.4)
    assert resolve_declaration(default) == default
    path = tmp_path / "bar.json"
    path.write_text(json.dumps({"metric": "acc@5", "threshold": 0.5, "permitted_regression": None}))
    from_file = resolve_declaration(default, path)
    assert (from_file.metric, from_file.threshold, from_file.permitted_regression) == ("acc@5", 0.5, None)
    assert from_file.source == "file"
    flagged = resolve_declaration(default, path, threshold=0.7)
    assert (flagged.metric, flagged.threshold, flagged.source) == ("acc@5", 0.7, "file+flags")
    path.write_text(json.dumps({"metric": "acc@5"}))
    with pytest.raises(ConfigError):
        load_declaration(path)
    assert resolve_declaration(default, threshold=0.7).source == "default+flags"
    assert resolve_declaration(default, metric="acc@5", threshold=0.7, regression=0.1).source == "flags"


@pytest.mark.parametrize(
    ("command", "metric"),
    [("swebench", "gold_line_recal"), ("locomo", "acc@5"), ("depth", "evidence_recall")],
)
def test_a_metric_the_benchmark_does_not_score_is_refused_before_any_run(
    tmp_path: Path, command: str, metric: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from prooftext.cli import main

    missing = str(tmp_path / "never-read.json")  # refused before any input file is opened
    inputs = {
        "swebench": ["--tasks", missing, "--repo-map", missing],
        "locomo": ["--data", missing],
        "depth": ["--clinc", missing],
    }[command]
    status = main(["eval", command, *inputs, "--quality-metric", metric, "--json"])
    error = json.loads(capsys.readouterr().out)["error"]
    assert status != 0 and error["code"] == "unknown_name"
    assert error["details"]["field"] == "quality_metric" and metric in error["message"]


def test_verdict_checks_threshold_and_regression_from_the_reference_arm() -> None:
    arms = {"full": {"r": 1.0}, "fixed": {"r": 0.7}, "bm25": {"r": 0.5}, "broken": {"r": None}}
    out = verdict(Declaration("r", 0.6, 0.35), arms, "full")
    assert "full" not in out
    assert out["fixed"]["passes"] and out["fixed"]["regression"] == pytest.approx(0.3)
    assert not out["bm25"]["meets_threshold"] and not out["bm25"]["within_regression"]
    assert out["broken"] == {"value": None, "passes": False, "note": "r is undefined"}


def test_list_flags_are_validated() -> None:
    assert parse_list("fixed, bm25,fixed", ("bm25", "fixed"), "arms") == ("fixed", "bm25")
    with pytest.raises(RequestError):
        parse_list("fixed,magic", ("fixed",), "arms")
    assert parse_ints("512,1024", "budgets") == (512, 1024)
    with pytest.raises(RequestError):
        parse_ints("512,-1", "budgets")


@pytest.mark.parametrize("text", ["0,512", "512,-1"])
def test_a_budget_below_one_is_out_of_range(text: str) -> None:
    with pytest.raises(RangeError) as caught:
        parse_ints(text, "budgets")
    assert caught.value.code == "value_out_of_range" and caught.value.field == "budgets"


@pytest.mark.parametrize("text", ["512,,1024", "512,", ",512", "", " ", "512,x"])
def test_an_empty_or_malformed_item_in_a_list_of_numbers_is_refused_not_dropped(text: str) -> None:
    with pytest.raises(RequestError) as caught:
        parse_ints(text, "budgets")
    assert caught.value.code == "invalid_request" and caught.value.field == "budgets"


def test_a_declaration_file_may_leave_out_the_regression_and_its_errors_name_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bar.json"
    path.write_text(json.dumps({"metric": "surface_precision", "threshold": 0.9}))
    declared = load_declaration(path)
    assert (declared.metric, declared.threshold, declared.permitted_regression) == (
        "surface_precision",
        0.9,
        None,
    )
    path.write_text(json.dumps({"metric": "acc@5", "threshold": "high"}))
    with pytest.raises(ConfigError) as caught:
        load_declaration(path)
    assert caught.value.message.startswith(f"{path}: ") and caught.value.details["path"] == str(path)
    assert caught.value.details["field"] == "threshold"
