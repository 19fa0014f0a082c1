"""The depth-tier smoke list, one test per line, in the design's own words (product names generalised).

Smoke (shape):
- "Hi" → Surface · no MemoryIndex · no RAG · last 2 only
- "No, don't delete that" → not Surface
- Deep prompt (analyze / deep dive / multi-part) → Deep / full Smart pack
- Attachment present → Deep
- Explicit context mode Full / Minimal → overrides Adaptive
- No fake canned responses · still chosen model
- No silent model / quantization switch
- Thread: Surface hello keeps the identity + last 2 thread turns · no full Chat import
- Signal Report shows tier + Ollama timing fields · no message content in metrics
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence

import pytest

from fake_chat_server import FakeChatServer
from prooftext.conversation.items import ContextItem, ItemKind, make_item
from prooftext.conversation.turn import (
    DEFAULT_IDENTITY,
    STEP_MEMORY,
    STEP_RETRIEVAL,
    RetrievalResult,
    TurnRequest,
    TurnSources,
    plan_turn,
)
from prooftext.depth import Mode, Tier, classify
from prooftext.llm.backends import OLLAMA_TIMING_FIELDS, OllamaBackend
from prooftext.llm.signal import signal_report
from prooftext.tokens import TokenCount

from .helpers import alternating


class Spy:
    """A memory source and a retriever that record every call."""

    def __init__(self) -> None:
        self.memory_calls: list[str] = []
        self.retrieval_calls: list[tuple[str, int]] = []

    def memory(self, task: str) -> Sequence[ContextItem]:
        self.memory_calls.append(task)
        return [make_item(ItemKind.MEMORY, "Decision: keep the WAL journal.", item_id="memory:1")]

    def retrieve(self, query: str, max_tokens: int) -> RetrievalResult:
        self.retrieval_calls.append((query, max_tokens))
        return RetrievalResult(
            "excerpt: wal.c lines 1-9", TokenCount(8, "o200k_base"), {"stop": "sufficient"}
        )


def _history(thread: str, n: int, prefix: str) -> list[ContextItem]:
    return alternating([f"{prefix} message {i}" for i in range(n)], prefix + ":{}", thread=thread)


@pytest.fixture
def server() -> Iterator[FakeChatServer]:
    with FakeChatServer(reply="A real reply from the chosen model.") as s:
        yield s


def test_hi_is_surface_with_no_memory_index_no_rag_last_two_only() -> None:
    """ "Hi" → Surface · no MemoryIndex · no RAG · last 2 only

    Requirement: depth.smoke.hi_surface
    Requirement: depth.surface.allowlist"""
    spy = Spy()
    plan = plan_turn(
        TurnRequest("main", "Hi"),
        TurnSources(history=_history("main", 10, "main"), memory=spy.memory, retriever=spy.retrieve),
    )
    assert plan.tier is Tier.SURFACE
    assert spy.memory_calls == [] and spy.retrieval_calls == []
    assert not plan.step(STEP_MEMORY).ran and not plan.step(STEP_RETRIEVAL).ran
    turns = [m for m in plan.messages if m["role"] != "system"]
    assert [m["content"] for m in turns] == ["main message 9", "Hi"]
    assert plan.counts["memory"] == 0 and plan.counts["retrieval"] == 0 and plan.counts["history"] == 1


def test_no_dont_delete_that_is_not_surface() -> None:
    """ "No, don't delete that" → not Surface

    Requirement: depth.smoke.no_dont_delete"""
    assert classify("No, don't delete that") is not Tier.SURFACE
    assert classify("no") is Tier.SURFACE


@pytest.mark.parametrize(
    "text",
    [
        "Please analyze how the ledger chains across stages",
        "Let's do a deep dive on the retrieval ladder",
        "What changed in the store? And why does the refresh skip files? Which test covers it?",
    ],
)
def test_deep_prompt_is_deep_with_the_full_smart_pack(text: str) -> None:
    """Deep prompt (analyze / deep dive / multi-part) → Deep / full Smart pack

    Requirement: depth.smoke.deep_prompt"""
    spy = Spy()
    plan = plan_turn(
        TurnRequest("main", text),
        TurnSources(history=_history("main", 30, "main"), memory=spy.memory, retriever=spy.retrieve),
    )
    assert plan.tier is Tier.DEEP
    assert plan.step(STEP_MEMORY).ran and plan.step(STEP_RETRIEVAL).ran
    assert plan.counts["memory"] == 1 and plan.counts["retrieval"] == 1
    assert plan.counts["history"] == 19  # up to 20 messages including this one
    assert plan.output_budget == 2048


def test_attachment_present_is_deep() -> None:
    """Attachment present → Deep

    Requirement: depth.smoke.attachment"""
    assert classify("hi", has_attachment=True) is Tier.DEEP
    assert classify("thanks", active_files=["notes.md"]) is Tier.DEEP


def test_explicit_full_or_minimal_mode_overrides_adaptive() -> None:
    """Explicit context mode Full / Minimal → overrides Adaptive

    Requirement: depth.smoke.mode_override"""
    spy = Spy()
    full = plan_turn(
        TurnRequest("main", "Hi", mode="full"),
        TurnSources(history=_history("main", 10, "main"), memory=spy.memory),
    )
    assert full.tier is None and full.mode is Mode.FULL and full.status_label == "Context: Full"
    assert spy.memory_calls == ["Hi"] and full.counts["history"] == 10
    spy2 = Spy()
    minimal = plan_turn(
        TurnRequest(
            "main",
            "Please analyze everything in detail",
            mode=Mode.MINIMAL,
            summary="a long summary of the thread",
            files=[make_item(ItemKind.FILE, "file text", item_id="f1")],
        ),
        TurnSources(history=_history("main", 10, "main"), memory=spy2.memory, retriever=spy2.retrieve),
    )
    assert minimal.tier is None and minimal.status_label == "Context: Minimal"
    assert spy2.memory_calls == [] and spy2.retrieval_calls == []
    assert minimal.counts["files"] == 0 and minimal.counts["history"] == 1
    assert all("long summary" not in m["content"] for m in minimal.messages)


def test_no_fake_canned_responses_still_chosen_model(server: FakeChatServer) -> None:
    """No fake canned responses · still chosen model

    Requirement: depth.smoke.no_canned_response"""
    plan = plan_turn(TurnRequest("main", "Hi"))
    with OllamaBackend(server.url) as backend:
        result = backend.chat(list(plan.messages), model="tiny", max_output_tokens=plan.output_budget)
    assert result.text == "A real reply from the chosen model."
    assert len(server.requests) == 1 and server.requests[0]["body"]["model"] == "tiny"


def test_no_silent_model_or_quantization_switch(server: FakeChatServer) -> None:
    """No silent model / quantization switch

    Requirement: depth.smoke.no_model_switch"""
    texts = ["Hi", "What does the ledger record?", "Please analyze and compare both stores in detail"]
    with OllamaBackend(server.url) as backend:
        for text in texts:
            plan = plan_turn(TurnRequest("main", text))
            assert "model" not in json.dumps(plan.policy.to_dict())
            backend.chat(list(plan.messages), model="tiny", max_output_tokens=plan.output_budget)
    sent = [r["body"] for r in server.requests]
    assert {b["model"] for b in sent} == {"tiny"}
    assert [b["options"]["num_predict"] for b in sent] == [192, 1024, 2048]
    assert all(set(b["options"]) == {"num_predict"} for b in sent)


def test_thread_surface_hello_keeps_identity_and_last_two_thread_turns() -> None:
    """Thread: Surface hello keeps the identity + last 2 thread turns · no full Chat import

    Requirement: depth.smoke.thread_surface"""
    history = [*_history("main", 12, "main"), *_history("garden", 6, "garden")]
    plan = plan_turn(
        TurnRequest("garden", "hello", identity="You are Sage, the gentle voice of this thread."),
        TurnSources(history=history),
    )
    assert plan.tier is Tier.SURFACE
    system = plan.messages[0]
    assert system["role"] == "system" and "You are Sage" in system["content"]
    rest = [m["content"] for m in plan.messages[1:]]
    assert rest == ["garden message 5", "hello"]
    assert not any("main message" in m["content"] for m in plan.messages)
    assert plan.counts["other_thread_items_refused"] == 12
    assert DEFAULT_IDENTITY not in system["content"]


def test_signal_report_shows_tier_and_ollama_timings_but_no_content(server: FakeChatServer) -> None:
    """Signal Report shows tier + Ollama timing fields · no message content in metrics

    Requirement: depth.smoke.signal_report
    Requirement: llm.signal.shape_only"""
    secret_words = "zebra-violet-quartz"
    spy = Spy()
    history = [make_item(ItemKind.ASSISTANT, f"earlier {secret_words} answer", item_id="a1", thread="main")]
    plan = plan_turn(
        TurnRequest("main", f"Please analyze the {secret_words} plan in detail"),
        TurnSources(history=history, memory=spy.memory, retriever=spy.retrieve),
    )
    with OllamaBackend(server.url) as backend:
        result = backend.chat(
            list(plan.messages), model="tiny", max_output_tokens=plan.output_budget, stream=True
        )
    report = signal_report(plan, result).to_dict()
    assert report["tier"] == "deep"
    assert set(OLLAMA_TIMING_FIELDS) <= set(report["timings"])
    assert all(isinstance(report["timings"][k], int) for k in OLLAMA_TIMING_FIELDS)
    assert report["prompt_tokens"]["basis"] == "o200k_base"
    # a deep turn searches memory because its tier says so, whatever the trigger says
    assert report["counts"]["memory"] == 1 and report["counts"]["retrieval"] == 1
    assert plan.step(STEP_MEMORY).detail["push"]["decided_by"] == "tier"
    blob = json.dumps(report)
    for content in [secret_words, "WAL journal", "wal.c", "A real reply", "earlier", "analyze"]:
        assert content not in blob
