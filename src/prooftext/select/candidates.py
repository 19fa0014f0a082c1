"""A candidate: one node of the index that a selection may take, with its rank components and excerpt range."""

from __future__ import annotations

from dataclasses import dataclass, field

from prooftext.corpus.model import AUTHORITIES, SENSITIVITIES
from prooftext.store.queries import NodeIdentity, NodeRow

PHASE_REQUIRED = 0
PHASE_TRAVERSAL = 1
PHASE_IDENTIFIER = 2
PHASE_LEXICAL = 3
PHASE_NAMES = {
    PHASE_REQUIRED: "required",
    PHASE_TRAVERSAL: "traversal",
    PHASE_IDENTIFIER: "identifier",
    PHASE_LEXICAL: "lexical",
}

RANK_GROUP = {PHASE_REQUIRED: 0, PHASE_TRAVERSAL: 1, PHASE_IDENTIFIER: 2, PHASE_LEXICAL: 2}
"""Identifier and lexical evidence are fused into one priority (its components recorded), so they share a
rank group; ranking identifier hits strictly first let a weak identifier match in a test file outrank the
file an issue is about (file Acc@5 on the development split dropped). The phase stays recorded."""

_AUTHORITY_ORDER = {name: i for i, name in enumerate(AUTHORITIES)}
_SENSITIVITY_ORDER = {name: i for i, name in enumerate(SENSITIVITIES)}

SCALE = 1_000_000
"""Scores are recorded as integers in millionths: artifacts hold no floats."""


@dataclass
class Candidate(NodeIdentity):
    """A node proposed for selection: its lines and labels, the excerpt it would quote, and how it ranks."""

    node_start: int
    node_end: int
    start_line: int
    end_line: int
    file_sha256: str
    authority: str
    sensitivity: str
    freshness: str
    phase: int = PHASE_LEXICAL
    reason: str = "lexical"
    distance: int = 0
    priority: int = 0
    components: dict[str, int] = field(default_factory=dict)

    def rank_key(self) -> tuple[int, int, int, int, int, str, int]:
        """Rank group of the phase, then fused priority (desc), graph distance, authority, sensitivity, and the
        node id and first line (a function's head before its tail) as the final tie-break."""
        return (
            RANK_GROUP[self.phase],
            -self.priority,
            self.distance,
            _AUTHORITY_ORDER.get(self.authority, len(AUTHORITIES)),
            _SENSITIVITY_ORDER.get(self.sensitivity, len(SENSITIVITIES)),
            self.node_id,
            self.start_line,
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "node_id": self.node_id,
            "kind": self.kind,
            "path": self.path,
            "qualname": self.qualname,
            "symbol_kind": self.symbol_kind,
            "node_range": [self.node_start, self.node_end],
            "excerpt_range": [self.start_line, self.end_line],
            "phase": PHASE_NAMES[self.phase],
            "reason": self.reason,
            "distance": self.distance,
            "priority": self.priority,
            "components": dict(sorted(self.components.items())),
            "authority": self.authority,
            "sensitivity": self.sensitivity,
        }


def candidate_from_row(row: NodeRow, phase: int, reason: str) -> Candidate:
    """A candidate for the whole of ``row``'s node, in ``phase`` for ``reason``."""
    return Candidate(
        node_id=row.node_id,
        kind=row.kind,
        path=row.path,
        name=row.name,
        qualname=row.qualname,
        symbol_kind=row.symbol_kind,
        node_start=row.start,
        node_end=row.end,
        start_line=row.start,
        end_line=row.end,
        file_sha256=row.sha256,
        authority=row.authority,
        sensitivity=row.sensitivity,
        freshness=row.freshness,
        phase=phase,
        reason=reason,
    )
