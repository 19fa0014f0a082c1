"""Tier rules, per-tier policy, and turn planning (order of steps, gates, bad input)."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest

from prooftext.conversation import ContextItem, ItemKind, make_item
from prooftext.depth import (
    HISTORY_CAP,
    MAX_MESSAGE_BYTES,
    OUTPUT_BUDGET,
    Mode,
    Tier,
    classify,
    classify_detailed,
    plan_turn,
    policy_for,
    recall_signal,
    should_recall_memory,
    status_label,
)
from prooftext.depth.turn import STEP_CLASSIFY, STEP_MEMORY, STEP_RETRIEVAL, RetrievalResult
from prooftext.errors import (
    EmptyQueryError,
    LimitError,
    NotFoundError,
    RangeError,
    RequestError,
    UnknownNameError,
)
from prooftext.tokens import TokenCount


@pytest.mark.parametrize(
    "text",
    [
        "hi",
        "Hi",
        "HELLO",
        "hey!",
        "Good morning.",
        "good   morning",
        "thanks",
        "ok",
        "OK.",
        "test",
        "yes",
        "No!",
    ],
)
def test_whole_message_allowlist_is_surface(text: str) -> None:
    """Requirement: depth.surface.allowlist"""
    d = classify_detailed(text)
    assert d.tier is Tier.SURFACE and d.rule == "surface_allowlist"


@pytest.mark.parametrize(
    ("text", "signal"),
    [
        ("No, don't delete that", "not_in_allowlist"),
        ("hi there", "not_in_allowlist"),
        ("thanks!!", "not_in_allowlist"),
        ("ok?", "not_in_allowlist"),
        ("yes and no", "not_in_allowlist"),
        ("/help", "command"),
        ("remember", "memory_reference"),
        ("hello, what is it? and why?", "not_in_allowlist"),
        ("thank you", "not_in_allowlist"),
    ],
)
def test_never_surface_rules(text: str, signal: str) -> None:
    """Requirement: depth.surface.never"""
    d = classify_detailed(text)
    assert d.tier is not Tier.SURFACE
    assert signal in d.never_surface


@pytest.mark.parametrize(
    ("text", "kwargs", "reason"),
    [
        ("Think deeply about this", {}, "phrase:think deeply"),
        ("deep dive please", {}, "phrase:deep dive"),
        ("Analyse the logs", {}, "phrase:analyse"),
        ("compare A with B", {}, "phrase:compare"),
        ("make a plan", {}, "phrase:plan"),
        ("explain in   detail", {}, "phrase:in detail"),
        ("hi", {"has_attachment": True}, "attachment"),
        ("ok", {"active_files": 2}, "active_files:2"),
        (" ".join(["word"] * 60), {}, "long:60_words"),
        ("Why? How?", {}, "multi_part:2_questions"),
        ("Do these:\n1. one\n2. two", {}, "multi_part:2_list_items"),
    ],
)
def test_deep_triggers(text: str, kwargs: dict[str, object], reason: str) -> None:
    """Requirement: depth.deep.triggers"""
    d = classify_detailed(text, **kwargs)  # type: ignore[arg-type]
    assert d.tier is Tier.DEEP and reason in d.reasons


def test_deep_phrases_match_whole_words_only() -> None:
    assert classify("the planet is round") is Tier.STANDARD
    assert classify("What is a good name for the module") is Tier.STANDARD


def test_per_tier_policy_history_output_and_labels() -> None:
    """Requirement: depth.policy.tiers"""
    assert HISTORY_CAP == {Tier.SURFACE: 2, Tier.STANDARD: 8, Tier.DEEP: 20}
    assert OUTPUT_BUDGET == {Tier.SURFACE: 192, Tier.STANDARD: 1024, Tier.DEEP: 2048}
    for tier in Tier:
        assert status_label(Mode.SMART, tier) == f"Context: Smart · {tier.value.capitalize()}"
    surface = policy_for(Mode.SMART, Tier.SURFACE)
    assert not (surface.memory or surface.retrieval or surface.files or surface.summary)
    deep = policy_for(Mode.SMART, Tier.DEEP)
    assert deep.memory and deep.retrieval and deep.files and deep.summary
    quiet = policy_for(Mode.SMART, Tier.STANDARD, recall_signal("sounds good to me"))
    assert not quiet.memory and not quiet.retrieval and quiet.summary
    recall = policy_for(
        Mode.SMART, Tier.STANDARD, recall_signal("what did we decide last time about logging")
    )
    assert recall.memory and recall.retrieval
    minimal = policy_for(Mode.MINIMAL, None)
    assert not (minimal.memory or minimal.retrieval or minimal.files or minimal.summary)
    assert minimal.history_cap == 2


def test_recall_and_relevance_signals() -> None:
    assert recall_signal("do you remember my name").recall
    assert recall_signal("why does store/refresh.py skip files").relevance
    assert recall_signal("what is the ledger for in the pipeline budget stage").relevance
    assert not recall_signal("sounds good").passes


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
        "main", "Analyze the retrieval ladder", memory=rec.memory, retriever=rec.retrieve, on_step=rec.step
    )
    assert rec.events.index("step:classify:True") < rec.events.index("memory_called")
    assert rec.events.index("memory_called") < rec.events.index("retriever_called")
    assert plan.step(STEP_CLASSIFY).order == 0
    assert plan.step(STEP_MEMORY).order is not None and plan.step(STEP_MEMORY).order > 0


def test_standard_turn_without_a_signal_skips_searches_with_a_reason() -> None:
    rec = Recorder()
    plan = plan_turn("main", "sounds good to me", memory=rec.memory, retriever=rec.retrieve)
    assert plan.tier is Tier.STANDARD and rec.events == []
    assert "no recall or relevance signal" in plan.step(STEP_MEMORY).reason


def test_unavailable_or_failing_retrieval_is_recorded_never_silent() -> None:
    """Requirement: depth.retrieval.recorded"""
    plan = plan_turn("main", "Please analyze the store", retriever_unavailable_reason="no index at /x")
    step = plan.step(STEP_RETRIEVAL)
    assert not step.ran and step.reason == "unavailable: no index at /x"

    def broken(query: str, max_tokens: int) -> RetrievalResult | None:
        raise NotFoundError("index not built")

    failed = plan_turn("main", "Please analyze the store", retriever=broken).step(STEP_RETRIEVAL)
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

    plan = plan_turn("main", "Please analyze the store", retriever=retrieve, window_tokens=10000)
    assert seen == [(10000 - 2048) * 3000 // 10000]
    assert plan.counts["retrieval"] == 1 and plan.retrieval_trace == {"rounds": 1}
    assert "excerpt text" in plan.messages[0]["content"]
    assert plan.pipeline.ledger.is_chained()


def test_plan_dict_is_json_and_integers_only() -> None:
    plan = plan_turn(
        "main", "Compare the two ledgers", memory=lambda t: [make_item(ItemKind.MEMORY, "m", item_id="x")]
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
        plan_turn("main", text)
    assert exc.value.field == "text"
    with pytest.raises(EmptyQueryError):
        classify(text)


def test_a_one_megabyte_message_is_refused_before_work_but_classifies() -> None:
    """Requirement: depth.bad_input.huge"""
    big = "word " * 209_716  # just over 1 MB
    with pytest.raises(LimitError):
        plan_turn("main", big)
    assert classify(big) is Tier.DEEP
    ok = "a" * MAX_MESSAGE_BYTES
    assert plan_turn("main", ok, window_tokens=1_000_000).tier is Tier.STANDARD


def test_unknown_mode_bad_thread_and_tiny_window_are_clear_errors() -> None:
    with pytest.raises(UnknownNameError) as mode:
        plan_turn("main", "hi", mode="turbo")
    assert mode.value.field == "mode"
    with pytest.raises(RequestError) as thread:
        plan_turn("no spaces allowed", "hi")
    assert thread.value.field == "thread"
    with pytest.raises(RangeError):
        plan_turn("main", "Analyze it", window_tokens=1000)


def test_history_source_is_called_with_the_tier_limit() -> None:
    calls: list[tuple[str, int | None]] = []

    def source(thread: str, limit: int | None) -> list[ContextItem]:
        calls.append((thread, limit))
        return [make_item(ItemKind.ASSISTANT, "prior", item_id="p", thread=thread)]

    plan_turn("t1", "hi", history=source)
    plan_turn("t1", "what is the ledger for?", history=source)
    plan_turn("t1", "analyze it", history=source)
    plan_turn("t1", "hi", history=source, mode="full")
    assert calls == [("t1", 1), ("t1", 7), ("t1", 19), ("t1", None)]


def test_should_recall_memory_is_the_gate_alone() -> None:
    """Requirement: depth.gate.should_recall_memory"""
    assert not should_recall_memory("hi").recall
    assert should_recall_memory("what did we decide last time?").recall
    assert should_recall_memory("analyze the store").to_dict()["tier"] == "deep"
    assert should_recall_memory("hi", mode="full").recall
    assert not should_recall_memory("analyze everything", mode="minimal").recall


@pytest.mark.parametrize("bad", [2.5, "100", b"12", {"a.py": 1}])
def test_active_files_must_be_a_count_or_a_list_of_files(bad: object) -> None:
    with pytest.raises(RequestError) as caught:
        classify("hi", active_files=bad)  # type: ignore[arg-type]
    assert caught.value.code == "invalid_request" and caught.value.field == "active_files"
    with pytest.raises(RangeError) as negative:
        classify("hi", active_files=-1)
    assert negative.value.field == "active_files"
