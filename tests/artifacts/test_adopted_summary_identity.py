"""An adopted host summary keeps the id of the proposal it came from, so its claims cannot be edited."""

from __future__ import annotations

import json

from gates import fixture
from gates.context import Run, node_of
from prooftext.artifacts import lifecycle as lc

from .helpers import code_of, rewrite


def _compaction_with_summary(run: Run) -> None:
    run.snapshot()
    claims = [{"text": "Over-budget requests are rejected.", "links": [node_of(run, fixture.DECISION)]}]
    path = run.repo / ".prooftext" / "claims.json"
    path.write_text(json.dumps(claims), encoding="utf-8")
    lc.run_propose(run.out("snapshot"), path, run.out("proposal"))
    lc.run_compact(run.out("snapshot"), run.repo, run.owner, run.out("compaction"), run.out("proposal"))


def test_an_adopted_summary_recomputes_to_its_proposal_id(run: Run) -> None:
    _compaction_with_summary(run)
    assert run.value("compaction")["host_summary"]["proposal_id"] == run.value("proposal")["artifact_id"]
    assert lc.run_validate(run.out("compaction"))["valid"]


def test_a_compaction_whose_adopted_claims_were_edited_is_invalid(run: Run) -> None:
    _compaction_with_summary(run)

    def edit(value: dict[str, object]) -> None:
        summary = value["host_summary"]
        assert isinstance(summary, dict)
        summary["claims"][0]["text"] = "Over-budget requests are accepted."

    edited = rewrite(run, "compaction", "c-edited", edit)
    assert code_of(lambda: lc.run_validate(edited)) == "artifact_id_mismatch"


def test_a_compaction_whose_adopted_summary_was_relabelled_is_invalid(run: Run) -> None:
    _compaction_with_summary(run)

    def edit(value: dict[str, object]) -> None:
        summary = value["host_summary"]
        assert isinstance(summary, dict)
        summary["claims"][0]["decision"] = "security"

    edited = rewrite(run, "compaction", "c-decided", edit)
    assert code_of(lambda: lc.run_validate(edited)) == "artifact_id_mismatch"
