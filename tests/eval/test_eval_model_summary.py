"""The model summary's sentences say what the run declared, even when no answer arrived."""

from __future__ import annotations

from prooftext.eval.model_summary import cost_sentence, model_notes, variance_sentence

FAILED = {"answered": 0, "error_codes": {"backend_unavailable": 2}, "output_tokens_mean": None}


def test_a_run_with_declared_prices_and_no_answer_does_not_say_no_prices_were_declared() -> None:
    arms = {"bm25": {"success": 0.0, "model": {**FAILED, "cost_usd_per_task": None}}}
    said = cost_sentence(arms, "question", priced=True)
    assert said == "Prices were declared but no answer arrived, so no cost is computed."
    assert cost_sentence(arms).startswith("No prices were declared")
    summary = {
        "arms": arms,
        "model": {
            "model": "tiny",
            "repeats": 1,
            "price_input_usd_per_mtok": 1.0,
            "price_output_usd_per_mtok": 2.0,
        },
        "answers": {"asked": 0, "cached": 0, "errors": 2},
        "failed_tasks": 2,
        "declaration": {"metric": "success", "threshold": 0.5, "permitted_regression": 0.1},
    }
    assert said in model_notes(summary, "locomo")


def test_repeats_in_which_no_answer_arrived_are_not_called_agreeing() -> None:
    arms = {
        "bm25": {"success": 0.0, "success_std": 0.0, "agreement": 1.0, "model": {**FAILED}},
        "fixed": {"success": 0.0, "success_std": 0.0, "agreement": 1.0, "model": {**FAILED}},
    }
    assert variance_sentence(arms, 3, "question") == "Over 3 repeats no arm was answered."
