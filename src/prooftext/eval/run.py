"""The evaluation's one entry point: a run request in, an :class:`EvalReport` out.

``evaluate(SwebenchRun(...))``, ``evaluate(LocomoRun(...))`` and ``evaluate(DepthRun(...))`` check the request
(names, numbers, the declared quality bar) before anything runs, run the benchmark, and return its summary
with the tables and notes a terminal shows. Lists may be given as tuples or, as on the command line, as
comma-separated text.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prooftext.errors import RequestError, UnknownNameError, whole_number
from prooftext.eval.arms import LOCOMO_ARMS, SWEBENCH_ARMS
from prooftext.eval.common import Progress, RunOptions, require_eval_extra
from prooftext.eval.declare import (
    Declaration,
    file_field,
    parse_ints,
    parse_list,
)
from prooftext.eval.depth import DEFAULT_DEPTH_DECLARATION, DEPTH_METRICS, plan_gates, run_depth
from prooftext.eval.depth_report import depth_notes, depth_tables
from prooftext.eval.locomo import LocomoConfig
from prooftext.eval.locomo_run import DEFAULT_LOCOMO_DECLARATION, LOCOMO_METRICS, run_locomo
from prooftext.eval.locomo_run import terminal_notes as locomo_notes
from prooftext.eval.locomo_run import terminal_tables as locomo_tables
from prooftext.eval.model_summary import LOCOMO_MODEL_METRICS, SWE_MODEL_METRICS, model_tables
from prooftext.eval.runs import (
    DepthRun,
    LocomoRun,
    Names,
    Numbers,
    QualityBar,
    Run,
    SwebenchRun,
    optional_path,
    required_path,
)
from prooftext.eval.swe_report import terminal_notes, terminal_tables
from prooftext.eval.swe_run import DEFAULT_SWEBENCH_DECLARATION, SWEBENCH_METRICS, run_swebench
from prooftext.eval.swebench import SweConfig
from prooftext.select.query import MAX_BYTES, MAX_TOKENS
from prooftext.tokens import BYTES_BASIS

if TYPE_CHECKING:
    from prooftext.eval.model import ModelSettings

ORACLE = "oracle"
"""The LoCoMo arm given the evidence turns: never the verdict's reference."""

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


def _texts(value: object, field: str) -> list[str]:
    """Names or numbers as text items: comma-separated text, or a tuple or list of them; any other value is
    an ``invalid_request`` naming ``field``."""
    if isinstance(value, str):
        return value.split(",")
    if isinstance(value, tuple | list) and all(
        isinstance(v, str) or (isinstance(v, int) and not isinstance(v, bool)) for v in value
    ):
        return [part for v in value for part in str(v).split(",")]
    raise RequestError(f"{field} must be comma-separated text or a tuple of items", field=field)


def _names(value: Names, allowed: tuple[str, ...], field: str) -> tuple[str, ...]:
    return parse_list(",".join(_texts(value, field)), allowed, field)


def _selection(value: Names, field: str, name: str) -> tuple[str, ...]:
    """Names as given (a tuple, or comma-separated text), repeats dropped, order kept. An empty item (``,``,
    ``a,,b``) is an ``invalid_request`` naming ``name`` (``repo`` or ``instance``): dropped, it could leave
    no name at all, and no name selects every task."""
    items = [part.strip() for part in _texts(value, field)]
    if "" in items:
        raise RequestError(f"{name} must be comma-separated names, with no empty item", field=name)
    return tuple(dict.fromkeys(items))


def _numbers(value: Numbers, field: str) -> tuple[int, ...]:
    return parse_ints(",".join(_texts(value, field)), field)


def _questions(value: object) -> int | None:
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise RequestError(
        "questions must be an integer (at most that many per conversation) or None", field="questions"
    )


def evaluate(run: Run, options: RunOptions | None = None, progress: Progress | None = None) -> EvalReport:
    """Check ``run``, run it under ``options`` (output and work directories, workers, executor, limit), and
    report. ``progress(done, total)`` is called as units finish."""
    require_eval_extra()
    if not isinstance(run, (SwebenchRun, LocomoRun, DepthRun)):
        raise RequestError("run must be a SwebenchRun, LocomoRun or DepthRun", field="run")
    if options is not None and not isinstance(options, RunOptions):
        raise RequestError("options must be a RunOptions, or None for the defaults", field="options")
    options = options or RunOptions()
    if isinstance(run, SwebenchRun):
        return EvalReport("swebench", _swebench(run, options, progress))
    if isinstance(run, LocomoRun):
        return EvalReport("locomo", _locomo(run, options, progress))
    return EvalReport("depth", _depth(run, options, progress))


def _depth(run: DepthRun, options: RunOptions, progress: Progress | None) -> dict[str, Any]:
    declaration = run.bar.resolve(DEFAULT_DEPTH_DECLARATION, DEPTH_METRICS)
    _threshold_alone(declaration, run.bar)
    clinc, locomo = required_path(run.clinc, "clinc"), optional_path(run.locomo, "locomo")
    tasks, repo_map = optional_path(run.swebench, "swebench"), optional_path(run.repo_map, "repo_map")
    if (tasks is None) != (repo_map is None):
        raise RequestError(
            "the retrieval gate needs both the SWE-bench tasks and their repo map", field="repo_map"
        )
    if tasks is None or repo_map is None:
        return run_depth(clinc, locomo, declaration, options, progress)
    with tempfile.TemporaryDirectory(prefix="prooftext-depth-") as scratch:
        work = options.work_root(scratch)
        gates = plan_gates(tasks, repo_map, work.resolve())
        return run_depth(clinc, locomo, declaration, options, progress, swebench=gates)


def _threshold_alone(declaration: Declaration, bar: QualityBar) -> None:
    """``eval depth`` checks its threshold alone: it has no reference arm, so a declared reference or
    permitted regression would be recorded and never checked; either is refused, naming the file that gave
    it."""
    declared = {
        "reference_arm": (declaration.reference_arm, bar.reference_arm),
        "permitted_regression": (declaration.permitted_regression, bar.permitted_regression),
    }
    for key, (value, flag) in declared.items():
        if value is not None:
            where = file_field(optional_path(bar.file), flag, key)
            prefix, details = where or ("", {"field": key})
            raise RequestError(
                f"{prefix}eval depth checks its threshold alone (no arm is a reference), so it takes no"
                f" {key.replace('_', ' ')}",
                **details,
            )


def _check_budgets(budgets: Sequence[object], tokenizer: str, field: str) -> None:
    """Each budget a whole number from 1 up to the packet's ceiling in the tokenizer's basis: a budget the
    packed arms could not be given is refused before any work, not in every row."""
    ceiling, unit = (MAX_BYTES, " bytes") if tokenizer == BYTES_BASIS else (MAX_TOKENS, "")
    for budget in budgets:
        whole_number(field, budget, 1, ceiling, unit)


def _swebench(run: SwebenchRun, options: RunOptions, progress: Progress | None) -> dict[str, Any]:
    _check_budgets([run.budget], run.tokenizer, "budget")
    config = SweConfig(
        work_dir=Path("."),
        arms=_names(run.arms, SWEBENCH_ARMS, "arms"),
        budget=run.budget,
        tokenizer=run.tokenizer,
    )
    declaration = _declared(
        run.bar, run.model, DEFAULT_SWEBENCH_DECLARATION, SWEBENCH_METRICS, SWE_MODEL_METRICS
    )
    _check_reference(declaration, config.arms, run.bar)
    return run_swebench(
        required_path(run.tasks, "tasks"),
        required_path(run.repo_map, "repo_map"),
        config,
        declaration,
        options,
        progress,
        repos=_selection(run.repos, "repos", "repo"),
        instances=_selection(run.instances, "instances", "instance"),
        model=run.model,
    )


def _locomo(run: LocomoRun, options: RunOptions, progress: Progress | None) -> dict[str, Any]:
    budgets = _numbers(run.budgets, "budgets")
    _check_budgets(budgets, run.tokenizer, "budgets")
    config = LocomoConfig(
        work_dir=Path("."),
        budgets=budgets,
        arms=_names(run.arms, LOCOMO_ARMS, "arms"),
        tokenizer=run.tokenizer,
        questions_per_conversation=_questions(run.questions),
        allow_truncated=run.allow_truncated,
    )
    declaration = _declared(
        run.bar, run.model, DEFAULT_LOCOMO_DECLARATION, LOCOMO_METRICS, LOCOMO_MODEL_METRICS
    )
    _check_reference(declaration, config.arm_keys(), run.bar)
    if declaration.reference_arm == ORACLE:
        where = file_field(optional_path(run.bar.file), run.bar.reference_arm, "reference_arm")
        prefix, details = where or ("", {"field": "reference_arm"})
        raise RequestError(
            f"{prefix}the oracle is given the evidence, so it cannot be the reference; declare another arm",
            **details,
        )
    return run_locomo(required_path(run.data, "data"), config, declaration, options, progress, run.model)


def _declared(
    bar: QualityBar,
    model: ModelSettings | None,
    default: Declaration,
    metrics: tuple[str, ...],
    model_metrics: tuple[str, ...],
) -> Declaration:
    """The run's bar under its metrics (the model's too, with a model, whose declaration is checked first)."""
    if model is not None:
        model.check()
    return bar.resolve(default, metrics + (model_metrics if model is not None else ()), model)


def _check_reference(declaration: Declaration, arms: Sequence[str], bar: QualityBar) -> None:
    """The declared reference is an arm of the run; an error names the declaration file when it gave it."""
    reference = declaration.reference_arm
    if reference is not None and reference not in arms:
        where = file_field(optional_path(bar.file), bar.reference_arm, "reference_arm")
        prefix, details = where or ("", {"field": "reference_arm"})
        raise UnknownNameError(
            f"{prefix}reference arm {reference!r} is not an arm of this run; its arms: {', '.join(arms)}",
            **details,
        )
