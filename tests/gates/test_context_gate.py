"""The context gate runs in CI: success prints PASS last; a wrong observation or a broken path fails closed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gates import context as gate
from gates.expectations import EXPECTED

GATE_TIMEOUT_S = 300


def test_the_gate_prints_pass_as_its_last_line_in_a_subprocess() -> None:
    """The documented command: ``PYTHONPATH=tests python -m gates.context`` from a source checkout."""
    tests = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-m", "gates.context"],
        cwd=tests.parent,
        env={**os.environ, "PYTHONPATH": "tests"},
        capture_output=True,
        text=True,
        timeout=GATE_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1] == gate.PASS_LINE and gate.PASS_LINE not in lines[:-1]
    scenarios = [line for line in lines if line.startswith("ok   scenario ")]
    assert len(scenarios) == len(EXPECTED) == 7


def test_seven_scenarios_are_executed_not_read() -> None:
    assert set(gate.SCENARIOS) == set(EXPECTED)
    for name, observations in EXPECTED.items():
        assert any(v == "pass" or v in ("identical", "included") for v in observations.values()), name
        assert len(observations) >= 2, name


def test_a_checked_in_flag_that_disagrees_with_the_observation_fails(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    origin = gate.Run.fresh(tmp_path, "origin").standard()
    monkeypatch.setitem(
        EXPECTED, "owner-root-governance", {**EXPECTED["owner-root-governance"], "without_owner_root": "pass"}
    )
    checks = {
        c.name: c
        for c in gate.scenario_checks(tmp_path, origin)
        if c.name == "scenario owner-root-governance"
    }
    assert not checks["scenario owner-root-governance"].ok


def test_a_broken_path_fails_the_gate(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(base: Path, origin: gate.Run) -> dict[str, str]:
        return {"within_bounds": "pass", "beyond_depth": "pass", "beyond_nodes": "pass"}

    monkeypatch.setitem(gate.SCENARIOS, "traversal-frontier-blocks", broken)
    result = gate.run_gate()
    assert not result.ok
    assert gate.render(result).splitlines()[-1] == gate.FAIL_LINE
    assert [c.name for c in result.checks if not c.ok] == ["scenario traversal-frontier-blocks"]
