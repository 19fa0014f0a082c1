"""Conversation context: items, the token-ledgered pipeline, health and the surfacing pre-pass.

This package never imports ``prooftext.memory``: memory comes in as plain items of kind ``memory``.
"""

from __future__ import annotations

from prooftext.conversation.health import ContextHealth, compute_health
from prooftext.conversation.items import ContextItem, ItemKind, check_thread, content_hash, make_item
from prooftext.conversation.pipeline import Drop, Ledger, Pipeline, PipelineResult, Priority, StageRecord
from prooftext.conversation.rank import BM25Ranker, Ranker, bm25_scores
from prooftext.conversation.render import render_messages
from prooftext.conversation.surfacing import (
    BudgetPlan,
    ContextTrigger,
    SurfaceCheck,
    SurfaceDecision,
    plan_budget,
    select,
    should_surface,
)

__all__ = [
    "BM25Ranker",
    "BudgetPlan",
    "ContextHealth",
    "ContextItem",
    "ContextTrigger",
    "Drop",
    "ItemKind",
    "Ledger",
    "Pipeline",
    "PipelineResult",
    "Priority",
    "Ranker",
    "StageRecord",
    "SurfaceCheck",
    "SurfaceDecision",
    "bm25_scores",
    "check_thread",
    "compute_health",
    "content_hash",
    "make_item",
    "plan_budget",
    "render_messages",
    "select",
    "should_surface",
]
