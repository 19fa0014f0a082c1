"""A plural query word is searched in its singular too, when the index holds it: a question about "route
groups" reaches the code that defines a ``RouterGroup``."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from helpers import write_tree
from prooftext.select.policy import DEFAULT_POLICY
from under_policy import ranked_under

TREE = {
    "routing/tree.go": "package routing\n\n// addRoute adds a route to the tree.\nfunc addRoute(route string) {}\n",
    "routing/group.go": (
        "package routing\n\n// RouterGroup holds handlers under one path.\n"
        "type RouterGroup struct{ base string }\n\n"
        "// Group creates a new RouterGroup under this one.\n"
        "func (g *RouterGroup) Group(base string) *RouterGroup { return g }\n"
    ),
}
QUESTION = "how are route groups with a common prefix implemented?"
FILLER = 40
"""Handlers that mention neither groups nor prefixes, so that those words are rare as in a real tree."""


def _tree(root: Path) -> None:
    handlers = {
        f"handlers/h{n:02d}.go": f"package handlers\n\n// Handle{n} serves route {n}.\nfunc Handle{n}() {{}}\n"
        for n in range(FILLER)
    }
    write_tree(root, {**TREE, **handlers})


def _paths(root: Path, singular_terms: bool) -> list[str]:
    policy = replace(DEFAULT_POLICY, singular_terms=singular_terms)
    return [h["path"] for h in ranked_under(root, QUESTION, policy)]


def test_a_plural_question_reaches_the_code_named_in_the_singular(tmp_path: Path) -> None:
    _tree(tmp_path)
    assert _paths(tmp_path, True)[0] == "routing/group.go"
    without = _paths(tmp_path, False)
    assert without[0] == "routing/tree.go" and "routing/group.go" not in without[:3]
