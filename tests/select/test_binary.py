"""The one binary score: 16/8/4/1 for a query token's presence in title, labels, path and content."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from prooftext.select import rank
from prooftext.select.binary import BINARY_WEIGHTS, binary_score
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


@given(st.text(max_size=40), st.lists(st.text(max_size=40), min_size=4, max_size=4))
def test_the_packet_rankings_tie_break_gives_the_same_tokens_and_score(query: str, fields: list[str]) -> None:
    """The packet ranking's own copies (``seed_tokens`` and its weights) agree with these on any text."""
    assert rank.seed_tokens(query) == ascii_tokens(query)
    weights = (rank.BINARY_TITLE, rank.BINARY_LABELS, rank.BINARY_PATH, rank.BINARY_CONTENT)
    assert weights == BINARY_WEIGHTS
    terms, tokens = rank.seed_tokens(query), [rank.seed_tokens(f) for f in fields]
    assert binary_score(terms, tokens) == sum(
        w * len(terms & t) for w, t in zip(weights, tokens, strict=True)
    )
