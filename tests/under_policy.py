"""Ranking and packing under a given ranking policy (the index's own methods use the default one)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import prooftext
from prooftext.pack.packet import Compiler, Packet
from prooftext.select.policy import RankingPolicy
from prooftext.select.query import Query, validate
from prooftext.select.rank import rank
from prooftext.select.terms import analyze


def ranked_under(root: Path, query: str, policy: RankingPolicy, limit: int = 50) -> list[dict[str, Any]]:
    """The ranked candidates of ``query`` over ``root`` under ``policy``, refreshed first."""
    with prooftext.open(root) as index:
        index.refresh()
        ranked = rank(index.conn, validate(Query(text=query)), analyze(query), policy)
    return [c.to_dict() for c in ranked.candidates[:limit]]


def packed_under(root: Path, query: str, policy: RankingPolicy, **fields: Any) -> Packet:
    """A packet of ``query`` over ``root`` ranked under ``policy``; ``fields`` are the query's other fields."""
    with prooftext.open(root) as index:
        index.refresh()
        return Compiler(index.conn, index.root, Query(text=query, **fields), policy=policy).compile()
