"""What a model's answers add to a run's summary and report: task success per arm, its spread over repeats,
tokens, cost and latency, with a sentence per table saying what won.

Per arm, with every task of the arm as the denominator (an answer that failed, could not be parsed or was
never sent counts as a miss):

- ``success``: the mean, over repeats, of the share of tasks the model got right (SWE-bench: it named every
  gold file; LoCoMo: the paper's score is at least 0.5); ``success_std``: the sample standard deviation of
  that share over repeats; ``agreement``: the share of tasks whose success is the same in every repeat.
- LoCoMo ``answer_f1`` and ``answer_em``; SWE-bench ``file_accuracy`` (every gold file named),
  ``function_accuracy`` (every gold function or class named; tasks whose patch names none are left out) and
  ``unparseable`` answers.
- ``model``: answers asked now and taken from the cache, failures by code, prompt tokens (ours, and the
  server's count where it reports one), output tokens, provider cost from the declared prices, and latency
  (load, prompt processing and generation from Ollama's timing fields; wall clock for every backend).
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import prooftext.eval.html as html
from prooftext.eval.metrics import frequencies, mean_or_none, percentile
from prooftext.eval.prose import count, leaders, metric_label, names, percent, points, ranked, tokens
from prooftext.eval.swe_findings import failure_reasons

if TYPE_CHECKING:
    from matplotlib.figure import Figure

P50 = 50
LOG_SCALE_RATIO = 10
"""The success plot's token axis is logarithmic when the largest arm sends this many times the smallest."""
SHOWN_RIVALS = 4
"""A sentence names at most this many runners-up."""
LOCOMO_SCORES = {"answer_f1": "f1", "answer_em": "em"}
SWE_SCORES = {"file_accuracy": "file_hit", "function_accuracy": "function_hit"}
SWE_MODEL_METRICS = ("success", "file_accuracy", "function_accuracy")
LOCOMO_MODEL_METRICS = ("success", "answer_f1", "answer_em")
"""The model's scores a declaration may name (higher is better)."""

Arms = Mapping[str, Mapping[str, Any]]
Result = Mapping[str, Any]


def unit_of(benchmark: str) -> str:
    """What one row of ``benchmark`` is called in the text: a LoCoMo ``question``, a SWE-bench ``task`` (the
    JSON keys keep ``task``: ``failed_tasks``, ``cost_usd_per_task``)."""
    return "question" if benchmark == "locomo" else "task"


def _repeat(result: Result, number: int) -> Mapping[str, Any] | None:
    for answer in (result.get("model") or {}).get("repeats", []):
        if answer.get("repeat") == number:
            return dict(answer)
    return None


def _value(answer: Mapping[str, Any] | None, key: str) -> float:
    if not answer or not answer.get("ok"):
        return 0.0
    value = answer.get(key)
    return float(value) if isinstance(value, int | float) else 0.0


def _task_mean(result: Result, key: str, repeats: int) -> float | None:
    """A task's mean of ``key`` over repeats; None when its answers do not define it (no gold function)."""
    answers = [_repeat(result, n) for n in range(repeats)]
    defined = [a for a in answers if a and a.get("ok")]
    if defined and all(a.get(key) is None for a in defined):
        return None
    return sum(_value(a, key) for a in answers) / repeats


def repeats_of(results: Sequence[Result]) -> int:
    """How many repeats the run asked for (every sent arm records each one, answered or failed)."""
    return max((len((r.get("model") or {}).get("repeats", [])) for r in results), default=0) or 1


def model_arm_summary(results: Sequence[Result], scores: Mapping[str, str]) -> dict[str, Any]:
    """The model's part of one arm's summary (empty when no model ran)."""
    if not any("model" in r for r in results):
        return {}
    repeats = repeats_of(results)
    sent = [r for r in results if (r.get("model") or {}).get("sent")]
    answers = [a for r in sent for a in r["model"]["repeats"]]
    ok = [a for a in answers if a.get("ok")]
    out: dict[str, Any] = {}
    if not sent:
        out.update({"success": None, "success_std": None, "agreement": None})
        out.update({name: None for name in scores})
    else:
        by_repeat = [
            statistics.fmean(_value(_repeat(r, n), "success") for r in results) for n in range(repeats)
        ]
        out["success"] = statistics.fmean(by_repeat)
        out["success_std"] = statistics.stdev(by_repeat) if repeats > 1 else None
        out["success_by_repeat"] = by_repeat
        agreeing = [len({_value(_repeat(r, n), "success") for n in range(repeats)}) == 1 for r in results]
        out["agreement"] = sum(agreeing) / len(agreeing)
        for name, key in scores.items():
            values = [_task_mean(r, key, repeats) for r in results]
            out[name] = mean_or_none([v for v in values if v is not None])
    model: dict[str, Any] = {
        "sent": len(sent),
        "not_sent": len(results) - len(sent),
        "not_sent_reasons": frequencies(
            (r.get("model") or {}).get("reason", "the arm failed") for r in results if r not in sent
        ),
        "answers": len(answers),
        "answered": len(ok),
        "asked": sum(1 for a in ok if not a.get("cached")),
        "cached": sum(1 for a in ok if a.get("cached")),
        "errors": len(answers) - len(ok),
        "error_codes": frequencies(a["error"]["code"] for a in answers if not a.get("ok")),
        "done_reasons": frequencies(a.get("done_reason") for a in ok),
        "served_models": frequencies(a["served_model"] for a in ok if a.get("served_model") is not None),
        "switched": sum(1 for a in ok if a.get("model_switched")),
        "prompt_tokens_mean": mean_or_none([float(r["prompt_tokens"]) for r in sent]),
        "server_prompt_tokens_mean": mean_or_none(
            [float(a["server_prompt_tokens"]) for a in ok if a.get("server_prompt_tokens") is not None]
        ),
        "output_tokens_mean": mean_or_none([float(a["output_tokens"]) for a in ok]),
    }
    if "file_hit" in scores.values():
        model["unparseable"] = sum(1 for a in ok if a.get("parsed") is False)
    costs = [float(a["cost_usd"]) for a in ok if a.get("cost_usd") is not None]
    model["cost_usd"] = sum(costs) if costs else None
    model["cost_usd_per_task"] = sum(costs) / len(results) / repeats if costs else None
    model["spent_usd"] = (
        sum(float(a["cost_usd"]) for a in ok if a.get("cost_usd") is not None and not a.get("cached"))
        if costs
        else None
    )
    for key in ("wall_ms", "load_ms", "prompt_ms", "generation_ms"):
        model[f"{key}_p50"] = percentile([float(a[key]) for a in ok if a.get(key) is not None], P50)
    out["model"] = model
    return out


def category_scores(results: Sequence[Result]) -> dict[str, Any]:
    """LoCoMo's answer F1 and exact match over one category's questions."""
    if not any("model" in r for r in results):
        return {}
    repeats = repeats_of(results)
    f1 = [_task_mean(r, "f1", repeats) for r in results]
    em = [_task_mean(r, "em", repeats) for r in results]
    return {
        "answer_f1": mean_or_none([v for v in f1 if v is not None]),
        "answer_em": mean_or_none([v for v in em if v is not None]),
    }


def task_failed(row: Mapping[str, Any], with_model: bool) -> bool:
    """A task failed when no arm of it produced a packet, or, with a model, no arm got an answer."""
    arms = row.get("arms") or {}
    if not any(a.get("ok") for a in arms.values()):
        return True
    if with_model:
        return not any(
            any(x.get("ok") for x in (a.get("model") or {}).get("repeats", [])) for a in arms.values()
        )
    return False


def run_totals(rows: Sequence[Mapping[str, Any]], with_model: bool) -> dict[str, Any]:
    """How many tasks failed outright, whether all did, and (with a model) the answers asked and cached."""
    failed = sum(1 for r in rows if task_failed(r, with_model))
    out: dict[str, Any] = {"failed_tasks": failed, "all_failed": bool(rows) and failed == len(rows)}
    if with_model:
        answers = [
            x
            for r in rows
            for a in (r.get("arms") or {}).values()
            for x in (a.get("model") or {}).get("repeats", [])
        ]
        out["answers"] = {
            "total": len(answers),
            "asked": sum(1 for x in answers if x.get("ok") and not x.get("cached")),
            "cached": sum(1 for x in answers if x.get("ok") and x.get("cached")),
            "errors": sum(1 for x in answers if not x.get("ok")),
        }
    return out


# --- sentences --------------------------------------------------------------------------------------------


def _cost_text(summary: Mapping[str, Any], unit: str) -> str:
    model = summary.get("model") or {}
    cost = model.get("cost_usd_per_task")
    return f"{dollars(float(cost))} per {unit}" if isinstance(cost, int | float) else "no declared price"


def dollars(value: float) -> str:
    """US dollars with enough digits to show a small cost: $0.0917, $0.000023."""
    if value == 0 or value >= 0.01:
        return f"${value:,.4f}"
    return f"${value:.2g}" if value < 1e-6 else f"${value:.6f}"


def failed_answers(arms: Arms) -> str:
    """The error codes of the answers that failed, over every arm (``backend_unavailable 6``), or ""."""
    counts: dict[str, int] = {}
    for summary in arms.values():
        for code, n in ((summary.get("model") or {}).get("error_codes") or {}).items():
            counts[code] = counts.get(code, 0) + int(n)
    return ", ".join(f"{code} {n}" for code, n in sorted(counts.items()))


def _codes(failed: str) -> str:
    return f" ({failed})" if failed else ""


def success_sentence(arms: Arms, metric: str = "success", unit: str = "task") -> str:
    """Which arm's answers were right most often, at what prompt size, and each other arm's distance; when
    no answer arrived, why (no arm wins at 0 %)."""
    if not any((s.get("model") or {}).get("answered") for s in arms.values()):
        return f"No answer arrived from the model: every one failed{_codes(failed_answers(arms))}."
    order = ranked({a: s.get(metric) for a, s in arms.items()})
    if not order:
        return "No arm's prompt was answered by the model."
    top = leaders(order)
    best = min(top, key=lambda a: float(arms[a]["model"].get("prompt_tokens_mean") or 0.0))
    value = order[0][1]
    parts = [
        f"With the model, {best} has the highest {metric_label(metric, unit)}: {percent(value)}"
        f" at {_tokens(arms[best])} prompt tokens on average"
    ]
    tied = [a for a in top if a != best]
    if tied:
        parts.append(f"{names(tied)} tie{'s' if len(tied) == 1 else ''} it with more tokens")
    lower = [f"{a} {points(value - v)} lower" for a, v in order if a not in top]
    if len(lower) > SHOWN_RIVALS:
        lower = [*lower[:SHOWN_RIVALS], f"{len(lower) - SHOWN_RIVALS} more arms further below"]
    if lower:
        parts.append(names(lower))
    return "; ".join(parts) + "."


def _tokens(summary: Mapping[str, Any]) -> str:
    value = (summary.get("model") or {}).get("prompt_tokens_mean")
    return tokens(float(value)) if isinstance(value, int | float) else "no"


def variance_sentence(arms: Arms, repeats: int, unit: str = "task") -> str:
    if repeats < 2:
        return "One repeat: no spread over repeats is measured (run with --repeats N for it)."
    spread = {
        a: float(s["success_std"])
        for a, s in arms.items()
        if isinstance(s.get("success_std"), float) and (s.get("model") or {}).get("answered")
    }
    if not spread:
        return f"Over {repeats} repeats no arm was answered."
    widest = max(spread.items(), key=lambda kv: kv[1])
    agree = ranked({a: s.get("agreement") for a, s in arms.items()})
    low = agree[-1]
    if low[1] >= 1.0:
        return f"Over {repeats} repeats every {unit} got the same result in every repeat, in every arm."
    if widest[1] * 100 < 0.05:
        head = f"Over {repeats} repeats every arm's share of successes is the same in each repeat"
    else:
        head = (
            f"Over {repeats} repeats success varies most for {widest[0]}"
            f" (standard deviation {points(widest[1])})"
        )
    return (
        f"{head}; per {unit}, {low[0]} is the least stable: its {unit}s get the same result in every repeat"
        f" {percent(low[1])} of the time."
    )


def declared_prices(summary: Mapping[str, Any]) -> bool:
    """Whether the run declared its prices (``--price-input``, ``--price-output``)."""
    return (summary.get("model") or {}).get("price_input_usd_per_mtok") is not None


def cost_sentence(arms: Arms, unit: str = "task", *, priced: bool = False) -> str:
    """The cheapest arm among those with the highest success, and what the most expensive one costs;
    ``priced`` says whether prices were declared, for a run in which no answer arrived to be priced."""
    costed = {
        a: s for a, s in arms.items() if isinstance((s.get("model") or {}).get("cost_usd_per_task"), float)
    }
    if not costed:
        out = {a: (s.get("model") or {}).get("output_tokens_mean") for a, s in arms.items()}
        order = ranked(out)
        if not order:
            if priced:
                return "Prices were declared but no answer arrived, so no cost is computed."
            return "No prices were declared and no answer arrived, so no cost is computed."
        low, high = tokens(order[-1][1]), tokens(order[0][1])
        spread = (
            f"are {low} in every arm"
            if low == high
            else f"range from {low} ({order[-1][0]}) to {high} ({order[0][0]})"
        )
        return (
            "No prices were declared (--price-input, --price-output), so cost is not computed; mean output"
            f" tokens {spread}."
        )
    cheap = min(costed, key=lambda a: float(costed[a]["model"]["cost_usd_per_task"]))
    dear = max(costed, key=lambda a: float(costed[a]["model"]["cost_usd_per_task"]))
    text = (
        f"At the declared prices {cheap} is the cheapest arm ({_cost_text(costed[cheap], unit)},"
        f" success {percent(float(costed[cheap].get('success') or 0.0))})"
    )
    if dear != cheap:
        text += f" and {dear} the most expensive ({_cost_text(costed[dear], unit)}, success {percent(float(costed[dear].get('success') or 0.0))})"
    return text + "."


def latency_sentence(arms: Arms) -> str:
    walls = {a: (s.get("model") or {}).get("wall_ms_p50") for a, s in arms.items()}
    order = sorted(
        ((a, float(v)) for a, v in walls.items() if isinstance(v, int | float)), key=lambda kv: kv[1]
    )
    if not order:
        return "No answer was timed."
    text = f"Median model wall time: {order[0][0]} is the fastest at {order[0][1]:,.0f} ms"
    if len(order) > 1:
        text += f", {order[-1][0]} the slowest at {order[-1][1]:,.0f} ms"
    split = {a: (s.get("model") or {}).get("prompt_ms_p50") for a, s in arms.items()}
    if any(isinstance(v, int | float) for v in split.values()):
        text += "; the load, prompt-processing and generation columns come from the server's own timings"
    else:
        text += "; the server reports no timing split, so only wall time is shown"
    return text + "."


def model_verdict_sentence(summary: Mapping[str, Any], unit: str = "task") -> str:
    """The declared reference (whether it fits the budget, and what is compared instead), then pass/fail."""
    reference = summary.get("reference") or {}
    declaration = summary["declaration"]
    verdict: Mapping[str, Any] = summary.get("verdict", {})
    passed = [a for a, v in verdict.items() if v.get("passes")]
    failed = [
        f"{a} ({failure_reasons(v, declaration, reference.get('arm'), unit)})"
        for a, v in verdict.items()
        if not v.get("passes")
    ]
    head = str(reference.get("why") or "there is no reference")
    head = head[0].upper() + head[1:]
    metric = metric_label(declaration["metric"], unit)
    outcome = f"passing on {metric}: {names(passed)}" if passed else f"no arm passes on {metric}"
    if failed:
        outcome += f"; failing: {names(failed)}"
    return f"{head}. {outcome[0].upper()}{outcome[1:]}."


# --- tables -----------------------------------------------------------------------------------------------

Table = tuple[str, list[str], list[list[str]]]


def _score_cells(s: Mapping[str, Any], scores: Sequence[str]) -> list[str]:
    return [html.pct(s.get(name)) for name in scores]


def model_table(arms: Arms, benchmark: str, repeats: int) -> Table:
    """Success and the benchmark's scores per arm, with spread over repeats and the tokens sent."""
    scores = list(LOCOMO_SCORES if benchmark == "locomo" else SWE_SCORES)
    headers = ["arm", "success %", *[metric_label(n) + " %" for n in scores]]
    headers += ["std (pts)", "agree %"] if repeats > 1 else []
    headers += ["tokens mean", "server tokens", "output tokens"]
    if benchmark != "locomo":
        headers.append("unparseable")
    rows = []
    for arm, s in arms.items():
        model = s.get("model") or {}
        row = [arm, html.pct(s.get("success")), *_score_cells(s, scores)]
        if repeats > 1:
            std = s.get("success_std")
            row += [html.num(100 * std, 1) if isinstance(std, float) else "–", html.pct(s.get("agreement"))]
        row += [
            html.num(model.get("prompt_tokens_mean")),
            html.num(model.get("server_prompt_tokens_mean")),
            html.num(model.get("output_tokens_mean"), 1),
        ]
        if benchmark != "locomo":
            row.append(str(model.get("unparseable", 0)))
        rows.append(row)
    return (f"model answers ({repeats} repeat{'s' if repeats > 1 else ''})", headers, rows)


def cost_table(arms: Arms, unit: str = "task") -> Table:
    """Provider cost and latency per arm, and how the answers were had (asked now, cached, failed)."""
    headers = [
        "arm",
        f"cost $/{unit}",
        "cost $",
        "asked",
        "cached",
        "errors",
        "wall ms p50",
        "load ms",
        "prompt ms",
        "gen ms",
    ]
    rows = []
    for arm, s in arms.items():
        m = s.get("model") or {}
        cost = m.get("cost_usd_per_task")
        total = m.get("cost_usd")
        rows.append(
            [
                arm,
                f"{cost:.5f}" if isinstance(cost, float) else "–",
                f"{total:.4f}" if isinstance(total, float) else "–",
                str(m.get("asked", 0)),
                str(m.get("cached", 0)),
                str(m.get("errors", 0)),
                html.num(m.get("wall_ms_p50"), 1),
                html.num(m.get("load_ms_p50"), 1),
                html.num(m.get("prompt_ms_p50"), 1),
                html.num(m.get("generation_ms_p50"), 1),
            ]
        )
    return ("model cost and latency", headers, rows)


def stop_table(arms: Arms) -> Table | None:
    """How the model's answers ended (the server's done or finish reason), per arm."""
    reasons = sorted({r for s in arms.values() for r in (s.get("model") or {}).get("done_reasons", {})})
    if not reasons:
        return None
    rows = [
        [arm, *[str((s.get("model") or {}).get("done_reasons", {}).get(r, 0)) for r in reasons]]
        for arm, s in arms.items()
    ]
    return ("model stop reasons (answers)", ["arm", *reasons], rows)


def has_model(arms: Arms) -> bool:
    return any("model" in s for s in arms.values())


def model_tables(summary: Mapping[str, Any], benchmark: str) -> list[Table]:
    """The terminal's model tables (none without a model)."""
    arms = summary.get("arms") or {}
    if not has_model(arms):
        return []
    repeats = int((summary.get("model") or {}).get("repeats") or 1)
    tables = [*_narrow(model_table(arms, benchmark, repeats)), *_narrow(cost_table(arms, unit_of(benchmark)))]
    stops = stop_table(arms)
    return tables + ([stops] if stops is not None else [])


TERMINAL_VALUE_COLUMNS = 5
"""Value columns of one terminal table beside the arm's: a wider table would not fit 80 columns."""


def _narrow(table: Table) -> list[Table]:
    """``table`` cut into tables of at most :data:`TERMINAL_VALUE_COLUMNS` value columns, each with the arm."""
    title, headers, rows = table
    parts = range(1, len(headers), TERMINAL_VALUE_COLUMNS)
    return [
        (
            title if i == 1 else f"{title} (continued)",
            [headers[0], *headers[i : i + TERMINAL_VALUE_COLUMNS]],
            [[row[0], *row[i : i + TERMINAL_VALUE_COLUMNS]] for row in rows],
        )
        for i in parts
    ]


def switch_sentence(arms: Arms, requested: object) -> str | None:
    """What to say when the server answered as another model than the one requested; None when it never did."""
    models = [s.get("model") or {} for s in arms.values()]
    switched = sum(int(m.get("switched") or 0) for m in models)
    if not switched:
        return None
    answered = sum(int(m.get("answered") or 0) for m in models)
    served: dict[str, int] = {}
    for m in models:
        for name, n in (m.get("served_models") or {}).items():
            served[name] = served.get(name, 0) + int(n)
    names = ", ".join(f"{name!r} {n}" for name, n in sorted(served.items()))
    return (
        f"Warning: the server answered {switched} of {count(answered, 'answer')} as another model than {requested!r}"
        f" (served: {names}); the scores are that model's."
    )


def model_notes(summary: Mapping[str, Any], benchmark: str = "swebench") -> list[str]:
    """The terminal's model sentences: what won, the spread, the cost, the verdict and the answers had."""
    arms = summary.get("arms") or {}
    if not has_model(arms):
        return []
    repeats = int((summary.get("model") or {}).get("repeats") or 1)
    answers = summary.get("answers") or {}
    unit = unit_of(benchmark)
    switch = switch_sentence(arms, (summary.get("model") or {}).get("model"))
    return [
        *([switch] if switch else []),
        success_sentence(arms, unit=unit),
        variance_sentence(arms, repeats, unit),
        cost_sentence(arms, unit, priced=declared_prices(summary)),
        model_verdict_sentence(summary, unit),
        f"answers: {answers.get('asked', 0)} asked, {answers.get('cached', 0)} from the cache,"
        f" {answers.get('errors', 0)} failed{_codes(failed_answers(arms))};"
        f" {unit}s failed outright: {summary.get('failed_tasks', 0)}",
    ]


# --- plots ------------------------------------------------------------------------------------------------


def success_plot(arms: Arms, unit: str = "task") -> Figure:
    """Each arm's success against its mean prompt tokens, with the spread over repeats as error bars."""
    fig = html.new_figure(8.0, 4.0)
    ax = fig.add_subplot()
    for number, (arm, s) in enumerate(arms.items()):
        x = (s.get("model") or {}).get("prompt_tokens_mean")
        y = s.get("success")
        if not isinstance(x, int | float) or not isinstance(y, int | float):
            continue
        std = s.get("success_std")
        ax.errorbar(
            [x],
            [100 * y],
            yerr=[100 * std] if isinstance(std, float) else None,
            markersize=8,
            capsize=4,
            color=f"C{number % 10}",
            marker="osD^v<>"[number // 10 % 7],
            label=arm,
            linestyle="none",
        )
    sizes = [
        float(s["model"]["prompt_tokens_mean"])
        for s in arms.values()
        if isinstance((s.get("model") or {}).get("prompt_tokens_mean"), int | float)
    ]
    wide = bool(sizes) and min(sizes) > 0 and max(sizes) / min(sizes) > LOG_SCALE_RATIO
    if wide:
        ax.set_xscale("log")
    ax.set_ylim(-3, 105)
    ax.set_xlabel("mean prompt tokens sent" + (" (log scale)" if wide else ""))
    ax.set_ylabel(f"{unit} success, %")
    ax.set_title(f"Model {unit} success vs prompt tokens (bars: standard deviation over repeats)")
    if ax.get_legend_handles_labels()[0]:
        html.legend_outside(ax)
    return fig


def cost_plot(arms: Arms, unit: str = "task", *, priced: bool = False) -> Figure:
    """Cost per ``unit`` (declared prices) per arm; without prices (or, with ``priced``, without an answer
    to price), the mean prompt and output tokens."""
    fig = html.new_figure(8.0, 3.4)
    ax = fig.add_subplot()
    names_ = list(arms)
    costs = [(arms[a].get("model") or {}).get("cost_usd_per_task") for a in names_]
    if any(isinstance(c, float) for c in costs):
        ax.bar(names_, [float(c) if isinstance(c, float) else 0.0 for c in costs], color="#4c72b0")
        ax.set_ylabel(f"US dollars per {unit}")
        ax.set_title(f"Provider cost per {unit} at the declared prices")
    else:
        prompt = [float((arms[a].get("model") or {}).get("prompt_tokens_mean") or 0.0) for a in names_]
        output = [float((arms[a].get("model") or {}).get("output_tokens_mean") or 0.0) for a in names_]
        ax.bar(names_, prompt, label="prompt", color="#4c72b0")
        ax.bar(names_, output, bottom=prompt, label="output", color="#dd8452")
        ax.set_ylabel("tokens per answer")
        ax.set_title(f"Tokens per answer ({'no answer to price' if priced else 'no prices declared'})")
        html.legend_outside(ax)
    ax.tick_params(axis="x", labelrotation=30)
    return fig


def settings_note(settings: Mapping[str, Any], unit: str) -> str:
    """The model's settings as the report states them, and what success means per ``unit``."""
    repeats = int(settings.get("repeats") or 1)
    return (
        f"Model {settings.get('model')} on {settings.get('backend')} at {settings.get('endpoint') or 'the default endpoint'};"
        f" instruction {(settings.get('instruction') or {}).get('version')}; temperature"
        f" {settings.get('temperature') if settings.get('temperature') is not None else 'server default'}, seed"
        f" {settings.get('seed') if settings.get('seed') is not None else 'none'}; {count(repeats, 'repeat')}."
        f" Success: the share of {unit}s answered right (a failed, unparseable or unsent answer is a miss)."
    )


def model_section(report: html.HtmlReport, summary: Mapping[str, Any], benchmark: str) -> None:
    """The report's model section: settings, a verdict sentence, the tables and the two plots."""
    arms = summary["arms"]
    settings = summary.get("model") or {}
    repeats = int(settings.get("repeats") or 1)
    unit = unit_of(benchmark)
    report.heading("Model in the loop")
    report.note(settings_note(settings, unit))
    switch = switch_sentence(arms, settings.get("model"))
    if switch:
        report.finding(switch)
    report.finding(success_sentence(arms, unit=unit))
    _, headers, rows = model_table(arms, benchmark, repeats)
    report.table(headers, rows)
    report.finding(variance_sentence(arms, repeats, unit))
    report.figure(success_plot(arms, unit), f"model {unit} success vs prompt tokens")
    report.heading("Cost and latency", 3)
    report.finding(cost_sentence(arms, unit, priced=declared_prices(summary)))
    report.figure(cost_plot(arms, unit, priced=declared_prices(summary)), f"cost per {unit} per arm")
    report.finding(latency_sentence(arms))
    _, headers, rows = cost_table(arms, unit)  # its columns: cost, then the answers' timing
    report.table(headers, rows)
    stops = stop_table(arms)
    if stops is not None:
        report.heading("How the answers ended", 3)
        report.finding(done_sentence(arms))
        report.table(stops[1], stops[2])


def done_sentence(arms: Arms) -> str:
    totals: dict[str, int] = {}
    for s in arms.values():
        for reason, n in (s.get("model") or {}).get("done_reasons", {}).items():
            totals[reason] = totals.get(reason, 0) + int(n)
    if not totals:
        return "No answer arrived."
    total = sum(totals.values())
    top = max(totals.items(), key=lambda kv: kv[1])
    cut = totals.get("length", 0)
    tail = f"; {cut} hit the output limit" if cut else "; none hit the output limit"
    return f"The model ended {top[1]} of {count(total, 'answer')} with {top[0]}{tail}."
