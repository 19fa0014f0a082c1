"""Ranking policies on SWE-bench tasks, measured leave one repository out.

Usage: python bench/tune.py TASKS.jsonl REPO_MAP.json --work DIR --variants VARIANTS.json --rows OUT.jsonl
       [--workers 2] [--budget 8000] [--probe-step 1000] [--report-only]

VARIANTS.json maps a name to the fields of a ranking policy that differ from the default
(``{"default": {}, "no_neighbours": {"neighbour_files": 0}}``). Each task's tree is built at its base commit
once; every variant then ranks and packs it on the same index: file Acc@k of the ranking, and gold-line
recall, gold-file coverage and tokens of the fixed packet at ``--budget``. With ``--probe-step``, each
variant also records a probe ladder (rungs of that many tokens up to the budget: each rung's recall,
tokens and quoted nodes) and its ranked nodes with their priorities, for stop rules computed offline.

The report gives each variant's figures per repository, then the folds: for each repository, the variant a
choice on the other three makes (best mean over their repositories of Acc@5 and fixed gold-line recall),
its figures on the held-out repository next to the choice on all four, and the mean over the folds.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean
from typing import Any

import prooftext
from prooftext import Ladder, Query, RankingPolicy
from prooftext.errors import ProoftextError
from prooftext.eval.executor import run_units
from prooftext.eval.gittree import WorkTree
from prooftext.eval.metrics import acc_at_k, first_occurrences, group_ranges, line_recall
from prooftext.eval.swebench import Shard, SweTask, load_repo_map, load_tasks, plan_shards
from prooftext.pack.packet import Compiler
from prooftext.select.fusion import NODE_SIGNALS
from prooftext.select.policy import DEFAULT_POLICY

Row = dict[str, Any]
KS = (1, 3, 5, 10)
RANKED_NODES = 60
PERCENT = 100


def _policy(fields: dict[str, Any]) -> RankingPolicy:
    return RankingPolicy.from_dict(fields) if fields else DEFAULT_POLICY


def _excerpts(packet: prooftext.Packet) -> list[tuple[str, int, int]]:
    return [(e.path, e.start_line, e.end_line) for e in packet.evidence]


def _packet_row(task: SweTask, packet: prooftext.Packet) -> Row:
    excerpts = _excerpts(packet)
    touched = {p for p, _, _ in excerpts}
    return {
        "tokens": packet.prompt_tokens.count,
        "recall": line_recall(group_ranges(excerpts), task.gold_ranges),
        "all_gold": set(task.gold_paths) <= touched,
        "nodes": sorted({i for e in packet.evidence for i in e.node_ids}),
        "files": sorted(touched),
        "excerpts": excerpts,
    }


def _probe(index: prooftext.Index, task: SweTask, budget: int, step: int) -> list[Row]:
    probe = index.adaptive_pack(
        task.problem_statement,
        ladder=Ladder(
            min_tokens=step,
            token_step=step,
            max_tokens=budget,
            min_nodes=64,
            max_nodes=64,
            node_step=1,
            min_coverage_bps=10_000,
            min_evidence=64,
            strong_share_bps=0,
        ),
        refresh=False,
    )
    rungs = [
        {
            **_packet_row(task, r.packet),
            "coverage_bps": r.estimate.term_coverage_bps,
            "unquoted_top_files": len(r.estimate.unquoted_top_files),
        }
        for r in probe.rounds
    ]
    return rungs + [rungs[-1]] * (budget // step - len(rungs))


def _variant(index: prooftext.Index, task: SweTask, cfg: Tune) -> Row:
    """One ranking serves both the file order and the fixed packet (a pack ranks exactly as a search)."""
    query = Query(task.problem_statement, max_tokens=cfg.budget)
    compiler = Compiler(index.conn, index.root, query, policy=index.ranking)
    ranked = compiler.ranked.candidates
    files = first_occurrences(c.path for c in ranked)
    packet = compiler.compile()
    row: Row = {
        "acc": {str(k): acc_at_k(files, task.gold_paths, k) for k in KS},
        "top_files": files[:10],
        "fixed": _packet_row(task, packet),
    }
    if cfg.probe_step:
        row["ranked"] = [
            [c.node_id, c.path, c.priority, c.start_line, c.end_line, c.phase, c.reason, _own(c.components)]
            for c in ranked[:RANKED_NODES]
        ]
        row["probe"] = _probe(index, task, cfg.budget, cfg.probe_step)
    return row


def _own(components: dict[str, int]) -> list[int]:
    """A candidate's own evidence (its node signals, in millionths of each signal's best) and its file's score."""
    return [components.get(name, 0) for name in (*NODE_SIGNALS, "file_score")]


@dataclass(frozen=True)
class Tune:
    """``tune(shard, emit)``: a picklable unit for the evaluation's executors."""

    work: Path
    variants: dict[str, dict[str, Any]]
    budget: int
    probe_step: int

    def __call__(self, shard: Shard, emit: Callable[[Row], None]) -> int:
        tree = WorkTree(shard.git_dir, self.work / shard.name)
        index = None
        try:
            for task in shard.tasks:
                base = {"instance_id": task.instance_id, "repo": task.repo, "gold": task.gold_paths}
                try:
                    tree.checkout(task.base_commit)
                    index = index or prooftext.open(tree.root)
                    index.refresh()
                except ProoftextError as exc:
                    emit({**base, "error": exc.code})
                    continue
                for name, fields in self.variants.items():
                    index.ranking = _policy(fields)
                    emit({**base, "variant": name, **_variant(index, task, self)})
        finally:
            if index is not None:
                index.close()
        return len(shard.tasks)


# --- report -----------------------------------------------------------------------------------------------


Figures = dict[str, float]


def _figures(rows: Sequence[Row]) -> Figures:
    return {
        "acc@1": fmean(r["acc"]["1"] for r in rows),
        "acc@5": fmean(r["acc"]["5"] for r in rows),
        "acc@10": fmean(r["acc"]["10"] for r in rows),
        "fixed_recall": fmean(r["fixed"]["recall"] for r in rows),
        "fixed_all_gold": fmean(r["fixed"]["all_gold"] for r in rows),
    }


def _objective(by_repo: dict[str, Figures], repos: Sequence[str]) -> float:
    return fmean((by_repo[r]["acc@5"] + by_repo[r]["fixed_recall"]) / 2 for r in repos)


def _line(label: str, f: Figures) -> str:
    return (
        f"{label:<34} Acc@1 {PERCENT * f['acc@1']:5.1f}  Acc@5 {PERCENT * f['acc@5']:5.1f}"
        f"  Acc@10 {PERCENT * f['acc@10']:5.1f}  line recall {PERCENT * f['fixed_recall']:5.1f}"
        f"  all gold {PERCENT * f['fixed_all_gold']:5.1f}"
    )


def report(rows: Sequence[Row]) -> None:
    measured = [r for r in rows if "error" not in r]
    for failed in (r for r in rows if "error" in r):
        print(f"not measured: {failed['instance_id']} ({failed['error']})")
    grouped: dict[str, dict[str, list[Row]]] = defaultdict(lambda: defaultdict(list))
    for r in measured:
        grouped[r["variant"]][r["repo"]].append(r)
    repos = sorted({r["repo"] for r in measured})
    table = {v: {repo: _figures(rs[repo]) for repo in repos} for v, rs in grouped.items()}
    for variant, per_repo in table.items():
        print(f"== {variant}")
        for repo in repos:
            print("  " + _line(f"{repo} ({len(grouped[variant][repo])})", per_repo[repo]))
        print(
            "  " + _line("macro mean", {k: fmean(per_repo[r][k] for r in repos) for k in per_repo[repos[0]]})
        )
    everywhere = max(table, key=lambda v: (_objective(table[v], repos), v == "default"))
    print(f"\nchosen on all four: {everywhere}")
    held: list[Figures] = []
    for out in repos:
        train = [r for r in repos if r != out]
        chosen = max(table, key=lambda v: (_objective(table[v], train), v == "default"))
        held.append(table[chosen][out])
        print(_line(f"held out {out} (chose {chosen})", table[chosen][out]))
        print(_line(f"  all four ({everywhere})", table[everywhere][out]))
    print(_line("mean over folds (held out)", {k: fmean(h[k] for h in held) for k in held[0]}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tasks", type=Path)
    parser.add_argument("repo_map", type=Path)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--variants", type=Path)
    parser.add_argument("--rows", type=Path, required=True)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--budget", type=int, default=8000)
    parser.add_argument("--probe-step", type=int, default=0)
    parser.add_argument("--report-only", action="store_true")
    args = parser.parse_args()
    if not args.report_only:
        variants = json.loads(args.variants.read_text()) if args.variants else {"default": {}}
        for fields in variants.values():
            _policy(fields)  # a bad variant fails before any tree is built
        shards = plan_shards(load_tasks(args.tasks), load_repo_map(args.repo_map), args.workers)
        unit = Tune(args.work.resolve(), variants, args.budget, args.probe_step)
        with args.rows.open("w", encoding="utf-8") as out:

            def emit(row: Row) -> None:
                out.write(json.dumps(row) + "\n")
                out.flush()

            run_units(unit, shards, emit, workers=args.workers)
    rows = [json.loads(line) for line in args.rows.read_text(encoding="utf-8").splitlines()]
    report(rows)


if __name__ == "__main__":
    main()
