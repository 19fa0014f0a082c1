"""The selection pipeline: required first, breadth-first traversal, ranked candidates, then the fill.

Phases: (1) required references with their contradiction closure; (2) breadth-first traversal from them;
(3) exact identifiers and (4) lexical matches, which a :class:`Ranker` orders. The fill admits the required
nodes first (never evicted), then offers the optional candidates in rank order under hard ceilings; each is
admitted or recorded with the reason it was not.

A contradiction component is one atomic decision in every phase: the first candidate of any of its sources
(the endpoint file, or a section or symbol inside it) raises the decision, which admits or excludes that
candidate with every open member of the component; every later candidate of those sources is settled by
it. No winner is ever chosen. What admitting costs and how a decision is recorded belong to a
:class:`Ledger`: packets count rendered tokens or bytes, join neighbouring excerpts and quote whole files;
context artifacts count canonical bytes and induced edges.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from prooftext.select.components import Component, Components, N
from prooftext.select.query import Query
from prooftext.select.traverse import Bounds, Reached, traverse
from prooftext.select.view import GraphView

D = TypeVar("D")


@dataclass(frozen=True)
class Decision(Generic[N]):
    """A contradiction component's decision: its members not yet in the selection, decided together with
    the candidate that raised it (which may be one of them)."""

    component: Component[N]
    members: tuple[N, ...]


class Ledger(Protocol[N]):
    """The cost side of a fill: what admitting costs, the ceilings, and how each decision is recorded."""

    def require(self, required: Sequence[N]) -> None:
        """Admit every required node (never evicted); raise when they do not fit the ceilings."""

    def holds(self, node: N) -> bool:
        """Whether ``node`` is in the selection already (a required member of a component)."""

    def barrier(self, cand: N) -> str | None:
        """Why ``cand`` cannot be taken whatever a component decision says, checked before it raises one."""

    def problem(self, cand: N, decision: Decision[N] | None) -> str | None:
        """Why ``cand`` (with the component ``decision`` it raised, if any) cannot be admitted now, or None."""

    def admit(self, cand: N, decision: Decision[N] | None) -> None:
        """Admit ``cand`` and ``decision`` (after :meth:`problem` found none)."""

    def exclude(self, cand: N, decision: Decision[N] | None, reason: str) -> None:
        """Record ``cand`` and every node of ``decision`` as left out for ``reason``."""

    def settle(self, cand: N, admitted: bool) -> bool:
        """A candidate of a source whose component was decided (``admitted`` or not): record it and return
        True, or return False to have it offered alone."""


@dataclass
class Ordered(Generic[N, D]):
    """A ranker's answer: the optional candidates in fill order, those below its window, and its detail."""

    optional: list[N]
    cut: list[N]
    detail: D


class Ranker(Protocol[N, D]):
    def order(self, query: Query, required: Sequence[N], reached: Reached[N]) -> Ordered[N, D]:
        """The optional candidates of ``query`` in fill order (traversal phase first), none of them required."""


@dataclass
class Prepared(Generic[N, D]):
    required: list[N]
    ordered: Ordered[N, D]
    traversal: dict[str, object]
    components: Components[N]

    @property
    def optional(self) -> list[N]:
        return self.ordered.optional

    @property
    def cut(self) -> list[N]:
        return self.ordered.cut


def closure(required: Sequence[N], components: Components[N]) -> list[tuple[N, N]]:
    """Members of the components of the required nodes' sources that are not required themselves, each with
    the required node that brought it, in order: a required source makes its whole component required."""
    have = {c.node_id for c in required}
    out: list[tuple[N, N]] = []
    for cand in required:
        comp = components.of(cand)
        for member in comp.members if comp is not None else ():
            if member.node_id not in have:
                have.add(member.node_id)
                out.append((member, cand))
    return out


def prepare(view: GraphView[N], query: Query, ranker: Ranker[N, D], bounds: Bounds) -> Prepared[N, D]:
    """Required nodes with their contradiction closure, the traversal from them, and the ranker's order."""
    components = view.components()
    required = view.required(query)
    required += [view.brought(member, by) for member, by in closure(required, components)]
    reached = traverse(view, [c.node_id for c in required], query.max_depth, bounds)
    ordered = ranker.order(query, required, reached)
    return Prepared(required, ordered, bounds.record(), components)


class _Fill(Generic[N]):
    """One fill's running state; the ledger's methods are bound once (a fill offers hundreds of candidates
    at every rung of a ladder)."""

    def __init__(self, ledger: Ledger[N], components: Components[N]) -> None:
        self.ledger = ledger
        self.components = components if components else None
        self.barrier, self.problem = ledger.barrier, ledger.problem
        self.admit, self.exclude = ledger.admit, ledger.exclude
        self.accounted: set[str] = set()
        """Node ids a component decision already admitted or recorded (each of them in a component)."""
        self.decisions: dict[str, bool] = {}
        """Each decided component's key, and whether it was admitted."""

    def offer(self, cand: N) -> None:
        comp = None if self.components is None else self.components.of(cand)
        if comp is None:  # most candidates: :meth:`_alone` written out, as this runs for every one of them
            reason = self.barrier(cand)
            if reason is None:
                reason = self.problem(cand, None)
            if reason is None:
                self.admit(cand, None)
            else:
                self.exclude(cand, None, reason)
        elif cand.node_id in self.accounted:
            return
        elif comp.key in self.decisions:
            self.accounted.add(cand.node_id)
            if not self.ledger.settle(cand, self.decisions[comp.key]):
                self._alone(cand, None)
        else:
            barrier = self.barrier(cand)
            if barrier is not None:
                self._alone(cand, barrier)
            else:
                self._decide(cand, comp)

    def _alone(self, cand: N, barrier: str | None) -> None:
        reason = barrier if barrier is not None else self.problem(cand, None)
        if reason is None:
            self.admit(cand, None)
        else:
            self.exclude(cand, None, reason)

    def _decide(self, cand: N, comp: Component[N]) -> None:
        """One atomic decision: ``cand`` with every member of its component not yet in the selection."""
        members = tuple(m for m in comp.members if not self.ledger.holds(m))
        self.accounted.update(m.node_id for m in comp.members)
        if not members:  # a required component: it is in whole, and ``cand`` is one more candidate
            self._alone(cand, None)
            return
        self.accounted.add(cand.node_id)
        decision = Decision(comp, members)
        reason = self.problem(cand, decision)
        self.decisions[comp.key] = reason is None
        if reason is None:
            self.admit(cand, decision)
        else:
            self.exclude(cand, decision, reason)


def fill(required: Sequence[N], optional: Sequence[N], ledger: Ledger[N], components: Components[N]) -> None:
    """Required first, then every optional candidate in order (see the module notes)."""
    ledger.require(required)
    state = _Fill(ledger, components)
    for cand in optional:
        state.offer(cand)
