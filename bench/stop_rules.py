"""Stopping rules for the adaptive ladder, scored offline on probe ladders recorded by ``bench/tune.py``.

Usage: python bench/stop_rules.py ROWS.jsonl [--variant default] [--every 2] [--tasks TASKS.jsonl]

Each row holds one task's probe ladder (a packet per rung of the probe step, up to the budget) and its ranked
candidates with their priorities. A rule looks at one rung: the candidates it quotes (by node, or by lines
inside an excerpt) and the priorities of those it leaves out. The first rung (of every ``--every``-th) where
the rule holds is where the adaptive packet stops as ``estimated_sufficient``; a task where it never holds
climbs to the last rung (the fixed packet). Printed per rule, over all tasks and per repository: mean tokens
against the fixed packet's, gold-line recall against the fixed packet's, and how often a sufficient stop
quotes every gold file.

With ``--tasks`` (the tasks the rows were recorded on, for their gold lines), the strong-file rules are also
scored trimmed: a sufficient packet keeps only the excerpts that hold a candidate the rule waited for (its
tokens estimated in proportion to the lines it keeps). The notes' figures for trimming come from there.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean
from typing import Any

Row = dict[str, Any]
Rule = Callable[[Row, Row], bool]
PERCENT = 100


def _quoted(rung: Row, cand: Sequence[Any]) -> bool:
    node_id, path, _priority, start, end = cand[:5]
    if node_id in rung["_nodes"]:
        return True
    return any(p == path and s <= start and end <= e for p, s, e in rung["excerpts"])


def _prepare(rows: Sequence[Row]) -> None:
    for row in rows:
        for rung in row["probe"]:
            rung["_nodes"] = set(rung["nodes"])


def v3_rule(coverage_bps: int = 5000) -> Rule:
    """The estimator's version 3 conditions: term coverage and the best and strong files quoted."""

    def rule(row: Row, rung: Row) -> bool:
        return bool(rung["coverage_bps"] >= coverage_bps and not rung["unquoted_top_files"])

    return rule


def coverage_rule(coverage_bps: int = 5000) -> Rule:
    """Term coverage alone (SACP §5)."""
    return lambda row, rung: bool(rung["coverage_bps"] >= coverage_bps)


def _strong_files(ranked: Sequence[Sequence[Any]], share: float, window: int) -> list[list[Sequence[Any]]]:
    """The candidates of each of the best ``window`` files whose best candidate weighs at least ``share`` of
    the best one, best first."""
    if not ranked:
        return []
    top = max(c[2] for c in ranked)
    files: dict[str, list[Sequence[Any]]] = {}
    for cand in ranked:
        if cand[1] not in files and len(files) >= window:
            continue
        files.setdefault(cand[1], []).append(cand)
    return [cands for cands in files.values() if cands[0][2] >= share * top]


def file_best_rule(share: float, window: int = 8) -> Rule:
    """Every file among the best ``window`` whose best candidate weighs at least ``share`` of the best one
    has that best candidate quoted."""
    return files_rule(share, 1, window)


def per_file_rule(share: float, file_share: float = 0.5, window: int = 8) -> Rule:
    """Every strong file (best candidate at least ``file_share`` of the best one, among the best ``window``)
    has every candidate weighing at least ``share`` of that file's best quoted."""

    def rule(row: Row, rung: Row) -> bool:
        return all(
            _quoted(rung, c)
            for cands in _strong_files(row["ranked"], file_share, window)
            for c in cands
            if c[2] >= share * cands[0][2]
        )

    return rule


def waited_for(row: Row, share: float, file_share: float, lone_share: float) -> list[Sequence[Any]]:
    """The candidates a strong-file rule waits for: those of at least ``share`` of the best one in files
    whose such candidates add up to at least ``file_share`` of the strongest file's sum, and anywhere those
    of at least ``lone_share`` of the best one."""
    ranked = row["ranked"]
    if not ranked:
        return []
    top = max(c[2] for c in ranked)
    strong = [c for c in ranked if c[2] >= share * top]
    mass: dict[str, int] = {}
    for cand in strong:
        mass[cand[1]] = mass.get(cand[1], 0) + cand[2]
    floor = file_share * max(mass.values())
    return [c for c in strong if mass[c[1]] >= floor or c[2] >= lone_share * top]


def strong_files_rule(share: float, file_share: float, lone_share: float = 2.0) -> Rule:
    """Every candidate :func:`waited_for` returns is quoted."""
    return lambda row, rung: all(_quoted(rung, c) for c in waited_for(row, share, file_share, lone_share))


def both(first: Rule, second: Rule) -> Rule:
    return lambda row, rung: first(row, rung) and second(row, rung)


def gap_rule(share: float, depth: int = 60) -> Rule:
    """Every ranked candidate (of the best ``depth``) at least ``share`` of the best one's priority is quoted."""

    def rule(row: Row, rung: Row) -> bool:
        ranked = row["ranked"][:depth]
        if not ranked:
            return True
        floor = share * max(c[2] for c in ranked)
        return all(_quoted(rung, c) for c in ranked if c[2] >= floor)

    return rule


def relative_gap_rule(ratio: float, depth: int = 60, reference: int = 3) -> Rule:
    """The next candidates are much weaker than what is quoted: every candidate of the best ``depth`` left
    out weighs less than ``ratio`` of the ``reference``-th strongest quoted one."""

    def rule(row: Row, rung: Row) -> bool:
        ranked = row["ranked"][:depth]
        quoted = sorted((c[2] for c in ranked if _quoted(rung, c)), reverse=True)
        left = [c[2] for c in ranked if not _quoted(rung, c)]
        if not left:
            return True
        return bool(quoted) and max(left) < ratio * quoted[min(len(quoted), reference) - 1]

    return rule


OWN_EVIDENCE = frozenset({"lexical", "identifier", "phrase", "subject"})
"""Reasons of candidates found by their own evidence (not an opening, a neighbour or a path match)."""


def evidence_gap_rule(share: float, depth: int = 60) -> Rule:
    """:func:`gap_rule` over the candidates found by their own evidence only: an opening or a neighbour
    (half its file's best candidate) is never waited for."""

    def rule(row: Row, rung: Row) -> bool:
        ranked = [c for c in row["ranked"][:depth] if len(c) < 7 or c[6] in OWN_EVIDENCE]
        if not ranked:
            return True
        floor = share * max(c[2] for c in row["ranked"][:depth])
        return all(_quoted(rung, c) for c in ranked if c[2] >= floor)

    return rule


def reachable_gap_rule(share: float, depth: int = 60) -> Rule:
    """:func:`gap_rule` waiting only for the strong candidates that the last rung (the hard ceilings)
    quotes: one that no rung can hold does not hold the climb to the end."""

    def rule(row: Row, rung: Row) -> bool:
        ranked = row["ranked"][:depth]
        if not ranked:
            return True
        floor = share * max(c[2] for c in ranked)
        last = row["probe"][-1]
        return all(_quoted(rung, c) for c in ranked if c[2] >= floor and _quoted(last, c))

    return rule


def _named(ranked: Sequence[Sequence[Any]]) -> list[Sequence[Any]]:
    """The candidates of the identifier phase: definitions of names the query spells as code."""
    return [c for c in ranked if len(c) >= 7 and c[6] == "identifier"]


def named_gap_rule(share: float, fallback: float, depth: int = 60) -> Rule:
    """Where the query names definitions, every one of them (of the best ``depth``) quoted and every candidate
    of at least ``share`` of the best one; where it names none, :func:`gap_rule` at ``fallback``."""
    loose, strict = gap_rule(share, depth), gap_rule(fallback, depth)

    def rule(row: Row, rung: Row) -> bool:
        named = _named(row["ranked"][:depth])
        if not named:
            return strict(row, rung)
        return all(_quoted(rung, c) for c in named) and loose(row, rung)

    return rule


def mass_rule(power: float, quoted_share: float, depth: int = 60) -> Rule:
    """The quoted candidates hold at least ``quoted_share`` of the ranking's mass: each of the best ``depth``
    candidates weighs its share of the best one to the ``power``, so that one strong candidate left out
    among many quoted does not hold the climb, and many left out do."""

    def rule(row: Row, rung: Row) -> bool:
        ranked = row["ranked"][:depth]
        if not ranked:
            return True
        top = max(c[2] for c in ranked)
        weights = [((c[2] / top) ** power, _quoted(rung, c)) for c in ranked]
        total = sum(w for w, _ in weights)
        return sum(w for w, q in weights if q) >= quoted_share * total

    return rule


def top_rule(k: int) -> Rule:
    """The best ``k`` ranked candidates are quoted."""

    def rule(row: Row, rung: Row) -> bool:
        return all(_quoted(rung, c) for c in row["ranked"][:k])

    return rule


def files_rule(share: float, per_file: int, window: int = 8) -> Rule:
    """Every file among the best ``window`` whose best candidate is at least ``share`` of the best one has
    its best ``per_file`` candidates quoted."""

    def rule(row: Row, rung: Row) -> bool:
        return all(
            _quoted(rung, c)
            for cands in _strong_files(row["ranked"], share, window)
            for c in cands[:per_file]
        )

    return rule


@dataclass(frozen=True)
class Outcome:
    tokens: float
    recall: float
    fixed_tokens: float
    fixed_recall: float
    sufficient: int
    right: int

    def line(self, label: str) -> str:
        share = self.right / self.sufficient if self.sufficient else 0.0
        return (
            f"{label:<28} tokens {self.tokens:7,.0f} ({PERCENT * self.tokens / self.fixed_tokens:5.1f} %)"
            f"  recall {PERCENT * self.recall:5.1f} (fixed {PERCENT * self.fixed_recall:5.1f})"
            f"  sufficient {self.sufficient:3d}, every gold file {PERCENT * share:5.1f} %"
        )


def outcome(rows: Sequence[Row], rule: Rule, every: int) -> Outcome:
    picks: list[Row] = []
    sufficient = right = 0
    for row in rows:
        ladder = row["probe"]
        chosen = [r for n, r in enumerate(ladder, start=1) if n % every == 0 or n == len(ladder)]
        hit = next((r for r in chosen if rule(row, r)), None)
        if hit is not None:
            sufficient += 1
            right += bool(hit["all_gold"])
        picks.append(hit or ladder[-1])
    return Outcome(
        fmean(p["tokens"] for p in picks),
        fmean(p["recall"] for p in picks),
        fmean(r["probe"][-1]["tokens"] for r in rows),
        fmean(r["probe"][-1]["recall"] for r in rows),
        sufficient,
        right,
    )


def _holds(excerpt: Sequence[Any], cand: Sequence[Any]) -> bool:
    path, start, end = excerpt
    return bool(path == cand[1] and start <= cand[3] and cand[4] <= end)


def _lines(excerpts: Sequence[Sequence[Any]]) -> int:
    return sum(end - start + 1 for _, start, end in excerpts)


Keep = Callable[[Row], Sequence[Sequence[Any]]]
"""The candidates whose excerpts a trimmed packet keeps, for one task."""


def kept_outcome(
    rows: Sequence[Row], gold: dict[str, Any], rule: Rule, keep: Keep, every: int, at_limit: bool
) -> Outcome:
    """``rule``'s stops, the packet it ends with keeping only the excerpts that hold a candidate ``keep``
    names (its tokens estimated in proportion to the lines it keeps): a sufficient packet only, or the hard
    limit's too (``at_limit``)."""
    from prooftext.eval.metrics import group_ranges, line_recall

    tokens: list[float] = []
    recall: list[float] = []
    sufficient = right = 0
    for row in rows:
        ladder = row["probe"]
        chosen = [r for n, r in enumerate(ladder, start=1) if n % every == 0 or n == len(ladder)]
        hit = next((r for r in chosen if rule(row, r)), None)
        picked = hit or ladder[-1]
        if hit is None and not at_limit:
            tokens.append(picked["tokens"])
            recall.append(picked["recall"])
            continue
        wanted = keep(row)
        kept = [e for e in picked["excerpts"] if any(_holds(e, c) for c in wanted)]
        task = gold[row["instance_id"]]
        if hit is not None:
            sufficient += 1
            right += set(task.gold_paths) <= {e[0] for e in kept}
        tokens.append(picked["tokens"] * _lines(kept) / max(1, _lines(picked["excerpts"])))
        recall.append(line_recall(group_ranges(kept), task.gold_ranges) or 0.0)
    return Outcome(
        fmean(tokens),
        fmean(recall),
        fmean(r["probe"][-1]["tokens"] for r in rows),
        fmean(r["probe"][-1]["recall"] for r in rows),
        sufficient,
        right,
    )


def trimmed_outcome(
    rows: Sequence[Row], gold: dict[str, Any], params: tuple[float, float, float], every: int
) -> Outcome:
    """A strong-file rule whose sufficient packet keeps only the excerpts holding a candidate it waited for."""
    rule = strong_files_rule(*params)
    return kept_outcome(rows, gold, rule, lambda row: waited_for(row, *params), every, at_limit=False)


def floored_outcome(
    rows: Sequence[Row], gold: dict[str, Any], share: float, floor: float, every: int
) -> Outcome:
    """The shipped gap rule at ``share``, every packet it ends with (sufficient or at the hard limit) keeping
    only the excerpts that hold a ranked candidate of at least ``floor`` of the best one: a relevance floor
    on what an adaptive packet quotes, where the fixed packet fills its budget."""

    def strong(row: Row) -> list[Sequence[Any]]:
        top = max((c[2] for c in row["ranked"]), default=0)
        return [c for c in row["ranked"] if c[2] >= floor * top]

    return kept_outcome(rows, gold, gap_rule(share), strong, every, at_limit=True)


STRONG_FILE_PARAMS = (
    (0.3, 0.0, 2.0),
    (0.3, 0.1, 2.0),
    (0.3, 0.15, 2.0),
    (0.3, 0.3, 2.0),
    (0.3, 0.3, 0.4),
    (0.3, 0.5, 2.0),
)
"""(share, file share, lone share) of the strong-file rules scored; a lone share of 2 is no lone rule."""


def _print(rows: Sequence[Row], label: str, score: Callable[[Sequence[Row]], Outcome]) -> None:
    print(score(rows).line(label))
    for repo in sorted({r["repo"] for r in rows}):
        part = [r for r in rows if r["repo"] == repo]
        print("    " + score(part).line(f"{repo} ({len(part)})"))


def read_rows(path: Path, variant: str) -> list[Row]:
    """The rows of ``variant`` that hold a probe ladder; stops with a message when there are none."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = [r for r in rows if r.get("variant") == variant and "probe" in r]
    if not rows:
        raise SystemExit(
            f"{path}: no row of variant {variant!r} holds a probe ladder"
            " (record them with bench/tune.py --probe-step 1000)"
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", type=Path)
    parser.add_argument("--variant", default="default")
    parser.add_argument("--every", type=int, default=2)
    parser.add_argument("--tasks", type=Path)
    args = parser.parse_args()
    rows = read_rows(args.rows, args.variant)
    _prepare(rows)
    print(f"{len(rows)} tasks, every {args.every} probe rungs")
    rules: dict[str, Rule] = {"v3": v3_rule()}
    for share in (0.2, 0.25, 0.3, 0.4, 0.5, 0.6):
        rules[f"gap {share}"] = gap_rule(share)
        rules[f"v3 + gap {share}"] = both(v3_rule(), gap_rule(share))
        rules[f"cov + gap {share}"] = both(coverage_rule(), gap_rule(share))
    for fshare in (0.3, 0.5):
        rules[f"cov + file best {fshare}"] = both(coverage_rule(), file_best_rule(fshare))
        for share in (0.3, 0.5, 0.7):
            rules[f"cov + per file {share} of files {fshare}"] = both(
                coverage_rule(), per_file_rule(share, fshare)
            )
    for ratio in (0.3, 0.4, 0.5, 0.6):
        rules[f"relative gap {ratio}"] = relative_gap_rule(ratio)
    for share in (0.2, 0.25, 0.3, 0.4):
        rules[f"own-evidence gap {share}"] = evidence_gap_rule(share)
        rules[f"reachable gap {share}"] = reachable_gap_rule(share)
    for share in (0.4, 0.5, 0.6, 0.8):
        for fallback in (0.3, 0.4):
            rules[f"named {share} else gap {fallback}"] = named_gap_rule(share, fallback)
    for power in (2.0, 4.0, 8.0):
        for quoted in (0.8, 0.9, 0.95, 0.98):
            rules[f"mass {power} quoted {quoted}"] = mass_rule(power, quoted)
    for k in (3, 5, 8, 12):
        rules[f"top {k}"] = top_rule(k)
    for share in (0.3, 0.5):
        for per_file in (1, 2, 3):
            rules[f"files {share} x{per_file}"] = files_rule(share, per_file)
    for params in STRONG_FILE_PARAMS:
        rules["strong files {} {} lone {}".format(*params)] = strong_files_rule(*params)
    for name, rule in rules.items():
        _print(rows, name, lambda part, rule=rule: outcome(part, rule, args.every))  # type: ignore[misc]
    if args.tasks is not None:
        from prooftext.eval.swebench import load_tasks

        gold = {t.instance_id: t for t in load_tasks(args.tasks)}
        for params in STRONG_FILE_PARAMS:
            label = "trimmed {} {} lone {}".format(*params)
            _print(rows, label, lambda part, p=params: trimmed_outcome(part, gold, p, args.every))  # type: ignore[misc]
        for floor in (0.02, 0.05, 0.1, 0.15, 0.2):
            label = f"gap 0.3, floor {floor}"
            _print(rows, label, lambda part, f=floor: floored_outcome(part, gold, 0.3, f, args.every))  # type: ignore[misc]


if __name__ == "__main__":
    main()
