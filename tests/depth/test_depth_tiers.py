"""Tier rules and per-tier policy."""

from __future__ import annotations

import pytest

from prooftext.depth import (
    HISTORY_CAP,
    OUTPUT_BUDGET,
    Mode,
    Tier,
    classify,
    classify_detailed,
    policy_for,
    recall_signal,
    should_recall_memory,
    status_label,
)
from prooftext.errors import (
    RangeError,
    RequestError,
)


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
