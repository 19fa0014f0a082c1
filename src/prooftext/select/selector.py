"""Packets' selection under hard ceilings: the packet ledger of the selection pipeline.

The phases, the contradiction decisions and the loop over candidates are the pipeline's
(:mod:`prooftext.select.pipeline`); this module says what a packet's excerpt costs (its exact rendered count
in the query's unit) and how each decision is recorded. Required items allocate first and can never be
evicted; a ceiling (cost or node count) is never exceeded; every candidate not taken is recorded with its
reason.

A candidate next to an excerpt already taken from its file *joins* it when one block costs no more than
two: a block's label (path, lines, digest, labels, two fences) costs more than a few lines of code, so
neighbouring functions quoted as one block leave more room for evidence and also quote the lines between
them. The joined block lists every node it quotes.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace

import prooftext.select.pipeline as pipeline
from prooftext.corpus.model import SENSITIVITIES
from prooftext.errors import BudgetError, RequestError, SensitivityError
from prooftext.select.candidates import Candidate
from prooftext.select.components import Components
from prooftext.select.pipeline import Decision
from prooftext.select.policy import DEFAULT_POLICY, RankingPolicy
from prooftext.select.query import Query
from prooftext.select.store_view import StoreView
from prooftext.select.traverse import CountingBounds
from prooftext.select.tuned import TunedRanker

MIN_TRUNCATED_LINES = 3
"""A truncated excerpt keeps at least this many lines, or it is not worth a block."""

REASON_OVER_BUDGET = "over_budget"
REASON_NODE_CEILING = "node_ceiling"
REASON_OVER_CLEARANCE = "over_clearance"
REASON_COVERED = "covered"
REASON_DRIFT = "source_drift"
REASON_CONTRADICTION = "contradiction_component"
"""A contradiction component that could not be taken whole was excluded as a unit."""
REASON_DUPLICATE = "duplicate_content"
"""The same lines of a file with the same digest are already in the packet under another path."""
REASON_HEAD_LEFT_OUT = "head_left_out"
"""A function's tail (its lines after its last nested definition, see :func:`prooftext.select.expand.apply_heads`)
whose head is not quoted: the tail weighs what the whole function matched, which is mostly its head, and
alone it is a few lines out of their context."""
REASON_RANK_CUTOFF = "below_rank_cutoff"
"""Ranked below the candidates a fill considers (see :func:`prooftext.select.tuned.ranked_window`)."""

JOIN_GAP_LINES = 16
"""A candidate is measured for a join only with excerpts at most this many lines away: the lines between
farther excerpts almost always cost more than the label a join saves (about 90 tokens), and measuring a
join means counting its block."""

CostFn = Callable[[Candidate, int, int], int]
"""``cost(candidate, start_line, end_line)``: exact cost of the rendered excerpt in the query's unit."""
FloorFn = CostFn
"""``floor(candidate, start_line, end_line)``: a cost the excerpt never goes below, cheaper to find than its
exact cost. A fill asks it first and measures exactly only what it cannot rule out: an excerpt whose floor
exceeds the room cannot fit, so the floor decides nothing that the exact cost would decide otherwise."""


def no_floor(_cand: Candidate, _start: int, _end: int) -> int:
    return 0


@dataclass
class Choice:
    candidate: Candidate
    start_line: int
    end_line: int
    cost: int
    truncated: bool = False
    joined: list[Candidate] = field(default_factory=list)
    """Further nodes quoted by this excerpt's block, in the order they were taken (see the module notes)."""

    @property
    def nodes(self) -> int:
        return 1 + len(self.joined)

    def to_dict(self) -> dict[str, object]:
        out = self.candidate.to_dict()
        out.update(
            {
                "lines": [self.start_line, self.end_line],
                "cost": self.cost,
                "truncated": self.truncated,
                "joined": [c.node_id for c in self.joined],
            }
        )
        return out


@dataclass
class Selection:
    query: Query
    chosen: list[Choice] = field(default_factory=list)
    excluded: list[dict[str, object]] = field(default_factory=list)
    omitted: int = 0
    header_cost: int = 0
    nodes: int = 0
    """Nodes the chosen excerpts quote (a joined excerpt quotes several): what ``max_nodes`` bounds."""
    evidence_cost: int = 0
    """The chosen excerpts' cost; kept as they are taken or joined, so a fill reads its room in O(1)."""

    @property
    def total_cost(self) -> int:
        return self.header_cost + self.evidence_cost

    @property
    def room(self) -> int:
        return self.query.max_tokens - self.total_cost

    def take(self, choice: Choice) -> None:
        self.chosen.append(choice)
        self.nodes += choice.nodes
        self.evidence_cost += choice.cost

    @property
    def exhausted(self) -> bool:
        """No candidate with evidence was left out for lack of room."""
        return self.omitted == 0


_LEVELS = {name: level for level, name in enumerate(SENSITIVITIES)}


def _over_clearance(cand: Candidate, query: Query) -> bool:
    return _LEVELS.get(cand.sensitivity, len(SENSITIVITIES)) > _LEVELS[query.clearance]


def _held(taken: dict[str, list[tuple[int, int]]], path: str, first: int, last: int) -> bool:
    """Whether one quoted excerpt of ``path`` holds lines ``first..last``."""
    # Plain loops, not any() over a generator: a fill asks this of every candidate in its window, every round.
    for start, end in taken.get(path, ()):  # noqa: SIM110
        if start <= first and last <= end:
            return True
    return False


def _head_left_out(cand: Candidate, taken: dict[str, list[tuple[int, int]]]) -> bool:
    """A tail whose node's first line no quoted excerpt holds (a head ranks just before its tail)."""
    return bool(cand.components.get("tail")) and not _held(taken, cand.path, cand.node_start, cand.node_start)


def _covered(cand: Candidate, taken: dict[str, list[tuple[int, int]]]) -> bool:
    return _held(taken, cand.path, cand.start_line, cand.end_line)


def _truncate(cand: Candidate, room: int, cost: CostFn, floor: FloorFn = no_floor) -> Choice | None:
    """The longest prefix of the excerpt that fits ``room`` (binary search on its last line)."""
    low, high = cand.start_line + MIN_TRUNCATED_LINES - 1, cand.end_line - 1
    best: Choice | None = None
    while low <= high:
        mid = (low + high) // 2
        c = room + 1 if floor(cand, cand.start_line, mid) > room else cost(cand, cand.start_line, mid)
        if c <= room:
            best = Choice(cand, cand.start_line, mid, c, truncated=True)
            low = mid + 1
        else:
            high = mid - 1
    return best


def _record(cand: Candidate, reason: str) -> dict[str, object]:
    return {
        "node_id": cand.node_id,
        "path": cand.path,
        "reason": reason,
        "lines": [cand.start_line, cand.end_line],
    }


def choice_records(choice: Choice, reason: str) -> list[dict[str, object]]:
    """Exclusion records of every node an excerpt quotes (a joined excerpt quotes several)."""
    return [_record(c, reason) for c in (choice.candidate, *choice.joined)]


def _exclude(sel: Selection, cand: Candidate, reason: str) -> None:
    sel.excluded.append(_record(cand, reason))


def _inside(inner: Candidate, outer: Candidate) -> bool:
    """Whether ``outer``'s excerpt quotes every line of ``inner``'s (the same file at the same digest)."""
    return (
        (inner.path, inner.file_sha256) == (outer.path, outer.file_sha256)
        and outer.start_line <= inner.start_line
        and inner.end_line <= outer.end_line
    )


def required_blocks(required: Sequence[Candidate]) -> list[tuple[Candidate, list[Candidate]]]:
    """The required excerpts, each quoted once: a required node whose lines another required excerpt
    quotes (a function inside a required file) joins the widest one, which takes the place of the first
    of them; the others keep their order. Each block lists the nodes it quotes besides its own."""
    blocks: list[tuple[Candidate, list[Candidate]]] = []
    for cand in required:
        host = next((b for b in blocks if _inside(cand, b[0])), None)
        if host is not None:
            host[1].append(cand)
            continue
        inner = [i for i, b in enumerate(blocks) if _inside(b[0], cand)]
        members = [m for i in inner for m in (blocks[i][0], *blocks[i][1])]
        block = (cand, members)
        if inner:
            blocks[inner[0]] = block
            blocks = [b for i, b in enumerate(blocks) if i not in inner[1:]]
        else:
            blocks.append(block)
    return blocks


def _take_required(
    sel: Selection, required: list[Candidate], cost: CostFn, ceiling: int, kernel: int | None
) -> None:
    for cand in required:
        if _over_clearance(cand, sel.query):
            raise SensitivityError(
                f"required source {cand.path} is above the clearance {sel.query.clearance}",
                field="required",
                path=cand.path,
                clearance=sel.query.clearance,
                sensitivity=cand.sensitivity,
            )
    for cand, joined in required_blocks(required):
        start, end = cand.start_line, cand.end_line
        sel.take(Choice(cand, start, end, cost(cand, start, end), joined=joined))
    if kernel is not None:  # the exact kernel: what it needs is reported exactly, and the room is exact
        sel.header_cost = kernel - sel.evidence_cost
    if sel.total_cost > ceiling:
        raise BudgetError(
            # The kernel, not only what was required: with nothing required, the header and query alone.
            f"the packet's header, query and required evidence need {sel.total_cost} {sel.query.basis},"
            f" above the ceiling {ceiling}",
            field="max_tokens",
            needed=sel.total_cost,
            ceiling=ceiling,
        )
    if sel.nodes > sel.query.max_nodes:
        raise RequestError("more required references than max_nodes", field="max_nodes")


def _take_group(
    sel: Selection, group: list[Candidate], room: int, cost: CostFn, floor: FloorFn = no_floor
) -> list[Choice] | None:
    """Every member whole, or nothing: a contradiction component is one atomic decision."""
    if sel.nodes + len(group) > sel.query.max_nodes or any(_over_clearance(c, sel.query) for c in group):
        return None
    if sum(floor(c, c.start_line, c.end_line) for c in group) > room:
        return None
    choices = [Choice(c, c.start_line, c.end_line, cost(c, c.start_line, c.end_line)) for c in group]
    return choices if sum(c.cost for c in choices) <= room else None


def _fit(
    cand: Candidate, room: int, cost: CostFn, allow_truncated: bool, floor: FloorFn = no_floor
) -> Choice | None:
    """The whole excerpt if it fits ``room``; else, when allowed, its longest fitting prefix."""
    if floor(cand, cand.start_line, cand.end_line) <= room:
        whole = cost(cand, cand.start_line, cand.end_line)
        if whole <= room:
            return Choice(cand, cand.start_line, cand.end_line, whole)
    return _truncate(cand, room, cost, floor) if allow_truncated else None


def _gap(start: int, end: int, cand: Candidate) -> int:
    """Lines strictly between an excerpt and a candidate; negative when they overlap."""
    return max(start, cand.start_line) - min(end, cand.end_line) - 1


def _near(cand: Candidate, ranges: list[tuple[int, int]]) -> bool:
    return any(_gap(start, end, cand) <= JOIN_GAP_LINES for start, end in ranges)


@dataclass(frozen=True)
class _Join:
    """A planned join: the chosen excerpts at ``near`` and a candidate become one block of ``start..end``."""

    near: list[int]
    start: int
    end: int
    cost: int
    apart: int
    """What the excerpts at ``near`` cost as separate blocks."""


def _plan_join(
    sel: Selection, cand: Candidate, cost: CostFn, optional_from: int, floor: FloorFn = no_floor
) -> _Join | None:
    """Join ``cand`` with the optional excerpts of its file near it, if one block costs no more than
    ``cand``'s own block plus theirs and the difference fits the selection's room."""
    near = [
        i
        for i, c in enumerate(sel.chosen)
        if i >= optional_from
        and c.candidate.path == cand.path
        and not c.truncated
        and _gap(c.start_line, c.end_line, cand) <= JOIN_GAP_LINES
    ]
    if not near:
        return None
    start = min(cand.start_line, *(sel.chosen[i].start_line for i in near))
    end = max(cand.end_line, *(sel.chosen[i].end_line for i in near))
    joined = replace(cand, start_line=start, end_line=end)
    apart = sum(sel.chosen[i].cost for i in near)
    if floor(joined, start, end) - apart > sel.room:
        return None
    joined_cost = cost(joined, start, end)
    if joined_cost - apart > sel.room or joined_cost > apart + cost(cand, cand.start_line, cand.end_line):
        return None
    return _Join(near, start, end, joined_cost, apart)


def _apply_join(sel: Selection, cand: Candidate, plan: _Join) -> Choice:
    """The joined block keeps the place (and the primary node) of the earliest of its excerpts."""
    first = sel.chosen[plan.near[0]]
    members = [m for i in plan.near for m in (sel.chosen[i].candidate, *sel.chosen[i].joined)][1:]
    block = Choice(first.candidate, plan.start, plan.end, plan.cost, joined=[*members, cand])
    sel.chosen[plan.near[0]] = block
    for i in reversed(plan.near[1:]):
        del sel.chosen[i]
    sel.nodes += 1
    sel.evidence_cost += plan.cost - plan.apart
    return block


def _plan(
    sel: Selection,
    cand: Candidate,
    cost: CostFn,
    taken: dict[str, list[tuple[int, int]]],
    optional_from: int,
    floor: FloorFn = no_floor,
) -> _Join | Choice | None:
    """Where ``cand`` goes in the selection's room: joined with a neighbour when that is cheaper, else as its
    own block (or its longest fitting prefix, when the query allows truncation); None when it does not fit."""
    ranges = taken.get(cand.path)
    if ranges and _near(cand, ranges):
        join = _plan_join(sel, cand, cost, optional_from, floor)
        if join is not None:
            return join
    return _fit(cand, sel.room, cost, sel.query.allow_truncated, floor)


@dataclass
class PacketLedger:
    """The packet side of a fill: exact rendered costs in the query's unit, joins, truncation, source drift
    and duplicate content. A contradiction component is quoted whole or not at all; a candidate inside a
    quoted member is covered by it, and one of a refused component is left out with it."""

    sel: Selection
    cost: CostFn
    drifted: Collection[str]
    kernel: int | None
    floor: FloorFn = no_floor
    optional_from: int = 0
    taken: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    spoiled: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Each path of a refused contradiction component, with the drifted paths that refused it (if any)."""
    content: dict[tuple[str, int, int], str] = field(default_factory=dict)
    pending: _Join | Choice | list[Choice] | None = None
    """What :meth:`problem` planned and :meth:`admit` commits."""
    twin: str = ""
    """The path whose excerpt :meth:`problem` found a candidate's lines already quoted under."""

    def require(self, required: Sequence[Candidate]) -> None:
        _take_required(self.sel, list(required), self.cost, self.sel.query.max_tokens, self.kernel)
        self.optional_from = len(self.sel.chosen)
        for chosen in self.sel.chosen:
            cand = chosen.candidate
            self.taken.setdefault(cand.path, []).append((chosen.start_line, chosen.end_line))
            self.content[(cand.file_sha256, cand.start_line, cand.end_line)] = cand.path

    def holds(self, node: Candidate) -> bool:
        # A member already covered is quoted whole (it was required): it is in the packet either way.
        return _covered(node, self.taken)

    def barrier(self, cand: Candidate) -> str | None:
        sel = self.sel
        if cand.path in self.drifted:  # its source no longer reads back as ranked: it cannot be quoted at all
            return REASON_DRIFT
        if _over_clearance(cand, sel.query):
            return REASON_OVER_CLEARANCE
        if _covered(cand, self.taken):
            return REASON_COVERED
        if _head_left_out(cand, self.taken):
            return REASON_HEAD_LEFT_OUT
        return REASON_NODE_CEILING if sel.nodes >= sel.query.max_nodes else None

    def problem(self, cand: Candidate, decision: Decision[Candidate] | None) -> str | None:
        if decision is not None:
            return self._group_problem(decision)
        twin = self.content.get((cand.file_sha256, cand.start_line, cand.end_line))
        if twin is not None and twin != cand.path:
            self.twin = twin
            return REASON_DUPLICATE
        self.pending = _plan(self.sel, cand, self.cost, self.taken, self.optional_from, self.floor)
        return None if self.pending is not None else REASON_OVER_BUDGET

    def _group_problem(self, decision: Decision[Candidate]) -> str | None:
        """Both sides whole, or neither: a side that drifted refuses the whole component."""
        if any(c.path in self.drifted for c in decision.component.members):
            return REASON_DRIFT
        self.pending = _take_group(self.sel, list(decision.members), self.sel.room, self.cost, self.floor)
        return None if self.pending is not None else REASON_CONTRADICTION

    def admit(self, cand: Candidate, decision: Decision[Candidate] | None) -> None:
        plan, self.pending = self.pending, None
        if isinstance(plan, list):
            for choice in plan:
                self.sel.take(choice)
                self.taken.setdefault(choice.candidate.path, []).append((choice.start_line, choice.end_line))
            self._trigger(cand, decision)
            return
        if isinstance(plan, _Join):
            block = _apply_join(self.sel, cand, plan)
        else:
            assert plan is not None, "admit follows a problem() that planned a place"
            self.sel.take(plan)
            block = plan
        self.taken.setdefault(cand.path, []).append((block.start_line, block.end_line))
        self.content.setdefault((cand.file_sha256, cand.start_line, cand.end_line), cand.path)

    def exclude(self, cand: Candidate, decision: Decision[Candidate] | None, reason: str) -> None:
        self.pending = None
        if decision is None:
            _exclude(self.sel, cand, reason)
            if reason == REASON_DUPLICATE:
                self.sel.excluded[-1]["same_as"] = self.twin
            self.sel.omitted += reason in (REASON_NODE_CEILING, REASON_OVER_BUDGET)
            return
        comp = decision.component
        spoiled = tuple(sorted({c.path for c in comp.members if c.path in self.drifted}))
        self.spoiled.update(dict.fromkeys(comp.sources, spoiled))
        for member in decision.members:
            self._record(member, REASON_CONTRADICTION)
        # Left out for lack of room or nodes (which a larger packet may have); a drifted side never fits.
        self.sel.omitted += 0 if spoiled else len(comp.members)
        self._trigger(cand, decision)

    def _trigger(self, cand: Candidate, decision: Decision[Candidate] | None) -> None:
        """The candidate that raised a decision: one of the members, or inside one (then recorded)."""
        if decision is not None and cand.node_id not in decision.component.member_ids:
            self.settle(cand, True)

    def settle(self, cand: Candidate, admitted: bool) -> bool:
        self._record(cand, REASON_COVERED if _covered(cand, self.taken) else REASON_CONTRADICTION)
        return True

    def _record(self, cand: Candidate, reason: str) -> None:
        _exclude(self.sel, cand, reason)
        drifted = self.spoiled.get(cand.path, ()) if reason == REASON_CONTRADICTION else ()
        if drifted:
            self.sel.excluded[-1]["drifted"] = list(drifted)


def _by_path(cand: Candidate) -> str:
    return cand.path


NO_COMPONENTS: Components[Candidate] = Components((), _by_path)


def fill(
    query: Query,
    required: list[Candidate],
    optional: Sequence[Candidate],
    cost: CostFn,
    header_cost: int,
    components: Components[Candidate] | None = None,
    cut: Sequence[dict[str, object]] = (),
    *,
    drifted: Collection[str] = frozenset(),
    kernel: int | None = None,
    floor: FloorFn = no_floor,
) -> Selection:
    """Required first (never evicted), then optional candidates in rank order under both ceilings; ``cut``
    (the exclusion records of the candidates ranked below the window, see :func:`cut_records`) is recorded
    as left out for lack of rank. No candidate of a ``drifted`` path is taken, nor any contradiction
    component with a member there. ``kernel``, when known, is the exact count of the header and required
    evidence rendered together (their separate counts can differ from it by a token merged across a cut).
    ``floor`` (see :data:`FloorFn`) rules out excerpts that cannot fit before they are measured. Every
    optional candidate not taken gets a record in ``excluded``."""
    sel = Selection(query=query, header_cost=header_cost)
    ledger = PacketLedger(sel, cost, drifted, kernel, floor)
    pipeline.fill(required, optional, ledger, components or NO_COMPONENTS)
    sel.excluded.extend(cut)
    sel.omitted += len(cut)
    return sel


def cut_records(cut: Sequence[Candidate]) -> list[dict[str, object]]:
    """Exclusion records of candidates below the window, built once for every fill of a compilation."""
    return [_record(c, REASON_RANK_CUTOFF) for c in cut]


Prepared = pipeline.Prepared[Candidate, None]


def prepare(
    conn: sqlite3.Connection,
    query: Query,
    ranked: Sequence[Candidate],
    policy: RankingPolicy = DEFAULT_POLICY,
) -> Prepared:
    """Required candidates with their contradiction closure, and the optional ones in order: traversal from
    the required ones, then the ``ranked`` hits (see :class:`prooftext.select.tuned.TunedRanker`)."""
    bounds = CountingBounds(query.max_nodes, query.max_edges)
    return pipeline.prepare(StoreView(conn), query, TunedRanker(conn, ranked, policy), bounds)
