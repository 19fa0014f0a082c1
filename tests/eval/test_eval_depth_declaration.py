"""eval depth checks a threshold alone: a declaration that gives it a reference arm or a permitted regression
(which nothing would check) is refused naming the field, and the file when the file gave it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import prooftext
from prooftext.errors import RequestError


@pytest.fixture
def clinc(tmp_path: Path) -> Path:
    path = tmp_path / "clinc.json"
    path.write_text(json.dumps({"test": [["hi", "greeting"], ["play a song", "play_music"]]}))
    return path


@pytest.mark.parametrize(
    ("extra", "field"),
    [({"reference_arm": "full"}, "reference_arm"), ({"permitted_regression": 0.1}, "permitted_regression")],
)
def test_a_depth_declaration_file_with_a_reference_or_regression_is_refused_naming_it(
    tmp_path: Path, clinc: Path, extra: dict[str, object], field: str
) -> None:
    declared = tmp_path / "bar.json"
    declared.write_text(json.dumps({"metric": "surface_precision", "threshold": 0.9, **extra}))
    run = prooftext.DepthRun(clinc, bar=prooftext.QualityBar(declared))
    with pytest.raises(RequestError) as caught:
        prooftext.evaluate(run, prooftext.RunOptions(tmp_path / "out"))
    assert caught.value.details == {"field": field, "path": str(declared), "input": "declaration"}
    assert not (tmp_path / "out").exists()


def test_a_depth_bar_given_a_regression_in_python_is_refused_naming_the_field(clinc: Path) -> None:
    run = prooftext.DepthRun(clinc, bar=prooftext.QualityBar(permitted_regression=0.1))
    with pytest.raises(RequestError) as caught:
        prooftext.evaluate(run)
    assert caught.value.details == {"field": "permitted_regression"}
