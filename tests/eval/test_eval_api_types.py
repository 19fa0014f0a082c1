"""The Python API's run requests refuse a value of the wrong type with a coded error naming its field, as
the command line refuses it, never with a bare Python exception from deep inside the run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from prooftext import DepthRun, LocomoRun, QualityBar, SwebenchRun, evaluate
from prooftext.errors import ProoftextError
from prooftext.eval.common import RunOptions

from .conftest import SweFixture


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"arms": None}, "arms"),
        ({"arms": 3}, "arms"),
        ({"repos": 5}, "repos"),
        ({"instances": None}, "instances"),
        ({"tasks": None}, "tasks"),
        ({"repo_map": 7}, "repo_map"),
        ({"bar": QualityBar(threshold="0.5")}, "quality_threshold"),  # type: ignore[arg-type]
        ({"bar": QualityBar(permitted_regression=[0.1])}, "permitted_regression"),  # type: ignore[arg-type]
        ({"bar": QualityBar(metric=5)}, "quality_metric"),  # type: ignore[arg-type]
    ],
)
def test_a_swebench_run_with_a_value_of_the_wrong_type_is_refused_naming_its_field(
    swe_fixture: SweFixture, changes: dict[str, Any], field: str
) -> None:
    values: dict[str, Any] = {"tasks": swe_fixture.tasks, "repo_map": swe_fixture.repo_map, **changes}
    with pytest.raises(ProoftextError) as caught:
        evaluate(SwebenchRun(**values))
    assert caught.value.details.get("field") == field


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"workers": "2"}, "workers"),
        ({"limit": "2"}, "limit"),
        ({"limit": 1.5}, "limit"),
        ({"workers": True}, "workers"),
    ],
)
def test_run_options_of_the_wrong_type_are_refused_naming_their_field(
    options: dict[str, Any], field: str
) -> None:
    with pytest.raises(ProoftextError) as caught:
        RunOptions(**options)
    assert caught.value.details.get("field") == field


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"budgets": 512}, "budgets"),
        ({"budgets": (512, "x")}, "budgets"),
        ({"questions": "2"}, "questions"),
        ({"questions": 1.5}, "questions"),
        ({"data": None}, "data"),
    ],
)
def test_a_locomo_run_with_a_value_of_the_wrong_type_is_refused_naming_its_field(
    locomo_file: Path, changes: dict[str, Any], field: str
) -> None:
    with pytest.raises(ProoftextError) as caught:
        evaluate(LocomoRun(**{"data": locomo_file, **changes}))
    assert caught.value.details.get("field") == field


def test_a_depth_run_without_its_clinc_file_is_refused_naming_the_field() -> None:
    with pytest.raises(ProoftextError) as caught:
        evaluate(DepthRun(None))  # type: ignore[arg-type]
    assert caught.value.details.get("field") == "clinc"
