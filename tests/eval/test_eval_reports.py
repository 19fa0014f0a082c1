"""Reports a person can act on: task filters, the budget-aware verdict, sentences computed from the data, the
per-task table, terminal tables that fit 80 columns, and the depth report as tables and examples."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

import prooftext
from prooftext.cli import main
from prooftext.cli.eval import print_tables
from prooftext.errors import UnknownNameError
from prooftext.eval import locomo_findings
from prooftext.eval.common import RunOptions
from prooftext.eval.declare import Declaration
from prooftext.eval.depth import DEFAULT_DEPTH_DECLARATION, run_depth
from prooftext.eval.depth_report import depth_report, depth_tables
from prooftext.eval.html import HtmlReport, manifest_section
from prooftext.eval.swe_findings import (
    budget_reference,
    budget_verdict,
    declared_reference,
    summary_sentence,
    task_losses,
    verdict_sentence,
)
from prooftext.eval.swebench import load_tasks, select_tasks

from .conftest import SweFixture

DECLARED = Declaration("gold_line_recall", 0.5, 0.1, "flags")


def _arm(recall: float, tokens: float, over: int, tasks: int = 10, **more: Any) -> dict[str, Any]:
    return {
        "tasks": tasks,
        "failures": 0,
        "gold_line_recall": recall,
        "prompt_tokens_mean": tokens,
        "prompt_tokens_median": tokens,
        "over_budget": over,
        "fits_budget": (tasks - over) / tasks,
        **more,
    }


ARMS_OVER = {
    "full": _arm(1.0, 8_600_000, over=10),
    "bm25": _arm(0.30, 7986, over=0),
    "fixed": _arm(0.662, 7970, over=0),
    "adaptive": _arm(0.662, 6748, over=0),
}
"""Full context over the budget on every task: the SWE-bench case the README's flags produce."""


# --- filters ----------------------------------------------------------------------------------------------


def test_repo_and_instance_filters_keep_only_the_named_tasks_in_file_order(swe_fixture: SweFixture) -> None:
    tasks = load_tasks(swe_fixture.tasks)
    assert [t.instance_id for t in select_tasks(tasks, (), ("demo-2", "demo-1"))] == ["demo-1", "demo-2"]
    assert [t.instance_id for t in select_tasks(tasks, ("demo/demo",), ())] == ["demo-1", "demo-2", "demo-3"]


@pytest.mark.parametrize(
    ("repos", "instances", "field"),
    [(("nope/nope",), (), "repo"), ((), ("demo-1", "demo-9"), "instance")],
)
def test_an_unknown_repository_or_instance_is_refused_naming_the_field(
    swe_fixture: SweFixture, repos: tuple[str, ...], instances: tuple[str, ...], field: str
) -> None:
    run = prooftext.SwebenchRun(swe_fixture.tasks, swe_fixture.repo_map, repos=repos, instances=instances)
    with pytest.raises(UnknownNameError) as caught:
        prooftext.evaluate(run)
    assert caught.value.field == field and (repos or instances)[-1] in caught.value.message


def test_the_command_line_takes_repeated_and_comma_separated_instances(
    swe_fixture: SweFixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["eval", "swebench", "--tasks", str(swe_fixture.tasks), "--repo-map", str(swe_fixture.repo_map)]
    common = ["--arms", "bm25", "--tokenizer", "bytes", "--work", str(tmp_path), "--json"]
    assert (
        main([*argv, "--instance", "demo-2", "--instance", "demo-1,demo-2", "--repo", "demo/demo", *common])
        == 0
    )
    summary = json.loads(capsys.readouterr().out)
    assert summary["tasks"] == 2 and summary["selection"]["instances"] == ["demo-2", "demo-1"]
    assert main([*argv, "--repo", "other/repo", *common]) != 0
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["code"] == "unknown_name" and error["details"]["field"] == "repo"


# --- verdict and sentences --------------------------------------------------------------------------------


def test_the_reference_is_the_best_arm_within_the_budget_when_full_context_does_not_fit() -> None:
    reference = budget_reference(ARMS_OVER, "gold_line_recall")
    assert reference["arm"] == "adaptive"  # tied with fixed at 66.2%, with fewer tokens
    verdict = budget_verdict(DECLARED, ARMS_OVER, reference["arm"])
    assert verdict["full"]["passes"] is False and verdict["full"]["fits_budget"] is False
    assert verdict["fixed"]["passes"] and verdict["adaptive"]["regression"] == 0.0
    assert verdict["bm25"]["regression"] == pytest.approx(0.362) and not verdict["bm25"]["passes"]


def test_full_context_is_the_reference_and_is_not_judged_when_it_fits_every_task() -> None:
    arms = {**ARMS_OVER, "full": _arm(1.0, 3000, over=0)}
    reference = budget_reference(arms, "gold_line_recall")
    verdict = budget_verdict(DECLARED, arms, reference["arm"])
    assert reference["arm"] == "full" and set(verdict) == {"bm25", "fixed", "adaptive"}
    assert verdict["fixed"]["regression"] == pytest.approx(0.338) and not verdict["fixed"]["passes"]


def test_the_verdict_sentence_says_full_context_does_not_fit_and_names_the_reference() -> None:
    reference = budget_reference(ARMS_OVER, "gold_line_recall")
    summary = {
        "arms": ARMS_OVER,
        "budget": 8000,
        "declaration": DECLARED.to_dict(),
        "reference": reference,
        "verdict": budget_verdict(DECLARED, ARMS_OVER, reference["arm"]),
    }
    said = verdict_sentence(summary)
    assert said.startswith("Full context fits the 8,000-token budget on 0 of 10 tasks, median 8.6 M tokens")
    assert "the reference is adaptive" in said
    assert "Passing: fixed and adaptive" in said and "full (over the budget)" in said
    assert "bm25 (below the threshold 50.0% and more than 10.0 points below adaptive)" in said


def test_a_declared_reference_is_judged_and_the_sentence_says_it_was_declared() -> None:
    declared = Declaration("gold_line_recall", 0.5, 0.1, "flags", reference_arm="bm25")
    arms = {"bm25": ARMS_OVER["bm25"], "fixed": ARMS_OVER["fixed"]}
    reference = declared_reference(arms, declared.metric, "bm25")
    verdict = budget_verdict(declared, arms, reference["arm"])
    assert set(verdict) == {"bm25", "fixed"}
    assert verdict["bm25"]["regression"] == 0.0 and not verdict["bm25"]["meets_threshold"]
    assert verdict["bm25"]["passes"] is False and verdict["fixed"]["passes"]
    summary = {
        "arms": arms,
        "budget": 8000,
        "declaration": declared.to_dict(),
        "reference": reference,
        "verdict": verdict,
    }
    said = verdict_sentence(summary)
    assert said.startswith("The declared reference bm25 fits the budget on every task.")
    assert "best arm" not in said and "failing: bm25 (below the threshold 50.0%)" in said
    with_full = {**arms, "full": ARMS_OVER["full"]}
    summary.update(arms=with_full, verdict=budget_verdict(declared, with_full, "bm25"))
    said = verdict_sentence(summary)
    assert "the declared reference bm25 fits the budget on every task" in said and "best arm" not in said


def test_an_arm_that_failed_reads_as_failed_with_its_code_not_as_over_the_budget() -> None:
    broken = {
        "tasks": 10,
        "failures": 10,
        "failure_codes": {"value_out_of_range": 10},
        "gold_line_recall": 0.0,
    }
    arms = {"bm25": ARMS_OVER["bm25"], "fixed": broken}
    reference = budget_reference(arms, "gold_line_recall")
    verdict = budget_verdict(DECLARED, arms, reference["arm"])
    summary = {
        "arms": arms,
        "budget": 8000,
        "declaration": DECLARED.to_dict(),
        "reference": reference,
        "verdict": verdict,
    }
    said = verdict_sentence(summary)
    assert (
        "fixed (failed with value_out_of_range on 10 of 10 tasks, below" in said
        and "over the budget" not in said
    )


def test_the_summary_sentence_names_the_winner_within_the_budget_and_its_margin() -> None:
    said = summary_sentence(ARMS_OVER, "gold_line_recall", 8000)
    assert said.startswith("Within the 8,000-token budget, adaptive has the highest gold-line recall: 66.2%")
    assert (
        "fixed ties it at 7,970 tokens" in said and "bm25 is 36.2 points lower (30.0%, 7,986 tokens)" in said
    )
    assert said.endswith(
        "Over the budget: full on 10 of 10 tasks (median 8.6 M tokens, gold-line recall 100.0%)."
    )


def _row(instance: str, **arms: tuple[float, int]) -> dict[str, Any]:
    return {
        "instance_id": instance,
        "repo": "demo/demo",
        "arms": {a: {"ok": True, "gold_line_recall": r, "prompt_tokens": t} for a, (r, t) in arms.items()},
    }


def test_the_per_task_table_puts_the_largest_loss_against_the_best_arm_within_the_budget_first() -> None:
    rows = [
        _row("t-even", full=(1.0, 90_000), bm25=(0.5, 7900), fixed=(0.5, 7900), adaptive=(0.5, 4000)),
        _row("t-lost", full=(1.0, 90_000), bm25=(0.8, 7900), fixed=(0.2, 7900), adaptive=(0.6, 4000)),
        _row("t-none", full=(1.0, 90_000), bm25=(0.0, 7900), fixed=(0.0, 7900), adaptive=(0.0, 4000)),
    ]
    losses = task_losses(rows, ["full", "bm25", "fixed", "adaptive"], 8000)
    assert [t["instance_id"] for t in losses] == ["t-lost", "t-none", "t-even"]
    assert losses[0]["best"] == ["bm25"] and losses[0]["loss"] == pytest.approx(0.6)
    assert losses[1]["best"] == [] and losses[1]["loss"] == 0.0  # nothing within the budget quoted a line


def test_the_locomo_note_says_the_adaptive_curve_stopped_before_its_ceiling_and_why() -> None:
    arms = {
        "adaptive@1024": {
            "prompt_tokens_mean": 980.0,
            "evidence_recall": 0.7,
            "stop_reasons": {"hard_limit_reached": 9},
        },
        "adaptive@8192": {
            "prompt_tokens_mean": 1800.0,
            "evidence_recall": 0.8,
            "stop_reasons": {"estimated_sufficient": 8, "hard_limit_reached": 1},
        },
        "fixed@8192": {"prompt_tokens_mean": 8000.0, "evidence_recall": 0.9},
    }
    (note,) = locomo_findings.short_of_budget(arms)
    assert note.startswith("The adaptive curve ends at 1,800 tokens, 22.0% of its 8,192-token ceiling")
    assert "stopped before the ceiling on 8 of 9 questions" in note
    said = locomo_findings.curves_sentence(arms)
    assert said == (
        "At the largest budget (8,192 tokens) the curves end at: fixed 90.0% at 8,000 and adaptive 80.0% at"
        " 1,800 mean tokens."
    )


# --- terminal ---------------------------------------------------------------------------------------------


def _rendered(report: prooftext.EvalReport) -> str:
    out = io.StringIO()
    print_tables(report, Console(file=out, width=80, color_system=None))
    return out.getvalue()


def _swe_summary() -> dict[str, Any]:
    arms = {
        name: {
            **s,
            **{f"acc@{k}": 1.0 for k in (1, 3, 5, 10)},
            "gold_file_recall": 1.0,
            "all_gold_files": 1.0,
            "latency_ms_p50": 12345.0,
            "latency_ms_p95": 99999.0,
        }
        for name, s in ARMS_OVER.items()
    }
    loss = {"instance_id": "sympy__sympy-24102", "repo": "sympy/sympy", "loss": 1.0, "best": ["bm25"]}
    return {
        "tasks": 181,
        "budget": 8000,
        "arms": arms,
        "by_repo": {"pytest-dev/pytest": arms, "sympy/sympy": arms},
        "task_losses": [{**loss, "losses": {"fixed": 1.0, "adaptive": 1.0}, "best_value": 1.0}],
    }


def test_the_swebench_terminal_summary_fits_80_columns_without_cutting_a_number() -> None:
    text = _rendered(prooftext.EvalReport("swebench", _swe_summary()))
    assert "…" not in text and max(len(line) for line in text.splitlines()) <= 80
    assert "8,600,000" in text and "100.0" in text and "99,999" in text and "sympy__sympy-24102" in text


def test_the_locomo_terminal_summary_fits_80_columns_without_cutting_a_number() -> None:
    arm = {
        "questions": 1982,
        "failures": 0,
        "evidence_recall": 0.912,
        "all_evidence": 0.873,
        "prompt_tokens_mean": 21438.0,
        "prompt_tokens_median": 21438.0,
        "latency_ms_p50": 1234.5,
        "latency_ms_p95": 9999.9,
        "by_category": {str(c): {"questions": 9, "evidence_recall": 0.5} for c in range(1, 6)},
    }
    summary = {
        "questions": 1986,
        "questions_with_evidence": 1982,
        "arms": {"adaptive@8192": arm, "full": arm},
    }
    text = _rendered(prooftext.EvalReport("locomo", summary))
    assert "…" not in text and max(len(line) for line in text.splitlines()) <= 80
    assert "21,438" in text and "9,999.9" in text and "adaptive@8192" in text


# --- depth ------------------------------------------------------------------------------------------------


@pytest.fixture
def depth_run(tmp_path: Path, locomo_file: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    clinc = tmp_path / "clinc.json"
    items = [
        ["hi", "greeting"],
        ["thanks", "thank_you"],
        ["play a song", "play_music"],
        ["maybe not", "maybe"],
    ]
    clinc.write_text(json.dumps({"test": items, "oos_test": [["what is love", "oos"]]}))
    out = tmp_path / "out"
    summary = run_depth(clinc, locomo_file, DEFAULT_DEPTH_DECLARATION, RunOptions(out_dir=out))
    return json.loads((out / "declaration.json").read_text()), summary


def test_the_depth_report_is_tables_and_examples_without_raw_json(
    depth_run: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    record, summary = depth_run
    html = depth_report(record, summary)
    assert "<pre" not in html and '{"' not in html and "&quot;text&quot;" not in html
    assert '<td class="text">LoCoMo questions</td><td>4</td>' in html
    assert "surface recall 100.0%, precision 100.0%" in html  # hi and thanks; maybe is not small talk
    assert "small talk not called surface" in html
    assert "memory search ran on LoCoMo questions as turns 100.0%" in html
    assert "Every measured gate meets its bar (3 of 4 measured)." in html
    assert "<td>&gt;= 95.0</td>" in html


def test_the_depth_report_shows_how_often_memory_and_retrieval_ran_when_the_run_recorded_it(
    depth_run: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    record, summary = depth_run
    summary["locomo"] = {**summary["locomo"], "memory_ran": 3, "gates": {"retrieval": {"share": 0.25}}}
    html = depth_report(record, summary)
    assert "<th>memory search ran</th><th>retrieval ran</th>" in html
    assert "<td>3 (75.0%)</td><td>1 (25.0%)</td>" in html
    tables = depth_tables(summary)
    ran = {row[0]: row[-2:] for row in tables[1][2]}
    assert tables[1][0] == "how often the gates ran" and ran["LoCoMo questions"] == ["3 (75.0%)", "1 (25.0%)"]
    text = _rendered(prooftext.EvalReport("depth", summary))
    assert "…" not in text and max(len(line) for line in text.splitlines()) <= 80


def test_the_locomo_verdict_compares_like_with_like_when_full_history_does_not_fit(
    locomo_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["eval", "locomo", "--data", str(locomo_file), "--arms", "full,last_n,bm25,oracle", "--json"]
    assert main([*argv, "--budgets", "64", "--out", str(tmp_path / "small")]) == 0  # full history: ~118
    summary = json.loads(capsys.readouterr().out)
    reference = summary["reference"]
    assert reference["arm"] not in ("full", "oracle") and "does not fit" in reference["why"]
    assert (
        summary["verdict"]["full"]["fits_budget"] is False and summary["verdict"]["full"]["passes"] is False
    )
    report = (tmp_path / "small" / "report.html").read_text()
    assert "Full context does not fit the budget on every question" in report
    assert main([*argv, "--budgets", "256"]) == 0
    assert json.loads(capsys.readouterr().out)["reference"]["arm"] == "full"


def test_the_python_api_takes_paths_as_text(
    swe_fixture: SweFixture, locomo_file: Path, tmp_path: Path
) -> None:
    clinc = tmp_path / "clinc.json"
    clinc.write_text(json.dumps({"test": [["hi", "greeting"], ["play a song", "play_music"]]}))
    declared = tmp_path / "bar.json"
    declared.write_text(json.dumps({"metric": "acc@5", "threshold": 0.1, "permitted_regression": 0.9}))
    swe = prooftext.SwebenchRun(
        str(swe_fixture.tasks),
        str(swe_fixture.repo_map),
        "bm25",
        tokenizer="bytes",
        bar=prooftext.QualityBar(str(declared)),
        instances=("demo-1",),
    )
    assert prooftext.evaluate(swe).to_dict()["tasks"] == 1
    locomo = prooftext.LocomoRun(str(locomo_file), "256", "last_n", "bytes")
    assert prooftext.evaluate(locomo).to_dict()["arms"]["last_n@256"]["questions"] == 3
    depth = prooftext.DepthRun(str(clinc), str(locomo_file))
    assert prooftext.evaluate(depth).to_dict()["clinc"]["utterances"] == 2
    options = prooftext.RunOptions(str(tmp_path / "out"), str(tmp_path / "work"))
    assert options.out_dir == tmp_path / "out" and options.work_dir == tmp_path / "work"
    assert prooftext.evaluate(depth, options).to_dict()["clinc"]["utterances"] == 2
    assert (tmp_path / "out" / "summary.json").is_file()


@pytest.mark.parametrize(
    ("reference_arm", "shown"), [("bm25", "<td>bm25</td>"), (None, "<td>chosen by the rule</td>")]
)
def test_the_declared_bar_names_the_reference_the_regression_is_measured_from(
    reference_arm: str | None, shown: str
) -> None:
    declared = Declaration("gold_line_recall", 0.5, 0.1, "flags", reference_arm=reference_arm)
    report = HtmlReport("t")
    manifest_section(report, {"declaration": declared.to_dict()})
    page = report.render()
    assert "regression from full" not in page and "reference arm" in page and shown in page


def test_the_evidence_normalization_sentence_says_it_counts_the_whole_data_file() -> None:
    stats = {"raw_entries": 2815, "ids_repaired": 2, "ids_dropped": 1, "dropped": ["D9:99"]}
    sentence = locomo_findings.normalization_sentence({**stats, "questions_without_evidence": 4})
    assert sentence.startswith("In the whole data file (not only this run's questions), of 2,815 evidence")
    assert "2 ids were repaired and 1 dropped (D9:99); 4 questions have no evidence" in sentence


def test_the_locomo_note_groups_the_digits_of_every_count_it_gives() -> None:
    arms = {
        "adaptive@8192": {
            "prompt_tokens_mean": 4893.0,
            "evidence_recall": 0.9,
            "stop_reasons": {"candidate_exhausted": 3, "estimated_sufficient": 1983},
        },
        "fixed@8192": {"prompt_tokens_mean": 6033.0, "evidence_recall": 0.92},
    }
    fixed, note = locomo_findings.short_of_budget(arms)
    assert fixed.startswith("The fixed curve ends at 6,033 tokens")
    assert "stopped before the ceiling on 1,986 of 1,986 questions" in note
    assert "(stop reasons: candidate_exhausted 3, estimated_sufficient 1,983)" in note
