"""The SWE-bench report: tables per arm and per repository, anchors, index cost, and four plots."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import prooftext.eval.html as html
from prooftext.eval.metrics import ACC_KS

if TYPE_CHECKING:
    from matplotlib.figure import Figure

Row = Mapping[str, Any]
ANCHOR_COLOR_OFFSET = 5
"""Anchors take colours after the arms' (matplotlib cycle C0, C1, ...), so a star never looks like a curve."""

SUMMARY_HEADERS = [
    "arm",
    "tasks",
    "failures",
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
    rows = []
    for arm, s in arms.items():
        rows.append(
            [
                arm,
                str(s.get("tasks")),
                str(s.get("failures")),
                *[html.pct(s.get(f"acc@{k}")) for k in ACC_KS],
                html.pct(s.get("gold_file_recall")),
                html.pct(s.get("all_gold_files")),
                html.pct(s.get("gold_line_recall")),
                html.num(s.get("prompt_tokens_mean")),
                html.num(s.get("prompt_tokens_median")),
                html.num(s.get("latency_ms_p50")),
                html.num(s.get("latency_ms_p95")),
            ]
        )
    return rows


def _recall_vs_tokens(rows: Sequence[Row], arms: Sequence[str]) -> Figure:
    fig = html.new_figure()
    ax = fig.add_subplot()
    for number, arm in enumerate(arms):
        points = [
            (float(r["arms"][arm]["prompt_tokens"]), float(r["arms"][arm].get("gold_line_recall") or 0.0))
            for r in rows
            if r.get("arms", {}).get(arm, {}).get("ok")
        ]
        if not points:
            continue
        color = f"C{number}"
        xs, ys = zip(*points, strict=True)
        ax.scatter(xs, ys, s=10, alpha=0.3, color=color)
        ax.scatter(
            [sum(xs) / len(xs)],
            [sum(ys) / len(ys)],
            s=130,
            marker="X",
            color=color,
            edgecolors="black",
            label=arm,
        )
    ax.set_xscale("log")
    ax.set_xlabel("prompt tokens (log scale)")
    ax.set_ylabel("gold-line recall")
    ax.set_title("Gold-line recall vs prompt tokens (dots: tasks; X: arm mean)")
    ax.legend(fontsize="small")
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
    fig = html.new_figure(6.5, 3.8)
    ax = fig.add_subplot()
    curves: dict[tuple[float, ...], list[str]] = {}
    for arm, s in arms.items():
        if "acc@1" in s:
            curves.setdefault(tuple(100 * float(s[f"acc@{k}"] or 0.0) for k in ACC_KS), []).append(arm)
    for values, names in curves.items():  # arms sharing one ranking (fixed, adaptive) share one curve
        ax.plot(ACC_KS, values, marker="o", label=" / ".join(names))
    for number, anchor in enumerate(anchors, start=ANCHOR_COLOR_OFFSET):
        value = 100 * float(anchor["value"])
        ax.scatter([5], [value], marker="*", s=160, color=f"C{number}", label=str(anchor["name"]))
    ax.set_xticks(ACC_KS)
    ax.set_xlabel("k")
    ax.set_ylabel("file Acc@k, %")
    ax.set_title("All gold files in the top k ranked files")
    ax.legend(fontsize="x-small", loc="lower right")
    return fig


def _repo_table(report: html.HtmlReport, by_repo: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> None:
    report.heading("Per repository")
    for repo, arms in by_repo.items():
        report.heading(repo, 3)
        report.table(SUMMARY_HEADERS, summary_rows(arms))


def _index_table(report: html.HtmlReport, index: Mapping[str, Mapping[str, Any]]) -> None:
    report.heading("Index cost (work trees moved commit to commit, refreshed incrementally)")
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
                i.get("files_indexed_total"),
                html.num(i.get("refresh_s_total"), 1),
                html.num(i.get("refresh_s_median"), 2),
                html.num(i.get("refresh_s_max"), 1),
            ]
            for repo, i in index.items()
        ],
    )


def swebench_report(manifest: dict[str, Any], summary: dict[str, Any], rows: Sequence[Row]) -> str:
    arms = summary["arms"]
    report = html.open_report(
        "prooftext evaluation: SWE-bench",
        f"{summary['tasks']} tasks, budget {summary.get('budget')} tokens,"
        f" wall time {html.num(summary.get('wall_s'), 1)} s. Rates use every task as the denominator"
        " (a failed arm is a miss). Acc@k: every gold file among the top k files.",
        table=(SUMMARY_HEADERS, summary_rows(arms)),
        anchors=("Published anchors (not the same task set)", summary.get("anchors", [])),
        verdict=(summary.get("verdict", {}), manifest["declaration"]["metric"]),
    )
    names = list(arms)
    report.heading("Plots")
    report.figure(_recall_vs_tokens(rows, names), "recall vs prompt tokens per arm")
    report.figure(_accuracy(arms, summary.get("anchors", [])), "file Acc@k per arm with anchors")
    adaptive = arms.get("adaptive", {})
    if adaptive.get("stop_reasons"):
        report.figure(
            html.bar_figure("Adaptive stop reasons", adaptive["stop_reasons"], "stop reason"), "stops"
        )
        report.figure(
            html.bar_figure("Adaptive selected round", adaptive["selected_rounds"], "round"), "rounds"
        )
    latency = _latency(rows, names)
    if latency is not None:
        report.figure(latency, "latency per arm")
    _repo_table(report, summary["by_repo"])
    _index_table(report, summary["index"])
    html.manifest_section(report, manifest)
    return report.render()
