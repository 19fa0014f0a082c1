"""Health, should_surface, plan_budget and select: the ADR's pre-pass, run through the real pipeline."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from pathlib import Path

import pytest

import prooftext.conversation as conversation_pkg
from prooftext.conversation.health import compute_health
from prooftext.conversation.items import ItemKind, make_item
from prooftext.conversation.pipeline import Pipeline, Priority
from prooftext.conversation.rank import BM25Ranker
from prooftext.conversation.surfacing import (
    HIGH_WINDOW_USAGE_BP,
    LOW_RELEVANT_RATIO_BP,
    TRIGGER_HIGH_WINDOW_USAGE,
    TRIGGER_LOW_RELEVANT_RATIO,
    plan_budget,
    select,
    should_surface,
)
from prooftext.errors import EmptyQueryError, RangeError, RequestError
from prooftext.tokens import get_counter

from .helpers import conversation, turn

BYTES = get_counter("bytes")
O200K = get_counter()


def _mem(i: int, text: str) -> object:
    return make_item(ItemKind.MEMORY, text, item_id=f"memory:{i}", label=f"decision #{i}", counter=BYTES)


def test_compute_health_measures_usage_and_relevance() -> None:
    items = [turn(1, "sqlite wal journal"), turn(2, "unrelated cooking recipe", role=ItemKind.ASSISTANT)]
    items.append(turn(3, "wal?"))
    h = compute_health(items, "sqlite wal", BYTES, 100)
    assert h.used.count == sum(len(i.text) for i in items) and h.used.basis == "bytes"
    assert h.window_usage_bp == h.used.count * 100
    # m1 scores, m3 is the current turn (critical); the recipe is irrelevant
    assert h.relevant_items == 2
    assert h.relevant_ratio_bp == (len("sqlite wal journal") + len("wal?")) * 10000 // h.used.count
    empty = compute_health(items, "  ", BYTES, 100)
    assert empty.relevant_ratio_bp is None and "empty task" in (empty.unmeasured_reason or "")
    with pytest.raises(RangeError):
        compute_health(items, "x", BYTES, 0)


def test_should_surface_fires_on_high_window_usage() -> None:
    h = compute_health([turn(1, "a" * 80)], "a", BYTES, 100)
    check = should_surface(h)
    assert check.fired and check.trigger is not None
    assert TRIGGER_HIGH_WINDOW_USAGE in check.trigger.reasons
    assert check.to_dict()["thresholds"] == {
        "high_window_usage_bp": HIGH_WINDOW_USAGE_BP,
        "low_relevant_ratio_bp": LOW_RELEVANT_RATIO_BP,
    }


def test_should_surface_fires_on_low_relevant_ratio() -> None:
    items = [turn(1, "cooking pasta recipes at length " * 3, role=ItemKind.ASSISTANT), turn(2, "wal")]
    check = should_surface(compute_health(items, "sqlite", BYTES, 100000))
    assert check.fired and check.trigger is not None
    assert check.trigger.reasons == (TRIGGER_LOW_RELEVANT_RATIO,)


def test_should_surface_says_why_it_did_not_fire() -> None:
    """Requirement: adr.should_surface.no_trigger_reason"""
    check = should_surface(compute_health([turn(1, "sqlite wal")], "sqlite wal", BYTES, 100000))
    assert not check.fired and check.trigger is None
    assert check.no_trigger_reason and "window usage" in check.no_trigger_reason
    assert check.to_dict()["no_trigger_reason"] == check.no_trigger_reason


def test_plan_budget_names_its_basis_and_caps_by_remaining() -> None:
    """Requirement: adr.plan_budget.basis"""
    h = compute_health([turn(1, "a" * 10)], "a", BYTES, 1000)
    plan = plan_budget(BYTES, h)
    assert plan.budget.count == 150 and plan.budget.basis == "bytes" and plan.ratio_bp == 1500
    full = compute_health([turn(1, "a" * 950)], "a", BYTES, 1000)
    capped = plan_budget(BYTES, full, ratio=0.5)
    assert capped.budget.count == 50 and capped.capped_by_remaining
    with pytest.raises(RangeError):
        plan_budget(BYTES, h, ratio=0)
    with pytest.raises(RequestError):
        plan_budget(O200K, h)


def test_no_task_is_refused_rather_than_silently_scored_zero() -> None:
    """Requirement: adr.select.empty_task_refused"""
    h = compute_health([turn(1, "x")], "x", BYTES, 1000)
    with pytest.raises(EmptyQueryError) as exc:
        select([_mem(1, "use WAL")], "   ", plan_budget(BYTES, h), BM25Ranker())
    assert exc.value.field == "task"


class _CannotScore:
    name = "blind"

    def score(self, task: str, texts: Sequence[str]) -> list[float | None]:
        return [None for _ in texts]


def test_unscorable_candidates_survive() -> None:
    """Requirement: adr.select.unscored_survive"""
    h = compute_health([turn(1, "hello")], "hello", BYTES, 10000)
    cands = [_mem(1, "Deploy only on Tuesdays"), _mem(2, "Never store secrets in logs")]
    decision = select(cands, "what is the release cadence", plan_budget(BYTES, h), _CannotScore())
    assert [i.item_id for i in decision.items] == ["memory:1", "memory:2"]
    assert decision.unscored_kept == 2 and not decision.dropped
    # BM25 cannot score them either (no shared term): they are kept, after the scored one
    mixed = [*cands, _mem(3, "release cadence is weekly")]
    bm = select(mixed, "release cadence", plan_budget(BYTES, h), BM25Ranker())
    assert [i.item_id for i in bm.items] == ["memory:3", "memory:1", "memory:2"]


def test_select_fits_the_budget_greedily_in_rank_order_and_records_the_trigger() -> None:
    h = compute_health([turn(1, "a" * 10)], "a", BYTES, 200)  # budget: 30 bytes
    cands = [_mem(1, "wal " * 10), _mem(2, "wal journal"), _mem(3, "zzz")]
    check = should_surface(compute_health([turn(1, "a" * 190)], "a", BYTES, 200))
    decision = select(cands, "wal journal", plan_budget(BYTES, h), BM25Ranker(), trigger=check.trigger)
    assert [i.item_id for i in decision.items] == ["memory:2", "memory:3"]
    assert [d.item_id for d in decision.dropped] == ["memory:1"] and decision.dropped[0].reason == "budget"
    assert decision.trigger is check.trigger and decision.to_dict()["trigger"]["source"] == "health"
    assert decision.used.count <= decision.plan.budget.count


def _merged_run(history: list, memory: list, task: str, budget: int) -> tuple[list, object]:
    items = [make_item(ItemKind.SYSTEM, "be careful", item_id="sys"), *memory, *history]
    return items, Pipeline(BYTES).run(items, task, budget)


def test_surfaced_memory_keeps_critical_retention_and_ledger_chaining_in_the_real_pipeline() -> None:
    """Requirement: adr.merge.critical_retention
    Requirement: adr.ledger.chained"""
    history = [*conversation(20), turn(100, "what did we decide about the sqlite wal journal")]
    h = compute_health(history, "sqlite wal journal", BYTES, 2000)
    cands = [_mem(i, f"decision {i}: keep the sqlite wal journal mode {i}") for i in range(5)]
    decision = select(
        cands, "sqlite wal journal", plan_budget(BYTES, h), BM25Ranker(), should_surface(h).trigger
    )
    assert decision.items
    items, result = _merged_run(history, list(decision.items), "sqlite wal journal", budget=400)
    # critical retention is measured against the merged list: the surfaced items are what is at risk
    crit = {i.item_id for i in items if i.kind in (ItemKind.SYSTEM, ItemKind.MEMORY)} | {"m100"}
    kept = {i.item_id for i in result.items}
    assert crit <= kept
    assert all(result.priorities[i] is Priority.CRITICAL for i in crit)
    assert result.ledger.is_chained()
    assert any(d.stage == "budget" for d in result.drops)


def test_surfaced_memory_duplicating_existing_text_is_not_lost_to_dedup() -> None:
    """Requirement: adr.dedup.memory_duplicate"""
    said = "We agreed to keep the WAL journal mode."
    history = [turn(1, said, role=ItemKind.ASSISTANT), turn(2, "ok and now?")]
    mem = _mem(7, said)
    _items, result = _merged_run(history, [mem], "WAL journal", budget=10_000)
    kept = {i.item_id: i for i in result.items}
    assert "memory:7" in kept and result.priorities["memory:7"] is Priority.CRITICAL
    # the past turn is a turn of the conversation: never deduplicated, it stays beside the memory copy
    assert [d for d in result.drops if d.reason == "duplicate"] == [] and "m1" in kept
    # and under budget pressure the text still survives, because the memory copy is protected
    _, tight = _merged_run(history, [mem], "WAL journal", budget=1)
    assert "memory:7" in {i.item_id for i in tight.items}


def _imports_under(root: Path, prefix: str) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            found += [f"{path.name}: {n}" for n in names if n.startswith(prefix)]
    return found


def test_conversation_never_imports_memory() -> None:
    """Requirement: adr.dependency.conversation_not_memory"""
    root = Path(conversation_pkg.__file__).parent
    assert _imports_under(root, "prooftext.memory") == []


def test_the_depth_tiers_never_import_conversation() -> None:
    """The turn planner (conversation) reads the tiers and their policies; the tiers know no turn."""
    root = Path(conversation_pkg.__file__).parent.parent / "depth"
    assert _imports_under(root, "prooftext.conversation") == []
