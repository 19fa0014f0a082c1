"""``PYTHONPATH=tests python -m reliability.robustness``: run the reliability suite and print the figures of
RELIABILITY.md 3.4 (from a source checkout: the suite is not part of the package).

The suite is ``tests/reliability`` (the catalogue of RELIABILITY.md section 3 as tests, one or more per case
id) plus ``tests/vectors`` (BLAKE3, RFC 8785 and JSONTestSuite conformance). It runs in a pytest subprocess
with this module loaded as a plugin (``-p reliability.robustness``): each test's outcome and the figures it
recorded (``record_property("figure:<name>", n)``) are written to a JSON file, and this process turns them
into one report. Pytest's own progress goes to stderr; stdout carries the JSON report, then one line
``N passed, N failed`` counting catalogue cases.

A case *passed* when every test named after it passed; it *failed* when any of them failed or is a known
bug (an ``xfail`` naming a bug in code outside the suite; one that passes again is listed under
``fixed_known_bugs``); it was *not tried* when its tests were all
skipped (for instance no ``mount`` permission) or it is a documented gap. ``--load`` also runs the slow load
benchmarks (L1-L8) at a small scale. Exit status: 0 when no test failed unexpectedly and every loss and leak
figure is 0, else 1; 2 when the suite cannot be found or run.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pytest

REPORT_SCHEMA = "prooftext.robustness-report/v1"
OUT_ENV = "PROOFTEXT_ROBUSTNESS_OUT"
TESTS_ENV = "PROOFTEXT_TESTS"
SHARED_ENV = "PROOFTEXT_SHARED"
FIGURE_PREFIX = "figure:"
GROUPS: tuple[str, ...] = ("A", "B", "C", "D", "E", "F", "G", "H", "FA", "L")
ZERO_TARGETS: tuple[str, ...] = (
    "data_lost",
    "silent_drops",
    "secret_leaks",
    "injection_policy_deltas",
    "rpc_internal_errors",
    "fsck_errors_after_faults",
)
"""The loss and leak figures whose target is 0."""
COUNTED_FIGURES: tuple[str, ...] = (
    *ZERO_TARGETS,
    "unhandled_exceptions",
    "orphan_temps_left",
    "orphan_temps_swept",
    "injection_cases",
    "determinism_runs",
    "packet_edits_tried",
    "packet_edits_caught",
    "kills_survived",
    "bad_inputs_tried",
)
_ID = re.compile(r"(FA|[A-HL])(\d{2})(?=_)")
PLUGIN = "reliability.robustness"
"""This module's name on the pytest path (``tests/``), as the suite's subprocess loads it."""


# --- the pytest plugin half ---------------------------------------------------------------------------------

_results: dict[str, dict[str, Any]] = {}


def _outcome(report: pytest.TestReport) -> str:
    if report.skipped and hasattr(report, "wasxfail"):
        return "known_bug"
    if report.failed:
        return "failed"
    if report.skipped:
        return "skipped"
    return "passed"


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Record each test's worst phase outcome and its figures (only when the runner asked for them)."""
    if not os.environ.get(OUT_ENV):
        return
    entry = _results.setdefault(
        report.nodeid, {"outcome": "passed", "figures": {}, "reason": "", "error": ""}
    )
    outcome = _outcome(report)
    if report.passed and hasattr(report, "wasxfail"):
        entry["fixed_known_bug"] = True  # a known-bug marker whose test now passes: remove the marker
    rank = ("passed", "skipped", "known_bug", "failed")
    if rank.index(outcome) > rank.index(entry["outcome"]):
        entry["outcome"] = outcome
        if outcome == "known_bug":
            entry["reason"] = str(getattr(report, "wasxfail", ""))[:400]
        if outcome == "failed" and report.longrepr is not None:
            entry["error"] = _exception_name(str(report.longrepr))
    if report.when != "teardown":
        return  # every phase carries the test's properties so far; the last phase has them all, once
    for name, value in report.user_properties:
        if isinstance(name, str) and name.startswith(FIGURE_PREFIX) and isinstance(value, int):
            figures = entry["figures"]
            figures.setdefault(name.removeprefix(FIGURE_PREFIX), []).append(value)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    path = os.environ.get(OUT_ENV)
    if path:
        Path(path).write_text(
            json.dumps({"exitstatus": int(exitstatus), "tests": _results}), encoding="utf-8"
        )


def _exception_name(longrepr: str) -> str:
    """The exception class of a failure (``AssertionError`` for a failed check)."""
    for line in reversed(longrepr.splitlines()):
        match = re.match(r"^E\s+([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Expired))\b", line)
        if match:
            return match.group(1)
    return "AssertionError" if "assert" in longrepr else "unknown"


# --- the runner half ----------------------------------------------------------------------------------------


def ids_in_test_name(name: str) -> list[str]:
    """Catalogue ids named by a test function: ``test_A05_A06_x`` → [A5, A6] (``00`` is group-wide)."""
    rest = name.removeprefix("test_")
    out: list[str] = []
    while True:
        match = _ID.match(rest)
        if match is None:
            return out
        out.append(f"{match.group(1)}{int(match.group(2))}")
        rest = rest[match.end() + 1 :]


def group_of(case_id: str) -> str:
    return "FA" if case_id.startswith("FA") else case_id[0]


def _load_module(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def find_tests(explicit: str | None) -> Path | None:
    """``tests/reliability``: given, from ``$PROOFTEXT_TESTS``, this module's own folder, or under the cwd."""
    candidates = [Path(p) for p in (explicit, os.environ.get(TESTS_ENV)) if p]
    candidates += [Path(__file__).resolve().parent, Path.cwd() / "tests" / "reliability"]
    for path in candidates:
        if (path / "catalogue.py").is_file():
            return path.resolve()
    return None


def find_shared(tests: Path, explicit: str | None) -> Path | None:
    candidates = [Path(p) for p in (explicit, os.environ.get(SHARED_ENV)) if p]
    candidates.append(tests.parents[1].parent / "shared")
    for path in candidates:
        if (path / "vectors").is_dir():
            return path.resolve()
    return None


def run_suite(tests: Path, load: bool, extra: list[str]) -> dict[str, Any]:
    """Run pytest on the suite in a subprocess with this module as a plugin; its raw results."""
    targets = [str(tests)]
    vectors = tests.parent / "vectors"
    if vectors.is_dir():
        targets.append(str(vectors))
    with tempfile.TemporaryDirectory(prefix="prooftext-robustness-") as scratch:
        out = Path(scratch) / "results.json"
        argv = [sys.executable, "-m", "pytest", *targets, "-p", PLUGIN, "-q", "-rN"]
        argv += [] if load else ["-m", "not slow"]
        env = {**os.environ, OUT_ENV: str(out), "PYTHONHASHSEED": os.environ.get("PYTHONHASHSEED", "0")}
        # The plugin is imported before pytest reads its own pythonpath setting.
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(tests.parent), os.environ.get("PYTHONPATH")) if p)
        proc = subprocess.run(argv + extra, cwd=tests.parents[1], env=env, stdout=sys.stderr, check=False)
        if not out.is_file():
            raise RuntimeError(f"pytest did not run the suite (exit status {proc.returncode})")
        data: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return data


@dataclass
class _Case:
    outcomes: list[str] = field(default_factory=list)
    tests: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)

    @property
    def status(self) -> str:
        ran = [o for o in self.outcomes if o != "skipped"]
        if not ran:
            return "not_tried"
        return "passed" if all(o == "passed" for o in ran) else "failed"


_PARAM_CASE = re.compile(r"\[((?:FA|[A-HL])\d{2})[-\]]")


def case_ids(nodeid: str) -> list[str]:
    """The catalogue ids a test result counts for: a parameter id such as ``[A08-...]`` narrows a test
    named after several cases to the one its parameters exercise."""
    name = nodeid.split("::")[-1]
    named = ids_in_test_name(name.split("[", 1)[0])
    param = _PARAM_CASE.search(name)
    if param is not None:
        narrowed = f"{param.group(1)[:-2]}{int(param.group(1)[-2:])}"
        if narrowed in named:
            return [narrowed]
    return named


def _figures(results: dict[str, dict[str, Any]]) -> dict[str, list[int]]:
    merged: dict[str, list[int]] = defaultdict(list)
    for entry in results.values():
        for name, values in entry["figures"].items():
            merged[name].extend(values)
    return merged


def _tally(
    results: dict[str, dict[str, Any]], cases: dict[str, str]
) -> tuple[dict[str, _Case], dict[str, int], dict[str, dict[str, int]]]:
    """Each catalogue case's test outcomes, the outcome totals over all tests, and the outcomes per group."""
    by_case: dict[str, _Case] = defaultdict(_Case)
    totals: dict[str, int] = defaultdict(int)
    by_group_tests: dict[str, dict[str, int]] = {g: defaultdict(int) for g in GROUPS}
    for nodeid, entry in sorted(results.items()):
        totals[entry["outcome"]] += 1
        for case_id in case_ids(nodeid):
            group = group_of(case_id)
            if group in by_group_tests:
                by_group_tests[group][entry["outcome"]] += 1
            if case_id in cases:
                case = by_case[case_id]
                case.outcomes.append(entry["outcome"])
                case.tests.append(nodeid)
                if entry["reason"]:
                    case.reasons.append(entry["reason"])
    return by_case, totals, by_group_tests


@dataclass(frozen=True)
class _Catalogue:
    cases: dict[str, str]
    gaps: dict[str, str]
    benchmarks: dict[str, str]


def _groups(
    catalogue: _Catalogue,
    results: dict[str, dict[str, Any]],
    by_case: dict[str, _Case],
    by_group_tests: dict[str, dict[str, int]],
) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """The figures of each group, and each failed case with why it failed."""
    groups: dict[str, Any] = {}
    failed_cases: dict[str, list[str]] = {}
    for group in GROUPS:
        ids = [c for c in catalogue.cases if group_of(c) == group]
        statuses = {c: by_case[c].status if c in by_case else "not_tried" for c in ids}
        groups[group] = {
            "cases": len(ids),
            "cases_tried": sum(1 for s in statuses.values() if s != "not_tried"),
            "cases_passed": sum(1 for s in statuses.values() if s == "passed"),
            "cases_failed": sum(1 for s in statuses.values() if s == "failed"),
            "gaps": sorted(c for c in ids if c in catalogue.gaps),
            "benchmarks": sorted(c for c in ids if c in catalogue.benchmarks),
            "tests": dict(sorted(by_group_tests[group].items())),
        }
        for case_id, status in statuses.items():
            if status == "failed":
                failed_cases[case_id] = sorted(set(by_case[case_id].reasons)) or [
                    f"test failed: {t}" for t in by_case[case_id].tests if results[t]["outcome"] == "failed"
                ]
    return groups, failed_cases


def _add_figures(report: dict[str, Any], results: dict[str, dict[str, Any]], crashes: int) -> None:
    """The counted figures, determinism and load figures, summed over the tests that measured them."""
    figures = _figures(results)
    for name in COUNTED_FIGURES:
        # A figure no test measured (its tests were skipped or deselected) is null, never a reassuring 0.
        report[name] = sum(figures[name]) if name in figures else None
    report["unhandled_exceptions"] = (report["unhandled_exceptions"] or 0) + crashes
    distinct = figures.get("determinism_distinct", [])
    report["determinism"] = {
        "runs": sum(figures.get("determinism_runs", [])),
        "distinct_artifact_ids": max(distinct) if distinct else None,
    }
    report["load"] = {
        k.removeprefix("load_"): v[-1] for k, v in sorted(figures.items()) if k.startswith("load_")
    } or None


def summarize(
    raw: dict[str, Any], cases: dict[str, str], gaps: dict[str, str], benchmarks: dict[str, str]
) -> dict[str, Any]:
    """The report of RELIABILITY.md 3.4 from raw per-test results."""
    results: dict[str, dict[str, Any]] = raw["tests"]
    by_case, totals, by_group_tests = _tally(results, cases)
    groups, failed_cases = _groups(_Catalogue(cases, gaps, benchmarks), results, by_case, by_group_tests)
    unexpected = [t for t, e in results.items() if e["outcome"] == "failed"]
    crashes = sum(1 for t in unexpected if results[t]["error"] not in ("AssertionError", "unknown"))
    report: dict[str, Any] = {
        "schema": REPORT_SCHEMA,
        "groups": groups,
        "cases_tried": sum(g["cases_tried"] for g in groups.values()),
        "cases_passed": sum(g["cases_passed"] for g in groups.values()),
        "cases_failed": sum(g["cases_failed"] for g in groups.values()),
        "failed_cases": dict(
            sorted(failed_cases.items(), key=lambda kv: (group_of(kv[0]), int(kv[0].lstrip("ABCDEFGHL"))))
        ),
        "gaps": dict(sorted(gaps.items())),
        "tests": {k: totals.get(k, 0) for k in ("passed", "failed", "known_bug", "skipped")},
        "unexpected_test_failures": sorted(unexpected),
        "fixed_known_bugs": sorted(t for t, e in results.items() if e.get("fixed_known_bug")),
    }
    _add_figures(report, results, crashes)
    return report


# --- vector conformance ------------------------------------------------------------------------------------


def _blake3(vectors: Path) -> dict[str, Any]:
    from blake3 import blake3

    data = json.loads((vectors / "blake3" / "test_vectors.json").read_text(encoding="utf-8"))
    key = data["key"].encode()
    context = data["context_string"]
    passed = total = 0
    for case in data["cases"]:
        message = bytes(i % 251 for i in range(case["input_len"]))
        outputs = {
            "hash": blake3(message),
            "keyed_hash": blake3(message, key=key),
            "derive_key": blake3(message, derive_key_context=context),
        }
        for mode, hasher in outputs.items():
            total += 1
            expected = case[mode]
            passed += (
                hasher.hexdigest(length=len(expected) // 2) == expected
                and hasher.hexdigest() == expected[:64]
            )
    return {"passed": passed, "total": total}


def _jsontestsuite(vectors: Path) -> dict[str, Any]:
    import prooftext.canonical as canonical
    from prooftext.errors import CanonicalJSONError

    folder = vectors / "jsontestsuite" / "test_parsing"
    accepted: dict[str, int] = defaultdict(int)
    totals: dict[str, int] = defaultdict(int)
    policy: dict[str, int] = defaultdict(int)
    i_outcomes: dict[str, str] = {}
    for path in sorted(folder.glob("*.json")):
        kind = path.name[0]
        totals[kind] += 1
        try:
            canonical.load(path.read_bytes())
            outcome = "accept"
        except CanonicalJSONError as exc:
            outcome = exc.code
        accepted[kind] += outcome == "accept"
        if kind == "y" and outcome != "accept":
            policy[outcome] += 1
        if kind == "i":
            i_outcomes[path.name] = outcome
    pinned = hashlib.sha256(json.dumps(i_outcomes, sort_keys=True).encode()).hexdigest()[:16]
    return {
        "n_rejected": f"{totals['n'] - accepted['n']}/{totals['n']}",
        "y_accepted": f"{accepted['y']}/{totals['y']}",
        "y_rejected_by_policy": dict(sorted(policy.items())),
        "i_accepted": f"{accepted['i']}/{totals['i']}",
        "i_outcomes_sha256_16": pinned,
    }


def _jcs(vectors: Path) -> dict[str, Any]:
    import prooftext.canonical as canonical
    from prooftext.errors import CanonicalJSONError

    identical = rejected = escaped = 0
    names = sorted(p.stem for p in (vectors / "jcs" / "input").glob("*.json"))
    for name in names:
        expected = (vectors / "jcs" / "output" / f"{name}.json").read_bytes()
        try:
            ours = canonical.encode(canonical.load((vectors / "jcs" / "input" / f"{name}.json").read_bytes()))
        except CanonicalJSONError:
            rejected += 1
            continue
        if ours == expected:
            identical += 1
        elif ours == json.dumps(json.loads(expected), ensure_ascii=True, separators=(",", ":")).encode():
            escaped += 1
    return {
        "vectors": len(names),
        "byte_identical": identical,
        "identical_after_ascii_escaping": escaped,
        "floats_rejected_by_policy": rejected,
        "other_documented_differences": len(names) - identical - escaped - rejected,
        "note": "code-point key order and integers only, by design (DESIGN.md; tests/vectors/test_jcs.py)",
    }


def vector_conformance(shared: Path | None, raw: dict[str, Any]) -> dict[str, Any]:
    results: dict[str, dict[str, Any]] = raw["tests"]
    suites: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for nodeid, entry in results.items():
        if "/vectors/" in nodeid.replace("\\", "/"):
            suites[Path(nodeid.split("::")[0]).stem][entry["outcome"]] += 1
    out: dict[str, Any] = {"test_modules": {k: dict(v) for k, v in sorted(suites.items())}}
    if shared is None:
        out["absent"] = "../shared/vectors not found (set PROOFTEXT_SHARED)"
        return out
    vectors = shared / "vectors"
    out["blake3"] = _blake3(vectors)
    out["jcs"] = _jcs(vectors)
    out["jsontestsuite_canonical_loader"] = _jsontestsuite(vectors)
    return out


def _catalogue(tests: Path) -> ModuleType:
    return _load_module(tests / "catalogue.py", "prooftext_reliability_catalogue")


def _exit_status(report: dict[str, Any]) -> int:
    if report["unexpected_test_failures"]:
        return 1
    return 1 if any(report.get(name) for name in ZERO_TARGETS) else 0


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m reliability.robustness", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--tests", help="the tests/reliability folder (default: beside this checkout)")
    parser.add_argument(
        "--shared", help="the ../shared folder holding vectors/ (default: beside the checkout)"
    )
    parser.add_argument("--load", action="store_true", help="also run the slow load benchmarks (L1-L8)")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    args = parser.parse_args(list(argv) if argv is not None else None)
    tests = find_tests(args.tests)
    if tests is None:
        sys.stderr.write("robustness: tests/reliability not found (use --tests or $PROOFTEXT_TESTS)\n")
        return 2
    try:
        raw = run_suite(tests, args.load, list(args.pytest_args))
    except RuntimeError as exc:
        sys.stderr.write(f"robustness: {exc}\n")
        return 2
    catalogue = _catalogue(tests)
    report = summarize(raw, catalogue.CASES, catalogue.GAPS, catalogue.BENCHMARKS)
    report["vectors"] = vector_conformance(find_shared(tests, args.shared), raw)
    sys.stdout.write(json.dumps(report, indent=2, sort_keys=False) + "\n")
    sys.stdout.write(f"{report['cases_passed']} passed, {report['cases_failed']} failed\n")
    sys.stdout.flush()
    return _exit_status(report)


if __name__ == "__main__":
    sys.exit(main())
