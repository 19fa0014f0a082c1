"""``context query``: a Query artifact bound to one Graph and its candidate.

Required references are node ids, or repository paths resolved to their file node. Limits follow the
context framework: 1,024–8,388,608 bytes, 1–4,096 nodes, 0–16,384 edges, traversal depth 0–8 (0 turns the
traversal phase off).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from prooftext import canonical
from prooftext.artifacts import governance as gov
from prooftext.artifacts.limits import SCHEMA_VERSION
from prooftext.artifacts.models import Graph
from prooftext.artifacts.semantic import NODE_FILE
from prooftext.errors import NotFoundError

ARTIFACT_TYPE = "query"
UNIT = "canonical_utf8_bytes"
DEFAULT_MAX_BYTES = 65_536
DEFAULT_MAX_NODES = 64
DEFAULT_MAX_EDGES = 256
DEFAULT_MAX_DEPTH = 0
DEFAULT_CLEARANCE = "owner-private"
_HEX = frozenset("0123456789ABCDEF")
ID_LENGTH = 64


@dataclass(frozen=True)
class QuerySpec:
    text: str
    max_bytes: int = DEFAULT_MAX_BYTES
    max_nodes: int = DEFAULT_MAX_NODES
    max_edges: int = DEFAULT_MAX_EDGES
    max_depth: int = DEFAULT_MAX_DEPTH
    clearance: str = DEFAULT_CLEARANCE
    as_of: str | None = None
    required: tuple[str, ...] = ()


def _is_id(ref: str) -> bool:
    return len(ref) == ID_LENGTH and set(ref) <= _HEX


def resolve_required(graph: Graph, refs: tuple[str, ...]) -> list[str]:
    """Node ids for required references (ids or repository paths of file nodes), sorted and unique."""
    ids = {n.node_id for n in graph.nodes}
    files = {
        n.path: n.node_id for n in graph.nodes if n.kind == NODE_FILE and n.root_scope == gov.SCOPE_REPOSITORY
    }
    out: set[str] = set()
    for ref in refs:
        node_id = ref if _is_id(ref) and ref in ids else files.get(ref.removeprefix("./"))
        if node_id is None:
            raise NotFoundError(
                f"required reference is not a node of the graph: {ref[:200]}", field="required"
            )
        out.add(node_id)
    return sorted(out)


def build_query(graph: Graph, spec: QuerySpec) -> dict[str, Any]:
    """The Query artifact (checked when it is encoded)."""
    body = {
        "schema_version": SCHEMA_VERSION,
        "artifact_type": ARTIFACT_TYPE,
        "graph_id": graph.artifact_id,
        "candidate": graph.candidate.model_dump(mode="json"),
        "text": spec.text,
        "as_of": spec.as_of,
        "clearance": spec.clearance,
        "unit": UNIT,
        "limits": {
            "max_bytes": spec.max_bytes,
            "max_nodes": spec.max_nodes,
            "max_edges": spec.max_edges,
            "max_depth": spec.max_depth,
        },
        "required": resolve_required(graph, spec.required),
    }
    return canonical.with_artifact_id(body)
