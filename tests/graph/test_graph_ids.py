"""Node and edge ids: canonical content ids, stable across runs, unique, and equal to the slow path."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from prooftext.canonical import content_id
from prooftext.errors import JSONLoneSurrogateError
from prooftext.graph import EDGE_CONTRADICTS, EDGE_TYPES, FileGraph, edge_id, make_edge, node_id
from prooftext.graph.extract import extract

REPO = Path(__file__).resolve().parents[2]
HEX = st.text(alphabet="0123456789ABCDEF", min_size=64, max_size=64)
LINE = st.integers(min_value=0, max_value=2**53 - 1)


@settings(max_examples=200, deadline=None)
@given(
    kind=st.sampled_from(["file", "symbol", "section", "chunk"]),
    path=st.text(max_size=40),
    qualname=st.text(max_size=40),
    start=LINE,
    end=LINE,
    ordinal=st.integers(min_value=0, max_value=1000),
)
def test_node_id_equals_content_id(
    kind: str, path: str, qualname: str, start: int, end: int, ordinal: int
) -> None:
    fields = {
        "kind": kind,
        "path": path,
        "qualname": qualname,
        "symbol_kind": "method",
        "start_line": start,
        "end_line": end,
        "text_sha256": "ab" * 32,
        "ordinal": ordinal,
    }
    try:
        expected = content_id(fields)
    except JSONLoneSurrogateError:
        return
    assert node_id(**fields) == expected  # type: ignore[arg-type]


@settings(max_examples=100, deadline=None)
@given(edge_type=st.sampled_from(EDGE_TYPES), source=HEX, target=HEX)
def test_edge_id_equals_content_id(edge_type: str, source: str, target: str) -> None:
    if edge_type == EDGE_CONTRADICTS:
        source, target = sorted((source, target))
    assert edge_id(edge_type, source, target) == content_id(
        {"type": edge_type, "source": source, "target": target}
    )


def test_contradicts_is_undirected() -> None:
    a, b = "A" * 64, "B" * 64
    assert make_edge(EDGE_CONTRADICTS, b, a) == make_edge(EDGE_CONTRADICTS, a, b)
    assert make_edge(EDGE_CONTRADICTS, b, a).source == a
    assert edge_id("imports", a, b) != edge_id("imports", b, a)


SAMPLE = "class A:\n    def f(self): pass\n    def f(self): pass\n\ndef g():\n    pass\n"


def test_ids_are_unique_even_for_identical_redefinitions() -> None:
    graph = extract("m.py", SAMPLE)
    ids = [n.id for n in graph.nodes]
    assert len(ids) == len(set(ids))
    twins = [n for n in graph.nodes if n.qualname == "A.f"]
    assert [n.ordinal for n in twins] == [0, 1]
    assert len({e.id for e in graph.edges}) == len(graph.edges)


def test_ids_depend_on_path_and_content() -> None:
    one, two = extract("a.py", SAMPLE), extract("b.py", SAMPLE)
    assert not {n.id for n in one.nodes} & {n.id for n in two.nodes}
    changed = extract("a.py", SAMPLE.replace("pass\n\ndef g", "return 1\n\ndef g"))

    def ids(graph: FileGraph, qualname: str) -> set[str]:
        return {n.id for n in graph.nodes if n.qualname == qualname}

    assert ids(one, "A") != ids(changed, "A")  # its text changed
    assert ids(one, "g") == ids(changed, "g")  # same lines, same text: an untouched symbol keeps its id


def test_ids_are_stable_across_processes() -> None:
    code = (
        "from prooftext.graph.extract import extract\n"
        f"g = extract('m.py', {SAMPLE!r})\n"
        "print(','.join(n.id for n in g.nodes))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    assert run.stdout.strip() == ",".join(n.id for n in extract("m.py", SAMPLE).nodes)


def test_ids_unique_across_the_projects_own_sources() -> None:
    graphs = [
        extract(path.relative_to(REPO).as_posix(), path.read_text(encoding="utf-8"))
        for path in sorted((REPO / "src" / "prooftext").rglob("*.py"))
    ]
    ids = [n.id for g in graphs for n in g.nodes]
    assert len(ids) == len(set(ids))
    assert all(len(i) == 64 and i == i.upper() for i in ids)
