"""The one binary score: 16/8/4/1 for a query token's presence in title, labels, path and content."""

from __future__ import annotations

from prooftext.select.binary import binary_score
from prooftext.text import ascii_tokens


def _score(query: frozenset[str], *fields: str) -> int:
    return binary_score(query, [ascii_tokens(text) for text in fields])


def test_binary_scores_ignore_term_frequency() -> None:
    query = ascii_tokens("budget charge")
    assert (
        _score(query, "charge", "symbol function python", "ledger/budget.py", "budget budget budget")
        == 16 + 4 + 1
    )
    assert _score(query, "x", "budget", "y", "") == 8
