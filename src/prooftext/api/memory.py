"""Depth tiers and typed memory, as every interface reports them."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prooftext.conversation.health import compute_health
from prooftext.conversation.items import ContextItem, ItemKind, make_item
from prooftext.conversation.surfacing import should_surface
from prooftext.conversation.turn import (
    DEFAULT_WINDOW_TOKENS,
    prompt_budget_for,
    push_decision,
    select_memory,
    trigger_may_push,
)
from prooftext.corpus.lines import require_utf8
from prooftext.depth.policy import DEFAULT_MODE, Mode, TurnPolicy, policy_for, should_recall_memory
from prooftext.depth.signals import NO_KNOWN_TERMS, KnownTerms, memory_terms_in, names_in
from prooftext.depth.tiers import RecallSignal, TierDecision, classify_detailed, recall_signal
from prooftext.errors import RequestError, UnknownNameError
from prooftext.memory.store import MemoryStore, check_root
from prooftext.memory.surface import candidates_for
from prooftext.tokens import DEFAULT_TOKENIZER, Counter, get_counter

ITEM_KINDS: tuple[str, ...] = tuple(k.value for k in ItemKind)


@dataclass(frozen=True)
class DepthReport:
    """How a message is classified (its tier, rule and reasons), its smart-mode policy and recall signal."""

    decision: TierDecision
    policy: TurnPolicy
    signal: RecallSignal

    def to_dict(self) -> dict[str, Any]:
        return {
            "decision": self.decision.to_dict(),
            "policy": self.policy.to_dict(),
            "signal": self.signal.to_dict(),
        }


def depth_report(text: str, *, attachment: bool = False, active_files: int = 0) -> DepthReport:
    """The tier decision of ``text``, its policy under smart mode and its recall signal. Text holding a byte
    that is not UTF-8 (a lone surrogate from the command line) is refused, as a turn's text is."""
    if isinstance(text, str):
        require_utf8(text, "text")
    decision = classify_detailed(text, has_attachment=attachment, active_files=active_files)
    signal = recall_signal(text)
    return DepthReport(decision, policy_for(Mode.SMART, decision.tier, signal), signal)


@contextmanager
def renamed_field(inner: str, outer: str) -> Iterator[None]:
    """Report a request error about the core parameter ``inner`` under ``outer``, the name the caller used.

    The core names its own parameters (``should_recall_memory(text=…)``); an interface that calls the same
    value ``task`` must say ``task``, or the caller is told to fix a field it never sent."""
    try:
        yield
    except RequestError as exc:
        if exc.field != inner:
            raise
        details = {k: v for k, v in exc.details.items() if k != "field"}
        raise type(exc)(exc.message, field=outer, **details) from None


CONTEXT_FIELDS = frozenset({"kind", "text"})
"""What one entry of ``context`` holds, exactly (as the ``memory.surface`` params schema says)."""


def _context_items(context: object, task: str, counter: Counter) -> list[ContextItem]:
    """The caller's ``context`` entries as items, then the task as the current turn; a malformed entry is a
    request error naming ``context`` and the entry's index, never a ``KeyError`` or ``TypeError``."""
    if isinstance(context, (str, bytes, Mapping)) or not isinstance(context, Sequence):
        raise RequestError("context must be a list of {kind, text} objects", field="context")
    items: list[ContextItem] = []
    for pos, entry in enumerate(context):
        if not isinstance(entry, Mapping) or set(entry) != CONTEXT_FIELDS:
            raise RequestError(
                f"context[{pos}] must be an object with exactly the fields 'kind' and 'text'",
                field="context",
                index=pos,
            )
        kind, text = entry["kind"], entry["text"]
        if not isinstance(kind, str) or not isinstance(text, str):
            raise RequestError(f"context[{pos}]: kind and text must be strings", field="context", index=pos)
        if kind not in ITEM_KINDS:
            raise UnknownNameError(
                f"context[{pos}]: unknown item kind {kind!r}; known: {', '.join(ITEM_KINDS)}",
                field="context",
                index=pos,
                known=list(ITEM_KINDS),
            )
        items.append(make_item(kind, text, counter=counter))
    items.append(make_item(ItemKind.USER, task, item_id="turn:current", current=True, counter=counter))
    return items


def _surfaced(item: ContextItem) -> dict[str, Any]:
    return {
        "item_id": item.item_id,
        "kind": item.meta.get("record_kind"),
        "label": item.label,
        "record_id": item.meta.get("record_id"),
        "strength": item.meta.get("strength"),
        "text": item.text,
        "tokens": item.tokens.to_dict() if item.tokens else None,
    }


def recall_memory(
    root: Path | str,
    task: str,
    *,
    mode: str = DEFAULT_MODE.value,
    context: Sequence[Mapping[str, str]] = (),
    window_tokens: int = DEFAULT_WINDOW_TOKENS,
    tokenizer: str = DEFAULT_TOKENIZER,
    has_attachment: bool = False,
    active_files: int = 0,
) -> dict[str, Any]:
    """Should memory be recalled for ``task``, and which records fit the surfacing budget (ADR-0025).

    Exactly as a planned turn does: the depth gate decides whether memory is searched (a greeting never is,
    a deep message always is); where the gate keeps it off on a standard message, the trigger (window usage,
    relevant ratio of ``context``, measured against the prompt budget: the window less the policy's output
    budget) may still push it proactively. ``push`` records which rule decided and why; then ``select`` keeps
    the candidates that fit the policy's memory share of the prompt budget.
    """
    base = check_root(root)
    store = MemoryStore.existing(base)
    known = NO_KNOWN_TERMS
    if store is not None:
        with store:
            records = [r.text for r in store.records()]
        known = KnownTerms(names_in(records), None, memory_terms_in(records))
    with renamed_field("text", "task"):
        gate = should_recall_memory(
            task, mode=mode, has_attachment=has_attachment, active_files=active_files, known=known
        )
    out: dict[str, Any] = {"gate": gate.to_dict(), "recall": gate.recall, "items": [], "note": None}
    out.update({"health": None, "surface_check": None, "select": None})
    out["push"] = push_decision(gate.policy, None).to_dict()
    if not (gate.recall or trigger_may_push(gate.policy)):
        out["note"] = "depth gate: memory search is off for this message"
        return out
    counter = get_counter(tokenizer)
    prompt_budget = prompt_budget_for(window_tokens, gate.policy)
    health = compute_health(_context_items(context, task, counter), task, counter, prompt_budget)
    check = should_surface(health)
    push = push_decision(gate.policy, check)
    out.update({"health": health.to_dict(), "surface_check": check.to_dict(), "push": push.to_dict()})
    if not push.push:
        out["note"] = f"nothing pushed: {push.reason}"
        return out
    store = MemoryStore.existing(base)
    if store is None:
        out["note"] = "no memory store under this root"
        return out
    with store:
        candidates = candidates_for(store, task, counter)
    decision = select_memory(candidates, task, gate.policy, health, push, counter)
    out.update({"select": decision.to_dict(), "items": [_surfaced(i) for i in decision.items]})
    return out
