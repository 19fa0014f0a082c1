"""A contradiction component is decided by its sources: a section of a contradicted file goes with it.

The file nodes are the component's endpoints, but its claim also sits in the file's sections and chunks.
Selecting any of them decides the whole component, in every phase, as packets already do.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import prooftext
from helpers import write_tree
from prooftext import Query
from prooftext.artifacts import lifecycle as lc
from prooftext.artifacts.query import byte_query

TREE = {
    "SPEC.md": "# Spec\n\nThe service stores records.\n",
    "docs/a.md": "---\ncontradicts: [docs/b.md]\n---\n# Retention\n\nRecords are kept for thirty days.\n",
    "docs/b.md": "# Archive\n\nRecords are kept forever.\n\n"
    + "".join(f"Archive paragraph {i} holds older material about storage tiers.\n" for i in range(60)),
}
QUERY = "retention thirty days"
PAIR = {"docs/a.md", "docs/b.md"}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_tree(tmp_path_factory.mktemp("sources") / "repo", TREE)
    out = root / ".prooftext" / "context"
    lc.run_manifest(root, out / "manifest.json", "SPEC.md", [])
    lc.run_index(out / "manifest.json", root, None, out / "graph.json")
    return root


def _select(root: Path, name: str, **limits: Any) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    out = root / ".prooftext" / "context"
    lc.run_query(out / "graph.json", byte_query(QUERY, **limits), out / f"q-{name}.json")
    lc.run_select(out / "graph.json", out / f"q-{name}.json", out / f"s-{name}.json")
    graph = json.loads((out / "graph.json").read_text())
    return json.loads((out / f"s-{name}.json").read_text()), {n["node_id"]: n for n in graph["nodes"]}


def _rows(entries: list[dict[str, Any]], nodes: dict[str, dict[str, Any]]) -> list[tuple[str, str, str]]:
    return [(nodes[e["node_id"]]["kind"], nodes[e["node_id"]]["path"], e["reason"]) for e in entries]


def test_a_section_of_a_file_whose_component_does_not_fit_is_excluded_with_it(repo: Path) -> None:
    selection, nodes = _select(repo, "tight", max_bytes=2000)
    assert not {path for _kind, path, _reason in _rows(selection["nodes"], nodes)} & PAIR
    excluded = _rows(selection["excluded"], nodes)
    assert ("section", "docs/a.md", "contradiction") in excluded
    assert {("file", "docs/a.md", "over_budget"), ("file", "docs/b.md", "over_budget")} <= set(excluded)
    assert selection["contradictions"] == []


def test_pack_on_the_same_tree_also_excludes_the_component(repo: Path) -> None:
    with prooftext.open(repo) as index:
        packet = index.pack(Query(QUERY, max_tokens=200))
    assert not {e.path for e in packet.evidence} & PAIR
    assert {x["reason"] for x in packet.excluded if x["path"] in PAIR} == {"contradiction_component"}


def test_a_component_that_fits_is_selected_whole_before_the_sections_that_follow(repo: Path) -> None:
    selection, nodes = _select(repo, "roomy", max_bytes=65_536)
    chosen = _rows(selection["nodes"], nodes)
    section = chosen.index(("section", "docs/a.md", "lexical"))
    # The section decides the component: its own file in its phase, the other side by contradiction.
    assert chosen[section + 1 : section + 3] == [
        ("file", "docs/a.md", "lexical"),
        ("file", "docs/b.md", "contradiction"),
    ]
    assert [c["node_ids"] for c in selection["contradictions"]] == [
        sorted(n for n, node in nodes.items() if node["kind"] == "file" and node["path"] in PAIR)
    ]


def test_a_required_section_makes_its_component_required(repo: Path) -> None:
    _selection, nodes = _select(repo, "probe")
    section = next(
        n for n, node in nodes.items() if node["kind"] == "section" and node["path"] == "docs/a.md"
    )
    selection, _ = _select(repo, "required", required=(section,))
    required = {
        (nodes[e["node_id"]]["kind"], nodes[e["node_id"]]["path"])
        for e in selection["nodes"]
        if e["required"]
    }
    assert {("section", "docs/a.md"), ("file", "docs/a.md"), ("file", "docs/b.md")} <= required
    assert [c["required"] for c in selection["contradictions"]] == [True]
