"""Catalogue H: the chat pipeline (items, ledger, history) and the shape-only signal report."""

from __future__ import annotations

from typing import Any

import pytest

import prooftext
from prooftext import Query, tokens
from prooftext.conversation.items import make_item
from prooftext.conversation.pipeline import Pipeline
from prooftext.conversation.turn import TurnRequest, TurnSources, plan_turn
from prooftext.errors import ProoftextError, TokenizerError
from prooftext.llm.backends import OLLAMA_TIMING_FIELDS, ChatResult, OllamaBackend
from prooftext.llm.signal import signal_report
from prooftext.tokens import get_counter


def test_H01_empty_huge_non_utf8_and_duplicate_items_are_errors_or_recorded() -> None:
    counter = get_counter("o200k_base")
    pipeline = Pipeline(counter)
    huge = make_item("retrieval", "word " * 200_000, item_id="huge")
    empty = make_item("retrieval", "", item_id="empty")
    lone = make_item("retrieval", "bad \udcff surrogate", item_id="lone")
    current = make_item("user", "what changed in the ledger?", item_id="u1", current=True)
    result = pipeline.run([empty, huge, lone, current], "what changed in the ledger?", budget=2000)
    assert result.ledger.tokens_out.count <= 2000 and result.budget_met
    assert {d.item_id for d in result.drops} >= {"huge"}
    same = make_item("retrieval", "same text", item_id="dup")
    twin = make_item("retrieval", "same text", item_id="dup2")
    deduped = pipeline.run([same, twin, current], "x", budget=None)
    assert [d.reason for d in deduped.drops] == ["duplicate"]
    clash = make_item("retrieval", "other text", item_id="dup")
    with pytest.raises(ProoftextError) as caught:
        pipeline.run([same, clash, current], "x")
    assert caught.value.code == "invalid_request"


def _timings(**values: Any) -> dict[str, int | None]:
    return OllamaBackend._timings(values)


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param({}, id="missing"),
        pytest.param({"total_duration": "12"}, id="string"),
        pytest.param({"total_duration": float("nan")}, id="nan"),
        pytest.param({"total_duration": True}, id="boolean"),
    ],
)
def test_H02_missing_string_nan_or_boolean_timings_are_not_trusted(raw: dict[str, Any]) -> None:
    timings = _timings(**raw)
    assert set(timings) == set(OLLAMA_TIMING_FIELDS) and timings["total_duration"] is None
    plan = plan_turn(TurnRequest("main", "How does the ledger reconciliation work in detail?"))
    reply = "the-reply-text-never-enters-the-report"
    report = signal_report(plan, ChatResult(reply, "tiny", "ollama", False, "stop", timings)).to_dict()
    assert report["timings"]["total_duration"] is None and reply not in str(report)
    prooftext.canonical.encode(report)


@pytest.mark.parametrize("value", [-5, 10**30])
def test_H02_negative_or_huge_timings_are_marked_invalid(value: int) -> None:
    timings = _timings(total_duration=value, prompt_eval_count=value)
    plan = plan_turn(TurnRequest("main", "How does the ledger reconciliation work in detail?"))
    report = signal_report(plan, ChatResult("ok", "tiny", "ollama", False, "stop", timings)).to_dict()
    assert report["timings"]["total_duration"] is None
    prooftext.canonical.encode(report)


def _long_history(counter: Any) -> list[Any]:
    return [
        make_item(
            "user" if i % 2 == 0 else "assistant",
            f"turn {i}: the ledger note number {i}",
            item_id=f"m{i}",
            created_ms=i,
            counter=counter,
        )
        for i in range(10_000)
    ]


def test_H03_a_10k_turn_history_is_trimmed_to_the_budget_with_an_exact_ledger() -> None:
    counter = get_counter("o200k_base")
    plan = plan_turn(
        TurnRequest(
            "main", "Summarize what we decided about the ledger in detail.", mode="full", window_tokens=8192
        ),
        TurnSources(history=_long_history(counter)),
    )
    ledger = plan.pipeline.ledger
    assert ledger.is_chained() and plan.pipeline.budget_met
    assert ledger.tokens_out.count == sum(counter.count(i.text) for i in plan.pipeline.items)
    assert ledger.tokens_out.count <= plan.prompt_budget.count
    assert len(plan.pipeline.drops) > 9_000  # every dropped turn is recorded


def test_H03_the_rendered_prompt_of_a_10k_turn_history_respects_the_budget() -> None:
    counter = get_counter("o200k_base")
    plan = plan_turn(
        TurnRequest(
            "main", "Summarize what we decided about the ledger in detail.", mode="full", window_tokens=8192
        ),
        TurnSources(history=_long_history(counter)),
    )
    assert plan.prompt_tokens.count <= plan.prompt_budget.count


def test_H04_an_unavailable_tokenizer_is_an_error_never_an_estimate(
    monkeypatch: pytest.MonkeyPatch, indexed: Any
) -> None:
    monkeypatch.setattr(tokens, "_packaged_bytes", lambda filename: b"not a bpe file")
    monkeypatch.setattr(tokens, "_cache", {})  # as if no encoding had been loaded in this process yet
    monkeypatch.setenv(tokens.CACHE_ENV, "")  # and no parsed copy were kept from an earlier run
    with pytest.raises(TokenizerError):
        get_counter("cl100k_base")
    with prooftext.open(indexed) as index, pytest.raises(TokenizerError):
        index.pack(Query("separability matrix", tokenizer="cl100k_base"))
