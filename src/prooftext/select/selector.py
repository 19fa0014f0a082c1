"""Selection under hard ceilings: required first, then breadth-first traversal, identifiers, lexical.

Required items allocate first and can never be evicted; optional candidates fill in rank order; a ceiling
(cost or node count) is never exceeded. Every candidate that is not taken is recorded with its reason.

A candidate next to an excerpt already taken from its file *joins* it when one block costs no more than
two: a block's label (path, lines, digest, labels, two fences) costs more than a few lines of code, so
neighbouring functions quoted as one block leave more room for evidence and also quote the lines between
them. The joined block lists every node it quotes.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace

from prooftext.corpus.model import SENSITIVITIES
from prooftext.errors import (
    BudgetError,
    PathOutsideRootError,
    RequestError,
    SensitivityError,
    SourceMissingError,
)
from prooftext.graph.model import NODE_FILE
from prooftext.graph.resolve import PathIndex
from prooftext.select.candidates import PHASE_REQUIRED, PHASE_TRAVERSAL, Candidate, candidate_from_row
from prooftext.select.expand import apply_heads
from prooftext.select.query import Query
from prooftext.store.queries import NODE_COLUMNS, NodeRow, node_rows

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
REASON_RANK_CUTOFF = "below_rank_cutoff"
"""Ranked below the candidates a fill considers (see :func:`ranked_window`)."""

MIN_RANKED_CANDIDATES = 200
UNITS_PER_CANDIDATE = 40
"""A fill considers the best ``max(200, ceiling // 40)`` ranked candidates. A block's label alone costs
more than 40 units, so a packet never holds that many excerpts; on the development split no 8k-token
packet took a candidate ranked below 171, while long issue texts rank 600 and more, and looking at every
one of them for every rung was most of the time of a fill."""

JOIN_GAP_LINES = 16
"""A candidate is measured for a join only with excerpts at most this many lines away: the lines between
farther excerpts almost always cost more than the label a join saves (about 90 tokens), and measuring a
join means counting its block."""

CostFn = Callable[[Candidate, int, int], int]
"""``cost(candidate, start_line, end_line)``: exact cost of the rendered excerpt in the query's unit."""


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


def _portable(path: str) -> str:
    """A required path must be a portable path below the root; ``..`` and absolute paths never are.

    It must also be spelled exactly as the index spells it: ``./a.py`` or ``a//b`` would be a second
    spelling of a source, and provenance must name one path."""
    if path.startswith("/") or "\\" in path or ".." in path.split("/"):
        raise PathOutsideRootError(f"required path is outside the root: {path}", path=path)
    if "" in path.split("/") or "." in path.split("/"):
        raise RequestError(
            f"required path {path!r} is not in canonical form (no '.' or empty components)", field="required"
        )
    return path


def required_candidates(conn: sqlite3.Connection, query: Query) -> list[Candidate]:
    """Resolve required references (paths or node ids); each must be a member of the index."""
    out: list[Candidate] = []
    for ref in query.required:
        is_id = len(ref) == 64 and all(c in "0123456789ABCDEF" for c in ref)
        if is_id:
            where, param = "n.id = ?", ref
        else:
            where, param = f"n.kind = '{NODE_FILE}' AND f.path = ?", _portable(ref)
        row = conn.execute(
            f"SELECT {NODE_COLUMNS} FROM nodes n JOIN files f ON f.id = n.file_id WHERE {where}", (param,)
        ).fetchone()
        if row is None:
            raise SourceMissingError(
                f"required reference is not in the index: {ref}", field="required", ref=ref
            )
        cand = candidate_from_row(NodeRow(*row), PHASE_REQUIRED, "required")
        out.append(cand)
    return out


def traverse(
    conn: sqlite3.Connection, roots: Sequence[Candidate], query: Query
) -> tuple[list[Candidate], dict[str, int]]:
    """Breadth-first from the required nodes along stored edges, visiting each node once.

    Neighbours are ordered by edge type, target node id, then edge id. Nodes beyond the depth, node or edge
    bounds are counted in the returned record (``truncated_frontier``), never dropped silently.
    """
    seen = {c.node_id for c in roots}
    frontier = [c.node_id for c in roots]
    found: list[Candidate] = []
    edges_used = 0
    truncated = 0
    for depth in range(1, query.max_depth + 1):
        next_frontier: list[str] = []
        for source in frontier:
            rows = conn.execute(
                "SELECT type, target, id FROM edges WHERE source = ? ORDER BY type, target, id", (source,)
            ).fetchall()
            for _type, target, _edge_id in rows:
                if target in seen:
                    continue
                if edges_used >= query.max_edges or len(found) + len(roots) >= query.max_nodes:
                    truncated += 1
                    continue
                seen.add(target)
                edges_used += 1
                row = conn.execute(
                    f"SELECT {NODE_COLUMNS} FROM nodes n JOIN files f ON f.id = n.file_id WHERE n.id = ?",
                    (target,),
                ).fetchone()
                if row is None:
                    continue
                cand = candidate_from_row(NodeRow(*row), PHASE_TRAVERSAL, "traversal")
                cand.distance = depth
                found.append(cand)
                next_frontier.append(target)
        frontier = next_frontier
    return found, {"edges_used": edges_used, "truncated_frontier": truncated}


_LEVELS = {name: level for level, name in enumerate(SENSITIVITIES)}


def _over_clearance(cand: Candidate, query: Query) -> bool:
    return _LEVELS.get(cand.sensitivity, len(SENSITIVITIES)) > _LEVELS[query.clearance]


def _covered(cand: Candidate, taken: dict[str, list[tuple[int, int]]]) -> bool:
    # Plain loops, not any() over a generator: a fill asks this of every candidate in its window, every round.
    for start, end in taken.get(cand.path, ()):  # noqa: SIM110
        if start <= cand.start_line and cand.end_line <= end:
            return True
    return False


def _truncate(cand: Candidate, room: int, cost: CostFn) -> Choice | None:
    """The longest prefix of the excerpt that fits ``room`` (binary search on its last line)."""
    low, high = cand.start_line + MIN_TRUNCATED_LINES - 1, cand.end_line - 1
    best: Choice | None = None
    while low <= high:
        mid = (low + high) // 2
        c = cost(cand, cand.start_line, mid)
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


def _take_required(
    sel: Selection, required: list[Candidate], cost: CostFn, ceiling: int, kernel: int | None
) -> None:
    for cand in required:
        if _over_clearance(cand, sel.query):
            raise SensitivityError(
                f"required source {cand.path} is above the clearance {sel.query.clearance}"
            )
        sel.take(Choice(cand, cand.start_line, cand.end_line, cost(cand, cand.start_line, cand.end_line)))
    if kernel is not None:  # the exact kernel: what it needs is reported exactly, and the room is exact
        sel.header_cost = kernel - sel.evidence_cost
    if sel.total_cost > ceiling:
        raise BudgetError(
            # The kernel, not only what was required: with nothing required, the header and query alone.
            f"the packet's header, query and required evidence need {sel.total_cost} {sel.query.basis},"
            f" above the ceiling {ceiling}",
            needed=sel.total_cost,
            ceiling=ceiling,
        )
    if sel.nodes > sel.query.max_nodes:
        raise RequestError("more required references than max_nodes", field="max_nodes")


Components = dict[str, list[Candidate]]
"""For every path in a declared contradiction, the whole-file candidates of its complete component."""


def contradiction_components(conn: sqlite3.Connection) -> Components:
    """Paths joined by ``contradicts`` declarations, grouped into connected components (never a winner)."""
    pairs = conn.execute(
        "SELECT f.path, c.target FROM contradicts c JOIN files f ON f.id = c.file_id"
    ).fetchall()
    if not pairs:
        return {}
    index = PathIndex({r[0] for r in conn.execute("SELECT path FROM files")})
    adjacent: dict[str, set[str]] = defaultdict(set)
    for source, target in pairs:
        other = index.resolve_declared(source, target)
        if other is not None and other != source:
            adjacent[source].add(other)
            adjacent[other].add(source)
    out: Components = {}
    for start in sorted(adjacent):
        if start in out:
            continue
        members, frontier = {start}, [start]
        while frontier:
            for nxt in sorted(adjacent[frontier.pop()] - members):
                members.add(nxt)
                frontier.append(nxt)
        marks = ",".join("?" * len(members))
        rows = node_rows(conn, f"n.kind = '{NODE_FILE}' AND f.path IN ({marks})", sorted(members))
        group = [
            candidate_from_row(r, PHASE_TRAVERSAL, "contradiction")
            for r in sorted(rows, key=lambda r: r.path)
        ]
        for path in members:
            out[path] = group
    return out


def _take_group(sel: Selection, group: list[Candidate], room: int, cost: CostFn) -> list[Choice] | None:
    """Every member whole, or nothing: a contradiction component is one atomic decision."""
    if sel.nodes + len(group) > sel.query.max_nodes or any(_over_clearance(c, sel.query) for c in group):
        return None
    choices = [Choice(c, c.start_line, c.end_line, cost(c, c.start_line, c.end_line)) for c in group]
    return choices if sum(c.cost for c in choices) <= room else None


def _fit(cand: Candidate, room: int, cost: CostFn, allow_truncated: bool) -> Choice | None:
    """The whole excerpt if it fits ``room``; else, when allowed, its longest fitting prefix."""
    whole = cost(cand, cand.start_line, cand.end_line)
    if whole <= room:
        return Choice(cand, cand.start_line, cand.end_line, whole)
    return _truncate(cand, room, cost) if allow_truncated else None


def _gap(start: int, end: int, cand: Candidate) -> int:
    """Lines strictly between an excerpt and a candidate; negative when they overlap."""
    return max(start, cand.start_line) - min(end, cand.end_line) - 1


def _near(cand: Candidate, ranges: list[tuple[int, int]]) -> bool:
    return any(_gap(start, end, cand) <= JOIN_GAP_LINES for start, end in ranges)


def _join(sel: Selection, cand: Candidate, cost: CostFn, optional_from: int) -> Choice | None:
    """Join ``cand`` with the optional excerpts of its file near it, if one block costs no more than
    ``cand``'s own block plus theirs and the difference fits the selection's room. The joined block keeps the place
    (and the primary node) of the earliest of them."""
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
    joined_cost = cost(replace(cand, start_line=start, end_line=end), start, end)
    apart = sum(sel.chosen[i].cost for i in near)
    if joined_cost > apart + cost(cand, cand.start_line, cand.end_line) or joined_cost - apart > sel.room:
        return None
    first = sel.chosen[near[0]]
    members = [m for i in near for m in (sel.chosen[i].candidate, *sel.chosen[i].joined)][1:]
    block = Choice(first.candidate, start, end, joined_cost, joined=[*members, cand])
    sel.chosen[near[0]] = block
    for i in reversed(near[1:]):
        del sel.chosen[i]
    sel.nodes += 1
    sel.evidence_cost += joined_cost - apart
    return block


def _place(
    sel: Selection, cand: Candidate, cost: CostFn, taken: dict[str, list[tuple[int, int]]], optional_from: int
) -> Choice | None:
    """Take ``cand`` into the selection's room: joined with a neighbour when that is cheaper, else as its own block
    (or its longest fitting prefix, when the query allows truncation). Returns the block it went into."""
    ranges = taken.get(cand.path)
    if ranges and _near(cand, ranges):
        block = _join(sel, cand, cost, optional_from)
        if block is not None:
            return block
    choice = _fit(cand, sel.room, cost, sel.query.allow_truncated)
    if choice is not None:
        sel.take(choice)
    return choice


def _skip_reason(
    cand: Candidate, sel: Selection, taken: dict[str, list[tuple[int, int]]], drifted: Collection[str]
) -> str | None:
    if cand.path in drifted:  # its source no longer reads back as ranked: it cannot be quoted at all
        return REASON_DRIFT
    if _over_clearance(cand, sel.query):
        return REASON_OVER_CLEARANCE
    if _covered(cand, taken):
        return REASON_COVERED
    if sel.nodes >= sel.query.max_nodes:
        return REASON_NODE_CEILING
    return None


def ranked_window(query: Query) -> int:
    """How many ranked candidates a fill for ``query`` considers."""
    return max(MIN_RANKED_CANDIDATES, query.max_tokens // UNITS_PER_CANDIDATE)


@dataclass
class _Fill:
    """One fill's running state: what each path has taken, and which contradiction paths are decided."""

    sel: Selection
    cost: CostFn
    components: Components
    drifted: Collection[str]
    optional_from: int
    taken: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    decided: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Each path of a decided contradiction component, with the drifted paths that refused it (if any)."""
    accounted: set[str] = field(default_factory=set)
    """Node ids a component decision already put in the packet or recorded as left out."""
    content: dict[tuple[str, int, int], str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for chosen in self.sel.chosen:
            cand = chosen.candidate
            self.taken.setdefault(cand.path, []).append((chosen.start_line, chosen.end_line))
            self.content[(cand.file_sha256, cand.start_line, cand.end_line)] = cand.path

    def offer(self, cand: Candidate) -> None:
        group = self.components.get(cand.path)
        if group is not None and cand.path in self.decided:
            self._settled(cand)
            return
        reason = _skip_reason(cand, self.sel, self.taken, self.drifted)
        if group is not None and reason is None:
            self._offer_group(cand, group)
        else:
            self._offer_one(cand, reason)

    def _exclude(self, cand: Candidate, reason: str, drifted: tuple[str, ...] = ()) -> None:
        _exclude(self.sel, cand, reason)
        if drifted:
            self.sel.excluded[-1]["drifted"] = list(drifted)

    def _settled(self, cand: Candidate) -> None:
        """A candidate of a decided component: its own record unless the decision already accounted for it."""
        if cand.node_id in self.accounted:
            return
        self.accounted.add(cand.node_id)
        if _covered(cand, self.taken):
            self._exclude(cand, REASON_COVERED)
        else:
            self._exclude(cand, REASON_CONTRADICTION, self.decided[cand.path])

    def _offer_group(self, cand: Candidate, group: list[Candidate]) -> None:
        """Both sides whole, or neither: a side that drifted refuses the whole component."""
        spoiled = tuple(sorted({c.path for c in group if c.path in self.drifted}))
        self.decided.update((c.path, spoiled) for c in group)
        members = [c for c in group if not _covered(c, self.taken)]
        # A member already covered is quoted whole (it was required): it is in the packet either way.
        self.accounted.update(c.node_id for c in group if _covered(c, self.taken))
        picked = None if spoiled else _take_group(self.sel, members, self.sel.room, self.cost)
        if picked is None:
            for member in members:
                self._settled(member)
            # Left out for lack of room or nodes (which a larger packet may have); a drifted side never fits.
            self.sel.omitted += 0 if spoiled else len(group)
        else:
            for choice in picked:
                self.sel.take(choice)
                self.accounted.add(choice.candidate.node_id)
                self.taken.setdefault(choice.candidate.path, []).append((choice.start_line, choice.end_line))
        self._settled(cand)  # the candidate that raised the decision: one of the members, or inside one

    def _offer_one(self, cand: Candidate, reason: str | None) -> None:
        twin = self.content.get((cand.file_sha256, cand.start_line, cand.end_line))
        if reason is None and twin is not None and twin != cand.path:
            self._exclude(cand, REASON_DUPLICATE)
            self.sel.excluded[-1]["same_as"] = twin
            return
        block = None if reason else _place(self.sel, cand, self.cost, self.taken, self.optional_from)
        if block is None:
            reason = reason or REASON_OVER_BUDGET
            self._exclude(cand, reason)
            self.sel.omitted += reason in (REASON_NODE_CEILING, REASON_OVER_BUDGET)
            return
        self.taken.setdefault(cand.path, []).append((block.start_line, block.end_line))
        self.content.setdefault((cand.file_sha256, cand.start_line, cand.end_line), cand.path)


def fill(
    query: Query,
    required: list[Candidate],
    optional: Sequence[Candidate],
    cost: CostFn,
    header_cost: int,
    components: Components | None = None,
    cut: Sequence[dict[str, object]] = (),
    *,
    drifted: Collection[str] = frozenset(),
    kernel: int | None = None,
) -> Selection:
    """Required first (never evicted), then optional candidates in rank order under both ceilings; ``cut``
    (the exclusion records of the candidates ranked below the window, see :func:`cut_records`) is recorded
    as left out for lack of rank. No candidate of a ``drifted`` path is taken, nor any contradiction
    component with a member there. ``kernel``, when known, is the exact count of the header and required
    evidence rendered together (their separate counts can differ from it by a token merged across a cut).
    Every optional candidate not taken gets a record in ``excluded``."""
    sel = Selection(query=query, header_cost=header_cost)
    _take_required(sel, required, cost, query.max_tokens, kernel)
    state = _Fill(sel, cost, components or {}, drifted, len(required))
    for cand in optional:
        state.offer(cand)
    sel.excluded.extend(cut)
    sel.omitted += len(cut)
    return sel


def cut_records(cut: Sequence[Candidate]) -> list[dict[str, object]]:
    """Exclusion records of candidates below the window, built once for every fill of a compilation."""
    return [_record(c, REASON_RANK_CUTOFF) for c in cut]


def _with_components(required: list[Candidate], components: Components) -> list[Candidate]:
    """A required member of a contradiction component makes its whole component required."""
    out = list(required)
    have = {c.node_id for c in out}
    for cand in required:
        for member in components.get(cand.path, []):
            if member.node_id not in have:
                have.add(member.node_id)
                out.append(replace(member, phase=PHASE_REQUIRED, reason=f"contradicts {cand.path}"))
    return out


@dataclass
class Prepared:
    required: list[Candidate]
    optional: list[Candidate]
    traversal: dict[str, int]
    components: Components
    cut: list[Candidate] = field(default_factory=list)
    """Ranked candidates below the window (:func:`ranked_window`)."""


def prepare(conn: sqlite3.Connection, query: Query, ranked: Sequence[Candidate]) -> Prepared:
    """Required candidates, and the optional ones in order: traversal from required, then ranked hits."""
    required = required_candidates(conn, query)
    components = contradiction_components(conn)
    required = _with_components(required, components)
    traversed, record = traverse(conn, required, query)
    traversed = apply_heads(conn, traversed)
    skip = {c.node_id for c in required} | {c.node_id for c in traversed}
    hits = [c for c in ranked if c.node_id not in skip]
    window = ranked_window(query)
    return Prepared(required, [*traversed, *hits[:window]], record, components, hits[window:])
