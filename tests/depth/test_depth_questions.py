"""Multi-part questions are counted in questions, not in question marks."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prooftext.depth import Tier, classify, classify_detailed
from prooftext.depth.signals import _is_question
from prooftext.depth.tiers import question_count

PROPERTY = settings(max_examples=150, deadline=None, derandomize=True)

MARK_RUNS = st.text(st.sampled_from("?!"), min_size=1, max_size=6).filter(lambda run: "?" in run)


@pytest.mark.parametrize(
    ("text", "questions"),
    [
        ("hi??", 1),
        ("ok???", 1),
        ("really?!?", 1),
        ("what? why?", 2),
        ("How does X work? And where is Y defined?", 2),
        ("what?!?! why??", 2),
        ("what? ??", 1),
        ("hi!!!", 0),
        ("hi!! ok?", 1),
        ("no question here", 0),
        ("why\uff1f how\uff1f", 2),
        ("(is it?) and (why?)", 2),
        ("see https://example.org/search?q=1 and https://example.org/find?id=2", 0),
        ("is `a?.b` safe here?", 1),
        ("use `x = a ? b : c` or `y = d ? e : f` here", 0),
        ("```\na ? b : c\nd ? e : f\n```\nthat is all", 0),
        ("see [what?](x.md) and [why?](y.md)", 0),
        ("is `a?` right? and why?", 2),
        ("\u00bfQu\u00e9 hora es?\u00bfY ma\u00f1ana?", 2),
        ("\u00bfSeguro?\u00a1Vamos!", 1),
        ("\u0645\u0627 \u0647\u0630\u0627\u061f \u0648\u0644\u0645\u0627\u0630\u0627\u061f", 2),
    ],
)
def test_a_run_of_question_marks_ends_one_question(text: str, questions: int) -> None:
    assert question_count(text) == questions


@pytest.mark.parametrize("text", ["hi??", "ok???", "Hello?!", "thanks!?!", "how are you??"])
def test_small_talk_with_repeated_question_marks_is_still_surface(text: str) -> None:
    d = classify_detailed(text)
    assert d.tier is Tier.SURFACE and "multi_part" not in d.never_surface


def test_one_question_with_emphatic_marks_is_not_a_multi_part_prompt() -> None:
    d = classify_detailed("really?!?")
    assert d.tier is Tier.STANDARD
    assert "multi_part" not in d.never_surface
    assert not any(r.startswith("multi_part") for r in d.reasons)


@pytest.mark.parametrize(
    "text", ["what? why?", "How does X work? And where is Y defined?", "hello, how are you? and why?"]
)
def test_two_questions_are_a_multi_part_prompt_and_deep(text: str) -> None:
    d = classify_detailed(text)
    assert d.tier is Tier.DEEP and "multi_part:2_questions" in d.reasons


@PROPERTY
@given(st.sampled_from(["hi", "hello", "hey", "thanks", "ok", "good morning", "yes", "no"]), MARK_RUNS)
def test_a_greeting_or_ack_ending_in_any_run_of_marks_is_surface(word: str, run: str) -> None:
    assert classify(word + run) is Tier.SURFACE


@PROPERTY
@given(st.lists(MARK_RUNS, min_size=1, max_size=6))
def test_each_clause_ending_in_a_run_of_marks_is_one_question(runs: list[str]) -> None:
    text = " ".join(f"why part{i}{run}" for i, run in enumerate(runs))
    assert question_count(text) == len(runs)
    assert (classify(text) is Tier.DEEP) == (len(runs) >= 2)


def test_two_links_with_query_strings_are_not_a_multi_part_prompt() -> None:
    d = classify_detailed("please look at https://example.org/a?x=1 and https://example.org/b?y=2")
    assert "multi_part" not in d.never_surface
    assert not any(r.startswith("multi_part") for r in d.reasons)


def test_a_question_mark_inside_a_link_does_not_make_a_message_a_question() -> None:
    assert not _is_question("Sharing https://example.org/search?q=1 for later")
    assert _is_question("Is https://example.org/search?q=1 still up?")


@pytest.mark.parametrize("unit", ["[", "[a](", "`", "```", "[a](b", "why? "])
def test_a_64_kib_message_of_brackets_backticks_or_questions_is_counted(unit: str) -> None:
    text = (unit * (65_536 // len(unit) + 1))[:65_536]
    assert question_count(text) == (text.count("? ") + text.endswith("?") if unit == "why? " else 0)
