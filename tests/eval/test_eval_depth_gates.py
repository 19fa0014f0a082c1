"""The depth evaluation's gates: how often memory search and retrieval ran, per data set, against the bars."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import prooftext
import prooftext.cli.eval  # registers the `eval` commands on the app
from prooftext.cli import main
from prooftext.depth import RepositoryTerms
from prooftext.eval.common import RunOptions
from prooftext.eval.depth import (
    DEFAULT_DEPTH_DECLARATION,
    gate_repositories,
    gate_targets,
    issue_title,
    locomo_gates,
    run_depth,
    small_talk_gates,
    swebench_gates,
)
from prooftext.eval.locomo_data import load_locomo

from .evaldata import SweFixture


def test_locomo_questions_asked_in_their_own_conversation_run_memory_search(locomo_file: Path) -> None:
    conversations = load_locomo(locomo_file)[0]
    row = locomo_gates(conversations)
    assert row["turns"] == 4 and row["memory_ran"] == 4 and row["memory_share"] == 1.0


def test_small_talk_runs_no_gate_with_names_and_a_repository_known() -> None:
    items = [("hi there", "greeting"), ("thanks a lot", "thank_you"), ("book a flight", "book_flight")]
    repo = RepositoryTerms.build(["book_flight", "Flight"], ["app/flights.py"])
    row = small_talk_gates(items, frozenset({"ann"}), {"demo": repo})
    assert row["utterances"] == 2 and row["memory_share_max"] == 0.0 and row["retrieval_share_max"] == 0.0


def test_issue_titles_run_retrieval_with_their_repository_open_and_misses_are_listed() -> None:
    repo = RepositoryTerms.build(["frobnicate_widget", "Widget"], ["pkg/widgets.py"])
    titles = {"demo/demo": ["frobnicate_widget crashes", "Widget loses its frobnicate state", "It is slow"]}
    row = swebench_gates(titles, {"demo/demo": repo})
    assert row["turns"] == 3 and row["retrieval_ran"] == 2
    assert row["per_repository"]["demo/demo"]["retrieval_not_run_examples"] == ["It is slow"]
    targets = gate_targets({"swebench_gates": row})
    assert targets["swebench_retrieval_share"]["met"] is False
    assert targets["locomo_memory_share"] == {
        "measured": None,
        "met": None,
        "target": ">= 0.95",
        "op": ">=",
        "bar": 0.95,
    }


def test_an_issue_title_is_the_first_non_empty_line_without_heading_marks() -> None:
    assert issue_title("\n\n## Matrix.col_insert() breaks\nMore text") == "Matrix.col_insert() breaks"


def test_a_depth_run_with_swebench_reports_every_gate_in_summary_and_report(
    tmp_path: Path, locomo_file: Path, swe_fixture: SweFixture
) -> None:
    clinc = tmp_path / "clinc.json"
    clinc.write_text(
        json.dumps({"test": [["hi", "greeting"], ["play a song", "play_music"]], "oos_test": []})
    )
    repos = gate_repositories(swe_fixture.tasks, swe_fixture.repo_map, tmp_path / "work")
    assert "demo/demo@" in repos.note
    out = tmp_path / "out"
    summary = run_depth(
        clinc, locomo_file, DEFAULT_DEPTH_DECLARATION, RunOptions(out_dir=out), swebench=repos
    )
    assert summary["swebench_gates"]["turns"] == 3 and summary["swebench_gates"]["retrieval_ran"] == 3
    assert summary["locomo_gates"]["memory_share"] == 1.0
    assert {t["met"] for t in summary["gate_targets"].values()} == {True}
    report = (out / "report.html").read_text()
    assert "memory search ran" in report and "demo/demo" in report


def test_eval_depth_on_the_command_line_measures_the_retrieval_gate_with_swebench_titles(
    tmp_path: Path, locomo_file: Path, swe_fixture: SweFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    clinc = tmp_path / "clinc.json"
    clinc.write_text(json.dumps({"test": [["hi", "greeting"], ["play a song", "play_music"]]}))
    argv = ["eval", "depth", "--clinc", str(clinc), "--locomo", str(locomo_file), "--json"]
    swe = ["--swebench", str(swe_fixture.tasks), "--repo-map", str(swe_fixture.repo_map)]
    assert main([*argv, *swe, "--work", str(tmp_path / "work")]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["swebench_gates"]["turns"] == 3
    assert summary["gate_targets"]["swebench_retrieval_share"]["met"] is True
    assert (tmp_path / "work" / "demo+demo").is_dir()
    assert main([*argv, "--swebench", str(swe_fixture.tasks)]) == 1
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["code"] == "invalid_request" and error["details"]["field"] == "repo_map"


def test_small_talk_gates_over_no_utterance_are_not_measured() -> None:
    row = small_talk_gates([("book a flight", "book_flight")], frozenset({"ann"}), {})
    assert row["utterances"] == 0 and row["memory_share_max"] is None and row["retrieval_share_max"] is None
    targets = gate_targets({"small_talk_gates": row})
    assert targets["small_talk_memory_share_max"]["met"] is None


def test_a_depth_run_counts_each_repository_it_indexes_as_progress_before_its_two_scoring_steps(
    tmp_path: Path, locomo_file: Path, swe_fixture: SweFixture
) -> None:
    clinc = tmp_path / "clinc.json"
    clinc.write_text(json.dumps({"test": [["hi", "greeting"], ["play a song", "play_music"]]}))
    calls: list[tuple[int, int]] = []
    run = prooftext.DepthRun(clinc, locomo_file, swebench=swe_fixture.tasks, repo_map=swe_fixture.repo_map)
    options = RunOptions(out_dir=tmp_path / "out", work_dir=tmp_path / "work")
    prooftext.evaluate(run, options, lambda done, total: calls.append((done, total)))
    assert calls == [(1, 3), (2, 3), (3, 3)]
    calls.clear()
    prooftext.evaluate(
        prooftext.DepthRun(clinc), RunOptions(), lambda done, total: calls.append((done, total))
    )
    assert calls == [(1, 2), (2, 2)]


@pytest.mark.parametrize(("as_json", "shown"), [(False, True), (True, False)])
def test_eval_depth_shows_progress_on_a_terminal_but_not_under_json(
    tmp_path: Path,
    locomo_file: Path,
    swe_fixture: SweFixture,
    monkeypatch: pytest.MonkeyPatch,
    as_json: bool,
    shown: bool,
) -> None:
    bars: list[tuple[bool, str, list[tuple[int, int]]]] = []

    @contextmanager
    def fake_bar(enabled: bool, label: str) -> Iterator[Callable[[int, int], None]]:
        calls: list[tuple[int, int]] = []
        bars.append((enabled, label, calls))
        yield lambda done, total: calls.append((done, total))

    monkeypatch.setattr(prooftext.cli.eval, "progress_bar", fake_bar)
    clinc = tmp_path / "clinc.json"
    clinc.write_text(json.dumps({"test": [["hi", "greeting"], ["play a song", "play_music"]]}))
    argv = [
        "eval",
        "depth",
        "--clinc",
        str(clinc),
        "--locomo",
        str(locomo_file),
        "--work",
        str(tmp_path / "w"),
    ]
    swe = ["--swebench", str(swe_fixture.tasks), "--repo-map", str(swe_fixture.repo_map)]
    assert main([*argv, *swe, *(["--json"] if as_json else [])]) == 0
    [(enabled, label, calls)] = bars
    assert enabled is shown and label == "steps" and calls == [(1, 3), (2, 3), (3, 3)]
