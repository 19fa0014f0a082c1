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
from prooftext.depth.signals import retrieval_reasons
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
def test_whole_message_small_talk_is_surface(text: str) -> None:
    """Requirement: depth.surface.allowlist"""
    d = classify_detailed(text)
    assert d.tier is Tier.SURFACE and d.rule == "small_talk"


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        ("thank you", ["thanks"]),
        ("hello there", ["greeting"]),
        ("Hiii!!", ["greeting"]),
        ("thaaanks so much 🙏", ["thanks", "thanks"]),
        ("👍", ["ok"]),
        ("ok :)", ["ok"]),
        ("hey, how are you doing today?", ["greeting", "greeting"]),
        ("Thanks for your help, goodbye!", ["thanks", "thanks", "goodbye"]),
        ("well, nice talking to you. bye!", ["goodbye", "goodbye"]),
        ("yes please", ["yes"]),
        ("nope, that's wrong", ["no", "no"]),
        ("that's correct", ["yes"]),
        ("no thanks", ["no"]),
        ("sorry, my bad", ["courtesy", "courtesy"]),
        ("testing 1 2 3", ["test"]),
        ("I really apprecaite your help", ["thanks"]),
        ("Good Morning, AI", ["greeting"]),
    ],
)
def test_small_talk_in_any_spelling_is_surface_and_names_its_pieces(text: str, kinds: list[str]) -> None:
    d = classify_detailed(text)
    assert d.tier is Tier.SURFACE and d.rule == "small_talk"
    assert [p.kind for p in d.small_talk if p.kind != "filler"] == kinds


def test_normalization_steps_are_recorded() -> None:
    d = classify_detailed("Hiii 👋")
    assert d.normalized == "hi hi"
    assert "repeated_letters:hiii->hi" in d.normalization and "emoji:hi" in d.normalization
    assert classify_detailed("i apprecaite it").normalization == ("typo:apprecaite->appreciate",)


@pytest.mark.parametrize(
    ("text", "signal"),
    [
        ("No, don't delete that", "negation_with_command"),
        ("no, stop the deploy", "negation_with_command"),
        ("ok, delete it", "command"),
        ("yes, please run the tests", "command"),
        ("thanks! now send the report", "command"),
        ("yes and no", "yes_and_no"),
        ("/help", "command"),
        ("remember", "memory_reference"),
        ("hi, did I tell you about my dog?", "memory_reference"),
        ("thanks, like you said", "memory_reference"),
        ("hello, how are you? and why?", "multi_part"),
        ("thanks for `plan_turn`", "code_or_path"),
        ("ok see src/app.py", "code_or_path"),
        ("hi there, can you check the logs", "not_small_talk"),
        ("hello world program in rust", "not_small_talk"),
        ("thanks " * 30, "long"),
        ("ok. ok. ok. ok. ok. ok. ok.", "punctuation_heavy"),
        ("well", "not_small_talk"),
    ],
)
def test_never_surface_rules(text: str, signal: str) -> None:
    """Requirement: depth.surface.never"""
    d = classify_detailed(text)
    assert d.tier is not Tier.SURFACE
    assert signal in d.never_surface


@pytest.mark.parametrize(
    "text",
    [
        "What did Caroline research?",
        "When did Melanie paint a sunrise?",
        "how are session cookies signed?",
        "what's my name?",
        "Is it ok to delete the cache?",
        "good morning, where is the config loaded?",
        "thanks, but the test still fails",
        "no, the other file",
        "yes, the second option",
        "hi",
    ],
)
def test_questions_and_requests_are_never_small_talk_unless_whole(text: str) -> None:
    assert (classify(text) is Tier.SURFACE) == (text == "hi")


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


def test_a_long_run_of_words_and_hyphens_is_classified_in_linear_time() -> None:
    # A path-like name was looked for from each word of the run: minutes for a 64 KiB message.
    text = ("a-" * 32_768)[:65_535] + "é"
    assert classify(text) in set(Tier)
    assert retrieval_reasons(text) is not None
