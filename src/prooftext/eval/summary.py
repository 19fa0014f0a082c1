"""Summaries of per-task rows: per arm, per repository, and the index cost, for SWE-bench.

Rates and means use every task of the arm as the denominator: a failed arm counts as a miss (Acc@k false,
recall 0), so failures can only lower a score. Fractions are in [0, 1]; reports show percentages.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from prooftext.eval.metrics import ACC_KS, frequencies, mean_or_none, median_or_none, percentile, share
from prooftext.eval.model_summary import SWE_SCORES, model_arm_summary

Row = Mapping[str, Any]

ANCHORS_SWEBENCH: tuple[dict[str, Any], ...] = (
    {
        "name": "BM25 (SWE-bench Lite; LocAgent paper, Table 4)",
        "metric": "acc@5",
        "value": 0.617,
    },
    {
        "name": "CodeRankEmbed (SWE-bench Lite; LocAgent paper, Table 4)",
        "metric": "acc@5",
        "value": 0.847,
    },
)
"""Published file-localization anchors, printed beside our numbers (not the same task set: ours is dev)."""

P50 = 50
P95 = 95


def _arm_results(rows: Sequence[Row], arm: str) -> list[Mapping[str, Any]]:
    return [r["arms"][arm] for r in rows if arm in r.get("arms", {})]


def _mean_of(results: Sequence[Mapping[str, Any]], key: str) -> float | None:
    values = [float(a.get(key) or 0.0) if a.get("ok") else 0.0 for a in results]
    return mean_or_none(values)


def _ranking(results: Sequence[Mapping[str, Any]], out: dict[str, Any]) -> None:
    if not any("acc" in a for a in results if a.get("ok")):
        return
    for k in ACC_KS:
        out[f"acc@{k}"] = share([bool(a.get("ok") and a["acc"][str(k)]) for a in results])
    out["mrr_all_gold"] = mean_or_none([_reciprocal_rank(a) for a in results])


def _reciprocal_rank(result: Mapping[str, Any]) -> float:
    """1 / the rank at which the last gold file appears (0 when one is missing or the arm failed)."""
    ranks = list((result.get("gold_ranks") or {}).values()) if result.get("ok") else []
    if not ranks or any(r is None for r in ranks):
        return 0.0
    return 1.0 / max(int(r) for r in ranks)


def _packets(results: Sequence[Mapping[str, Any]], out: dict[str, Any]) -> None:
    ok = [a for a in results if a.get("ok")]
    out["gold_file_recall"] = _mean_of(results, "gold_file_recall")
    out["all_gold_files"] = share([bool(a.get("ok") and a.get("all_gold_files")) for a in results])
    out["gold_line_recall"] = _mean_of(results, "gold_line_recall")
    tokens = [float(a["prompt_tokens"]) for a in ok if "prompt_tokens" in a]
    out["prompt_tokens_mean"] = mean_or_none(tokens)
    out["prompt_tokens_median"] = median_or_none(tokens)
    latency = [float(a["latency_ms"]) for a in ok if "latency_ms" in a]
    out["latency_ms_p50"] = percentile(latency, P50)
    out["latency_ms_p95"] = percentile(latency, P95)
    cpu = [float(a["cpu_ms"]) for a in ok if "cpu_ms" in a]
    out["cpu_ms_p50"] = percentile(cpu, P50)
    out["cpu_ms_p95"] = percentile(cpu, P95)


def _adaptive(results: Sequence[Mapping[str, Any]], out: dict[str, Any]) -> None:
    ok = [a for a in results if a.get("ok")]
    if any("stop_reason" in a for a in ok):
        out["stop_reasons"] = frequencies(a["stop_reason"] for a in ok)
        out["selected_rounds"] = frequencies(a["selected_round"] for a in ok)
        out["rounds"] = frequencies(a["rounds"] for a in ok)


def _budget_fit(results: Sequence[Mapping[str, Any]], budget: int | None, out: dict[str, Any]) -> None:
    """``fits_budget``: the share of the arm's answered tasks whose prompt is within the budget (a row's
    own ``fits_budget`` when the budget is not given); ``over_budget``: how many tasks it exceeded."""
    ok = [a for a in results if a.get("ok")]
    if budget is not None:
        fits = [int(a["prompt_tokens"]) <= budget for a in ok if "prompt_tokens" in a]
    else:
        fits = [bool(a["fits_budget"]) for a in ok if "fits_budget" in a]
    if fits:
        out["fits_budget"] = share(fits)
        out["over_budget"] = fits.count(False)


def arm_summary(rows: Sequence[Row], arm: str, budget: int | None = None) -> dict[str, Any]:
    results = _arm_results(rows, arm)
    out: dict[str, Any] = {
        "tasks": len(results),
        "failures": sum(1 for a in results if not a.get("ok")),
        "failure_codes": frequencies(a["error"]["code"] for a in results if not a.get("ok")),
    }
    _ranking(results, out)
    _packets(results, out)
    _adaptive(results, out)
    _budget_fit(results, budget, out)
    out.update(model_arm_summary(results, SWE_SCORES))
    if "model" in out:
        out["unparseable"] = out["model"].get("unparseable", 0)
    return out


def index_summary(rows: Sequence[Row]) -> dict[str, Any]:
    """What keeping each work tree's index fresh cost, per repository."""
    out: dict[str, Any] = {}
    for repo in sorted({str(r["repo"]) for r in rows}):
        steps = [r.get("index", {}) for r in rows if r["repo"] == repo]
        built = [s for s in steps if "refresh_s" in s]
        refresh = [float(s["refresh_s"]) for s in built]
        cpu = [float(s.get("refresh_cpu_s", 0.0)) for s in built]
        out[repo] = {
            "tasks": len(steps),
            "refreshes": len(built),
            "shards": len({r.get("shard") for r in rows if r["repo"] == repo}),
            "refresh_s_total": round(sum(refresh), 3),
            "refresh_s_max": max(refresh, default=0.0),
            "refresh_cpu_s_total": round(sum(cpu), 3),
            "refresh_s_median": median_or_none(refresh),
            "checkout_s_total": round(sum(float(s.get("checkout_s", 0.0)) for s in built), 3),
            "files_indexed_total": sum(int(s.get("files_indexed", 0)) for s in built),
            "errors": sum(1 for s in steps if "error" in s),
        }
    return out


def swebench_summary(rows: Sequence[Row], arms: Sequence[str], budget: int | None = None) -> dict[str, Any]:
    """Per arm, per repository and the index cost; with ``budget``, each arm's share of tasks whose prompt
    fits it."""
    repos = sorted({str(r["repo"]) for r in rows})
    return {
        "tasks": len(rows),
        "arms": {arm: arm_summary(rows, arm, budget) for arm in arms},
        "by_repo": {
            repo: {arm: arm_summary([r for r in rows if r["repo"] == repo], arm, budget) for arm in arms}
            for repo in repos
        },
        "index": index_summary(rows),
        "tasks_with_gold_not_indexed": sum(1 for r in rows if r.get("gold_not_indexed")),
        "tasks_with_files_left_out": sum(1 for r in rows if r.get("files_left_out")),
        "files_left_out": frequencies(f["reason"] for r in rows for f in r.get("files_left_out", [])),
        "anchors": list(ANCHORS_SWEBENCH),
    }
