"""Every catalogue id (RELIABILITY.md section 3) has a test named after it, or a documented gap."""

from __future__ import annotations

import ast
from pathlib import Path

from .catalogue import BENCHMARKS, CASES, GAPS
from .robustness import group_of, ids_in_test_name

HERE = Path(__file__).resolve().parent


def _test_names() -> list[str]:
    names: list[str] = []
    for module in sorted(HERE.glob("test_*.py")):
        tree = ast.parse(module.read_text(encoding="utf-8"))
        names += [
            n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")
        ]
    return names


def test_every_catalogue_case_has_a_test_or_a_documented_gap() -> None:
    covered = {case for name in _test_names() for case in ids_in_test_name(name)}
    missing = sorted(c for c in CASES if c not in covered and c not in GAPS and c not in BENCHMARKS)
    assert missing == []
    assert not set(GAPS) - set(CASES) and not set(BENCHMARKS) - set(CASES)


def test_test_names_refer_only_to_catalogue_ids() -> None:
    for name in _test_names():
        for case in ids_in_test_name(name):
            assert case in CASES or (case.endswith("0") and case[:-1] in {group_of(c) for c in CASES}), name


def test_the_catalogue_has_the_135_cases_of_reliability_md() -> None:
    assert len(CASES) == 135
    assert {group_of(c) for c in CASES} == {"A", "B", "C", "D", "E", "F", "G", "H", "FA", "L"}
