"""A Graph's contradicts edges are exactly the ones its documents' front matter declares, so a contradiction
cannot be hidden from (or forged into) the lifecycle by editing the Graph and recomputing its ids."""

from __future__ import annotations

from typing import Any

from gates.context import Run
from prooftext.artifacts import lifecycle as lc
from prooftext.artifacts.ids import edge_value

from .helpers import code_of, rewrite


def _without_contradicts(value: dict[str, Any]) -> None:
    value["edges"] = [e for e in value["edges"] if e["type"] != "contradicts"]


def _with_forged_contradicts(value: dict[str, Any]) -> None:
    files = sorted(n["node_id"] for n in value["nodes"] if n["kind"] == "file")
    declared = {(e["source"], e["target"]) for e in value["edges"] if e["type"] == "contradicts"}
    pair = next((a, b) for a in files for b in files if a < b and (a, b) not in declared)
    value["edges"] = sorted([*value["edges"], edge_value("contradicts", *pair)], key=lambda e: e["edge_id"])


def test_the_indexed_graph_declares_its_contradictions(run: Run) -> None:
    assert any(e["type"] == "contradicts" for e in run.value("graph")["edges"])
    assert lc.run_validate(run.out("graph"))["valid"]


def test_a_graph_missing_a_declared_contradiction_is_invalid(run: Run) -> None:
    edited = rewrite(run, "graph", "graph-hidden", _without_contradicts)
    assert code_of(lambda: lc.run_validate(edited)) == "schema_violation"


def test_a_graph_with_an_undeclared_contradiction_is_invalid(run: Run) -> None:
    edited = rewrite(run, "graph", "graph-forged", _with_forged_contradicts)
    assert code_of(lambda: lc.run_validate(edited)) == "schema_violation"


def test_a_hidden_contradiction_blocks_the_steps_that_read_the_graph(run: Run) -> None:
    edited = rewrite(run, "graph", "graph-hidden", _without_contradicts)
    select = lambda: lc.run_select(edited, run.out("query"), run.out("selection-hidden"))  # noqa: E731
    assert code_of(select) == "schema_violation"
    assert not run.out("selection-hidden").exists()
