"""Counting before tiktoken's encoder is built: the interpreted byte-pair merge gives the encoder's count for
every text it takes (checked exhaustively over short strings, over random text and over this repository's
sources), takes only the characters whose classes every engine agrees on, and hands the rest, long pieces
and long-running work to the encoder."""

from __future__ import annotations

import itertools
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prooftext import tokens

ENCODINGS = ("o200k_base", "cl100k_base")
SRC = Path(__file__).resolve().parent.parent / "src"
CLASS_SAMPLES = list("aZ09 \t\n\r\x0b\x0c\x1c\x1f\x00'\"-_.,;:/\\!?sdtlvemrAI")
"""One or more characters of every class the split patterns tell apart, and the contraction letters."""
NON_ASCII = [
    chr(code) for low, high in tokens._INTERPRETABLE_RANGES for code in range(max(low, 0x80), high + 1)
]


@cache
def _reference(name: str) -> object:
    return tokens._encoding(name, tokens.load_ranks(name))


def _encoder_count(name: str, text: str) -> int:
    return len(_reference(name).encode(text, disallowed_special=()))  # type: ignore[attr-defined]


@cache
def _interpreted(name: str) -> tokens.InterpretedBpe:
    return tokens.InterpretedBpe(tokens.load_ranks(name), tokens._SPECS[name])


def _differences(name: str, texts: list[str]) -> list[str]:
    interpreted = _interpreted(name)
    return [text for text in texts if interpreted.count(text) != _encoder_count(name, text)]


@pytest.mark.parametrize("name", ENCODINGS)
def test_every_pair_of_ascii_characters_counts_as_the_encoder_counts_it(name: str) -> None:
    pairs = ["".join(pair) for pair in itertools.product(map(chr, range(128)), repeat=2)]
    assert _differences(name, pairs) == []


@pytest.mark.parametrize("name", ENCODINGS)
def test_every_triple_of_character_classes_counts_as_the_encoder_counts_it(name: str) -> None:
    triples = ["".join(triple) for triple in itertools.product(CLASS_SAMPLES, repeat=3)]
    assert _differences(name, triples) == []


@pytest.mark.parametrize("name", ENCODINGS)
def test_every_interpretable_character_beside_each_class_counts_as_the_encoder_counts_it(name: str) -> None:
    texts = [
        text
        for char in NON_ASCII
        for text in (char, char * 3, *(char + s for s in CLASS_SAMPLES), *(s + char for s in CLASS_SAMPLES))
    ]
    assert _differences(name, texts) == []


CODE_LIKE = st.text(
    alphabet=st.sampled_from(CLASS_SAMPLES + NON_ASCII[:40] + ["“", "”", "—", "é", "→", "│", "ß"]),
    max_size=80,
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(CODE_LIKE, st.text(alphabet=st.sampled_from(NON_ASCII + CLASS_SAMPLES), max_size=40)))
def test_random_interpretable_text_counts_as_the_encoder_counts_it(text: str) -> None:
    assert tokens.interpretable(text)
    for name in ENCODINGS:
        assert _differences(name, [text]) == []


def test_this_repositorys_sources_count_as_the_encoder_counts_them() -> None:
    texts = [p.read_text(encoding="utf-8") for p in sorted(SRC.rglob("*.py"))]
    texts = [t for t in texts if tokens.interpretable(t)]
    assert len(texts) > 100
    for name in ENCODINGS:
        assert _differences(name, texts) == []


@pytest.mark.parametrize(
    "text", ["日本語のテキスト", "emoji 🙂", "lone \ud800 surrogate", "\u2065 unassigned", "Ελληνικά"]
)
def test_characters_outside_the_interpretable_ranges_go_to_the_encoder(text: str) -> None:
    assert not tokens.interpretable(text)


def _fresh(name: str = "o200k_base") -> tokens.TiktokenCounter:
    return tokens.TiktokenCounter(name, tokens.load_ranks(name))


def test_a_counter_that_sees_only_interpretable_text_never_builds_the_encoder() -> None:
    counter = _fresh()
    texts = [p.read_text(encoding="utf-8") for p in sorted((SRC / "prooftext" / "pack").glob("*.py"))]
    texts.append("def f():\n    return “quoted” → x\n")
    counts = [*counter.count_many(texts[:-1]), counter.count(texts[-1])]
    assert not counter.encoder_built
    assert counts == [_encoder_count("o200k_base", t) for t in texts]


def test_a_text_outside_the_ranges_builds_the_encoder_and_counts_exactly() -> None:
    counter = _fresh()
    assert counter.count("日本語のテキスト") == _encoder_count("o200k_base", "日本語のテキスト")
    assert counter.encoder_built


def test_a_piece_too_long_to_merge_in_python_is_counted_by_the_encoder() -> None:
    counter = _fresh("cl100k_base")
    text = "x" * (tokens.MAX_INTERPRETED_PIECE_BYTES * 3 + 1)
    assert counter.count(text) == _encoder_count("cl100k_base", text)
    assert counter.encoder_built


def test_after_its_share_of_interpreted_text_a_process_builds_the_encoder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tokens, "INTERPRETED_COUNT_CHARS", 100)
    counter = _fresh()
    counter.count("a" * 60)
    assert not counter.encoder_built
    assert counter.count("b " * 30) == _encoder_count("o200k_base", "b " * 30)
    assert counter.encoder_built
