"""A root whose path is not UTF-8 (a directory named in Latin-1) is indexed, packed, mapped and verified from
the command line like any other."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import undecodable_directory, write_tree
from prooftext.cli import main


@pytest.mark.parametrize(
    "command", [["pack", "zz"], ["adaptive-pack", "zz"], ["map"]], ids=["pack", "adaptive-pack", "map"]
)
def test_a_root_whose_path_is_not_utf8_packs_maps_and_verifies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    root = write_tree(undecodable_directory(tmp_path), {"z.py": "def zz():\n    pass\n"})
    assert main(["index", str(root), "--json"]) == 0
    capsys.readouterr()
    assert main([*command, "--root", str(root), "--json"]) == 0, capsys.readouterr()
    saved = tmp_path / "saved.json"
    saved.write_text(capsys.readouterr().out, encoding="utf-8")
    assert "z.py" in json.dumps(json.loads(saved.read_text(encoding="utf-8")))
    assert main(["verify", str(saved), "--root", str(root), "--json"]) == 0
