"""A turn's prompt budget is hard: the rendered messages never exceed it, or the turn is refused."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prooftext.conversation.health import MAX_WINDOW_TOKENS
from prooftext.conversation.items import ContextItem, ItemKind, make_item
from prooftext.conversation.turn import (
    STEP_MEMORY,
    STEP_PIPELINE,
    TurnPlan,
    TurnRequest,
    TurnSources,
    plan_turn,
)
from prooftext.errors import BudgetError, RangeError, RequestError
from prooftext.tokens import get_counter

from .helpers import alternating

COUNTER = get_counter()
QUESTION = "Compare the cache refresh strategy in detail"
KERNEL_SPARE = 25
"""Room beside the core and the message: enough for a surfaced record's tokens, too little for its fence."""


def _thread(n: int) -> list[ContextItem]:
    texts = [
        f"message {i} about the cache refresh strategy and the store layout number {i}" for i in range(n)
    ]
    return alternating(texts, "msg:{}")


def _decisions(n: int) -> list[ContextItem]:
    return [
        make_item(
            ItemKind.MEMORY,
            f"Decision {i}: refresh the cache every {i + 1} minutes",
            item_id=f"memory:{i}",
            label=f"decision #{i} · source: cli",
            counter=COUNTER,
        )
        for i in range(n)
    ]


def _plan(window: int, history: Sequence[ContextItem], memory: Sequence[ContextItem]) -> TurnPlan:
    return plan_turn(
        TurnRequest("main", QUESTION, mode="full", window_tokens=window),
        TurnSources(history=history, memory=lambda task: memory),
    )


def test_a_message_longer_than_the_prompt_budget_is_refused_with_budget_exceeded() -> None:
    with pytest.raises(BudgetError) as caught:
        plan_turn(TurnRequest("main", "word " * 20000))
    assert caught.value.code == "budget_exceeded"
    assert caught.value.details["prompt_budget"] == 8192 - 2048
    assert caught.value.details["needed"] > caught.value.details["prompt_budget"]


def test_a_window_barely_above_the_output_budget_is_refused_rather_than_overrun() -> None:
    with pytest.raises(BudgetError) as caught:
        plan_turn(TurnRequest("main", "what is up with it", window_tokens=1025))
    assert caught.value.details["prompt_budget"] == 1


@pytest.mark.parametrize("window", [0, -1, MAX_WINDOW_TOKENS + 1, 100_000_000_000, True])
def test_a_window_outside_one_token_to_its_ceiling_is_out_of_range_before_anything_runs(window: int) -> None:
    """A window of 10^11 tokens used to pass, then fail deep in retrieval on a ladder it had sized."""
    with pytest.raises(RangeError) as caught:
        plan_turn(TurnRequest("main", "what is up with it", window_tokens=window))
    assert caught.value.details["field"] == "window_tokens"


def test_the_largest_window_plans_a_turn() -> None:
    plan = plan_turn(TurnRequest("main", "what is up with it", window_tokens=MAX_WINDOW_TOKENS))
    assert plan.prompt_tokens.count <= plan.prompt_budget.count


def test_the_rendered_prompt_never_exceeds_its_budget_for_any_window() -> None:
    history, memory = _thread(60), _decisions(10)
    for window in range(2110, 2440):
        plan = _plan(window, history, memory)
        assert plan.prompt_tokens.count <= plan.prompt_budget.count, window
        assert plan.prompt_tokens.count == COUNTER.count(
            "\n".join(f"{m['role']}: {m['content']}" for m in plan.messages)
        )
        assert plan.pipeline.ledger.is_chained()


def test_surfaced_memory_gives_way_before_the_message_when_only_protected_items_remain() -> None:
    kernel = _plan(100_000, [], []).prompt_tokens.count
    plan = _plan(2048 + kernel + KERNEL_SPARE, [], _decisions(10))
    assert plan.prompt_tokens.count <= plan.prompt_budget.count
    assert plan.messages[-1] == {"role": "user", "content": QUESTION}
    selected = plan.step(STEP_MEMORY).detail["selected"]
    withdrawn = plan.step(STEP_PIPELINE).detail["withdrawn"]
    assert selected and withdrawn and {w["reason"] for w in withdrawn} == {"prompt_budget"}
    assert plan.counts["memory"] == selected - len(withdrawn)
    # the least relevant record goes first: later-selected records are withdrawn before earlier ones
    kept = plan.step(STEP_MEMORY).detail["select"]["kept"]
    assert [w["item_id"] for w in withdrawn] == [k["item_id"] for k in reversed(kept)][: len(withdrawn)]


def test_a_file_too_large_for_the_window_leaves_the_whole_conversation_in_the_prompt() -> None:
    history = _thread(10)
    big = make_item(ItemKind.FILE, "cache refresh strategy line\n" * 400, item_id="file:big")
    file_tokens = COUNTER.count(big.text)
    counts = []
    for window in range(2048 + 400, 2048 + file_tokens + 800, 97):
        plan = plan_turn(
            TurnRequest("main", QUESTION, window_tokens=window, files=[big]), TurnSources(history=history)
        )
        assert plan.prompt_tokens.count <= plan.prompt_budget.count
        counts.append((plan.counts["history"], plan.counts["files"]))
    # while the file does not fit, it takes none of the conversation with it
    assert counts[0] == (10, 0) and counts[-1] == (10, 1)
    assert all(h == 10 for h, f in counts if f == 0)


@settings(max_examples=40, deadline=None)
@given(
    turns=st.lists(st.text(alphabet="abc xyz\n#-", min_size=1, max_size=120), max_size=30),
    decisions=st.lists(st.text(alphabet="def uvw\n", min_size=1, max_size=60), max_size=6),
    spare=st.integers(min_value=1, max_value=800),
)
def test_property_a_plan_fits_its_prompt_budget_or_is_refused(
    turns: list[str], decisions: list[str], spare: int
) -> None:
    history = alternating(turns, "h{}")
    memory = [
        make_item(ItemKind.MEMORY, t, item_id=f"memory:{i}", label="x") for i, t in enumerate(decisions)
    ]
    try:
        plan = _plan(2048 + spare, history, memory)
    except BudgetError as exc:
        assert exc.details["needed"] > exc.details["prompt_budget"] == spare
        return
    assert plan.prompt_tokens.count <= plan.prompt_budget.count
    assert plan.messages[-1]["content"] == QUESTION


def test_a_message_holding_undecodable_bytes_is_refused_naming_the_text() -> None:
    with pytest.raises(RequestError) as caught:
        plan_turn(TurnRequest("main", "hello \udcff what is the retry config?"))
    assert caught.value.code == "invalid_request" and caught.value.field == "text"
