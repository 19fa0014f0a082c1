"""Helpers of the artifact tests: hand-edited (re-identified) artifacts and error codes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from prooftext.errors import ProoftextError
from prooftext.gates.context import Run


def rewrite(run: Run, name: str, new_name: str, edit: Callable[[dict[str, Any]], None]) -> Path:
    """Edit an artifact value and store it re-identified (a well-formed but hand-edited artifact)."""
    value = run.value(name)
    edit(value)
    return run.write_value(new_name, {k: v for k, v in value.items() if k != "artifact_id"})


def code_of(action: Callable[[], object]) -> str:
    """The stable error code an action raises (fails the test when it succeeds)."""
    with pytest.raises(ProoftextError) as info:
        action()
    return info.value.code


def source_of(value: dict[str, Any], path: str) -> dict[str, Any]:
    return next(s for s in value["sources"] if s["locator"]["path"] == path)
