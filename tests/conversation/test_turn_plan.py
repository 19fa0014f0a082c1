"""Turn planning: the order of steps, the gates on memory and retrieval, the plan's record, bad input."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest

from prooftext.conversation.items import ContextItem, ItemKind, make_item
from prooftext.conversation.turn import (
    MAX_MESSAGE_BYTES,
    STEP_CLASSIFY,
    STEP_MEMORY,
    STEP_RETRIEVAL,
    RetrievalResult,
    TurnRequest,
    TurnSources,
    plan_turn,
)
from prooftext.depth import Tier, classify
from prooftext.errors import (
    EmptyQueryError,
    LimitError,
    NotFoundError,
    RangeError,
    RequestError,
    UnknownNameError,
)
from prooftext.tokens import TokenCount

from .helpers import alternating


class Recorder:
    def __init__(self) -> None:
        self.events: list[str] = []

    def step(self, name: str, ran: bool) -> None:
        self.events.append(f"step:{name}:{ran}")

    def memory(self, task: str) -> Sequence[ContextItem]:
        self.events.append("memory_called")
        return []

    def retrieve(self, query: str, max_tokens: int) -> RetrievalResult | None:
        self.events.append("retriever_called")
        return None


def test_classification_happens_before_any_memory_search_or_retrieval() -> None:
    """Requirement: depth.order.classify_first"""
    rec = Recorder()
    plan = plan_turn(
        TurnRequest("main", "Analyze the retrieval ladder"),
        TurnSources(memory=rec.memory, retriever=rec.retrieve),
        on_step=rec.step,
    )
    assert rec.events.index("step:classify:True") < rec.events.index("memory_called")
    assert rec.events.index("memory_called") < rec.events.index("retriever_called")
    assert plan.step(STEP_CLASSIFY).order == 0
    assert plan.step(STEP_MEMORY).order is not None and plan.step(STEP_MEMORY).order > 0


def test_standard_turn_without_a_signal_skips_searches_with_a_reason() -> None:
    rec = Recorder()
    plan = plan_turn(
        TurnRequest("main", "sounds good to me"), TurnSources(memory=rec.memory, retriever=rec.retrieve)
    )
    assert plan.tier is Tier.STANDARD and rec.events == []
    assert "no recall signal" in plan.step(STEP_MEMORY).reason


def test_unavailable_or_failing_retrieval_is_recorded_never_silent() -> None:
    """Requirement: depth.retrieval.recorded"""
    plan = plan_turn(
        TurnRequest("main", "Please analyze the store"),
        TurnSources(retriever_unavailable_reason="no index at /x"),
    )
    step = plan.step(STEP_RETRIEVAL)
    assert not step.ran and step.reason == "unavailable: no index at /x"

    def broken(query: str, max_tokens: int) -> RetrievalResult | None:
        raise NotFoundError("index not built")

    failed = plan_turn(TurnRequest("main", "Please analyze the store"), TurnSources(retriever=broken)).step(
        STEP_RETRIEVAL
    )
    assert (
        not failed.ran
        and failed.reason == "failed: not_found"
        and failed.detail["error"]["code"] == "not_found"
    )


def test_retrieval_is_budgeted_and_merged_through_the_pipeline() -> None:
    seen: list[int] = []

    def retrieve(query: str, max_tokens: int) -> RetrievalResult:
        seen.append(max_tokens)
        return RetrievalResult("excerpt text", TokenCount(2, "o200k_base"), {"rounds": 1})

    plan = plan_turn(
        TurnRequest("main", "Please analyze the store", window_tokens=10000), TurnSources(retriever=retrieve)
    )
    assert seen == [(10000 - 2048) * 3000 // 10000]
    assert plan.counts["retrieval"] == 1 and plan.retrieval_trace == {"rounds": 1}
    assert "excerpt text" in plan.messages[0]["content"]
    assert plan.pipeline.ledger.is_chained()


def test_a_turn_with_no_retrieval_budget_left_skips_retrieval_without_calling_the_retriever() -> None:
    rec = Recorder()
    history = alternating(["store layout " * 1000] * 4, "msg:{}")
    plan = plan_turn(
        TurnRequest("main", "Please analyze the store"), TurnSources(history=history, retriever=rec.retrieve)
    )
    step = plan.step(STEP_RETRIEVAL)
    assert not step.ran and step.reason == "skipped: no retrieval budget left"
    assert step.detail["budget"]["count"] == 0 and "retriever_called" not in rec.events


def test_a_retriever_that_declines_the_budget_is_recorded_as_skipped_with_its_reason() -> None:
    def decline(query: str, max_tokens: int) -> RetrievalResult:
        return RetrievalResult("", TokenCount(0, "o200k_base"), skipped=f"{max_tokens} is too small")

    plan = plan_turn(TurnRequest("main", "Please analyze the store"), TurnSources(retriever=decline))
    step = plan.step(STEP_RETRIEVAL)
    assert not step.ran and step.reason == f"skipped: {step.detail['budget']['count']} is too small"
    assert plan.counts["retrieval"] == 0 and plan.retrieval_trace is None


def test_a_block_quoting_no_evidence_is_no_evidence_and_stays_out_of_the_prompt() -> None:
    def empty_packet(query: str, max_tokens: int) -> RetrievalResult:
        block = "# Context packet\n\n## Query\n\nanalyze the store\n\n## Evidence\n"
        return RetrievalResult(block, TokenCount(14, "o200k_base"), {"rounds": 1}, evidence=0)

    plan = plan_turn(TurnRequest("main", "Please analyze the store"), TurnSources(retriever=empty_packet))
    step = plan.step(STEP_RETRIEVAL)
    assert step.ran and step.reason == "retriever returned no evidence"
    assert plan.counts["retrieval"] == 0 and plan.retrieval_trace is None
    assert "## Evidence" not in plan.messages[0]["content"]


def test_plan_dict_is_json_and_integers_only() -> None:
    plan = plan_turn(
        TurnRequest("main", "Compare the two ledgers"),
        TurnSources(memory=lambda t: [make_item(ItemKind.MEMORY, "m", item_id="x")]),
    )
    data = plan.to_dict()
    text = json.dumps(data)
    assert "Context: Smart · Deep" in json.loads(text)["status_label"]

    def no_floats(v: object) -> None:
        assert not isinstance(v, float)
        if isinstance(v, dict):
            for x in v.values():
                no_floats(x)
        elif isinstance(v, list):
            for x in v:
                no_floats(x)

    no_floats(data)
    assert data["ledger"]["chained"] is True


@pytest.mark.parametrize("text", ["", "   \n\t "])
def test_empty_or_whitespace_message_is_refused(text: str) -> None:
    """Requirement: depth.bad_input.empty"""
    with pytest.raises(EmptyQueryError) as exc:
        plan_turn(TurnRequest("main", text))
    assert exc.value.field == "text"
    with pytest.raises(EmptyQueryError):
        classify(text)


def test_a_one_megabyte_message_is_refused_before_work_but_classifies() -> None:
    """Requirement: depth.bad_input.huge"""
    big = "word " * 209_716  # just over 1 MB
    with pytest.raises(LimitError):
        plan_turn(TurnRequest("main", big))
    assert classify(big) is Tier.DEEP
    ok = "a" * MAX_MESSAGE_BYTES
    assert plan_turn(TurnRequest("main", ok, window_tokens=1_000_000)).tier is Tier.STANDARD


def test_unknown_mode_bad_thread_and_tiny_window_are_clear_errors() -> None:
    with pytest.raises(UnknownNameError) as mode:
        plan_turn(TurnRequest("main", "hi", mode="turbo"))
    assert mode.value.field == "mode"
    with pytest.raises(RequestError) as thread:
        plan_turn(TurnRequest("no spaces allowed", "hi"))
    assert thread.value.field == "thread"
    with pytest.raises(RangeError):
        plan_turn(TurnRequest("main", "Analyze it", window_tokens=1000))


def test_history_source_is_called_with_the_tier_limit() -> None:
    calls: list[tuple[str, int | None]] = []

    def source(thread: str, limit: int | None) -> list[ContextItem]:
        calls.append((thread, limit))
        return [make_item(ItemKind.ASSISTANT, "prior", item_id="p", thread=thread)]

    plan_turn(TurnRequest("t1", "hi"), TurnSources(history=source))
    plan_turn(TurnRequest("t1", "what is the ledger for?"), TurnSources(history=source))
    plan_turn(TurnRequest("t1", "analyze it"), TurnSources(history=source))
    plan_turn(TurnRequest("t1", "hi", mode="full"), TurnSources(history=source))
    assert calls == [("t1", 1), ("t1", 7), ("t1", 19), ("t1", None)]


@pytest.mark.parametrize(
    ("text", "tier", "past"),
    [("ok", Tier.SURFACE, 1), ("and the caches too", Tier.STANDARD, 7), ("deep dive on it", Tier.DEEP, 19)],
)
def test_a_transcript_of_repeated_identical_replies_keeps_every_turn_of_its_cap(
    text: str, tier: Tier, past: int
) -> None:
    """Requirement: conversation.dedup.transcript_kept"""
    history = alternating(["delete the old logs" if i % 4 == 0 else "Done." for i in range(30)], "msg:{}")
    plan = plan_turn(TurnRequest("main", text, window_tokens=32768), TurnSources(history=history))
    assert plan.tier is tier
    assert plan.counts["history"] == past
    sent = [m["content"] for m in plan.messages if m["role"] in ("user", "assistant")]
    assert sent[-1] == text and len(sent) == past + 1
    assert sent[:-1] == [i.text for i in history[-past:]]
    assert [d for d in plan.pipeline.drops if d.stage == "dedup"] == []


@pytest.mark.parametrize("identity", ["", "  \n\t "])
def test_an_empty_or_whitespace_identity_is_refused_as_a_sent_turn_refuses_it(identity: str) -> None:
    with pytest.raises(RequestError) as exc:
        plan_turn(TurnRequest("main", "hi", identity=identity))
    assert exc.value.code == "invalid_request" and exc.value.field == "identity"


def test_an_identity_with_a_control_character_is_refused_before_it_reaches_a_prompt() -> None:
    """A dry run keeps no identity, so the memory store's check never saw it: a terminal escape reached
    the planned system message."""
    with pytest.raises(RequestError) as exc:
        plan_turn(TurnRequest("main", "hi", identity="You are \x1b]0;owned\x07calm."))
    assert exc.value.field == "identity" and "control" in str(exc.value)
