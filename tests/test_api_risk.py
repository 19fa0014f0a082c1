"""Risk of changing: an over-long target is a coded range error naming ``targets``, never an internal one."""

from __future__ import annotations

from pathlib import Path

import pytest

import prooftext
from prooftext.api.risk import MAX_TARGET_CHARS, risk_of_changing
from prooftext.errors import RangeError


@pytest.mark.parametrize(
    "target",
    ["x" * 49_999, "/".join(["ab"] * 17_000), "y" * (MAX_TARGET_CHARS + 1)],
    ids=["name", "path", "just-over"],
)
def test_a_target_longer_than_any_path_is_refused_naming_targets(sample_repo: Path, target: str) -> None:
    with prooftext.open(sample_repo) as index, pytest.raises(RangeError) as info:
        index.refresh()
        risk_of_changing(index, [target])
    assert info.value.details["field"] == "targets"


def test_a_target_at_the_limit_is_looked_up(sample_repo: Path) -> None:
    with prooftext.open(sample_repo) as index:
        index.refresh()
        result = risk_of_changing(index, ["z" * MAX_TARGET_CHARS])
    assert result["targets"][0]["matches"] == []
