"""The nodes just before and just after the best candidates of the best files are candidates too, at a share
of that candidate's priority."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import prooftext
from helpers import ranked_hits
from prooftext import Query
from prooftext.select import expand
from prooftext.select.policy import DEFAULT_POLICY
from under_policy import ranked_under

CODEC = '''"""Wire format helpers."""

import struct

def frame_header(size):
    return struct.pack(">I", size)


def compress_payload(data):
    return frame_header(len(data)) + data


def unframe(blob):
    return blob[4:]


def far_away(value):
    return value
'''

ISSUE = "compress_payload drops bytes\n\nA payload is compressed wrongly: compress_payload loses the tail."


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "codec.py").write_text(CODEC, encoding="utf-8")
    return tmp_path


def _hits(repo: Path) -> list[dict[str, Any]]:
    return ranked_hits(repo, ISSUE)


def _named(hits: list[dict[str, Any]], qualname: str) -> dict[str, Any] | None:
    found = [h for h in hits if h["qualname"] == qualname]
    return found[0] if found else None


def test_a_node_ends_before_its_previous_neighbour_and_starts_after_its_next() -> None:
    spans = [(1, 1, 2), (2, 4, 5), (3, 8, 9), (4, 12, 20), (5, 13, 20)]
    assert expand.adjacent(spans, 8, 9) == [2, 4]
    # On a tie the innermost node is the neighbour: a method before the class that holds it.
    assert expand.adjacent(spans, 22, 30) == [5]
    assert expand.adjacent(spans, 1, 2) == [2]
    assert expand.adjacent([(7, 1, 40)], 1, 40) == []


spans_strategy = st.lists(
    st.tuples(st.integers(1, 60), st.integers(0, 20)).map(lambda t: (t[0], t[0] + t[1])), max_size=12
).map(lambda pairs: [(rowid, first, last) for rowid, (first, last) in enumerate(pairs)])


@given(spans_strategy, st.integers(1, 60), st.integers(0, 20))
def test_a_neighbour_lies_outside_the_node_and_none_lies_nearer(
    spans: list[tuple[int, int, int]], start: int, length: int
) -> None:
    end = start + length
    found = expand.adjacent(spans, start, end)
    by_id = {rowid: (first, last) for rowid, first, last in spans}
    before = [last for _, _, last in spans if last < start]
    after = [first for _, first, _ in spans if first > end]
    assert len(found) == bool(before) + bool(after)
    for rowid in found:
        first, last = by_id[rowid]
        assert last < start or first > end
        assert last == max(before, default=None) or first == min(after, default=None)


def test_the_functions_beside_the_best_hit_are_candidates_without_a_query_word(repo: Path) -> None:
    hits = _hits(repo)
    best = _named(hits, "compress_payload")
    assert best is not None
    for qualname in ("frame_header", "unframe"):
        neighbour = _named(hits, qualname)
        assert neighbour is not None, qualname
        assert neighbour["components"]["neighbour"] == 1
        assert neighbour["reason"] == expand.REASON_NEIGHBOUR
        assert neighbour["priority"] == int(best["priority"] * DEFAULT_POLICY.neighbour_factor)
    assert _named(hits, "far_away") is None


def test_without_neighbour_files_no_neighbour_is_offered(repo: Path) -> None:
    hits = ranked_under(repo, ISSUE, replace(DEFAULT_POLICY, neighbour_files=0))
    assert _named(hits, "compress_payload") is not None
    assert _named(hits, "frame_header") is None
    assert _named(hits, "unframe") is None


def test_the_packet_quotes_a_neighbour_and_the_trace_records_its_knobs(repo: Path) -> None:
    with prooftext.open(repo) as index:
        packet = index.pack(Query(ISSUE, max_tokens=4000))
    recorded = packet.trace["ranking"]["policy"]
    assert recorded["neighbour_files"] == DEFAULT_POLICY.neighbour_files
    assert recorded["neighbour_nodes"] == DEFAULT_POLICY.neighbour_nodes
    assert recorded["neighbour_factor_milli"] == int(DEFAULT_POLICY.neighbour_factor * 1000)
    header_line = CODEC.splitlines().index("def frame_header(size):") + 1
    assert any(e.start_line <= header_line <= e.end_line for e in packet.evidence if e.path == "codec.py")
