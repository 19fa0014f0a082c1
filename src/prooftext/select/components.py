"""Contradiction components: sources joined by ``contradicts``, each decided as one unit (never a winner).

A component is keyed by its sources, not only by its endpoint nodes: a section or symbol of a contradicted
file belongs to the same decision as the file itself, in every phase of a selection.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar


class Identified(Protocol):
    """Anything a selection decides about: it has a node id."""

    @property
    def node_id(self) -> str: ...


N = TypeVar("N", bound=Identified)


@dataclass(frozen=True)
class Component(Generic[N]):
    """One contradiction-connected component: its endpoint nodes (whole sources), their sources and edges."""

    key: str
    members: tuple[N, ...]
    sources: frozenset[str]
    edge_ids: tuple[str, ...] = ()

    @property
    def member_ids(self) -> frozenset[str]:
        return frozenset(m.node_id for m in self.members)


class Components(Generic[N]):
    """Every component of a graph, found by the source of any node."""

    def __init__(self, groups: Iterable[Component[N]], source: Callable[[N], str]) -> None:
        self._source = source
        self._by_source = {s: comp for comp in groups for s in comp.sources}

    def of(self, node: N) -> Component[N] | None:
        """The component whose sources include ``node``'s source, if any."""
        return self._by_source.get(self._source(node)) if self._by_source else None

    def __iter__(self) -> Iterator[Component[N]]:
        return iter({c.key: c for c in self._by_source.values()}.values())

    def __bool__(self) -> bool:
        return bool(self._by_source)


def connected(pairs: Iterable[tuple[str, str]]) -> list[tuple[str, ...]]:
    """Connected components of the undirected graph whose edges are ``pairs``: each sorted, smallest first."""
    adjacent: dict[str, set[str]] = defaultdict(set)
    for a, b in pairs:
        adjacent[a].add(b)
        adjacent[b].add(a)
    seen: set[str] = set()
    out: list[tuple[str, ...]] = []
    for start in sorted(adjacent):
        if start in seen:
            continue
        group, frontier = {start}, [start]
        while frontier:
            for nxt in adjacent[frontier.pop()] - group:
                group.add(nxt)
                frontier.append(nxt)
        seen |= group
        out.append(tuple(sorted(group)))
    return out
