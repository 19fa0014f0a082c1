"""Ranking and packing under a given ranking policy: an index handle opened with it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import prooftext
from prooftext import Packet, Query, RankingPolicy


def ranked_under(root: Path, query: str, policy: RankingPolicy, limit: int = 50) -> list[dict[str, Any]]:
    """The ranked candidates of ``query`` over ``root`` under ``policy``, refreshed first."""
    with prooftext.open(root, ranking=policy) as index:
        index.refresh()
        return index.search(query, limit=limit)


def packed_under(root: Path, query: str, policy: RankingPolicy, **fields: Any) -> Packet:
    """A packet of ``query`` over ``root`` ranked under ``policy``; ``fields`` are the query's other fields."""
    with prooftext.open(root, ranking=policy) as index:
        return index.pack(Query(query, **fields))
