"""Metric arithmetic shared by the benchmarks: pure functions over ranked paths, line ranges and numbers.

Definitions (issue 7):

- **Acc@k**: true when *every* gold file is among the first ``k`` ranked files.
- **gold-file recall**: the share of gold files that at least one excerpt of the packet touches.
- **gold-line recall**: the share of gold lines (the union of the gold ranges, per file) that lie inside some
  excerpt of the same file; pooled over the task's files.
- **percentiles**: nearest-rank (the smallest value with at least ``q`` percent of the values at or below it).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from statistics import fmean, median

LineRange = tuple[int, int]
"""A 1-based inclusive line range."""

ACC_KS: tuple[int, ...] = (1, 3, 5, 10)


def first_occurrences(paths: Iterable[str]) -> list[str]:
    """Paths in order of first occurrence (a ranked node list becomes a ranked file list)."""
    seen: set[str] = set()
    out: list[str] = []
    for path in paths:
        if path not in seen:
            seen.add(path)
            out.append(path)
    return out


def acc_at_k(ranked: Sequence[str], gold: Iterable[str], k: int) -> bool:
    """Every gold file among the first ``k`` ranked files (false when there is no gold file)."""
    wanted = set(gold)
    return bool(wanted) and wanted <= set(ranked[:k])


def gold_ranks(ranked: Sequence[str], gold: Iterable[str]) -> dict[str, int | None]:
    """The 1-based rank of each gold file, or None when it is not ranked at all."""
    position = {path: i + 1 for i, path in enumerate(ranked)}
    return {path: position.get(path) for path in gold}


def merge_ranges(ranges: Iterable[LineRange]) -> list[LineRange]:
    """Sorted, non-overlapping, non-adjacent ranges covering exactly the same lines."""
    out: list[LineRange] = []
    for start, end in sorted(ranges):
        if out and start <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def line_count(ranges: Iterable[LineRange]) -> int:
    return sum(end - start + 1 for start, end in merge_ranges(ranges))


def overlap(a: Iterable[LineRange], b: Iterable[LineRange]) -> int:
    """Lines in both range sets."""
    left, right = merge_ranges(a), merge_ranges(b)
    total = 0
    i = j = 0
    while i < len(left) and j < len(right):
        lo = max(left[i][0], right[j][0])
        hi = min(left[i][1], right[j][1])
        if lo <= hi:
            total += hi - lo + 1
        if left[i][1] < right[j][1]:
            i += 1
        else:
            j += 1
    return total


def file_recall(touched: Iterable[str], gold: Iterable[str]) -> float | None:
    """Share of gold files touched by at least one excerpt; None without gold files."""
    wanted = set(gold)
    if not wanted:
        return None
    return len(wanted & set(touched)) / len(wanted)


def line_recall(
    excerpts: Mapping[str, Sequence[LineRange]], gold: Mapping[str, Sequence[LineRange]]
) -> float | None:
    """Share of gold lines inside an excerpt of the same file, pooled over files; None without gold lines."""
    total = sum(line_count(ranges) for ranges in gold.values())
    if total == 0:
        return None
    hit = sum(overlap(excerpts.get(path, ()), ranges) for path, ranges in gold.items())
    return hit / total


def group_ranges(items: Iterable[tuple[str, int, int]]) -> dict[str, list[LineRange]]:
    """``(path, start, end)`` triples grouped by path."""
    out: dict[str, list[LineRange]] = {}
    for path, start, end in items:
        out.setdefault(path, []).append((start, end))
    return out


def percentile(values: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile ``q`` (0 < q <= 100) of ``values``; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def mean_or_none(values: Sequence[float]) -> float | None:
    return fmean(values) if values else None


def median_or_none(values: Sequence[float]) -> float | None:
    return float(median(values)) if values else None


def share(flags: Sequence[bool]) -> float | None:
    """Fraction of true flags; None when empty."""
    return sum(1 for f in flags if f) / len(flags) if flags else None


def frequencies(values: Iterable[object]) -> dict[str, int]:
    """Counts by string value, sorted by key (deterministic output)."""
    counts: dict[str, int] = {}
    for value in values:
        key = str(value)
        counts[key] = counts.get(key, 0) + 1
    return dict(sorted(counts.items()))
