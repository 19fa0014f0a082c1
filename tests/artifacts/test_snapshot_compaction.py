"""Snapshot replay and re-observation, host summary proposals, and extractive compaction."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gates import fixture
from gates.context import Run, _claims, node_of
from prooftext import canonical
from prooftext.artifacts import lifecycle as lc
from prooftext.artifacts.compaction import build_compaction
from prooftext.artifacts.models import Snapshot
from prooftext.artifacts.observe import Roots

from .helpers import code_of, rewrite


def _compact(run: Run, name: str = "compaction", proposal: str | None = "proposal") -> Any:
    lc.run_compact(
        run.out("snapshot"), run.repo, run.owner, run.out(name), run.out(proposal) if proposal else None
    )
    return run.value(name)


def _propose(run: Run, claims: list[dict[str, Any]], name: str = "proposal") -> None:
    path = run.repo / ".prooftext" / f"{name}-claims.json"
    path.write_text(json.dumps(claims), encoding="utf-8")
    lc.run_propose(run.out("snapshot"), path, run.out(name))


def test_snapshot_extracts_are_the_reobserved_selection(run: Run) -> None:
    run.snapshot()
    snapshot = run.value("snapshot")
    selection = run.value("selection")
    assert [e["node_id"] for e in snapshot["extracts"]] == [n["node_id"] for n in selection["nodes"]]
    assert snapshot["selection_id"] == selection["artifact_id"] and snapshot["query"] == selection["query"]
    assert snapshot["budget"]["used_bytes"] == selection["budget"]["used_bytes"]
    assert snapshot["contradictions"] == selection["contradictions"]


def test_a_well_formed_but_tampered_selection_is_not_the_deterministic_output(run: Run) -> None:
    reordered = rewrite(run, "selection", "sel", lambda v: v["nodes"].insert(1, v["nodes"].pop()))
    assert lc.run_validate(reordered)["valid"]
    snapshot = lambda: lc.run_snapshot(run.out("graph"), reordered, run.repo, run.owner, run.out("snap"))  # noqa: E731
    assert code_of(snapshot) == "selection_mismatch"
    assert not run.out("snap").exists()


def test_compaction_retains_required_and_contradiction_extracts(run: Run) -> None:
    run.snapshot()
    _propose(
        run,
        [
            {
                "text": "Over-budget requests are rejected.",
                "decision": "must",
                "links": [node_of(run, fixture.DECISION)],
            }
        ],
    )
    compaction = _compact(run)
    snapshot = run.value("snapshot")
    keep = [e for e in snapshot["extracts"] if e["required"] or e["component_id"]]
    assert compaction["retained"] == keep
    rest = [e for e in snapshot["extracts"] if e not in keep]
    assert [d["node_id"] for d in compaction["digests"]] == [e["node_id"] for e in rest]
    assert [d["text_sha256"] for d in compaction["digests"]] == [e["text_sha256"] for e in rest]
    assert compaction["contradictions"] == snapshot["contradictions"]
    b = compaction["bytes"]
    assert b["snapshot_used_bytes"] == snapshot["budget"]["used_bytes"]
    assert b["retained_cost_bytes"] + b["digest_cost_bytes"] == sum(
        e["cost_bytes"] for e in snapshot["extracts"]
    )
    assert compaction["sensitivity"] == "owner-private"
    summary = compaction["host_summary"]
    assert (summary["authority"], summary["decision_authority"]) == ("untrusted-proposal", False)


def test_a_proposal_with_a_higher_label_is_rejected(run: Run) -> None:
    run.snapshot()
    _propose(run, [{"text": "x", "decision": "none", "links": [node_of(run, fixture.SPECIFICATION)]}])
    path = rewrite(run, "proposal", "p-high", lambda v: v.update(authority="verified-evidence"))
    assert code_of(lambda: lc.run_validate(path)) == "authority_invalid"


def test_claims_must_link_selected_nodes_by_exact_digest(run: Run) -> None:
    run.snapshot()
    _propose(run, [{"text": "x", "decision": "none", "links": [node_of(run, fixture.SPECIFICATION)]}])
    path = rewrite(
        run, "proposal", "p-digest", lambda v: v["claims"][0]["links"][0].update(text_sha256="0" * 64)
    )
    assert code_of(lambda: _compact(run, "c", "p-digest")) == "schema_violation"
    assert path.exists()
    rewrite(run, "proposal", "p-absent", lambda v: v["claims"][0]["links"][0].update(node_id="A" * 64))
    assert code_of(lambda: _compact(run, "c2", "p-absent")) == "schema_violation"


def test_a_decision_never_rests_on_a_host_summary_and_untrusted_text_alone(run: Run) -> None:
    run.snapshot()
    claims_path = _claims(run, run.value("snapshot"), fixture.DRAFT)
    lc.run_propose(run.out("snapshot"), claims_path, run.out("p-untrusted"))
    assert code_of(lambda: _compact(run, "c", "p-untrusted")) == "authority_invalid"
    value = json.loads(claims_path.read_text())
    value[0]["decision"] = "none"
    claims_path.write_text(json.dumps(value))
    lc.run_propose(run.out("snapshot"), claims_path, run.out("p-note"))
    assert _compact(run, "c-note", "p-note")["host_summary"]["claims"][0]["decision"] == "none"


def test_a_proposal_for_another_snapshot_is_rejected(run: Run) -> None:
    run.snapshot()
    _propose(run, [{"text": "x", "decision": "none", "links": [node_of(run, fixture.SPECIFICATION)]}])
    path = rewrite(run, "proposal", "p-other", lambda v: v.update(snapshot_id="B" * 64))
    assert code_of(lambda: _compact(run, "c", "p-other")) == "artifact_invalid"
    assert path.exists()


def test_a_parser_bypassing_snapshot_cannot_authenticate_itself(run: Run) -> None:
    run.snapshot()
    value = run.value("snapshot")
    value["extracts"][0]["text"] += "injected\n"
    forged = Snapshot.model_construct(**Snapshot.model_validate(value).__dict__)
    assert (
        code_of(lambda: build_compaction(forged, None, Roots(run.repo, run.owner))) == "artifact_id_mismatch"
    )
    rehashed = canonical.with_artifact_id({k: v for k, v in value.items() if k != "artifact_id"})
    assert (
        code_of(lambda: build_compaction(Snapshot.model_validate(rehashed), None, Roots(run.repo, run.owner)))
        == "schema_violation"
    )


def test_compaction_reobserves_sources_and_candidate(run: Run) -> None:
    run.snapshot()
    (run.owner / fixture.OWNER_DRAFT).write_text("# Draft approval\n\nChanged.\n", encoding="utf-8")
    assert code_of(lambda: _compact(run, "c", None)) == "source_drift"
    (run.repo / fixture.LEDGER).write_text("pass\n", encoding="utf-8")
    assert code_of(lambda: _compact(run, "c2", None)) == "candidate_mismatch"


def _required_file(value: dict[str, Any]) -> dict[str, Any]:
    return next(e for e in value["extracts"] if e["required"] and e["kind"] == "file")


def test_a_snapshot_without_a_required_extract_is_invalid(run: Run) -> None:
    run.snapshot()

    def drop_required(value: dict[str, Any]) -> None:
        gone = _required_file(value)["node_id"]
        value["extracts"] = [e for e in value["extracts"] if e["node_id"] != gone]
        value["edges"] = [e for e in value["edges"] if gone not in (e["source"], e["target"])]
        costs = [e["cost_bytes"] for e in value["extracts"] + value["edges"]]
        value["budget"]["used_bytes"] = sum(costs)

    dropped = rewrite(run, "snapshot", "snap-no-required", drop_required)
    assert code_of(lambda: lc.run_validate(dropped)) == "schema_violation"


def test_a_snapshot_edge_id_is_recomputed(run: Run) -> None:
    run.snapshot()

    def retype(value: dict[str, Any]) -> None:
        edge = next(e for e in value["edges"] if e["type"] == "contains")
        edge["type"] = "contradicts"
        edge["source"], edge["target"] = sorted((edge["source"], edge["target"]))

    retyped = rewrite(run, "snapshot", "snap-retyped", retype)
    assert code_of(lambda: lc.run_validate(retyped)) == "artifact_id_mismatch"


def test_a_compaction_digest_carries_its_sources_labels(run: Run) -> None:
    run.snapshot()
    _propose(run, [{"text": "x", "decision": "none", "links": [node_of(run, fixture.SPECIFICATION)]}])
    _compact(run)

    def relabel(value: dict[str, Any]) -> None:
        digest = next(d for d in value["digests"] if d["path"] == fixture.LEDGER)
        digest.update(authority="owner-approved", sensitivity="public")

    relabelled = rewrite(run, "compaction", "c-relabelled", relabel)
    assert code_of(lambda: lc.run_validate(relabelled)) == "schema_violation"


CLAIM = {"text": "x", "decision": "none"}
BAD_CLAIMS: dict[str, tuple[Any, str]] = {
    "an unknown claim field": ([{**CLAIM, "links": ["SPEC"], "bogus": True}], "invalid_request"),
    "an unknown link field": (
        [{**CLAIM, "links": [{"node_id": "SPEC", "text_sha256": "DIGEST", "evil": 1}]}],
        "invalid_request",
    ),
    "an unknown top-level field": ({"claims": [{**CLAIM, "links": ["SPEC"]}], "extra": 1}, "invalid_request"),
    "a node that is not an extract": (
        [{**CLAIM, "links": [{"node_id": "A" * 64, "text_sha256": "0" * 64}]}],
        "not_found",
    ),
    "a wrong digest": (
        [{**CLAIM, "links": [{"node_id": "SPEC", "text_sha256": "0" * 64}]}],
        "invalid_request",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_CLAIMS))
def test_propose_refuses_what_it_cannot_carry_exactly(run: Run, case: str) -> None:
    run.snapshot()
    spec = next(e for e in run.value("snapshot")["extracts"] if e["path"] == fixture.SPECIFICATION)
    claims, code = BAD_CLAIMS[case]
    text = json.dumps(claims).replace("SPEC", spec["node_id"]).replace("DIGEST", spec["text_sha256"])
    path = run.repo / ".prooftext" / "claims.json"
    path.write_text(text, encoding="utf-8")
    assert code_of(lambda: lc.run_propose(run.out("snapshot"), path, run.out("p"))) == code
    assert not run.out("p").exists()


def test_validate_with_a_repository_root_checks_each_compaction_digest_against_its_lines(run: Run) -> None:
    run.snapshot()
    compaction = _compact(run, proposal=None)
    assert lc.run_validate(run.out("compaction"), run.repo)["reobserved"]

    def shorten(value: dict[str, Any]) -> None:
        digest = next(d for d in value["digests"] if d["line_range"][1] > d["line_range"][0])
        digest["line_range"][1] -= 1

    moved = rewrite(run, "compaction", "c-moved", shorten)
    assert lc.run_validate(moved)["reobserved"] is False  # sound in itself: only its sources tell
    assert code_of(lambda: lc.run_validate(moved, run.repo)) == "source_drift"
    report = lc.run_validate(run.out("compaction"), run.repo)
    scopes = [s["locator"]["root_scope"] for s in compaction["sources"]]
    assert (report["sources_checked"], report["owner_sources_skipped"]) == (
        scopes.count("repository"),
        scopes.count("owner"),
    )
