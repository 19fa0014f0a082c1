"""The SWE-bench report: the verdict with its reference, tables per arm and per repository, a per-task table
ordered by loss, anchors, index cost and plots, each with one sentence computed from the data saying what
won and by how much. Also the terminal's tables, narrow enough for 80 columns."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import prooftext.eval.html as html
from prooftext.eval import swe_findings as find
from prooftext.eval.metrics import ACC_KS
from prooftext.eval.model_summary import has_model, model_notes, model_section, model_verdict_sentence
from prooftext.eval.prose import count

if TYPE_CHECKING:
    from matplotlib.figure import Figure

Row = Mapping[str, Any]
Table = tuple[str, list[str], list[list[str]]]
ANCHOR_COLOR_OFFSET = 5
"""Anchors take colours after the arms' (matplotlib cycle C0, C1, ...), so a star never looks like a curve."""
ARM_STYLE: Mapping[str, tuple[str, str]] = {
    "full": ("C0", "s"),
    "bm25": ("C1", "o"),
    "fixed": ("C2", "^"),
    "adaptive": ("C3", "v"),
}
"""Colour and marker per arm: fixed and adaptive point opposite ways, so both show where they coincide."""
LOSSES_KEPT = 10
"""Tasks with the largest losses kept in the summary (and shown in a terminal)."""

SUMMARY_HEADERS = [
    "arm",
    "tasks",
    "failures",
    "fits budget %",
    *[f"Acc@{k}" for k in ACC_KS],
    "gold-file recall",
    "all gold files",
    "gold-line recall",
    "tokens mean",
    "tokens median",
    "latency p50 ms",
    "latency p95 ms",
]


def summary_rows(arms: Mapping[str, Mapping[str, Any]]) -> list[list[str]]:
    return [
        [
            arm,
            str(s.get("tasks")),
            str(s.get("failures")),
            html.pct(s.get("fits_budget")),
            *[html.pct(s.get(f"acc@{k}")) for k in ACC_KS],
            html.pct(s.get("gold_file_recall")),
            html.pct(s.get("all_gold_files")),
            html.pct(s.get("gold_line_recall")),
            html.num(s.get("prompt_tokens_mean")),
            html.num(s.get("prompt_tokens_median")),
            html.num(s.get("latency_ms_p50")),
            html.num(s.get("latency_ms_p95")),
        ]
        for arm, s in arms.items()
    ]


# --- terminal ---------------------------------------------------------------------------------------------

TERMINAL_KEY = (
    "files: gold-file recall; all files: tasks with every gold file quoted; lines: gold-line recall;"
    " fits: tasks whose prompt fits the budget (all %)"
)


def _quality_table(summary: Mapping[str, Any]) -> Table:
    return (
        f"SWE-bench, {count(int(summary['tasks']), 'task')}: quality, %",
        ["arm", *[f"Acc@{k}" for k in ACC_KS], "files", "all files", "lines"],
        [
            [
                arm,
                *[html.pct(s.get(f"acc@{k}")) for k in ACC_KS],
                html.pct(s.get("gold_file_recall")),
                html.pct(s.get("all_gold_files")),
                html.pct(s.get("gold_line_recall")),
            ]
            for arm, s in summary["arms"].items()
        ],
    )


def _cost_table(summary: Mapping[str, Any]) -> Table:
    return (
        f"cost, budget {summary.get('budget', 0):,} tokens",
        ["arm", "tasks", "failed", "fits %", "tokens mean", "tokens median", "ms p50", "ms p95"],
        [
            [
                arm,
                str(s.get("tasks")),
                str(s.get("failures")),
                html.pct(s.get("fits_budget")),
                html.num(s.get("prompt_tokens_mean")),
                html.num(s.get("prompt_tokens_median")),
                html.num(s.get("latency_ms_p50")),
                html.num(s.get("latency_ms_p95")),
            ]
            for arm, s in summary["arms"].items()
        ],
    )


def _repo_terminal_table(repo: str, arms: Mapping[str, Mapping[str, Any]]) -> Table:
    return (
        repo,
        ["arm", "Acc@5 %", "files %", "lines %", "tokens mean"],
        [
            [
                arm,
                html.pct(s.get("acc@5")),
                html.pct(s.get("gold_file_recall")),
                html.pct(s.get("gold_line_recall")),
                html.num(s.get("prompt_tokens_mean")),
            ]
            for arm, s in arms.items()
        ],
    )


def _losses_terminal_table(losses: Sequence[Mapping[str, Any]]) -> Table:
    packed = list(losses[0]["losses"])
    return (
        "largest losses against the best arm within the budget (gold-line recall %)",
        ["instance", "loss", *packed, "best"],
        [
            [
                t["instance_id"],
                html.num(100 * t["loss"], 1),
                *[html.pct(t["best_value"] - t["losses"][a]) for a in packed],
                html.pct(t["best_value"]),
            ]
            for t in losses
        ],
    )


def terminal_tables(summary: Mapping[str, Any]) -> list[Table]:
    """The summary as a terminal shows it: quality and cost in two tables, then one small table per
    repository and the tasks lost most; each fits 80 columns."""
    tables = [_quality_table(summary), _cost_table(summary)]
    tables += [_repo_terminal_table(repo, arms) for repo, arms in summary.get("by_repo", {}).items()]
    losses = [t for t in summary.get("task_losses", []) if t["loss"] > 0]
    if losses:
        tables.append(_losses_terminal_table(losses))
    return tables


def terminal_notes(summary: Mapping[str, Any]) -> list[str]:
    arms = summary["arms"]
    notes = [TERMINAL_KEY]
    metric = summary["declaration"]["metric"]
    notes.append(find.summary_sentence(arms, metric, int(summary["budget"])))
    if has_model(arms):
        notes += model_notes(summary)
    else:
        notes.append(find.verdict_sentence(summary))
    if summary.get("files_left_out"):
        notes.append(left_out_sentence(summary))
    adaptive = arms.get("adaptive", {})
    if adaptive.get("stop_reasons"):
        notes.append(find.stops_sentence(adaptive["stop_reasons"]))
    notes.append(f"wall time {summary['wall_s']} s")
    return notes


def compact_losses(losses: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The tasks lost most, as the summary keeps them (JSON values only)."""
    return [
        {
            "instance_id": t["instance_id"],
            "repo": t["repo"],
            "loss": t["loss"],
            "losses": dict(t["losses"]),
            "best": list(t["best"]),
            "best_value": t["best_value"],
            "packed_value": t["packed_value"],
        }
        for t in losses[:LOSSES_KEPT]
    ]


# --- plots ------------------------------------------------------------------------------------------------


def _style(arm: str, number: int) -> tuple[str, str]:
    return ARM_STYLE.get(arm, (f"C{number}", "D"))


OFF_SCALE = 1.12
"""Arms whose mean prompt exceeds the budget are drawn at this multiple of it, labelled with their size."""


def _recall_vs_tokens(rows: Sequence[Row], arms: Sequence[str], budget: int) -> Figure:
    """Recall against prompt tokens on a linear axis up to just past the budget; an arm whose prompts
    exceed it (full context) is drawn at the right edge with its mean size written beside it."""
    fig = html.new_figure(8.0, 4.2)
    ax = fig.add_subplot()
    edge = OFF_SCALE * budget
    for number, arm in enumerate(arms):
        points = [
            (float(r["arms"][arm]["prompt_tokens"]), float(r["arms"][arm].get("gold_line_recall") or 0.0))
            for r in rows
            if r.get("arms", {}).get(arm, {}).get("ok") and "prompt_tokens" in r["arms"][arm]
        ]
        if not points:
            continue
        color, marker = _style(arm, number)
        xs, ys = zip(*points, strict=True)
        mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
        label = f"{arm} (mean)"
        if mean_x > budget:
            label = f"{arm} (mean {mean_x:,.0f} tokens, off scale)"
            ax.annotate(
                f"{mean_x:,.0f}\ntokens",
                (edge, mean_y),
                xytext=(0, -14),
                textcoords="offset points",
                ha="center",
                va="top",
                fontsize="x-small",
            )
        ax.scatter([min(x, edge) for x in xs], ys, s=18, alpha=0.35, color=color, marker=marker)
        ax.scatter(
            [min(mean_x, edge)],
            [mean_y],
            s=170,
            marker=marker,
            color=color,
            edgecolors="black",
            linewidths=1.2,
            label=label,
            zorder=3,
        )
    ax.axvline(budget, linestyle="--", color="grey", label=f"budget {budget:,} tokens", zorder=1)
    ax.axvspan(budget, edge * 1.04, color="#eeeeee", zorder=0)
    ax.set_xlim(0, edge * 1.04)
    ax.set_ylim(-0.05, 1.05)
    ax.set_xlabel("prompt tokens (grey: over the budget)")
    ax.set_ylabel("gold-line recall")
    ax.set_title("Gold-line recall vs prompt tokens (small: tasks; large: arm mean)")
    html.legend_outside(ax)
    return fig


def _latency(rows: Sequence[Row], arms: Sequence[str]) -> Figure | None:
    data = {
        arm: [
            float(r["arms"][arm]["latency_ms"])
            for r in rows
            if "latency_ms" in r.get("arms", {}).get(arm, {})
        ]
        for arm in arms
    }
    data = {arm: values for arm, values in data.items() if values}
    if not data:
        return None
    fig = html.new_figure(6.0, 3.2)
    ax = fig.add_subplot()
    ax.boxplot(list(data.values()))
    ax.set_xticks(range(1, len(data) + 1), list(data))
    ax.set_yscale("log")
    ax.set_ylabel("compile latency, ms (log)")
    ax.set_title("Compile latency per arm")
    return fig


def _accuracy(arms: Mapping[str, Mapping[str, Any]], anchors: Sequence[Mapping[str, Any]]) -> Figure:
    fig = html.new_figure(8.0, 3.8)
    ax = fig.add_subplot()
    curves: dict[tuple[float, ...], list[str]] = {}
    for arm, s in arms.items():
        if "acc@1" in s:
            curves.setdefault(tuple(100 * float(s[f"acc@{k}"] or 0.0) for k in ACC_KS), []).append(arm)
    for values, group in curves.items():  # arms sharing one ranking (fixed, adaptive) share one curve
        color, marker = _style(group[0], list(arms).index(group[0]))
        ax.plot(ACC_KS, values, marker=marker, color=color, label=" / ".join(group))
    for number, anchor in enumerate(anchors, start=ANCHOR_COLOR_OFFSET):
        value = 100 * float(anchor["value"])
        ax.scatter([5], [value], marker="*", s=160, color=f"C{number}", label=str(anchor["name"]), zorder=3)
    ax.set_xticks(ACC_KS)
    ax.set_xlabel("k")
    ax.set_ylabel("file Acc@k, %")
    ax.set_title("All gold files in the top k ranked files")
    html.legend_outside(ax)
    return fig


# --- sections ---------------------------------------------------------------------------------------------


def _verdict_table(report: html.HtmlReport, summary: Mapping[str, Any]) -> None:
    declaration = summary["declaration"]
    metric = declaration["metric"]
    reference = summary.get("reference", {})
    report.heading("Verdict against the declaration")
    report.finding(
        model_verdict_sentence(summary) if has_model(summary["arms"]) else find.verdict_sentence(summary)
    )
    report.table(
        [
            "arm",
            "fits budget",
            f"{metric} %",
            "reference",
            "reference %",
            "regression (pts)",
            "meets threshold",
            "within regression",
            "passes",
        ],
        [
            [
                arm,
                "yes" if v.get("fits_budget") else "no",
                html.pct(v.get("value")),
                v.get("reference") or "–",
                html.pct(v.get("reference_value")),
                html.num(100 * v["regression"], 1) if isinstance(v.get("regression"), float) else "–",
                html.yes_no(v.get("meets_threshold")),
                html.yes_no(v.get("within_regression")),
                html.yes_no(v.get("passes")),
            ]
            for arm, v in summary.get("verdict", {}).items()
        ],
    )
    regression = declaration.get("permitted_regression")
    report.note(
        f"Declared: {metric} at least {html.pct(declaration['threshold'])}%"
        + (
            f", at most {html.num(100 * regression, 1)} points below the reference."
            if regression is not None
            else "."
        )
        + f" Rule: {reference.get('rule', find.REFERENCE_RULE)} Here: {reference.get('why', 'no reference')}."
    )


def _repo_tables(report: html.HtmlReport, summary: Mapping[str, Any]) -> None:
    report.heading("Per repository")
    metric = summary["declaration"]["metric"]
    for repo, arms in summary["by_repo"].items():
        report.heading(repo, 3)
        report.finding(find.summary_sentence(arms, metric, int(summary["budget"])))
        report.table(SUMMARY_HEADERS, summary_rows(arms))


def _task_table(report: html.HtmlReport, rows: Sequence[Row], arms: Sequence[str], budget: int) -> None:
    losses = find.task_losses(rows, arms, budget)
    report.heading("Per task, largest loss first")
    report.finding(find.losses_sentence(losses))
    packed = [a for a in find.PACKED_ARMS if a in arms]
    headers = ["instance", "repository", "best within budget", "loss (pts)"]
    for arm in arms:
        headers += [f"{arm} lines %", f"{arm} tokens"]
    body = []
    for t in losses:
        cells: list[object] = [
            t["instance_id"],
            t["repo"],
            ", ".join(t["best"]) or "none",
            html.num(100 * t["loss"], 1) if packed else "–",
        ]
        for arm in arms:
            recall, prompt_tokens, ok = t["arms"][arm]
            cells += [html.pct(recall) if ok else "failed", html.num(prompt_tokens)]
        body.append(cells)
    report.table(headers, body, text_columns=3)
    report.note(
        "Loss: the best gold-line recall among the arms whose prompt fits the budget on that task, minus the"
        f" lower of {' and '.join(packed) or 'the packed arms'}; a failed arm scores 0. Equal losses: the"
        " lower recall first."
    )


def _index_table(report: html.HtmlReport, index: Mapping[str, Mapping[str, Any]]) -> None:
    report.heading("Index cost (work trees moved commit to commit, refreshed incrementally)")
    report.finding(find.index_sentence(index))
    report.table(
        [
            "repository",
            "tasks",
            "shards",
            "refreshes",
            "files indexed",
            "refresh s total",
            "median s",
            "max s",
        ],
        [
            [
                repo,
                i.get("tasks"),
                i.get("shards"),
                i.get("refreshes"),
                html.num(i.get("files_indexed_total")),
                html.num(i.get("refresh_s_total"), 1),
                html.num(i.get("refresh_s_median"), 2),
                html.num(i.get("refresh_s_max"), 1),
            ]
            for repo, i in index.items()
        ],
    )


def _selection_text(summary: Mapping[str, Any]) -> str:
    selection = summary.get("selection") or {}
    parts = []
    if selection.get("repos"):
        parts.append(f"repositories {', '.join(selection['repos'])}")
    if selection.get("instances"):
        parts.append(count(len(selection["instances"]), "named instance"))
    if selection.get("limit"):
        parts.append(f"the first {selection['limit']}")
    return f" Selected: {'; '.join(parts)}." if parts else ""


def swebench_report(manifest: dict[str, Any], summary: dict[str, Any], rows: Sequence[Row]) -> str:
    arms = summary["arms"]
    names = list(arms)
    budget = int(summary["budget"])
    metric = manifest["declaration"]["metric"]
    anchors = summary.get("anchors", [])
    report = html.HtmlReport("prooftext evaluation: SWE-bench")
    report.note(
        f"{count(int(summary['tasks']), 'task')}, budget {budget:,} tokens, wall time {html.num(summary.get('wall_s'), 1)} s."
        + _selection_text(summary)
        + " Rates use every task as the denominator (a failed arm is a miss). Acc@k: every gold file among"
        " the top k files. Fits budget: tasks whose prompt is within the budget."
    )
    report.finding(find.summary_sentence(arms, metric, budget))
    report.table(SUMMARY_HEADERS, summary_rows(arms))
    _verdict_table(report, summary)
    if has_model(arms):
        model_section(report, summary, "swebench")
    if summary.get("files_left_out"):
        report.note(left_out_sentence(summary))
    report.heading("Plots")
    report.finding(find.scatter_sentence(rows, arms, budget))
    report.figure(_recall_vs_tokens(rows, names, budget), "recall vs prompt tokens per arm")
    report.finding(find.accuracy_sentence(arms))
    report.figure(_accuracy(arms, anchors), "file Acc@k per arm with anchors")
    adaptive = arms.get("adaptive", {})
    if adaptive.get("stop_reasons"):
        report.finding(find.stops_sentence(adaptive["stop_reasons"]))
        report.figure(
            html.bar_figure("Adaptive stop reasons", adaptive["stop_reasons"], "stop reason"), "stops"
        )
        report.finding(find.rounds_sentence(adaptive["selected_rounds"]))
        report.figure(
            html.bar_figure("Adaptive selected round", adaptive["selected_rounds"], "round"), "rounds"
        )
    latency = _latency(rows, names)
    if latency is not None:
        report.finding(find.latency_sentence(arms))
        report.figure(latency, "latency per arm")
    _task_table(report, rows, names, budget)
    _repo_tables(report, summary)
    html.anchor_section(
        report, "Published anchors (not the same task set)", anchors, find.anchors_sentence(arms, anchors)
    )
    _index_table(report, summary["index"])
    html.manifest_section(report, manifest)
    return report.render()


def left_out_sentence(summary: Mapping[str, Any]) -> str:
    """Files of the tasks' trees left out, by reason (a mirror lacking blobs)."""
    reasons = summary.get("files_left_out") or {}
    listed = ", ".join(f"{n} {reason.replace('_', ' ')}" for reason, n in sorted(reasons.items()))
    return (
        f"Files left out of the work trees: {listed}, on {summary.get('tasks_with_files_left_out', 0)} tasks"
        " (their blobs are absent from the mirror; every arm sees the tree without them)."
    )
