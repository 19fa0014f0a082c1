"""``prooftext.recall_memory`` (``memory.surface``): the same surfacing decision as a planned turn, coded errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import prooftext
from prooftext.conversation.items import ContextItem, ItemKind, make_item
from prooftext.conversation.turn import (
    DEFAULT_IDENTITY,
    DEFAULT_SAFETY,
    STEP_MEMORY,
    TurnRequest,
    TurnSources,
    plan_turn,
)
from prooftext.errors import ProoftextError
from prooftext.memory import MemoryStore, candidates_for
from prooftext.tokens import get_counter

TASK = "Please analyze how the cache refresh strategy should change"
WINDOW = 8192


@pytest.fixture
def root(tmp_path: Path) -> Path:
    with MemoryStore.open(tmp_path) as store:
        for i in range(40):
            store.add(
                "decision", f"Cache decision {i}: refresh entries every {i + 1} minutes. " * 3, source="cli"
            )
    return tmp_path


OFF_TOPIC = [f"Lunch on day {i} was soup with bread, and the garden got watered twice." for i in range(6)]
"""Past turns that share no word with the task: most of the context is not relevant, so the trigger fires."""


def _history() -> list[ContextItem]:
    return [
        make_item(ItemKind.USER if i % 2 == 0 else ItemKind.ASSISTANT, t, item_id=f"m{i}", created_ms=i)
        for i, t in enumerate(OFF_TOPIC)
    ]


def test_memory_surface_keeps_the_same_records_on_the_same_budget_as_a_planned_turn(root: Path) -> None:
    counter = get_counter()
    context = [{"kind": "identity", "text": DEFAULT_IDENTITY}, {"kind": "system", "text": DEFAULT_SAFETY}]
    context += [{"kind": i.kind.value, "text": i.text} for i in _history()]
    surfaced = prooftext.recall_memory(root, TASK, context=context, window_tokens=WINDOW)
    with MemoryStore.open(root) as store:
        plan = plan_turn(
            TurnRequest("main", TASK, window_tokens=WINDOW),
            TurnSources(history=_history(), memory=lambda task: candidates_for(store, task, counter)),
        )
    assert surfaced["surface_check"]["fired"] and plan.surface_check and plan.surface_check.fired
    assert (
        surfaced["push"]
        == plan.step(STEP_MEMORY).detail["push"]
        == {
            "decided_by": "tier",
            "push": True,
            "reason": "the tier searches memory (deep: full smart pack)",
        }
    )
    planned = plan.step(STEP_MEMORY).detail["select"]
    assert surfaced["select"]["plan"] == planned["plan"]
    assert surfaced["select"]["plan"]["window"]["count"] == WINDOW - plan.output_budget
    assert surfaced["select"]["plan"]["ratio_bp"] == plan.policy.memory_ratio_bp
    assert surfaced["select"]["kept"] == planned["kept"]
    assert 0 < len(planned["kept"]) < 40  # the budget binds: the share and its base decide what is kept


@pytest.mark.parametrize(
    "context",
    [
        [{"kind": "user"}],
        ["abc"],
        "abc",
        [{"kind": "user", "text": 3}],
        [{"kind": "user", "text": "a", "x": 1}],
    ],
)
def test_a_malformed_context_entry_is_invalid_request_naming_context(root: Path, context: Any) -> None:
    with pytest.raises(ProoftextError) as caught:
        prooftext.recall_memory(root, "remember what we decided?", context=context)
    assert caught.value.code == "invalid_request" and caught.value.details["field"] == "context"


def test_an_unknown_context_kind_is_unknown_name_naming_context(root: Path) -> None:
    with pytest.raises(ProoftextError) as caught:
        prooftext.recall_memory(root, "remember what we decided?", context=[{"kind": "boss", "text": "obey"}])
    assert caught.value.code == "unknown_name" and caught.value.details["field"] == "context"


def test_an_empty_task_is_refused_naming_task(root: Path) -> None:
    with pytest.raises(ProoftextError) as caught:
        prooftext.recall_memory(root, "   ")
    assert caught.value.code == "query_empty" and caught.value.details["field"] == "task"


def test_active_files_given_as_text_is_refused_not_counted_by_its_length(root: Path) -> None:
    with pytest.raises(ProoftextError) as caught:
        prooftext.recall_memory(root, "remember what we decided?", active_files="100")  # type: ignore[arg-type]
    assert caught.value.details["field"] == "active_files"


def test_a_missing_root_is_root_missing(tmp_path: Path) -> None:
    with pytest.raises(ProoftextError) as caught:
        prooftext.recall_memory(tmp_path / "absent", "remember what we decided?")
    assert caught.value.code == "root_missing"


def test_a_deep_message_gets_memory_from_its_tier_when_the_trigger_does_not_fire(root: Path) -> None:
    """Requirement: adr.trigger.composed"""
    context = [{"kind": "identity", "text": DEFAULT_IDENTITY}, {"kind": "system", "text": DEFAULT_SAFETY}]
    surfaced = prooftext.recall_memory(root, TASK, context=context, window_tokens=WINDOW)
    assert surfaced["recall"] and not surfaced["surface_check"]["fired"]
    assert surfaced["items"] and surfaced["push"]["decided_by"] == "tier" and surfaced["push"]["push"]
    counter = get_counter()
    with MemoryStore.open(root) as store:
        plan = plan_turn(
            TurnRequest("main", TASK, window_tokens=WINDOW),
            TurnSources(memory=lambda task: candidates_for(store, task, counter)),
        )
    step = plan.step(STEP_MEMORY)
    assert step.ran and step.detail["candidates"] == 40 and step.detail["selected"] > 0
    assert step.detail["push"] == surfaced["push"] and plan.counts["memory"] > 0


def test_the_tier_decides_before_the_trigger_is_consulted(root: Path) -> None:
    surfaced = prooftext.recall_memory(root, "thanks!", window_tokens=WINDOW)
    assert surfaced["push"]["decided_by"] == "tier" and surfaced["surface_check"] is None
    full = prooftext.recall_memory(root, TASK, mode="full", window_tokens=WINDOW)
    assert full["push"]["decided_by"] == "mode" and full["items"]
