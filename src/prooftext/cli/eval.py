"""``prooftext eval swebench|locomo|depth``: run an evaluation, write its report, print its summary.

Adapters only: flags become a configuration and a declaration, the harness in :mod:`prooftext.eval` runs,
and the summary is printed (``--json``: the whole summary as one JSON object).
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

import prooftext
from prooftext.cli.common import app, echo, emit_json
from prooftext.cli.progress import progress_bar
from prooftext.errors import AllTasksFailedError, RequestError

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
        help='JSON declaring the bar up front: {"metric", "threshold"}, and "permitted_regression" and'
        ' "reference_arm" where the command has those options.',
        readable=False,
    ),
]
MetricOpt = Annotated[str | None, typer.Option("--quality-metric", help="Declared quality metric.")]
ThresholdOpt = Annotated[float | None, typer.Option("--quality-threshold", help="Declared threshold.")]
RegressionOpt = Annotated[
    float | None, typer.Option("--permitted-regression", help="Declared regression from the reference arm.")
]
ReferenceOpt = Annotated[
    str | None,
    typer.Option(
        "--reference-arm", help="Declared reference arm (required with --model; must fit the budget)."
    ),
]
ModelOpt = Annotated[
    str | None,
    typer.Option("--model", help="Send each arm's prompt to this model and score its answers."),
]
DEFAULT_BACKEND = "ollama"
DEFAULT_REPEATS = 1
BackendOpt = Annotated[
    str | None,
    typer.Option("--backend", help="ollama (the default) or openai (any OpenAI-compatible server)."),
]
EndpointOpt = Annotated[
    str | None,
    typer.Option(
        "--endpoint", help="Model server URL (default http://127.0.0.1:11434 for ollama, :8000 for openai)."
    ),
]
RepeatsOpt = Annotated[
    int | None,
    typer.Option("--repeats", help="Answers per prompt, for mean and spread (default 1, at most 100)."),
]
TemperatureOpt = Annotated[
    float | None, typer.Option("--temperature", help="Sampling temperature (default: the server's).")
]
SeedOpt = Annotated[int | None, typer.Option("--seed", help="Sampling seed sent to the server.")]
PriceInOpt = Annotated[
    float | None, typer.Option("--price-input", help="Declared price of prompt tokens, USD per million.")
]
PriceOutOpt = Annotated[
    float | None, typer.Option("--price-output", help="Declared price of output tokens, USD per million.")
]
InstanceOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--instance", help="Only the task with this instance id; repeat it or separate ids by commas."
    ),
]
TimeoutOpt = Annotated[
    float | None,
    typer.Option(
        "--timeout",
        help="Seconds a request waits with nothing received from the model server (default 600).",
    ),
]
AnswersOpt = Annotated[
    Path | None,
    typer.Option("--answers", help="Answer cache directory (default OUT/answers).", readable=False),
]


def _model(
    model: str | None,
    backend: str | None,
    endpoint: str | None,
    repeats: int | None,
    temperature: float | None,
    seed: int | None,
    price_input: float | None,
    price_output: float | None,
    answers: Path | None,
    timeout: float | None,
) -> prooftext.ModelSettings | None:
    """The model settings, or None without ``--model``; a model option given without it is refused (it
    would do nothing)."""
    if model is None:
        options = {
            "--backend": backend,
            "--endpoint": endpoint,
            "--repeats": repeats,
            "--temperature": temperature,
            "--seed": seed,
            "--price-input": price_input,
            "--price-output": price_output,
            "--answers": answers,
            "--timeout": timeout,
        }
        given = [name for name, value in options.items() if value is not None]
        if given:
            raise RequestError(
                f"{', '.join(given)} {'needs' if len(given) == 1 else 'need'} --model:"
                " without a model no answer is asked",
                field="model",
                options=given,
            )
        return None
    return prooftext.ModelSettings(
        model,
        DEFAULT_BACKEND if backend is None else backend,
        endpoint,
        DEFAULT_REPEATS if repeats is None else repeats,
        temperature,
        seed,
        price_input,
        price_output,
        answers,
        prooftext.ModelSettings.timeout if timeout is None else timeout,
    )


def _plain(text: str) -> Text:
    return Text(prooftext.visible_text(text))


def print_tables(report: prooftext.EvalReport, console: Console) -> None:
    """Each of the report's tables, its first column (arm, instance) kept whole, numbers never cut."""
    # Titles and cells come from the data (repository names, instance ids): each is plain Text, never
    # console markup, so "[/x]" in a name prints as written instead of failing as a markup error, and its
    # control characters are shown (␛), never sent to the terminal.
    for title, headers, rows in report.tables():
        table = Table(title=_plain(title))
        table.add_column(_plain(headers[0]), justify="left", no_wrap=True)
        for number, header in enumerate(headers[1:], start=1):
            # as wide as its widest cell and header word: a narrow terminal wraps a header at its spaces,
            # never cuts a number or a word
            widest = max([len(word) for word in header.split()] + [len(row[number]) for row in rows])
            table.add_column(_plain(header), justify="right", min_width=widest)
        for row in rows:
            table.add_row(*(_plain(cell) for cell in row))
        console.print(table)


_SWE = prooftext.SwebenchRun(Path(), Path())
_LOCOMO = prooftext.LocomoRun(Path())
_OPTIONS = prooftext.RunOptions()


def _joined(values: tuple[object, ...] | str) -> str:
    return values if isinstance(values, str) else ",".join(str(v) for v in values)


def _evaluate(
    run: prooftext.SwebenchRun | prooftext.LocomoRun, options: prooftext.RunOptions, unit: str, as_json: bool
) -> None:
    """Run the evaluation, its progress shown in ``unit`` (not under ``--json``), and print its summary; a
    run in which every task failed ends with ``all_tasks_failed`` instead (its outputs are written), whose
    details hold the summary under ``--json``: one JSON document either way."""
    with progress_bar(not as_json, unit) as progress:
        report = prooftext.evaluate(run, options, progress)
    if not (report.all_failed and as_json):
        _show(report, as_json)
    if report.all_failed:
        summary = report.to_dict()
        raise AllTasksFailedError(
            f"every one of the {summary.get('failed_tasks')} {unit} failed; see the rows' errors",
            tasks=summary.get("failed_tasks"),
            **({"summary": summary} if as_json else {}),
        )


def note_lines(notes: Iterable[str], width: int | None) -> list[str]:
    """The report's sentences as printed: wrapped at word boundaries to ``width`` (a terminal's columns, as
    its tables are), or one line each when ``width`` is None (a pipe or file, read line by line); control
    characters shown, never sent."""
    shown = [prooftext.visible_text(note) for note in notes]  # a name from the data may hold controls
    if width is None:
        return shown
    return [
        line
        for note in shown
        for line in textwrap.wrap(note, width, break_long_words=False, break_on_hyphens=False) or [""]
    ]


def _show(report: prooftext.EvalReport, as_json: bool) -> None:
    if as_json:
        emit_json(report.to_dict())
        return
    terminal = sys.stdout.isatty()
    console = Console(width=None if terminal else WIDE_CONSOLE)
    print_tables(report, console)
    for line in note_lines(report.notes(), console.width if terminal else None):
        echo(line)


@eval_app.command("swebench")
def swebench_command(
    tasks: Annotated[Path, typer.Option("--tasks", help="SWE-bench tasks, JSONL.", readable=False)],
    repo_map: Annotated[
        Path, typer.Option("--repo-map", help='JSON {"owner/name": "git dir or clone"}.', readable=False)
    ],
    arms: Annotated[
        str,
        typer.Option("--arms", help="Comma-separated arms: full, bm25, fixed, adaptive (all by default)."),
    ] = _joined(_SWE.arms),
    budget: Annotated[int, typer.Option("--budget", help="Token budget of the packed arms.")] = _SWE.budget,
    workers: Annotated[int, typer.Option("--workers", help="Parallel shards (process pool).")] = 1,
    executor: ExecutorOpt = _OPTIONS.executor,
    scheduler: SchedulerOpt = None,
    out: OutOpt = None,
    work: Annotated[
        Path | None,
        typer.Option(
            "--work", help="Work trees and indexes (default OUT/work or a temp dir).", readable=False
        ),
    ] = None,
    repo: Annotated[
        list[str] | None,
        typer.Option(
            "--repo",
            help="Only the tasks of this repository (owner/name); repeat it or separate names by commas.",
        ),
    ] = None,
    instance: InstanceOpt = None,
    limit: Annotated[
        int | None, typer.Option("--limit", help="Only the first N tasks (after --repo and --instance).")
    ] = None,
    tokenizer: TokenizerOpt = _SWE.tokenizer,
    declare: DeclareOpt = None,
    quality_metric: MetricOpt = None,
    quality_threshold: ThresholdOpt = None,
    permitted_regression: RegressionOpt = None,
    reference_arm: ReferenceOpt = None,
    model: ModelOpt = None,
    backend: BackendOpt = None,
    endpoint: EndpointOpt = None,
    repeats: RepeatsOpt = None,
    temperature: TemperatureOpt = None,
    seed: SeedOpt = None,
    price_input: PriceInOpt = None,
    price_output: PriceOutOpt = None,
    answers: AnswersOpt = None,
    timeout: TimeoutOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Full, BM25, fixed and adaptive packets on SWE-bench tasks (with --model: files to change)."""
    bar = prooftext.QualityBar(
        declare, quality_metric, quality_threshold, permitted_regression, reference_arm
    )
    llm = _model(
        model, backend, endpoint, repeats, temperature, seed, price_input, price_output, answers, timeout
    )
    run = prooftext.SwebenchRun(
        tasks, repo_map, arms, budget, tokenizer, bar, tuple(repo or ()), tuple(instance or ()), llm
    )
    _evaluate(run, prooftext.RunOptions(out, work, workers, executor, scheduler, limit), "tasks", as_json)


@eval_app.command("locomo")
def locomo_command(
    data: Annotated[Path, typer.Option("--data", help="LoCoMo JSON (locomo10.json).", readable=False)],
    budgets: Annotated[str, typer.Option("--budgets", help="Comma-separated token budgets.")] = _joined(
        _LOCOMO.budgets
    ),
    arms: Annotated[
        str,
        typer.Option(
            "--arms",
            help="Comma-separated arms: full, last_n, bm25 (with bm25_top5), fixed, adaptive, oracle (all by"
            " default).",
        ),
    ] = _joined(_LOCOMO.arms),
    questions: Annotated[
        int | None, typer.Option("--questions", help="At most N questions per conversation (evenly spaced).")
    ] = None,
    allow_truncated: Annotated[
        bool, typer.Option("--allow-truncated", help="Packed arms may cut a session short.")
    ] = False,
    workers: Annotated[int, typer.Option("--workers", help="Parallel conversations.")] = 1,
    executor: ExecutorOpt = _OPTIONS.executor,
    scheduler: SchedulerOpt = None,
    out: OutOpt = None,
    limit: Annotated[int | None, typer.Option("--limit", help="Only the first N conversations.")] = None,
    tokenizer: TokenizerOpt = _LOCOMO.tokenizer,
    as_json: JsonOpt = False,
    declare: DeclareOpt = None,
    quality_metric: MetricOpt = None,
    quality_threshold: ThresholdOpt = None,
    permitted_regression: RegressionOpt = None,
    reference_arm: ReferenceOpt = None,
    model: ModelOpt = None,
    backend: BackendOpt = None,
    endpoint: EndpointOpt = None,
    repeats: RepeatsOpt = None,
    temperature: TemperatureOpt = None,
    seed: SeedOpt = None,
    price_input: PriceInOpt = None,
    price_output: PriceOutOpt = None,
    answers: AnswersOpt = None,
    timeout: TimeoutOpt = None,
) -> None:
    """Evidence-turn recall vs prompt tokens on LoCoMo: full, last-N, BM25, fixed, adaptive, oracle; with --model, the model answers each question from each arm's context (LoCoMo's F1)."""
    bar = prooftext.QualityBar(
        declare, quality_metric, quality_threshold, permitted_regression, reference_arm
    )
    settings = _model(
        model, backend, endpoint, repeats, temperature, seed, price_input, price_output, answers, timeout
    )
    run = prooftext.LocomoRun(data, budgets, arms, tokenizer, questions, allow_truncated, bar, settings)
    _evaluate(run, prooftext.RunOptions(out, None, workers, executor, scheduler, limit), "questions", as_json)


@eval_app.command("depth")
def depth_command(
    clinc: Annotated[Path, typer.Option("--clinc", help="CLINC150 data_full.json.", readable=False)],
    locomo: Annotated[
        Path | None, typer.Option("--locomo", help="LoCoMo JSON (questions).", readable=False)
    ] = None,
    swebench: Annotated[
        Path | None,
        typer.Option(
            "--swebench",
            help="SWE-bench tasks, JSONL: their issue titles measure the retrieval gate (needs --repo-map).",
            readable=False,
        ),
    ] = None,
    repo_map: Annotated[
        Path | None,
        typer.Option(
            "--repo-map",
            help='JSON {"owner/name": "git dir or clone"} for --swebench; each repository is indexed once.',
            readable=False,
        ),
    ] = None,
    out: OutOpt = None,
    work: Annotated[
        Path | None,
        typer.Option(
            "--work",
            help="Work trees and indexes of --swebench (default OUT/work or a temp dir).",
            readable=False,
        ),
    ] = None,
    declare: DeclareOpt = None,
    quality_metric: MetricOpt = None,
    quality_threshold: ThresholdOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Surface-tier precision and recall on CLINC150, LoCoMo questions wrongly classified surface, and how often memory search and retrieval run (LoCoMo questions as turns; SWE-bench titles with --swebench)."""
    bar = prooftext.QualityBar(declare, quality_metric, quality_threshold)
    run = prooftext.DepthRun(clinc, locomo, bar, swebench, repo_map)
    with progress_bar(not as_json, "steps") as progress:  # each repository indexed is a step
        report = prooftext.evaluate(run, prooftext.RunOptions(out_dir=out, work_dir=work), progress)
    _show(report, as_json)
