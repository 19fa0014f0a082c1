"""The artifact lifecycle's query: counted in bytes, with its own ceilings.

Apart from the artifact models, so that showing these defaults (the command line's help) loads no schema.
"""

from __future__ import annotations

from prooftext.select.query import UNIT_BYTES, Query

DEFAULT_MAX_BYTES = 65_536
DEFAULT_MAX_NODES = 64
DEFAULT_MAX_EDGES = 256
DEFAULT_MAX_DEPTH = 0
"""An artifact query does not traverse unless asked to (a packet query walks one level by default)."""
DEFAULT_CLEARANCE = "owner-private"


def byte_query(
    text: str,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_nodes: int = DEFAULT_MAX_NODES,
    max_edges: int = DEFAULT_MAX_EDGES,
    max_depth: int = DEFAULT_MAX_DEPTH,
    clearance: str = DEFAULT_CLEARANCE,
    as_of: str | None = None,
    required: tuple[str, ...] = (),
) -> Query:
    """A Query counted in bytes, with the artifact lifecycle's defaults."""
    return Query(
        text=text,
        max_tokens=max_bytes,
        unit=UNIT_BYTES,
        max_nodes=max_nodes,
        max_edges=max_edges,
        max_depth=max_depth,
        required=required,
        clearance=clearance,
        as_of=as_of,
    )
