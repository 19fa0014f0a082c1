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


def _old_may_match(rule: secrets.Rule, text: str, folded: str) -> bool:
    literal = secrets._TRIGGERS.get(rule.id)
    if literal is not None:
        return any(t in text for t in literal)
    lowered = secrets._FOLDED_TRIGGERS.get(rule.id)
    return lowered is None or any(t in folded for t in lowered)


def test_triggers_looked_for_once_per_text_decide_each_rule_as_before() -> None:
    rng = random.Random(7)
    fragments = [*secrets._ALL_TRIGGERS, *(t.upper() for t in secrets._ALL_FOLDED_TRIGGERS), " ", "x", "\n"]
    texts = [
        "".join(rng.choice(fragments) for _ in range(rng.randint(0, 6)))
        + "".join(rng.choice(ALPHABET) for _ in range(5))
        for _ in range(1500)
    ]
    for text in [*texts, *_texts()]:
        folded = secrets.fold(text)
        present = secrets._present(text, folded)
        may = secrets._may_match_ids(present)
        for rule in secrets.RULES:
            assert (rule.id in may) == _old_may_match(rule, text, folded), (rule.id, text)
