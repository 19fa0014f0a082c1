"""A local pool worker that dies ends the run with a coded error, never a wait or an internal error."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import pytest

from prooftext.errors import EvaluationError
from prooftext.eval.executor import run_units

REPO = Path(__file__).resolve().parents[2]


def unit(arg: str, emit: Any) -> int:
    """Send one row, then die as an out-of-memory kill would, when told to."""
    emit({"unit": arg})
    if arg == "dies":
        os.kill(os.getpid(), signal.SIGKILL)
    return 1


def test_a_worker_that_dies_fails_the_run_with_a_coded_error_instead_of_waiting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.syspath_prepend(str(REPO))  # the spawned workers import ``unit`` from this module
    rows: list[Any] = []
    with pytest.raises(EvaluationError) as caught:
        run_units(unit, ["dies", "lives"], rows.append, workers=2)
    assert caught.value.to_dict()["details"] == {"reason": "worker_lost"}
    assert caught.value.code == "evaluation_failed"


def test_units_that_finish_send_every_row(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(REPO))
    rows: list[Any] = []
    run_units(unit, ["a", "b", "c"], rows.append, workers=2)
    assert sorted(row["unit"] for row in rows) == ["a", "b", "c"]
