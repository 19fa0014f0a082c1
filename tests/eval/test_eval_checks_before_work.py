"""Every input of a run is checked before its first piece of work: a work directory that cannot be used, a
declaration file's bad field, a malformed base commit and the depth run's data files are refused by code,
naming what is wrong and where, before anything is indexed or written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import prooftext.cli.eval  # noqa: F401  (registers the `eval` commands on the app)
from prooftext import DepthRun, LocomoRun, QualityBar, SwebenchRun, evaluate
from prooftext.cli import main
from prooftext.errors import ArtifactError, ConfigError, ProoftextError, RootError
from prooftext.eval.common import RunOptions

from .conftest import SweFixture


def _refused(error: type[ProoftextError], run: Any, options: RunOptions | None = None) -> ProoftextError:
    with pytest.raises(error) as caught:
        evaluate(run, options)
    return caught.value


def _clinc(tmp_path: Path, data: object | None = None) -> Path:
    path = tmp_path / "clinc.json"
    path.write_text(json.dumps({"test": [["hello", "greeting"]]} if data is None else data), encoding="utf-8")
    return path


# --- the work directory -----------------------------------------------------------------------------------


def test_a_work_directory_that_is_a_file_refuses_a_swebench_run_before_anything_is_written(
    swe_fixture: SweFixture, tmp_path: Path
) -> None:
    a_file = tmp_path / "work"
    a_file.write_text("not a directory", encoding="utf-8")
    out = tmp_path / "out"
    run = SwebenchRun(swe_fixture.tasks, swe_fixture.repo_map, arms=("bm25",), tokenizer="bytes")
    error = _refused(ArtifactError, run, RunOptions(out_dir=out, work_dir=a_file))
    assert error.details["field"] == "work" and str(a_file) in error.message
    assert not out.exists()


def test_a_work_directory_that_is_a_file_is_a_coded_error_for_the_depth_gate(
    swe_fixture: SweFixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a_file = tmp_path / "work"
    a_file.write_text("not a directory", encoding="utf-8")
    argv = ["eval", "depth", "--clinc", str(_clinc(tmp_path)), "--swebench", str(swe_fixture.tasks)]
    status = main([*argv, "--repo-map", str(swe_fixture.repo_map), "--work", str(a_file), "--json"])
    error = json.loads(capsys.readouterr().out)["error"]
    assert status == 1 and error["code"] == "artifact_invalid"
    assert error["details"]["field"] == "work" and error["details"]["option"] == "--work"


def test_a_locomo_work_directory_that_is_a_file_is_refused_naming_it(
    locomo_file: Path, tmp_path: Path
) -> None:
    a_file = tmp_path / "work"
    a_file.write_text("not a directory", encoding="utf-8")
    run = LocomoRun(locomo_file, budgets=(256,), arms=("last_n",), tokenizer="bytes")
    error = _refused(ArtifactError, run, RunOptions(work_dir=a_file))
    assert error.details["field"] == "work"


# --- the depth run's inputs -------------------------------------------------------------------------------


def test_the_depth_run_checks_its_data_files_before_it_indexes_any_repository(
    swe_fixture: SweFixture, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    clinc = _clinc(tmp_path, {"train": []})
    run = DepthRun(clinc, swebench=swe_fixture.tasks, repo_map=swe_fixture.repo_map)
    error = _refused(ArtifactError, run, RunOptions(out_dir=tmp_path / "out", work_dir=work))
    assert error.details["field"] == "test"
    assert not any(work.iterdir()) and not (tmp_path / "out").exists()


def test_the_depth_gate_names_the_repo_map_entry_that_is_not_a_git_directory(
    swe_fixture: SweFixture, tmp_path: Path
) -> None:
    repo_map = tmp_path / "repos.json"
    repo_map.write_text(json.dumps({"demo/demo": str(tmp_path / "absent")}), encoding="utf-8")
    run = DepthRun(_clinc(tmp_path), swebench=swe_fixture.tasks, repo_map=repo_map)
    error = _refused(RootError, run, RunOptions(work_dir=tmp_path / "work"))
    assert error.details["field"] == "demo/demo" and "repo map entry demo/demo" in error.message


# --- declaration files ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("declared", "field", "says"),
    [
        ({"metric": "gold_line_recall", "threshold": 2}, "threshold", "threshold"),
        (
            {"metric": "gold_line_recall", "threshold": 0.5, "permitted_regression": 1.5},
            "permitted_regression",
            "permitted regression",
        ),
        ({"metric": "bogus", "threshold": 0.5}, "metric", "bogus"),
        ({"metric": "gold_line_recall", "threshold": 0.5, "reference_arm": "nope"}, "reference_arm", "nope"),
    ],
)
def test_a_bad_value_in_a_declaration_file_is_refused_naming_the_file_and_its_field(
    swe_fixture: SweFixture, tmp_path: Path, declared: dict[str, Any], field: str, says: str
) -> None:
    path = tmp_path / "bar.json"
    path.write_text(json.dumps(declared), encoding="utf-8")
    run = SwebenchRun(swe_fixture.tasks, swe_fixture.repo_map, bar=QualityBar(path))
    error = _refused(ProoftextError, run, RunOptions(out_dir=tmp_path / "out"))
    assert error.details["field"] == field and error.details["path"] == str(path)
    assert str(path) in error.message and says in error.message
    assert not (tmp_path / "out").exists()


def test_a_flag_that_overrides_a_declaration_file_is_named_as_the_flag(
    swe_fixture: SweFixture, tmp_path: Path
) -> None:
    path = tmp_path / "bar.json"
    path.write_text(json.dumps({"metric": "gold_line_recall", "threshold": 0.5}), encoding="utf-8")
    run = SwebenchRun(swe_fixture.tasks, swe_fixture.repo_map, bar=QualityBar(path, threshold=3.0))
    error = _refused(ProoftextError, run)
    assert error.details["field"] == "quality_threshold" and "path" not in error.details


@pytest.mark.parametrize(
    ("declared", "says"),
    [
        ({"threshold": 0.5}, "missing metric"),
        ({"metric": "gold_line_recall"}, "missing threshold"),
        ({"metric": "gold_line_recall", "threshold": 0.5, "treshold": 0.9}, "unknown field treshold"),
    ],
)
def test_a_declaration_file_missing_a_field_or_with_an_unknown_one_names_it(
    tmp_path: Path, declared: dict[str, Any], says: str
) -> None:
    path = tmp_path / "bar.json"
    path.write_text(json.dumps(declared), encoding="utf-8")
    run = SwebenchRun(tmp_path / "tasks.jsonl", tmp_path / "repos.json", bar=QualityBar(path))
    error = _refused(ConfigError, run)
    assert says in error.message and str(path) in error.message


def test_the_command_line_names_a_declaration_files_field_not_an_option_it_was_not_given(
    swe_fixture: SweFixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bar.json"
    path.write_text(json.dumps({"metric": "gold_line_recall", "threshold": 0.5, "reference_arm": 3}))
    argv = ["eval", "swebench", "--tasks", str(swe_fixture.tasks), "--repo-map", str(swe_fixture.repo_map)]
    assert main([*argv, "--declare", str(path)]) == 1
    message = capsys.readouterr().err
    assert "--reference-arm" not in message and str(path) in message


# --- task fields ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("commit", ["zzz", "HEAD", "abc", "0123456789abcdef0123456789abcdef01234567 "])
def test_a_base_commit_that_is_not_a_commit_id_is_refused_with_its_line_before_the_run(
    swe_fixture: SweFixture, tmp_path: Path, commit: str
) -> None:
    lines = swe_fixture.tasks.read_text(encoding="utf-8").splitlines()
    second = json.loads(lines[1])
    second["base_commit"] = commit
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("\n".join([lines[0], json.dumps(second), *lines[2:]]) + "\n", encoding="utf-8")
    run = SwebenchRun(tasks, swe_fixture.repo_map)
    error = _refused(ArtifactError, run, RunOptions(out_dir=tmp_path / "out"))
    assert error.details["field"] == "base_commit" and error.details["line"] == 2
    assert not (tmp_path / "out").exists()


def test_the_command_line_does_not_name_the_repo_option_for_a_task_files_repo_field(
    swe_fixture: SweFixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = swe_fixture.tasks.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    first["repo"] = 3
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps(first) + "\n", encoding="utf-8")
    argv = ["eval", "swebench", "--tasks", str(tasks), "--repo-map", str(swe_fixture.repo_map)]
    assert main([*argv, "--json"]) == 1
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["details"]["field"] == "repo" and "option" not in error["details"]
    assert main(argv) == 1
    assert not capsys.readouterr().err.startswith("prooftext: error [artifact_invalid]: --repo")


# --- executor options -------------------------------------------------------------------------------------


def test_dask_without_a_scheduler_is_refused_before_anything_is_written(
    swe_fixture: SweFixture, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    with pytest.raises(ProoftextError) as caught:
        evaluate(
            SwebenchRun(swe_fixture.tasks, swe_fixture.repo_map, arms=("bm25",), tokenizer="bytes"),
            RunOptions(out_dir=out, executor="dask"),
        )
    assert caught.value.code == "invalid_request" and caught.value.details["field"] == "scheduler"
    assert not out.exists()


def test_a_scheduler_without_the_dask_executor_is_refused_naming_both_options(
    swe_fixture: SweFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["eval", "swebench", "--tasks", str(swe_fixture.tasks), "--repo-map", str(swe_fixture.repo_map)]
    assert main([*argv, "--scheduler", "tcp://127.0.0.1:1", "--json"]) == 1
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["code"] == "invalid_request" and error["details"]["field"] == "scheduler"
    assert "--executor dask" in error["message"]


def test_a_fix_paths_mismatch_counts_one_file_in_the_singular(tmp_path: Path) -> None:
    from prooftext.eval.swebench import load_tasks

    from .evaldata import QUERY_1, task

    data = task("demo-1", "0123456789abcdef", QUERY_1, [("pkg/alpha.py", [[2, 3]])])
    data["fix_paths"] = ["pkg/other.py"]
    path = tmp_path / "tasks.jsonl"
    path.write_text(json.dumps(data) + "\n", encoding="utf-8")
    with pytest.raises(ArtifactError) as caught:
        load_tasks(path)
    assert "must name the 1 file of fix_files" in caught.value.message
