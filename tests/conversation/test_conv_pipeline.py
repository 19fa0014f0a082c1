"""The pipeline: dedup → classify → rank → budget → place, and its chained token ledger."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prooftext.conversation.items import ItemKind, make_item
from prooftext.conversation.pipeline import (
    REASON_BUDGET,
    REASON_DUPLICATE,
    STAGES,
    Pipeline,
    Priority,
    find_current,
    is_critical,
)
from prooftext.errors import RangeError, RequestError
from prooftext.tokens import get_counter

from .helpers import conversation, turn

BYTES = get_counter("bytes")


def _core() -> list:
    return [
        make_item(ItemKind.SYSTEM, "You are careful.", item_id="sys"),
        make_item(ItemKind.IDENTITY, "I am the assistant.", item_id="id"),
    ]


def test_ledger_chains_every_stage_and_carries_its_basis() -> None:
    """Requirement: adr.ledger.chained"""
    items = [
        *_core(),
        *conversation(12),
        turn(99, "how does the sqlite wal journal work", role=ItemKind.USER),
    ]
    result = Pipeline(get_counter()).run(items, "sqlite wal journal", budget=60)
    stages = result.ledger.stages
    assert [s.name for s in stages] == list(STAGES)
    assert stages[0].tokens_before == result.ledger.tokens_in
    for prev, cur in itertools.pairwise(stages):
        assert cur.tokens_before == prev.tokens_after
    assert result.ledger.is_chained()
    for s in stages:
        assert s.tokens_before.basis == s.tokens_after.basis == "o200k_base"
    assert result.ledger.to_dict()["chained"] is True


def test_reduction_ratio_derives_from_the_ledger() -> None:
    """Requirement: conversation.ledger.reduction_ratio"""
    items = [*_core(), *conversation(10), turn(50, "bm25 ranking")]
    result = Pipeline(BYTES).run(items, "bm25 ranking", budget=200)
    led = result.ledger
    assert led.tokens_out == led.stages[-1].tokens_after
    assert led.reduction_ratio == pytest.approx(1 - led.tokens_out.count / led.tokens_in.count)
    assert led.reduction_bp == (led.tokens_in.count - led.tokens_out.count) * 10000 // led.tokens_in.count
    assert 0 < led.reduction_ratio < 1


def test_dedup_by_content_hash_records_a_reason() -> None:
    items = [
        make_item(ItemKind.RETRIEVAL, "same words", item_id="r1"),
        make_item(ItemKind.FILE, "same words", item_id="f1"),
        turn(3, "ask"),
    ]
    result = Pipeline(BYTES).run(items, "", None)
    dropped = [d for d in result.drops if d.stage == "dedup"]
    assert len(dropped) == 1
    assert dropped[0].reason == REASON_DUPLICATE and dropped[0].detail == {"kept": "r1"}
    assert result.ledger.stages[0].dropped == 1


def test_repeated_identical_turns_of_the_conversation_all_survive_dedup() -> None:
    """Requirement: conversation.dedup.transcript_kept"""
    items = [
        turn(1, "delete the old logs"),
        turn(2, "Done.", role=ItemKind.ASSISTANT),
        turn(3, "and the caches"),
        turn(4, "Done.", role=ItemKind.ASSISTANT),
        turn(5, "Done.", role=ItemKind.USER),
        turn(6, "Done.", role=ItemKind.ASSISTANT),
        make_item(ItemKind.USER, "Done.", item_id="now", current=True),
    ]
    result = Pipeline(BYTES).run(items, "Done.", None)
    assert [d for d in result.drops if d.stage == "dedup"] == []
    assert [i.item_id for i in result.items] == [i.item_id for i in items]


def test_classify_protects_system_identity_memory_and_current_turn() -> None:
    items = [
        *_core(),
        make_item(ItemKind.MEMORY, "decision: WAL", item_id="mem"),
        make_item(ItemKind.RETRIEVAL, "some excerpt", item_id="ret"),
        turn(1, "older question"),
        turn(2, "an answer", role=ItemKind.ASSISTANT),
        turn(3, "current question"),
    ]
    result = Pipeline(BYTES).run(items, "question", None)
    crit = {i for i, p in result.priorities.items() if p is Priority.CRITICAL}
    assert crit == {"sys", "id", "mem", "m3"}
    assert result.current_item_id == "m3"


def test_explicit_current_marker_wins_over_last_user_item() -> None:
    items = [make_item(ItemKind.USER, "now", item_id="now", current=True), turn(5, "later user text")]
    result = Pipeline(BYTES).run(items, "x", None)
    assert result.current_item_id == "now"


def test_rank_is_skipped_for_an_empty_task_with_a_reason() -> None:
    result = Pipeline(BYTES).run(conversation(4), "   ", None)
    rank = result.ledger.stages[2]
    assert rank.name == "rank" and not rank.ran and "empty task" in rank.reason
    assert all(v is None for v in result.scores.values())


def test_budget_drops_lowest_rank_first_and_never_critical() -> None:
    items = [*_core(), *conversation(8), turn(40, "tell me about bm25 ranking terms")]
    result = Pipeline(BYTES).run(items, "bm25 ranking terms", budget=250)
    budget_drops = [d for d in result.drops if d.stage == "budget"]
    assert budget_drops and all(d.reason == REASON_BUDGET for d in budget_drops)
    kept = {i.item_id for i in result.items}
    assert {"sys", "id", "m40"} <= kept
    # the turns about bm25 outrank the others, so they survive longest
    assert "m2" in kept and "m6" in kept
    assert result.budget_met and result.ledger.tokens_out.count <= 250


def test_without_scores_budget_drops_oldest_first() -> None:
    items = [*conversation(6), turn(10, "x")]
    result = Pipeline(BYTES).run(items, "", budget=120)
    order = [d.item_id for d in result.drops if d.stage == "budget"]
    assert order == sorted(order, key=lambda s: int(s[1:]))
    assert order[0] == "m0"


def test_a_dropped_large_item_leaves_room_for_the_smaller_items_ranked_below_it() -> None:
    history = conversation(6)
    big = make_item(ItemKind.RETRIEVAL, "bm25 ranking terms " * 400, item_id="big")
    small = make_item(ItemKind.FILE, "bm25 notes", item_id="small")
    items = [*_core(), big, small, *history, turn(40, "bm25 ranking terms")]
    # the best-ranked item does not fit even alone; everything ranked below it does
    budget = Pipeline(BYTES).measure([i for i in items if i is not big]).count + 10
    result = Pipeline(BYTES).run(items, "bm25 ranking terms", budget=budget)
    kept = {i.item_id for i in result.items}
    assert kept == {i.item_id for i in items} - {"big"}
    assert [(d.item_id, d.reason) for d in result.drops] == [("big", REASON_BUDGET)]
    assert result.drops[0].detail["room"] < result.drops[0].tokens.count
    assert result.budget_met and result.ledger.tokens_out.count <= budget


def test_critical_alone_over_budget_is_kept_and_reported() -> None:
    items = [*_core(), turn(1, "x" * 500), turn(2, "y" * 50, role=ItemKind.ASSISTANT)]
    result = Pipeline(BYTES).run(items, "x", budget=10)
    kept = {i.item_id for i in result.items}
    assert {"sys", "id", "m1"} <= kept and "m2" not in kept
    assert not result.budget_met
    assert "exceed" in result.ledger.stages[3].reason


def test_place_orders_core_context_history_then_current_turn() -> None:
    items = [
        turn(3, "current ask"),
        turn(2, "reply", role=ItemKind.ASSISTANT),
        make_item(ItemKind.FILE, "file body", item_id="f"),
        make_item(ItemKind.RETRIEVAL, "pack", item_id="r"),
        make_item(ItemKind.MEMORY, "mem", item_id="mem"),
        turn(1, "first"),
        make_item(ItemKind.SYSTEM, "sys", item_id="sys"),
    ]
    items[0] = make_item(ItemKind.USER, "current ask", item_id="m3", created_ms=3, current=True)
    result = Pipeline(BYTES).run(items, "ask", None)
    assert [i.item_id for i in result.items] == ["sys", "mem", "r", "f", "m1", "m2", "m3"]


def test_bad_inputs_are_clear_errors() -> None:
    with pytest.raises(RangeError):
        Pipeline(BYTES).run([turn(1, "a")], "a", budget=-1)
    with pytest.raises(RequestError) as exc:
        Pipeline(BYTES).run([turn(1, "a"), turn(1, "b")], "a", None)
    assert exc.value.field == "items"
    with pytest.raises(RequestError):
        Pipeline(BYTES).run(
            [
                make_item("user", "a", item_id="a", current=True),
                make_item("user", "b", item_id="b", current=True),
            ],
            "a",
            None,
        )
    with pytest.raises(RequestError) as kind:
        make_item("robot", "x")
    assert kind.value.field == "kind"


def test_empty_input_has_a_consistent_ledger() -> None:
    result = Pipeline(BYTES).run([], "task", budget=10)
    assert result.ledger.is_chained() and result.ledger.reduction_ratio == 0.0 and result.items == ()


_KINDS = list(ItemKind)


@settings(max_examples=60, deadline=None)
@given(
    spec=st.lists(
        st.tuples(st.sampled_from(_KINDS), st.text(alphabet="abc xyz", min_size=1, max_size=30)),
        min_size=0,
        max_size=14,
    ),
    task=st.text(alphabet="abc xyz", max_size=10),
    budget=st.one_of(st.none(), st.integers(min_value=0, max_value=200)),
)
def test_property_critical_retention_and_chaining(
    spec: list[tuple[ItemKind, str]], task: str, budget: int | None
) -> None:
    """Requirement: adr.pipeline.critical_retention"""
    items = [make_item(k, t, item_id=f"i{n}", created_ms=n) for n, (k, t) in enumerate(spec)]
    result = Pipeline(BYTES).run(items, task, budget)
    assert result.ledger.is_chained()
    kept_hashes = {i.content_hash for i in result.items}
    current = find_current(items)
    for item in items:
        if is_critical(item, current):
            assert item.content_hash in kept_hashes
    dropped_ids = {d.item_id for d in result.drops}
    assert len(dropped_ids) + len(result.items) == len(items)
    assert all(d.reason in (REASON_BUDGET, REASON_DUPLICATE) for d in result.drops)


def test_a_memory_item_repeating_the_current_message_is_dropped_never_the_message() -> None:
    """The turn being answered outranks a protected copy of its text: dedup drops the copy, with its reason."""
    message = "Compare the cache refresh strategy in detail"
    items = [
        *_core(),
        make_item(ItemKind.MEMORY, message, item_id="memory:1"),
        make_item(ItemKind.USER, message, item_id="turn:current", current=True),
    ]
    result = Pipeline(BYTES).run(items, message, budget=None)
    assert [i.item_id for i in result.items][-1] == "turn:current"
    assert [(d.item_id, d.reason, d.detail) for d in result.drops] == [
        ("memory:1", REASON_DUPLICATE, {"kept": "turn:current"})
    ]


def test_the_current_message_survives_dedup_whichever_protected_copy_comes_first() -> None:
    message = "You are careful."
    items = [
        make_item(ItemKind.SYSTEM, message, item_id="sys"),
        make_item(ItemKind.USER, message, item_id="now", current=True),
    ]
    result = Pipeline(BYTES).run(items, message, budget=None)
    assert [i.item_id for i in result.items] == ["now"]
    assert [d.item_id for d in result.drops] == ["sys"]
