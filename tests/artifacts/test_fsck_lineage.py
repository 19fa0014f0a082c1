"""``fsck`` replays the pure lifecycle steps between stored artifacts: a selection, snapshot or quality report
that was edited and re-identified is not what its stored parents derive, and is a damaged artifact."""

from __future__ import annotations

from typing import Any

from gates.context import Run
from prooftext.artifacts import lifecycle as lc
from prooftext.artifacts.fsck import BIT_DIGEST, fsck

from .helpers import rewrite


def _lineage(run: Run) -> list[dict[str, Any]]:
    report = fsck(run.repo)
    assert report.status == BIT_DIGEST
    return [p for p in report.problems if p["kind"] == "lineage"]


def _store_edit(run: Run, name: str, edit: Any) -> None:
    """Replace the stored ``name`` by a hand-edited, re-identified copy (its children are removed)."""
    edited = rewrite(run, name, f"{name}-edited", edit)
    run.out(name).unlink()
    edited.rename(run.out(name))


def test_a_whole_lifecycle_has_a_sound_lineage(run: Run) -> None:
    run.snapshot()
    lc.run_quality(run.out("graph"), run.out("snapshot"), run.out("quality"))
    report = fsck(run.repo)
    assert report.status == 0 and report.artifacts_checked == 6


def test_a_reordered_selection_is_not_what_its_graph_selects(run: Run) -> None:
    _store_edit(run, "selection", lambda v: v["nodes"].insert(1, v["nodes"].pop()))
    (problem,) = _lineage(run)
    assert problem["path"].endswith("selection.json") and "selects" in problem["detail"]


def test_a_snapshot_reordered_after_it_was_written_is_not_its_selection(run: Run) -> None:
    run.snapshot()
    _store_edit(run, "snapshot", lambda v: v["extracts"].insert(1, v["extracts"].pop()))
    (problem,) = _lineage(run)
    assert problem["path"].endswith("snapshot.json") and "selection_mismatch" in problem["detail"]


def test_an_edited_quality_report_is_not_what_its_graph_and_snapshot_give(run: Run) -> None:
    run.snapshot()
    lc.run_quality(run.out("graph"), run.out("snapshot"), run.out("quality"))
    _store_edit(run, "quality", lambda v: v.update(unresolved_contradictions=0))
    (problem,) = _lineage(run)
    assert problem["path"].endswith("quality.json") and "quality report" in problem["detail"]


def _compacted(run: Run) -> None:
    run.snapshot()
    lc.run_compact(run.out("snapshot"), run.repo, run.owner, run.out("compaction"), None)


def test_a_compaction_of_the_stored_snapshot_has_a_sound_lineage(run: Run) -> None:
    _compacted(run)
    assert fsck(run.repo).status == 0


def test_a_compaction_with_a_dropped_digest_is_not_its_snapshot_compacted(run: Run) -> None:
    _compacted(run)

    def edit(value: dict[str, Any]) -> None:
        gone = value["digests"].pop()
        value["bytes"]["digest_cost_bytes"] -= gone["cost_bytes"]
        value["sources"] = [
            s
            for s in value["sources"]
            if any(s["source_id"] == x["source_id"] for x in value["retained"] + value["digests"])
        ]

    _store_edit(run, "compaction", edit)
    (problem,) = _lineage(run)
    assert problem["path"].endswith("compaction.json") and "compacted" in problem["detail"]
