"""Per-turn policy: what a mode and tier let a turn use (memory, retrieval, files, summary, history, output).

Tiers apply only in ``smart`` mode. ``full`` and ``minimal`` are explicit user overrides and win: full uses
everything; minimal really is light (no memory, no retrieval, no summary, no files, the last two messages).
The output budget bounds generation length only; no policy ever chooses or switches the model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from prooftext.depth.signals import NO_KNOWN_TERMS, KnownTerms
from prooftext.depth.tiers import RecallSignal, Tier, classify_detailed, recall_signal
from prooftext.errors import UnknownNameError


class Mode(StrEnum):
    SMART = "smart"
    FULL = "full"
    MINIMAL = "minimal"


DEFAULT_MODE = Mode.SMART

HISTORY_CAP: dict[Tier, int] = {Tier.SURFACE: 2, Tier.STANDARD: 8, Tier.DEEP: 20}
"""Messages of the thread in the prompt, counting the current user turn (surface: prior reply + current)."""

OUTPUT_BUDGET: dict[Tier, int] = {Tier.SURFACE: 192, Tier.STANDARD: 1024, Tier.DEEP: 2048}
"""``num_predict`` / ``max_tokens`` per tier: generation length only, never model identity."""

RETRIEVAL_RATIO_BP: dict[Tier, int] = {Tier.SURFACE: 0, Tier.STANDARD: 1500, Tier.DEEP: 3000}
"""Share of the prompt budget (window minus output budget) offered to retrieval (standard: the surfacing
default of 15 %)."""

MEMORY_RATIO_BP: dict[Tier, int] = {Tier.SURFACE: 0, Tier.STANDARD: 1500, Tier.DEEP: 1500}
"""Share of the prompt budget (window minus output budget) offered to surfaced memory: a planned turn and
``memory.surface`` both apply it, so they keep the same records for the same message and context."""

FULL_HISTORY_CAP: int | None = None
"""Full mode offers the whole thread; the pipeline's budget stage trims it, recording each drop."""

FULL_OUTPUT_BUDGET = 2048
MINIMAL_HISTORY_CAP = 2
MINIMAL_OUTPUT_BUDGET = 1024
"""Minimal trims context, not answers: it keeps the standard output budget."""

FULL_RATIO_BP = 3000


def parse_mode(mode: str | Mode) -> Mode:
    try:
        return Mode(mode)
    except ValueError:
        raise UnknownNameError(
            f"unknown mode {mode!r}; known: {', '.join(m.value for m in Mode)}",
            field="mode",
            known=[m.value for m in Mode],
        ) from None


def status_label(mode: Mode, tier: Tier | None) -> str:
    """The readout: ``Context: Smart · Surface|Standard|Deep``, ``Context: Full`` or ``Context: Minimal``."""
    if mode is Mode.SMART and tier is not None:
        return f"Context: Smart · {tier.value.capitalize()}"
    return f"Context: {mode.value.capitalize()}"


@dataclass(frozen=True)
class TurnPolicy:
    mode: Mode
    tier: Tier | None
    memory: bool
    retrieval: bool
    files: bool
    summary: bool
    concise_guidance: bool
    history_cap: int | None
    output_budget: int
    memory_ratio_bp: int
    retrieval_ratio_bp: int
    reasons: tuple[str, ...]

    @property
    def label(self) -> str:
        return status_label(self.mode, self.tier)

    def to_dict(self) -> dict[str, Any]:
        return {
            "concise_guidance": self.concise_guidance,
            "files": self.files,
            "history_cap": self.history_cap,
            "label": self.label,
            "memory": self.memory,
            "memory_ratio_bp": self.memory_ratio_bp,
            "mode": self.mode.value,
            "output_budget": self.output_budget,
            "reasons": list(self.reasons),
            "retrieval": self.retrieval,
            "retrieval_ratio_bp": self.retrieval_ratio_bp,
            "summary": self.summary,
            "tier": self.tier.value if self.tier else None,
        }


def policy_for(mode: Mode, tier: Tier | None, signal: RecallSignal | None = None) -> TurnPolicy:
    """The policy of one turn. In smart mode ``tier`` is required; a standard turn also needs ``signal``."""
    if mode is Mode.FULL:
        return TurnPolicy(
            mode, None, True, True, True, True, False, FULL_HISTORY_CAP, FULL_OUTPUT_BUDGET,
            FULL_RATIO_BP, FULL_RATIO_BP, ("mode full: explicit override, everything on",),
        )  # fmt: skip
    if mode is Mode.MINIMAL:
        return TurnPolicy(
            mode, None, False, False, False, False, False, MINIMAL_HISTORY_CAP, MINIMAL_OUTPUT_BUDGET,
            0, 0, ("mode minimal: explicit override, no memory, retrieval, summary or files",),
        )  # fmt: skip
    if tier is None:
        raise UnknownNameError("smart mode needs a tier", field="tier")
    if tier is Tier.SURFACE:
        return TurnPolicy(
            mode, tier, False, False, False, False, True, HISTORY_CAP[tier], OUTPUT_BUDGET[tier], 0, 0,
            ("surface: core and last two messages only; no memory search, retrieval, files or summary",),
        )  # fmt: skip
    if tier is Tier.DEEP:
        return TurnPolicy(
            mode, tier, True, True, True, True, False, HISTORY_CAP[tier], OUTPUT_BUDGET[tier],
            MEMORY_RATIO_BP[tier], RETRIEVAL_RATIO_BP[tier], ("deep: full smart pack",),
        )  # fmt: skip
    memory = signal is not None and signal.recall
    retrieval = signal is not None and signal.relevance
    why_memory = ", ".join(signal.memory_reasons) if signal and signal.memory_reasons else "no recall signal"
    why_retrieval = (
        ", ".join(signal.retrieval_reasons) if signal and signal.retrieval_reasons else "no relevance signal"
    )
    if signal is None:
        why_memory = why_retrieval = "no signal computed"
    return TurnPolicy(
        mode, tier, memory, retrieval, False, True, False, HISTORY_CAP[tier], OUTPUT_BUDGET[tier],
        MEMORY_RATIO_BP[tier], RETRIEVAL_RATIO_BP[tier],
        (
            f"standard: memory search {'on' if memory else 'off'} ({why_memory}); retrieval "
            f"{'on' if retrieval else 'off'} ({why_retrieval}); summary kept",
        ),
    )  # fmt: skip


@dataclass(frozen=True)
class RecallDecision:
    """Whether a message should trigger memory recall (and retrieval), decided before any search runs."""

    recall: bool
    retrieval: bool
    mode: Mode
    tier: Tier | None
    label: str
    reasons: tuple[str, ...]
    policy: TurnPolicy
    """The turn policy behind the decision: a caller that goes on to surface memory uses its budgets."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "mode": self.mode.value,
            "reasons": list(self.reasons),
            "recall": self.recall,
            "retrieval": self.retrieval,
            "tier": self.tier.value if self.tier else None,
        }


def should_recall_memory(
    text: str,
    *,
    mode: str | Mode = Mode.SMART,
    has_attachment: bool = False,
    active_files: int | Sequence[object] | None = None,
    known: KnownTerms = NO_KNOWN_TERMS,
) -> RecallDecision:
    """The depth gate alone: would this message run memory search and retrieval, and why (no search runs).
    ``known`` is what the thread, memory and open repository know (names, identifiers)."""
    the_mode = parse_mode(mode)
    if the_mode is not Mode.SMART:
        policy = policy_for(the_mode, None)
        return RecallDecision(
            policy.memory, policy.retrieval, the_mode, None, policy.label, policy.reasons, policy
        )
    decision = classify_detailed(text, has_attachment=has_attachment, active_files=active_files)
    signal = recall_signal(text, known) if decision.tier is Tier.STANDARD else None
    policy = policy_for(the_mode, decision.tier, signal)
    reasons = (*decision.reasons, *policy.reasons)
    return RecallDecision(
        policy.memory, policy.retrieval, the_mode, decision.tier, policy.label, reasons, policy
    )
