"""Who decides whether memory enters a turn: the depth tier's gate searches it, ADR-0025's trigger only adds a
proactive push where the gate alone would not, explicit modes win, and a message with no scorable terms gets
no record at all. A planned turn and ``memory.surface`` decide alike."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

import prooftext
from prooftext.conversation.health import compute_health
from prooftext.conversation.items import ContextItem, ItemKind, make_item
from prooftext.conversation.surfacing import should_surface
from prooftext.conversation.turn import (
    DEFAULT_IDENTITY,
    DEFAULT_SAFETY,
    STEP_MEMORY,
    TurnPlan,
    TurnRequest,
    TurnSources,
    plan_turn,
)
from prooftext.depth import Tier
from prooftext.memory import MemoryStore
from prooftext.tokens import get_counter

WINDOW = 8192
DEEP = "Please analyze how the cache refresh strategy should change"
STANDARD_NO_SIGNAL = "sounds good to me"
OFF_TOPIC = [f"Lunch on day {i} was soup with bread, and the garden got watered twice." for i in range(6)]
"""Past turns sharing no word with the messages: most of the context is not relevant, so the trigger fires."""


class Memory:
    """A memory source of forty records that counts its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, task: str) -> Sequence[ContextItem]:
        self.calls += 1
        return [
            make_item(
                ItemKind.MEMORY,
                f"Cache decision {i}: refresh entries every {i + 1} minutes.",
                item_id=f"memory:{i}",
            )
            for i in range(40)
        ]


def _off_topic() -> list[ContextItem]:
    return [
        make_item(ItemKind.USER if i % 2 == 0 else ItemKind.ASSISTANT, t, item_id=f"m{i}", created_ms=i)
        for i, t in enumerate(OFF_TOPIC)
    ]


def _plan(text: str, memory: Memory, *, history: bool, mode: str = "smart") -> TurnPlan:
    sources = TurnSources(history=_off_topic() if history else (), memory=memory)
    return plan_turn(TurnRequest("main", text, mode=mode, window_tokens=WINDOW), sources)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    with MemoryStore.open(tmp_path) as store:
        for i in range(40):
            store.add("decision", f"Cache decision {i}: refresh entries every {i + 1} minutes.", source="cli")
    return tmp_path


def _context(history: bool) -> list[dict[str, str]]:
    core = [{"kind": "identity", "text": DEFAULT_IDENTITY}, {"kind": "system", "text": DEFAULT_SAFETY}]
    return core + ([{"kind": i.kind.value, "text": i.text} for i in _off_topic()] if history else [])


def test_a_deep_turn_searches_and_selects_memory_although_the_trigger_does_not_fire(root: Path) -> None:
    memory = Memory()
    plan = _plan(DEEP, memory, history=False)
    assert plan.tier is Tier.DEEP and plan.surface_check is not None and not plan.surface_check.fired
    step = plan.step(STEP_MEMORY)
    assert memory.calls == 1 and step.ran and step.detail["selected"] > 0 and plan.counts["memory"] > 0
    assert step.detail["push"] == {
        "decided_by": "tier",
        "push": True,
        "reason": "the tier searches memory (deep: full smart pack)",
    }
    assert step.detail["select"]["trigger"]["source"] == "depth_policy"
    surfaced = prooftext.recall_memory(root, DEEP, context=_context(False), window_tokens=WINDOW)
    assert surfaced["push"] == step.detail["push"] and surfaced["items"]
    assert not surfaced["surface_check"]["fired"]


def test_a_standard_turn_without_a_recall_signal_gets_memory_only_as_a_proactive_push(root: Path) -> None:
    quiet = Memory()
    plan = _plan(STANDARD_NO_SIGNAL, quiet, history=False)
    assert plan.tier is Tier.STANDARD and not plan.policy.memory
    step = plan.step(STEP_MEMORY)
    assert quiet.calls == 0 and not step.ran and step.detail["push"]["decided_by"] == "trigger"
    assert "the trigger did not fire" in step.reason and "no recall signal" in step.reason
    pushed = Memory()
    plan = _plan(STANDARD_NO_SIGNAL, pushed, history=True)
    step = plan.step(STEP_MEMORY)
    assert pushed.calls == 1 and step.ran and plan.counts["memory"] > 0
    assert step.detail["push"] == {
        "decided_by": "trigger",
        "push": True,
        "reason": "proactive push: the trigger fired (low_relevant_ratio)",
    }
    assert step.detail["select"]["trigger"]["source"] == "health"
    surfaced = prooftext.recall_memory(root, STANDARD_NO_SIGNAL, context=_context(True), window_tokens=WINDOW)
    assert not surfaced["recall"] and surfaced["push"] == step.detail["push"] and surfaced["items"]


def test_surface_and_minimal_turns_never_search_memory_even_when_the_trigger_would_fire() -> None:
    for text, mode, decided_by in (("hi", "smart", "tier"), (DEEP, "minimal", "mode")):
        memory = Memory()
        plan = _plan(text, memory, history=True, mode=mode)
        step = plan.step(STEP_MEMORY)
        assert memory.calls == 0 and not step.ran and plan.counts["memory"] == 0
        assert step.detail["push"]["decided_by"] == decided_by and not step.detail["push"]["push"]
    full = _plan(STANDARD_NO_SIGNAL, Memory(), history=False, mode="full")
    assert full.step(STEP_MEMORY).detail["push"]["decided_by"] == "mode" and full.counts["memory"] > 0


UNSCORABLE_DEEP = "why? how?"
"""Two questions (a deep turn, whose tier searches memory) and not one term a record could be relevant to."""


@pytest.mark.parametrize("mode", ["smart", "full"])
def test_a_message_with_no_scorable_terms_neither_fires_the_relevance_trigger_nor_gets_every_record(
    root: Path, mode: str
) -> None:
    memory = Memory()
    plan = _plan(UNSCORABLE_DEEP, memory, history=True, mode=mode)
    assert plan.health is not None and plan.health.relevant_ratio_bp is None
    assert plan.surface_check is not None and not plan.surface_check.fired
    step = plan.step(STEP_MEMORY)
    assert step.detail["selected"] == 0 and plan.counts["memory"] == 0
    assert {d["reason"] for d in step.detail["select"]["dropped"]} == {"unscorable_task"}
    surfaced = prooftext.recall_memory(
        root, UNSCORABLE_DEEP, mode=mode, context=_context(True), window_tokens=WINDOW
    )
    assert surfaced["items"] == [] and surfaced["health"]["relevant_ratio_bp"] is None


def test_health_of_a_task_with_no_scorable_terms_says_why_relevance_is_not_measured() -> None:
    items = [make_item(ItemKind.USER, t, item_id=f"m{i}") for i, t in enumerate(OFF_TOPIC)]
    health = compute_health(items, "why?", get_counter(), WINDOW)
    assert health.relevant_ratio_bp is None and health.unmeasured_reason == (
        "the task has no scorable terms: relevance cannot be measured"
    )
    assert not should_surface(health).fired
