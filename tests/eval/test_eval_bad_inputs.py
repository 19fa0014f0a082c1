"""Malformed evaluation inputs are refused with coded errors that name the file, line and field; a LoCoMo
sample id never places files outside the work directory; a line break in a speaker name shifts no turn."""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

import prooftext.cli.eval  # noqa: F401  (registers the `eval` commands on the app)
from prooftext import LocomoRun, QualityBar, SwebenchRun, evaluate
from prooftext.cli import main
from prooftext.errors import ArtifactError, ConfigError, ProoftextError, RangeError, RequestError, RootError
from prooftext.eval.common import RunOptions
from prooftext.eval.declare import Declaration, load_declaration, resolve_declaration
from prooftext.eval.depth import DEFAULT_DEPTH_DECLARATION, load_clinc, run_depth
from prooftext.eval.locomo import LocomoConfig
from prooftext.eval.locomo_data import load_locomo, sample_questions
from prooftext.eval.locomo_run import DEFAULT_LOCOMO_DECLARATION, run_locomo
from prooftext.eval.swebench import load_repo_map, load_tasks
from prooftext.select.query import MAX_BYTES, MAX_TOKENS

from .conftest import SweFixture
from .evaldata import CONVERSATION, QUERY_1, task

DEEP = 100_000
"""Nesting far beyond the recursion limit of Python's JSON parser."""
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def _task(**changes: Any) -> dict[str, Any]:
    data = task("demo-1", COMMIT, QUERY_1, [("pkg/alpha.py", [[2, 3]])])
    data.update(changes)
    return data


def _jsonl(tmp_path: Path, *lines: str | dict[str, Any]) -> Path:
    path = tmp_path / "tasks.jsonl"
    # Unescaped (ensure_ascii=False), so that a raw U+2028 reaches the file as the character itself.
    text = "".join((ln if isinstance(ln, str) else json.dumps(ln, ensure_ascii=False)) + "\n" for ln in lines)
    path.write_text(text, encoding="utf-8")
    return path


def _refused(error: type[ProoftextError], call: Any, *args: Any) -> ProoftextError:
    with pytest.raises(error) as caught:
        call(*args)
    return caught.value


# --- SWE-bench tasks and repo maps ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "field"),
    [
        (_task(fix_files=[1]), "fix_files[0]"),
        (_task(fix_files="abc"), "fix_files"),
        (_task(problem_statement=None), "problem_statement"),
        (_task(problem_statement="  "), "problem_statement"),
        (
            _task(fix_files=[{"path": "a.py", "base_line_ranges": [[9, 2]]}]),
            "fix_files[0].base_line_ranges[0]",
        ),
        (
            _task(fix_files=[{"path": "a.py", "base_line_ranges": [[0, 2]]}]),
            "fix_files[0].base_line_ranges[0]",
        ),
        (_task(instance_id=7), "instance_id"),
        ([1, 2], "task"),
        (_task(fix_paths="pkg/alpha.py"), "fix_paths"),
        (_task(fix_paths=["pkg/beta.py"]), "fix_paths"),
        (_task(fix_paths=[]), "fix_paths"),
        (_task(fix_spans={"pkg/beta.py": ["unrelated_helper"]}), "fix_spans"),
        (_task(fix_spans={"./pkg/alpha.py": ["frobnicate_widget"]}), "fix_spans"),
        (_task(fix_spans={"pkg//alpha.py": ["frobnicate_widget"]}), "fix_spans"),
        (_task(fix_spans={"pkg/alpha.py": "frobnicate_widget"}), "fix_spans"),
        (_task(fix_files=[{"path": "./pkg/alpha.py", "base_line_ranges": [[2, 3]]}]), "fix_files[0].path"),
        (_task(fix_files=[{"path": "pkg//alpha.py", "base_line_ranges": [[2, 3]]}]), "fix_files[0].path"),
        (_task(fix_files=[{"path": "pkg/alpha.py/", "base_line_ranges": [[2, 3]]}]), "fix_files[0].path"),
        (
            _task(fix_files=[{"path": "pkg/a.py", "base_path": "pkg/./alpha.py", "base_line_ranges": []}]),
            "fix_files[0].base_path",
        ),
    ],
)
def test_a_malformed_task_field_is_named_with_its_line(
    tmp_path: Path, line: dict[str, Any] | list[int], field: str
) -> None:
    path = tmp_path / "tasks.jsonl"
    path.write_text("\n" + json.dumps(line) + "\n", encoding="utf-8")
    error = _refused(ArtifactError, load_tasks, path)
    assert error.details == {"path": str(path), "line": 2, "field": field, "input": "tasks"}


def test_fix_spans_keyed_by_a_path_of_the_patch_is_accepted_on_either_side_of_a_rename(
    tmp_path: Path,
) -> None:
    renamed = {"path": "pkg/new.py", "base_path": "pkg/alpha.py", "base_line_ranges": [[2, 3]]}
    spans = {"pkg/new.py": ["frobnicate_widget"], "pkg/alpha.py": ["frobnicate_widget"]}
    line = _task(fix_files=[renamed], fix_paths=["pkg/new.py"], fix_spans=spans)
    (loaded,) = load_tasks(_jsonl(tmp_path, line))
    assert dict(loaded.spans) == {
        "pkg/alpha.py": ("frobnicate_widget",),
        "pkg/new.py": ("frobnicate_widget",),
    }


def test_a_fix_spans_key_outside_the_patch_is_refused_before_the_run_naming_the_task_and_field(
    swe_fixture: SweFixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = _jsonl(tmp_path, _task(fix_spans={"./pkg/alpha.py": ["frobnicate_widget"]}))
    out = tmp_path / "out"
    argv = ["eval", "swebench", "--tasks", str(bad), "--repo-map", str(swe_fixture.repo_map), "--json"]
    assert main([*argv, "--out", str(out)]) == 1
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["code"] == "artifact_invalid" and error["details"]["field"] == "fix_spans"
    assert (
        "(task demo-1)" in error["message"]
        and '"./pkg/alpha.py" names no file of fix_files' in error["message"]
    )
    assert not out.exists()


@pytest.mark.parametrize(
    "line",
    [
        "[" * DEEP + "]" * DEEP,
        json.dumps(_task()).replace('"demo-1"', "NaN"),
        json.dumps(_task()).replace('"demo-1"', '"\\ud800"'),
        json.dumps(_task()).replace('"repo"', '"base_commit": "x", "repo"'),
    ],
    ids=["deep", "nan", "lone-surrogate", "duplicate-key"],
)
def test_json_a_task_line_cannot_hold_is_refused_with_its_line(tmp_path: Path, line: str) -> None:
    path = _jsonl(tmp_path, _task(instance_id="demo-0"), line)
    error = _refused(ArtifactError, load_tasks, path)
    assert error.details == {"path": str(path), "line": 2, "input": "tasks"}


def test_tasks_that_are_not_utf8_duplicated_or_absent_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "tasks.jsonl"
    path.write_bytes(b"\xff\xfe\n")
    assert "not UTF-8" in _refused(ArtifactError, load_tasks, path).message
    path = _jsonl(tmp_path, _task(), _task(instance_id="demo-2"), _task())
    error = _refused(ArtifactError, load_tasks, path)
    assert error.details["line"] == 3 and "also on line 1" in error.message
    assert _refused(ArtifactError, load_tasks, _jsonl(tmp_path, "", " ")).message.endswith("no tasks")


def test_jsonl_lines_split_only_at_newlines(tmp_path: Path) -> None:
    # U+2028 is legal unescaped inside a JSON string; str.splitlines would cut the record there.
    (loaded,) = load_tasks(_jsonl(tmp_path, _task(problem_statement="one\u2028two\x0cthree")))
    assert loaded.problem_statement == "one\u2028two\x0cthree"


@pytest.mark.parametrize(
    "content",
    [b"\xff\xfe", b'{"demo/demo": "gr\\u0000x"}', b'{"demo/demo": "a", "demo/demo": "b"}', b"[]"],
    ids=["not-utf8", "nul", "duplicate", "list"],
)
def test_a_bad_repo_map_is_a_config_error(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "repos.json"
    path.write_bytes(content)
    assert _refused(ConfigError, load_repo_map, path).details["path"] == str(path)


def test_a_repo_map_entry_in_a_symlink_loop_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    path = tmp_path / "repos.json"
    path.write_text('{"demo/demo": "loop/repo"}')
    assert _refused(ConfigError, load_repo_map, path).details["field"] == "demo/demo"


def test_a_repo_map_entry_that_is_not_a_git_directory_is_refused_before_the_run(
    swe_fixture: SweFixture, tmp_path: Path
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    repo_map = tmp_path / "repos.json"
    repo_map.write_text(json.dumps({"demo/demo": str(plain)}), encoding="utf-8")
    out = tmp_path / "out"
    with pytest.raises(RootError) as caught:
        evaluate(SwebenchRun(swe_fixture.tasks, repo_map), RunOptions(out_dir=out))
    assert caught.value.code == "root_invalid" and caught.value.details["field"] == "demo/demo"
    assert "demo/demo" in caught.value.message and "not a git directory" in caught.value.message
    assert not out.exists()


@pytest.mark.parametrize("command", ["swebench", "depth"])
def test_a_repo_map_without_an_entry_for_a_task_repository_is_one_error_on_both_commands(
    swe_fixture: SweFixture, tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    repo_map = tmp_path / "repos.json"
    repo_map.write_text(json.dumps({"other/repo": str(swe_fixture.git_dir)}), encoding="utf-8")
    clinc = tmp_path / "clinc.json"
    clinc.write_text(json.dumps({"test": [["hi", "greeting"]]}), encoding="utf-8")
    inputs = {
        "swebench": ["--tasks", str(swe_fixture.tasks)],
        "depth": ["--clinc", str(clinc), "--swebench", str(swe_fixture.tasks)],
    }
    out = tmp_path / "out"
    argv = ["eval", command, *inputs[command], "--repo-map", str(repo_map), "--out", str(out), "--json"]
    assert main(argv) == 1
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["code"] == "config_invalid"
    assert error["details"] == {"path": str(repo_map), "field": "demo/demo", "input": "repo map"}
    assert error["message"] == f"repo map {repo_map}: no entry for demo/demo, a repository the tasks name"
    assert not out.exists()


def test_cli_reports_bad_tasks_by_code_not_as_internal_error(
    swe_fixture: SweFixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = _jsonl(tmp_path, _task(fix_files=[1]))
    argv = ["eval", "swebench", "--tasks", str(bad), "--repo-map", str(swe_fixture.repo_map), "--json"]
    assert main(argv) == 1
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["code"] == "artifact_invalid" and error["details"]["field"] == "fix_files[0]"
    good = ["eval", "swebench", "--tasks", str(swe_fixture.tasks), "--repo-map", str(swe_fixture.repo_map)]
    assert main([*good, "--limit", "-1", "--json"]) == 1
    error = json.loads(capsys.readouterr().out)["error"]
    assert (error["code"], error["details"]["field"]) == ("value_out_of_range", "limit")


def test_a_budget_above_the_packet_ceiling_is_refused_before_any_work(
    swe_fixture: SweFixture, locomo_file: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    runs = [
        SwebenchRun(swe_fixture.tasks, swe_fixture.repo_map, budget=MAX_TOKENS + 1),
        LocomoRun(locomo_file, budgets=f"512,{MAX_TOKENS + 1}"),
        SwebenchRun(swe_fixture.tasks, swe_fixture.repo_map, budget=0),
    ]
    for run in runs:
        with pytest.raises(RangeError) as caught:
            evaluate(run, RunOptions(out_dir=out))
        assert caught.value.field in {"budget", "budgets"}
        assert not out.exists()
    bytes_ok = SwebenchRun(swe_fixture.tasks, swe_fixture.repo_map, budget=MAX_BYTES + 1)
    with pytest.raises(RangeError):
        evaluate(dataclasses.replace(bytes_ok, tokenizer="bytes"), RunOptions(out_dir=out))


def test_a_limit_below_one_is_refused() -> None:
    for limit in (-1, 0):
        assert _refused(RangeError, RunOptions, None, None, 1, "process", None, limit).details == {
            "field": "limit"
        }


# --- declarations -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '{"metric": "m", "threshold": NaN, "permitted_regression": null}',
        '{"metric": "m", "threshold": 0.5, "permitted_regression": -Infinity}',
        '{"metric": "m", "threshold": 1e999, "permitted_regression": null}',
    ],
)
def test_a_declaration_file_with_a_non_finite_number_is_refused(tmp_path: Path, text: str) -> None:
    path = tmp_path / "declare.json"
    path.write_text(text, encoding="utf-8")
    _refused(ConfigError, load_declaration, path)


def test_non_finite_declaration_flags_are_refused() -> None:
    default = Declaration("m", 0.5, 0.1)
    for flags, field in (
        ({"threshold": float("nan")}, "quality_threshold"),
        ({"regression": float("-inf")}, "permitted_regression"),
    ):
        with pytest.raises(RangeError) as caught:
            resolve_declaration(default, **flags)
        assert caught.value.details == {"field": field}


# --- LoCoMo -----------------------------------------------------------------------------------------------


def _locomo(tmp_path: Path, *samples: Any) -> Path:
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(list(samples)), encoding="utf-8")
    return path


def _sample(**changes: Any) -> dict[str, Any]:
    sample = copy.deepcopy(CONVERSATION)
    sample.update(changes)
    return sample


@pytest.mark.parametrize(
    ("sample", "field"),
    [
        (_sample(qa="What?"), "qa"),
        ({k: v for k, v in CONVERSATION.items() if k != "qa"}, "qa"),
        (_sample(qa=["What?"]), "qa[0]"),
        (_sample(conversation=[1]), "conversation"),
        (_sample(sample_id=None), "sample_id"),
        (
            _sample(conversation={**CONVERSATION["conversation"], "session_4": "lost"}),
            "conversation.session_4",
        ),
    ],
)
def test_a_malformed_conversation_field_is_named(tmp_path: Path, sample: dict[str, Any], field: str) -> None:
    path = _locomo(tmp_path, _sample(sample_id="first"), sample)
    error = _refused(ArtifactError, load_locomo, path)
    assert error.details == {"path": str(path), "conversation": 1, "field": field, "input": "LoCoMo data"}


def test_locomo_that_is_not_utf8_duplicated_or_empty_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "locomo.json"
    path.write_bytes(b"[\xff]")
    assert "not UTF-8" in _refused(ArtifactError, load_locomo, path).message
    clash = _refused(ArtifactError, load_locomo, _locomo(tmp_path, _sample(), _sample(sample_id="CONV-T")))
    assert clash.details["field"] == "sample_id"
    assert "differs only in case from conversation 0's 'conv-t'" in clash.message
    twice = _refused(ArtifactError, load_locomo, _locomo(tmp_path, _sample(), _sample()))
    assert twice.message.endswith("sample_id 'conv-t' is given twice (also by conversation 0)")
    assert _refused(ArtifactError, load_locomo, _locomo(tmp_path)).message.endswith(
        "no questions to evaluate"
    )


def test_questions_per_conversation_below_one_is_refused(locomo_file: Path) -> None:
    (conv,), _ = load_locomo(locomo_file)
    assert _refused(RangeError, sample_questions, conv.questions, 0).details == {"field": "questions"}
    with pytest.raises(RangeError):
        LocomoConfig(work_dir=Path("."), questions_per_conversation=0)


def test_a_line_break_in_a_name_shifts_no_turn(tmp_path: Path) -> None:
    conversation = {**CONVERSATION["conversation"], "speaker_a": "Ann\n\n\nLee", "speaker_b": "Bob\r\n"}
    path = _locomo(tmp_path, _sample(sample_id="conv\nt", conversation=conversation))
    (conv,), _ = load_locomo(path)
    lines = conv.transcript().splitlines()
    assert lines[0] == "# Conversation conv t between Ann Lee and Bob"
    assert all(lines[t.line - 1] == t.line_text for t in conv.turns)


def test_sample_ids_never_place_files_outside_the_work_directory(tmp_path: Path) -> None:
    root = tmp_path / "a" / "b"
    escaped_abs = tmp_path / "escaped_abs"
    ids = [str(escaped_abs), "../../escaped_rel", "..", "conv-1"]
    data = _locomo(tmp_path, *(_sample(sample_id=i) for i in ids))
    work = root / "work"
    config = LocomoConfig(work_dir=Path("."), budgets=(1024,), arms=("fixed",), tokenizer="bytes")
    options = RunOptions(out_dir=root / "out", work_dir=work)
    summary = run_locomo(data, config, DEFAULT_LOCOMO_DECLARATION, options)
    assert summary["arms"]["fixed@1024"]["failures"] == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "locomo.json"]
    assert sorted(p.name for p in root.iterdir()) == ["out", "work"]
    names = sorted(p.name for p in (work / "locomo").iterdir())
    assert "conv-1" in names and all(n == "conv-1" or n.startswith("_") for n in names) and len(names) == 4
    # The mapping is a pure function of the id: a second run reuses the same directories.
    run_locomo(data, config, DEFAULT_LOCOMO_DECLARATION, RunOptions(out_dir=root / "out2", work_dir=work))
    assert sorted(p.name for p in (work / "locomo").iterdir()) == names


# --- depth ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "field"),
    [
        ('{"Test": [["hi", "greeting"]]}', "test"),
        ('{"test": []}', "test"),
        ('{"test": [["hi", {"a": 1}]]}', "test[0]"),
        ("[" * DEEP + "]" * DEEP, None),
    ],
    ids=["no-test-split", "empty-test-split", "bad-pair", "deep"],
)
def test_a_bad_clinc_file_is_refused_with_what_is_missing(
    tmp_path: Path, content: str, field: str | None
) -> None:
    path = tmp_path / "clinc.json"
    path.write_text(content, encoding="utf-8")
    error = _refused(ArtifactError, load_clinc, path)
    assert error.details.get("field") == field


def test_depth_refuses_a_bad_locomo_file_before_writing_anything(tmp_path: Path) -> None:
    clinc = tmp_path / "clinc.json"
    clinc.write_text('{"test": [["hi", "greeting"]]}', encoding="utf-8")
    locomo = _locomo(tmp_path, _sample(qa="What?"))
    out = tmp_path / "out"
    with pytest.raises(ArtifactError):
        run_depth(clinc, locomo, DEFAULT_DEPTH_DECLARATION, RunOptions(out_dir=out))
    assert not out.exists()


def test_the_oracle_cannot_be_the_declared_reference(locomo_file: Path, tmp_path: Path) -> None:
    bar = QualityBar(None, "evidence_recall", 0.5, 0.1, "oracle")
    run = LocomoRun(locomo_file, "256", "bm25,oracle", "bytes", bar=bar)
    with pytest.raises(RequestError) as caught:
        evaluate(run, RunOptions(out_dir=tmp_path / "out"))
    assert caught.value.field == "reference_arm" and "oracle" in caught.value.message
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("flags", "field"),
    [
        ({"threshold": 5.0}, "quality_threshold"),
        ({"threshold": -0.1}, "quality_threshold"),
        ({"regression": -1.0}, "permitted_regression"),
        ({"regression": 1.5}, "permitted_regression"),
    ],
)
def test_a_declared_bar_outside_the_share_range_is_refused(flags: dict[str, float], field: str) -> None:
    with pytest.raises(RangeError) as caught:
        resolve_declaration(Declaration("m", 0.5, 0.1), metrics=("m",), **flags)
    assert caught.value.details == {"field": field} and "from 0 to 1" in caught.value.message


def test_an_empty_list_of_gold_files_is_shown_as_empty(tmp_path: Path) -> None:
    error = _refused(ArtifactError, load_tasks, _jsonl(tmp_path, _task(fix_files=[])))
    assert error.details["field"] == "fix_files" and error.message.endswith("not an empty JSON array")


@pytest.mark.parametrize("run", [None, "swebench", {"tasks": "t.jsonl"}], ids=["none", "str", "dict"])
def test_a_run_that_is_not_a_run_value_is_refused_naming_it(run: object) -> None:
    with pytest.raises(RequestError) as caught:
        evaluate(run)  # type: ignore[arg-type]
    assert caught.value.details["field"] == "run"


def test_options_that_are_not_run_options_are_refused_naming_them(tmp_path: Path) -> None:
    run = LocomoRun(data=str(tmp_path / "locomo.json"))
    with pytest.raises(RequestError) as caught:
        evaluate(run, {"workers": 2})  # type: ignore[arg-type]
    assert caught.value.details["field"] == "options"
