"""Context health: how full the window is and how much of the context is relevant to the task."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from prooftext.conversation.items import ContextItem
from prooftext.conversation.pipeline import find_current, is_critical
from prooftext.conversation.rank import BM25Ranker, Ranker, has_scorable_terms
from prooftext.errors import RangeError
from prooftext.tokens import Counter, TokenCount

RELEVANT_RULE = "critical items, and items the ranker scores above zero against the task"

UNSCORABLE_TASK = "the task has no scorable terms: relevance cannot be measured"
"""Why a task such as ``ok???`` has no relevant ratio: nothing can be relevant to it, so the ratio is not
measured (and the low-relevance trigger cannot fire on it)."""


@dataclass(frozen=True)
class ContextHealth:
    """Window usage and relevant ratio, in basis points (``None`` when it cannot be measured, with why)."""

    window: TokenCount
    used: TokenCount
    relevant: TokenCount
    items: int
    relevant_items: int
    window_usage_bp: int
    relevant_ratio_bp: int | None
    unmeasured_reason: str | None
    ranker: str

    @property
    def basis(self) -> str:
        return self.window.basis

    def to_dict(self) -> dict[str, Any]:
        return {
            "items": self.items,
            "ranker": self.ranker,
            "relevant": self.relevant.to_dict(),
            "relevant_items": self.relevant_items,
            "relevant_ratio_bp": self.relevant_ratio_bp,
            "relevant_rule": RELEVANT_RULE,
            "unmeasured_reason": self.unmeasured_reason,
            "used": self.used.to_dict(),
            "window": self.window.to_dict(),
            "window_usage_bp": self.window_usage_bp,
        }


MAX_WINDOW_TOKENS = 16_777_216
"""The largest context window a turn is planned for (16 Mi tokens, eight times the largest model window
offered today): its shares, such as the retrieval budget, stay within what a packet may hold."""


def check_window(window_tokens: object, field: str = "window_tokens") -> int:
    """A context window: a whole number of tokens from 1 to :data:`MAX_WINDOW_TOKENS`; the error names the
    caller's own ``field``."""
    if isinstance(window_tokens, bool) or not isinstance(window_tokens, int):
        raise RangeError(f"{field} must be a positive integer (tokens)", field=field)
    if not 0 < window_tokens <= MAX_WINDOW_TOKENS:
        raise RangeError(f"{field} must be between 1 and {MAX_WINDOW_TOKENS} tokens", field=field)
    return window_tokens


def compute_health(
    items: Sequence[ContextItem],
    task: str,
    counter: Counter,
    window_tokens: int,
    ranker: Ranker | None = None,
) -> ContextHealth:
    """Measure ``items`` against a context window of ``window_tokens`` (in ``counter``'s basis)."""
    check_window(window_tokens)
    rk = ranker if ranker is not None else BM25Ranker()
    counts = [
        i.tokens.count if i.tokens and i.tokens.basis == counter.basis else counter.count(i.text)
        for i in items
    ]
    used = sum(counts)
    current = find_current(items)
    reason: str | None = None
    relevant = 0
    relevant_items = 0
    ratio: int | None = None
    if not items:
        reason = "no items"
    elif not task.strip():
        reason = "empty task: relevance cannot be measured"
    elif not has_scorable_terms(task):
        reason = UNSCORABLE_TASK
    else:
        scores = rk.score(task, [i.text for i in items])
        for item, n, score in zip(items, counts, scores, strict=True):
            if is_critical(item, current) or (score is not None and score > 0.0):
                relevant += n
                relevant_items += 1
        ratio = relevant * 10000 // used if used else 10000
    return ContextHealth(
        window=TokenCount(window_tokens, counter.basis),
        used=TokenCount(used, counter.basis),
        relevant=TokenCount(relevant, counter.basis),
        items=len(items),
        relevant_items=relevant_items,
        window_usage_bp=used * 10000 // window_tokens,
        relevant_ratio_bp=ratio,
        unmeasured_reason=reason,
        ranker=rk.name,
    )
