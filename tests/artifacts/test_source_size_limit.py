"""One source of the context lifecycle is at most ``MAX_SOURCE_BYTES``: a larger one is past a limit
(``limit_exceeded``, as the total is), not unreadable; optional, it is excluded with that reason, required,
it blocks."""

from __future__ import annotations

from pathlib import Path

from gates.context import Run
from prooftext.artifacts.limits import MAX_SOURCE_BYTES

from .helpers import code_of

BIG = "notes/big.md"


def _plant_big_source(run: Run) -> None:
    line = "A line of plain notes, long enough to fill the file quickly.\n"
    text = line * (MAX_SOURCE_BYTES // len(line) + 1)
    assert MAX_SOURCE_BYTES < len(text) < 1 << 20  # over the lifecycle's limit, under the scan's
    (run.repo / BIG).parent.mkdir(parents=True, exist_ok=True)
    (run.repo / BIG).write_text(text, encoding="utf-8")


def test_an_optional_source_over_the_limit_is_excluded_as_past_a_limit_not_unreadable(tmp_path: Path) -> None:
    run = Run.fresh(tmp_path, "big")
    _plant_big_source(run)
    run.manifest()
    run.graph()
    graph = run.value("graph")
    excluded = [x for x in graph["excluded_sources"] if x["path"] == BIG]
    assert [x["reason"] for x in excluded] == ["limit_exceeded"]
    assert str(MAX_SOURCE_BYTES) in excluded[0]["detail"]
    assert graph["limits"]["max_source_bytes"] == MAX_SOURCE_BYTES


def test_a_required_source_over_the_limit_blocks_the_graph_with_limit_exceeded(tmp_path: Path) -> None:
    run = Run.fresh(tmp_path, "big-required")
    _plant_big_source(run)
    run.manifest(required=(BIG,))
    assert code_of(run.graph) == "limit_exceeded"
    assert not run.out("graph").exists()
