"""What a SWE-bench run found: which arms fit the budget, the reference the verdict compares against, one
sentence per table and plot saying what won and by how much, and the tasks where the packets lost most.

The reference rule (stated in the report and the README): the declared regression is measured from full
context when full context fits the budget on every task; otherwise from the arm with the highest declared
metric among the arms whose prompt fits the budget on every task. An arm over the budget on any task does
not pass: a model with this budget could not be given its prompt.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from prooftext.eval.arms import ARM_FULL
from prooftext.eval.declare import Declaration
from prooftext.eval.metrics import ACC_KS
from prooftext.eval.prose import (
    TIE_POINTS,
    count,
    counted,
    is_tie,
    leaders,
    metric_label,
    names,
    percent,
    points,
    ranked,
    tokens,
)

PACKED_ARMS = ("fixed", "adaptive")
"""The arms whose losses the per-task table ranks (prooftext's packets)."""
LINE_METRIC = "gold_line_recall"


def reference_rule(unit: str = "task") -> str:
    """The reference rule in words, ``unit`` naming what the budget is checked on (LoCoMo: ``question``)."""
    return (
        f"The regression is measured from full context when its prompt fits the budget on every {unit};"
        " otherwise from the arm with the highest declared metric among the arms that fit the budget on every"
        f" {unit}. An arm over the budget on any {unit} does not pass."
    )


REFERENCE_RULE = reference_rule()

Row = Mapping[str, Any]
Arms = Mapping[str, Mapping[str, Any]]


def fits_everywhere(summary: Mapping[str, Any]) -> bool:
    """True when the arm answered some task and its prompt fit the budget on every one it answered."""
    return summary.get("over_budget") == 0


def _value(summary: Mapping[str, Any], metric: str) -> float | None:
    value = summary.get(metric)
    return float(value) if isinstance(value, int | float) else None


def best_within_budget(arms: Arms, metric: str) -> list[tuple[str, float]]:
    """The arms that fit the budget on every task, best ``metric`` first; between arms equal to one decimal
    of a percent, the one with fewer prompt tokens on average first."""
    fitting = ranked({a: _value(s, metric) for a, s in arms.items() if fits_everywhere(s)})

    def key(item: tuple[str, float]) -> tuple[float, float]:
        mean = arms[item[0]].get("prompt_tokens_mean")
        return (-round(100 * item[1], 1), float(mean) if isinstance(mean, int | float) else math.inf)

    return sorted(fitting, key=key)


def budget_reference(arms: Arms, metric: str, unit: str = "task") -> dict[str, Any]:
    """The verdict's reference arm under the rule above, and why it was chosen; ``unit`` names what the
    budget is checked on (``task``, or LoCoMo's ``question``)."""
    fitting = {a: _value(s, metric) for a, s in arms.items() if fits_everywhere(s)}
    best = best_within_budget(arms, metric)
    if ARM_FULL in fitting:
        arm: str | None = ARM_FULL
        why = f"full context fits the budget on every {unit}"
    elif best:
        arm = best[0][0]
        why = (
            "full context was not run"
            if ARM_FULL not in arms
            else f"full context does not fit the budget on every {unit}"
        )
        why += f"; {arm} has the highest {metric_label(metric, unit)} among the arms that do"
    else:
        arm, why = None, f"no arm fits the budget on every {unit}"
    return {"arm": arm, "metric": metric, "why": why, "rule": reference_rule(unit)}


def declared_reference(arms: Arms, metric: str, declared: str | None, unit: str = "task") -> dict[str, Any]:
    """The declared reference arm when it fits the budget on every task (``unit``); otherwise the rule's
    choice, with a reason that says the declared one does not fit and what is compared instead."""
    if declared is None:
        return budget_reference(arms, metric, unit)
    summary = arms.get(declared)
    if summary is not None and fits_everywhere(summary):
        return {
            "arm": declared,
            "declared": declared,
            "declared_fits_budget": True,
            "metric": metric,
            "why": f"the declared reference {declared} fits the budget on every {unit}",
            "rule": reference_rule(unit),
        }
    fallback = budget_reference({a: s for a, s in arms.items() if a != declared}, metric, unit)
    over = summary.get("over_budget") if summary is not None else None
    plural = "" if over == 1 else "s"
    shown = f" (over it on {over} {unit}{plural})" if isinstance(over, int) and over else ""
    instead = (
        f"compared instead with {fallback['arm']}, the best arm that fits"
        if fallback["arm"]
        else "no other arm fits, so nothing is compared"
    )
    return {
        **fallback,
        "declared": declared,
        "declared_fits_budget": False,
        "why": f"the declared reference {declared} does not fit the budget on every {unit}{shown}; {instead}",
    }


def budget_verdict(declaration: Declaration, arms: Arms, reference: str | None) -> dict[str, Any]:
    """Per arm: the declared metric, its regression from ``reference``, whether it fits the budget, and
    pass/fail. Full context chosen by the rule is not judged (it is the bar); any other reference, and a
    declared one, is (at a regression of 0 from itself)."""
    metric = declaration.metric
    ref_value = _value(arms[reference], metric) if reference is not None else None
    out: dict[str, Any] = {}
    for name, summary in arms.items():
        if name == reference == ARM_FULL and declaration.reference_arm != reference:
            continue
        value = _value(summary, metric)
        fits = fits_everywhere(summary)
        failed = {key: summary.get(key) for key in ("tasks", "failures", "failure_codes", "over_budget")}
        if value is None:
            out[name] = {
                "value": None,
                "fits_budget": fits,
                "passes": False,
                "note": f"{metric} is undefined",
                **(failed if summary.get("failures") else {}),
            }
            continue
        regression = None if ref_value is None else ref_value - value
        meets = value >= declaration.threshold
        within = (
            None
            if regression is None or declaration.permitted_regression is None
            else regression <= declaration.permitted_regression + 1e-12
        )
        out[name] = {
            "value": value,
            "reference": reference,
            "reference_value": ref_value,
            "regression": regression,
            "meets_threshold": meets,
            "within_regression": within,
            "fits_budget": fits,
            "passes": fits and meets and within is not False,
            **(failed if summary.get("failures") else {}),
        }
    return out


def failure_reasons(
    entry: Mapping[str, Any], declaration: Mapping[str, Any], reference: str | None, unit: str = "task"
) -> str:
    """Why an arm's verdict entry fails: errors (counted per ``unit``), over the budget, an undefined
    metric, below the threshold, more than the permitted regression below ``reference``."""
    reasons = []
    if entry.get("failures"):  # an error, not a prompt too large: say which
        codes = entry.get("failure_codes") or {"an error": int(entry["failures"])}
        reasons.append(f"failed with {counted(codes, int(entry.get('tasks') or 0), unit)}")
    if not entry.get("fits_budget") and (not entry.get("failures") or entry.get("over_budget")):
        reasons.append("over the budget")
    if entry.get("value") is None:
        reasons.append(str(entry.get("note", "undefined")))
    elif not entry.get("meets_threshold"):
        reasons.append(f"below the threshold {percent(float(declaration['threshold']))}")
    if entry.get("within_regression") is False:
        reasons.append(f"more than {points(float(declaration['permitted_regression']))} below {reference}")
    return names(reasons)


def verdict_sentence(summary: Mapping[str, Any]) -> str:
    """Which arms fit the budget, what the reference is and why, and which arms pass."""
    arms: Arms = summary["arms"]
    budget = int(summary["budget"])
    declaration = summary["declaration"]
    reference = summary.get("reference", {})
    ref = reference.get("arm")
    verdict: Mapping[str, Any] = summary.get("verdict", {})
    said_reference = _reference_sentence(arms, budget, declaration, reference)
    parts = [said_reference] if said_reference else []
    passed = [a for a, v in verdict.items() if v.get("passes")]
    failed = [
        f"{a} ({failure_reasons(v, declaration, ref)})" for a, v in verdict.items() if not v.get("passes")
    ]
    outcome = [f"passing: {names(passed)}" if passed else "no arm passes"]
    if failed:
        outcome.append(f"failing: {names(failed)}")
    said = "; ".join(outcome)
    return "".join(f"{p}. " for p in parts) + said[0].upper() + said[1:] + "."


def _reference_sentence(
    arms: Arms, budget: int, declaration: Mapping[str, Any], reference: Mapping[str, Any]
) -> str | None:
    """Whether full context fits, and which arm is the reference and why (a declared one: that it was)."""
    ref = reference.get("arm")
    why = str(reference.get("why") or "")
    declared = reference.get("declared") is not None and why
    full = arms.get(ARM_FULL)
    if full is not None and "over_budget" in full:
        answered = int(full["tasks"]) - int(full["failures"])
        inside = answered - int(full["over_budget"])
        if inside == answered:
            fit = f"Full context fits the {budget:,}-token budget on every task"
            return f"{fit}; {why}" if declared else f"{fit}, so it is the reference"
        median = full.get("prompt_tokens_median")
        median_text = f", median {tokens(float(median))} tokens" if median is not None else ""
        fit = f"Full context fits the {budget:,}-token budget on {inside} of {count(answered, 'task')}{median_text}"
        if declared:
            return f"{fit}; {why}"
        if not ref:
            return f"{fit}, and no arm fits on every task, so there is no reference"
        value = percent(float(arms[ref][declaration["metric"]]))
        return f"{fit}, so the reference is {ref}, the best arm that fits ({metric_label(declaration['metric'])} {value})"
    if declared:
        return why[0].upper() + why[1:]
    if ref:
        return f"The reference is {ref}, the best arm that fits the {budget:,}-token budget"
    return None


def summary_sentence(arms: Arms, metric: str, budget: int) -> str:
    """What won a table of arms: the best arm within the budget, each other arm's distance from it, and the
    arms over the budget."""
    label = metric_label(metric)
    fitting = best_within_budget(arms, metric)
    if not fitting:
        return f"No arm fits the {budget:,}-token budget on every task, so none is compared at this budget."
    best, top = fitting[0]
    parts = [
        f"Within the {budget:,}-token budget, {best} has the highest {label}: {percent(top)}"
        f" at {_mean_tokens(arms[best])} prompt tokens on average"
    ]
    for arm, value in fitting[1:]:
        if is_tie(value, top):
            parts.append(f"{arm} ties it at {_mean_tokens(arms[arm])} tokens")
        else:
            parts.append(
                f"{arm} is {points(top - value)} lower ({percent(value)}, {_mean_tokens(arms[arm])} tokens)"
            )
    over = []
    for arm, s in arms.items():
        if s.get("over_budget"):
            answered = int(s["tasks"]) - int(s["failures"])
            details = []
            median = s.get("prompt_tokens_median")
            if median is not None:
                details.append(f"median {tokens(float(median))} tokens")
            score = _value(s, metric)
            if score is not None:
                details.append(f"{label} {percent(score)}")
            shown = f" ({', '.join(details)})" if details else ""
            over.append(f"{arm} on {s['over_budget']} of {count(answered, 'task')}{shown}")
    tail = f" Over the budget: {names(over)}." if over else ""
    return "; ".join(parts) + "." + tail


def _mean_tokens(summary: Mapping[str, Any]) -> str:
    value = summary.get("prompt_tokens_mean")
    return tokens(float(value)) if isinstance(value, int | float) else "no"


def _line_recall(result: Mapping[str, Any] | None) -> float:
    if not result or not result.get("ok"):
        return 0.0
    return float(result.get(LINE_METRIC) or 0.0)


def _fits(result: Mapping[str, Any] | None, budget: int) -> bool:
    return bool(result and result.get("ok") and int(result.get("prompt_tokens", budget + 1)) <= budget)


def scatter_sentence(rows: Sequence[Row], arms: Arms, budget: int) -> str:
    """The recall-vs-tokens plot: per task, how the best arm within the budget compares with the baseline
    (bm25, or the runner-up), and where full context lies."""
    fitting = best_within_budget(arms, LINE_METRIC)
    if len(fitting) < 2:
        return f"The dashed line marks the {budget:,}-token budget; fewer than two arms fit it on every task."
    best = fitting[0][0]
    others = [a for a, _ in fitting[1:]]
    rival = "bm25" if "bm25" in others else others[0]
    wins = ties = losses = 0
    for row in rows:
        mine, theirs = _line_recall(row["arms"].get(best)), _line_recall(row["arms"].get(rival))
        if is_tie(mine, theirs):
            ties += 1
        elif mine > theirs:
            wins += 1
        else:
            losses += 1
    sentence = (
        f"Per task, {best} quotes more gold lines than {rival} on {wins} of {count(len(rows), 'task')}, as many on"
        f" {ties} and fewer on {losses}; the dashed line marks the {budget:,}-token budget"
    )
    over = [a for a, s in arms.items() if s.get("over_budget")]
    if over:
        sentence += f", and {names(over)} lie{'s' if len(over) == 1 else ''} right of it"
    return sentence + "."


def accuracy_sentence(arms: Arms) -> str:
    """The Acc@k plot: the leader at each k and its margin over the next ranking."""
    curves: dict[tuple[float, ...], list[str]] = {}
    for arm, s in arms.items():
        if "acc@1" in s:
            curves.setdefault(tuple(float(s[f"acc@{k}"] or 0.0) for k in ACC_KS), []).append(arm)
    if not curves:
        return "No arm ranks files."
    groups = {" / ".join(v): k for k, v in curves.items()}
    parts = []
    for index, k in enumerate(ACC_KS):
        order = ranked({name: values[index] for name, values in groups.items()})
        top = leaders(order)
        if len(top) == len(order):
            parts.append(f"k = {k}: a tie at {percent(order[0][1])}")
        else:
            runner = order[len(top)]
            parts.append(
                f"k = {k}: {names(top)} {percent(order[0][1])}, {points(order[0][1] - runner[1])} above"
                f" {runner[0]}"
            )
    shared = [" / ".join(v) for v in curves.values() if len(v) > 1]
    tail = f" One curve for {names(shared)}: they share one ranking." if shared else ""
    return f"Highest Acc@k at {'; '.join(parts)}.{tail} Stars: published Acc@5 on another task set."


def anchors_sentence(arms: Arms, anchors: Sequence[Mapping[str, Any]]) -> str:
    """Our Acc@5 beside the published anchors' (not the same tasks)."""
    ours = ranked({a: _value(s, "acc@5") for a, s in arms.items()})
    if not ours or not anchors:
        return "No arm here ranks files, so there is nothing to set beside the published numbers."
    mine = names(f"{a} {percent(v)}" for a, v in ours)
    theirs = names(f"{a['name'].split(' (')[0]} {percent(float(a['value']))}" for a in anchors)
    return (
        f"Acc@5 here: {mine}; published on SWE-bench Lite: {theirs} (different tasks: a guide, not a match)."
    )


def stops_sentence(stop_reasons: Mapping[str, int]) -> str:
    total = sum(stop_reasons.values())
    return f"The adaptive packet stopped as {counted(stop_reasons, total, 'task')}."


def rounds_sentence(selected: Mapping[str, int]) -> str:
    total = sum(selected.values())
    if not total:
        return "The adaptive packet selected no round."
    mean = sum(int(k) * v for k, v in selected.items()) / total
    top = max(selected.items(), key=lambda kv: (kv[1], -int(kv[0])))
    return (
        f"The adaptive packet kept round {top[0]} most often ({top[1]} of {count(total, 'task')});"
        f" the mean selected round is {mean:.1f}."
    )


def latency_sentence(arms: Arms) -> str:
    """The latency plot: each arm's p50 compile latency, as the table gives it (nearest rank), fastest
    first."""
    medians = {
        a: float(s["latency_ms_p50"])
        for a, s in arms.items()
        if isinstance(s.get("latency_ms_p50"), int | float)
    }
    if not medians:
        return "No arm measured a latency."
    order = sorted(medians.items(), key=lambda kv: kv[1])
    listed = names(f"{a} {v:,.0f} ms" for a, v in order)
    return f"Median (p50) compile latency: {listed}; {order[0][0]} is the fastest."


def task_losses(rows: Sequence[Row], arms: Sequence[str], budget: int) -> list[dict[str, Any]]:
    """Per task, the best gold-line recall among the arms that fit the budget on it, and how far below it
    fixed and adaptive fell; the largest loss first, then the lowest recall of the two."""
    packed = [a for a in PACKED_ARMS if a in arms]
    out = []
    for row in rows:
        results = row.get("arms", {})
        inside = ranked({a: _line_recall(results.get(a)) for a in arms if _fits(results.get(a), budget)})
        best_value = inside[0][1] if inside else 0.0
        losses = {a: best_value - _line_recall(results.get(a)) for a in packed}
        out.append(
            {
                "instance_id": row["instance_id"],
                "repo": row["repo"],
                "best": leaders(inside) if best_value > 0 else [],
                "packed_value": min((_line_recall(results.get(a)) for a in packed), default=0.0),
                "best_value": best_value,
                "losses": losses,
                "loss": max(losses.values(), default=0.0),
                "arms": {
                    a: (
                        _line_recall(results.get(a)),
                        results.get(a, {}).get("prompt_tokens"),
                        bool(results.get(a, {}).get("ok")),
                    )
                    for a in arms
                },
            }
        )
    out.sort(key=lambda t: (-t["loss"], t["packed_value"], str(t["instance_id"])))
    return out


def losses_sentence(losses: Sequence[Mapping[str, Any]]) -> str:
    """Where the packed arms fell below the best arm within the budget: on how many tasks (either arm, then
    each), and the largest loss; without a loss, how many tasks they quoted no gold line on."""
    if not losses or not losses[0]["losses"]:
        return "Neither fixed nor adaptive ran, so no task is ranked by loss."
    packed = list(losses[0]["losses"])
    total = len(losses)
    lost = [t for t in losses if _lost(t["loss"])]
    if not lost:
        missed = sum(1 for t in losses if t["packed_value"] == 0)
        every = {1: "the one task", 2: "both tasks"}.get(total, f"all {total} tasks")
        who = names(packed)
        return (
            f"{who[0].upper()}{who[1:]} matched the best arm within the budget on {every}, so the table lists"
            f" the tasks where {'they' if len(packed) > 1 else 'it'} quoted the fewest gold lines first;"
            f" {'they' if len(packed) > 1 else 'it'} quoted none on {missed} of {total}."
        )
    each = ", ".join(f"{a} on {sum(1 for t in lost if _lost(t['losses'][a]))}" for a in packed)
    worst = lost[0]
    arm = max(worst["losses"], key=lambda a: worst["losses"][a])
    return (
        f"{' or '.join(packed)} fell below the best arm within the budget on {len(lost)} of {count(total, 'task')}"
        + (f" ({each})" if len(packed) > 1 else "")
        + f"; the largest loss is {points(worst['loss'])} on {worst['instance_id']}, where {arm} quoted"
        f" {percent(worst['best_value'] - worst['losses'][arm])} of the gold lines and"
        f" {names(worst['best'])} {percent(worst['best_value'])}."
    )


def _lost(loss: float) -> bool:
    """A loss that shows as at least 0.1 point (a smaller one prints as 0.0)."""
    return loss * 100 >= TIE_POINTS


def index_sentence(index: Mapping[str, Mapping[str, Any]]) -> str:
    if not index:
        return "No index was built."
    total = sum(float(i.get("refresh_s_total") or 0.0) for i in index.values())
    refreshes = sum(int(i.get("refreshes") or 0) for i in index.values())
    slow = max(index.items(), key=lambda kv: float(kv[1].get("refresh_s_total") or 0.0))
    return (
        f"Keeping the indexes fresh took {total:,.1f} s over {count(refreshes, 'refresh', 'refreshes')};"
        f" {slow[0]} took the most ({float(slow[1].get('refresh_s_total') or 0.0):,.1f} s)."
    )
