"""Odd values that used to pass the input checks: an empty item of --instance or --repo, a number of repeats
no run could afford, a gold path that leaves the repository and a LoCoMo category the data format does not
define are each refused by code before the run; LoCoMo's verdict speaks of questions, not tasks."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

import prooftext
import prooftext.cli.eval  # registers the `eval` commands on the app
from prooftext import LocomoRun, evaluate
from prooftext.cli import main
from prooftext.errors import ArtifactError, RangeError
from prooftext.eval import model
from prooftext.eval.model import ModelSettings

from .conftest import SweFixture
from .evaldata import CONVERSATION, QUERY_1, task

# --- --instance and --repo --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        ("--instance", ","),
        ("--instance", ""),
        ("--instance", "demo-1,,demo-2"),
        ("--instance", "demo-1, "),
        ("--repo", " "),
        ("--repo", "demo/demo,"),
    ],
)
def test_an_empty_item_of_instance_or_repo_is_refused_naming_the_option_not_run_on_every_task(
    swe_fixture: SweFixture, tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str, value: str
) -> None:
    out = tmp_path / "out"
    argv = ["eval", "swebench", "--tasks", str(swe_fixture.tasks), "--repo-map", str(swe_fixture.repo_map)]
    status = main([*argv, "--arms", "bm25", "--tokenizer", "bytes", flag, value, "--out", str(out), "--json"])
    error = json.loads(capsys.readouterr().out)["error"]
    assert status == 1 and error["code"] == "invalid_request"
    assert error["details"]["field"] == flag.removeprefix("--") and error["details"]["option"] == flag
    assert "empty item" in error["message"]
    assert not out.exists()


# --- --repeats --------------------------------------------------------------------------------------------


def test_repeats_beyond_the_documented_maximum_are_out_of_range() -> None:
    most = model.MAX_REPEATS
    ModelSettings("tiny", repeats=most).check()
    with pytest.raises(RangeError) as caught:
        ModelSettings("tiny", repeats=most + 1).check()
    assert caught.value.field == "repeats" and str(most) in caught.value.message


def test_the_command_line_refuses_a_huge_repeats_before_anything_is_written(
    locomo_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    argv = ["eval", "locomo", "--data", str(locomo_file), "--budgets", "64", "--arms", "full,bm25"]
    argv += ["--tokenizer", "bytes", "--model", "tiny", "--endpoint", "http://127.0.0.1:9"]
    argv += ["--quality-metric", "answer_f1", "--quality-threshold", "0.4", "--permitted-regression", "0.1"]
    status = main([*argv, "--reference-arm", "full", "--repeats", "100000", "--out", str(out), "--json"])
    error = json.loads(capsys.readouterr().out)["error"]
    assert status == 1 and error["code"] == "value_out_of_range"
    assert error["details"]["option"] == "--repeats"
    assert not out.exists()


# --- gold paths -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "path"),
    [
        ("path", "/etc/passwd"),
        ("path", "../outside.py"),
        ("path", "pkg/../../outside.py"),
        ("path", "pkg/.."),
        ("base_path", "../pkg/alpha.py"),
    ],
)
def test_a_gold_path_that_leaves_the_repository_is_refused_with_its_line_and_field(
    swe_fixture: SweFixture, tmp_path: Path, key: str, path: str
) -> None:
    good = task("demo-1", swe_fixture.commit_1, QUERY_1, [("pkg/alpha.py", [[2, 3]])])
    bad = task("demo-2", swe_fixture.commit_1, QUERY_1, [("pkg/alpha.py", [[2, 3]])])
    bad["fix_files"][0][key] = path
    if key == "path":
        bad["fix_paths"] = [path]
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    run = prooftext.SwebenchRun(tasks, swe_fixture.repo_map, arms=("bm25",), tokenizer="bytes")
    with pytest.raises(ArtifactError) as caught:
        evaluate(run)
    details = caught.value.details
    assert details["line"] == 2 and details["field"] == f"fix_files[0].{key}" and details["input"] == "tasks"
    assert str(tasks) in caught.value.message and "repository" in caught.value.message


# --- LoCoMo -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("category", [0, 6, -1, 42])
def test_a_locomo_category_outside_one_to_five_is_refused_naming_conversation_and_field(
    tmp_path: Path, category: int
) -> None:
    conversation = copy.deepcopy(CONVERSATION)
    conversation["qa"][1]["category"] = category
    data = tmp_path / "locomo.json"
    data.write_text(json.dumps([conversation]), encoding="utf-8")
    with pytest.raises(ArtifactError) as caught:
        evaluate(LocomoRun(data, "64", "last_n", "bytes"))
    details = caught.value.details
    assert details["conversation"] == 0 and details["field"] == "qa[1].category"
    assert details["input"] == "LoCoMo data" and "1 to 5" in caught.value.message


def test_the_locomo_verdict_speaks_of_every_question_not_every_task(locomo_file: Path) -> None:
    report = evaluate(LocomoRun(locomo_file, "64,256", "full,bm25,last_n", "bytes"))
    reference = report.summary["reference"]
    assert "every question" in reference["why"] and "task" not in reference["why"]
    assert "every question" in reference["rule"] and "task" not in reference["rule"]
    verdicts = [note for note in report.notes() if "Passing" in note or "passes" in note]
    assert verdicts and all("task" not in note for note in verdicts)


def test_a_declared_locomo_reference_over_the_budget_is_counted_in_questions(locomo_file: Path) -> None:
    bar = prooftext.QualityBar(None, "evidence_recall", 0.1, 0.5, "full")
    report = evaluate(LocomoRun(locomo_file, "64", "full,last_n", "bytes", bar=bar))
    why = report.summary["reference"]["why"]
    assert "questions)" in why and "every question" in why and "task" not in why
