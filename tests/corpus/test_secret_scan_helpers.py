"""The secret scan's text helpers give what their plain definitions give, on any text."""

from __future__ import annotations

import random

from prooftext.corpus import secrets

ALPHABET = "aZ\nQ é\u0130\u212a\ud800xY\n\n\t\u00df\U0001f600K"


def _texts() -> list[str]:
    rng = random.Random(31)
    fixed = ["", "\n", "\n\n", "abc", "abc\n", "ABC\ndef\n\nGHI", "İstanbul KELVIN \u212a ß"]
    return fixed + ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 60))) for _ in range(2000)]


def _plain_starts(text: str) -> list[int]:
    return [0] + [i + 1 for i, char in enumerate(text) if char == "\n"]


def test_line_starts_are_the_offsets_after_each_newline() -> None:
    for text in _texts():
        assert secrets._line_starts(text) == _plain_starts(text)


def test_fold_lowercases_ascii_letters_only_and_keeps_every_offset() -> None:
    for text in _texts():
        folded = secrets.fold(text)
        assert folded == text.translate(secrets._ASCII_LOWER)
        assert len(folded) == len(text)
