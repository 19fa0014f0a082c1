"""``run_locomo``: declare, run conversations, summarize per arm, budget and category, and report."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prooftext.eval import locomo_findings as find
from prooftext.eval.common import Progress, RunOptions, collect_rows
from prooftext.eval.declare import Declaration, manifest
from prooftext.eval.html import (
    HtmlReport,
    anchor_section,
    legend_outside,
    manifest_section,
    new_figure,
    num,
    pct,
    verdict_section,
)
from prooftext.eval.locomo import BUDGETED_ARMS, UNBUDGETED_ARMS, ConversationRunner, LocomoConfig
from prooftext.eval.locomo_data import CATEGORY_NAMES, load_locomo
from prooftext.eval.metrics import frequencies, mean_or_none, median_or_none, percentile, share
from prooftext.eval.model import LOCOMO_INSTRUCTION, ModelSettings, model_plan
from prooftext.eval.model_summary import (
    LOCOMO_SCORES,
    category_scores,
    has_model,
    model_arm_summary,
    model_notes,
    model_section,
    model_verdict_sentence,
    run_totals,
)
from prooftext.eval.output import RunOutput
from prooftext.eval.prose import leaders, names, percent, ranked
from prooftext.eval.swe_findings import budget_verdict, declared_reference

if TYPE_CHECKING:
    from matplotlib.figure import Figure

DEFAULT_LOCOMO_DECLARATION = Declaration("evidence_recall", 0.5, 0.5)
LOCOMO_METRICS = ("evidence_recall", "all_evidence")
"""The per-arm scores a declaration may name (higher is better)."""
"""Default bar: contexts hold half of the evidence turns, at most 50 points below full history."""

ANCHORS_LOCOMO: tuple[dict[str, Any], ...] = (
    {"name": "DRAGON top-5 turns (LoCoMo paper)", "metric": "evidence_recall (top-5)", "value": 0.567},
)
P50 = 50
P95 = 95

Row = Mapping[str, Any]


def _recall_stats(pairs: Sequence[tuple[Row, Mapping[str, Any]]]) -> dict[str, Any]:
    scored = [(r, a) for r, a in pairs if r["evidence"]]
    recall = [float(a["evidence_recall"]) if a.get("ok") else 0.0 for _, a in scored]
    complete = [bool(a.get("ok") and a["all_evidence"]) for _, a in scored]
    return {
        "questions": len(scored),
        "evidence_recall": mean_or_none(recall),
        "all_evidence": share(complete),
    }


def arm_summary(rows: Sequence[Row], key: str, budget: int | None = None) -> dict[str, Any]:
    """One arm's scores; with ``budget`` (a model run: the largest budget), whether its prompts fit it."""
    pairs = [(r, r["arms"][key]) for r in rows if key in r["arms"]]
    ok = [a for _, a in pairs if a.get("ok")]
    out: dict[str, Any] = {"tasks": len(pairs), "failures": len(pairs) - len(ok)}
    out["failure_codes"] = frequencies(a["error"]["code"] for _, a in pairs if not a.get("ok"))
    out.update(_recall_stats(pairs))
    tokens = [float(a["prompt_tokens"]) for a in ok]
    out["prompt_tokens_mean"] = mean_or_none(tokens)
    out["prompt_tokens_median"] = median_or_none(tokens)
    latency = [float(a["latency_ms"]) for a in ok if "latency_ms" in a]
    out["latency_ms_p50"] = percentile(latency, P50)
    out["latency_ms_p95"] = percentile(latency, P95)
    if any("stop_reason" in a for a in ok):
        out["stop_reasons"] = frequencies(a["stop_reason"] for a in ok)
        out["selected_rounds"] = frequencies(a["selected_round"] for a in ok)
    categories = sorted({int(r["category"]) for r, _ in pairs})
    out["by_category"] = {
        str(c): {
            **_recall_stats([(r, a) for r, a in pairs if int(r["category"]) == c]),
            **category_scores([a for r, a in pairs if int(r["category"]) == c]),
        }
        for c in categories
    }
    out.update(model_arm_summary([a for _, a in pairs], LOCOMO_SCORES))
    if budget is not None:
        fits = [int(a["prompt_tokens"]) <= budget for a in ok if "prompt_tokens" in a]
        out["fits_budget"] = share(fits)
        out["over_budget"] = fits.count(False)
    return out


def locomo_summary(rows: Sequence[Row], budget: int | None = None) -> dict[str, Any]:
    keys = sorted({k for r in rows for k in r["arms"]}, key=_arm_order)
    return {
        "questions": len(rows),
        "questions_with_evidence": sum(1 for r in rows if r["evidence"]),
        "conversations": len({r["sample_id"] for r in rows}),
        "arms": {k: arm_summary(rows, k, budget) for k in keys},
        "anchors": list(ANCHORS_LOCOMO),
    }


def _arm_order(key: str) -> tuple[int, int]:
    name, _, budget = key.partition("@")
    order = ("full", "oracle", "bm25_top5", *BUDGETED_ARMS)
    return (order.index(name) if name in order else len(order), int(budget) if budget else 0)


def run_locomo(
    data_path: Path,
    config: LocomoConfig,
    declaration: Declaration,
    options: RunOptions,
    progress: Progress | None = None,
    model: ModelSettings | None = None,
) -> dict[str, Any]:
    conversations, evidence_stats = load_locomo(data_path)
    conversations = conversations[: options.limit]
    runner_total = sum(
        len(c.questions)
        if config.questions_per_conversation is None
        else min(len(c.questions), config.questions_per_conversation)
        for c in conversations
    )
    with tempfile.TemporaryDirectory(prefix="prooftext-locomo-") as scratch:
        work = options.work_root(scratch)
        config = replace(config, work_dir=work.resolve() / "locomo")
        record = manifest(
            "locomo", {"data": data_path}, declaration, config.tokenizer, config.arm_parameters()
        )
        record["run"] = {"conversations": len(conversations), "questions": runner_total}
        record["run"]["questions_per_conversation"] = config.questions_per_conversation
        plan = model_plan(model, LOCOMO_INSTRUCTION, config.tokenizer, options.out_dir)
        if plan is not None:
            record["model"] = plan.record()
        with RunOutput(options.out_dir) as output:
            output.start(record)
            started = time.perf_counter()
            rows = collect_rows(
                ConversationRunner(config, plan), conversations, runner_total, output, options, progress
            )
            rows.sort(key=lambda r: (str(r["sample_id"]), int(str(r["qid"]).rpartition("#")[2])))
            summary = locomo_summary(rows, max(config.budgets))
            summary.update(
                {
                    "wall_s": round(time.perf_counter() - started, 1),
                    "evidence_normalization": evidence_stats.to_dict(),
                    "declaration": record["declaration"],
                    "code": record["code"],
                    "datasets": record["datasets"],
                    "budgets": list(config.budgets),
                }
            )
            summary.update(run_totals(rows, plan is not None))
            if plan is not None:
                summary["model"] = record["model"]
            _budget_verdict(summary, declaration, max(config.budgets))
            output.finish(summary, locomo_report(record, summary) if options.out_dir else None)
    return summary


def _budget_verdict(summary: dict[str, Any], declaration: Declaration, budget: int) -> None:
    """The verdict against the declared reference (full history by default) when it fits the largest budget
    on every question, else against the best arm that does (never the oracle, which is given the evidence):
    like is compared with like, as for SWE-bench."""
    summary["budget"] = budget
    candidates = {a: s for a, s in summary["arms"].items() if a != "oracle"}
    summary["reference"] = declared_reference(
        candidates, declaration.metric, declaration.reference_arm, unit="question"
    )
    summary["verdict"] = budget_verdict(declaration, summary["arms"], summary["reference"]["arm"])


# --- report -----------------------------------------------------------------------------------------------

LOCOMO_HEADERS = [
    "arm",
    "questions",
    "failures",
    "evidence recall",
    "all evidence",
    "tokens mean",
    "tokens median",
    "latency p50 ms",
    "latency p95 ms",
]
Table = tuple[str, list[str], list[list[str]]]


def locomo_rows(arms: Mapping[str, Mapping[str, Any]]) -> list[list[str]]:
    return [
        [
            key,
            str(s["questions"]),
            str(s["failures"]),
            pct(s.get("evidence_recall")),
            pct(s.get("all_evidence")),
            num(s.get("prompt_tokens_mean")),
            num(s.get("prompt_tokens_median")),
            num(s.get("latency_ms_p50"), 1),
            num(s.get("latency_ms_p95"), 1),
        ]
        for key, s in arms.items()
    ]


def category_rows(
    arms: Mapping[str, Mapping[str, Any]], metric: str = "evidence_recall"
) -> tuple[list[str], list[list[str]]]:
    cats = sorted({int(c) for s in arms.values() for c in s.get("by_category", {})})
    headers = ["arm", *[f"{c} {CATEGORY_NAMES.get(c, '')}".strip() for c in cats]]
    rows = [
        [key, *[pct(s.get("by_category", {}).get(str(c), {}).get(metric)) for c in cats]]
        for key, s in arms.items()
    ]
    return headers, rows


def _model_part(report: HtmlReport, summary: Mapping[str, Any]) -> None:
    arms = summary["arms"]
    model_section(report, summary, "locomo")
    report.heading("Answer F1 per category (LoCoMo paper's score)", 3)
    report.finding(category_f1_sentence(arms))
    headers, rows = category_rows(arms, "answer_f1")
    report.table(headers, rows)


def category_f1_sentence(arms: Mapping[str, Mapping[str, Any]]) -> str:
    """Per category, the arm whose answers score highest (the LoCoMo paper's F1)."""
    cats = sorted({int(c) for s in arms.values() for c in s.get("by_category", {})})
    parts = []
    for c in cats:
        values = {a: s.get("by_category", {}).get(str(c), {}).get("answer_f1") for a, s in arms.items()}
        order = ranked(values)
        if order:
            parts.append(f"{CATEGORY_NAMES.get(c, str(c))}: {names(leaders(order))} {percent(order[0][1])}")
    if not parts:
        return "No answer was scored."
    return "Highest answer F1 per category: " + "; ".join(parts) + "."


def terminal_tables(summary: Mapping[str, Any]) -> list[Table]:
    """The summary as a terminal shows it, each table within 80 columns: the question count in the title,
    a failures column only when an arm failed, category names that wrap at a space."""
    arms = summary["arms"]
    with_evidence = summary.get("questions_with_evidence", summary["questions"])
    failed = any(s.get("failures") for s in arms.values())
    headers = ["arm", *(["failed"] if failed else []), "recall %", "all %", "tokens mean", "ms p50", "ms p95"]
    rows = [
        [
            key,
            *([str(s.get("failures"))] if failed else []),
            pct(s.get("evidence_recall")),
            pct(s.get("all_evidence")),
            num(s.get("prompt_tokens_mean")),
            num(s.get("latency_ms_p50"), 1),
            num(s.get("latency_ms_p95"), 1),
        ]
        for key, s in arms.items()
    ]
    category_headers, by_category = category_rows(arms)
    short = ["arm", *[h.partition(" ")[2].replace("-", " ") or h for h in category_headers[1:]]]
    return [
        (f"LoCoMo, {with_evidence} questions with evidence", headers, rows),
        ("evidence recall per category, %", short, by_category),
    ]


def terminal_notes(summary: Mapping[str, Any]) -> list[str]:
    arms = summary["arms"]
    with_model = has_model(arms)
    return [
        find.summary_sentence(arms),
        *find.short_of_budget(arms),
        *(model_notes(summary, "locomo") if with_model else [find.verdict_sentence(summary)]),
        find.normalization_sentence(summary.get("evidence_normalization", {})),
        f"wall time {summary['wall_s']} s",
    ]


def _curves(arms: Mapping[str, Mapping[str, Any]]) -> Figure:
    fig = new_figure(8.0, 4.2)
    ax = fig.add_subplot()
    markers = {"last_n": "s", "bm25": "o", "fixed": "^", "adaptive": "v"}
    for number, name in enumerate(BUDGETED_ARMS):
        points = [
            (float(s["prompt_tokens_mean"]), float(s["evidence_recall"] or 0.0), find.split_key(key)[1])
            for key, s in arms.items()
            if key.partition("@")[0] == name and s.get("prompt_tokens_mean") is not None
        ]
        if not points:
            continue
        points.sort()
        xs = [p[0] for p in points]
        ys = [p[1] for p in points]
        style = "--" if name == find.ADAPTIVE else "-"  # dashed over fixed, whose points it often shares
        ax.plot(xs, ys, style, marker=markers.get(name, "D"), label=name, color=f"C{number}")
        if name == find.ADAPTIVE and points[-1][2]:  # its ceiling is not its size: say where it stopped
            x, y, budget = points[-1]
            ax.annotate(
                f"ceiling {budget:,}, stopped at {x:,.0f}",
                (x, y),
                xytext=(-8, 8),
                textcoords="offset points",
                ha="right",
                va="bottom",
                fontsize="x-small",
                color=f"C{number}",
            )
    for number, name in enumerate(UNBUDGETED_ARMS, start=len(BUDGETED_ARMS)):
        s = arms.get(name)
        if s and s.get("prompt_tokens_mean") is not None:
            ax.scatter(
                [s["prompt_tokens_mean"]],
                [s["evidence_recall"] or 0.0],
                s=90,
                marker="X",
                label=name,
                color=f"C{number}",
            )
    for anchor in ANCHORS_LOCOMO:
        ax.axhline(float(anchor["value"]), linestyle=":", color="grey", label=str(anchor["name"]))
    ax.set_xscale("log")
    ax.set_ylim(-0.03, 1.05)
    ax.set_xlabel("mean prompt tokens (log scale)")
    ax.set_ylabel("evidence recall")
    ax.set_title("Evidence-turn recall vs prompt tokens (points: budgets)")
    legend_outside(ax)
    return fig


def _stops(arms: Mapping[str, Mapping[str, Any]]) -> Figure | None:
    """The adaptive packet's stop reasons per ceiling, as stacked bars."""
    keys = [k for k in arms if find.split_key(k)[0] == find.ADAPTIVE and arms[k].get("stop_reasons")]
    if not keys:
        return None
    keys.sort(key=lambda k: find.split_key(k)[1] or 0)
    reasons = sorted({r for k in keys for r in arms[k]["stop_reasons"]})
    fig = new_figure(8.0, 3.2)
    ax = fig.add_subplot()
    labels = [f"{find.split_key(k)[1]:,}" for k in keys]
    bottom = [0] * len(keys)
    for number, reason in enumerate(reasons):
        heights = [int(arms[k]["stop_reasons"].get(reason, 0)) for k in keys]
        ax.bar(labels, heights, bottom=bottom, label=reason, color=f"C{number + 4}")
        bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
    ax.set_xlabel("adaptive ceiling, tokens")
    ax.set_ylabel("questions")
    ax.set_title("Adaptive stop reasons per ceiling")
    legend_outside(ax)
    return fig


def locomo_report(record: dict[str, Any], summary: dict[str, Any]) -> str:
    arms = summary["arms"]
    report = HtmlReport("prooftext evaluation: LoCoMo")
    report.note(find.run_note(summary))
    report.finding(find.summary_sentence(arms))
    report.table(LOCOMO_HEADERS, locomo_rows(arms))
    anchor_section(
        report, "Published anchor", list(ANCHORS_LOCOMO), find.anchor_sentence(arms, ANCHORS_LOCOMO)
    )
    report.heading("Verdict against the declaration")
    report.finding(
        model_verdict_sentence(summary, "question") if has_model(arms) else find.verdict_sentence(summary)
    )
    verdict_section(report, summary.get("verdict", {}), record["declaration"]["metric"], heading=False)
    if has_model(arms):
        _model_part(report, summary)
    report.heading("Evidence recall per category")
    report.finding(find.category_sentence(arms))
    headers, rows = category_rows(arms)
    report.table(headers, rows)
    report.heading("Plots")
    report.finding(find.curves_sentence(arms))
    report.figure(_curves(arms), "evidence recall vs prompt tokens")
    for note in find.short_of_budget(arms):
        report.note(note)
    stops = _stops(arms)
    if stops is not None:
        report.finding(find.stops_sentence(arms))
        report.figure(stops, "adaptive stop reasons per ceiling")
    report.heading("Evidence id normalization")
    stats = summary.get("evidence_normalization", {})
    report.finding(find.normalization_sentence(stats))
    report.table(
        [
            "raw entries",
            "entries split",
            "ids kept",
            "ids repaired",
            "ids dropped",
            "questions without evidence",
        ],
        [
            [
                num(stats.get("raw_entries")),
                num(stats.get("entries_split")),
                num(stats.get("ids_kept")),
                num(stats.get("ids_repaired")),
                num(stats.get("ids_dropped")),
                num(stats.get("questions_without_evidence")),
            ]
        ],
        text_columns=0,
    )
    manifest_section(report, record)
    return report.render()
