"""``context index``: the Graph of a Manifest, re-observed through explicit roots.

Every source is adopted only after the candidate re-observation matches the Manifest exactly, only when its
authority and sensitivity are what the repository root's configuration allows (never more authority, never
less sensitivity: a rehashed Manifest cannot relabel a source), and only as a regular, unlinked, bounded strict UTF-8 file whose digest, byte count, line range, freshness and provenance
check out; one source is at most 256 KiB and all sources together at most 8 MiB. An optional source that
fails is recorded in ``excluded_sources`` with the failing rule's stable code; the same failure on a
required source blocks the Graph. Nodes come from :func:`prooftext.graph.extract.extract`, edges from
:func:`prooftext.graph.resolve.build_edges` (per root scope); node text over 65,536 characters is an exact
``excluded_nodes`` entry, and blocks when it is a required file node.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import prooftext.artifacts.governance as gov
import prooftext.canonical as canonical
from prooftext.artifacts.fields import artifact_head
from prooftext.artifacts.ids import edge_value, with_id
from prooftext.artifacts.limits import (
    MAX_LABEL_CHARS,
    MAX_NAME_CHARS,
    MAX_SOURCE_BYTES,
    MAX_TEXT_CHARS,
    MAX_TOTAL_SOURCE_BYTES,
    shortened_detail,
)
from prooftext.artifacts.models import GraphSource, Manifest, ManifestSource
from prooftext.artifacts.observe import LabelRules, Roots, observe_source, require_candidate
from prooftext.corpus.lines import count_text_lines, line_slice
from prooftext.errors import GovernanceError, LimitError, ProoftextError, SourceDriftError, SourceError
from prooftext.graph.extract import extract
from prooftext.graph.model import NODE_FILE, Edge, FileGraph, Node
from prooftext.graph.resolve import COMPOSER_MANIFEST, build_edges

ARTIFACT_TYPE = "graph"
REASON_TEXT_CAP = "text_cap"
REASON_NAME_CAP = "name_cap"
REASON_OUTSIDE_RANGE = "outside_range"
ADOPTION_ERRORS = (SourceError, GovernanceError, LimitError)
"""Failures that exclude an optional source and block a required one."""


@dataclass
class _Adopted:
    source: dict[str, Any]
    text: str
    graph: FileGraph | None = None


@dataclass
class _Build:
    nodes: dict[str, dict[str, Any]] = field(default_factory=dict)
    id_map: dict[str, str] = field(default_factory=dict)
    excluded_nodes: list[dict[str, Any]] = field(default_factory=list)


def spec_source(sources: Iterable[ManifestSource | GraphSource]) -> ManifestSource | GraphSource:
    """The one canonical specification (the semantic checks guarantee exactly one)."""
    return next(s for s in sources if s.authority == gov.CANONICAL_SPECIFICATION)


def graph_source(source: ManifestSource) -> dict[str, Any]:
    """A Manifest source in Graph form: missing sensitivity → owner-private *before* its id is computed."""
    value = source.model_dump(mode="json")
    value["sensitivity"] = gov.canonical_sensitivity(source.sensitivity)
    value["required"] = source.required or source.authority == gov.CANONICAL_SPECIFICATION
    return with_id(value, "source_id")


def _adopt(source: ManifestSource, roots: Roots, rules: LabelRules, total: int) -> _Adopted:
    value = graph_source(source)
    loc = source.locator
    data, text = observe_source(roots, GraphSource.model_validate(value), rules)
    gov.check_text_secrets(loc.root_scope, loc.path, text)
    if len(data) != source.bytes:
        raise SourceDriftError(
            f"{loc.path}: {len(data)} bytes, the manifest says {source.bytes}", path=loc.path
        )
    if total + len(data) > MAX_TOTAL_SOURCE_BYTES:
        raise LimitError(
            f"{loc.path}: adopting it passes the {MAX_TOTAL_SOURCE_BYTES}-byte total", path=loc.path
        )
    return _Adopted(value, text)


def _exclusion(source: ManifestSource, exc: ProoftextError) -> dict[str, Any]:
    """The exact exclusion of an optional source, its path and detail redacted like the scan's."""
    loc = source.locator
    path, detail = gov.redacted_record(loc.path, exc.message)
    return {
        "root_scope": loc.root_scope,
        "path": path,
        "reason": exc.code,
        "detail": shortened_detail(detail),
    }


def adopt_sources(manifest: Manifest, roots: Roots) -> tuple[list[_Adopted], list[dict[str, Any]]]:
    """Adopted sources and exact exclusions; a failing required source raises its rule's error."""
    spec = spec_source(manifest.sources)
    rules = LabelRules.of(roots.repository, spec.locator.path, manifest.candidate.source_spec_sha256)
    adopted: list[_Adopted] = []
    excluded: list[dict[str, Any]] = []
    total = 0
    for source in manifest.sources:
        required = source.required or source.authority == gov.CANONICAL_SPECIFICATION
        try:
            item = _adopt(source, roots, rules, total)
        except ADOPTION_ERRORS as exc:
            if required:
                raise
            excluded.append(_exclusion(source, exc))
            continue
        total += item.source["bytes"]
        adopted.append(item)
    return adopted, excluded


def _node_range(node: Node, line_count: int) -> list[int]:
    if line_count == 0:
        return [1, 0]
    return [node.start_line, min(node.end_line, line_count)]


def _node_problem(node: Node, line_range: list[int], text: str, bounds: list[int]) -> str | None:
    if line_range[0] < bounds[0] or line_range[1] > bounds[1]:
        return REASON_OUTSIDE_RANGE
    if len(text) > MAX_TEXT_CHARS:
        return REASON_TEXT_CAP
    if (
        len(node.qualname) > MAX_NAME_CHARS
        or max(len(node.symbol_kind), len(node.language)) > MAX_LABEL_CHARS
    ):
        return REASON_NAME_CAP
    return None


def _node_value(node: Node, source: dict[str, Any], line_range: list[int], text: str) -> dict[str, Any]:
    loc = source["locator"]
    value = {
        "source_id": source["source_id"],
        "root_scope": loc["root_scope"],
        "path": loc["path"],
        "kind": node.kind,
        "name": node.name,
        "qualname": node.qualname,
        "symbol_kind": node.symbol_kind,
        "language": node.language,
        "line_range": line_range,
        "text": text,
        "text_sha256": canonical.sha256_hex(text.encode("utf-8")),
        "authority": source["authority"],
        "freshness": source["freshness"],
        "sensitivity": source["sensitivity"],
        "required": node.kind == NODE_FILE and source["required"],
    }
    return with_id(value, "node_id")


def _add_nodes(item: _Adopted, build: _Build) -> None:
    source = item.source
    graph = extract(source["locator"]["path"], item.text)
    item.graph = graph
    line_count = count_text_lines(item.text)
    for node in graph.nodes:
        line_range = _node_range(node, line_count)
        text = line_slice(item.text, *line_range)
        problem = _node_problem(node, line_range, text, source["locator"]["line_range"])
        if problem is not None:
            build.excluded_nodes.append(
                {
                    "source_id": source["source_id"],
                    "kind": node.kind,
                    "qualname": node.qualname[:MAX_NAME_CHARS],
                    "line_range": line_range,
                    "reason": problem,
                }
            )
            continue
        value = _node_value(node, source, line_range, text)
        build.nodes[value["node_id"]] = value
        build.id_map[node.id] = value["node_id"]


_WHY_NOT_ONE_NODE = {
    REASON_NAME_CAP: "its name is over the limit for a node's name",
    REASON_OUTSIDE_RANGE: "its lines fall outside the source's line range",
}


def _not_one_node(item: _Adopted, build: _Build) -> LimitError:
    """Why a required source has no file node: the reason its file node was excluded (for text over the
    cap, its size and the cap)."""
    source_id, path = item.source["source_id"], item.source["locator"]["path"]
    reason = next(
        (x["reason"] for x in build.excluded_nodes if x["source_id"] == source_id and x["kind"] == NODE_FILE),
        REASON_TEXT_CAP,
    )
    why = _WHY_NOT_ONE_NODE.get(
        reason,
        f"its text is {len(item.text)} characters, over the limit of {MAX_TEXT_CHARS} for a node's text",
    )
    return LimitError(
        f"required source {path} cannot be represented as one node: {why}",
        path=path,
        reason=reason,
        limit=MAX_TEXT_CHARS,
    )


def _check_required_nodes(adopted: list[_Adopted], build: _Build) -> None:
    present = {n["source_id"] for n in build.nodes.values() if n["required"]}
    for item in adopted:
        if item.source["required"] and item.source["source_id"] not in present:
            raise _not_one_node(item, build)


def _edges(adopted: list[_Adopted], id_map: dict[str, str]) -> list[dict[str, Any]]:
    found: list[Edge] = []
    for scope in (gov.SCOPE_OWNER, gov.SCOPE_REPOSITORY):
        scoped = [a for a in adopted if a.source["locator"]["root_scope"] == scope]
        graphs = [a.graph for a in scoped if a.graph is not None]
        manifests = {
            path: a.text
            for a in scoped
            if posixpath.basename(path := a.source["locator"]["path"]) == COMPOSER_MANIFEST
        }
        found += [edge for graph in graphs for edge in graph.edges]
        found += build_edges(graphs, manifests)
    out: dict[str, dict[str, Any]] = {}
    for edge in found:
        source, target = id_map.get(edge.source), id_map.get(edge.target)
        if source is not None and target is not None and source != target:
            value = edge_value(edge.type, source, target)
            out[value["edge_id"]] = value
    return [out[key] for key in sorted(out)]


def build_graph(manifest: Manifest, roots: Roots) -> dict[str, Any]:
    """The Graph artifact of ``manifest`` (see the module docstring); raises on any blocking failure."""
    spec = spec_source(manifest.sources)
    require_candidate(manifest.candidate, roots.repository, spec.locator.path)
    adopted, excluded = adopt_sources(manifest, roots)
    build = _Build()
    for item in adopted:
        _add_nodes(item, build)
    _check_required_nodes(adopted, build)
    roots.check_owner_used()
    body = {
        **artifact_head(ARTIFACT_TYPE, manifest.candidate, manifest_id=manifest.artifact_id),
        "sensitivity": gov.highest_sensitivity(a.source["sensitivity"] for a in adopted),
        "limits": {
            "max_source_bytes": MAX_SOURCE_BYTES,
            "max_total_source_bytes": MAX_TOTAL_SOURCE_BYTES,
            "max_text_chars": MAX_TEXT_CHARS,
        },
        "sources": [a.source for a in adopted],
        "nodes": [build.nodes[key] for key in sorted(build.nodes)],
        "edges": _edges(adopted, build.id_map),
        "excluded_sources": excluded,
        "excluded_nodes": sorted(
            build.excluded_nodes, key=lambda n: (n["source_id"], n["line_range"], n["kind"], n["qualname"])
        ),
    }
    return canonical.with_artifact_id(body)
