"""Who-uses on Python: references resolved at query time reach the definition they name."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import prooftext
from prooftext.api.risk import risk_of_changing


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))


def _dependents(root: Path, target: str) -> dict[str, str]:
    with prooftext.open(root) as index:
        index.refresh()
        result: dict[str, Any] = risk_of_changing(index, [target])
    return {f"{d['path']}:{d['qualname']}": d["found_by"] for d in result["dependents"]}


OVERLOADED = {
    "pkg/__init__.py": "",
    "pkg/utils.py": """
        from typing import overload

        @overload
        def to_pairs(value: None) -> None: ...
        @overload
        def to_pairs(value: dict) -> list: ...
        def to_pairs(value):
            return list(value.items()) if value else None
        """,
    "pkg/models.py": """
        from .utils import to_pairs
        from . import utils

        def encode(data):
            return to_pairs(data)

        def through_module(data):
            return utils.to_pairs(data)
        """,
}


def test_an_overloaded_function_imported_elsewhere_keeps_its_callers(tmp_path: Path) -> None:
    """Its ``@overload`` stubs share its name: an import of it used to name nothing, so no caller was found."""
    _write(tmp_path, OVERLOADED)
    found = _dependents(tmp_path, "pkg.utils.to_pairs")
    assert found["pkg/models.py:encode"] == "call"
    assert found["pkg/models.py:through_module"] == "call"
    assert found["pkg/models.py:pkg/models.py"] == "import"
