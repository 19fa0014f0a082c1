"""Numbers as a report's sentences say them: percentages, point differences, token counts, name lists.

Every sentence of a report is computed from its data with these, so a sentence and its table never disagree
about rounding.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

TIE_POINTS = 0.05
"""Two percentages closer than this many points are a tie (they print the same to one decimal)."""

METRIC_LABELS: Mapping[str, str] = {
    "gold_line_recall": "gold-line recall",
    "gold_file_recall": "gold-file recall",
    "all_gold_files": "share of tasks with every gold file quoted",
    "mrr_all_gold": "mean reciprocal rank of the last gold file",
    "evidence_recall": "evidence recall",
    "all_evidence": "share of questions with all their evidence",
    "surface_precision": "surface precision",
    "surface_recall": "surface recall",
    "answer_f1": "answer F1",
    "answer_em": "answer exact match",
    "file_accuracy": "file accuracy",
    "function_accuracy": "function accuracy",
}


def metric_label(metric: str, unit: str = "task") -> str:
    """A metric key as words (``acc@5`` → ``file Acc@5``); ``success`` is the model's share of right answers
    per ``unit`` (``task success``; LoCoMo's ``question success``)."""
    if metric.startswith("acc@"):
        return f"file Acc@{metric[4:]}"
    if metric == "success":
        return f"{unit} success"
    return METRIC_LABELS.get(metric, metric.replace("_", " "))


def percent(value: float) -> str:
    """A fraction as a percentage with one decimal: 0.6324 → ``63.2%``."""
    return f"{100 * value:.1f}%"


def points(difference: float) -> str:
    """A difference of fractions in percentage points: 0.299 → ``29.9 points``."""
    return f"{100 * abs(difference):.1f} points"


def is_tie(a: float, b: float) -> bool:
    return abs(a - b) * 100 < TIE_POINTS


def tokens(value: float) -> str:
    """A token count, rounded, with thousands separators; millions as ``8.6 M``."""
    if value >= 1_000_000:
        return f"{value / 1_000_000:.1f} M"
    return f"{round(value):,}"


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``1 task``, ``3 tasks``, ``1,024 questions``: a count with its noun in the right number."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def names(items: Iterable[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    words = list(items)
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} and {words[-1]}"


def counted(counts: Mapping[str, int], total: int, unit: str) -> str:
    """``estimated_sufficient on 4 of 9 tasks and hard_limit_reached on 5``, most frequent first; ``unit``
    is the singular noun (``task``)."""
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    if not ordered:
        return f"no {unit}s"
    (first, n), rest = ordered[0], ordered[1:]
    head = f"{first} on {n} of {count(total, unit)}"
    return names([head, *(f"{k} on {v}" for k, v in rest)])


def ranked(values: Mapping[str, float | None]) -> list[tuple[str, float]]:
    """Defined values, highest first; ties keep the mapping's order."""
    present = [(k, float(v)) for k, v in values.items() if isinstance(v, int | float)]
    return sorted(present, key=lambda kv: -kv[1])


def leaders(values: Sequence[tuple[str, float]]) -> list[str]:
    """The names tied for the top of a :func:`ranked` list."""
    return [k for k, v in values if values and is_tie(v, values[0][1])]
