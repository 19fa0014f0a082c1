"""Adaptive compilation (SACP §4-§7): climb the ladder until the estimator passes, with one stop reason.

Each round selects, packs, verifies, counts exact tokens, digests with BLAKE3, estimates and is appended to
the trace. The first passing round is selected; otherwise the final round. A failed estimate still yields
a valid, source-verified packet; callers that want fail-closed behaviour check ``estimated_sufficient``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from prooftext.adaptive.estimator import BPS, Estimate, Thresholds, describe, estimate
from prooftext.adaptive.ladder import (
    Ladder,
    at_hard_limit,
    check_basis,
    default_rungs,
    first_rung,
    next_rung,
    validate_ladder,
    validate_query_text,
)
from prooftext.pack.packet import REASON_EXACT_OVERFLOW, Compiler, Packet
from prooftext.select.candidates import PHASE_IDENTIFIER, PHASE_LEXICAL, Candidate
from prooftext.select.policy import DEFAULT_POLICY, RankingPolicy
from prooftext.select.query import Query
from prooftext.select.selector import REASON_NODE_CEILING, REASON_OVER_BUDGET

SCHEMA_ID = "prooftext.adaptive-context/v1"
STOP_SUFFICIENT = "estimated_sufficient"
STOP_EXHAUSTED = "candidate_exhausted"
STOP_HARD_LIMIT = "hard_limit_reached"
STOP_REASONS = (STOP_SUFFICIENT, STOP_EXHAUSTED, STOP_HARD_LIMIT)

RoundCallback = Callable[[int, dict[str, Any]], None]
CEILING_REASONS = frozenset({REASON_OVER_BUDGET, REASON_NODE_CEILING, REASON_EXACT_OVERFLOW})
"""Exclusions by a round's ceilings; any other reason (policy, drift, duplicate) stays at every rung."""
RANKED_PHASES = (PHASE_IDENTIFIER, PHASE_LEXICAL)


@dataclass
class Round:
    number: int
    token_ceiling: int
    node_ceiling: int
    packet: Packet
    estimate: Estimate
    new_evidence: list[str]
    raised_to_kernel: bool = False

    def to_dict(self) -> dict[str, Any]:
        paths = sorted({e.path for e in self.packet.evidence})
        return {
            "round": self.number,
            "token_ceiling": self.token_ceiling,
            "node_ceiling": self.node_ceiling,
            "raised_to_kernel": self.raised_to_kernel,
            "prompt_tokens": self.packet.prompt_tokens.to_dict(),
            "evidence_count": len(self.packet.evidence),
            "new_evidence": self.new_evidence,
            "new_evidence_count": len(self.new_evidence),
            "evidence_paths": paths,
            "blake3": self.packet.blake3,
            "omitted": self.packet.omitted,
            "truncated_evidence_count": self.packet.truncated_count,
            "estimate": self.estimate.to_dict(),
        }


@dataclass
class AdaptiveResult:
    ladder: Ladder
    query: Query
    thresholds: Thresholds
    rounds: list[Round]
    stop_reason: str
    selected_round: int
    kernel_tokens: int
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def packet(self) -> Packet:
        return self.rounds[self.selected_round - 1].packet

    @property
    def prompt(self) -> str:
        """What a model receives: the selected packet's prompt, nothing of the trace."""
        return self.packet.prompt

    @property
    def estimated_sufficient(self) -> bool:
        return self.rounds[self.selected_round - 1].estimate.estimated_sufficient

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA_ID,
            "request": {"query": self.query.text, **self.ladder.to_dict()},
            "query": self.query.to_dict(),
            "estimator": describe(self.thresholds, default_rungs(self.ladder)),
            "kernel_tokens": self.kernel_tokens,
            "stop_reason": self.stop_reason,
            "selected_round": self.selected_round,
            "estimated_sufficient": self.estimated_sufficient,
            "attempted_ceilings": [[r.token_ceiling, r.node_ceiling] for r in self.rounds],
            "digests": [r.packet.blake3 for r in self.rounds],
            "rounds": [r.to_dict() for r in self.rounds],
            "packet": self.packet.to_dict(),
        }


def top_files(candidates: list[Candidate], thresholds: Thresholds) -> tuple[str, ...]:
    """The files the estimator's ranking condition looks at: the first ``min_top_files`` distinct files of
    the ranked candidates. Traversal from required evidence is not the ranking's choice and does not count.

    Requirement: prooftext.estimator.top-files
    """
    best: dict[str, None] = {}
    for cand in candidates:
        if len(best) >= thresholds.min_top_files:
            break
        if cand.phase in RANKED_PHASES:
            best.setdefault(cand.path, None)
    return tuple(best)


def strong_candidates(candidates: list[Candidate], thresholds: Thresholds) -> tuple[str, ...]:
    """The node ids of the ranked candidates weighing at least ``strong_candidate_share_bps`` of the best
    one, best first; none when that share is 0. Traversal from required evidence does not count.

    Requirement: prooftext.estimator.strong-candidates
    """
    share = thresholds.strong_candidate_share_bps
    ranked = [c for c in candidates if c.phase in RANKED_PHASES]
    if share <= 0 or not ranked:
        return ()
    floor = max(c.priority for c in ranked) * share
    return tuple(dict.fromkeys(c.node_id for c in ranked if c.priority * BPS >= floor))


def waiting(packet: Packet, node_ids: tuple[str, ...]) -> tuple[str, ...]:
    """Of ``node_ids``, those whose excerpts this packet leaves out for its ceilings."""
    left = {str(x.get("node_id")) for x in packet.excluded if x.get("reason") in CEILING_REASONS}
    return tuple(n for n in node_ids if n in left)


def unquoted(packet: Packet, files: tuple[str, ...]) -> tuple[str, ...]:
    """Of ``files``, those the packet does not quote while one of their candidates waits on a ceiling."""
    quoted = {e.path for e in packet.evidence}
    waiting = {x.get("path") for x in packet.excluded if x.get("reason") in CEILING_REASONS}
    return tuple(f for f in files if f not in quoted and f in waiting)


def _exhausted(packet: Packet) -> bool:
    """No candidate and no excerpt bytes remained omitted."""
    return packet.omitted == 0 and packet.truncated_count == 0


def _stop(ladder: Ladder, rnd: Round) -> str | None:
    """Requirement: sacp.stop.exactly-one, sacp.stop.first-passing-round"""
    if rnd.estimate.estimated_sufficient:
        return STOP_SUFFICIENT
    if _exhausted(rnd.packet):
        return STOP_EXHAUSTED
    if at_hard_limit(ladder, rnd.token_ceiling, rnd.node_ceiling):
        return STOP_HARD_LIMIT
    return None


def _estimate(
    text: str,
    packet: Packet,
    thresholds: Thresholds,
    memo: dict[str, frozenset[str]],
    best: tuple[str, ...],
    strong: tuple[str, ...],
) -> Estimate:
    """The estimator on one round's packet, with the files and candidates the ranking holds strongest."""
    return estimate(
        text,
        packet.evidence_texts,
        packet.truncated_count,
        thresholds,
        memo,
        best,
        unquoted(packet, best),
        strong,
        waiting(packet, strong),
    )


def _ladder_query(ladder: Ladder, base: Query) -> Query:
    """The query every rung compiles: ``base`` with the ladder's hard limits and truncation rule."""
    return replace(
        base, max_tokens=ladder.max_tokens, max_nodes=ladder.max_nodes, allow_truncated=ladder.allow_truncated
    )


def adaptive_compile(
    conn: sqlite3.Connection,
    root: Path,
    base: Query,
    ladder: Ladder,
    fmt: str,
    on_round: RoundCallback | None = None,
    policy: RankingPolicy = DEFAULT_POLICY,
) -> AdaptiveResult:
    """Climb ``ladder`` for ``base`` (its text, tokenizer, required sources, seeds and clearance; the ladder
    sets each rung's ceilings) over the index behind ``conn``, ranked under ``policy``."""
    validate_query_text(base.text)
    check_basis(ladder, base.basis)  # the bounds of what it counts, not the ladder's widest
    validate_ladder(ladder)
    thresholds = Thresholds(
        ladder.min_coverage_bps,
        ladder.min_evidence,
        not ladder.allow_truncated,
        ladder.min_top_files,
        strong_candidate_share_bps=ladder.strong_share_bps,
    )
    compiler = Compiler(conn, root, _ladder_query(ladder, base), fmt, additive=True, policy=policy)
    query = compiler.query  # validated: a credential in its text is redacted, in the trace as in the prompt
    kernel = compiler.kernel_cost()
    best = top_files(compiler.optional, thresholds)
    strong = strong_candidates(compiler.optional, thresholds)
    tokens, nodes, raised = first_rung(ladder, kernel, len(compiler.required))
    rounds: list[Round] = []
    seen: set[str] = set()
    memo: dict[str, frozenset[str]] = {}
    while True:
        packet = compiler.compile(tokens, nodes)
        # A node quoted in two parts (a function's head and its tail) is one node of evidence.
        ids = list(dict.fromkeys(i for e in packet.evidence for i in e.node_ids))
        est = _estimate(query.text, packet, thresholds, memo, best, strong)
        rnd = Round(
            len(rounds) + 1,
            tokens,
            nodes,
            packet,
            est,
            [i for i in ids if i not in seen],
            raised and not rounds,
        )
        seen.update(ids)
        rounds.append(rnd)
        if on_round is not None:
            on_round(rnd.number, rnd.to_dict())
        reason = _stop(ladder, rnd)
        if reason is not None:
            selected = rnd.number
            return AdaptiveResult(ladder, query, thresholds, rounds, reason, selected, kernel)
        tokens, nodes = next_rung(ladder, tokens, nodes)
