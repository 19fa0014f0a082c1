"""``canonical-specification`` belongs only to the root's declared ``[scan] specification``: an artifact that
names another file as the specification, with that file's digest, is ``authority_invalid``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gates import fixture
from gates.context import QUERY_TEXT, Run
from prooftext.artifacts import lifecycle as lc
from prooftext.artifacts.query import byte_query

from .helpers import code_of, relabelled_graph, rewrite, source_of

SPEC = "canonical-specification"
IMPOSTOR = fixture.DECISION
"""A repository file that is not the declared specification (``SPEC.md``)."""


def _moved_specification(value: dict[str, Any]) -> dict[str, Any]:
    """A Manifest whose specification is the impostor: labels, required flag and candidate digest moved."""
    spec, impostor = source_of(value, fixture.SPECIFICATION), source_of(value, IMPOSTOR)
    spec.update(authority="repository-record")
    impostor.update(authority=SPEC, required=True)
    value["candidate"]["source_spec_sha256"] = impostor["locator"]["sha256"]
    return value


def test_manifest_refuses_a_specification_other_than_the_declared_one(run: Run) -> None:
    def manifest(name: str, specification: str) -> None:
        owner = sorted(fixture.OWNER_FILES)
        lc.run_manifest(run.repo, run.out(name), specification, [], run.owner, owner)

    assert code_of(lambda: manifest("m-impostor", IMPOSTOR)) == "authority_invalid"
    assert not run.out("m-impostor").exists()
    manifest("m-declared", fixture.SPECIFICATION)
    assert run.value("m-declared")["sources"] == run.value("manifest")["sources"]


def test_index_refuses_a_manifest_that_moves_the_specification(run: Run) -> None:
    forged = rewrite(run, "manifest", "m", _moved_specification)
    assert lc.run_validate(forged)["valid"]  # self-consistent: only the root's configuration can tell
    action = lambda: lc.run_index(forged, run.repo, run.owner, run.out("g"))  # noqa: E731
    assert code_of(action) == "authority_invalid"
    assert not run.out("g").exists()


def _graph_with_moved_specification(run: Run) -> Path:
    """A self-consistent Graph (every id recomputed) whose specification is the impostor, required."""
    run.manifest("m-required", required=(IMPOSTOR,))
    run.graph("g-required", "m-required")
    value = run.value("g-required")
    value["candidate"]["source_spec_sha256"] = source_of(value, IMPOSTOR)["locator"]["sha256"]
    relabelled_graph(value, fixture.SPECIFICATION, authority="repository-record")
    return run.write_value("g-forged", relabelled_graph(value, IMPOSTOR, authority=SPEC))


def test_snapshot_refuses_a_graph_that_moves_the_specification(run: Run) -> None:
    graph = _graph_with_moved_specification(run)
    assert lc.run_validate(graph)["valid"]
    lc.run_query(graph, byte_query(QUERY_TEXT), run.out("q"))
    lc.run_select(graph, run.out("q"), run.out("s"))
    action = lambda: lc.run_snapshot(graph, run.out("s"), run.repo, run.owner, run.out("n"))  # noqa: E731
    assert code_of(action) == "authority_invalid"
    assert not run.out("n").exists()
