"""Joins: neighbouring excerpts of one file become one block when that costs no more than two blocks."""

from __future__ import annotations

from pathlib import Path

import pytest

import prooftext
from prooftext.select.candidates import Candidate
from prooftext.select.query import Query
from prooftext.select.selector import REASON_NODE_CEILING, Choice, CostFn, choice_records, fill

LABEL = 30
"""What a block costs before its first line, in these tests' cost model."""


def _cand(name: str, start: int, end: int, path: str = "m.py") -> Candidate:
    return Candidate(
        node_id=name.upper().rjust(64, "0"),
        kind="symbol",
        path=path,
        name=name,
        qualname=name,
        symbol_kind="function",
        node_start=start,
        node_end=end,
        start_line=start,
        end_line=end,
        file_sha256="0" * 64,
        authority="repository-record",
        sensitivity="public",
        freshness="candidate-bound",
    )


def _cost(per_line: int = 5) -> CostFn:
    def cost(cand: Candidate, start: int, end: int) -> int:
        return LABEL + per_line * (end - start + 1)

    return cost


def _ranges(chosen: list[Choice]) -> list[tuple[int, int, list[str]]]:
    return [(c.start_line, c.end_line, [c.candidate.name, *(j.name for j in c.joined)]) for c in chosen]


def _query(max_tokens: int = 1000, max_nodes: int = 32) -> Query:
    return Query(text="joins", max_tokens=max_tokens, max_nodes=max_nodes)


def test_neighbours_in_one_file_become_one_block_that_quotes_the_lines_between() -> None:
    sel = fill(_query(), [], [_cand("a", 1, 5), _cand("b", 7, 10)], _cost(), 0)
    assert _ranges(sel.chosen) == [(1, 10, ["a", "b"])]
    assert sel.total_cost == LABEL + 5 * 10 < 2 * LABEL + 5 * 9


def test_a_join_that_would_cost_more_than_two_blocks_is_not_made() -> None:
    sel = fill(_query(), [], [_cand("a", 1, 5), _cand("b", 14, 16)], _cost(per_line=10), 0)
    assert _ranges(sel.chosen) == [(1, 5, ["a"]), (14, 16, ["b"])]


def test_excerpts_of_other_files_or_far_away_are_never_joined() -> None:
    optional = [_cand("a", 1, 5), _cand("b", 6, 9, path="n.py"), _cand("c", 30, 40)]
    sel = fill(_query(), [], optional, _cost(per_line=0), 0)
    assert _ranges(sel.chosen) == [(1, 5, ["a"]), (6, 9, ["b"]), (30, 40, ["c"])]


def test_a_candidate_between_two_excerpts_joins_both_in_the_place_of_the_first() -> None:
    optional = [_cand("c", 20, 25, path="n.py"), _cand("a", 1, 5), _cand("b", 20, 24), _cand("mid", 6, 19)]
    sel = fill(_query(), [], optional, _cost(per_line=3), 0)
    assert _ranges(sel.chosen) == [(20, 25, ["c"]), (1, 24, ["a", "b", "mid"])]


def test_an_enclosing_node_absorbs_the_excerpt_it_contains_instead_of_quoting_it_twice() -> None:
    sel = fill(_query(), [], [_cand("method", 4, 6), _cand("klass", 1, 10)], _cost(), 0)
    assert _ranges(sel.chosen) == [(1, 10, ["method", "klass"])]


def test_required_evidence_is_quoted_exactly_as_requested() -> None:
    sel = fill(_query(), [_cand("req", 1, 5)], [_cand("b", 6, 9)], _cost(), 0)
    assert _ranges(sel.chosen) == [(1, 5, ["req"]), (6, 9, ["b"])]


def test_joined_nodes_count_against_the_node_ceiling() -> None:
    optional = [_cand("a", 1, 5), _cand("b", 6, 9), _cand("c", 10, 12)]
    sel = fill(_query(max_nodes=2), [], optional, _cost(), 0)
    assert _ranges(sel.chosen) == [(1, 9, ["a", "b"])]
    assert sel.excluded == [
        {"node_id": optional[2].node_id, "path": "m.py", "reason": REASON_NODE_CEILING, "lines": [10, 12]}
    ]


def test_a_join_never_takes_the_packet_over_its_ceiling() -> None:
    # a alone costs 55; joining b would need 30 more than the 20 left.
    sel = fill(_query(max_tokens=75), [], [_cand("a", 1, 5), _cand("b", 6, 11)], _cost(), 0)
    assert _ranges(sel.chosen) == [(1, 5, ["a"])] and sel.omitted == 1


JOINED_SOURCE = """def alpha_widget(x):
    return x + 1

def beta_widget(y):
    return alpha_widget(y) * 2
"""


def test_a_joined_excerpt_names_its_nodes_and_verifies_against_its_source(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "widgets.py").write_text(JOINED_SOURCE, encoding="utf-8")
    with prooftext.open(root) as index:
        packet = index.pack("alpha_widget beta_widget")
        assert index.verify(packet.to_dict()).status == 0
    (evidence,) = [e for e in packet.evidence if e.path == "widgets.py"]
    assert (evidence.start_line, evidence.end_line) == (1, 5)
    assert {evidence.qualname, *(j.qualname for j in evidence.joined)} == {"alpha_widget", "beta_widget"}
    assert packet.prompt.count("----- END EVIDENCE") == len(packet.evidence)
    assert packet.to_dict()["evidence"][0]["joined"] == [j.to_dict() for j in evidence.joined]


def test_a_joined_excerpt_left_out_records_every_node_it_quotes() -> None:
    sel = fill(_query(), [], [_cand("a", 1, 5), _cand("b", 6, 9)], _cost(), 0)
    records = choice_records(sel.chosen[0], "over_budget_exact")
    assert [(r["node_id"], r["lines"]) for r in records] == [
        (_cand("a", 1, 5).node_id, [1, 5]),
        (_cand("b", 6, 9).node_id, [6, 9]),
    ]


@pytest.mark.parametrize("fmt", ["markdown", "xml", "json"])
@pytest.mark.parametrize("unit", ["tokens", "bytes"])
def test_joined_excerpts_verify_in_every_format_and_unit(tmp_path: Path, fmt: str, unit: str) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "widgets.py").write_text(JOINED_SOURCE, encoding="utf-8")
    with prooftext.open(root) as index:
        packet = index.pack(Query("alpha_widget beta_widget", unit=unit), format=fmt)
        assert index.verify(packet.to_dict()).status == 0
    assert [(e.start_line, e.end_line, len(e.joined)) for e in packet.evidence] == [(1, 5, 1)]
