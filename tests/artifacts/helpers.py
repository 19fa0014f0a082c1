"""Helpers of the artifact tests: hand-edited (re-identified) artifacts and error codes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gates.context import Run
from prooftext.artifacts.governance import highest_sensitivity
from prooftext.artifacts.ids import edge_value, with_id
from prooftext.errors import ProoftextError


def rewrite(run: Run, name: str, new_name: str, edit: Callable[[dict[str, Any]], None]) -> Path:
    """Edit an artifact value and store it re-identified (a well-formed but hand-edited artifact)."""
    value = run.value(name)
    edit(value)
    return run.write_value(new_name, {k: v for k, v in value.items() if k != "artifact_id"})


def code_of(action: Callable[[], object]) -> str:
    """The stable error code an action raises (fails the test when it succeeds)."""
    with pytest.raises(ProoftextError) as info:
        action()
    return info.value.code


def source_of(value: dict[str, Any], path: str) -> dict[str, Any]:
    return next(s for s in value["sources"] if s["locator"]["path"] == path)


def relabel_source(value: dict[str, Any], path: str, **labels: str) -> tuple[str, str]:
    """Change one source's labels and recompute its ``source_id``, as a forger would; (old id, new id)."""
    source = source_of(value, path)
    old = source.pop("source_id")
    source.update(labels)
    source["source_id"] = with_id(source, "source_id")["source_id"]
    return old, source["source_id"]


def relabelled_graph(value: dict[str, Any], path: str, **labels: str) -> dict[str, Any]:
    """A Graph with one source's labels changed and every id that depends on them recomputed: a forged but
    self-consistent Graph (the artifact id is left to :meth:`Run.write_value`)."""
    old, new = relabel_source(value, path, **labels)
    renamed: dict[str, str] = {}
    for index, node in enumerate(value["nodes"]):
        if node["source_id"] == old:
            body = {k: v for k, v in node.items() if k != "node_id"}
            value["nodes"][index] = with_id({**body, **labels, "source_id": new}, "node_id")
            renamed[node["node_id"]] = value["nodes"][index]["node_id"]
    value["nodes"].sort(key=lambda n: n["node_id"])
    edges = [
        edge_value(e["type"], renamed.get(e["source"], e["source"]), renamed.get(e["target"], e["target"]))
        for e in value["edges"]
    ]
    value["edges"] = sorted(edges, key=lambda e: e["edge_id"])
    value["sensitivity"] = highest_sensitivity(s["sensitivity"] for s in value["sources"])
    return {k: v for k, v in value.items() if k != "artifact_id"}


def relabelled_snapshot(value: dict[str, Any], path: str, **labels: str) -> None:
    """A Snapshot (or Compaction) with one source's labels raised in its sources and extracts alike."""
    old, new = relabel_source(value, path, **labels)
    for extract in value.get("extracts", []) + value.get("retained", []):
        if extract["source_id"] == old:
            extract.update(labels, source_id=new)
