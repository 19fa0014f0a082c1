"""Depth tiers: classify each chat turn as surface, standard or deep, and each tier's policy."""

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
from prooftext.depth.signals import KnownTerms, RepositoryTerms, memory_terms_in, names_in
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

__all__ = [
    "HISTORY_CAP",
    "MARKER",
    "OUTPUT_BUDGET",
    "SURFACE_ALLOWLIST",
    "KnownTerms",
    "Mode",
    "RecallDecision",
    "RecallSignal",
    "RepositoryTerms",
    "Tier",
    "TierDecision",
    "TurnPolicy",
    "classify",
    "classify_detailed",
    "memory_terms_in",
    "names_in",
    "parse_mode",
    "policy_for",
    "recall_signal",
    "should_recall_memory",
    "status_label",
]
