"""Every contradiction a selection, snapshot or compaction holds stays listed: an artifact whose members name a
component it no longer lists, or whose component lost its required flag, is invalid."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from gates.context import Run
from prooftext.artifacts import lifecycle as lc

from .helpers import code_of, rewrite

Edit = Callable[[dict[str, Any]], None]


def _drop_components(value: dict[str, Any]) -> None:
    value["contradictions"] = []


def _drop_first_component(value: dict[str, Any]) -> None:
    value["contradictions"].pop(0)


def _unrequire(value: dict[str, Any]) -> None:
    for component in value["contradictions"]:
        component["required"] = not component["required"]


def _artifacts(run: Run) -> None:
    run.snapshot()
    lc.run_compact(run.out("snapshot"), run.repo, run.owner, run.out("compaction"), None)


@pytest.mark.parametrize("name", ["selection", "snapshot", "compaction"])
def test_the_lifecycle_lists_each_contradiction_its_members_name(run: Run, name: str) -> None:
    _artifacts(run)
    assert run.value(name)["contradictions"]
    assert lc.run_validate(run.out(name))["valid"]


@pytest.mark.parametrize("name", ["selection", "snapshot", "compaction"])
@pytest.mark.parametrize("edit", [_drop_components, _drop_first_component, _unrequire])
def test_an_artifact_that_hides_a_contradiction_is_invalid(run: Run, name: str, edit: Edit) -> None:
    _artifacts(run)
    edited = rewrite(run, name, f"{name}-edited", edit)
    assert code_of(lambda: lc.run_validate(edited)) == "schema_violation"
