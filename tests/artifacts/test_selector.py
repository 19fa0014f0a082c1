"""The pure artifact selector: ranking tuple, determinism, budgets, closure."""

from __future__ import annotations

from typing import Any

from gates.context import QUERY_TEXT, Run, node_of
from gates.fixture import LEDGER, SPECIFICATION
from prooftext import canonical
from prooftext.artifacts import lifecycle as lc
from prooftext.artifacts.models import Graph, Query
from prooftext.artifacts.query import byte_query
from prooftext.artifacts.selector import select
from prooftext.artifacts.view import GraphView
from prooftext.corpus.model import AUTHORITIES, SENSITIVITIES

PHASE_ORDER = ("required", "traversal", "identifier", "lexical")


def _models(run: Run, query: str = "query") -> tuple[Graph, Query]:
    return Graph.model_validate(run.value("graph")), Query.model_validate(run.value(query))


def test_selection_is_deterministic(run: Run) -> None:
    graph, query = _models(run)
    first = select(graph, query)
    assert canonical.encode(first) == canonical.encode(select(graph, query, GraphView.of(graph)))
    assert first == run.value("selection")


def _key(node: dict[str, Any]) -> tuple[Any, ...]:
    rank = node["rank"]
    return (
        PHASE_ORDER.index(rank["phase"]),
        AUTHORITIES.index(rank["authority"]),
        rank["distance"],
        -rank["lexical_score"],
        SENSITIVITIES.index(rank["sensitivity"]),
        node["node_id"],
    )


def test_optional_nodes_follow_the_ranking_tuple(run: Run) -> None:
    nodes = run.value("selection")["nodes"]
    triggers = [n for n in nodes if not n["required"] and n["reason"] != "contradiction"]
    assert triggers == sorted(triggers, key=_key)
    assert nodes[0]["node_id"] == node_of(run, SPECIFICATION) and nodes[0]["rank"]["phase"] == "required"


def test_an_identifier_in_the_query_selects_the_symbol_in_its_phase(run: Run) -> None:
    nodes = run.value("selection")["nodes"]
    charge = next(n for n in nodes if n["reason"] == "identifier")
    graph = run.value("graph")
    assert next(g for g in graph["nodes"] if g["node_id"] == charge["node_id"])["name"] == "charge"


def test_costs_are_canonical_utf8_bytes_and_add_up(run: Run) -> None:
    graph = run.value("graph")
    selection = run.value("selection")
    by_id = {n["node_id"]: n for n in graph["nodes"]} | {e["edge_id"]: e for e in graph["edges"]}
    for item in selection["nodes"]:
        assert item["cost_bytes"] == len(canonical.encode(by_id[item["node_id"]]))
    for item in selection["edges"]:
        assert item["cost_bytes"] == len(canonical.encode(by_id[item["edge_id"]]))
    budget = selection["budget"]
    assert budget["used_bytes"] == sum(i["cost_bytes"] for i in selection["nodes"] + selection["edges"])


def test_selected_edges_are_exactly_the_induced_ones(run: Run) -> None:
    graph = run.value("graph")
    selection = run.value("selection")
    chosen = {n["node_id"] for n in selection["nodes"]}
    induced = {e["edge_id"] for e in graph["edges"] if e["source"] in chosen and e["target"] in chosen}
    assert {e["edge_id"] for e in selection["edges"]} == induced


def test_a_tight_budget_excludes_in_rank_order_and_never_exceeds(run: Run) -> None:
    lc.run_query(run.out("graph"), byte_query(QUERY_TEXT, max_bytes=3000), run.out("q"))
    run.select("s", "q")
    selection = run.value("s")
    assert selection["budget"]["used_bytes"] <= 3000
    excluded = selection["excluded"]
    assert {x["reason"] for x in excluded} == {"over_budget", "contradiction"}
    # A section of a file whose contradiction component did not fit is left out with the component.
    source = {n["node_id"]: n["source_id"] for n in run.value("graph")["nodes"]}
    refused = {source[x["node_id"]] for x in excluded if x["reason"] == "over_budget" and x["component_id"]}
    assert all(source[x["node_id"]] in refused for x in excluded if x["reason"] == "contradiction")


def test_a_node_ceiling_is_recorded(run: Run) -> None:
    lc.run_query(run.out("graph"), byte_query(QUERY_TEXT, max_nodes=3), run.out("q"))
    run.select("s", "q")
    selection = run.value("s")
    assert len(selection["nodes"]) <= 3 and "node_ceiling" in {x["reason"] for x in selection["excluded"]}


def test_traversal_within_bounds_records_distances(run: Run) -> None:
    run.query("q", max_depth=8)
    run.select("s", "q")
    selection = run.value("s")
    traversed = [n for n in selection["nodes"] if n["rank"]["phase"] == "traversal"]
    assert traversed and all(1 <= n["rank"]["distance"] <= 8 for n in traversed)
    assert selection["traversal"]["truncated"] is False
    assert selection["traversal"]["depth_reached"] == max(n["rank"]["distance"] for n in traversed)


def test_query_required_paths_resolve_to_file_nodes(run: Run) -> None:
    lc.run_query(run.out("graph"), byte_query(QUERY_TEXT, required=(LEDGER, f"./{LEDGER}")), run.out("q"))
    assert run.value("q")["required"] == [node_of(run, LEDGER)]
    run.select("s", "q")
    ledger = next(n for n in run.value("s")["nodes"] if n["node_id"] == node_of(run, LEDGER))
    assert ledger["required"] and ledger["reason"] == "required"


def test_the_trusted_encoder_is_byte_identical_to_the_canonical_one(run: Run) -> None:
    from prooftext.artifacts.ids import trusted_canonical

    graph = run.value("graph")
    for part in [*graph["nodes"], *graph["edges"], *graph["sources"], {"t": "caf\u00e9 \U0001f600 \u2028"}]:
        assert trusted_canonical(part) == canonical.encode(part)
