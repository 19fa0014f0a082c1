"""Recall signals over long messages: the same answers as the plain patterns, in linear time."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prooftext.depth import Tier, classify, recall_signal
from prooftext.depth.signals import _when_before, memory_reference

PROPERTY = settings(max_examples=400, deadline=None, derandomize=True)

WHEN_BEFORE = re.compile(
    r"\b(?:yesterday|last\s+(?:week|night|month|year|time|session)|the\s+other\s+day|before|ago"
    r"|a\s+while\s+back)\b.*\b(?:we|i|you)\b|\b(?:we|i|you)\b.*\b(?:yesterday|last\s+(?:week|night"
    r"|month|year|session)|the\s+other\s+day|a\s+while\s+back|\w+\s+ago)\b",
    re.IGNORECASE,
)
"""A time in the past and a person on one line, in either order, as one pattern (quadratic on a long line)."""

PIECES = st.sampled_from(
    ["i", "We", "you", "your", "before", "ago", "Ago", "last", "week", "time", "the", "other", "day", "a",
     "while", "back", "yesterday", "x", "hi", "\n", ",", "'"]
)  # fmt: skip
SEPARATORS = st.sampled_from([" ", "  ", "\n", "", "\t", ", "])


@st.composite
def _lines(draw: st.DrawFn) -> str:
    pieces = draw(st.lists(PIECES, max_size=10))
    return "".join(p + draw(SEPARATORS) for p in pieces)


@PROPERTY
@given(_lines())
def test_a_past_time_and_a_person_on_one_line_are_found_as_the_pattern_finds_them(text: str) -> None:
    assert _when_before(text) == bool(WHEN_BEFORE.search(text))


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("we met yesterday", True),
        ("Yesterday you were here", True),
        ("a few days ago I was here", True),
        ("I was here a few days ago", True),
        ("last\nweek we met", True),
        ("yesterday\nwe met", False),
        ("we met\nyesterday", False),
        ("last week", False),
        ("I did it last time", False),
    ],
)
def test_earlier_talk_by_a_past_time_and_a_person(text: str, found: bool) -> None:
    assert _when_before(text) is found
    assert (memory_reference(text) == "earlier_talk:when_before") is found


@pytest.mark.parametrize("unit", ["i ", "ago ", "we ago x "])
def test_a_64_kib_message_of_people_or_past_times_is_classified(unit: str) -> None:
    text = (unit * (65_536 // len(unit) + 1))[:65_536]
    assert classify(text) in set(Tier)
    assert recall_signal(text).recall == bool(WHEN_BEFORE.search(text[:300]))
