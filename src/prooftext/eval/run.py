"""The evaluation's one entry point: a run request in, an :class:`EvalReport` out.

``evaluate(SwebenchRun(...))``, ``evaluate(LocomoRun(...))`` and ``evaluate(DepthRun(...))`` check the request
(names, numbers, the declared quality bar) before anything runs, run the benchmark, and return its summary
with the tables and notes a terminal shows. Lists may be given as tuples or, as on the command line, as
comma-separated text.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prooftext.errors import RequestError
from prooftext.eval.common import Progress, RunOptions, require_eval_extra
from prooftext.eval.declare import Declaration, parse_ints, parse_list, resolve_declaration
from prooftext.eval.depth import DEFAULT_DEPTH_DECLARATION, DEPTH_METRICS, run_depth
from prooftext.eval.html import pct
from prooftext.eval.locomo import DEFAULT_BUDGETS, LOCOMO_ARMS, LocomoConfig
from prooftext.eval.locomo_run import (
    DEFAULT_LOCOMO_DECLARATION,
    LOCOMO_HEADERS,
    LOCOMO_METRICS,
    category_rows,
    locomo_rows,
    run_locomo,
)
from prooftext.eval.swe_report import SUMMARY_HEADERS, summary_rows
from prooftext.eval.swe_run import DEFAULT_SWEBENCH_DECLARATION, SWEBENCH_METRICS, run_swebench
from prooftext.eval.swebench import ARMS, DEFAULT_BUDGET, SweConfig
from prooftext.tokens import DEFAULT_TOKENIZER

Names = str | tuple[str, ...]
"""Names as a tuple, or as comma-separated text."""
Numbers = str | tuple[int, ...]
"""Positive integers as a tuple, or as comma-separated text."""


@dataclass(frozen=True)
class QualityBar:
    """The declared quality bar, as the caller gives it: a declaration file, and/or fields that replace the
    file's (or the benchmark's default) one by one. What was declared, and from where, is recorded."""

    file: Path | None = None
    metric: str | None = None
    threshold: float | None = None
    permitted_regression: float | None = None

    def resolve(self, default: Declaration, metrics: tuple[str, ...]) -> Declaration:
        return resolve_declaration(
            default, self.file, self.metric, self.threshold, self.permitted_regression, metrics
        )


@dataclass(frozen=True)
class SwebenchRun:
    """SWE-bench tasks, each at its base commit: full context vs BM25 vs fixed vs adaptive packets."""

    tasks: Path
    repo_map: Path
    arms: Names = ARMS
    budget: int = DEFAULT_BUDGET
    tokenizer: str = DEFAULT_TOKENIZER
    bar: QualityBar = QualityBar()


@dataclass(frozen=True)
class LocomoRun:
    """LoCoMo: evidence-turn recall against prompt tokens, per arm and budget."""

    data: Path
    budgets: Numbers = DEFAULT_BUDGETS
    arms: Names = LOCOMO_ARMS
    tokenizer: str = DEFAULT_TOKENIZER
    questions: int | None = None
    """At most this many questions per conversation (evenly spaced); all when None."""
    allow_truncated: bool = False
    bar: QualityBar = QualityBar()


@dataclass(frozen=True)
class DepthRun:
    """Depth tiers: surface precision and recall on CLINC150, and LoCoMo questions wrongly called surface."""

    clinc: Path
    locomo: Path | None = None
    bar: QualityBar = QualityBar()


Run = SwebenchRun | LocomoRun | DepthRun
Table = tuple[str, list[str], list[list[str]]]
"""A table a terminal shows: its title, its column headers and its rows of cells."""


@dataclass(frozen=True)
class EvalReport:
    """A finished run: its summary (also written under ``RunOptions.out_dir``), tables and notes."""

    benchmark: str
    summary: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return self.summary

    def tables(self) -> list[Table]:
        if self.benchmark == "swebench":
            return _swebench_tables(self.summary)
        if self.benchmark == "locomo":
            headers, rows = category_rows(self.summary["arms"])
            return [
                (
                    f"LoCoMo, {self.summary['questions']} questions",
                    LOCOMO_HEADERS,
                    locomo_rows(self.summary["arms"]),
                ),
                ("evidence recall per category", headers, rows),
            ]
        return []

    def notes(self) -> list[str]:
        if self.benchmark == "swebench":
            return _swebench_notes(self.summary)
        if self.benchmark == "locomo":
            return [
                f"evidence ids: {self.summary['evidence_normalization']}",
                f"wall time {self.summary['wall_s']} s",
            ]
        return _depth_notes(self.summary)


def _names(value: Names, allowed: tuple[str, ...], field: str) -> tuple[str, ...]:
    return parse_list(value if isinstance(value, str) else ",".join(value), allowed, field)


def _numbers(value: Numbers, field: str) -> tuple[int, ...]:
    return parse_ints(value if isinstance(value, str) else ",".join(str(v) for v in value), field)


def evaluate(run: Run, options: RunOptions | None = None, progress: Progress | None = None) -> EvalReport:
    """Check ``run``, run it under ``options`` (output and work directories, workers, executor, limit), and
    report. ``progress(done, total)`` is called as units finish."""
    require_eval_extra()
    options = options or RunOptions()
    if isinstance(run, SwebenchRun):
        return EvalReport("swebench", _swebench(run, options, progress))
    if isinstance(run, LocomoRun):
        return EvalReport("locomo", _locomo(run, options, progress))
    declaration = run.bar.resolve(DEFAULT_DEPTH_DECLARATION, DEPTH_METRICS)
    return EvalReport("depth", run_depth(run.clinc, run.locomo, declaration, options, progress))


def _swebench(run: SwebenchRun, options: RunOptions, progress: Progress | None) -> dict[str, Any]:
    if isinstance(run.budget, bool) or not isinstance(run.budget, int) or run.budget < 1:
        raise RequestError("budget must be a positive integer", field="budget")
    config = SweConfig(
        work_dir=Path("."), arms=_names(run.arms, ARMS, "arms"), budget=run.budget, tokenizer=run.tokenizer
    )
    declaration = run.bar.resolve(DEFAULT_SWEBENCH_DECLARATION, SWEBENCH_METRICS)
    return run_swebench(run.tasks, run.repo_map, config, declaration, options, progress)


def _locomo(run: LocomoRun, options: RunOptions, progress: Progress | None) -> dict[str, Any]:
    config = LocomoConfig(
        work_dir=Path("."),
        budgets=_numbers(run.budgets, "budgets"),
        arms=_names(run.arms, LOCOMO_ARMS, "arms"),
        tokenizer=run.tokenizer,
        questions_per_conversation=run.questions,
        allow_truncated=run.allow_truncated,
    )
    declaration = run.bar.resolve(DEFAULT_LOCOMO_DECLARATION, LOCOMO_METRICS)
    return run_locomo(run.data, config, declaration, options, progress)


def _swebench_tables(summary: Mapping[str, Any]) -> list[Table]:
    tables: list[Table] = [
        (f"SWE-bench, {summary['tasks']} tasks", SUMMARY_HEADERS, summary_rows(summary["arms"]))
    ]
    tables.extend((repo, SUMMARY_HEADERS, summary_rows(arms)) for repo, arms in summary["by_repo"].items())
    return tables


def _swebench_notes(summary: Mapping[str, Any]) -> list[str]:
    notes = []
    adaptive = summary["arms"].get("adaptive", {})
    if adaptive.get("stop_reasons"):
        notes.append(f"adaptive stop reasons: {adaptive['stop_reasons']}")
        notes.append(f"adaptive selected rounds: {adaptive['selected_rounds']}")
    notes.extend(f"verdict {arm}: {v}" for arm, v in summary["verdict"].items())
    notes.append(f"wall time {summary['wall_s']} s")
    return notes


def _depth_notes(summary: Mapping[str, Any]) -> list[str]:
    c = summary["clinc"]
    notes = [
        f"CLINC150 test: {c['utterances']} utterances, {c['gold_surface']} surface, {c['predicted_surface']}"
        f" predicted surface; precision {pct(c['surface_precision'])}%, recall {pct(c['surface_recall'])}%",
        f"surface recall by intent: { {k: pct(v) for k, v in c['surface_recall_by_intent'].items()} }",
        f"CLINC150 oos_test classified surface: {summary['clinc_oos']['false_surface_count']}",
    ]
    if "locomo" in summary:
        lo = summary["locomo"]
        notes.append(
            f"LoCoMo: {lo['surface_count']} of {lo['questions']} questions classified surface; tiers {lo['tiers']}"
        )
    notes.append(f"verdict: {summary['verdict']}")
    return notes
