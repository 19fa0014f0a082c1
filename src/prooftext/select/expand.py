"""Expansion steps after fusion: the openings of the best code files, the neighbours of the best candidates,
and heads and tails of nodes with children. Each offers nodes near strong evidence
that the query's words alone would not find."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import replace

from prooftext.select.candidates import PHASE_LEXICAL, Candidate, candidate_from_row
from prooftext.select.policy import DEFAULT_POLICY, RankingPolicy
from prooftext.select.reads import Reads
from prooftext.store.queries import (
    NodeRow,
    child_bounds,
    node_spans,
    opening_rows,
)

REASON_OPENING = "opening"
REASON_NEIGHBOUR = "neighbour"


def best_files(candidates: list[Candidate], count: int) -> dict[str, int]:
    """The ``count`` files whose best candidate weighs most, with that priority, best first (ties by path)."""
    best: dict[str, int] = {}
    for cand in candidates:
        best[cand.path] = max(best.get(cand.path, 0), cand.priority)
    return {path: best[path] for path in sorted(best, key=lambda path: (-best[path], path))[:count]}


def _offer(
    rows: Iterable[NodeRow], priority: dict[int, int], candidates: list[Candidate], reason: str
) -> list[Candidate]:
    """Offer ``rows`` at their ``priority`` (by rowid), marked with the component named ``reason``: new
    candidates carry that reason; a known candidate is raised to the priority when it is higher. Returns the
    new ones."""
    known = {c.node_id: c for c in candidates}
    out: list[Candidate] = []
    for row in rows:
        found = known.get(row.node_id)
        cand = found or candidate_from_row(row, PHASE_LEXICAL, reason)
        if found is None:
            known[row.node_id] = cand
            out.append(cand)
        cand.priority = max(cand.priority, priority[row.rowid])
        cand.components[reason] = 1
    return out


def openings(
    conn: sqlite3.Connection, candidates: list[Candidate], ids: dict[str, int], policy: RankingPolicy
) -> list[Candidate]:
    """The opening chunk (the lines before the first definition: imports, module docstring, constants) of
    each of the ``opening_files`` best code files with a candidate, at ``opening_factor`` of the file's best
    priority: new candidates, or a candidate already found by evidence, raised to the opening's priority
    when that is higher. A fix often adds an import, and the names a file imports are what its excerpts
    call."""
    best = best_files(candidates, policy.opening_files)
    rows = opening_rows(conn, [ids[path] for path in best if path in ids])
    # No order needed here: every candidate is sorted by its full rank key afterwards.
    priority = {r.rowid: int(best[r.path] * policy.opening_factor) for r in rows}
    return _offer(rows, priority, candidates, REASON_OPENING)


def adjacent(spans: Sequence[tuple[int, int, int]], start: int, end: int) -> list[int]:
    """Of ``spans`` (rowid, first line, last line), the node ending last before ``start`` and the node
    starting first after ``end`` (the innermost one on a tie): a node's neighbours in its file."""
    before = [(last, first, rowid) for rowid, first, last in spans if last < start]
    after = [(first, -last, rowid) for rowid, first, last in spans if first > end]
    found = [max(before)[2]] if before else []
    return [*found, min(after)[2]] if after else found


def neighbours(
    reads: Reads, candidates: list[Candidate], ids: dict[str, int], policy: RankingPolicy
) -> list[Candidate]:
    """The nodes just before and just after each of the best ``neighbour_nodes`` candidates of the best
    ``neighbour_files`` files, at ``neighbour_factor`` of that candidate's priority: new candidates, or
    known ones raised to the neighbour's priority when that is higher. The code around the strongest
    evidence is what a change to it reads and touches; a neighbour is found by position alone, so a node
    that names nothing of the query can enter the packet only beside strong evidence."""
    wanted: dict[int, int] = {}
    for path in (p for p in best_files(candidates, policy.neighbour_files) if p in ids):
        spans = node_spans(reads.conn, ids[path])
        strong = sorted((c for c in candidates if c.path == path), key=lambda c: (-c.priority, c.node_id))
        for cand in strong[: policy.neighbour_nodes]:
            for rowid in adjacent(spans, cand.node_start, cand.node_end):
                wanted[rowid] = max(wanted.get(rowid, 0), int(cand.priority * policy.neighbour_factor))
    if not wanted:
        return []
    return _offer(reads.rows(list(wanted)), wanted, candidates, REASON_NEIGHBOUR)


def apply_heads(
    conn: sqlite3.Connection, candidates: list[Candidate], policy: RankingPolicy = DEFAULT_POLICY
) -> list[Candidate]:
    """A node with children is excerpted as its head (lines before its first child); empty heads drop out.
    A function or method (a kind of ``tail_kinds``) with children also gets its tail (lines after its last
    child) as an excerpt: its nested definitions come first, and the logic after them belongs to no other
    node."""
    bounds = child_bounds(conn, [c.node_id for c in candidates])
    out: list[Candidate] = []
    for cand in candidates:
        children = bounds.get(cand.node_id)
        if children is None:
            out.append(cand)
            continue
        if cand.symbol_kind in policy.tail_kinds and children[1] < cand.node_end:
            tail = replace(cand, start_line=children[1] + 1, end_line=cand.node_end)
            tail.components = dict(cand.components, tail=1)
            out.append(tail)
        if children[0] > cand.node_start:
            cand.end_line = children[0] - 1
            out.append(cand)
    return out
