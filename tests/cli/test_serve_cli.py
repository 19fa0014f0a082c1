"""``prooftext serve`` and ``prooftext mcp`` refuse bad flags at startup with a stable code, before serving."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prooftext.cli import main


def _error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, dict[str, object]]:
    status = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return status, json.loads(out)["error"]


@pytest.mark.parametrize(
    "argv",
    [
        ["serve", "--http", "--port", "70000"],
        ["serve", "--http", "--port", "-1"],
        ["serve", "--stdio", "--port", "65536"],
        ["mcp", "--http", "--port", "70000"],
        ["mcp", "--port", "-1"],
    ],
)
def test_a_port_outside_0_to_65535_is_out_of_range(
    sample_repo: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    status, error = _error(capsys, [*argv, "--root", str(sample_repo), "--no-warm", "--json"])
    assert status == 1
    assert error["code"] == "value_out_of_range" and error["details"] == {"field": "port"}


@pytest.mark.parametrize("timeout", ["inf", "-inf", "nan", "1e300", "86401", "0", "-1"])
def test_a_timeout_that_is_not_positive_and_at_most_a_day_is_refused_at_startup(
    sample_repo: Path, capsys: pytest.CaptureFixture[str], timeout: str
) -> None:
    argv = ["serve", "--stdio", "--root", str(sample_repo), "--no-warm", "--timeout", timeout, "--json"]
    status, error = _error(capsys, argv)
    assert status == 1
    assert error["code"] == "value_out_of_range" and error["details"] == {"field": "timeout"}
