"""An empty file is one node of lines 1-1 in the graph, and quoting reads that range as the empty text: it
can be required, ranked, quoted and verified like any other source."""

from __future__ import annotations

import json
from pathlib import Path

import prooftext
from helpers import write_tree
from prooftext import Query
from prooftext.corpus.lines import LineText
from prooftext.graph.extract import extract
from prooftext.pack.sources import EMPTY_FILE_RANGE, ranges_fit

FILES = {"pkg/__init__.py": "", "pkg/retry.py": "def backoff(attempt):\n    return 2 ** attempt\n"}


def test_the_graph_s_range_of_an_empty_file_is_the_range_quoting_accepts() -> None:
    (node,) = extract("pkg/__init__.py", "").nodes
    span = (node.start_line, node.end_line)
    assert span == EMPTY_FILE_RANGE
    assert ranges_fit(LineText(""), [span])
    assert LineText("").slice(*span) == ""
    assert not ranges_fit(LineText(""), [(1, 2)]) and not ranges_fit(LineText(""), [(2, 2)])


def test_a_required_empty_file_is_quoted_as_an_empty_excerpt_that_verifies(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "repo", FILES)
    with prooftext.open(root) as index:
        packet = index.pack(Query("backoff attempt", required=("pkg/__init__.py",)))
        report = index.verify(json.loads(json.dumps(packet.to_dict())))
    first = packet.evidence[0]
    assert (first.path, first.start_line, first.end_line) == ("pkg/__init__.py", 1, 1)
    assert packet.evidence_texts[0] == ""
    assert report.ok, report


def test_a_ranked_empty_file_is_never_recorded_as_an_invalid_range(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "repo", FILES)
    with prooftext.open(root) as index:
        packet = index.pack("pkg __init__ package init backoff")
    assert "pkg/__init__.py" in {e.path for e in packet.evidence}
    assert not [e for e in packet.excluded if e["reason"] == "range_invalid"]
