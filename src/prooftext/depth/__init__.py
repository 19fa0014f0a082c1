"""Depth tiers: classify each chat turn as surface, standard or deep, and plan it under that tier's policy."""

from __future__ import annotations

from prooftext.depth.policy import (
    HISTORY_CAP,
    OUTPUT_BUDGET,
    Mode,
    RecallDecision,
    TurnPolicy,
    parse_mode,
    policy_for,
    should_recall_memory,
    status_label,
)
from prooftext.depth.retrieval import index_retriever
from prooftext.depth.tiers import (
    MARKER,
    SURFACE_ALLOWLIST,
    RecallSignal,
    Tier,
    TierDecision,
    classify,
    classify_detailed,
    recall_signal,
)
from prooftext.depth.turn import (
    DEFAULT_WINDOW_TOKENS,
    MAX_MESSAGE_BYTES,
    HistorySource,
    MemorySource,
    RetrievalResult,
    Retriever,
    StepRecord,
    TurnPlan,
    plan_turn,
)

__all__ = [
    "DEFAULT_WINDOW_TOKENS",
    "HISTORY_CAP",
    "MARKER",
    "MAX_MESSAGE_BYTES",
    "OUTPUT_BUDGET",
    "SURFACE_ALLOWLIST",
    "HistorySource",
    "MemorySource",
    "Mode",
    "RecallDecision",
    "RecallSignal",
    "RetrievalResult",
    "Retriever",
    "StepRecord",
    "Tier",
    "TierDecision",
    "TurnPlan",
    "TurnPolicy",
    "classify",
    "classify_detailed",
    "index_retriever",
    "parse_mode",
    "plan_turn",
    "policy_for",
    "recall_signal",
    "should_recall_memory",
    "status_label",
]
