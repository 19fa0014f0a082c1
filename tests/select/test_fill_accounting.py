"""A fill accounts for every candidate: each is quoted, or left out with a reason; a contradiction component
is quoted whole or not at all, and never from a source that drifted."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prooftext.errors import BudgetError
from prooftext.select.candidates import Candidate
from prooftext.select.components import Component, Components
from prooftext.select.query import Query
from prooftext.select.selector import (
    REASON_CONTRADICTION,
    REASON_COVERED,
    REASON_DRIFT,
    Selection,
    fill,
)

LABEL = 30
"""What a block costs before its first line, in these tests' cost model."""
PER_LINE = 5
FILE_LINES = 12
"""Every test file has this many lines: a file node quotes 1-12, sections quote parts of it."""
SECTIONS = ((1, 4), (5, 8), (9, 12), (5, 6))
PATHS = ("docs/a.md", "docs/b.md", "docs/c.md", "src/d.py")


def _cand(path: str, start: int, end: int, kind: str = "section") -> Candidate:
    name = f"{path}:{kind}:{start}-{end}"
    return Candidate(
        node_id=name.encode().hex().upper()[-64:].rjust(64, "0"),
        kind=kind,
        path=path,
        name=name,
        qualname=name,
        symbol_kind="",
        node_start=start,
        node_end=end,
        start_line=start,
        end_line=end,
        file_sha256=path.encode().hex().ljust(64, "0")[:64],
        authority="repository-record",
        sensitivity="public",
        freshness="candidate-bound",
    )


def _file(path: str) -> Candidate:
    return _cand(path, 1, FILE_LINES, "file")


def _cost(cand: Candidate, start: int, end: int) -> int:
    return LABEL + PER_LINE * (end - start + 1)


def _path(cand: Candidate) -> str:
    return cand.path


def _components(*groups: Sequence[str]) -> Components[Candidate]:
    members = [tuple(_file(p) for p in sorted(group)) for group in groups]
    return Components([Component(m[0].path, m, frozenset(c.path for c in m)) for m in members], _path)


def _members(components: Components[Candidate], path: str) -> tuple[Candidate, ...]:
    comp = components.of(_file(path))
    return () if comp is None else comp.members


def _query(max_tokens: int = 10_000, max_nodes: int = 32) -> Query:
    return Query(text="retries", max_tokens=max_tokens, max_nodes=max_nodes)


def _quoted(sel: Selection) -> set[str]:
    return {c.node_id for choice in sel.chosen for c in (choice.candidate, *choice.joined)}


def _reasons(sel: Selection) -> dict[object, object]:
    return {e["node_id"]: e["reason"] for e in sel.excluded}


def _unaccounted(sel: Selection, optional: Sequence[Candidate]) -> list[str]:
    reasons = _reasons(sel)
    return [c.name for c in optional if c.node_id not in _quoted(sel) and not reasons.get(c.node_id)]


PAIR = _components(("docs/a.md", "docs/b.md"))
RANKED = [
    _cand("docs/b.md", 1, 4),
    _cand("docs/b.md", 5, 8),
    _cand("docs/a.md", 1, 4),
    _cand("docs/a.md", 9, 12),
]


def test_sections_inside_a_quoted_contradiction_component_are_recorded_as_covered() -> None:
    sel = fill(_query(), [], RANKED, _cost, 0, PAIR)
    assert {c.candidate.path for c in sel.chosen} == {"docs/a.md", "docs/b.md"}
    assert _reasons(sel) == {c.node_id: REASON_COVERED for c in RANKED}


def test_the_candidate_that_raised_a_refused_component_is_recorded_with_it() -> None:
    sel = fill(_query(max_tokens=100), [], RANKED, _cost, 0, PAIR)
    assert sel.chosen == []
    assert _unaccounted(sel, RANKED) == []
    assert set(_reasons(sel).values()) == {REASON_CONTRADICTION}
    assert _reasons(sel)[RANKED[0].node_id] == REASON_CONTRADICTION


def test_a_component_with_a_drifted_side_is_left_out_whole_and_the_rest_still_fills() -> None:
    other = _cand("src/d.py", 1, 4)
    optional = [_cand("docs/a.md", 1, 4), other, _cand("docs/b.md", 5, 8)]
    sel = fill(_query(), [], optional, _cost, 0, PAIR, drifted={"docs/b.md"})
    assert [c.candidate.node_id for c in sel.chosen] == [other.node_id]
    records = {e["node_id"]: e for e in sel.excluded}
    for member in [optional[0], optional[2], *_members(PAIR, "docs/a.md")]:
        assert records[member.node_id]["reason"] == REASON_CONTRADICTION
        assert records[member.node_id]["drifted"] == ["docs/b.md"]
    assert sel.omitted == 0, "a drifted source is not missing room: a larger packet would not take it"


def test_a_drifted_candidate_outside_any_component_is_recorded_as_drifted() -> None:
    drifted = _cand("src/d.py", 1, 4)
    sel = fill(_query(), [], [drifted], _cost, 0, _components(), drifted={"src/d.py"})
    assert sel.chosen == [] and _reasons(sel) == {drifted.node_id: REASON_DRIFT}


def test_the_exact_kernel_sets_the_room_and_the_reported_need() -> None:
    sel = fill(_query(max_tokens=100), [], [], _cost, 40, kernel=41)
    assert sel.total_cost == 41 and sel.room == 59
    with pytest.raises(BudgetError) as refused:
        fill(_query(max_tokens=40), [], [], _cost, 40, kernel=41)
    assert refused.value.details["needed"] == 41


_ALL = [c for p in PATHS for c in (_file(p), *(_cand(p, s, e) for s, e in SECTIONS))]
_GROUPINGS = st.sampled_from(
    [(), (("docs/a.md", "docs/b.md"),), (("docs/a.md", "docs/b.md", "docs/c.md"),),
     (("docs/a.md", "docs/b.md"), ("docs/c.md", "src/d.py"))]
)  # fmt: skip


@st.composite
def _fills(
    draw: st.DrawFn, with_drift: bool
) -> tuple[Query, list[Candidate], Components[Candidate], set[str]]:
    optional = draw(st.permutations(_ALL).flatmap(lambda xs: st.integers(0, len(xs)).map(lambda n: xs[:n])))
    query = _query(draw(st.integers(0, 400)), draw(st.integers(1, 8)))
    drifted = set(draw(st.sets(st.sampled_from(PATHS)))) if with_drift else set()
    return query, list(optional), _components(*draw(_GROUPINGS)), drifted


def _check(
    query: Query, optional: list[Candidate], components: Components[Candidate], sel: Selection
) -> None:
    assert _unaccounted(sel, optional) == []
    assert not _quoted(sel) & set(_reasons(sel)), "a quoted node is never also recorded as left out"
    assert sel.total_cost <= query.max_tokens and sel.nodes <= query.max_nodes
    quoted_paths = {c.candidate.path for c in sel.chosen}
    for comp in components:
        if comp.sources & quoted_paths:  # one side quoted: every side quoted whole
            assert comp.member_ids <= _quoted(sel)


@settings(max_examples=300, deadline=None)
@given(_fills(with_drift=False))
def test_every_optional_candidate_is_quoted_or_left_out_with_a_reason(
    case: tuple[Query, list[Candidate], Components[Candidate], set[str]],
) -> None:
    query, optional, components, _ = case
    _check(query, optional, components, fill(query, [], optional, _cost, 0, components))


@settings(max_examples=300, deadline=None)
@given(_fills(with_drift=True))
def test_no_fill_quotes_a_drifted_path_and_every_candidate_still_has_a_reason(
    case: tuple[Query, list[Candidate], Components[Candidate], set[str]],
) -> None:
    query, optional, components, drifted = case
    sel = fill(query, [], optional, _cost, 0, components, drifted=drifted)
    _check(query, optional, components, sel)
    assert not {c.candidate.path for c in sel.chosen} & drifted
