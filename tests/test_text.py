"""The context framework's ASCII tokens and exact identifiers."""

from __future__ import annotations

from prooftext.text import ascii_tokens, identifiers


def test_tokens_lowercase_ascii_only_and_split_non_ascii_scalars() -> None:
    assert ascii_tokens("Charge_BUDGET v2") == {"charge", "budget", "v2"}
    assert ascii_tokens("Ärger über") == {"Ä", "rger", "ü", "ber"}
    assert ascii_tokens("...") == frozenset()


def test_identifiers_are_exact() -> None:
    assert identifiers("does charge() call allocate_budget?") >= {"charge", "allocate_budget"}
