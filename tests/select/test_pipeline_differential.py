"""Both rankers over the one selection pipeline, on the same generated trees, hold the invariants they share.

Each tree holds a specification, Markdown documents with sections (some declaring ``contradicts``), and a
Python module with functions. The tuned packet ranking selects through ``pack``; the context framework's
binary ranking through ``context select``. Both must take required evidence first, decide every
contradiction component atomically in every phase (nothing of a member's source without every member
whole), never cross a ceiling, and give the same bytes for the same inputs.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import prooftext
from helpers import write_tree
from prooftext import Packet, Query, canonical
from prooftext.artifacts import lifecycle as lc
from prooftext.artifacts.models import Graph
from prooftext.artifacts.models import Query as WireQuery
from prooftext.artifacts.query import byte_query
from prooftext.artifacts.selector import select
from prooftext.errors import ProoftextError

WORDS = ("retention", "archive", "records", "storage", "budget", "charge", "policy", "ledger")
DOCS = ("docs/a.md", "docs/b.md", "docs/c.md", "docs/d.md")
CODE = "src/store.py"
SPEC = "SPEC.md"


@dataclass(frozen=True)
class Case:
    files: dict[str, str]
    contradicts: tuple[tuple[str, str], ...]
    query: str
    required: tuple[str, ...]
    max_tokens: int
    max_bytes: int
    max_nodes: int


def _doc(draw: st.DrawFn, path: str, targets: list[str]) -> str:
    front = f"---\ncontradicts: [{', '.join(targets)}]\n---\n" if targets else ""
    sections = []
    for i in range(draw(st.integers(1, 3))):
        words = draw(st.lists(st.sampled_from(WORDS), min_size=2, max_size=6))
        lines = draw(st.integers(1, 8))
        sections.append(f"## {words[0].title()} {i}\n\n" + f"The {' '.join(words)} note.\n" * lines)
    return f"{front}# {path}\n\n" + "\n".join(sections)


def _code(draw: st.DrawFn) -> str:
    names = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3, unique=True))
    return "".join(f"def {name}_{i}(x):\n    return x  # {name}\n\n\n" for i, name in enumerate(names))


@st.composite
def cases(draw: st.DrawFn) -> Case:
    docs = list(DOCS[: draw(st.integers(2, len(DOCS)))])
    pairs = draw(st.lists(st.tuples(st.sampled_from(docs), st.sampled_from(docs)), min_size=1, max_size=3))
    contradicts = tuple(sorted({(a, b) for a, b in pairs if a != b}))
    files = {SPEC: "# Spec\n\nThe ledger keeps records of every charge.\n", CODE: _code(draw)}
    for path in docs:
        files[path] = _doc(draw, path, [b for a, b in contradicts if a == path])
    query = " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4)))
    required = draw(st.sampled_from([(), (), (), (docs[0],), (CODE,)]))
    return Case(
        files,
        contradicts,
        query,
        required,
        draw(st.integers(200, 3000)),
        draw(st.integers(1024, 9000)),
        draw(st.integers(2, 12)),
    )


def _components(case: Case) -> list[set[str]]:
    groups: list[set[str]] = []
    for a, b in case.contradicts:
        joined = [g for g in groups if a in g or b in g]
        merged = {a, b}.union(*joined)
        groups = [g for g in groups if g not in joined] + [merged]
    return groups


def _pack(root: Path, case: Case) -> Packet | str:
    try:
        with prooftext.open(root) as index:
            return index.pack(
                Query(
                    case.query, max_tokens=case.max_tokens, max_nodes=case.max_nodes, required=case.required
                )
            )
    except ProoftextError as exc:
        return exc.code


def _check_packet(packet: Packet, case: Case) -> None:
    reasons = [e.reason for e in packet.evidence]
    pinned = [r == "required" or r.startswith("contradicts ") for r in reasons]
    assert pinned == sorted(pinned, reverse=True), "required evidence comes first"
    assert packet.prompt_tokens.count <= case.max_tokens
    assert sum(len(e.node_ids) for e in packet.evidence) <= case.max_nodes
    quoted = {e.path for e in packet.evidence}
    for group in _components(case):
        if quoted & group:
            for path in group:
                lines = case.files[path].count("\n")
                assert any(
                    e.path == path and (e.start_line, e.end_line) == (1, lines) for e in packet.evidence
                )


def _artifacts(root: Path, case: Case) -> tuple[dict[str, Any], dict[str, Any]] | str:
    out = root / ".prooftext" / "context"
    try:
        lc.run_manifest(root, out / "manifest.json", SPEC, [])
        lc.run_index(out / "manifest.json", root, None, out / "graph.json")
        query = byte_query(case.query, case.max_bytes, case.max_nodes, required=case.required)
        lc.run_query(out / "graph.json", query, out / "query.json")
        lc.run_select(out / "graph.json", out / "query.json", out / "selection.json")
    except ProoftextError as exc:
        return exc.code
    graph, wire = json.loads((out / "graph.json").read_text()), json.loads((out / "query.json").read_text())
    again = select(Graph.model_validate(graph), WireQuery.model_validate(wire))
    assert canonical.encode(again) == (out / "selection.json").read_bytes(), "same inputs, same bytes"
    return graph, json.loads((out / "selection.json").read_text())


def _check_selection(graph: dict[str, Any], selection: dict[str, Any], case: Case) -> None:
    flags = [n["required"] for n in selection["nodes"]]
    assert flags == sorted(flags, reverse=True), "required nodes come first"
    budget = selection["budget"]
    assert budget["used_bytes"] <= case.max_bytes and len(selection["nodes"]) <= case.max_nodes
    assert len(selection["edges"]) <= budget["max_edges"]
    nodes = {n["node_id"]: n for n in graph["nodes"]}
    chosen = [nodes[n["node_id"]] for n in selection["nodes"]]
    for group in _components(case):
        if {n["path"] for n in chosen} & group:
            assert {n["path"] for n in chosen if n["kind"] == "file"} >= group


@settings(max_examples=25, deadline=None)
@given(cases())
def test_both_rankers_hold_the_shared_invariants(case: Case) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        root = write_tree(Path(scratch) / "repo", case.files)
        packet = _pack(root, case)
        if isinstance(packet, Packet):
            _check_packet(packet, case)
            again = _pack(root, case)
            assert isinstance(again, Packet) and json.dumps(again.to_dict()) == json.dumps(packet.to_dict())
        else:
            assert _pack(root, case) == packet, "a refusal is deterministic too"
        made = _artifacts(root, case)
        if not isinstance(made, str):
            _check_selection(*made, case)
