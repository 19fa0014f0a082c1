"""``context query``: the Query artifact, the wire form of :class:`prooftext.select.query.Query` in bytes.

An artifact query is a Query whose unit is bytes (``canonical_utf8_bytes`` on the wire, its ceiling
``max_tokens`` written as ``limits.max_bytes``), bound to one Graph and its candidate. Required references
are node ids, or repository paths resolved to their file node. Limits follow the context framework:
1,024–8,388,608 bytes, 1–4,096 nodes, 0–16,384 edges, traversal depth 0–8 (0 turns the traversal phase off).
A credential in the text is redacted (the Selection and every later artifact embed the Query). This module
is the one place a Query becomes its wire form and back.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

import prooftext.artifacts.governance as gov
import prooftext.canonical as canonical
from prooftext.artifacts.byte_query import (
    byte_query,
)
from prooftext.artifacts.fields import TIMESTAMP_PATTERN, artifact_head
from prooftext.artifacts.models import Graph
from prooftext.artifacts.models import Query as WireQuery
from prooftext.artifacts.semantic import NODE_FILE
from prooftext.corpus.secrets import redact_text
from prooftext.errors import NotFoundError, RangeError, RequestError, UnknownNameError, whole_number
from prooftext.select.query import (
    MAX_BYTES,
    MAX_DEPTH,
    MAX_EDGES,
    MAX_NODES,
    MAX_QUERY_CHARS,
    MIN_BYTES,
    MIN_DEPTH,
    MIN_EDGES,
    MIN_NODES,
    UNIT_BYTES,
    Query,
)
from prooftext.select.view import is_node_id

ARTIFACT_TYPE = "query"
UNIT = "canonical_utf8_bytes"
UTC_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
CLEARANCES = (gov.PUBLIC, "repository-private", gov.OWNER_PRIVATE)
"""The clearances an artifact query may carry (secret text never enters an artifact)."""


def resolve_required(graph: Graph, refs: tuple[str, ...]) -> list[str]:
    """Node ids for required references (ids or repository paths of file nodes), sorted and unique."""
    ids = {n.node_id for n in graph.nodes}
    files = {
        n.path: n.node_id for n in graph.nodes if n.kind == NODE_FILE and n.root_scope == gov.SCOPE_REPOSITORY
    }
    out: set[str] = set()
    for ref in refs:
        node_id = ref if is_node_id(ref) and ref in ids else files.get(ref.removeprefix("./"))
        if node_id is None:
            raise NotFoundError(
                f"required reference is not a node of the graph: {ref[:200]}", field="required"
            )
        out.add(node_id)
    return sorted(out)


def _utc_instant(value: object) -> bool:
    """``YYYY-MM-DDTHH:MM:SSZ`` naming a real instant (not February 30th)."""
    if not isinstance(value, str) or not re.fullmatch(TIMESTAMP_PATTERN, value):
        return False
    try:
        datetime.strptime(value, UTC_FORMAT)
    except ValueError:
        return False
    return True


def _check_limits(query: Query) -> None:
    """The limits and clearance, each named by its field (the schema's error would name a path of the
    artifact, not what the caller gave)."""
    whole_number("max_bytes", query.max_tokens, MIN_BYTES, MAX_BYTES, " bytes")
    whole_number("max_nodes", query.max_nodes, MIN_NODES, MAX_NODES)
    whole_number("max_edges", query.max_edges, MIN_EDGES, MAX_EDGES)
    whole_number("max_depth", query.max_depth, MIN_DEPTH, MAX_DEPTH)
    if query.clearance not in CLEARANCES:
        raise UnknownNameError(f"clearance must be one of {', '.join(CLEARANCES)}", field="clearance")


def _check_inputs(query: Query) -> None:
    """The caller's inputs a schema error would describe poorly: over-long text (the schema's message
    quotes the text and is cut before its reason), an ``as_of`` in another spelling, and a lone string of
    required references (it would be read as its letters). The encoded artifact checks everything else."""
    if query.unit != UNIT_BYTES:
        raise RequestError("an artifact query counts canonical UTF-8 bytes (unit bytes)", field="unit")
    if isinstance(query.text, str) and len(query.text) > MAX_QUERY_CHARS:
        raise RangeError(f"query text is longer than {MAX_QUERY_CHARS} characters", field="text")
    _check_limits(query)
    if query.as_of is not None and not _utc_instant(query.as_of):
        raise RequestError("as_of must be a UTC instant YYYY-MM-DDTHH:MM:SSZ", field="as_of")
    if isinstance(query.required, (str, bytes)) or not isinstance(query.required, (tuple, list)):
        raise RequestError("required must be a list of node ids or repository paths", field="required")


def build_query(graph: Graph, query: Query) -> dict[str, Any]:
    """The Query artifact of ``query`` bound to ``graph`` (checked when it is encoded)."""
    _check_inputs(query)
    body = {
        **artifact_head(ARTIFACT_TYPE, graph.candidate, graph_id=graph.artifact_id),
        "text": redact_text(query.text) if isinstance(query.text, str) else query.text,
        "as_of": query.as_of,
        "clearance": query.clearance,
        "unit": UNIT,
        "limits": {
            "max_bytes": query.max_tokens,
            "max_nodes": query.max_nodes,
            "max_edges": query.max_edges,
            "max_depth": query.max_depth,
        },
        "required": resolve_required(graph, query.required),
    }
    return canonical.with_artifact_id(body)


def from_wire(wire: WireQuery) -> Query:
    """The Query a Query artifact records (its required references already node ids)."""
    return byte_query(
        wire.text,
        max_bytes=wire.limits.max_bytes,
        max_nodes=wire.limits.max_nodes,
        max_edges=wire.limits.max_edges,
        max_depth=wire.limits.max_depth,
        clearance=wire.clearance,
        as_of=wire.as_of,
        required=tuple(wire.required),
    )
