"""Memory → context items: the candidate source of the surfacing pre-pass.

``candidates_for`` turns active decisions, constraints (hard and soft), discoveries and unresolved failures
into items of kind ``memory``, which the pipeline protects as CRITICAL. Superseded decisions and resolved
failures are history, not guidance, and never surface. The item text is the record's own text (its type and
id go in the label), so a record that repeats existing context is recognised by dedup, which keeps the
protected memory item.
"""

from __future__ import annotations

from collections.abc import Sequence

from prooftext.conversation.health import compute_health
from prooftext.conversation.items import ContextItem, ItemKind, make_item
from prooftext.conversation.rank import Ranker
from prooftext.conversation.surfacing import (
    DEFAULT_BUDGET_RATIO,
    SurfaceCheck,
    SurfaceDecision,
    plan_budget,
    select,
    should_surface,
)
from prooftext.errors import EmptyQueryError
from prooftext.memory.store import MemoryRecord, MemoryStore
from prooftext.tokens import Counter

CANDIDATE_ORDER: tuple[tuple[str, str | None], ...] = (
    ("constraint", "hard"),
    ("failure", None),
    ("decision", None),
    ("constraint", "soft"),
    ("discovery", None),
)
"""Order candidates are offered in (``select`` re-ranks them; unscored ones keep this order)."""


def _order(record: MemoryRecord) -> tuple[int, int]:
    for pos, (kind, strength) in enumerate(CANDIDATE_ORDER):
        if record.kind == kind and (strength is None or record.strength == strength):
            return (pos, record.id)
    return (len(CANDIDATE_ORDER), record.id)


LABEL_BRACKETS = str.maketrans("[]", "()")
"""A source is provenance text anyone may have written: its brackets become parentheses, so it cannot close
a bracketed label or open one of its own."""


def label_source(source: str) -> str:
    """``source`` on one line (every whitespace run, line breaks included, becomes one space), bracket-free."""
    return " ".join(source.split()).translate(LABEL_BRACKETS)


def record_label(record: MemoryRecord) -> str:
    """``kind #id · source: …`` on one line: remembered text is data and never shapes the prompt."""
    kind = f"{record.strength} constraint" if record.kind == "constraint" else record.kind
    return f"{kind} #{record.id} · source: {label_source(record.source)}"


def record_item(record: MemoryRecord, counter: Counter) -> ContextItem:
    """One record as a memory item with its exact token count."""
    return make_item(
        ItemKind.MEMORY,
        record.text,
        item_id=f"memory:{record.id}",
        thread=record.thread or "main",
        created_ms=record.created_ms,
        updated_ms=record.updated_ms,
        label=record_label(record),
        meta={"record_id": record.id, "record_kind": record.kind, "strength": record.strength},
        counter=counter,
    )


def records_to_items(records: Sequence[MemoryRecord], counter: Counter) -> list[ContextItem]:
    return [record_item(r, counter) for r in sorted((r for r in records if r.is_candidate), key=_order)]


def candidates_for(store: MemoryStore, task: str, counter: Counter) -> list[ContextItem]:
    """Every record worth surfacing for ``task``, as memory items; ranking is ``select``'s job."""
    if not isinstance(task, str) or not task.strip():
        raise EmptyQueryError("memory candidates need a non-empty task", field="task")
    return records_to_items(store.candidates(), counter)


def surface_memory(
    store: MemoryStore,
    task: str,
    context: Sequence[ContextItem],
    counter: Counter,
    window_tokens: int,
    *,
    ratio: float = DEFAULT_BUDGET_RATIO,
    ranker: Ranker | None = None,
) -> tuple[SurfaceCheck, SurfaceDecision]:
    """The whole pre-pass in one call: health of ``context``, the trigger check, the budget and ``select``.

    The returned items are for the caller to merge into ``context`` and run through ``Pipeline.run``;
    they are selected whether or not the trigger fired (``check`` says whether it did, or why not).
    """
    health = compute_health(context, task, counter, window_tokens, ranker)
    check = should_surface(health)
    plan = plan_budget(counter, health, ratio)
    decision = select(candidates_for(store, task, counter), task, plan, ranker, check.trigger)
    return check, decision
