"""Ranking on a repository's own history: recent commit messages as queries, the source files each commit
changed as the answer, ranked over the tree as it is now.

Usage: python bench/history_probe.py ROOT [--commits N] [--scan M] [--variants VARIANTS.json] [--rows OUT.jsonl]

Most repositories come with no benchmark; their history is one. A commit whose subject says what it does
(housekeeping subjects such as version bumps, merges and reverts are skipped) and that changed one or two
source files (not tests, not documentation, both still present) becomes a task: its subject and body, with
trailers such as ``Co-authored-by:`` removed, are the query; its source files are the answer. Each ranking
policy of VARIANTS.json (as in ``bench/tune.py``: the fields that differ from the default) ranks every query;
the report gives file Acc@1 and Acc@5 against a bm25 baseline over the same tree's source files (the
SWE-bench arm's ranker), and how often a file that is not source code stands in the best five.

The figures are a probe, not a figure of record: the tree is today's (the change is in it, and later commits
may have moved code), a commit message is shorter than an issue, and some commits (a lint rule, a typing
fix) name nothing a ranking could find. Use it to compare policies on repositories outside the development
split, and to see what tops the ranking there.
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean
from typing import Any

from cli_args import at_least_one, existing_directory

import prooftext
from prooftext import RankingPolicy
from prooftext.eval.corpus import CorpusCache
from prooftext.eval.lexical import BM25_B, BM25_K1
from prooftext.eval.metrics import acc_at_k, first_occurrences
from prooftext.eval.swebench import BM25_KINDS, SEARCH_LIMIT
from prooftext.select.policy import DEFAULT_POLICY, compiled
from prooftext.tokens import DEFAULT_TOKENIZER, get_counter

HOUSEKEEPING = re.compile(
    r"^((chore|build|ci|release|deps)(\([^)]*\))?!?:\s*)?"
    r"(merge|bump|revert|release|prepare|pre-commit|\[pre-commit|changelog|update changelog|typo|fix typo"
    r"|apply suggestions?|address review|wip|fixup!?|squash!?)\b",
    re.IGNORECASE,
)
"""Subjects that say nothing a ranking could find, also behind a housekeeping type of the conventional commits
that release bots write (``chore(main): release 11.17.5``, ``chore(deps): bump x``)."""
MIN_SUBJECT_CHARS = 25
MAX_BODY_CHARS = 600
MAX_ANSWER_FILES = 2
TRAILER = re.compile(r"(?im)^\s*[\w-]+-by:.*$|^\s*\(cherry picked from .*\)\s*$")
RECORD, FIELD = "\x1e", "\x1f"
KS = (1, 5)
PERCENT = 100


@dataclass(frozen=True)
class Task:
    commit: str
    query: str
    answer: tuple[str, ...]


def _log(root: Path, scan: int) -> Iterator[tuple[str, str, str, list[str]]]:
    """(commit, subject, body, changed paths) of the newest ``scan`` commits that are not merges."""
    fmt = f"--format={RECORD}%H{FIELD}%s{FIELD}%b{FIELD}"
    done = subprocess.run(
        ["git", "-C", str(root), "log", "--no-merges", f"-n{scan}", fmt, "--name-only"],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{root} has no git history to read: {done.stderr.strip()}")
    for record in done.stdout.split(RECORD)[1:]:
        commit, subject, body, names = record.split(FIELD)
        yield commit, subject.strip(), body, [n for n in names.splitlines() if n.strip()]


@dataclass(frozen=True)
class Sources:
    """The tree's source files: indexed code that is neither tests nor documentation under the default
    policy, and the suffixes they have."""

    paths: frozenset[str]
    suffixes: frozenset[str]
    tests: re.Pattern[str]
    docs: re.Pattern[str]

    def like(self, path: str) -> bool:
        """Whether ``path`` (present or not) would be a source file by its name."""
        return (
            Path(path).suffix in self.suffixes and not self.tests.search(path) and not self.docs.search(path)
        )


def sources_of(conn: sqlite3.Connection, policy: RankingPolicy) -> Sources:
    tests, docs = compiled(policy.test_path_pattern), compiled(policy.doc_path_pattern)
    code = [str(p) for (p,) in conn.execute("SELECT path FROM files WHERE kind = 'code'").fetchall()]
    paths = frozenset(p for p in code if not tests.search(p) and not docs.search(p))
    return Sources(paths, frozenset(Path(p).suffix for p in paths if Path(p).suffix), tests, docs)


def history_tasks(root: Path, sources: Sources, commits: int, scan: int) -> list[Task]:
    """Up to ``commits`` tasks from the newest ``scan`` commits, newest first: a commit counts when it
    changed one or two source files and every one of them is still in the tree."""
    tasks: list[Task] = []
    for commit, subject, body, names in _log(root, scan):
        if len(subject) < MIN_SUBJECT_CHARS or HOUSEKEEPING.match(subject):
            continue
        changed = [n for n in names if sources.like(n)]
        if not 1 <= len(changed) <= MAX_ANSWER_FILES or not set(changed) <= sources.paths:
            continue
        text = " ".join(TRAILER.sub("", body).split())[:MAX_BODY_CHARS]
        tasks.append(Task(commit, f"{subject}\n\n{text}".strip(), tuple(changed)))
        if len(tasks) >= commits:
            break
    return tasks


def _figures(rows: Sequence[dict[str, Any]], key: str) -> str:
    parts = [f"Acc@{k} {PERCENT * fmean(r[key][str(k)] for r in rows):.1f}" for k in KS]
    other = PERCENT * fmean(r[key]["other_in_top5"] for r in rows)
    return "  ".join(parts) + f"  non-source in top 5 {other:.1f}%"


def _scores(files: list[str], task: Task, sources: Sources) -> dict[str, Any]:
    scores: dict[str, Any] = {str(k): acc_at_k(files, task.answer, k) for k in KS}
    scores["other_in_top5"] = any(f not in sources.paths for f in files[:5])
    scores["top5"] = files[:5]
    return scores


def probe(root: Path, variants: dict[str, dict[str, Any]], commits: int, scan: int) -> list[dict[str, Any]]:
    """One row per task and variant: the ranking's and the baseline's scores."""
    rows: list[dict[str, Any]] = []
    with prooftext.open(root) as index:
        index.ensure_fresh()
        sources = sources_of(index.conn, DEFAULT_POLICY)
        tasks = history_tasks(root, sources, commits, scan)
        cache = CorpusCache(get_counter(DEFAULT_TOKENIZER), BM25_K1, BM25_B, BM25_KINDS)
        snap = cache.snapshot(index.conn)
        cache.prepare_ranker(index.conn, snap)
        baseline = {t.commit: _scores([snap.paths[i] for i in snap.rank(t.query)], t, sources) for t in tasks}
        for name, fields in variants.items():
            index.ranking = RankingPolicy.from_dict(fields)  # {} is the default policy
            for task in tasks:
                ranked = first_occurrences(c["path"] for c in index.search(task.query, limit=SEARCH_LIMIT))
                rows.append(
                    {
                        "variant": name,
                        "commit": task.commit,
                        "query": task.query,
                        "answer": list(task.answer),
                        "ranking": _scores(ranked, task, sources),
                        "bm25": baseline[task.commit],
                    }
                )
    return rows


def report(root: Path, rows: list[dict[str, Any]]) -> None:
    if not rows:
        print(f"{root}: no commit made a task")
        return
    variants = list(dict.fromkeys(r["variant"] for r in rows))
    first = [r for r in rows if r["variant"] == variants[0]]
    print(f"{root}: {len(first)} tasks")
    print(f"  bm25 over source files: {_figures(first, 'bm25')}")
    for name in variants:
        print(f"  {name}: {_figures([r for r in rows if r['variant'] == name], 'ranking')}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=existing_directory)
    parser.add_argument("--commits", type=at_least_one, default=120, help="tasks to make at most")
    parser.add_argument("--scan", type=int, default=4000, help="newest commits to read")
    parser.add_argument("--variants", type=Path)
    parser.add_argument("--rows", type=Path)
    args = parser.parse_args()
    variants = json.loads(args.variants.read_text()) if args.variants else {"default": {}}
    rows = probe(args.root.resolve(), variants, args.commits, args.scan)
    if args.rows:
        args.rows.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    report(args.root, rows)


if __name__ == "__main__":
    main()
