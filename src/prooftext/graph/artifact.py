"""The Graph artifact (context framework seed): every node with its locator and labels, every edge.

Shape::

    {"schema_version": "1.0", "artifact_type": "graph", "candidate": {...},
     "nodes": [{"id", "kind", "locator": {"root_scope", "path", "sha256", "line_range": [s, e]},
                "name", "qualname", "symbol_kind", "authority", "freshness", "sensitivity",
                "provenance": [...]}, ...],           # sorted by id
     "edges": [{"id", "type", "source", "target"}, ...],   # sorted by id; contains + cross-file
     "excluded_sources": [...],                       # sorted by path, then canonical bytes
     "artifact_id": "<64 uppercase hex>"}

A node's labels and provenance come from its source record (``sources[path]``: ``sha256``, ``authority``,
``freshness``, ``sensitivity``, optionally ``root_scope`` and ``provenance``). Without an explicit
``provenance`` a node cites its own source: the repository path and the digest of the complete bytes.
The builder refuses inconsistent input instead of publishing it: a node without a source record, a file
whose extracted bytes differ from the recorded digest, and an edge whose endpoint is not a node.
"""

from __future__ import annotations

from typing import Any

from prooftext.canonical import encode, with_artifact_id
from prooftext.errors import ArtifactError, ProvenanceError, SourceDriftError
from prooftext.graph.model import NODE_FILE, Edge, FileGraph, Node

SCHEMA_VERSION = "1.0"
ARTIFACT_TYPE = "graph"
ROOT_SCOPE = "repository"


def _provenance(path: str, source: dict[str, Any]) -> list[Any]:
    given = source.get("provenance")
    if given:
        return list(given)
    return [{"root_scope": source.get("root_scope", ROOT_SCOPE), "path": path, "sha256": source["sha256"]}]


def _source(path: str, sources: dict[str, dict[str, Any]]) -> dict[str, Any]:
    source = sources.get(path)
    if source is None:
        raise ProvenanceError(f"no source record for a graph file: {path}", path=path)
    missing = [key for key in ("sha256", "authority", "freshness", "sensitivity") if key not in source]
    if missing:
        raise ProvenanceError(f"source record of {path} lacks {', '.join(missing)}", path=path)
    return source


def _node_record(node: Node, source: dict[str, Any]) -> dict[str, Any]:
    if node.kind == NODE_FILE and node.text_sha256 and node.text_sha256 != source["sha256"]:
        raise SourceDriftError(
            f"{node.path} was extracted from other bytes than its source digest", path=node.path
        )
    return {
        "id": node.id,
        "kind": node.kind,
        "locator": {
            "root_scope": source.get("root_scope", ROOT_SCOPE),
            "path": node.path,
            "sha256": source["sha256"],
            "line_range": [node.start_line, node.end_line],
        },
        "name": node.name,
        "qualname": node.qualname,
        "symbol_kind": node.symbol_kind,
        "authority": source["authority"],
        "freshness": source["freshness"],
        "sensitivity": source["sensitivity"],
        "provenance": _provenance(node.path, source),
    }


def _edge_records(graphs: list[FileGraph], edges: list[Edge], node_ids: set[str]) -> list[dict[str, str]]:
    unique = {edge.id: edge for graph in graphs for edge in graph.edges}
    unique.update((edge.id, edge) for edge in edges)
    for edge in unique.values():
        if edge.source not in node_ids or edge.target not in node_ids:
            raise ArtifactError(
                f"edge {edge.id} ({edge.type}) names a node that is not in the graph", edge=edge.id
            )
    return [
        {"id": e.id, "type": e.type, "source": e.source, "target": e.target}
        for e in sorted(unique.values(), key=lambda e: e.id)
    ]


def build_graph_artifact(
    graphs: list[FileGraph],
    edges: list[Edge],
    sources: dict[str, dict[str, Any]],
    excluded: list[dict[str, Any]],
    candidate: dict[str, Any],
) -> dict[str, Any]:
    """The Graph artifact of ``graphs`` (their ``contains`` edges included) plus cross-file ``edges``."""
    nodes: dict[str, dict[str, Any]] = {}
    for graph in graphs:
        source = _source(graph.path, sources)
        for node in graph.nodes:
            nodes[node.id] = _node_record(node, source)
    body = {
        "schema_version": SCHEMA_VERSION,
        "artifact_type": ARTIFACT_TYPE,
        "candidate": candidate,
        "nodes": [nodes[key] for key in sorted(nodes)],
        "edges": _edge_records(graphs, edges, set(nodes)),
        "excluded_sources": sorted(excluded, key=lambda item: (str(item.get("path", "")), encode(item))),
    }
    return with_artifact_id(body)
