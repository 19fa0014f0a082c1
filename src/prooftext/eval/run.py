"""The evaluation's one entry point: a run request in, an :class:`EvalReport` out.

``evaluate(SwebenchRun(...))``, ``evaluate(LocomoRun(...))`` and ``evaluate(DepthRun(...))`` check the request
(names, numbers, the declared quality bar) before anything runs, run the benchmark, and return its summary
with the tables and notes a terminal shows. Lists may be given as tuples or, as on the command line, as
comma-separated text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prooftext.errors import RequestError, UnknownNameError
from prooftext.eval.common import Progress, RunOptions, require_eval_extra
from prooftext.eval.declare import (
    Declaration,
    parse_ints,
    parse_list,
    require_declared,
    resolve_declaration,
)
from prooftext.eval.depth import DEFAULT_DEPTH_DECLARATION, DEPTH_METRICS, run_depth
from prooftext.eval.depth_report import depth_notes, depth_tables
from prooftext.eval.locomo import DEFAULT_BUDGETS, LOCOMO_ARMS, LocomoConfig
from prooftext.eval.locomo_run import DEFAULT_LOCOMO_DECLARATION, LOCOMO_METRICS, run_locomo
from prooftext.eval.locomo_run import terminal_notes as locomo_notes
from prooftext.eval.locomo_run import terminal_tables as locomo_tables
from prooftext.eval.model import ModelSettings
from prooftext.eval.model_summary import LOCOMO_MODEL_METRICS, SWE_MODEL_METRICS, model_tables
from prooftext.eval.swe_report import terminal_notes, terminal_tables
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
    reference_arm: str | None = None

    def resolve(
        self, default: Declaration, metrics: tuple[str, ...], model: ModelSettings | None = None
    ) -> Declaration:
        """The bar to judge by; with a model, every part must be declared (``declaration_required``)."""
        if model is not None:
            require_declared(
                self.file, self.metric, self.threshold, self.permitted_regression, self.reference_arm
            )
        return resolve_declaration(
            default,
            self.file,
            self.metric,
            self.threshold,
            self.permitted_regression,
            metrics,
            self.reference_arm,
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
    repos: Names = ()
    """Only the tasks of these repositories (``owner/name``); every repository when empty."""
    instances: Names = ()
    """Only the tasks with these instance ids; every task when empty. A repository or instance id that no
    task has is refused (``unknown_name``, field ``repo`` or ``instance``) before anything runs."""
    model: ModelSettings | None = None
    """A model in the loop: each arm's prompt within the budget is answered and scored (localization)."""


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
    model: ModelSettings | None = None
    """A model in the loop: each arm's prompt is answered and scored (the LoCoMo paper's F1)."""


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

    @property
    def all_failed(self) -> bool:
        """Every task failed (no arm packed, or with a model no arm was answered)."""
        return bool(self.summary.get("all_failed"))

    def tables(self) -> list[Table]:
        if self.benchmark == "swebench":
            return terminal_tables(self.summary) + model_tables(self.summary, self.benchmark)
        if self.benchmark == "locomo":
            return locomo_tables(self.summary) + model_tables(self.summary, self.benchmark)
        return depth_tables(self.summary)

    def notes(self) -> list[str]:
        if self.benchmark == "swebench":
            return terminal_notes(self.summary)
        if self.benchmark == "locomo":
            return locomo_notes(self.summary)
        return depth_notes(self.summary)


def _names(value: Names, allowed: tuple[str, ...], field: str) -> tuple[str, ...]:
    return parse_list(value if isinstance(value, str) else ",".join(value), allowed, field)


def _selection(value: Names) -> tuple[str, ...]:
    """Names as given (a tuple, or comma-separated text), blanks and repeats dropped, order kept."""
    parts = value.split(",") if isinstance(value, str) else [p for v in value for p in v.split(",")]
    return tuple(dict.fromkeys(p.strip() for p in parts if p.strip()))


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
    metrics = SWEBENCH_METRICS + (SWE_MODEL_METRICS if run.model is not None else ())
    if run.model is not None:
        run.model.check()
    declaration = run.bar.resolve(DEFAULT_SWEBENCH_DECLARATION, metrics, run.model)
    _check_reference(declaration, config.arms)
    return run_swebench(
        run.tasks,
        run.repo_map,
        config,
        declaration,
        options,
        progress,
        repos=_selection(run.repos),
        instances=_selection(run.instances),
        model=run.model,
    )


def _locomo(run: LocomoRun, options: RunOptions, progress: Progress | None) -> dict[str, Any]:
    config = LocomoConfig(
        work_dir=Path("."),
        budgets=_numbers(run.budgets, "budgets"),
        arms=_names(run.arms, LOCOMO_ARMS, "arms"),
        tokenizer=run.tokenizer,
        questions_per_conversation=run.questions,
        allow_truncated=run.allow_truncated,
    )
    metrics = LOCOMO_METRICS + (LOCOMO_MODEL_METRICS if run.model is not None else ())
    if run.model is not None:
        run.model.check()
    declaration = run.bar.resolve(DEFAULT_LOCOMO_DECLARATION, metrics, run.model)
    _check_reference(declaration, config.arm_keys())
    return run_locomo(run.data, config, declaration, options, progress, run.model)


def _check_reference(declaration: Declaration, arms: Sequence[str]) -> None:
    reference = declaration.reference_arm
    if reference is not None and reference not in arms:
        raise UnknownNameError(
            f"reference arm {reference!r} is not an arm of this run; its arms: {', '.join(arms)}",
            field="reference_arm",
        )
