"""Typed memory: decisions, constraints, discoveries and failures with provenance, and chat history."""

from __future__ import annotations

from prooftext.memory.store import (
    KINDS,
    SCHEMA_VERSION,
    MemoryRecord,
    MemoryStore,
    StoredMessage,
    ThreadInfo,
)
from prooftext.memory.surface import candidates_for, record_item, records_to_items, surface_memory

__all__ = [
    "KINDS",
    "SCHEMA_VERSION",
    "MemoryRecord",
    "MemoryStore",
    "StoredMessage",
    "ThreadInfo",
    "candidates_for",
    "record_item",
    "records_to_items",
    "surface_memory",
]
