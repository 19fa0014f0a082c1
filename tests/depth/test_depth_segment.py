"""Splitting a message into small-talk forms: the same split as matching every span against each kind's
regular expression, in time linear in the message."""

from __future__ import annotations

import re
from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from prooftext.depth import Tier, classify_detailed
from prooftext.depth.smalltalk import FILLERS, FORMS, SHARED, Segment, segment, vocabulary

PROPERTY = settings(max_examples=300, deadline=None, derandomize=True)


def _form_regex(form: str) -> str:
    """A form as a regular expression: each word followed by one space, ``[…]`` optional, ``(a|b)`` a
    choice, ``{name}`` the shared list's text."""
    text = form
    while "{" in text:
        text = re.sub(r"\{([a-z]+)\}", lambda m: SHARED[m.group(1)], text)
    tokens = re.findall(r"\[|\]|\(|\)|\||\{[a-z]+\}|[^\s\[\]()|{}]+", text)
    pos = 0

    def alternatives(closer: str | None) -> str:
        nonlocal pos
        options = [""]
        while pos < len(tokens):
            tok = tokens[pos]
            pos += 1
            if tok == closer:
                break
            if tok == "|":
                options.append("")
            elif tok in ("(", "["):
                options[-1] += alternatives(")" if tok == "(" else "]") + ("?" if tok == "[" else "")
            else:
                options[-1] += re.escape(tok) + " "
        return "(?:" + "|".join(options) + ")"

    return alternatives(None)


@cache
def _kind_patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    kinds = [*FORMS.items(), ("filler", FILLERS)]
    return tuple((kind, re.compile("|".join(_form_regex(f) for f in forms))) for kind, forms in kinds)


def reference_segment(words: tuple[str, ...]) -> tuple[Segment, ...] | None:
    """Every span against every kind, longest suffix first: quadratic, and plainly right."""
    n = len(words)
    if n == 0:
        return None
    best: list[tuple[int, tuple[Segment, ...]] | None] = [None] * (n + 1)
    best[n] = (0, ())
    for start in range(n - 1, -1, -1):
        for end in range(start + 1, n + 1):
            rest = best[end]
            if rest is None:
                continue
            piece = " ".join(words[start:end]) + " "
            for kind, pattern in _kind_patterns():
                if pattern.fullmatch(piece):
                    held = best[start]
                    if held is None or rest[0] + 1 < held[0]:
                        best[start] = (rest[0] + 1, (Segment(kind, piece.strip()), *rest[1]))
                    break
    found = best[0]
    return None if found is None else found[1]


def _phrases() -> list[str]:
    """Short messages of small talk and near misses, to draw pieces from."""
    return [
        "hi", "hello there", "how are you doing today", "thanks so much", "thank you for your help",
        "good morning", "bye", "see you later", "ok", "got it", "yes please", "no thanks", "thats correct",
        "thats not right", "sorry", "my bad", "testing 1 2 3", "well", "oh", "and", "hey hey", "hi hi",
        "nice talking to you", "have a great day", "i really appreciate your help", "check the logs",
        "that is a true statement", "thats a really true statement", "hi hi hi", "hey hey hey hey", "that is a", "you are", "how", "are", "you", "the", "deploy",
    ]  # fmt: skip


WORD = st.sampled_from(sorted(vocabulary())) | st.sampled_from(["logs", "deploy", "x", "", "hi there", " hi"])
PHRASES = st.lists(st.sampled_from(_phrases()), min_size=1, max_size=8).map(
    lambda ps: tuple(" ".join(ps).split())
)


@PROPERTY
@given(st.lists(WORD, max_size=12).map(tuple))
def test_segment_splits_random_words_as_the_reference_does(words: tuple[str, ...]) -> None:
    assert segment(words) == reference_segment(words)


@PROPERTY
@given(PHRASES)
def test_segment_splits_runs_of_small_talk_as_the_reference_does(words: tuple[str, ...]) -> None:
    assert segment(words) == reference_segment(words)


def test_segment_splits_every_example_form_as_the_reference_does() -> None:
    for phrase in _phrases():
        words = tuple(phrase.split())
        assert segment(words) == reference_segment(words), phrase


def test_of_equally_short_splits_the_one_with_the_shorter_first_differing_piece_wins() -> None:
    found = segment(("hi", "hi", "hi"))
    assert found == reference_segment(("hi", "hi", "hi"))
    assert found == (Segment("greeting", "hi"), Segment("greeting", "hi hi"))


class _CountingWords(tuple[str, ...]):
    """Words that count how often they are read."""

    reads = 0

    def __getitem__(self, index: object) -> object:  # type: ignore[override]
        type(self).reads += 1
        return super().__getitem__(index)  # type: ignore[index]


def test_segment_reads_each_word_a_bounded_number_of_times() -> None:
    words = _CountingWords(["hi", "there"] * 250)
    _CountingWords.reads = 0
    found = segment(words)
    assert found is not None and len(found) == 250
    assert _CountingWords.reads <= 64 * len(words)


def test_a_64_kib_message_of_small_talk_segments() -> None:
    words = ("hi",) * 16_384 + ("thanks", "bye")
    found = segment(words)
    assert found is not None
    assert [p.kind for p in found[-3:]] == ["greeting", "thanks", "goodbye"]
    assert segment(("hi",) * 16_384 + ("deploy",)) is None


def test_a_64_kib_message_of_waving_hands_is_classified() -> None:
    text = "\N{WAVING HAND SIGN}" * 16_384
    assert len(text.encode()) == 65_536
    assert classify_detailed(text).tier in set(Tier)
