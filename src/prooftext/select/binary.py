"""The context framework's binary ranking, one of the two rankers of the selection pipeline.

A node qualifies for the first phase it meets: required, reached by the traversal, a symbol the query names
exactly (identifier), or any binary lexical score (lexical). Each distinct query token
(:func:`prooftext.text.ascii_tokens`) scores binary presence in a node's title 16, labels 8, path 4 and
content 1; term frequency adds nothing. Candidates are ordered by the tuple (phase, authority, graph
distance, descending binary score, sensitivity, node id).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from prooftext.corpus.model import AUTHORITIES, SENSITIVITIES
from prooftext.graph.model import NODE_SYMBOL
from prooftext.select.candidates import (
    PHASE_IDENTIFIER,
    PHASE_LEXICAL,
    PHASE_NAMES,
    PHASE_REQUIRED,
    PHASE_TRAVERSAL,
)
from prooftext.select.pipeline import Ordered
from prooftext.select.query import MAX_DEPTH, Query
from prooftext.select.traverse import Reached
from prooftext.text import ascii_tokens, identifiers

BINARY_WEIGHTS = (16, 8, 4, 1)
"""Presence of a query token in a node's title, labels, path and content."""
UNREACHED = MAX_DEPTH + 1
"""Graph distance of a node the traversal did not reach."""


def binary_score(
    terms: AbstractSet[str], fields: Sequence[AbstractSet[str]], weights: Sequence[int] = BINARY_WEIGHTS
) -> int:
    """Sum over the distinct ``terms`` of 16/8/4/1 (or ``weights``) for presence in the tokens of
    title/labels/path/content."""
    return sum(w * len(terms & tokens) for w, tokens in zip(weights, fields, strict=True))


class Rankable(Protocol):
    """What the binary ranking reads of a node besides its text fields."""

    @property
    def node_id(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def authority(self) -> str: ...
    @property
    def sensitivity(self) -> str: ...


R = TypeVar("R", bound=Rankable)


@dataclass
class BinaryRanking(Generic[R]):
    """Rank components of every node: graph distance, binary score and the phase it qualifies for."""

    distance: dict[str, int]
    score: dict[str, int]
    phase: dict[str, int]

    def key(self, node: R) -> tuple[int, int, int, int, int, str]:
        """(phase, authority, graph distance, descending binary score, sensitivity, node id)."""
        node_id = node.node_id
        return (
            self.phase.get(node_id, PHASE_LEXICAL),
            AUTHORITIES.index(node.authority),
            self.distance.get(node_id, UNREACHED),
            -self.score[node_id],
            SENSITIVITIES.index(node.sensitivity),
            node_id,
        )

    def components(self, node: R, phase: int) -> dict[str, Any]:
        """The recorded rank components of ``node`` decided in ``phase``."""
        return {
            "phase": PHASE_NAMES[phase],
            "authority": node.authority,
            "distance": self.distance.get(node.node_id, UNREACHED),
            "lexical_score": self.score[node.node_id],
            "sensitivity": node.sensitivity,
        }


def _phase(
    node: R, required: Collection[str], distance: dict[str, int], names: frozenset[str], score: int
) -> int | None:
    if node.node_id in required:
        return PHASE_REQUIRED
    if node.node_id in distance:
        return PHASE_TRAVERSAL
    if node.kind == NODE_SYMBOL and node.name in names:
        return PHASE_IDENTIFIER
    return PHASE_LEXICAL if score > 0 else None


@dataclass(frozen=True)
class BinaryRanker(Generic[R]):
    """The binary ranking over every node of a graph."""

    nodes: Sequence[R]
    fields: Callable[[R], tuple[str, str, str, str]]
    """A node's title, labels, path and content text."""

    def ranking(self, query: Query, required: Collection[str], distance: dict[str, int]) -> BinaryRanking[R]:
        tokens = ascii_tokens(query.text)
        names = identifiers(query.text)
        ranking: BinaryRanking[R] = BinaryRanking(distance, {}, {})
        for node in self.nodes:
            score = binary_score(tokens, [ascii_tokens(text) for text in self.fields(node)])
            ranking.score[node.node_id] = score
            phase = _phase(node, required, distance, names, score)
            if phase is not None:
                ranking.phase[node.node_id] = phase
        return ranking

    def order(self, query: Query, required: Sequence[R], reached: Reached[R]) -> Ordered[R, BinaryRanking[R]]:
        """Every node that qualifies for a phase after the required one, in rank order; no window."""
        ranking = self.ranking(query, {c.node_id for c in required}, reached.distance)
        optional = [n for n in self.nodes if ranking.phase.get(n.node_id, PHASE_REQUIRED) != PHASE_REQUIRED]
        return Ordered(sorted(optional, key=ranking.key), [], ranking)
