"""Golden artifacts of the whole lifecycle on the public fixture repository.

Regenerate with ``PROOFTEXT_REGEN_GOLDEN=1 pytest tests/artifacts/test_golden.py`` and review the diff: the
files are indented JSON so that every changed id, node or byte count shows up as a readable change.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from gates import fixture
from gates.context import Run, _claims
from prooftext.artifacts import lifecycle as lc

GOLDEN = Path(__file__).parent / "golden"
REGENERATE = os.environ.get("PROOFTEXT_REGEN_GOLDEN") == "1"
ARTIFACTS = ("manifest", "graph", "query", "selection", "snapshot", "proposal", "compaction", "quality")


@pytest.fixture(scope="module")
def produced(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    run = Run.fresh(tmp_path_factory.mktemp("golden"), "golden").standard()
    snapshot = run.snapshot()
    lc.run_propose(snapshot, _claims(run, run.value("snapshot"), fixture.DECISION), run.out("proposal"))
    lc.run_compact(snapshot, run.repo, run.owner, run.out("compaction"), run.out("proposal"))
    lc.run_quality(run.out("graph"), snapshot, run.out("quality"))
    values = {name: run.value(name) for name in ARTIFACTS}
    values["compare"] = lc.run_compare(snapshot, snapshot)
    return values


def _render(value: Any) -> str:
    return json.dumps(value, indent=1, sort_keys=True, ensure_ascii=True) + "\n"


@pytest.mark.parametrize("name", [*ARTIFACTS, "compare"])
def test_golden(produced: dict[str, Any], name: str) -> None:
    path = GOLDEN / f"{name}.json"
    if REGENERATE:
        path.write_text(_render(produced[name]), encoding="utf-8")
    assert path.is_file(), f"missing golden {path.name}: run with PROOFTEXT_REGEN_GOLDEN=1"
    assert json.loads(path.read_text(encoding="utf-8")) == produced[name]
