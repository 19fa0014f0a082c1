"""Named limits of the context artifact lifecycle (context framework seed, ``M5``).

Text limits count Unicode characters, byte limits count bytes, and the two are independent: a node's text is
capped at ``MAX_TEXT_CHARS`` characters in both the runtime contract and the JSON Schema, while one source
keeps the exact ``MAX_SOURCE_BYTES`` UTF-8 ceiling and every artifact file has its own byte ceiling.
"""

from __future__ import annotations

import prooftext.select.query as _query

SCHEMA_VERSION = "1.0"

KIB = 1024
MIB = 1024 * KIB

MAX_TEXT_CHARS = 65_536
"""Identity-bearing node, extract and claim text, in Unicode characters."""
MAX_SOURCE_BYTES = 256 * KIB
"""One source, in bytes of its complete strict UTF-8 content; a larger one is ``limit_exceeded`` (excluded when
optional, blocking when required), whatever ``[scan] max_file_bytes`` lets the index hold."""
MAX_TOTAL_SOURCE_BYTES = 8 * MIB
"""All sources adopted by one indexing run together."""
MAX_PATH_CHARS = 4096
MAX_NAME_CHARS = 65_536
MAX_LABEL_CHARS = 64
MAX_DETAIL_CHARS = 512
"""Exclusion details are bounded reasons, never copies of rejected text."""
MAX_PROVENANCE_REFS = 64
MAX_CLAIMS = 1024
MAX_CLAIM_LINKS = 256
MAX_LIST_ITEMS = 1_000_000

MIN_QUERY_BYTES, MAX_QUERY_BYTES = _query.MIN_BYTES, _query.MAX_BYTES
MIN_QUERY_NODES, MAX_QUERY_NODES = _query.MIN_NODES, _query.MAX_NODES
MIN_QUERY_EDGES, MAX_QUERY_EDGES = _query.MIN_EDGES, _query.MAX_EDGES
MIN_QUERY_DEPTH, MAX_QUERY_DEPTH = _query.MIN_DEPTH, _query.MAX_DEPTH
MAX_QUERY_CHARS = _query.MAX_QUERY_CHARS

UNREACHED_DISTANCE = MAX_QUERY_DEPTH + 1
"""Graph distance recorded for a node the breadth-first traversal did not reach."""

BPS_WHOLE = 10_000
"""Ratios are integers in basis points: artifacts hold no floats."""

ARTIFACT_MAX_BYTES: dict[str, int] = {
    "manifest": 32 * MIB,
    "graph": 64 * MIB,
    "query": 1 * MIB,
    "selection": 16 * MIB,
    "snapshot": 32 * MIB,
    "compaction": 32 * MIB,
    "host-summary-proposal": 8 * MIB,
    "quality-report": 1 * MIB,
}
"""Whole-artifact byte ceilings of the canonical file, independent of the text limits."""

MAX_ARTIFACT_BYTES = max(ARTIFACT_MAX_BYTES.values())


def shortened_detail(message: str) -> str:
    """``message`` cut to :data:`MAX_DETAIL_CHARS` characters, as an artifact's ``detail`` field holds it."""
    return message if len(message) <= MAX_DETAIL_CHARS else message[: MAX_DETAIL_CHARS - 1] + "…"
