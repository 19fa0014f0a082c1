"""An evaluation on a core install (no ``eval`` extra) is refused before any work, with the code
``extra_missing`` and the install command that adds what it lacks."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import prooftext.cli.eval  # noqa: F401  (registers the `eval` commands on the app)
from prooftext.cli import main


@pytest.mark.parametrize("missing", ["bm25s", "matplotlib"])
def test_eval_without_the_extra_names_the_install_command(
    missing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, missing, None)  # as if not installed: find_spec answers None
    clinc = tmp_path / "clinc.json"
    clinc.write_text(json.dumps({"test": [["thanks", "thank_you"]]}))
    out = tmp_path / "out"
    status = main(["eval", "depth", "--clinc", str(clinc), "--out", str(out), "--json"])
    error = json.loads(capsys.readouterr().out)["error"]
    assert status == 1 and error["code"] == "extra_missing"
    assert error["details"]["install"] == "pip install 'prooftext[eval]'"
    assert error["details"]["missing"] == [missing]
    assert not (out / "summary.json").exists()


def test_eval_without_the_extra_says_so_on_the_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "bm25s", None)
    clinc = tmp_path / "clinc.json"
    clinc.write_text(json.dumps({"test": [["thanks", "thank_you"]]}))
    assert main(["eval", "depth", "--clinc", str(clinc)]) == 1
    err = capsys.readouterr().err
    assert "extra_missing" in err and "pip install 'prooftext[eval]'" in err and "Traceback" not in err
