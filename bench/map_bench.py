"""Does a repository map personalized by the issue text name more of a task's gold files than a packet?

For SWE-bench development tasks (each tree built at its base commit), at the same budget (4,096 tokens by
default): the share of the gold files (the files the fix changes) that a map personalized by the issue
text names, beside the share that a fixed packet for the same text quotes in its excerpts, and the share
a map by centrality alone names. Both shares are printed per task (macro) and over all gold files (micro).

    python bench/map_bench.py --mirror MIRRORS [--tasks ../shared/eval/swebench_dev.jsonl] \\
        [--work /tmp/map-bench] [--all | --sample 46] [--seed 27] [--tokens 4096]

Without ``--all`` a fixed-seed sample spread over the repositories is measured (every task of a repository
with fewer than its share): the whole split takes hours on two cores, mostly indexing sympy at 130 commits.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from statistics import fmean
from typing import Any

import prooftext
from prooftext.errors import ProoftextError
from prooftext.eval.gittree import WorkTree, commit_time
from prooftext.eval.swebench import SweTask, load_tasks

PERCENT = 100
SHARED = Path(__file__).resolve().parent.parent.parent / "shared"
"""The shared data beside this checkout (``../shared``)."""


def sample(tasks: Sequence[SweTask], size: int, seed: int) -> list[SweTask]:
    """``size`` tasks drawn with ``seed``, spread over the repositories in proportion, at least four (or
    all) of each."""
    by_repo: dict[str, list[SweTask]] = defaultdict(list)
    for task in tasks:
        by_repo[task.repo].append(task)
    rng = random.Random(seed)
    chosen: list[SweTask] = []
    for repo in sorted(by_repo):
        group = sorted(by_repo[repo], key=lambda t: t.instance_id)
        want = max(min(4, len(group)), round(size * len(group) / len(tasks)))
        chosen.extend(rng.sample(group, min(want, len(group))))
    return chosen


def _named(gold: Sequence[str], paths: set[str]) -> int:
    return sum(1 for path in gold if path in paths)


def measure(index: prooftext.Index, task: SweTask, tokens: int) -> dict[str, Any]:
    text = task.problem_statement
    try:
        packet = index.pack(prooftext.Query(text, max_tokens=tokens), refresh=False)
        quoted, packet_tokens, packet_error = (
            {e.path for e in packet.evidence},
            packet.prompt_tokens.count,
            None,
        )
    except ProoftextError as exc:  # an issue longer than the budget leaves the packet no room: it names none
        quoted, packet_tokens, packet_error = set(), 0, exc.code
    started = time.perf_counter()
    personal = prooftext.repository_map(
        index, prooftext.MapSettings(max_tokens=tokens, query=text), refresh=False
    )
    seconds = time.perf_counter() - started
    central = prooftext.repository_map(index, prooftext.MapSettings(max_tokens=tokens), refresh=False)
    gold = task.gold_paths
    return {
        "gold": len(gold),
        "packet": _named(gold, quoted),
        "map": _named(gold, set(personal.paths)),
        "centrality": _named(gold, set(central.paths)),
        "packet_files": len(quoted),
        "map_files": len(personal.paths),
        "map_tokens": personal.prompt_tokens.count,
        "packet_tokens": packet_tokens,
        "packet_error": packet_error,
        "map_seconds": round(seconds, 3),
    }


def run(tasks: Sequence[SweTask], mirror: Path, work: Path, tokens: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    by_repo: dict[str, list[SweTask]] = defaultdict(list)
    for task in tasks:
        by_repo[task.repo].append(task)
    for repo, group in sorted(by_repo.items()):
        git_dir = mirror / repo.replace("/", "+") / "repo"
        group.sort(key=lambda t: (commit_time(git_dir, t.base_commit), t.instance_id))
        tree = WorkTree(git_dir, work / repo.replace("/", "+"))
        index = None
        try:
            for task in group:
                row: dict[str, Any] = {"instance_id": task.instance_id, "repo": repo}
                try:
                    tree.checkout(task.base_commit)
                    index = index or prooftext.open(tree.root)
                    index.refresh()
                    row.update(measure(index, task, tokens))
                except ProoftextError as exc:
                    row["error"] = exc.code
                rows.append(row)
                print(json.dumps(row), file=sys.stderr, flush=True)
        finally:
            if index is not None:
                index.close()
    return rows


def report(rows: Sequence[dict[str, Any]], tokens: int) -> None:
    done = [r for r in rows if "error" not in r]
    for failed in (r for r in rows if "error" in r):
        print(f"not measured: {failed['instance_id']} ({failed['error']})")
    if not done:
        return
    repos = sorted({r["repo"] for r in done})
    per_repo = ", ".join(f"{repo} {sum(1 for d in done if d['repo'] == repo)}" for repo in repos)
    print(f"{len(done)} tasks ({per_repo}), {tokens} tokens each")
    gold = sum(r["gold"] for r in done)
    for key, label in (("map", "map personalized by the issue"), ("packet", "fixed packet's excerpts"),
                       ("centrality", "map by centrality alone")):  # fmt: skip
        micro = PERCENT * sum(r[key] for r in done) / gold
        macro = PERCENT * fmean(r[key] / r["gold"] for r in done)
        print(f"{label:<32} names {micro:5.1f}% of gold files ({macro:5.1f}% per task)")
    failed = [r["instance_id"] for r in done if r["packet_error"]]
    if failed:
        print(f"no packet (its query alone exceeds the budget), counted as naming none: {', '.join(failed)}")
    print(
        f"files named: map {fmean(r['map_files'] for r in done):.1f}, packet {fmean(r['packet_files'] for r in done):.1f}"
        f" per task; map built in {fmean(r['map_seconds'] for r in done):.2f} s on average"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--tasks", type=Path, default=SHARED / "eval" / "swebench_dev.jsonl", help="SWE-bench tasks, JSONL"
    )
    parser.add_argument("--mirror", type=Path, required=True, help="holds <owner>+<name>/repo git dirs")
    parser.add_argument("--work", type=Path, default=Path("/tmp/map-bench"), help="work trees, one per repo")
    parser.add_argument(
        "--tokens", type=int, default=4096, help="budget of the map and the packet, in tokens"
    )
    parser.add_argument("--sample", type=int, default=46, help="tasks in the fixed-seed sample, a count")
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--all", action="store_true", help="every task of the split, not a sample")
    parser.add_argument("--rows", type=Path, help="also write each task's row here (JSON Lines)")
    args = parser.parse_args()
    tasks = load_tasks(args.tasks)
    chosen = tasks if args.all else sample(tasks, args.sample, args.seed)
    rows = run(chosen, args.mirror, args.work, args.tokens)
    if args.rows:
        args.rows.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    report(rows, args.tokens)


if __name__ == "__main__":
    main()
