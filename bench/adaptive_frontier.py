"""Adaptive frontier: how many tokens any stopping rule on prooftext's ladder needs for a given recall.

Usage: python bench/adaptive_frontier.py TASKS.jsonl REPO_MAP.json --work DIR
       [--budget 8000] [--step 1000] [--workers 2] [--rows OUT.jsonl]

TASKS and REPO_MAP are those of ``prooftext eval swebench``. Each task runs at its base commit only. For
each task the ladder climbs to its hard limit in rungs of ``--step`` tokens (a probe request whose estimator
cannot pass), and every rung's packet is scored by gold-line recall. The default adaptive request (the
evaluation's adaptive arm) runs beside it. Printed, as mean gold-line recall and mean prompt tokens:

- each rung alone: a fixed budget of that size (the last rung is the budget packet of the fixed arm);
- the default adaptive request;
- the oracle on the default ladder's token ceilings and on the probe ladder: every task stopped at the
  first rung that already holds its best recall. No stopping rule over these packets can beat it; the
  distance from it to the default request is all a better estimator could win. (A query that alone needs
  more than the first rung raises that rung, SACP's kernel rule; the two ladders' later rungs then no
  longer share their ceilings.)
- one family of rules: stop once the ranking's first K nodes are all quoted;
- the issue's target: the budget packet's recall with at most half its tokens.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean
from typing import Any

from prooftext import Ladder
from prooftext.adaptive.ladder import DEFAULT_MAX_NODES, DEFAULT_MIN_TOKENS
from prooftext.errors import ProoftextError
from prooftext.eval.executor import run_units
from prooftext.eval.gittree import WorkTree
from prooftext.eval.metrics import group_ranges, line_recall
from prooftext.eval.swebench import Shard, SweTask, load_repo_map, load_tasks, plan_shards
from prooftext.index import open_index

TOP_K = (1, 2, 3, 5, 8, 12)
RANKED_NODES = max(TOP_K)
BPS_MAX = 10_000
PERCENT = 100

Row = dict[str, Any]


def _recall(task: SweTask, packet: Any) -> float:
    excerpts = [(e.path, e.start_line, e.end_line) for e in packet.evidence]
    return line_recall(group_ranges(excerpts), task.gold_ranges)


def _rung(task: SweTask, packet: Any) -> Row:
    return {
        "tokens": packet.prompt_tokens.count,
        "recall": _recall(task, packet),
        "nodes": sorted({i for e in packet.evidence for i in e.node_ids}),
    }


def _task(index: Any, task: SweTask, budget: int, step: int) -> Row:
    query = task.problem_statement
    rungs = budget // step
    probe = index.adaptive_pack(
        query,
        ladder=Ladder(
            min_tokens=step,
            token_step=step,
            max_tokens=budget,
            min_nodes=DEFAULT_MAX_NODES // rungs,
            node_step=DEFAULT_MAX_NODES // rungs,
            max_nodes=DEFAULT_MAX_NODES,
            min_coverage_bps=BPS_MAX,
            min_evidence=DEFAULT_MAX_NODES,
            min_top_files=0,
        ),
        refresh=False,
    )
    default = index.adaptive_pack(
        query, ladder=Ladder(min_tokens=min(DEFAULT_MIN_TOKENS, budget), max_tokens=budget), refresh=False
    )
    ladder = [_rung(task, r.packet) for r in probe.rounds]
    # A probe that stops early (every candidate quoted) holds the same packet on every later rung.
    ladder += [ladder[-1]] * (rungs - len(ladder))
    return {
        "instance_id": task.instance_id,
        "repo": task.repo,
        "probe_stop": probe.stop_reason,
        "ladder": ladder,
        "default": {**_rung(task, default.packet), "round": default.selected_round},
        "ranked": [n["node_id"] for n in index.search(query, limit=RANKED_NODES)],
    }


@dataclass(frozen=True)
class ShardProbe:
    """``probe(shard, emit)``: a picklable unit for the evaluation's executors."""

    work: Path
    budget: int
    step: int

    def __call__(self, shard: Shard, emit: Callable[[Row], None]) -> int:
        tree = WorkTree(shard.git_dir, self.work / shard.name)
        index = None
        try:
            for task in shard.tasks:
                try:
                    tree.checkout(task.base_commit)
                    index = index or open_index(tree.root)
                    index.refresh()
                    emit(_task(index, task, self.budget, self.step))
                except ProoftextError as exc:  # reported by name, never dropped
                    emit({"instance_id": task.instance_id, "repo": task.repo, "error": exc.code})
        finally:
            if index is not None:
                index.close()
        return len(shard.tasks)


def _point(picks: Sequence[Row]) -> str:
    recall = PERCENT * fmean(p["recall"] for p in picks)
    tokens = fmean(p["tokens"] for p in picks)
    return f"recall {recall:5.1f} %  tokens {tokens:7,.0f}"


def _stop_at(rows: Sequence[Row], rule: Callable[[Row, Row], bool], every: int) -> list[Row]:
    """Each task's first rung (of every ``every``-th) where ``rule(task, rung)`` holds, else the last."""
    picks = []
    for row in rows:
        ladder = row["ladder"]
        chosen = [r for n, r in enumerate(ladder, start=1) if n % every == 0 or n == len(ladder)]
        picks.append(next((r for r in chosen if rule(row, r)), ladder[-1]))
    return picks


def _oracle(row: Row, rung: Row) -> bool:
    return bool(rung["recall"] >= max(r["recall"] for r in row["ladder"]))


def _report(every_row: Sequence[Row], budget: int, step: int) -> None:
    default_every = DEFAULT_MIN_TOKENS // step
    rows = [r for r in every_row if "error" not in r]
    print(f"{len(rows)} tasks, budget {budget}, probe rungs of {step} tokens")
    for failed in (r for r in every_row if "error" in r):
        print(f"  not measured: {failed['instance_id']} ({failed['error']})")
    if not rows:
        return
    for n in range(budget // step):
        print(f"  rung {(n + 1) * step:>6,}: {_point([r['ladder'][n] for r in rows])}")
    print(f"  default adaptive: {_point([r['default'] for r in rows])}")
    print(f"  oracle, default ladder: {_point(_stop_at(rows, _oracle, default_every))}")
    print(f"  oracle, probe ladder:   {_point(_stop_at(rows, _oracle, 1))}")
    for k in TOP_K:

        def quoted(row: Row, rung: Row, k: int = k) -> bool:
            return set(row["ranked"][:k]) <= set(rung["nodes"])

        print(f"  first {k:>2} ranked nodes quoted: {_point(_stop_at(rows, quoted, 1))}")
    last = [r["ladder"][-1] for r in rows]
    half = fmean(r["tokens"] for r in last) / 2
    print(
        f"  target: recall >= {PERCENT * fmean(r['recall'] for r in last):.1f} % with <= {half:,.0f} tokens"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tasks", type=Path)
    parser.add_argument("repo_map", type=Path)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--budget", type=int, default=8000)
    parser.add_argument("--step", type=int, default=DEFAULT_MIN_TOKENS // 2)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rows", type=Path)
    args = parser.parse_args()
    if args.step < 1 or args.budget % args.step or DEFAULT_MIN_TOKENS % args.step:
        parser.error("--step must divide --budget and the default first rung")
    if DEFAULT_MAX_NODES % (args.budget // args.step):
        parser.error("--step must cut the ladder into a number of rungs that divides the node ceiling")
    shards = plan_shards(load_tasks(args.tasks), load_repo_map(args.repo_map), args.workers)
    rows: list[Row] = []
    run_units(
        ShardProbe(args.work.resolve(), args.budget, args.step), shards, rows.append, workers=args.workers
    )
    rows.sort(key=lambda r: r["instance_id"])
    if args.rows:
        args.rows.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    _report(rows, args.budget, args.step)


if __name__ == "__main__":
    main()
