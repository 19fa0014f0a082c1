"""The first rung holds every required node, as it holds the kernel's tokens (SACP's kernel rule)."""

from __future__ import annotations

from pathlib import Path

import pytest

import prooftext
from helpers import adaptive_fields, write_tree
from prooftext.adaptive.ladder import DEFAULT_MIN_TOKENS, Ladder, first_rung, rungs
from prooftext.errors import RequestError

QUESTION = "frobnicate widget"
TREE = {
    "alpha.py": "def frobnicate(widget):\n    return widget\n",
    "beta.md": "---\ncontradicts: [gamma.md]\n---\n# Beta\n\nThe widget is frobnicated twice.\n",
    "gamma.md": "# Gamma\n\nThe widget is frobnicated once.\n",
}
REQUIRED = ("alpha.py", "beta.md")
KERNEL_NODES = 3
"""alpha.py, beta.md, and gamma.md, which beta.md contradicts and so brings along."""


def _run(root: Path, **kw: object) -> prooftext.AdaptiveResult:
    with prooftext.open(root) as index:
        return adaptive_fields(index, QUESTION, **kw)


def test_the_first_node_rung_is_raised_to_the_required_nodes_and_says_so() -> None:
    req = Ladder(min_nodes=1, max_nodes=64)
    assert first_rung(req, kernel_tokens=0, kernel_nodes=5) == (DEFAULT_MIN_TOKENS, 5, True)
    assert first_rung(req, kernel_tokens=0, kernel_nodes=1) == (DEFAULT_MIN_TOKENS, 1, False)
    assert {nodes for _tokens, nodes in rungs(req, 0, kernel_nodes=64)} == {64}


def test_more_required_nodes_than_max_nodes_is_an_error_naming_max_nodes() -> None:
    with pytest.raises(RequestError) as caught:
        first_rung(Ladder(min_nodes=1, max_nodes=4), kernel_tokens=0, kernel_nodes=5)
    assert caught.value.field == "max_nodes"


def test_a_required_file_and_its_contradiction_partner_fit_a_first_rung_of_one_node(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "repo", TREE)
    result = _run(root, required=REQUIRED, min_nodes=1, max_nodes=64)
    first = result.rounds[0]
    assert (first.node_ceiling, first.raised_to_kernel) == (KERNEL_NODES, True)
    assert [e.path for e in first.packet.evidence[:KERNEL_NODES]] == ["alpha.py", "beta.md", "gamma.md"]


def test_more_required_files_than_the_default_min_nodes_fit_while_max_nodes_has_room(tmp_path: Path) -> None:
    files = {f"mod{i:02}.py": f"def frobnicate_{i}(widget):\n    return widget\n" for i in range(17)}
    result = _run(write_tree(tmp_path / "repo", files), required=tuple(files))
    assert result.rounds[0].node_ceiling == len(files)
    assert {e.path for e in result.packet.evidence} >= set(files)


def test_required_nodes_above_max_nodes_are_refused_naming_max_nodes(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "repo", TREE)
    with pytest.raises(RequestError) as caught:
        _run(root, required=REQUIRED, min_nodes=1, max_nodes=KERNEL_NODES - 1)
    assert caught.value.field == "max_nodes"
