"""A schema violation says why a value fails even when the value is long: the value is cut, not the reason."""

from __future__ import annotations

import json

import pytest

from gates import fixture
from gates.context import Run, node_of
from prooftext.artifacts import lifecycle as lc
from prooftext.errors import ProoftextError


def test_an_over_long_claim_is_reported_as_too_long(run: Run) -> None:
    run.snapshot()
    claims = run.repo / ".prooftext" / "claims.json"
    claims.write_text(
        json.dumps([{"text": "x" * 70_000, "links": [node_of(run, fixture.DECISION)]}]), "utf-8"
    )
    with pytest.raises(ProoftextError) as info:
        lc.run_propose(run.out("snapshot"), claims, run.out("proposal"))
    assert info.value.code == "schema_violation"
    assert "is too long" in info.value.message and "is too long" in info.value.details["errors"][0]
    assert not run.out("proposal").exists()
