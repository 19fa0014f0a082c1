"""The signal report: shape only, Ollama timings, and the suspected-truncation flag."""

from __future__ import annotations

import json

from fake_chat_server import FakeChatServer
from prooftext.conversation.items import ItemKind, make_item
from prooftext.conversation.turn import TurnPlan, TurnRequest, TurnSources, plan_turn
from prooftext.llm.backends import ChatResult, OllamaBackend, OpenAIBackend
from prooftext.llm.signal import TRUNCATION_MIN_PROMPT_TOKENS, signal_report, truncation_check


def _long_plan() -> TurnPlan:
    history = [
        make_item(ItemKind.ASSISTANT if i % 2 else ItemKind.USER, f"history line {i} " * 20, item_id=f"h{i}")
        for i in range(10)
    ]
    return plan_turn(
        TurnRequest("main", "Please compare the two designs in detail"), TurnSources(history=history)
    )


def test_suspected_silent_truncation_is_flagged() -> None:
    """Requirement: llm.signal.truncation"""
    plan = _long_plan()
    assert plan.prompt_tokens.count > 200
    with FakeChatServer(prompt_eval_count=40) as s, OllamaBackend(s.url) as backend:
        result = backend.chat(list(plan.messages), model="tiny", max_output_tokens=10)
    report = signal_report(plan, result)
    assert report.suspected_truncation and "40 of" in report.truncation_reason
    with FakeChatServer() as s, OllamaBackend(s.url) as backend:
        fine = backend.chat(list(plan.messages), model="tiny", max_output_tokens=10)
    assert not signal_report(plan, fine).suspected_truncation


def test_truncation_rule_edges() -> None:
    assert truncation_check(1000, None) == (False, "server reported no prompt token count")
    assert not truncation_check(TRUNCATION_MIN_PROMPT_TOKENS - 1, 1)[0]
    assert truncation_check(1000, 499)[0]
    assert not truncation_check(1000, 500)[0]


def test_openai_usage_feeds_the_report_without_ollama_timings() -> None:
    plan = plan_turn(TurnRequest("main", "what does the ledger record about budgets?"))
    with FakeChatServer(reply="secret-reply-text") as s, OpenAIBackend(s.url) as backend:
        result = backend.chat(list(plan.messages), model="tiny", max_output_tokens=10, stream=True)
    report = signal_report(plan, result).to_dict()
    assert report["backend"] == "openai" and report["usage"]["prompt_tokens"] is not None
    assert all(v is None for v in report["timings"].values())
    blob = json.dumps(report)
    assert "secret-reply-text" not in blob and "ledger" not in blob


def test_report_of_a_synthetic_result_has_a_stable_shape() -> None:
    plan = plan_turn(TurnRequest("main", "hi"))
    result = ChatResult("hello there you", "tiny", "ollama", False, "stop", {"eval_count": 3})
    data = signal_report(plan, result).to_dict()
    assert sorted(data) == [
        "backend",
        "counts",
        "done_reason",
        "mode",
        "model",
        "model_switched",
        "output_budget",
        "prompt_tokens",
        "schema",
        "served_model",
        "status_label",
        "streamed",
        "suspected_truncation",
        "tier",
        "timings",
        "truncation_reason",
        "truncation_rule",
        "usage",
    ]
    assert data["tier"] == "surface" and data["status_label"] == "Context: Smart · Surface"
    assert data["timings"]["eval_count"] == 3 and data["timings"]["load_duration"] is None
    assert "hello there" not in json.dumps(data)
