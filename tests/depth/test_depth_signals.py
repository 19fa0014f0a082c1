"""Recall signals over long messages: the same answers as the plain patterns, in linear time."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prooftext.depth import Tier, classify, names_in, recall_signal
from prooftext.depth.signals import _when_before, memory_reference
from prooftext.depth.smalltalk import vocabulary
from prooftext.text import STOPWORDS_V1

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


SENTENCE_END = re.compile(r"[.!?:;\n\"“”(]\s*$|^\s*$")
"""Only white space before a word, or a sentence mark then white space (quadratic over many words)."""

NAME_PIECES = st.sampled_from(
    ["Paris", "Caroline", "the", "Ab", "met", ".", "!", "?", ":", ";", "(", '"', "“", "”", "\n", " ", "\t",
     "\u00a0", "\u2028", "x", "'", ","]
)  # fmt: skip


@PROPERTY
@given(st.lists(NAME_PIECES, max_size=14).map("".join))
def test_names_are_the_capitalized_words_that_do_not_open_a_sentence(text: str) -> None:
    capitalized = re.compile(r"(?<![\w'’])([A-Z][A-Za-z0-9'’-]*[A-Za-z0-9])")
    words = {
        m.group(1).replace("’", "'").split("'")[0].lower()
        for m in capitalized.finditer(text)
        if not SENTENCE_END.search(text[: m.start()])
    }
    expected = {w for w in words if len(w) >= 3 and w not in STOPWORDS_V1 and w not in vocabulary()}
    assert names_in([text]) == expected


def test_names_in_a_64_kib_text_of_capitalized_words_are_found() -> None:
    text = ("Ab Cde " * 10_000)[:65_536]
    assert names_in([text]) == {"cde"}


class _CountingText(str):
    """A text that counts the characters read out of it by index or slice."""

    read = 0

    def __getitem__(self, index: object) -> str:  # type: ignore[override]
        piece = super().__getitem__(index)  # type: ignore[index]
        type(self).read += len(piece)
        return piece


def test_looking_for_names_reads_each_character_a_bounded_number_of_times() -> None:
    text = _CountingText("Ab Cde " * 500)
    _CountingText.read = 0
    assert names_in([text]) == {"cde"}
    assert _CountingText.read <= 4 * len(text)
