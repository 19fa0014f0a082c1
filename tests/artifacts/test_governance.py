"""Every governance rule of the context framework, each with a failing input and its stable error code."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gates.context import QUERY_TEXT, WINDOW, Run, node_of
from gates.fixture import (
    DECISION,
    DRAFT,
    LEDGER,
    OWNER_DRAFT,
    OWNER_RECORD,
    SPECIFICATION,
    TESTS,
)
from prooftext import canonical
from prooftext.artifacts import lifecycle as lc
from prooftext.artifacts.observe import Roots
from prooftext.artifacts.publish import check_no_absolute_roots
from prooftext.artifacts.query import byte_query
from prooftext.errors import ProoftextError

from .helpers import code_of, relabelled_graph, relabelled_snapshot, rewrite, source_of

OUTSIDE_WINDOW = "2031-01-01T00:00:00Z"
INSIDE_WINDOW = "2024-06-15T12:00:00Z"


def error_of(action: Any) -> ProoftextError:
    with pytest.raises(ProoftextError) as info:
        action()
    return info.value


def index(run: Run, manifest: str, name: str = "g", owner: bool = True) -> Path:
    lc.run_index(run.out(manifest), run.repo, run.owner if owner else None, run.out(name))
    return run.out(name)


def excluded_sources(run: Run, graph: str = "g") -> set[tuple[str, str]]:
    return {(x["path"], x["reason"]) for x in run.value(graph)["excluded_sources"]}


# --- explicit roots ------------------------------------------------------------------------------------


def test_a_required_owner_source_is_read_only_with_an_owner_root(run: Run) -> None:
    rewrite(run, "manifest", "m", lambda v: source_of(v, OWNER_RECORD).update(required=True))
    assert code_of(lambda: index(run, "m", owner=False)) == "owner_root_invalid"


def test_optional_owner_sources_without_an_owner_root_are_exact_exclusions(run: Run) -> None:
    index(run, "manifest", owner=False)
    assert excluded_sources(run) == {
        (OWNER_DRAFT, "owner_root_invalid"),
        (OWNER_RECORD, "owner_root_invalid"),
    }
    assert all(n["root_scope"] == "repository" for n in run.value("g")["nodes"])


def test_an_unused_owner_root_is_rejected(run: Run) -> None:
    lc.run_manifest(run.repo, run.out("m-repo"), None, [], None, [])
    assert code_of(lambda: index(run, "m-repo")) == "owner_root_invalid"
    assert (
        code_of(lambda: lc.run_manifest(run.repo, run.out("m2"), None, [], run.owner, []))
        == "owner_root_invalid"
    )
    assert not run.out("g").exists() and not run.out("m2").exists()


def test_selected_owner_nodes_need_the_owner_root_at_snapshot(run: Run) -> None:
    assert code_of(lambda: run.snapshot(owner=False)) == "owner_root_invalid"


def test_absolute_roots_are_never_serialized(run: Run) -> None:
    run.snapshot()
    for artifact in (run.repo / ".prooftext" / "context").iterdir():
        data = artifact.read_bytes()
        for root in (run.repo, run.owner):
            assert str(root).encode() not in data and str(root.resolve()).encode() not in data


def test_an_absolute_locator_path_is_a_schema_violation(run: Run) -> None:
    path = rewrite(
        run, "manifest", "m", lambda v: source_of(v, LEDGER)["locator"].update(path=str(run.repo / LEDGER))
    )
    assert code_of(lambda: lc.run_validate(path)) == "schema_violation"


def test_publication_refuses_bytes_that_hold_a_root(run: Run) -> None:
    data = canonical.encode({"note": f"{run.repo}/{LEDGER}"})
    error = error_of(lambda: check_no_absolute_roots(data, Roots(run.repo).absolute_forms()))
    assert (error.code, error.details["reason"]) == ("artifact_invalid", "absolute_root")


# --- authority -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "authority"),
    [
        (LEDGER, "accepted-public-contract"),  # outside requirements, decisions and designs
        (LEDGER, "verified-evidence"),  # outside repository evidence
        (LEDGER, "owner-approved"),  # not an owner-root record
        (LEDGER, "canonical-specification"),  # not the unique specification
        (OWNER_DRAFT, "verified-evidence"),  # owner roots hold owner records or untrusted text
    ],
)
def test_authority_structural_rules(run: Run, path: str, authority: str) -> None:
    manifest = rewrite(run, "manifest", "m", lambda v: source_of(v, path).update(authority=authority))
    assert code_of(lambda: lc.run_validate(manifest)) == "authority_invalid"


def test_a_higher_label_on_generated_content_is_rejected(run: Run) -> None:
    def observed(value: dict[str, Any]) -> None:
        source = source_of(value, TESTS)
        source["provenance"].append(
            {"type": "tool-observation", "locator_path": TESTS, "sha256": source["locator"]["sha256"]}
        )

    assert code_of(lambda: lc.run_validate(rewrite(run, "manifest", "m", observed))) == "authority_invalid"

    def proposed(value: dict[str, Any]) -> None:
        source = source_of(value, DRAFT)
        source["provenance"][0]["type"] = "generated"
        source["authority"] = "untrusted-proposal"

    assert lc.run_validate(rewrite(run, "manifest", "m-ok", proposed))["valid"]


def test_authoritative_sources_must_reference_their_own_locator(run: Run) -> None:
    spec_sha = source_of(run.value("manifest"), SPECIFICATION)["locator"]["sha256"]
    manifest = rewrite(
        run,
        "manifest",
        "m",
        lambda v: source_of(v, DECISION).update(
            provenance=[{"type": "record", "locator_path": SPECIFICATION, "sha256": spec_sha}]
        ),
    )
    assert code_of(lambda: lc.run_validate(manifest)) == "authority_invalid"


# --- provenance ----------------------------------------------------------------------------------------


def _foreign_reference(path: str, digest: str) -> Any:
    ref = {"type": "record", "root_scope": "owner", "locator_path": OWNER_RECORD, "sha256": digest}
    return lambda v: source_of(v, path)["provenance"].append(ref)


def test_provenance_references_are_reread_and_digest_checked(run: Run) -> None:
    rewrite(run, "manifest", "m-required", _foreign_reference(SPECIFICATION, "0" * 64))
    assert code_of(lambda: index(run, "m-required")) == "provenance_invalid"
    rewrite(run, "manifest", "m-optional", _foreign_reference(LEDGER, "0" * 64))
    index(run, "m-optional")
    assert (LEDGER, "provenance_invalid") in excluded_sources(run)


def test_a_valid_foreign_provenance_reference_is_accepted(run: Run) -> None:
    digest = canonical.sha256_hex((run.owner / OWNER_RECORD).read_bytes())
    rewrite(run, "manifest", "m", _foreign_reference(LEDGER, digest))
    index(run, "m")
    assert excluded_sources(run) == set()


# --- freshness -----------------------------------------------------------------------------------------


def test_immutable_is_limited_to_authoritative_self_linked_json(run: Run) -> None:
    manifest = rewrite(run, "manifest", "m", lambda v: source_of(v, LEDGER).update(freshness="immutable"))
    assert code_of(lambda: lc.run_validate(manifest)) == "freshness_violation"


@pytest.mark.parametrize(("text", "outcome"), [('{"max":1024}', "adopted"), ('{"max":1.5}', "json_float")])
def test_immutable_json_is_reread_strictly(tmp_path: Path, text: str, outcome: str) -> None:
    run = Run.fresh(tmp_path, "immutable")
    (run.repo / "docs/decisions/limits.json").write_text(text, encoding="utf-8")
    run.manifest()
    rewrite(
        run,
        "manifest",
        "m",
        lambda v: source_of(v, "docs/decisions/limits.json").update(freshness="immutable"),
    )
    index(run, "m")
    reasons = {path: reason for path, reason in excluded_sources(run)}
    assert reasons.get("docs/decisions/limits.json", "adopted") == (
        "adopted" if outcome == "adopted" else "freshness_violation"
    )
    rewrite(
        run, "m", "m-required", lambda v: source_of(v, "docs/decisions/limits.json").update(required=True)
    )
    if outcome != "adopted":
        assert code_of(lambda: index(run, "m-required", "g2")) == "freshness_violation"


def test_expires_at_requires_an_explicit_interval(run: Run) -> None:
    manifest = rewrite(
        run, "manifest", "m", lambda v: source_of(v, OWNER_DRAFT).update(freshness="expires-at")
    )
    assert code_of(lambda: lc.run_validate(manifest)) == "freshness_violation"
    bad = {**WINDOW, "observed_at": "2025-06-01T00:00:00Z"}
    manifest = rewrite(
        run, "manifest", "m2", lambda v: source_of(v, OWNER_DRAFT).update(freshness="expires-at", expires=bad)
    )
    assert code_of(lambda: lc.run_validate(manifest)) == "freshness_violation"


def _expiring_graph(run: Run, required: bool) -> None:
    rewrite(
        run,
        "manifest",
        "m",
        lambda v: source_of(v, OWNER_DRAFT).update(freshness="expires-at", expires=WINDOW, required=required),
    )
    index(run, "m", "graph-expiring")


def _select_as_of(run: Run, as_of: str | None) -> dict[str, Any]:
    tag = (as_of or "none").replace(":", "-")
    lc.run_query(run.out("graph-expiring"), byte_query(QUERY_TEXT, as_of=as_of), run.out(f"q-{tag}"))
    lc.run_select(run.out("graph-expiring"), run.out(f"q-{tag}"), run.out(f"s-{tag}"))
    return dict(run.value(f"s-{tag}"))


def test_a_required_expires_at_source_must_be_fresh_at_as_of(run: Run) -> None:
    _expiring_graph(run, required=True)
    assert code_of(lambda: _select_as_of(run, OUTSIDE_WINDOW)) == "freshness_violation"
    assert code_of(lambda: _select_as_of(run, None)) == "freshness_violation"
    selection = _select_as_of(run, INSIDE_WINDOW)
    assert selection["as_of"] == selection["query"]["as_of"] == INSIDE_WINDOW


def test_an_optional_stale_source_is_excluded_with_its_component(run: Run) -> None:
    _expiring_graph(run, required=False)
    selection = _select_as_of(run, OUTSIDE_WINDOW)
    graph = run.value("graph-expiring")
    owner = {
        n["node_id"]
        for n in graph["nodes"]
        if n["path"] in (OWNER_DRAFT, OWNER_RECORD) and n["kind"] == "file"
    }
    reasons = {x["node_id"]: x["reason"] for x in selection["excluded"]}
    assert {reasons[n] for n in owner} == {"stale"}


# --- sensitivity ---------------------------------------------------------------------------------------


def test_derived_sensitivity_is_the_highest_included_level(run: Run) -> None:
    assert run.value("graph")["sensitivity"] == "owner-private"
    selection = run.value("selection")
    assert selection["sensitivity"] == "owner-private"
    lc.run_query(run.out("graph"), byte_query(QUERY_TEXT, clearance="repository-private"), run.out("q"))
    lc.run_select(run.out("graph"), run.out("q"), run.out("s"))
    levels = {n["rank"]["sensitivity"] for n in run.value("s")["nodes"]}
    assert (
        levels == {"public", "repository-private"} and run.value("s")["sensitivity"] == "repository-private"
    )


def test_a_derived_artifact_cannot_downgrade_sensitivity(run: Run) -> None:
    run.snapshot()
    snapshot = rewrite(run, "snapshot", "snap-public", lambda v: v.update(sensitivity="public"))
    assert code_of(lambda: lc.run_validate(snapshot)) == "sensitivity_violation"
    selection = rewrite(run, "selection", "sel-public", lambda v: v.update(sensitivity="public"))
    assert code_of(lambda: lc.run_validate(selection)) == "sensitivity_violation"


def test_a_missing_sensitivity_is_owner_private_before_identity(run: Run) -> None:
    rewrite(run, "manifest", "m", lambda v: source_of(v, LEDGER).pop("sensitivity"))
    index(run, "m")
    source = source_of(run.value("g"), LEDGER)
    assert source["sensitivity"] == "owner-private"
    assert source["source_id"] == canonical.content_id({k: v for k, v in source.items() if k != "source_id"})


def test_secret_source_text_is_rejected(run: Run) -> None:
    rewrite(run, "manifest", "m", lambda v: source_of(v, LEDGER).update(sensitivity="secret-or-prohibited"))
    index(run, "m")
    assert (LEDGER, "sensitivity_violation") in excluded_sources(run)
    assert b"ValueError" not in run.out("g").read_bytes()
    rewrite(run, "m", "m-required", lambda v: source_of(v, LEDGER).update(required=True))
    assert code_of(lambda: index(run, "m-required", "g2")) == "sensitivity_violation"


def test_owner_content_cannot_be_labelled_public(run: Run) -> None:
    rewrite(
        run, "manifest", "m", lambda v: source_of(v, OWNER_DRAFT).update(sensitivity="public", required=True)
    )
    assert code_of(lambda: index(run, "m")) == "sensitivity_violation"


def test_clearance_blocks_required_and_excludes_optional_nodes(run: Run) -> None:
    ledger = node_of(run, LEDGER)
    lc.run_query(
        run.out("graph"), byte_query(QUERY_TEXT, clearance="public", required=(ledger,)), run.out("q1")
    )
    assert code_of(lambda: run.select("s1", "q1")) == "sensitivity_violation"
    lc.run_query(run.out("graph"), byte_query(QUERY_TEXT, clearance="public"), run.out("q2"))
    run.select("s2", "q2")
    selection = run.value("s2")
    assert {n["rank"]["sensitivity"] for n in selection["nodes"]} == {"public"}
    # Every exclusion is for clearance: the node's own, or its contradiction component's (a public section
    # of a file whose component was refused for clearance is left out with it).
    excluded = selection["excluded"]
    assert {x["reason"] for x in excluded} == {"over_clearance", "contradiction"}
    source = {n["node_id"]: n["source_id"] for n in run.value("graph")["nodes"]}
    refused = {
        source[x["node_id"]] for x in excluded if x["reason"] == "over_clearance" and x["component_id"]
    }
    assert all(source[x["node_id"]] in refused for x in excluded if x["reason"] == "contradiction")


# --- labels come from the root's configuration, never from a replayed artifact ---------------------------


def test_index_refuses_labels_the_roots_configuration_does_not_give(run: Run) -> None:
    rewrite(run, "manifest", "m-public", lambda v: source_of(v, LEDGER).update(sensitivity="public"))
    rewrite(run, "manifest", "m-raised", lambda v: source_of(v, DRAFT).update(authority="repository-record"))
    assert lc.run_validate(run.out("m-public"))["valid"] and lc.run_validate(run.out("m-raised"))["valid"]
    index(run, "m-public", "g-public")
    assert (LEDGER, "sensitivity_violation") in excluded_sources(run, "g-public")
    index(run, "m-raised", "g-raised")
    assert (DRAFT, "authority_invalid") in excluded_sources(run, "g-raised")
    rewrite(run, "m-public", "m-required", lambda v: source_of(v, LEDGER).update(required=True))
    assert code_of(lambda: index(run, "m-required", "g-required")) == "sensitivity_violation"
    assert not run.out("g-required").exists()
    # Less authority and more sensitivity only restrict what the source may do: they are kept.
    lowered = {"authority": "untrusted-proposal", "sensitivity": "owner-private"}
    rewrite(run, "manifest", "m-lowered", lambda v: source_of(v, LEDGER).update(lowered))
    index(run, "m-lowered", "g-lowered")
    ledger = source_of(run.value("g-lowered"), LEDGER)
    assert (ledger["authority"], ledger["sensitivity"]) == ("untrusted-proposal", "owner-private")


def test_snapshot_refuses_the_labels_of_a_rehashed_graph(run: Run) -> None:
    forged = relabelled_graph(run.value("graph"), LEDGER, sensitivity="public")
    run.write_value("g-public", forged)
    assert lc.run_validate(run.out("g-public"))["valid"]
    lc.run_query(run.out("g-public"), byte_query(QUERY_TEXT, clearance="public"), run.out("q-public"))
    lc.run_select(run.out("g-public"), run.out("q-public"), run.out("s-public"))
    ledger = {n["node_id"] for n in run.value("g-public")["nodes"] if n["path"] == LEDGER}
    assert ledger & {n["node_id"] for n in run.value("s-public")["nodes"]}
    lc.run_snapshot(run.out("g-public"), run.out("s-public"), run.repo, None, run.out("n-public"))
    snapshot = run.value("n-public")
    assert LEDGER not in {e["path"] for e in snapshot["extracts"]}
    reasons = {x["reason"] for x in snapshot["excluded"] if x["node_id"] in ledger}
    assert reasons == {"sensitivity_violation"}


def test_compaction_refuses_the_labels_of_a_rehashed_snapshot(run: Run) -> None:
    run.snapshot()
    raised = rewrite(
        run, "snapshot", "snap-raised", lambda v: relabelled_snapshot(v, DRAFT, authority="repository-record")
    )
    assert lc.run_validate(raised)["valid"]  # self-consistent: only the root's configuration can tell
    compact = lambda: lc.run_compact(raised, run.repo, run.owner, run.out("c"), None)  # noqa: E731
    assert code_of(compact) == "authority_invalid"
    assert not run.out("c").exists()


def test_a_snapshot_source_obeys_the_structural_authority_rules(run: Run) -> None:
    run.snapshot()
    raised = rewrite(
        run,
        "snapshot",
        "snap-contract",
        lambda v: relabelled_snapshot(v, LEDGER, authority="accepted-public-contract"),
    )
    assert code_of(lambda: lc.run_validate(raised)) == "authority_invalid"


# --- candidate identity and outputs --------------------------------------------------------------------


def _change_repository(run: Run) -> None:
    (run.repo / LEDGER).write_text("def charge(budget, cost):\n    return budget\n", encoding="utf-8")


def test_index_reobserves_the_candidate(run: Run) -> None:
    _change_repository(run)
    assert code_of(lambda: index(run, "manifest")) == "candidate_mismatch"


def test_snapshot_reobserves_the_candidate(run: Run) -> None:
    _change_repository(run)
    assert code_of(run.snapshot) == "candidate_mismatch"


def test_the_candidate_is_verified_again_just_before_publication(
    run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = lc.publish_exclusive

    def racing(path: Path, data: bytes, before: Any = None) -> None:
        _change_repository(run)
        original(path, data, before)

    monkeypatch.setattr(lc, "publish_exclusive", racing)
    assert code_of(lambda: run.snapshot("snap-race")) == "candidate_mismatch"
    assert not run.out("snap-race").exists()
    assert not list(run.out("snap-race").parent.glob(".snap-race*"))


def test_an_output_inside_the_candidate_is_refused_up_front(run: Run) -> None:
    error = error_of(lambda: lc.run_index(run.out("manifest"), run.repo, run.owner, run.repo / "graph.json"))
    assert (error.code, error.details["reason"]) == ("candidate_mismatch", "output_inside_candidate")
    assert not (run.repo / "graph.json").exists()


def test_an_ignored_output_path_leaves_the_candidate_alone(run: Run) -> None:
    lc.run_index(run.out("manifest"), run.repo, run.owner, run.repo / "out" / "graph.json")
    assert (run.repo / "out" / "graph.json").read_bytes() == run.out("graph").read_bytes()
    run.snapshot()


def test_an_output_written_into_the_candidate_fails_later_operations_closed(run: Run) -> None:
    lc.run_select(run.out("graph"), run.out("query"), run.repo / "selection.json")
    assert code_of(run.snapshot) == "candidate_mismatch"


# --- contradictions, traversal, required versus optional -----------------------------------------------


def test_a_selected_contradiction_component_is_one_atomic_decision(run: Run) -> None:
    selection = run.value("selection")
    component = next(c for c in selection["contradictions"] if node_of(run, DECISION) in c["node_ids"])
    assert set(component["node_ids"]) == {node_of(run, DECISION), node_of(run, DRAFT)}
    assert set(component["edge_ids"]) <= {e["edge_id"] for e in selection["edges"]}
    members = [n for n in selection["nodes"] if n["component_id"] == component["component_id"]]
    assert sorted(n["reason"] for n in members) == ["contradiction", "lexical"]


def test_an_optional_component_is_excluded_atomically_when_a_member_fails(run: Run) -> None:
    (run.owner / OWNER_DRAFT).write_text("# Draft approval\n\nChanged.\n", encoding="utf-8")
    run.snapshot()
    snapshot = run.value("snapshot")
    members = {node_of(run, OWNER_RECORD), node_of(run, OWNER_DRAFT)}
    dropped = {x["node_id"]: x for x in snapshot["excluded"] if x["stage"] == "observation"}
    assert members <= set(dropped) and not members & {e["node_id"] for e in snapshot["extracts"]}
    assert dropped[node_of(run, OWNER_DRAFT)]["reason"] == "source_drift"
    assert dropped[node_of(run, OWNER_RECORD)]["reason"] == "contradiction_component"
    assert len({dropped[m]["component_id"] for m in members}) == 1


def test_a_required_component_blocks_when_a_member_fails(run: Run) -> None:
    required = (node_of(run, OWNER_RECORD),)
    lc.run_query(run.out("graph"), byte_query(QUERY_TEXT, required=required), run.out("q"))
    run.select("s", "q")
    assert {n["node_id"] for n in run.value("s")["nodes"] if n["required"]} >= {node_of(run, OWNER_DRAFT)}
    (run.owner / OWNER_DRAFT).write_text("# Draft approval\n\nChanged.\n", encoding="utf-8")
    assert code_of(lambda: run.snapshot("snap", "s")) == "source_drift"


@pytest.mark.parametrize(
    ("limits", "reason"),
    [
        ({"max_depth": 1}, "depth_bound"),
        ({"max_depth": 8, "max_nodes": 2}, "node_bound"),
        ({"max_depth": 8, "max_edges": 1}, "edge_bound"),
    ],
)
def test_a_frontier_beyond_its_bounds_is_a_blocker(run: Run, limits: dict[str, int], reason: str) -> None:
    run.query("q", **limits)
    error = error_of(lambda: run.select("s", "q"))
    assert (error.code, error.details["reason"]) == ("selection_blocked", reason)
    assert not run.out("s").exists()


def test_required_context_over_budget_blocks(run: Run) -> None:
    lc.run_query(run.out("graph"), byte_query(QUERY_TEXT, max_bytes=1024, required=(LEDGER,)), run.out("q"))
    error = error_of(lambda: run.select("s", "q"))
    assert (error.code, error.details["reason"]) == ("selection_blocked", "over_budget")


def test_a_failing_required_source_blocks_the_graph(run: Run) -> None:
    rewrite(run, "manifest", "m", lambda v: source_of(v, OWNER_RECORD).update(required=True))
    (run.owner / OWNER_RECORD).write_text("# Release approval\n\nRevoked.\n", encoding="utf-8")
    assert code_of(lambda: index(run, "m")) == "source_drift"


def test_a_failing_optional_source_is_an_exact_exclusion(run: Run) -> None:
    (run.owner / OWNER_DRAFT).write_text("# Draft approval\n\nChanged.\n", encoding="utf-8")
    index(run, "manifest")
    assert excluded_sources(run) == {(OWNER_DRAFT, "source_drift")}
    assert OWNER_DRAFT not in {n["path"] for n in run.value("g")["nodes"]}


def test_text_carrying_a_credential_is_rejected_whatever_its_label(run: Run) -> None:
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"  # built at test time, never a literal secret
    (run.owner / OWNER_DRAFT).write_text(f"# Draft approval\n\ntoken = {token}\n", encoding="utf-8")
    lc.run_manifest(run.repo, run.out("m"), None, [], run.owner, [OWNER_DRAFT])
    index(run, "m")
    (reason,) = [x for x in run.value("g")["excluded_sources"] if x["path"] == OWNER_DRAFT]
    assert reason["reason"] == "sensitivity_violation" and token not in reason["detail"]
    assert token.encode() not in run.out("g").read_bytes()


def test_a_source_whose_text_holds_a_credential_is_left_out_of_the_graph_under_the_default_redact(
    tmp_path: Path,
) -> None:
    run = Run.fresh(tmp_path, "credential")
    token = "ghp_" + "".join("abcdefghijklmnopqrstuvwxyz0123456789"[(7 * i) % 36] for i in range(36))
    draft = run.repo / DRAFT
    draft.write_text(draft.read_text(encoding="utf-8") + f"\nGITHUB_TOKEN={token}\n", encoding="utf-8")
    run.standard()
    graph = run.value("graph")
    [record] = [x for x in graph["excluded_sources"] if x["path"] == DRAFT]
    assert record["reason"] == "sensitivity_violation" and record["detail"].endswith("github-token at line 5")
    assert DRAFT not in {s["locator"]["path"] for s in graph["sources"]}
    assert token.encode() not in run.out("graph").read_bytes()
