"""The Graph artifact: shape, ordering, labels from sources, artifact id, refusal of inconsistent input."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from prooftext.canonical import artifact_id, encode
from prooftext.errors import ArtifactError, ProvenanceError, SourceDriftError
from prooftext.graph import Edge, build_edges, build_graph_artifact, extract

FILES = {
    "pkg/a.py": "class Foo:\n    def run(self):\n        pass\n",
    "pkg/b.py": "from pkg import a\n\ndef main():\n    return a.Foo()\n",
}
CANDIDATE = {"source_spec_sha256": "0" * 64, "git_head": None, "repository_digest": "1" * 64}


def _sources(files: dict[str, str]) -> dict[str, dict[str, Any]]:
    return {
        path: {
            "sha256": hashlib.sha256(text.encode()).hexdigest(),
            "authority": "repository-record",
            "freshness": "candidate-bound",
            "sensitivity": "repository-private",
        }
        for path, text in files.items()
    }


def _artifact(files: dict[str, str] = FILES) -> dict[str, Any]:
    graphs = [extract(p, t) for p, t in files.items()]
    excluded = [{"path": "z.bin", "reason": "binary"}, {"path": "a.bin", "reason": "binary"}]
    return build_graph_artifact(graphs, build_edges(graphs), _sources(files), excluded, CANDIDATE)


def test_graph_artifact_shape() -> None:
    artifact = _artifact()
    assert artifact["schema_version"] == "1.0" and artifact["artifact_type"] == "graph"
    assert artifact["candidate"] == CANDIDATE
    assert artifact["artifact_id"] == artifact_id(artifact)
    nodes, edges = artifact["nodes"], artifact["edges"]
    assert [n["id"] for n in nodes] == sorted(n["id"] for n in nodes)
    assert [e["id"] for e in edges] == sorted(e["id"] for e in edges)
    run = next(n for n in nodes if n["qualname"] == "Foo.run")
    assert run == {
        "id": run["id"],
        "kind": "symbol",
        "locator": {
            "root_scope": "repository",
            "path": "pkg/a.py",
            "sha256": hashlib.sha256(FILES["pkg/a.py"].encode()).hexdigest(),
            "line_range": [2, 3],
        },
        "name": "run",
        "qualname": "Foo.run",
        "symbol_kind": "method",
        "authority": "repository-record",
        "freshness": "candidate-bound",
        "sensitivity": "repository-private",
        "provenance": [{"root_scope": "repository", "path": "pkg/a.py", "sha256": run["locator"]["sha256"]}],
    }
    assert {e["type"] for e in edges} == {"contains", "imports", "references"}
    assert [x["path"] for x in artifact["excluded_sources"]] == ["a.bin", "z.bin"]


def test_graph_artifact_is_deterministic() -> None:
    assert encode(_artifact()) == encode(_artifact())
    reordered = dict(reversed(list(FILES.items())))
    assert _artifact(reordered)["artifact_id"] == _artifact()["artifact_id"]


def test_graph_artifact_refuses_inconsistent_input() -> None:
    graphs = [extract(p, t) for p, t in FILES.items()]
    sources = _sources(FILES)
    with pytest.raises(ProvenanceError):
        build_graph_artifact(graphs, [], {"pkg/a.py": sources["pkg/a.py"]}, [], CANDIDATE)
    drifted = dict(sources, **{"pkg/a.py": dict(sources["pkg/a.py"], sha256="f" * 64)})
    with pytest.raises(SourceDriftError):
        build_graph_artifact(graphs, [], drifted, [], CANDIDATE)
    dangling = Edge(id="E" * 64, type="references", source=graphs[0].nodes[0].id, target="0" * 64)
    with pytest.raises(ArtifactError):
        build_graph_artifact(graphs, [dangling], sources, [], CANDIDATE)
