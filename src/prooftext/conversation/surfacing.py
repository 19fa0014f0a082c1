"""The surfacing pre-pass: should we push something now, how much room is there, and what goes in.

Three pure functions. They only ever produce items for the caller to merge into the rest of the context
and hand to :meth:`Pipeline.run` unchanged: they never bypass the pipeline nor write its ledger.
``select`` returns items that are RANKED, not yet BUDGETED or PROTECTED: that happens in the pipeline.

The thresholds are round placeholders with no pilot behind them; every decision records them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from prooftext.conversation.health import ContextHealth
from prooftext.conversation.items import ContextItem
from prooftext.conversation.rank import BM25Ranker, Ranker, has_scorable_terms, score_milli
from prooftext.errors import EmptyQueryError, RangeError, RequestError
from prooftext.tokens import Counter, TokenCount, get_counter

HIGH_WINDOW_USAGE_BP = 7500
"""``should_surface`` fires when the window is at least 75 % full (placeholder, not tuned)."""

LOW_RELEVANT_RATIO_BP = 5000
"""``should_surface`` fires when at most 50 % of the context is relevant (placeholder, not tuned)."""

DEFAULT_BUDGET_RATIO = 0.15
"""Surfaced items may take 15 % of the window: deliberately conservative (unconditional injection
raised cost without a task-success gain in Gloaguen et al., arXiv:2602.11988)."""

SELECT_ORDER = "scored candidates by score descending, then unscored in given order; greedy fit to the budget"

DROP_BUDGET = "budget"
"""A candidate left out because it did not fit what was left of the budget."""
DROP_UNSCORABLE_TASK = "unscorable_task"
"""Every candidate is left out for a task with no scorable terms (``ok???``): there is nothing to rank them
against, and keeping unscored candidates would hand such a message every record."""

TRIGGER_HIGH_WINDOW_USAGE = "high_window_usage"
TRIGGER_LOW_RELEVANT_RATIO = "low_relevant_ratio"


def thresholds() -> dict[str, int]:
    return {"high_window_usage_bp": HIGH_WINDOW_USAGE_BP, "low_relevant_ratio_bp": LOW_RELEVANT_RATIO_BP}


@dataclass(frozen=True)
class ContextTrigger:
    """Why now is the moment to push context: the reasons that fired and the measurements behind them."""

    reasons: tuple[str, ...]
    source: str
    window_usage_bp: int | None = None
    relevant_ratio_bp: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "reasons": list(self.reasons),
            "relevant_ratio_bp": self.relevant_ratio_bp,
            "source": self.source,
            "thresholds": thresholds(),
            "window_usage_bp": self.window_usage_bp,
        }


@dataclass(frozen=True)
class SurfaceCheck:
    """The outcome of :func:`should_surface`: a trigger, or ``None`` with the reason nothing fired."""

    trigger: ContextTrigger | None
    no_trigger_reason: str | None

    @property
    def fired(self) -> bool:
        return self.trigger is not None

    def to_dict(self) -> dict[str, Any]:
        return {
            "fired": self.fired,
            "no_trigger_reason": self.no_trigger_reason,
            "thresholds": thresholds(),
            "trigger": self.trigger.to_dict() if self.trigger else None,
        }


def should_surface(health: ContextHealth) -> SurfaceCheck:
    """Fire on high window usage (>= 75 %) or a low relevant ratio (<= 50 %); otherwise say why not."""
    reasons: list[str] = []
    if health.window_usage_bp >= HIGH_WINDOW_USAGE_BP:
        reasons.append(TRIGGER_HIGH_WINDOW_USAGE)
    if health.relevant_ratio_bp is not None and health.relevant_ratio_bp <= LOW_RELEVANT_RATIO_BP:
        reasons.append(TRIGGER_LOW_RELEVANT_RATIO)
    if reasons:
        trigger = ContextTrigger(
            reasons=tuple(reasons),
            source="health",
            window_usage_bp=health.window_usage_bp,
            relevant_ratio_bp=health.relevant_ratio_bp,
        )
        return SurfaceCheck(trigger, None)
    why = [f"window usage {health.window_usage_bp} bp < {HIGH_WINDOW_USAGE_BP} bp"]
    if health.relevant_ratio_bp is None:
        why.append(f"relevant ratio not measured ({health.unmeasured_reason})")
    else:
        why.append(f"relevant ratio {health.relevant_ratio_bp} bp > {LOW_RELEVANT_RATIO_BP} bp")
    return SurfaceCheck(None, "; ".join(why))


@dataclass(frozen=True)
class BudgetPlan:
    """How many tokens surfaced items may take; the basis is never omitted."""

    budget: TokenCount
    ratio_bp: int
    window: TokenCount
    remaining: TokenCount
    capped_by_remaining: bool

    @property
    def basis(self) -> str:
        return self.budget.basis

    def to_dict(self) -> dict[str, Any]:
        return {
            "budget": self.budget.to_dict(),
            "capped_by_remaining": self.capped_by_remaining,
            "default_ratio_bp": round(DEFAULT_BUDGET_RATIO * 10000),
            "ratio_bp": self.ratio_bp,
            "remaining": self.remaining.to_dict(),
            "window": self.window.to_dict(),
        }


def plan_budget(counter: Counter, health: ContextHealth, ratio: float = DEFAULT_BUDGET_RATIO) -> BudgetPlan:
    """``ratio`` of the window, capped by what is left of it, in ``counter``'s basis."""
    if isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or not 0 < ratio <= 1:
        raise RangeError("ratio must be in (0, 1]", field="ratio")
    if counter.basis != health.basis:
        raise RequestError(
            f"counter basis {counter.basis!r} differs from the health basis {health.basis!r}", field="counter"
        )
    ratio_bp = round(ratio * 10000)
    share = health.window.count * ratio_bp // 10000
    remaining = max(0, health.window.count - health.used.count)
    budget = min(share, remaining)
    return BudgetPlan(
        budget=TokenCount(budget, counter.basis),
        ratio_bp=ratio_bp,
        window=health.window,
        remaining=TokenCount(remaining, counter.basis),
        capped_by_remaining=remaining < share,
    )


@dataclass(frozen=True)
class SelectDrop:
    item_id: str
    reason: str
    tokens: TokenCount
    rank_score_milli: int | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "item_id": self.item_id,
            "rank_score_milli": self.rank_score_milli,
            "reason": self.reason,
            "tokens": self.tokens.to_dict(),
        }


@dataclass(frozen=True)
class SurfaceDecision:
    """What ``select`` kept (ranked, not yet budgeted by the pipeline), what it left out and why."""

    items: tuple[ContextItem, ...]
    dropped: tuple[SelectDrop, ...]
    scores: dict[str, float | None]
    plan: BudgetPlan
    trigger: ContextTrigger | None
    ranker: str
    used: TokenCount
    unscored_kept: int = 0
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        return {
            "dropped": [d.to_dict() for d in self.dropped],
            "kept": [
                {"item_id": i.item_id, "rank_score_milli": score_milli(self.scores.get(i.item_id))}
                for i in self.items
            ],
            "order": SELECT_ORDER,
            "plan": self.plan.to_dict(),
            "ranker": self.ranker,
            "trigger": self.trigger.to_dict() if self.trigger else None,
            "unscored_kept": self.unscored_kept,
            "used": self.used.to_dict(),
        }


def select(
    candidates: Sequence[ContextItem],
    task: str,
    plan: BudgetPlan,
    ranker: Ranker | None = None,
    trigger: ContextTrigger | None = None,
) -> SurfaceDecision:
    """Rank ``candidates`` against ``task`` and keep, greedily in rank order, what fits ``plan.budget``.

    An empty task is refused (it would score everything zero and collapse the drop order). A candidate the
    ranker cannot score is never dropped for that reason: it follows the scored ones and is kept if it fits.
    A task with no scorable terms (:func:`has_scorable_terms`) keeps nothing: each candidate is dropped as
    ``unscorable_task``.
    """
    if not isinstance(task, str) or not task.strip():
        raise EmptyQueryError("select needs a non-empty task to rank candidates against", field="task")
    rk = ranker if ranker is not None else BM25Ranker()
    counter: Counter | None = None
    sizes: list[int] = []
    for cand in candidates:
        if cand.tokens is not None and cand.tokens.basis == plan.basis:
            sizes.append(cand.tokens.count)
        else:
            counter = counter or get_counter(plan.basis)
            sizes.append(counter.count(cand.text))
    if not has_scorable_terms(task):
        refused = tuple(
            SelectDrop(c.item_id, DROP_UNSCORABLE_TASK, TokenCount(n, plan.basis), None)
            for c, n in zip(candidates, sizes, strict=True)
        )
        return SurfaceDecision((), refused, {}, plan, trigger, rk.name, TokenCount(0, plan.basis))
    raw = rk.score(task, [c.text for c in candidates]) if candidates else []
    scores = {c.item_id: s for c, s in zip(candidates, raw, strict=True)}
    order = sorted(
        range(len(candidates)),
        key=lambda i: (0, -(raw[i] or 0.0), i) if raw[i] is not None else (1, 0.0, i),
    )
    kept: list[int] = []
    dropped: list[SelectDrop] = []
    used = 0
    for i in order:
        cand = candidates[i]
        if used + sizes[i] <= plan.budget.count:
            kept.append(i)
            used += sizes[i]
        else:
            dropped.append(
                SelectDrop(cand.item_id, DROP_BUDGET, TokenCount(sizes[i], plan.basis), score_milli(raw[i]))
            )
    return SurfaceDecision(
        items=tuple(candidates[i] for i in kept),
        dropped=tuple(dropped),
        scores=scores,
        plan=plan,
        trigger=trigger,
        ranker=rk.name,
        used=TokenCount(used, plan.basis),
        unscored_kept=sum(1 for i in kept if raw[i] is None),
    )
