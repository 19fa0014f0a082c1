"""``context compare``: a side-effect-free structural comparison of two Snapshots.

Extracts are matched by node id (content-addressed: a node id names its text and labels); an extract
that left and another that arrived at the same place (root scope, path, node kind and qualified name) is
reported as changed, and so is one whose node id stayed while its text digest did not (which only an
altered artifact can hold: ``validate --repository-root`` and ``fsck`` check such text against its source).
Edges, exclusions and contradiction components are compared by id.
"""

from __future__ import annotations

from typing import Any

from prooftext.artifacts.models import Extract, Snapshot


def _place(extract: Extract) -> tuple[str, str, str, str]:
    return (extract.root_scope, extract.path, extract.kind, extract.qualname)


def _brief(extract: Extract) -> dict[str, Any]:
    return {
        "node_id": extract.node_id,
        "path": extract.path,
        "kind": extract.kind,
        "qualname": extract.qualname,
        "line_range": list(extract.line_range),
        "text_sha256": extract.text_sha256,
    }


def _set_delta(base: set[str], current: set[str]) -> dict[str, list[str]]:
    return {"added": sorted(current - base), "removed": sorted(base - current)}


def _pair(base: Extract, current: Extract) -> dict[str, Any]:
    return {"base": _brief(base), "current": _brief(current)}


def _extract_delta(base: Snapshot, current: Snapshot) -> dict[str, Any]:
    before = {e.node_id: e for e in base.extracts}
    after = {e.node_id: e for e in current.extracts}
    kept = sorted(set(before) & set(after))
    altered = [n for n in kept if before[n].text_sha256 != after[n].text_sha256]
    gone = {_place(before[n]): before[n] for n in sorted(set(before) - set(after))}
    came = {_place(after[n]): after[n] for n in sorted(set(after) - set(before))}
    moved = [(gone[p], came[p]) for p in sorted(set(gone) & set(came))]
    altered_pairs = [(before[n], after[n]) for n in altered]
    changed = sorted(moved + altered_pairs, key=lambda pair: (_place(pair[0]), pair[0].node_id))
    return {
        "unchanged": len(kept) - len(altered),
        "added": [_brief(came[p]) for p in sorted(set(came) - set(gone))],
        "removed": [_brief(gone[p]) for p in sorted(set(gone) - set(came))],
        "changed": [_pair(b, c) for b, c in changed],
    }


def compare_snapshots(base: Snapshot, current: Snapshot) -> dict[str, Any]:
    """The structural difference from ``base`` to ``current``; ``identical`` when the ids are equal."""
    return {
        "base_id": base.artifact_id,
        "current_id": current.artifact_id,
        "identical": base.artifact_id == current.artifact_id,
        "candidate_changed": base.candidate != current.candidate,
        "graph_changed": base.graph_id != current.graph_id,
        "query_changed": base.query.artifact_id != current.query.artifact_id,
        "sensitivity": {"base": base.sensitivity, "current": current.sensitivity},
        "bytes": {
            "base": base.budget.used_bytes,
            "current": current.budget.used_bytes,
            "delta": current.budget.used_bytes - base.budget.used_bytes,
        },
        "extracts": _extract_delta(base, current),
        "edges": _set_delta({e.edge_id for e in base.edges}, {e.edge_id for e in current.edges}),
        "excluded": _set_delta({x.node_id for x in base.excluded}, {x.node_id for x in current.excluded}),
        "contradictions": _set_delta(
            {c.component_id for c in base.contradictions}, {c.component_id for c in current.contradictions}
        ),
    }
