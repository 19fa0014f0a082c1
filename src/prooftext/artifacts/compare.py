"""``context compare``: a side-effect-free structural comparison of two Snapshots.

Extracts are matched by node id (content-addressed: a node id names its text and labels); an extract
that left and another that arrived at the same place (root scope, path, node kind and qualified name) is
reported as changed, places held by several extracts pairing in line order (the rest are added or
removed), and so is one whose node id stayed while its text digest did not (which only an altered
artifact can hold: ``validate --repository-root`` and ``fsck`` check such text against its source).
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


def _by_place(extracts: list[Extract]) -> dict[tuple[str, str, str, str], list[Extract]]:
    """Extracts grouped by place, each group in line order: two sections under the same heading path (or
    two definitions of one name) share a place."""
    groups: dict[tuple[str, str, str, str], list[Extract]] = {}
    for extract in sorted(extracts, key=lambda e: (_place(e), list(e.line_range), e.node_id)):
        groups.setdefault(_place(extract), []).append(extract)
    return groups


def _match(
    gone: list[Extract], came: list[Extract]
) -> tuple[list[tuple[Extract, Extract]], list[Extract], list[Extract]]:
    """Pairs of a left and an arrived extract at one place, in line order; then the unpaired ones (removed,
    added). Every extract lands in exactly one of the three."""
    pairs: list[tuple[Extract, Extract]] = []
    removed: list[Extract] = []
    added: list[Extract] = []
    left, arrived = _by_place(gone), _by_place(came)
    for place in sorted(set(left) | set(arrived)):
        olds, news = left.get(place, []), arrived.get(place, [])
        pairs += zip(olds, news, strict=False)
        removed += olds[len(news) :]
        added += news[len(olds) :]
    return pairs, removed, added


def _extract_delta(base: Snapshot, current: Snapshot) -> dict[str, Any]:
    before = {e.node_id: e for e in base.extracts}
    after = {e.node_id: e for e in current.extracts}
    kept = sorted(set(before) & set(after))
    altered = [n for n in kept if before[n].text_sha256 != after[n].text_sha256]
    moved, removed, added = _match(
        [before[n] for n in set(before) - set(after)], [after[n] for n in set(after) - set(before)]
    )
    altered_pairs = [(before[n], after[n]) for n in altered]
    changed = sorted(moved + altered_pairs, key=lambda pair: (_place(pair[0]), pair[0].node_id))
    return {
        "unchanged": len(kept) - len(altered),
        "added": [_brief(e) for e in added],
        "removed": [_brief(e) for e in removed],
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
