"""A packet refused for its budget, or for a required path outside the frobnicate_root, names the field and the option
at fault with ``--json``, as the map's refusal of its budget does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from prooftext.cli import main


def _error(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(list(argv)) == 1
    error: dict[str, Any] = json.loads(capsys.readouterr().out)["error"]
    return error


@pytest.mark.parametrize("command", ["pack", "adaptive-pack", "map"])
def test_a_budget_too_small_names_max_tokens(
    frobnicate_root: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    query = ["--query"] if command == "map" else []
    error = _error(
        capsys, command, *query, "frobnicate", "--root", str(frobnicate_root), "--max-tokens", "5", "--json"
    )
    assert error["code"] == "budget_exceeded"
    assert (error["details"]["field"], error["details"]["option"]) == ("max_tokens", "--max-tokens")


def test_a_required_path_outside_the_root_names_require(
    frobnicate_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    error = _error(
        capsys, "pack", "frobnicate", "--root", str(frobnicate_root), "--require", "../app.py", "--json"
    )
    assert error["code"] == "path_outside_root"
    assert (error["details"]["field"], error["details"]["option"]) == ("required", "--require")


def test_a_required_source_above_the_clearance_names_require(
    frobnicate_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (frobnicate_root / "prooftext.toml").write_text(
        '[[labels]]\nglob = "app.py"\nsensitivity = "secret-or-prohibited"\n', encoding="utf-8"
    )
    error = _error(
        capsys, "pack", "frobnicate", "--root", str(frobnicate_root), "--require", "app.py", "--json"
    )
    assert error["code"] == "sensitivity_violation"
    assert (error["details"]["field"], error["details"]["option"]) == ("required", "--require")
    assert error["details"]["path"] == "app.py"
