"""What a run declares before it evaluates anything (SACP §9), and the verdict it earns afterwards.

Every run records a quality threshold and a permitted regression from full context — declared in a JSON
file, by flags, or by the benchmark's defaults below (the record says which) — together with the dataset
sha256, the tokenizer, the arm parameters and the code version. The declaration is written to the output
directory before the first task runs, and the summary checks each arm against it.

A declaration file is one JSON object::

    {"metric": "gold_file_recall", "threshold": 0.6, "permitted_regression": 0.4}

with, optionally, ``"reference_arm"``: the arm the regression is measured from. Without
``"permitted_regression"`` (or with null) only the threshold is checked, as ``eval depth``'s own bar does. A
run with a model in the
loop has no default bar: its metric, threshold, permitted regression and reference arm must all be declared
(by file or flags), or it is refused (``declaration_required``) before anything runs.
"""

from __future__ import annotations

import hashlib
import math
import os
import platform
import subprocess
import time
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import prooftext._version
from prooftext.errors import (
    ArtifactError,
    ConfigError,
    DeclarationRequiredError,
    RangeError,
    RequestError,
    UnknownNameError,
)
from prooftext.eval.dataio import load_json

SHA256_CHUNK = 1 << 20
GIT_TIMEOUT_S = 10
SOURCE_DEFAULT = "default"
SOURCE_FILE = "file"
SOURCE_FLAGS = "flags"

_DECLARATION_KEYS = frozenset({"metric", "threshold"})
_OPTIONAL_KEYS = frozenset({"permitted_regression", "reference_arm"})
"""A bar without a permitted regression checks the threshold alone (as ``eval depth``'s default does); a run
with a model must still declare one, by file or flag."""


@dataclass(frozen=True)
class Declaration:
    """The quality bar an arm must meet: ``metric >= threshold`` and ``reference - metric <= regression``.

    ``metric`` names a key of an arm's summary; the reference is the full-context arm (when the benchmark
    has one). Higher is better for every declared metric.
    """

    metric: str
    threshold: float
    permitted_regression: float | None
    source: str = SOURCE_DEFAULT
    reference_arm: str | None = None
    """The declared reference arm; None: the benchmark's rule chooses one."""

    def to_dict(self) -> dict[str, Any]:
        out = {
            "metric": self.metric,
            "threshold": self.threshold,
            "permitted_regression": self.permitted_regression,
            "source": self.source,
        }
        if self.reference_arm is not None:
            out["reference_arm"] = self.reference_arm
        return out


def _number(value: object, name: str) -> float:
    # Not NaN or an infinity (``1e999`` parses as one): the declaration is copied into JSON outputs, which
    # have no such numbers, and every comparison with NaN is false.
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ConfigError(f"declaration field {name} must be a finite number", field=name)
    return float(value)


def _flag(value: float | None, name: str) -> float | None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
        raise RequestError(f"--{name.replace('_', '-')} must be a number", field=name)
    if value is not None and not math.isfinite(value):
        raise RangeError(f"--{name.replace('_', '-')} must be a finite number, not {value}", field=name)
    return value


DECLARATION_INPUT = "declaration"
"""``details.input`` of an error about a field of a declaration file (no command-line option names it)."""


def load_declaration(path: Path) -> Declaration:
    """Read a declaration file (see the module docstring): a metric and a threshold, and optionally a
    permitted regression and a reference arm. An error names the file and, when it is one field's, that
    field."""
    data = load_json(path, "declaration", ConfigError)
    try:
        return _declaration(data)
    except ConfigError as exc:
        details = {**exc.details, "path": str(path), "input": DECLARATION_INPUT}
        raise ConfigError(f"{path}: {exc.message}", **details) from None


def _keys_problem(data: dict[str, Any]) -> tuple[str, str] | None:
    """The first missing or unknown key of a declaration object, as (field, message), or None."""
    missing = sorted(_DECLARATION_KEYS - set(data))
    if missing:
        return missing[0], f"missing {', '.join(missing)}"
    unknown = sorted(set(data) - _DECLARATION_KEYS - _OPTIONAL_KEYS)
    if unknown:
        return unknown[0], f"unknown field {', '.join(k[:80] for k in unknown[:5])}"
    return None


def _declaration(data: object) -> Declaration:
    shape = (
        f"a declaration is an object with exactly {sorted(_DECLARATION_KEYS)}"
        f" and optionally {sorted(_OPTIONAL_KEYS)}"
    )
    if not isinstance(data, dict):
        raise ConfigError(shape)
    problem = _keys_problem(data)
    if problem is not None:
        raise ConfigError(f"{problem[1]}; {shape}", field=problem[0])
    reference = data.get("reference_arm")
    if reference is not None and (not isinstance(reference, str) or not reference):
        raise ConfigError("declaration field reference_arm must be a non-empty string", field="reference_arm")
    metric = data["metric"]
    if not isinstance(metric, str) or not metric:
        raise ConfigError("declaration field metric must be a non-empty string", field="metric")
    regression = data.get("permitted_regression")
    return Declaration(
        metric,
        _number(data["threshold"], "threshold"),
        None if regression is None else _number(regression, "permitted_regression"),
        SOURCE_FILE,
        reference,
    )


def file_field(path: Path | None, flag: object, key: str) -> tuple[str, dict[str, Any]] | None:
    """Where a declared value came from when a declaration file gave it (no flag replaced it): the message
    prefix naming the file and field, and the error details; None when a flag or a default gave it."""
    if path is None or flag is not None:
        return None
    return f"{path}: declaration field {key}: ", {"field": key, "path": str(path), "input": DECLARATION_INPUT}


def _flagged_source(path: Path | None, every_flag: bool) -> str:
    """Where a bar given partly or wholly by flags came from: ``flags`` when the flags give the metric, the
    threshold and the regression, else what the flags were laid over (``default+flags``, ``file+flags``)."""
    if path is not None:
        return f"{SOURCE_FILE}+{SOURCE_FLAGS}"
    return SOURCE_FLAGS if every_flag else f"{SOURCE_DEFAULT}+{SOURCE_FLAGS}"


def resolve_declaration(
    default: Declaration,
    path: Path | None = None,
    metric: str | None = None,
    threshold: float | None = None,
    regression: float | None = None,
    metrics: Collection[str] = (),
    reference_arm: str | None = None,
) -> Declaration:
    """The benchmark's default, replaced by a file, then by any flag given. ``metrics``, when given, are
    the names the benchmark's summary scores (higher is better): any other metric is refused before a run
    that could only end in a verdict saying it is undefined."""
    threshold = _flag(threshold, "quality_threshold")
    regression = _flag(regression, "permitted_regression")
    base = load_declaration(path) if path is not None else default
    if metric is None and threshold is None and regression is None and reference_arm is None:
        resolved = base
    else:
        resolved = Declaration(
            metric if metric is not None else base.metric,
            threshold if threshold is not None else base.threshold,
            regression if regression is not None else base.permitted_regression,
            _flagged_source(path, None not in (metric, threshold, regression)),
            reference_arm if reference_arm is not None else base.reference_arm,
        )
    if metrics and resolved.metric not in metrics:
        prefix, details = file_field(path, metric, "metric") or ("", {"field": "quality_metric"})
        raise UnknownNameError(
            f"{prefix}quality metric {resolved.metric!r} is not scored by this benchmark;"
            f" known: {', '.join(metrics)}",
            **details,
        )
    if metrics:  # every score a benchmark declares is a share: a bar outside 0..1 is never met, or always
        where = file_field(path, threshold, "threshold") or ("", {"field": "quality_threshold"})
        _share(resolved.threshold, "threshold", where)
        where = file_field(path, regression, "permitted_regression") or (
            "",
            {"field": "permitted_regression"},
        )
        _share(resolved.permitted_regression, "permitted regression", where)
    return resolved


def _share(value: float | None, name: str, where: tuple[str, dict[str, Any]]) -> None:
    if value is not None and not 0.0 <= value <= 1.0:
        raise RangeError(
            f"{where[0]}the declared {name} is a share from 0 to 1 (0.5 means 50%), not {value:g}", **where[1]
        )


def verdict(
    declaration: Declaration, arms: Mapping[str, Mapping[str, Any]], reference: str | None
) -> dict[str, Any]:
    """Per arm: the declared metric's value, its regression from the reference arm, and pass/fail."""
    ref_value = arms.get(reference, {}).get(declaration.metric) if reference else None
    out: dict[str, Any] = {}
    for name, summary in arms.items():
        value = summary.get(declaration.metric)
        if name == reference:
            continue
        if not isinstance(value, int | float):
            out[name] = {"value": None, "passes": False, "note": f"{declaration.metric} is undefined"}
            continue
        regression = ref_value - value if isinstance(ref_value, int | float) else None
        meets = value >= declaration.threshold
        within = (
            None
            if regression is None or declaration.permitted_regression is None
            else regression <= declaration.permitted_regression
        )
        out[name] = {
            "value": value,
            "reference_value": ref_value,
            "regression": regression,
            "meets_threshold": meets,
            "within_regression": within,
            "passes": meets and within is not False,
        }
    return out


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(SHA256_CHUNK):
                digest.update(chunk)
    except OSError as exc:
        raise ArtifactError(f"cannot read dataset {path}: {exc.strerror}") from None
    return digest.hexdigest()


def _git(args: list[str], cwd: Path) -> str | None:
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0"}  # never write the checkout's index
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=GIT_TIMEOUT_S
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def code_version() -> dict[str, Any]:
    """The package version and, when it runs from a git checkout, that checkout's HEAD and dirtiness."""
    source = Path(prooftext._version.__file__).resolve().parent
    head = _git(["rev-parse", "HEAD"], source)
    status = _git(["status", "--porcelain", "--untracked-files=no"], source) if head else None
    return {
        "prooftext": prooftext._version.__version__,
        "git_head": head,
        "git_dirty": None if status is None else bool(status),
        "python": platform.python_version(),
    }


def manifest(
    benchmark: str,
    datasets: Mapping[str, Path],
    declaration: Declaration,
    tokenizer: str,
    arms: Mapping[str, Mapping[str, Any]],
) -> dict[str, Any]:
    """The record written before a run starts: what is evaluated, how, and the declared bar."""
    return {
        "benchmark": benchmark,
        "declared_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "declaration": declaration.to_dict(),
        "datasets": {
            name: {"path": str(path), "sha256": sha256_file(path)} for name, path in sorted(datasets.items())
        },
        "tokenizer": tokenizer,
        "arms": {name: dict(params) for name, params in arms.items()},
        "code": code_version(),
        "cpus": os.cpu_count(),
    }


def parse_list(text: str, allowed: tuple[str, ...], field: str) -> tuple[str, ...]:
    """A comma-separated list of names from ``allowed``, in the given order, without repeats."""
    names = tuple(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    unknown = [n for n in names if n not in allowed]
    if unknown or not names:
        said = f"; unknown: {', '.join(unknown)}" if unknown else ""
        raise RequestError(
            f"{field} must be a comma-separated subset of {', '.join(allowed)}{said}", field=field
        )
    return names


def parse_ints(text: str, field: str) -> tuple[int, ...]:
    """A comma-separated list of positive integers: an empty item is refused, not dropped, and a number
    below 1 is out of range."""
    try:
        values = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise RequestError(
            f"{field} must be comma-separated integers, with no empty item", field=field
        ) from None
    for value in values:
        if value <= 0:
            raise RangeError(f"{field} must each be at least 1, got {value}", field=field)
    return values


def require_declared(
    path: Path | None,
    metric: str | None,
    threshold: float | None,
    regression: float | None,
    reference_arm: str | None,
) -> None:
    """With a model in the loop every part of the bar must be declared, by file or by flag: a run that
    would fall back on a default is refused before it starts."""
    declared = load_declaration(path) if path is not None else None
    missing = []
    if metric is None and declared is None:
        missing.append("metric (--quality-metric)")
    if threshold is None and declared is None:
        missing.append("threshold (--quality-threshold)")
    if regression is None and (declared is None or declared.permitted_regression is None):
        missing.append("permitted regression (--permitted-regression)")
    if reference_arm is None and (declared is None or declared.reference_arm is None):
        missing.append("reference arm (--reference-arm)")
    if missing:
        raise DeclarationRequiredError(
            "a run with a model must declare its quality bar before it starts; missing: "
            + ", ".join(missing)
            + ' (flags, or --declare FILE with {"metric", "threshold", "permitted_regression",'
            ' "reference_arm"})',
            field="declare",
            missing=[m.split(" (")[0] for m in missing],
        )
