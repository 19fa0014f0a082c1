"""What a LoCoMo run found, one sentence per table and plot, computed from its summary: which arm had the
highest evidence recall at each budget and by how much, where the packed curves end and why, which
categories are hard, and what the adaptive packet's stop reasons were per ceiling."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from prooftext.eval.locomo_data import CATEGORY_NAMES
from prooftext.eval.prose import count, leaders, names, percent, points, ranked, tokens
from prooftext.eval.swe_findings import failure_reasons

Arms = Mapping[str, Mapping[str, Any]]
FILLED = 0.9
"""A packed arm whose mean prompt is below this share of its budget stopped short of it (worth a note)."""
ADAPTIVE = "adaptive"
CEILING_STOP = "hard_limit_reached"


def split_key(key: str) -> tuple[str, int | None]:
    """``fixed@2048`` → ``("fixed", 2048)``; ``full`` → ``("full", None)``."""
    name, _, budget = key.partition("@")
    return name, int(budget) if budget else None


NO_BUDGETED_ARM = "No budgeted arm ran."


def budgets_of(arms: Arms) -> list[int]:
    return sorted({b for k in arms if (b := split_key(k)[1]) is not None})


def largest_budget(arms: Arms) -> int | None:
    """The largest budget any budgeted arm ran at, or None when none did."""
    budgets = budgets_of(arms)
    return budgets[-1] if budgets else None


def _recall(summary: Mapping[str, Any]) -> float | None:
    value = summary.get("evidence_recall")
    return float(value) if isinstance(value, int | float) else None


def at_budget(arms: Arms, budget: int) -> dict[str, float | None]:
    """Each budgeted arm's evidence recall at ``budget``, by arm name."""
    return {split_key(k)[0]: _recall(s) for k, s in arms.items() if split_key(k)[1] == budget}


def _mean_tokens(summary: Mapping[str, Any] | None) -> str:
    value = (summary or {}).get("prompt_tokens_mean")
    return tokens(float(value)) if isinstance(value, int | float) else "no"


def _tokens_or_inf(summary: Mapping[str, Any]) -> float:
    value = summary.get("prompt_tokens_mean")
    return float(value) if isinstance(value, int | float) else float("inf")


def run_note(summary: Mapping[str, Any]) -> str:
    """What the run covered (questions, those with evidence, conversations, wall time) and what each
    figure averages over: recall over the questions with evidence, the rest over every question asked."""
    asked, scored = int(summary["questions"]), int(summary["questions_with_evidence"])
    return (
        f"{count(asked, 'question')} ({scored:,} with evidence) from"
        f" {count(int(summary['conversations']), 'conversation')}; wall time"
        f" {float(summary.get('wall_s') or 0.0):,.1f} s. Recall averages over the"
        f" {count(scored, 'question')} with evidence (a failed arm counts as 0); tokens, latency and stop"
        f" reasons count {'the' if asked == 1 else 'all'} {count(asked, 'question')} asked. arm@B: at a budget"
        " of B tokens (for adaptive, a ceiling)."
    )


def summary_sentence(arms: Arms) -> str:
    """The table of arms: the leader at each budget and its margin, and the unbudgeted references."""
    parts = []
    for budget in budgets_of(arms):
        order = ranked(at_budget(arms, budget))
        if not order:
            continue
        top = leaders(order)
        if len(top) == len(order):
            parts.append(f"{budget:,}: a tie at {percent(order[0][1])}")
            continue
        rest = order[len(top) :]
        runners = leaders(rest)
        parts.append(
            f"{budget:,}: {names(top)} {percent(order[0][1])}, {points(order[0][1] - rest[0][1])} above"
            f" {names(runners)}"
        )
    sentence = f"Highest evidence recall per budget — {'; '.join(parts)}." if parts else NO_BUDGETED_ARM
    fixed = [
        f"{k} holds {percent(v)} at {_mean_tokens(arms[k])} tokens"
        for k in ("full", "oracle")
        if k in arms and (v := _recall(arms[k])) is not None
    ]
    if fixed:
        sentence += f" For reference, {names(fixed)}."
    return sentence


def curves_sentence(arms: Arms) -> str:
    """The recall-vs-tokens plot: where each budgeted curve ends (its largest budget)."""
    last = largest_budget(arms)
    if last is None:
        return NO_BUDGETED_ARM
    ends = ranked(at_budget(arms, last))
    listed = names(f"{name} {percent(v)} at {_mean_tokens(arms.get(f'{name}@{last}'))}" for name, v in ends)
    return f"At the largest budget ({last:,} tokens) the curves end at: {listed} mean tokens."


def short_of_budget(arms: Arms) -> list[str]:
    """A note per packed arm whose curve ends well short of its largest budget, saying why when the run
    recorded it (the adaptive packet's stop reasons)."""
    last = largest_budget(arms)
    if last is None:
        return []
    notes = []
    for name in ("fixed", ADAPTIVE):
        s = arms.get(f"{name}@{last}")
        mean = (s or {}).get("prompt_tokens_mean")
        if not s or not isinstance(mean, int | float) or mean >= FILLED * last:
            continue
        note = f"The {name} curve ends at {tokens(float(mean))} tokens, {percent(mean / last)} of its {last:,}-token"
        if name == ADAPTIVE and s.get("stop_reasons"):
            stops = s["stop_reasons"]
            total = sum(stops.values())
            early = total - int(stops.get(CEILING_STOP, 0))
            note += (
                " ceiling: the adaptive packet climbs its ladder only until it estimates the evidence"
                f" sufficient, and stopped before the ceiling on {early:,} of {count(total, 'question')}"
                f" (stop reasons: {', '.join(f'{k} {v:,}' for k, v in sorted(stops.items()))})."
            )
        else:
            note += " budget: it stopped adding excerpts first (its node limit or the end of the ranked candidates)."
        notes.append(note)
    return notes


def stops_sentence(arms: Arms) -> str:
    """The adaptive stop reasons per ceiling: how often it hit the ceiling and how often it stopped early."""
    parts = []
    for budget in budgets_of(arms):
        stops = arms.get(f"{ADAPTIVE}@{budget}", {}).get("stop_reasons")
        if not stops:
            continue
        total = sum(stops.values())
        hit = int(stops.get(CEILING_STOP, 0))
        parts.append(f"{budget:,}: {hit} of {total}")
    if not parts:
        return "The adaptive packet recorded no stop reasons."
    return (
        f"Questions on which the adaptive packet ran into its ceiling ({CEILING_STOP}), per ceiling —"
        f" {'; '.join(parts)}; on the others it stopped early."
    )


def category_sentence(arms: Arms) -> str:
    """The category table: for the best arm at the largest budget, its weakest and strongest category."""
    last = largest_budget(arms)
    order = [] if last is None else ranked(at_budget(arms, last))
    if last is None or not order:
        return NO_BUDGETED_ARM
    key = min((f"{name}@{last}" for name in leaders(order)), key=lambda k: _tokens_or_inf(arms[k]))
    cats = ranked(
        {
            c: s.get("evidence_recall")
            for c, s in arms[key].get("by_category", {}).items()
            if s.get("questions")
        }
    )
    if not cats:
        return f"{key} answered no question with evidence."

    def label(c: str) -> str:
        return f"{c} {CATEGORY_NAMES.get(int(c), '')}".strip()

    return (
        f"For {key}, the best arm at the largest budget, the hardest category is {label(cats[-1][0])}"
        f" ({percent(cats[-1][1])}) and the easiest {label(cats[0][0])} ({percent(cats[0][1])})."
    )


def verdict_sentence(summary: Mapping[str, Any]) -> str:
    """Which reference the verdict measures from (and why), then which arms pass and which fail and why,
    grouped by arm with their budgets."""
    verdict: Mapping[str, Any] = summary.get("verdict", {})
    declaration: Mapping[str, Any] = summary.get("declaration", {})
    reference = (summary.get("reference") or {}).get("arm")
    passing: dict[tuple[str, str], list[str]] = {}
    failing: dict[tuple[str, str], list[str]] = {}
    for key, v in verdict.items():
        name, budget = split_key(key)
        shown = f"{budget:,}" if budget is not None else ""
        if v.get("passes"):
            passing.setdefault((name, ""), []).append(shown)
        else:
            reasons = failure_reasons(v, declaration, reference, "question")
            failing.setdefault((name, reasons), []).append(shown)

    def grouped(groups: Mapping[tuple[str, str], Sequence[str]]) -> str:
        return names(
            f"{name}{f' at {names(bs)}' if any(bs) else ''}{f' ({reasons})' if reasons else ''}"
            for (name, reasons), bs in groups.items()
        )

    why = (summary.get("reference") or {}).get("why")
    lead = f"{why[0].upper()}{why[1:]}. " if isinstance(why, str) and why else ""
    said = [f"passing: {grouped(passing)}" if passing else "no arm passes"]
    if failing:
        said.append(f"failing: {grouped(failing)}")
    text = "; ".join(said)
    return lead + text[0].upper() + text[1:] + "."


def anchor_sentence(arms: Arms, anchors: Sequence[Mapping[str, Any]]) -> str:
    top5 = _recall(arms.get("bm25_top5", {}))
    if top5 is None or not anchors:
        return "The published anchor is DRAGON's top-5 evidence recall; this run has no top-5 arm to set beside it."
    anchor = anchors[0]
    return (
        f"bm25_top5 here recalls {percent(top5)} of the evidence turns; {anchor['name']} reports"
        f" {percent(float(anchor['value']))} (a dense retriever, the same metric)."
    )


DROPPED_SHOWN = 10
"""The normalization sentence names at most this many dropped evidence ids, then how many more."""


def _dropped(ids: Sequence[object]) -> str:
    if not ids:
        return ""
    more = len(ids) - DROPPED_SHOWN
    shown = ", ".join(str(i)[:40] for i in ids[:DROPPED_SHOWN])
    return f" ({shown}{f' and {more:,} more' if more > 0 else ''})"


def normalization_sentence(stats: Mapping[str, Any]) -> str:
    repaired = int(stats.get("ids_repaired", 0))
    unscored = int(stats.get("questions_without_evidence", 0))
    return (
        f"In the whole data file (not only this run's questions), of {stats.get('raw_entries', 0):,} evidence"
        f" entries {repaired:,} {'id was' if repaired == 1 else 'ids were'}"
        f" repaired and {stats.get('ids_dropped', 0):,} dropped"
        + _dropped(stats.get("dropped") or [])
        + f"; {unscored:,} {'question has' if unscored == 1 else 'questions have'} no evidence and"
        f" {'is' if unscored == 1 else 'are'} never scored."
    )
