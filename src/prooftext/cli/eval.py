"""``prooftext eval swebench|locomo|depth``: run an evaluation, write its report, print its summary.

Adapters only: flags become a configuration and a declaration, the harness in :mod:`prooftext.eval` runs,
and the summary is printed (``--json``: the whole summary as one JSON object).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from prooftext.cli.common import app, echo, emit_json
from prooftext.errors import RequestError
from prooftext.eval.common import RunOptions
from prooftext.eval.declare import Declaration, parse_ints, parse_list, resolve_declaration
from prooftext.eval.depth import DEFAULT_DEPTH_DECLARATION, DEPTH_METRICS, run_depth
from prooftext.eval.executor import EXECUTOR_PROCESS, EXECUTORS
from prooftext.eval.html import num, pct
from prooftext.eval.locomo import DEFAULT_BUDGETS, LOCOMO_ARMS, LocomoConfig
from prooftext.eval.locomo_run import (
    DEFAULT_LOCOMO_DECLARATION,
    LOCOMO_METRICS,
    category_rows,
    locomo_rows,
    run_locomo,
)
from prooftext.eval.metrics import ACC_KS
from prooftext.eval.swe_run import DEFAULT_SWEBENCH_DECLARATION, SWEBENCH_METRICS, run_swebench
from prooftext.eval.swebench import ARMS, DEFAULT_BUDGET, SweConfig
from prooftext.tokens import DEFAULT_TOKENIZER

WIDE_CONSOLE = 160
"""Columns of a table printed to a file or pipe (a terminal uses its own width)."""

eval_app = typer.Typer(
    help="Evaluate context compilation: SWE-bench, LoCoMo and depth tiers.", no_args_is_help=True
)
app.add_typer(eval_app, name="eval")

JsonOpt = Annotated[bool, typer.Option("--json", help="Print the summary as one JSON object.")]
ExecutorOpt = Annotated[str, typer.Option("--executor", help="process or dask.")]
SchedulerOpt = Annotated[str | None, typer.Option("--scheduler", help="Dask scheduler address.")]
# readable=False on every path: the project opens it and reports a failure by code (exit 1); click's own
# check would call an unreadable path a usage error (exit 64).
OutOpt = Annotated[
    Path | None,
    typer.Option("--out", help="Directory for declaration, rows, summary and report.html.", readable=False),
]
TokenizerOpt = Annotated[str, typer.Option("--tokenizer", help="Token counting basis.")]
DeclareOpt = Annotated[
    Path | None,
    typer.Option(
        "--declare",
        help='JSON {"metric", "threshold", "permitted_regression"} declared up front.',
        readable=False,
    ),
]
MetricOpt = Annotated[str | None, typer.Option("--quality-metric", help="Declared quality metric.")]
ThresholdOpt = Annotated[float | None, typer.Option("--quality-threshold", help="Declared threshold.")]
RegressionOpt = Annotated[
    float | None, typer.Option("--permitted-regression", help="Declared regression from full context.")
]


@contextmanager
def progress_bar(enabled: bool, label: str) -> Iterator[Callable[[int, int], None] | None]:
    """A rich progress bar on an interactive terminal; nothing otherwise."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    columns = (TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True)) as bar:
        task = bar.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def _declaration(
    default: Declaration,
    path: Path | None,
    metric: str | None,
    threshold: float | None,
    regression: float | None,
    metrics: tuple[str, ...],
) -> Declaration:
    return resolve_declaration(default, path, metric, threshold, regression, metrics)


def _print_table(title: str, headers: list[str], rows: list[list[str]]) -> None:
    table = Table(title=title)
    table.add_column(headers[0], justify="left", no_wrap=True)
    for header in headers[1:]:
        table.add_column(header, justify="right")
    for row in rows:
        table.add_row(*row)
    Console(width=None if sys.stdout.isatty() else WIDE_CONSOLE).print(table)


def _swe_rows(arms: dict[str, Any]) -> list[list[str]]:
    return [
        [
            arm,
            str(s["tasks"]),
            str(s["failures"]),
            *[pct(s.get(f"acc@{k}")) for k in ACC_KS],
            pct(s.get("gold_file_recall")),
            pct(s.get("gold_line_recall")),
            num(s.get("prompt_tokens_mean")),
            num(s.get("prompt_tokens_median")),
            num(s.get("latency_ms_p50")),
            num(s.get("latency_ms_p95")),
        ]
        for arm, s in arms.items()
    ]


SWE_HEADERS = [
    "arm",
    "tasks",
    "fail",
    *[f"Acc@{k}" for k in ACC_KS],
    "file rec",
    "line rec",
    "tok mean",
    "tok med",
    "p50 ms",
    "p95 ms",
]


def _print_swebench(summary: dict[str, Any]) -> None:
    _print_table(f"SWE-bench, {summary['tasks']} tasks", SWE_HEADERS, _swe_rows(summary["arms"]))
    for repo, arms in summary["by_repo"].items():
        _print_table(repo, SWE_HEADERS, _swe_rows(arms))
    adaptive = summary["arms"].get("adaptive", {})
    if adaptive.get("stop_reasons"):
        echo(f"adaptive stop reasons: {adaptive['stop_reasons']}")
        echo(f"adaptive selected rounds: {adaptive['selected_rounds']}")
    for arm, v in summary["verdict"].items():
        echo(f"verdict {arm}: {v}")
    echo(f"wall time {summary['wall_s']} s")


def _check_executor(executor: str) -> None:
    if executor not in EXECUTORS:
        raise RequestError(f"--executor must be one of {', '.join(EXECUTORS)}", field="executor")


@eval_app.command("swebench")
def swebench_command(
    tasks: Annotated[Path, typer.Option("--tasks", help="SWE-bench tasks, JSONL.", readable=False)],
    repo_map: Annotated[
        Path, typer.Option("--repo-map", help='JSON {"owner/name": "git dir or clone"}.', readable=False)
    ],
    arms: Annotated[str, typer.Option("--arms", help="Comma-separated arms.")] = ",".join(ARMS),
    budget: Annotated[
        int, typer.Option("--budget", help="Token budget of the packed arms.")
    ] = DEFAULT_BUDGET,
    workers: Annotated[int, typer.Option("--workers", help="Parallel shards (process pool).")] = 1,
    executor: ExecutorOpt = EXECUTOR_PROCESS,
    scheduler: SchedulerOpt = None,
    out: OutOpt = None,
    work: Annotated[
        Path | None,
        typer.Option(
            "--work", help="Work trees and indexes (default OUT/work or a temp dir).", readable=False
        ),
    ] = None,
    limit: Annotated[int | None, typer.Option("--limit", help="Only the first N tasks.")] = None,
    tokenizer: TokenizerOpt = DEFAULT_TOKENIZER,
    declare: DeclareOpt = None,
    quality_metric: MetricOpt = None,
    quality_threshold: ThresholdOpt = None,
    permitted_regression: RegressionOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Full context vs BM25 vs fixed vs adaptive packets on SWE-bench tasks, each at its base commit."""
    _check_executor(executor)
    if budget < 1:
        raise RequestError("--budget must be positive", field="budget")
    config = SweConfig(
        work_dir=Path("."), arms=parse_list(arms, ARMS, "arms"), budget=budget, tokenizer=tokenizer
    )
    declaration = _declaration(
        DEFAULT_SWEBENCH_DECLARATION,
        declare,
        quality_metric,
        quality_threshold,
        permitted_regression,
        SWEBENCH_METRICS,
    )
    options = RunOptions(out, work, workers, executor, scheduler, limit)
    with progress_bar(not as_json, "tasks") as progress:
        summary = run_swebench(tasks, repo_map, config, declaration, options, progress)
    if as_json:
        emit_json(summary)
    else:
        _print_swebench(summary)


LOCOMO_HEADERS = ["arm", "questions", "fail", "recall", "all ev", "tok mean", "tok med", "p50 ms", "p95 ms"]


def _print_locomo(summary: dict[str, Any]) -> None:
    _print_table(f"LoCoMo, {summary['questions']} questions", LOCOMO_HEADERS, locomo_rows(summary["arms"]))
    headers, rows = category_rows(summary["arms"])
    _print_table("evidence recall per category", headers, rows)
    echo(f"evidence ids: {summary['evidence_normalization']}")
    echo(f"wall time {summary['wall_s']} s")


@eval_app.command("locomo")
def locomo_command(
    data: Annotated[Path, typer.Option("--data", help="LoCoMo JSON (locomo10.json).", readable=False)],
    budgets: Annotated[str, typer.Option("--budgets", help="Comma-separated token budgets.")] = ",".join(
        str(b) for b in DEFAULT_BUDGETS
    ),
    arms: Annotated[str, typer.Option("--arms", help="Comma-separated arms.")] = ",".join(LOCOMO_ARMS),
    questions: Annotated[
        int | None, typer.Option("--questions", help="At most N questions per conversation (evenly spaced).")
    ] = None,
    allow_truncated: Annotated[
        bool, typer.Option("--allow-truncated", help="Packed arms may cut a session short.")
    ] = False,
    workers: Annotated[int, typer.Option("--workers", help="Parallel conversations.")] = 1,
    executor: ExecutorOpt = EXECUTOR_PROCESS,
    scheduler: SchedulerOpt = None,
    out: OutOpt = None,
    limit: Annotated[int | None, typer.Option("--limit", help="Only the first N conversations.")] = None,
    tokenizer: TokenizerOpt = DEFAULT_TOKENIZER,
    declare: DeclareOpt = None,
    quality_metric: MetricOpt = None,
    quality_threshold: ThresholdOpt = None,
    permitted_regression: RegressionOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Evidence-turn recall vs prompt tokens on LoCoMo: full, last-N, BM25, fixed, adaptive, oracle."""
    _check_executor(executor)
    config = LocomoConfig(
        work_dir=Path("."),
        budgets=parse_ints(budgets, "budgets"),
        arms=parse_list(arms, LOCOMO_ARMS, "arms"),
        tokenizer=tokenizer,
        questions_per_conversation=questions,
        allow_truncated=allow_truncated,
    )
    declaration = _declaration(
        DEFAULT_LOCOMO_DECLARATION,
        declare,
        quality_metric,
        quality_threshold,
        permitted_regression,
        LOCOMO_METRICS,
    )
    options = RunOptions(out, None, workers, executor, scheduler, limit)
    with progress_bar(not as_json, "questions") as progress:
        summary = run_locomo(data, config, declaration, options, progress)
    if as_json:
        emit_json(summary)
    else:
        _print_locomo(summary)


@eval_app.command("depth")
def depth_command(
    clinc: Annotated[Path, typer.Option("--clinc", help="CLINC150 data_full.json.", readable=False)],
    locomo: Annotated[
        Path | None, typer.Option("--locomo", help="LoCoMo JSON (questions).", readable=False)
    ] = None,
    out: OutOpt = None,
    declare: DeclareOpt = None,
    quality_metric: MetricOpt = None,
    quality_threshold: ThresholdOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Surface-tier precision and recall on CLINC150, and LoCoMo questions wrongly classified surface."""
    declaration = _declaration(
        DEFAULT_DEPTH_DECLARATION, declare, quality_metric, quality_threshold, None, DEPTH_METRICS
    )
    summary = run_depth(clinc, locomo, declaration, RunOptions(out_dir=out))
    if as_json:
        emit_json(summary)
        return
    c = summary["clinc"]
    echo(
        f"CLINC150 test: {c['utterances']} utterances, {c['gold_surface']} surface, {c['predicted_surface']}"
        f" predicted surface; precision {pct(c['surface_precision'])}%, recall {pct(c['surface_recall'])}%"
    )
    echo(f"surface recall by intent: { {k: pct(v) for k, v in c['surface_recall_by_intent'].items()} }")
    echo(f"CLINC150 oos_test classified surface: {summary['clinc_oos']['false_surface_count']}")
    if "locomo" in summary:
        lo = summary["locomo"]
        echo(
            f"LoCoMo: {lo['surface_count']} of {lo['questions']} questions classified surface; tiers {lo['tiers']}"
        )
    echo(f"verdict: {summary['verdict']}")
