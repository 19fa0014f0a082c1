"""Lineage of stored artifacts: a derived artifact whose parents are stored must be what they derive.

A hand-edited artifact whose ids were recomputed is well formed and self-consistent, so it validates alone.
Where its parents are stored beside it, the pure steps of the lifecycle are replayed: a Selection must be
what its Graph selects for its Query, a Snapshot its Selection's extracts less its recorded observation
exclusions, a Compaction its Snapshot compacted (adopting the summary it carries, whose proposal id the
Compaction's own validation recomputes), a Quality Report what its Graph and Snapshot give. (Whether an
observation failure really happened, or a compaction's sources, needs the roots: ``snapshot`` and
``compact`` re-observe them.)
"""

from __future__ import annotations

from collections.abc import Mapping

from prooftext.artifacts.compaction import assemble_compaction
from prooftext.artifacts.fields import Envelope
from prooftext.artifacts.models import Compaction, Graph, QualityReport, Selection, Snapshot
from prooftext.artifacts.quality import build_quality_report
from prooftext.artifacts.selector import select
from prooftext.artifacts.snapshot import check_against_selection
from prooftext.errors import ProoftextError


def _selection(s: Selection, stored: Mapping[str, Envelope]) -> str | None:
    graph = stored.get(s.graph_id)
    if not isinstance(graph, Graph):
        return None
    if select(graph, s.query)["artifact_id"] != s.artifact_id:
        return "the selection is not what its stored graph selects for its query"
    return None


def _snapshot(s: Snapshot, stored: Mapping[str, Envelope]) -> str | None:
    graph, selection = stored.get(s.graph_id), stored.get(s.selection_id)
    if not (isinstance(graph, Graph) and isinstance(selection, Selection)):
        return None
    check_against_selection(graph, selection, s)
    return None


def _compaction(c: Compaction, stored: Mapping[str, Envelope]) -> str | None:
    snapshot = stored.get(c.snapshot_id)
    if not isinstance(snapshot, Snapshot):
        return None
    summary = c.host_summary.model_dump(mode="json") if c.host_summary is not None else None
    if assemble_compaction(snapshot, summary)["artifact_id"] != c.artifact_id:
        return "the compaction is not its stored snapshot compacted (with its adopted summary)"
    return None


def _quality(r: QualityReport, stored: Mapping[str, Envelope]) -> str | None:
    graph, snapshot = stored.get(r.graph_id), stored.get(r.snapshot_id)
    if not (isinstance(graph, Graph) and isinstance(snapshot, Snapshot)):
        return None
    if build_quality_report(graph, snapshot)["artifact_id"] != r.artifact_id:
        return "the quality report is not what its stored graph and snapshot give"
    return None


def lineage_problem(model: Envelope, stored: Mapping[str, Envelope]) -> str | None:
    """Why ``model`` is not what its stored parents (``stored``: artifact id → model) derive, or None (also
    when a parent is not stored: the reference check reports that)."""
    try:
        if isinstance(model, Selection):
            return _selection(model, stored)
        if isinstance(model, Snapshot):
            return _snapshot(model, stored)
        if isinstance(model, Compaction):
            return _compaction(model, stored)
        if isinstance(model, QualityReport):
            return _quality(model, stored)
    except ProoftextError as exc:
        return f"{exc.code}: {exc.message}"
    return None
