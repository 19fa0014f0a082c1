"""The tuned packet ranking as a ranker of the selection pipeline.

The candidates :func:`prooftext.select.rank.rank` ranked for a query (once per compilation) follow the
nodes the traversal reached, in the order it reached them, each excerpted as its head (and tail); a fill
considers the best :func:`ranked_window` of the rest, and those below it are the cut.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from prooftext.select.candidates import Candidate
from prooftext.select.expand import apply_heads
from prooftext.select.pipeline import Ordered
from prooftext.select.policy import DEFAULT_POLICY, RankingPolicy
from prooftext.select.query import Query
from prooftext.select.traverse import Reached

MIN_RANKED_CANDIDATES = 200
UNITS_PER_CANDIDATE = 40
"""A fill considers the best ``max(200, ceiling // 40)`` ranked candidates: a block's label alone costs
more than 40 units, so a packet never holds that many excerpts, and a long issue text ranks many more,
which every rung of a ladder would otherwise look at again."""


def ranked_window(query: Query) -> int:
    """How many ranked candidates a fill for ``query`` considers."""
    return max(MIN_RANKED_CANDIDATES, query.max_tokens // UNITS_PER_CANDIDATE)


@dataclass(frozen=True)
class TunedRanker:
    """The order of the tuned packet ranking's candidates ``ranked``, over the index behind ``conn``."""

    conn: sqlite3.Connection
    ranked: Sequence[Candidate]
    policy: RankingPolicy = DEFAULT_POLICY
    """The policy ``ranked`` was ranked under; its heads and tails apply to the traversal too."""

    def order(
        self, query: Query, required: Sequence[Candidate], reached: Reached[Candidate]
    ) -> Ordered[Candidate, None]:
        traversed = []
        for cand, depth in reached.nodes:
            cand.distance = depth
            traversed.append(cand)
        traversed = apply_heads(self.conn, traversed, self.policy)
        skip = {c.node_id for c in required} | {c.node_id for c in traversed}
        hits = [c for c in self.ranked if c.node_id not in skip]
        window = ranked_window(query)
        return Ordered([*traversed, *hits[:window]], hits[window:], None)
