"""Quality report (exactly the seed's fields, reproduced from the graph) and structural comparison."""

from __future__ import annotations

from typing import Any

from gates import fixture
from gates.context import ENVELOPE_FIELDS, QUERY_TEXT, Run, node_of
from prooftext.artifacts import lifecycle as lc
from prooftext.artifacts.compare import compare_snapshots
from prooftext.artifacts.loader import load_artifact
from prooftext.artifacts.models import QUALITY_FIELDS, Extract, Snapshot
from prooftext.artifacts.quality import redundant_bytes
from prooftext.artifacts.query import byte_query
from prooftext.canonical import sha256_hex

from .helpers import code_of, rewrite

SHA = "0" * 64


def _extract(node: str, source: str, line_range: list[int], text: str) -> Extract:
    return Extract.model_validate(
        {
            "node_id": node * 64,
            "source_id": source * 64,
            "root_scope": "repository",
            "path": "a.md",
            "kind": "section",
            "qualname": "q",
            "line_range": line_range,
            "text": text,
            "text_sha256": SHA,
            "authority": "repository-record",
            "freshness": "candidate-bound",
            "sensitivity": "public",
            "required": False,
            "reason": "lexical",
            "component_id": None,
            "cost_bytes": 1,
        }
    )


def _quality(run: Run) -> dict[str, Any]:
    run.snapshot()
    lc.run_quality(run.out("graph"), run.out("snapshot"), run.out("quality"))
    return dict(run.value("quality"))


def _drop_extract(value: dict[str, Any], node_id: str) -> None:
    """Remove an extract with its edges and its byte cost, and no exclusion: otherwise self-consistent."""
    value["extracts"] = [e for e in value["extracts"] if e["node_id"] != node_id]
    value["edges"] = [e for e in value["edges"] if node_id not in (e["source"], e["target"])]
    used = {e["source_id"] for e in value["extracts"]}
    value["sources"] = [s for s in value["sources"] if s["source_id"] in used]
    costs = [e["cost_bytes"] for e in value["extracts"] + value["edges"]]
    value["budget"]["used_bytes"] = sum(costs)


def test_quality_refuses_a_snapshot_that_is_not_its_selections_extracts(run: Run) -> None:
    run.snapshot()
    ledger = node_of(run, fixture.LEDGER)
    dropped = rewrite(run, "snapshot", "snap-dropped", lambda v: _drop_extract(v, ledger))
    assert lc.run_validate(dropped)["valid"]  # nothing in the snapshot alone shows what is missing
    quality = lambda: lc.run_quality(run.out("graph"), dropped, run.out("q-dropped"))  # noqa: E731
    assert code_of(quality) == "selection_mismatch"
    assert not run.out("q-dropped").exists()


def test_the_report_has_exactly_the_seeds_fields(run: Run) -> None:
    report = _quality(run)
    assert set(report) == {*ENVELOPE_FIELDS, *QUALITY_FIELDS}
    assert not [k for k in report if "score" in k or "aggregate" in k]


def test_the_measurements(run: Run) -> None:
    report = _quality(run)
    snapshot = run.value("snapshot")
    assert report["required_reference_recall"] == {"required": 1, "included": 1, "bps": 10_000}
    assert report["stale_required_count"] == 0 and report["sensitivity_violations"] == 0
    assert report["provenance"] == {"complete": len(snapshot["extracts"]), "missing": 0}
    assert (report["selected_bytes"], report["budget_bytes"]) == (snapshot["budget"]["used_bytes"], 65_536)
    assert (report["selected_nodes"], report["excluded_nodes"]) == (
        len(snapshot["extracts"]),
        len(snapshot["excluded"]),
    )
    assert report["unresolved_contradictions"] == 2
    assert report["traversal_truncation"] is False
    assert report["redundant_bytes"] > 0  # files and their sections overlap
    assert report["candidate"] == snapshot["candidate"] and report["sensitivity"] == snapshot["sensitivity"]


def test_redundant_bytes_count_repeated_lines_once() -> None:
    whole = _extract("A", "E", [1, 3], "one\ntwo\nthree\n")
    part = _extract("B", "E", [2, 3], "two\nthree\n")
    other = _extract("C", "F", [1, 1], "two\n")
    assert redundant_bytes([whole, part, other]) == len(b"two\nthree\n")
    assert redundant_bytes([whole]) == 0


def test_the_report_is_reproduced_from_the_graph(run: Run) -> None:
    run.snapshot()
    lc.run_quality(run.out("graph"), run.out("snapshot"), run.out("q1"))
    lc.run_quality(run.out("graph"), run.out("snapshot"), run.out("q2"))
    assert run.out("q1").read_bytes() == run.out("q2").read_bytes()
    run.manifest("m-other", required=(fixture.LEDGER,))
    run.graph("graph-other", "m-other")
    assert (
        code_of(lambda: lc.run_quality(run.out("graph-other"), run.out("snapshot"), run.out("q3")))
        == "artifact_invalid"
    )


def test_compare_identical_and_changed_snapshots(run: Run) -> None:
    run.snapshot()
    same = lc.run_compare(run.out("snapshot"), run.out("snapshot"))
    assert same["identical"] and same["extracts"]["unchanged"] == len(run.value("snapshot")["extracts"])
    lc.run_query(run.out("graph"), byte_query(QUERY_TEXT, clearance="repository-private"), run.out("q2"))
    run.select("s2", "q2")
    run.snapshot("snap2", "s2", owner=False)
    delta = lc.run_compare(run.out("snapshot"), run.out("snap2"))
    removed = {e["node_id"] for e in delta["extracts"]["removed"]}
    assert {node_of(run, fixture.OWNER_RECORD), node_of(run, fixture.OWNER_DRAFT)} <= removed
    assert delta["query_changed"] and not delta["candidate_changed"] and delta["bytes"]["delta"] < 0
    assert delta["sensitivity"] == {"base": "owner-private", "current": "repository-private"}
    assert len(delta["contradictions"]["removed"]) == 1


def test_compare_pairs_a_changed_extract_by_place(run: Run) -> None:
    run.snapshot()
    (run.owner / fixture.OWNER_DRAFT).write_text(
        "# Draft approval\n\nThe owner may approve soft budgets now.\n", encoding="utf-8"
    )
    run.manifest("m2")
    run.graph("g2", "m2")
    lc.run_query(run.out("g2"), byte_query(QUERY_TEXT), run.out("q2"))
    lc.run_select(run.out("g2"), run.out("q2"), run.out("s2"))
    lc.run_snapshot(run.out("g2"), run.out("s2"), run.repo, run.owner, run.out("snap2"))
    delta = lc.run_compare(run.out("snapshot"), run.out("snap2"))
    changed = {c["current"]["path"] for c in delta["extracts"]["changed"]}
    assert changed == {fixture.OWNER_DRAFT} and delta["graph_changed"]


def test_compare_counts_an_extract_whose_text_changed_under_the_same_node_id_as_changed(run: Run) -> None:
    run.snapshot()

    def alter(value: dict[str, Any]) -> None:
        extract = next(e for e in value["extracts"] if e["path"] == fixture.LEDGER)
        extract["text"] = extract["text"].replace("never truncate", "always truncate")
        extract["text_sha256"] = sha256_hex(extract["text"].encode("utf-8"))

    altered = rewrite(run, "snapshot", "snap-altered", alter)
    delta = lc.run_compare(run.out("snapshot"), altered)
    extracts = delta["extracts"]
    assert not delta["identical"] and extracts["unchanged"] == len(run.value("snapshot")["extracts"]) - 1
    [pair] = extracts["changed"]
    assert pair["base"]["node_id"] == pair["current"]["node_id"] and pair["base"]["path"] == fixture.LEDGER
    assert pair["base"]["text_sha256"] != pair["current"]["text_sha256"]
    assert (extracts["added"], extracts["removed"]) == ([], [])


def test_compare_accounts_for_every_extract_when_two_share_a_place(run: Run) -> None:
    """Two sections under the same heading path (``## Notes`` twice) share a place: each is paired or
    reported, none is lost."""
    run.snapshot()
    snapshot = load_artifact(run.out("snapshot"), Snapshot)
    base = snapshot.model_copy(
        update={"extracts": [_extract("A", "F", [3, 6], "a\n"), _extract("B", "F", [7, 9], "b\n")]}
    )
    for current in (
        [_extract("C", "F", [3, 6], "c\n"), _extract("D", "F", [7, 9], "d\n")],
        [_extract("C", "F", [3, 6], "c\n")],
        [
            _extract("C", "F", [3, 6], "c\n"),
            _extract("D", "F", [7, 9], "d\n"),
            _extract("E", "F", [10, 12], "e\n"),
        ],
    ):
        delta = compare_snapshots(base, snapshot.model_copy(update={"extracts": current}))["extracts"]
        changed = delta["changed"]
        assert {p["base"]["node_id"][0] for p in changed} | {r["node_id"][0] for r in delta["removed"]} == {
            "A",
            "B",
        }
        current_ids = {p["current"]["node_id"][0] for p in changed} | {
            a["node_id"][0] for a in delta["added"]
        }
        assert current_ids == {e.node_id[0] for e in current}
        assert [p["base"]["line_range"] for p in changed] == [p["current"]["line_range"] for p in changed]
