"""The context pipeline: dedup → classify → rank → budget → place, with a chained token ledger.

``Pipeline.run`` is the only way items become a prompt. Each stage is a pure function from a list of items
(plus the annotations of earlier stages) to a new list; :meth:`Pipeline._stage` is the sole writer of the
ledger and measures ``tokens_before`` on exactly the list the previous stage returned, so every stage's
``tokens_before`` equals the previous stage's ``tokens_after``. Every dropped item carries a reason.

Invariants (tested): (1) critical retention: the current user turn is never dropped, and no other CRITICAL
item is dropped except by dedup as an exact copy of text that stays in the prompt; (2) ledger chaining, as
above; (3) every count carries its basis.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from prooftext.conversation.items import HISTORY_KINDS, ContextItem, ItemKind
from prooftext.conversation.rank import BM25Ranker, Ranker, score_milli
from prooftext.errors import RangeError, RequestError
from prooftext.tokens import Counter, TokenCount, get_counter


class Priority(StrEnum):
    CRITICAL = "critical"
    NORMAL = "normal"


CRITICAL_KINDS: frozenset[ItemKind] = frozenset({ItemKind.SYSTEM, ItemKind.IDENTITY, ItemKind.MEMORY})
"""Kinds protected unconditionally; the current user turn is protected too."""

STAGES: tuple[str, ...] = ("dedup", "classify", "rank", "budget", "place")

DEDUP_RULE = (
    "turns of the conversation (user, assistant and tool messages) are never deduplicated; among the other "
    "items, per content hash keep the current turn first, then a protected item, then the earliest"
)
"""Deduplication is for evidence that arrives twice from different sources, never for the turns of a
conversation: two identical replies (``Done.`` twice) both stay. A surfaced memory item duplicating a past turn
is kept beside it (ADR trap 2: the past turn may yet be dropped by the budget, the protected memory may not);
a memory record repeating the user's message never removes the message itself: the turn being answered
outranks it."""

DROP_ORDER = (
    "lowest rank score first (unscored lowest), then oldest position first; never critical; an item is dropped "
    "only when it does not fit beside the items kept ahead of it, so a smaller one after a dropped one may stay"
)
"""A block too large for the window never takes smaller items ranked below it with it."""
CURRENT_TURN_RULE = "the item marked current, else the last user item"

PLACE_SLOTS: dict[ItemKind, int] = {
    ItemKind.SYSTEM: 0,
    ItemKind.IDENTITY: 1,
    ItemKind.MEMORY: 2,
    ItemKind.RETRIEVAL: 3,
    ItemKind.FILE: 4,
    ItemKind.USER: 5,
    ItemKind.ASSISTANT: 5,
    ItemKind.TOOL: 5,
}
"""Placement order: core first, attached context next, history in time order, the current turn last."""

REASON_DUPLICATE = "duplicate"
REASON_BUDGET = "budget"


@dataclass(frozen=True)
class Drop:
    """An item a stage removed, and why."""

    item_id: str
    kind: str
    stage: str
    reason: str
    tokens: TokenCount
    detail: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "detail": dict(self.detail),
            "item_id": self.item_id,
            "kind": self.kind,
            "reason": self.reason,
            "stage": self.stage,
            "tokens": self.tokens.to_dict(),
        }


@dataclass(frozen=True)
class StageRecord:
    """One ledger row: what a stage was handed and what it returned, in one basis."""

    name: str
    ran: bool
    reason: str
    tokens_before: TokenCount
    tokens_after: TokenCount
    items_before: int
    items_after: int
    dropped: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "dropped": self.dropped,
            "items_after": self.items_after,
            "items_before": self.items_before,
            "name": self.name,
            "ran": self.ran,
            "reason": self.reason,
            "tokens_after": self.tokens_after.to_dict(),
            "tokens_before": self.tokens_before.to_dict(),
        }


@dataclass(frozen=True)
class Ledger:
    """The chained token ledger of one run."""

    basis: str
    tokens_in: TokenCount
    stages: tuple[StageRecord, ...]

    @property
    def tokens_out(self) -> TokenCount:
        return self.stages[-1].tokens_after if self.stages else self.tokens_in

    @property
    def reduction_ratio(self) -> float:
        """Share of the input tokens the pipeline removed (0.0 when the input was empty)."""
        if self.tokens_in.count == 0:
            return 0.0
        return 1.0 - self.tokens_out.count / self.tokens_in.count

    @property
    def reduction_bp(self) -> int:
        """``reduction_ratio`` in basis points (integers only in recorded output)."""
        if self.tokens_in.count == 0:
            return 0
        return (self.tokens_in.count - self.tokens_out.count) * 10000 // self.tokens_in.count

    def is_chained(self) -> bool:
        """True when each stage starts where the previous one ended, all in one basis."""
        prev = self.tokens_in
        for stage in self.stages:
            if stage.tokens_before != prev or stage.tokens_after.basis != self.basis:
                return False
            prev = stage.tokens_after
        return True

    def to_dict(self) -> dict[str, Any]:
        return {
            "basis": self.basis,
            "chained": self.is_chained(),
            "reduction_bp": self.reduction_bp,
            "stages": [s.to_dict() for s in self.stages],
            "tokens_in": self.tokens_in.to_dict(),
            "tokens_out": self.tokens_out.to_dict(),
        }


@dataclass(frozen=True)
class PipelineResult:
    """Placed items, the ledger, every drop with its reason, and the per-item annotations."""

    items: tuple[ContextItem, ...]
    ledger: Ledger
    drops: tuple[Drop, ...]
    priorities: dict[str, Priority]
    scores: dict[str, float | None]
    task: str
    budget: TokenCount | None
    budget_met: bool
    ranker: str
    current_item_id: str | None

    def to_dict(self, *, with_text: bool = False) -> dict[str, Any]:
        return {
            "budget": self.budget.to_dict() if self.budget else None,
            "budget_met": self.budget_met,
            "constants": {
                "critical_kinds": sorted(k.value for k in CRITICAL_KINDS),
                "current_turn_rule": CURRENT_TURN_RULE,
                "dedup_rule": DEDUP_RULE,
                "drop_order": DROP_ORDER,
            },
            "current_item_id": self.current_item_id,
            "drops": [d.to_dict() for d in self.drops],
            "items": [
                {
                    **i.to_dict(with_text=with_text),
                    "priority": self.priorities[i.item_id].value,
                    "rank_score_milli": score_milli(self.scores.get(i.item_id)),
                }
                for i in self.items
            ],
            "ledger": self.ledger.to_dict(),
            "ranker": self.ranker,
            "task_present": bool(self.task.strip()),
        }


@dataclass
class _State:
    """Annotations that stages add; the item list itself is passed and returned explicitly."""

    task: str
    budget: int | None
    current_id: str | None = None
    priorities: dict[str, Priority] = field(default_factory=dict)
    scores: dict[str, float | None] = field(default_factory=dict)
    positions: dict[str, int] = field(default_factory=dict)
    budget_met: bool = True


@dataclass(frozen=True)
class _StageOut:
    items: list[ContextItem]
    ran: bool
    reason: str
    drops: list[tuple[ContextItem, str, dict[str, Any]]]


def find_current(items: Sequence[ContextItem]) -> str | None:
    """The item id of the current user turn (see ``CURRENT_TURN_RULE``)."""
    marked = [i for i in items if i.current]
    if len(marked) > 1:
        raise RequestError("more than one item is marked as the current turn", field="items")
    if marked:
        return marked[0].item_id
    for item in reversed(items):
        if item.kind is ItemKind.USER:
            return item.item_id
    return None


def is_critical(item: ContextItem, current_id: str | None) -> bool:
    return item.kind in CRITICAL_KINDS or item.item_id == current_id


class Pipeline:
    """Runs the five stages over a list of items for a task under an optional token budget."""

    def __init__(self, counter: Counter | None = None, ranker: Ranker | None = None) -> None:
        self.counter: Counter = counter if counter is not None else get_counter()
        self.ranker: Ranker = ranker if ranker is not None else BM25Ranker()
        self._cache: dict[str, int] = {}

    def tokens_of(self, item: ContextItem) -> int:
        n = self._cache.get(item.content_hash)
        if n is None:
            known = item.tokens
            n = (
                known.count
                if known is not None and known.basis == self.counter.basis
                else self.counter.count(item.text)
            )
            self._cache[item.content_hash] = n
        return n

    def measure(self, items: Sequence[ContextItem]) -> TokenCount:
        return TokenCount(sum(self.tokens_of(i) for i in items), self.counter.basis)

    def run(self, items: Sequence[ContextItem], task: str, budget: int | None = None) -> PipelineResult:
        if budget is not None and (isinstance(budget, bool) or not isinstance(budget, int) or budget < 0):
            raise RangeError("budget must be a non-negative integer or None", field="budget")
        if not isinstance(task, str):
            raise RequestError("task must be a string", field="task")
        items = list(items)
        seen: dict[str, str] = {}
        for item in items:
            if seen.setdefault(item.item_id, item.content_hash) != item.content_hash:
                raise RequestError(f"two different items share the id {item.item_id!r}", field="items")
        state = _State(task=task, budget=budget, current_id=find_current(items))
        for pos, item in enumerate(items):
            state.positions.setdefault(item.item_id, pos)
        tokens_in = self.measure(items)
        records: list[StageRecord] = []
        drops: list[Drop] = []
        stage_fns: list[tuple[str, Callable[[list[ContextItem], _State], _StageOut]]] = [
            ("dedup", self._dedup),
            ("classify", self._classify),
            ("rank", self._rank),
            ("budget", self._budget),
            ("place", self._place),
        ]
        current = items
        for name, fn in stage_fns:
            current = self._stage(name, fn, current, state, records, drops)
        ledger = Ledger(self.counter.basis, tokens_in, tuple(records))
        return PipelineResult(
            items=tuple(current),
            ledger=ledger,
            drops=tuple(drops),
            priorities={i.item_id: state.priorities[i.item_id] for i in current},
            scores={i.item_id: state.scores.get(i.item_id) for i in current},
            task=task,
            budget=TokenCount(budget, self.counter.basis) if budget is not None else None,
            budget_met=state.budget_met,
            ranker=self.ranker.name,
            current_item_id=state.current_id,
        )

    def _stage(
        self,
        name: str,
        fn: Callable[[list[ContextItem], _State], _StageOut],
        items: list[ContextItem],
        state: _State,
        records: list[StageRecord],
        drops: list[Drop],
    ) -> list[ContextItem]:
        """The sole ledger writer: measure the list handed in, run the stage, measure what it returns."""
        before = self.measure(items)
        out = fn(list(items), state)
        after = self.measure(out.items)
        for item, reason, detail in out.drops:
            drops.append(
                Drop(
                    item_id=item.item_id,
                    kind=item.kind.value,
                    stage=name,
                    reason=reason,
                    tokens=TokenCount(self.tokens_of(item), self.counter.basis),
                    detail=detail,
                )
            )
        records.append(
            StageRecord(
                name=name,
                ran=out.ran,
                reason=out.reason,
                tokens_before=before,
                tokens_after=after,
                items_before=len(items),
                items_after=len(out.items),
                dropped=len(out.drops),
            )
        )
        return out.items

    def _dedup(self, items: list[ContextItem], state: _State) -> _StageOut:
        def standing(item: ContextItem) -> int | None:
            """Lower keeps: the current turn, then protected items, then the rest; ``None``: a past turn of
            the conversation, never deduplicated (see ``DEDUP_RULE``)."""
            if item.item_id == state.current_id:
                return 0
            if item.kind in HISTORY_KINDS:
                return None
            return 1 if is_critical(item, state.current_id) else 2

        keep: dict[str, tuple[int, int]] = {}
        for pos, item in enumerate(items):
            rank = standing(item)
            held = keep.get(item.content_hash)
            if rank is not None and (held is None or rank < held[0]):
                keep[item.content_hash] = (rank, pos)
        out: list[ContextItem] = []
        dropped: list[tuple[ContextItem, str, dict[str, Any]]] = []
        for pos, item in enumerate(items):
            if standing(item) is None or keep[item.content_hash][1] == pos:
                out.append(item)
            else:
                kept = items[keep[item.content_hash][1]].item_id
                dropped.append((item, REASON_DUPLICATE, {"kept": kept}))
        return _StageOut(out, True, "by content hash; " + DEDUP_RULE, dropped)

    def _classify(self, items: list[ContextItem], state: _State) -> _StageOut:
        for item in items:
            state.priorities[item.item_id] = (
                Priority.CRITICAL if is_critical(item, state.current_id) else Priority.NORMAL
            )
        return _StageOut(items, True, "critical: system, identity, memory and the current user turn", [])

    def _rank(self, items: list[ContextItem], state: _State) -> _StageOut:
        if not state.task.strip():
            for item in items:
                state.scores[item.item_id] = None
            return _StageOut(items, False, "skipped: empty task", [])
        scores = self.ranker.score(state.task, [i.text for i in items])
        for item, score in zip(items, scores, strict=True):
            state.scores[item.item_id] = score
        return _StageOut(items, True, f"{self.ranker.name} against the task", [])

    def _budget(self, items: list[ContextItem], state: _State) -> _StageOut:
        if state.budget is None:
            return _StageOut(items, False, "skipped: no budget", [])
        total = sum(self.tokens_of(i) for i in items)
        if total <= state.budget:
            return _StageOut(items, True, "within budget", [])
        droppable = [i for i in items if state.priorities[i.item_id] is Priority.NORMAL]
        droppable.sort(key=lambda i: self._drop_key(i, state))
        room = state.budget - total + sum(self.tokens_of(i) for i in droppable)
        removed: set[str] = set()
        dropped: list[tuple[ContextItem, str, dict[str, Any]]] = []
        for item in reversed(droppable):
            if self.tokens_of(item) <= room:
                room -= self.tokens_of(item)
                continue
            removed.add(item.item_id)
            score = score_milli(state.scores.get(item.item_id))
            dropped.append(
                (
                    item,
                    REASON_BUDGET,
                    {"budget": state.budget, "rank_score_milli": score, "room": max(0, room)},
                )
            )
        state.budget_met = room >= 0
        reason = (
            "kept what fits, in drop order reversed"
            if state.budget_met
            else "critical items alone exceed the budget"
        )
        return _StageOut([i for i in items if i.item_id not in removed], True, reason, dropped[::-1])

    @staticmethod
    def _drop_key(item: ContextItem, state: _State) -> tuple[float, int]:
        """Where ``item`` stands in :data:`DROP_ORDER` (lowest first)."""
        return (state.scores.get(item.item_id) or 0.0, state.positions[item.item_id])

    def _place(self, items: list[ContextItem], state: _State) -> _StageOut:
        def key(item: ContextItem) -> tuple[int, int, int]:
            if item.item_id == state.current_id:
                return (9, 0, 0)
            slot = PLACE_SLOTS[item.kind]
            when = item.created_ms if item.kind in HISTORY_KINDS else 0
            return (slot, when, state.positions[item.item_id])

        return _StageOut(
            sorted(items, key=key), True, "core, memory, retrieval, files, history, current turn", []
        )
