"""What the evaluation's help, sentences and tables say is true of one item as of many, of tied arms as of
one, and of the figures beside them: counts agree in number, a loss is attributed to the arm that lost,
every failing arm says why, and no Python value (None, False) reaches a reader."""

from __future__ import annotations

from typing import Any

import pytest
from typer.testing import CliRunner

from prooftext.cli.eval import eval_app
from prooftext.errors import RangeError, RequestError
from prooftext.eval import locomo_findings
from prooftext.eval.declare import Declaration, parse_ints, parse_list
from prooftext.eval.depth_report import datasets_sentence, small_talk_note
from prooftext.eval.html import HtmlReport, manifest_section
from prooftext.eval.model_summary import model_verdict_sentence, settings_note
from prooftext.eval.summary import arm_summary
from prooftext.eval.swe_findings import (
    index_sentence,
    losses_sentence,
    rounds_sentence,
    stops_sentence,
    summary_sentence,
    task_losses,
)
from prooftext.eval.swe_findings import latency_sentence as swe_latency_sentence
from prooftext.eval.swe_report import SUMMARY_HEADERS, _selection_text, summary_rows, terminal_tables

ARMS = ["bm25", "fixed", "adaptive"]
DECLARED = Declaration("gold_line_recall", 0.5, 0.1, "flags")


def _row(instance: str, **arms: tuple[float, int]) -> dict[str, Any]:
    return {
        "instance_id": instance,
        "repo": "demo/demo",
        "arms": {a: {"ok": True, "gold_line_recall": r, "prompt_tokens": t} for a, (r, t) in arms.items()},
    }


def test_the_eval_command_list_shows_each_command_summary_unbroken() -> None:
    shown = CliRunner().invoke(eval_app, ["--help"], prog_name="prooftext eval", terminal_width=240)
    assert shown.exit_code == 0
    lines = shown.output.splitlines()
    assert any("oracle; with --model, the model answers" in line for line in lines)
    assert any("classified surface, and how often memory search" in line for line in lines)
    shown = CliRunner().invoke(eval_app, ["swebench", "--help"], terminal_width=240)
    assert '"reference_arm"' in shown.output  # a declaration file may name the reference arm


def test_the_locomo_arms_help_names_every_arm_at_80_columns() -> None:
    shown = CliRunner().invoke(eval_app, ["locomo", "--help"], terminal_width=80)
    text = " ".join(shown.output.split())
    assert "adaptive, oracle (all by default)" in text.replace("│ ", "").replace(" │", "")


def test_the_loss_sentence_says_fixed_or_adaptive_and_counts_each_arm_that_lost() -> None:
    rows = [
        _row("t-both", bm25=(1.0, 7900), fixed=(0.0, 7900), adaptive=(0.0, 4000)),
        _row("t-adaptive", bm25=(0.2, 7900), fixed=(0.4, 7900), adaptive=(0.2, 4000)),
        _row("t-even", bm25=(0.5, 7900), fixed=(0.5, 7900), adaptive=(0.5, 4000)),
    ]
    said = losses_sentence(task_losses(rows, ARMS, 8000))
    assert said.startswith(
        "fixed or adaptive fell below the best arm within the budget on 2 of 3 tasks (fixed on 1, adaptive"
        " on 2); the largest loss is 100.0 points on t-both"
    )


def test_a_one_task_run_speaks_of_one_task_one_refresh_and_one_named_instance() -> None:
    rows = [_row("t-1", bm25=(0.5, 7900), fixed=(0.5, 7900), adaptive=(0.5, 4000))]
    said = losses_sentence(task_losses(rows, ARMS, 8000))
    assert "on the one task" in said and "all 1 tasks" not in said
    assert "on both tasks" in losses_sentence(task_losses(rows + rows, ARMS, 8000))
    index = {"demo/demo": {"refreshes": 1, "refresh_s_total": 2.0}}
    assert "over 1 refresh;" in index_sentence(index)
    summary = {"tasks": 1, "budget": 8000, "arms": {}, "by_repo": {}}
    assert terminal_tables(summary)[0][0] == "SWE-bench, 1 task: quality, %"
    assert _selection_text({"selection": {"instances": ["t-1"]}}) == " Selected: 1 named instance."


def test_the_declared_code_version_reads_as_words_not_python_values() -> None:
    report = HtmlReport("t")
    manifest = {
        "declaration": DECLARED.to_dict(),
        "declared_at": "2026-01-01T00:00:00Z",
        "tokenizer": "o200k_base",
        "cpus": 2,
        "code": {"prooftext": "0.1.0", "git_head": None, "git_dirty": None, "python": "3.11.7"},
    }
    manifest_section(report, manifest)
    page = report.render()
    assert "<td>None</td>" not in page and "<td>False</td>" not in page
    report = HtmlReport("t")
    manifest_section(report, {"code": {"git_head": "abc", "git_dirty": False}})
    assert "<td>no</td>" in report.render()


LOCOMO_ARMS: dict[str, dict[str, Any]] = {
    "full": {"evidence_recall": 1.0, "prompt_tokens_mean": 21_000.0},
    "fixed@512": {"evidence_recall": 0.319, "prompt_tokens_mean": 476.0},
    "adaptive@512": {"evidence_recall": 0.319, "prompt_tokens_mean": 476.0},
    "bm25@512": {"evidence_recall": 0.647, "prompt_tokens_mean": 500.0},
    "fixed@4096": {
        "evidence_recall": 0.931,
        "prompt_tokens_mean": 3212.0,
        "by_category": {
            "1": {"questions": 3, "evidence_recall": 0.5},
            "2": {"questions": 2, "evidence_recall": 1.0},
        },
    },
    "adaptive@4096": {
        "evidence_recall": 0.931,
        "prompt_tokens_mean": 3209.0,
        "by_category": {
            "1": {"questions": 3, "evidence_recall": 0.6},
            "2": {"questions": 2, "evidence_recall": 1.0},
        },
    },
}


def test_the_locomo_headline_names_every_arm_tied_for_second() -> None:
    said = locomo_findings.summary_sentence(LOCOMO_ARMS)
    assert "512: bm25 64.7%, 32.8 points above fixed and adaptive;" in said


def test_the_locomo_category_sentence_describes_the_arm_the_verdict_calls_best() -> None:
    said = locomo_findings.category_sentence(LOCOMO_ARMS)
    assert said.startswith("For adaptive@4096, the best arm at the largest budget")


def test_the_locomo_verdict_sentence_says_why_each_failing_arm_fails() -> None:
    verdict = {
        "full": {"fits_budget": False, "value": 1.0, "meets_threshold": True, "within_regression": True},
        "last_n@512": {
            "fits_budget": True,
            "value": 0.0,
            "meets_threshold": False,
            "within_regression": False,
        },
        "last_n@4096": {
            "fits_budget": True,
            "value": 0.2,
            "meets_threshold": False,
            "within_regression": False,
        },
        "fixed@512": {"fits_budget": True, "value": 0.3, "meets_threshold": False, "within_regression": True},
        "fixed@4096": {"fits_budget": True, "value": 0.9, "passes": True},
    }
    summary = {
        "verdict": verdict,
        "declaration": {"metric": "evidence_recall", "threshold": 0.5, "permitted_regression": 0.5},
        "reference": {"arm": "fixed@4096", "why": "full context does not fit the budget on every question"},
    }
    said = locomo_findings.verdict_sentence(summary)
    assert said.endswith(
        "Passing: fixed at 4,096; failing: full (over the budget), last_n at 512 and 4,096 (below the threshold"
        " 50.0% and more than 50.0 points below fixed@4096) and fixed at 512 (below the threshold 50.0%)."
    )


def test_the_locomo_note_counts_one_conversation_in_the_singular() -> None:
    summary = {"questions": 3, "questions_with_evidence": 3, "conversations": 1, "wall_s": 1.0}
    assert locomo_findings.run_note(summary).startswith("3 questions (3 with evidence) from 1 conversation;")


def test_the_locomo_note_says_tokens_and_stops_count_every_question_asked() -> None:
    summary = {"questions": 30, "questions_with_evidence": 29, "conversations": 1, "wall_s": 1.0}
    said = locomo_findings.run_note(summary)
    assert "Recall averages over the 29 questions with evidence" in said
    assert "tokens, latency and stop reasons count all 30 questions asked" in said


def test_the_model_verdict_sentence_says_why_each_failing_arm_fails() -> None:
    summary = {
        "declaration": {"metric": "answer_f1", "threshold": 0.4, "permitted_regression": 0.1},
        "reference": {"arm": "bm25@4096", "why": "the declared reference full does not fit the budget"},
        "verdict": {
            "full": {"fits_budget": False, "value": 1.0, "meets_threshold": True, "within_regression": True},
            "bm25_top5": {
                "fits_budget": True,
                "value": 0.47,
                "meets_threshold": True,
                "within_regression": False,
            },
            "bm25@4096": {"fits_budget": True, "value": 0.77, "passes": True},
        },
    }
    said = model_verdict_sentence(summary, "question")
    assert said.endswith(
        "Passing on answer F1: bm25@4096; failing: full (over the budget) and bm25_top5 (more than 10.0 points"
        " below bm25@4096)."
    )


def test_the_model_settings_note_counts_one_repeat_in_the_singular() -> None:
    said = settings_note({"model": "m", "backend": "ollama", "repeats": 1}, "question")
    assert "; 1 repeat." in said and "repeat(s)" not in said
    assert "; 3 repeats." in settings_note({"model": "m", "repeats": 3}, "question")


def test_a_count_out_of_one_speaks_of_one_task_or_question() -> None:
    assert stops_sentence({"hard_limit_reached": 1}) == (
        "The adaptive packet stopped as hard_limit_reached on 1 of 1 task."
    )
    assert rounds_sentence({"4": 1}).startswith("The adaptive packet kept round 4 most often (1 of 1 task);")
    over = {"tasks": 1, "failures": 0, "over_budget": 1, "prompt_tokens_median": 9000.0}
    fits = {"tasks": 1, "failures": 0, "over_budget": 0, "gold_line_recall": 1.0, "prompt_tokens_mean": 10.0}
    said = summary_sentence({"full": over, "fixed": fits}, "gold_line_recall", 8000)
    assert said.endswith("Over the budget: full on 1 of 1 task (median 9,000 tokens).")
    arms = {"adaptive@1024": {"prompt_tokens_mean": 300.0, "stop_reasons": {"estimated_sufficient": 1}}}
    (note,) = locomo_findings.short_of_budget(arms)
    assert "stopped before the ceiling on 1 of 1 question " in note


def test_the_latency_sentence_gives_the_p50_the_table_shows() -> None:
    rows = [
        {"instance_id": f"t-{n}", "repo": "demo/demo", "arms": {"bm25": {"ok": True, "latency_ms": ms}}}
        for n, ms in enumerate([10.0, 20.0])
    ]
    summary = arm_summary(rows, "bm25")
    shown = summary_rows({"bm25": summary})[0][SUMMARY_HEADERS.index("latency p50 ms")]
    assert shown == "10"
    assert swe_latency_sentence({"bm25": summary}).startswith(
        f"Median (p50) compile latency: bm25 {shown} ms"
    )


def test_the_small_talk_note_says_which_names_and_roots_were_known() -> None:
    summary = {"small_talk_gates": {"names_known": 34, "per_root": {"a/b": {}, "c/d": {}}}}
    assert small_talk_note(summary) == (
        "CLINC150 small talk asked as turns, with the 34 names of the LoCoMo conversations known and each"
        " repository open in turn:"
    )
    summary = {"small_talk_gates": {"names_known": 0, "per_root": {"(no repository)": {}}}}
    assert (
        small_talk_note(summary)
        == "CLINC150 small talk asked as turns, with no names known and no repository open:"
    )


def test_a_bad_arm_or_budget_list_names_the_item_at_fault() -> None:
    with pytest.raises(RequestError) as caught:
        parse_list("full,nope", ("full", "bm25"), "arms")
    assert caught.value.message == "arms must be a comma-separated subset of full, bm25; unknown: nope"
    with pytest.raises(RangeError) as out_of_range:
        parse_ints("512,0", "budgets")
    assert out_of_range.value.message == "budgets must each be at least 1, got 0"


def test_a_depth_run_without_locomo_or_swebench_does_not_say_it_recorded_no_gate() -> None:
    summary = {
        "clinc": {"utterances": 10, "gold_surface": 2, "predicted_surface": 2, "surface_precision": 1.0},
        "small_talk_gates": {"names_known": 0, "per_root": {"(no repository)": {}}, "memory_share_max": 0.0},
    }
    said = datasets_sentence(summary)
    assert "did not record" not in said
    assert said.endswith(
        "no data set here records how often memory search and retrieval ran (--locomo and --swebench add"
        " them; small talk is measured on its own)."
    )
