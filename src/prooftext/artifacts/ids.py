"""Content ids of the parts of artifacts: sources, nodes, edges and contradiction components.

Each id is the full uppercase SHA-256 of the canonical content of the part without its own id field, so an
edit anywhere in a part changes its id and every validator can recompute it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

EDGE_CONTRADICTS = "contradicts"


def trusted_canonical(value: Any) -> bytes:
    """Canonical bytes of a part of an artifact whose values are already canonical-safe (from the strict
    loader, a strict model, or strict UTF-8 source text: no floats, no lone surrogates, safe integers).

    Byte-identical to :func:`prooftext.canonical.encode` for such values, without its per-value walk; every
    whole artifact still goes through ``canonical.encode`` before it is published or accepted.
    """
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    return text.encode("ascii")


def id_without(value: dict[str, Any], id_field: str) -> str:
    body = {k: v for k, v in value.items() if k != id_field}
    return hashlib.sha256(trusted_canonical(body)).hexdigest().upper()


def with_id(value: dict[str, Any], id_field: str) -> dict[str, Any]:
    """A copy of ``value`` carrying ``id_field`` = the content id of everything else."""
    return {**value, id_field: id_without(value, id_field)}


def model_id(model: BaseModel, id_field: str) -> str:
    return id_without(model.model_dump(mode="json"), id_field)


def edge_value(edge_type: str, source: str, target: str) -> dict[str, Any]:
    """An edge with its id; the endpoints of the one undirected edge, ``contradicts``, are sorted."""
    if edge_type == EDGE_CONTRADICTS:
        source, target = sorted((source, target))
    return with_id({"type": edge_type, "source": source, "target": target}, "edge_id")


def component_id(node_ids: Iterable[str], edge_ids: Iterable[str]) -> str:
    body = {"edge_ids": sorted(edge_ids), "node_ids": sorted(node_ids)}
    return hashlib.sha256(trusted_canonical(body)).hexdigest().upper()


def cost_bytes(value: dict[str, Any]) -> int:
    """The normative unit: the UTF-8 length of the canonical content of a node or edge."""
    return len(trusted_canonical(value))
