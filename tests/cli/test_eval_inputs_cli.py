"""An evaluation's input file that does not exist is ``not_found``, as every other missing file is; one that
exists but cannot be used stays ``artifact_invalid`` (or ``config_invalid`` for a declaration or repo map)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prooftext.cli import main


@pytest.mark.parametrize(
    ("argv", "what"),
    [
        (["eval", "swebench", "--tasks", "{missing}", "--repo-map", "{present}"], "tasks"),
        (["eval", "locomo", "--data", "{missing}"], "LoCoMo data"),
        (["eval", "depth", "--clinc", "{missing}"], "CLINC150 data"),
        (["eval", "locomo", "--data", "{present}", "--declare", "{missing}"], "declaration"),
    ],
    ids=["tasks", "locomo", "clinc", "declaration"],
)
def test_an_evaluation_input_file_that_does_not_exist_is_not_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], what: str
) -> None:
    present = tmp_path / "present.json"
    present.write_text("[]\n", encoding="utf-8")
    missing = tmp_path / "missing.json"
    names = {"{missing}": str(missing), "{present}": str(present)}
    assert main([*(names.get(a, a) for a in argv), "--json"]) == 1
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["code"] == "not_found"
    assert error["details"]["path"] == str(missing)
    assert error["message"] == f"{what} not found: {missing}"
