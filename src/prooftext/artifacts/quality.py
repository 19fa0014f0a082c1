"""``context quality``: the Quality Report of a Graph and a Snapshot — exactly the seed's fields, no score.

Measurements: required-reference recall, stale required count, provenance complete/missing counts,
sensitivity violations, selected and budget bytes, redundant bytes, selected/excluded nodes, unresolved
contradictions and traversal truncation. The selection is reproduced from the Graph and the Snapshot's
embedded Query (its id must be the Snapshot's ``selection_id``), and the Snapshot must be exactly that
selection's extracts less its recorded observation exclusions, so the report cannot describe a Snapshot of
another Graph, nor one edited after it was taken. There is deliberately no aggregate score.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import prooftext.artifacts.governance as gov
import prooftext.canonical as canonical
from prooftext.artifacts.fields import artifact_head
from prooftext.artifacts.ids import EDGE_CONTRADICTS
from prooftext.artifacts.limits import BPS_WHOLE
from prooftext.artifacts.models import Extract, Graph, GraphSource, Selection, Snapshot
from prooftext.artifacts.selector import select
from prooftext.artifacts.snapshot import check_against_selection
from prooftext.corpus.lines import NEWLINE
from prooftext.errors import ArtifactError, SelectionMismatchError

ARTIFACT_TYPE = "quality-report"


def _recall(required: set[str], included: set[str]) -> dict[str, int]:
    hit = len(required & included)
    bps = hit * BPS_WHOLE // len(required) if required else BPS_WHOLE
    return {"required": len(required), "included": hit, "bps": bps}


def _provenance_complete(source: GraphSource) -> bool:
    return bool(source.provenance) and (source.authority not in gov.AUTHORITATIVE or gov.self_linked(source))


def _line_bytes(extract: Extract) -> dict[int, int]:
    """Byte length of each line of an extract, by line number (the text holds its lines exactly)."""
    lines = extract.text.split(NEWLINE)
    if extract.text.endswith(NEWLINE):
        lines = [line + NEWLINE for line in lines[:-1]]
    else:
        lines = [line + NEWLINE for line in lines[:-1]] + lines[-1:]
    start = extract.line_range[0]
    return {start + i: len(line.encode("utf-8")) for i, line in enumerate(lines) if extract.text}


def redundant_bytes(extracts: list[Extract]) -> int:
    """Text bytes that repeat lines another included extract of the same source already holds."""
    total = 0
    by_source: dict[str, dict[int, int]] = defaultdict(dict)
    for extract in extracts:
        total += len(extract.text.encode("utf-8"))
        by_source[extract.source_id].update(_line_bytes(extract))
    union = sum(sum(lines.values()) for lines in by_source.values())
    return total - union


def _sensitivity_violations(snapshot: Snapshot) -> int:
    clearance = gov.sensitivity_rank(snapshot.query.clearance)
    over = sum(1 for e in snapshot.extracts if gov.sensitivity_rank(e.sensitivity) > clearance)
    secret = sum(1 for e in snapshot.extracts if e.sensitivity == gov.SECRET)
    highest = gov.highest_sensitivity(e.sensitivity for e in snapshot.extracts)
    downgrade = int(gov.sensitivity_rank(snapshot.sensitivity) < gov.sensitivity_rank(highest))
    return over + secret + downgrade


def build_quality_report(graph: Graph, snapshot: Snapshot) -> dict[str, Any]:
    """The Quality Report artifact (see the module docstring)."""
    if snapshot.graph_id != graph.artifact_id:
        raise ArtifactError("the snapshot was made from another graph", field="graph_id")
    selection = select(graph, snapshot.query)
    if selection["artifact_id"] != snapshot.selection_id:
        raise SelectionMismatchError("the graph and query do not reproduce the snapshot's selection")
    check_against_selection(graph, Selection.model_validate(selection), snapshot)
    required = {n["node_id"] for n in selection["nodes"] if n["required"]}
    included = {e.node_id for e in snapshot.extracts}
    sources = {s.source_id: s for s in snapshot.sources}
    stale = [
        e
        for e in snapshot.extracts
        if e.required
        and gov.stale_reason(e.freshness, sources[e.source_id].expires, snapshot.as_of) is not None
    ]
    complete = sum(1 for e in snapshot.extracts if _provenance_complete(sources[e.source_id]))
    body = {
        **artifact_head(
            ARTIFACT_TYPE, snapshot.candidate, graph_id=graph.artifact_id, snapshot_id=snapshot.artifact_id
        ),
        "sensitivity": snapshot.sensitivity,
        "required_reference_recall": _recall(required, included),
        "stale_required_count": len(stale),
        "provenance": {"complete": complete, "missing": len(snapshot.extracts) - complete},
        "sensitivity_violations": _sensitivity_violations(snapshot),
        "selected_bytes": snapshot.budget.used_bytes,
        "budget_bytes": snapshot.budget.max_bytes,
        "redundant_bytes": redundant_bytes(list(snapshot.extracts)),
        "selected_nodes": len(snapshot.extracts),
        "excluded_nodes": len(snapshot.excluded),
        "unresolved_contradictions": sum(1 for e in snapshot.edges if e.type == EDGE_CONTRADICTS),
        "traversal_truncation": bool(selection["traversal"]["truncated"]),
    }
    return canonical.with_artifact_id(body)
