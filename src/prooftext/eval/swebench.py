"""SWE-bench: four arms on the same tasks, each task at its ``base_commit`` only.

Tasks of one repository are sorted by commit time and cut into contiguous shards; each shard owns one work
tree and one prooftext index, moved from commit to commit so that refresh is incremental. For each task the
``problem_statement`` is the query of every arm:

- ``full``: the whole permitted corpus as one whole-file prompt (its token size; it holds every gold line the
  corpus holds, and misses a gold file the scan left out),
- ``bm25``: bm25s over whole files, packed whole in rank order to the budget, skipping files that overflow,
- ``fixed``: ``Index.pack`` at the budget,
- ``adaptive``: ``Index.adaptive_pack`` with ``max_tokens`` = the budget.

Ranked-file metrics (Acc@k) for ``fixed`` and ``adaptive`` come from prooftext's ranking (``Index.search``:
files in order of their first ranked node); for ``bm25`` from bm25s. Every failure is recorded in the task's
row and counted, never raised: a ``base_commit`` the git directory lacks (``not_found``), and a gold line
range past the end of its file as the tree at ``base_commit`` holds it (``artifact_invalid``), fail every arm
of the task.
"""

from __future__ import annotations

import json
import math
import re
import sqlite3
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from prooftext.adaptive.ladder import DEFAULT_LADDER, Ladder, climbing_to
from prooftext.corpus.lines import count_lines
from prooftext.corpus.read import read_bytes_checked
from prooftext.errors import (
    ArtifactError,
    ConfigError,
    SourceError,
    SourceUnreadableError,
    UnknownNameError,
)
from prooftext.eval.answers import swe_score
from prooftext.eval.arms import (
    ARM_ADAPTIVE,
    ARM_BM25,
    ARM_FIXED,
    ARM_FULL,
    DEFAULT_BUDGET,
    SWEBENCH_ARMS,
)
from prooftext.eval.common import MS_PER_S, cpu_seconds, elapsed_ms, error_record
from prooftext.eval.corpus import CorpusCache, Snapshot, text_of
from prooftext.eval.dataio import load_json, parse_json, read_text
from prooftext.eval.gittree import COMMIT_ID, WorkTree, commit_time, git_dir_of, is_commit_id
from prooftext.eval.lexical import BM25_B, BM25_K1, file_block, file_prompt, pack_whole
from prooftext.eval.metrics import (
    ACC_KS,
    LineRange,
    acc_at_k,
    file_recall,
    first_occurrences,
    gold_ranks,
    group_ranges,
    line_recall,
)
from prooftext.eval.model import ModelClient, ModelPlan, not_sent
from prooftext.index import Index, open_index
from prooftext.pack.render import DEFAULT_FORMAT
from prooftext.select.query import DEFAULT_MAX_NODES as FIXED_MAX_NODES
from prooftext.select.query import Query
from prooftext.tokens import DEFAULT_TOKENIZER, get_counter

PROOFTEXT_ARMS = frozenset({ARM_FIXED, ARM_ADAPTIVE})
SEARCH_LIMIT = 1_000_000
"""``Index.search`` limit for the file ranking: every ranked candidate."""
RANKED_FILES_KEPT = 10
SHOWN_VALUE_CHARS = 80
"""A malformed task value is quoted in its error up to this length (a problem statement is not)."""
BLOB_MISSING = "blob_missing"
"""Why a file of the commit's tree is left out: the mirror lacks its blob (a partial clone or a snapshot
without its largest files)."""
GOLD_READ_LIMIT = 64 * 1024 * 1024
"""The largest gold file whose line ranges are checked against the tree (no source file comes near it)."""
BM25_KINDS: tuple[str, ...] = ("code",)
"""Source kinds the bm25 baseline ranks (as the SWE-bench retrieval ranks source files, not prose)."""

Emit = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class GoldFile:
    path: str
    ranges: tuple[LineRange, ...]


@dataclass(frozen=True)
class SweTask:
    instance_id: str
    repo: str
    base_commit: str
    problem_statement: str
    gold: tuple[GoldFile, ...]
    splits: tuple[str, ...] = ()
    spans: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """The gold patch's function and class names per file (``fix_spans``), for localization scores."""

    @property
    def gold_paths(self) -> list[str]:
        return [g.path for g in self.gold]

    @property
    def gold_ranges(self) -> dict[str, list[LineRange]]:
        return {g.path: list(g.ranges) for g in self.gold}


class TaskFieldError(ValueError):
    """A task field that is missing or malformed; ``field`` names it (``fix_files[0].base_line_ranges``)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


def _text(data: dict[str, Any], field: str) -> str:
    """A required string field that holds some non-blank text."""
    value = data.get(field)
    if not isinstance(value, str) or not value.strip():
        raise TaskFieldError(field, f"must be a non-empty string, not {_shown(value)}")
    return value


def _commit(data: dict[str, Any]) -> str:
    """``base_commit``: a commit id, checked with the task (a ref name or a typo would fail only at its turn)."""
    value = _text(data, "base_commit")
    if not is_commit_id(value):
        raise TaskFieldError("base_commit", f"must be {COMMIT_ID}, not {_shown(value)}")
    return value


def _shown(value: object) -> str:
    """A malformed value as an error message shows it: short scalars verbatim, anything else by its type
    (a container may be nested too deeply to print, a problem statement too long to quote)."""
    if isinstance(value, dict | list):
        kind = "object" if isinstance(value, dict) else "array"
        return f"an empty JSON {kind}" if not value else f"a JSON {kind}"
    text = json.dumps(value)
    return text if len(text) <= SHOWN_VALUE_CHARS else f"a {type(value).__name__} of {len(text)} characters"


def _line(value: object, field: str) -> int:
    # bool is an int subclass, but true/false are not line numbers
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise TaskFieldError(field, f"line numbers are integers from 1, not {_shown(value)}")
    return value


def _gold_ranges(raw: object, field: str) -> tuple[LineRange, ...]:
    if raw is None:  # a file the patch adds has no base-side lines
        return ()
    if not isinstance(raw, list):
        raise TaskFieldError(field, f"must be a list of [first, last] line pairs, not {_shown(raw)}")
    ranges: list[LineRange] = []
    for number, pair in enumerate(raw):
        where = f"{field}[{number}]"
        if not isinstance(pair, list) or len(pair) != 2:
            raise TaskFieldError(where, f"must be a [first, last] line pair, not {_shown(pair)}")
        first, last = _line(pair[0], where), _line(pair[1], where)
        if first > last:  # reversed, it would count a negative number of gold lines
            raise TaskFieldError(where, f"first line {first} is after last line {last}")
        ranges.append((first, last))
    return tuple(ranges)


def _inside(item: dict[str, Any], key: str, field: str) -> None:
    """``item[key]``, when it is a path, names a file inside the repository as git and the index spell it:
    an absolute path, or one with a ``..``, ``.`` or empty component (``./a.py``, ``a//b.py``, ``a/``), is a
    dataset error, not a gold file the index could hold (it would never match, and score as a miss)."""
    path = item.get(key)
    if isinstance(path, str) and any(part in ("", ".", "..") for part in path.split("/")):
        raise TaskFieldError(
            f"{field}.{key}",
            f"must be a path inside the repository as git writes it (relative, no '..', '.' or empty part),"
            f" not {_shown(path)}",
        )


def _gold_file(item: object, field: str) -> GoldFile:
    if not isinstance(item, dict):
        raise TaskFieldError(field, f"must be an object with path and base_line_ranges, not {_shown(item)}")
    for name in ("path", "base_path"):
        _inside(item, name, field)
    # A renamed file's gold lines are on its base side; an added file has only ``path``.
    key = "base_path" if item.get("base_path") is not None else "path"
    path = item.get(key)
    if not isinstance(path, str) or not path:
        raise TaskFieldError(f"{field}.{key}", f"must be a non-empty string, not {_shown(path)}")
    return GoldFile(path, _gold_ranges(item.get("base_line_ranges"), f"{field}.base_line_ranges"))


def _check_fix_paths(raw: object, fix_files: list[Any]) -> None:
    """``fix_paths``, when given, names exactly the files ``fix_files`` describes (each by its ``path``): two
    accounts of one patch that disagree are a dataset error, not a choice to make silently."""
    if raw is None:
        return
    if not isinstance(raw, list) or not all(isinstance(p, str) and p for p in raw):
        raise TaskFieldError("fix_paths", f"must be a list of paths, not {_shown(raw)}")
    described = sorted(str(item.get("path")) for item in fix_files if isinstance(item.get("path"), str))
    if sorted(raw) != described:
        raise TaskFieldError(
            "fix_paths",
            f"must name the {len(described)} file{'' if len(described) == 1 else 's'} of fix_files,"
            " as their path does",
        )


def parse_task(data: object) -> SweTask:
    """One task from its JSON object (fields as in ``swebench_dev.jsonl``); :class:`TaskFieldError` names
    the first field that is missing or malformed."""
    if not isinstance(data, dict):
        raise TaskFieldError("task", f"must be a JSON object, not {_shown(data)}")
    instance_id = _text(data, "instance_id")
    # Without a query there is nothing to evaluate: every arm would rank for the empty string (or "None").
    problem = _text(data, "problem_statement")
    fix_files = data.get("fix_files")
    if not isinstance(fix_files, list) or not fix_files:
        raise TaskFieldError("fix_files", f"must be a non-empty list of gold files, not {_shown(fix_files)}")
    gold = tuple(_gold_file(item, f"fix_files[{n}]") for n, item in enumerate(fix_files))
    _check_fix_paths(data.get("fix_paths"), fix_files)
    splits = data.get("splits")
    if splits is None:
        splits = []
    if not isinstance(splits, list) or not all(isinstance(s, str) for s in splits):
        raise TaskFieldError("splits", f"must be a list of strings, not {_shown(splits)}")
    return SweTask(
        instance_id=instance_id,
        repo=_text(data, "repo"),
        base_commit=_commit(data),
        problem_statement=problem,
        gold=gold,
        splits=tuple(splits),
        spans=_spans(data.get("fix_spans"), fix_files),
    )


def _spans(raw: object, fix_files: list[Any]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``fix_spans``: the names per file of the patch, each key a ``path`` or ``base_path`` of ``fix_files``
    spelled as there (any other key could never be matched, and would score every answer as a miss)."""
    if raw is None:
        return ()
    if not isinstance(raw, dict) or not all(
        isinstance(names, list) and all(isinstance(n, str) and n for n in names) for names in raw.values()
    ):
        raise TaskFieldError("fix_spans", f"must map each path to a list of names, not {_shown(raw)}")
    patch = {item.get(key) for item in fix_files for key in ("path", "base_path")}
    for path in sorted(raw):
        if path not in patch:
            raise TaskFieldError(
                "fix_spans",
                f"key {_shown(path)} names no file of fix_files (a path or base_path, as spelled there)",
            )
    return tuple((str(path), tuple(names)) for path, names in sorted(raw.items()))


TASKS_INPUT = "tasks"
"""``details.input`` of an error about a field of a tasks file (no command-line option names it)."""


def load_tasks(path: Path) -> list[SweTask]:
    """Tasks from a JSONL file. A malformed line, a malformed field or an instance id given twice is an
    :class:`ArtifactError` naming the file, line, field and task; a file without tasks is one too."""
    text = read_text(path, "tasks", ArtifactError)
    tasks: list[SweTask] = []
    first_line: dict[str, int] = {}
    # JSON Lines separates records by "\n" only; str.splitlines would also split inside a JSON string
    # holding a raw U+2028 or form feed and shift every line number after it.
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        data = parse_json(line, where, ArtifactError, path=str(path), line=number, input=TASKS_INPUT)
        try:
            task = parse_task(data)
        except TaskFieldError as exc:
            instance = data.get("instance_id") if isinstance(data, dict) else None
            named = f" (task {instance})" if isinstance(instance, str) else ""
            raise ArtifactError(
                f"{where}{named}: {exc}", path=str(path), line=number, field=exc.field, input=TASKS_INPUT
            ) from None
        if task.instance_id in first_line:
            raise ArtifactError(
                f"{where}: task {task.instance_id} is also on line {first_line[task.instance_id]}",
                path=str(path),
                line=number,
                field="instance_id",
                input=TASKS_INPUT,
            )
        first_line[task.instance_id] = number
        tasks.append(task)
    if not tasks:
        raise ArtifactError(f"{path}: no tasks", path=str(path), input=TASKS_INPUT)
    return tasks


SHOWN_NAMES = 8
"""An unknown repository or instance error lists at most this many of the known names."""


def _known(values: Sequence[str]) -> str:
    ordered = sorted(set(values))
    more = len(ordered) - SHOWN_NAMES
    return ", ".join(ordered[:SHOWN_NAMES]) + (f" and {more} more" if more > 0 else "")


def _refuse_unknown(asked: Sequence[str], have: Sequence[str], name: str, says: Callable[[str], str]) -> None:
    """An ``unknown_name`` error naming ``name`` when ``asked`` holds a value ``have`` lacks: ``says`` of the
    unknown values, then some of the known ones."""
    known = set(have)
    unknown = [value for value in asked if value not in known]
    if unknown:
        raise UnknownNameError(f"{says(', '.join(unknown))} {_known(have)}", field=name)


def select_tasks(
    tasks: Sequence[SweTask], repos: Sequence[str] = (), instances: Sequence[str] = ()
) -> list[SweTask]:
    """The tasks of any of ``repos`` (all when empty) that are among ``instances`` (all when empty), in file
    order. A repository or instance id that no task has is an ``unknown_name`` error naming the field
    (``repo`` or ``instance``), and so is a selection that leaves no task: never an empty run."""
    have_repos = [t.repo for t in tasks]
    have_ids = [t.instance_id for t in tasks]
    _refuse_unknown(
        repos, have_repos, "repo", lambda names: f"no task of repository {names}; the tasks' repositories:"
    )
    _refuse_unknown(
        instances,
        have_ids,
        "instance",
        lambda names: f"no task with instance id {names}; {len(have_ids)} tasks, e.g.",
    )
    chosen = [
        t for t in tasks if (not repos or t.repo in repos) and (not instances or t.instance_id in instances)
    ]
    if not chosen:
        raise UnknownNameError(
            f"no task of repository {', '.join(repos)} has instance id {', '.join(instances)}",
            field="instance",
        )
    return chosen


REPO_MAP_INPUT = "repo map"


def load_repo_map(path: Path) -> dict[str, Path]:
    """``{"owner/name": "path to a git directory or clone"}``; relative paths are relative to the file."""
    data = load_json(path, "repo map", ConfigError)
    if not isinstance(data, dict):
        raise ConfigError(
            f'repo map {path}: a repo map is a JSON object {{"owner/name": "path"}}',
            path=str(path),
            input=REPO_MAP_INPUT,
        )
    out: dict[str, Path] = {}
    for repo, target in data.items():
        # A NUL byte is in no file name: the operating system refuses the path outright.
        if not repo or not isinstance(target, str) or not target or "\0" in target:
            raise ConfigError(
                f"repo map {path}: entry {repo!r} must map to a non-empty path without NUL bytes",
                path=str(path),
                field=repo,
                input=REPO_MAP_INPUT,
            )
        try:
            out[repo] = (path.parent / target).resolve()
        except (OSError, RuntimeError) as exc:  # Python 3.11 raises RuntimeError for a symbolic-link loop
            raise ConfigError(
                f"repo map {path}: entry {repo!r} names a path that cannot be resolved ({exc})",
                path=str(path),
                field=repo,
                input=REPO_MAP_INPUT,
            ) from None
    return out


@dataclass(frozen=True)
class SweConfig:
    """Everything an arm needs, recorded verbatim in the run's declaration."""

    work_dir: Path
    arms: tuple[str, ...] = SWEBENCH_ARMS
    budget: int = DEFAULT_BUDGET
    tokenizer: str = DEFAULT_TOKENIZER
    bm25_k1: float = BM25_K1
    bm25_b: float = BM25_B
    bm25_kinds: tuple[str, ...] = BM25_KINDS
    fixed_max_nodes: int = FIXED_MAX_NODES
    ladder: Ladder = DEFAULT_LADDER
    """The adaptive arm's ladder; :meth:`adaptive_ladder` sets its token ceiling to the budget."""

    def adaptive_ladder(self) -> Ladder:
        """The ladder the adaptive arm climbs: up to the budget (see :func:`climbing_to`)."""
        return climbing_to(self.ladder, self.budget)

    def arm_parameters(self) -> dict[str, dict[str, Any]]:
        ladder = asdict(self.adaptive_ladder())
        del ladder["allow_truncated"]  # the arm never truncates evidence; its declaration never named it
        common = {"budget": self.budget, "tokenizer": self.tokenizer}
        params: dict[str, dict[str, Any]] = {
            ARM_FULL: {
                **common,
                "count": "whole-file prompt: header plus the exact count of each file block, summed",
            },
            ARM_BM25: {
                **common,
                "scorer": "bm25s (lucene)",
                "k1": self.bm25_k1,
                "b": self.bm25_b,
                "document": "path terms + content terms, identifiers split",
                "kinds": list(self.bm25_kinds) or "all",
                "packing": "whole files in rank order, skipping files that overflow",
            },
            ARM_FIXED: {**common, "max_nodes": self.fixed_max_nodes, "format": DEFAULT_FORMAT},
            ARM_ADAPTIVE: {**common, **ladder, "format": DEFAULT_FORMAT},
        }
        return {arm: params[arm] for arm in self.arms}


@dataclass(frozen=True)
class Shard:
    """Consecutive tasks (by commit time) of one repository, run on one work tree."""

    repo: str
    git_dir: Path
    slot: int
    tasks: tuple[SweTask, ...]

    @property
    def name(self) -> str:
        return f"{re.sub(r'[^A-Za-z0-9_.-]', '+', self.repo)}-{self.slot}"


def _time_or_zero(git_dir: Path, commit: str) -> int:
    """A commit's time for ordering; 0 for a commit git cannot read (its task fails when it runs)."""
    try:
        return commit_time(git_dir, commit)
    except SourceUnreadableError:
        return 0


def task_git_dirs(
    tasks: Sequence[SweTask], repo_map: Mapping[str, Path], repo_map_path: Path | None = None
) -> dict[str, Path]:
    """The git directory of every repository the tasks name, from the repo map read from ``repo_map_path``
    (``eval swebench`` and ``eval depth`` alike): a repository without an entry is ``config_invalid``, an
    entry git does not read as a repository ``root_missing`` or ``root_invalid``, each naming the entry."""
    git_dirs: dict[str, Path] = {}
    for repo in sorted({task.repo for task in tasks}):
        if repo not in repo_map:
            named = "repo map" if repo_map_path is None else f"repo map {repo_map_path}"
            where = {} if repo_map_path is None else {"path": str(repo_map_path)}
            raise ConfigError(
                f"{named}: no entry for {repo}, a repository the tasks name",
                **where,
                field=repo,
                input=REPO_MAP_INPUT,
            )
        git_dirs[repo] = git_dir_of(repo_map[repo], repo)
    return git_dirs


def plan_shards(
    tasks: Sequence[SweTask], repo_map: Mapping[str, Path], workers: int, repo_map_path: Path | None = None
) -> list[Shard]:
    """Per repository, tasks sorted by commit time, cut into ``ceil(workers * share)`` contiguous shards;
    the largest shards first (so a pool finishes together). Each repository's entry is checked first
    (:func:`task_git_dirs`)."""
    git_dirs = task_git_dirs(tasks, repo_map, repo_map_path)
    by_repo: dict[str, list[SweTask]] = {}
    for task in tasks:
        by_repo.setdefault(task.repo, []).append(task)
    shards: list[Shard] = []
    for repo, group in sorted(by_repo.items()):
        git_dir = git_dirs[repo]
        times = {c: _time_or_zero(git_dir, c) for c in {t.base_commit for t in group}}
        group.sort(key=lambda t: (times[t.base_commit], t.base_commit, t.instance_id))
        count = min(len(group), max(1, math.ceil(workers * len(group) / len(tasks))))
        size = math.ceil(len(group) / count)
        for slot, start in enumerate(range(0, len(group), size)):
            shards.append(Shard(repo, git_dir, slot, tuple(group[start : start + size])))
    shards.sort(key=lambda s: (-len(s.tasks), s.repo, s.slot))
    return shards


# --- one task ---------------------------------------------------------------------------------------------


def _packet_metrics(task: SweTask, excerpts: Sequence[tuple[str, int, int]], tokens: int) -> dict[str, Any]:
    touched = {path for path, _, _ in excerpts}
    gold = task.gold_paths
    return {
        "prompt_tokens": tokens,
        "excerpts": len(excerpts),
        "files": len(touched),
        "gold_file_recall": file_recall(touched, gold),
        "all_gold_files": set(gold) <= touched,
        "gold_line_recall": line_recall(group_ranges(excerpts), task.gold_ranges),
    }


def _ranking_metrics(ranked: Sequence[str], task: SweTask) -> dict[str, Any]:
    return {
        "acc": {str(k): acc_at_k(ranked, task.gold_paths, k) for k in ACC_KS},
        "gold_ranks": gold_ranks(ranked, task.gold_paths),
        "ranked_files": len(ranked),
        "top_files": list(ranked[:RANKED_FILES_KEPT]),
    }


@dataclass
class _TaskContext:
    task: SweTask
    index: Index
    config: SweConfig
    cache: CorpusCache
    snapshot: Snapshot | None = None
    ranking: dict[str, Any] | None = None
    want_prompts: bool = False
    """Keep each arm's prompt text in ``prompts`` (a model is asked)."""
    prompts: dict[str, str] = field(default_factory=dict)

    def corpus(self) -> Snapshot:
        if self.snapshot is None:
            self.snapshot = self.cache.snapshot(self.index.conn)
        return self.snapshot


def _arm_full(ctx: _TaskContext) -> dict[str, Any]:
    started = time.perf_counter()
    snap = ctx.corpus()
    total = ctx.cache.full_tokens(ctx.index.conn, snap, ctx.task.problem_statement)
    if ctx.want_prompts and total <= ctx.config.budget:
        blocks = [file_block(p, text_of(ctx.index.conn, p)) for p in snap.paths]
        ctx.prompts[ARM_FULL] = file_prompt(ctx.task.problem_statement, blocks)
    # It quotes what the permitted corpus holds: a gold file the scan left out is a miss here too.
    held = _packet_metrics(ctx.task, _whole_files(ctx.index.conn, snap.paths), total)
    return {
        "prompt_tokens": total,
        "files": len(snap.paths),
        "fits_budget": total <= ctx.config.budget,
        "gold_file_recall": held["gold_file_recall"],
        "all_gold_files": held["all_gold_files"],
        "gold_line_recall": held["gold_line_recall"],
        "count_ms": elapsed_ms(started),
    }


def _arm_bm25(ctx: _TaskContext) -> dict[str, Any]:
    snap, conn, query = ctx.corpus(), ctx.index.conn, ctx.task.problem_statement
    started, cpu = time.perf_counter(), time.process_time()
    ctx.cache.prepare_ranker(conn, snap)
    ctx.cache.prepare_costs(conn, snap)
    index_ms = elapsed_ms(started)
    index_cpu_ms = round((time.process_time() - cpu) * MS_PER_S, 3)
    started = time.perf_counter()
    order = snap.rank(query)
    packed = pack_whole(
        order,
        lambda i: ctx.cache.block_cost(conn, snap.paths[i], snap.digests[i]),
        lambda taken: file_prompt(
            query, [file_block(snap.paths[i], text_of(conn, snap.paths[i])) for i in taken]
        ),
        ctx.config.budget,
        get_counter(ctx.config.tokenizer),
    )
    latency = elapsed_ms(started)
    if ctx.want_prompts:
        blocks = [file_block(snap.paths[i], text_of(conn, snap.paths[i])) for i in packed.taken]
        ctx.prompts[ARM_BM25] = file_prompt(query, blocks)
    out = _packet_metrics(
        ctx.task, _whole_files(conn, [snap.paths[i] for i in packed.taken]), packed.prompt_tokens
    )
    out.update(_ranking_metrics([snap.paths[i] for i in order], ctx.task))
    out.update(
        {
            "latency_ms": latency,
            "index_ms": index_ms,
            "index_cpu_ms": index_cpu_ms,
            "skipped_files": packed.skipped,
        }
    )
    return out


def _whole_files(conn: sqlite3.Connection, paths: Sequence[str]) -> list[tuple[str, int, int]]:
    """Each file as one excerpt of all its lines (a prompt of whole files quotes every line of each)."""
    return [(path, 1, max(1, _line_total(conn, path))) for path in paths]


def _line_total(conn: sqlite3.Connection, path: str) -> int:
    row = conn.execute("SELECT line_count FROM files WHERE path = ?", (path,)).fetchone()
    return 0 if row is None else int(row[0])


def _prooftext_ranking(ctx: _TaskContext) -> dict[str, Any]:
    if ctx.ranking is None:
        started = time.perf_counter()
        nodes = ctx.index.search(ctx.task.problem_statement, limit=SEARCH_LIMIT)
        ranked = first_occurrences(str(n["path"]) for n in nodes)
        ctx.ranking = {**_ranking_metrics(ranked, ctx.task), "rank_ms": elapsed_ms(started)}
    return ctx.ranking


def _arm_fixed(ctx: _TaskContext) -> dict[str, Any]:
    ranking = _prooftext_ranking(ctx)
    started = time.perf_counter()
    packet = ctx.index.pack(
        Query(
            ctx.task.problem_statement,
            max_tokens=ctx.config.budget,
            max_nodes=ctx.config.fixed_max_nodes,
            tokenizer=ctx.config.tokenizer,
        ),
        refresh=False,
    )
    latency = elapsed_ms(started)
    ctx.prompts[ARM_FIXED] = packet.prompt
    excerpts = [(e.path, e.start_line, e.end_line) for e in packet.evidence]
    out = _packet_metrics(ctx.task, excerpts, packet.prompt_tokens.count)
    out.update(ranking)
    out.update({"latency_ms": latency, "omitted": packet.omitted, "prompt_blake3": packet.blake3})
    return out


def _arm_adaptive(ctx: _TaskContext) -> dict[str, Any]:
    ranking = _prooftext_ranking(ctx)
    cfg = ctx.config
    started = time.perf_counter()
    result = ctx.index.adaptive_pack(
        Query(ctx.task.problem_statement, tokenizer=cfg.tokenizer),
        ladder=cfg.adaptive_ladder(),
        refresh=False,
    )
    latency = elapsed_ms(started)
    packet = result.packet
    ctx.prompts[ARM_ADAPTIVE] = packet.prompt
    excerpts = [(e.path, e.start_line, e.end_line) for e in packet.evidence]
    out = _packet_metrics(ctx.task, excerpts, packet.prompt_tokens.count)
    out.update(ranking)
    out.update(
        {
            "latency_ms": latency,
            "stop_reason": result.stop_reason,
            "selected_round": result.selected_round,
            "rounds": len(result.rounds),
            "estimated_sufficient": result.estimated_sufficient,
            "prompt_blake3": packet.blake3,
        }
    )
    return out


_ARM_FUNCTIONS: dict[str, Callable[[_TaskContext], dict[str, Any]]] = {
    ARM_FULL: _arm_full,
    ARM_BM25: _arm_bm25,
    ARM_FIXED: _arm_fixed,
    ARM_ADAPTIVE: _arm_adaptive,
}


def _run_arms(ctx: _TaskContext) -> dict[str, Any]:
    arms: dict[str, Any] = {}
    for arm in ctx.config.arms:
        cpu = time.process_time()
        try:
            arms[arm] = {"ok": True, **_ARM_FUNCTIONS[arm](ctx)}
        except Exception as exc:  # a failure is a measured outcome: recorded, counted, never raised
            arms[arm] = {"ok": False, "error": error_record(exc)}
        # As latency_ms, without building an arm's own index (``index_cpu_ms``, the bm25 arm's per task).
        spent = (time.process_time() - cpu) * MS_PER_S - arms[arm].get("index_cpu_ms", 0.0)
        arms[arm]["cpu_ms"] = round(max(0.0, spent), 3)
    return arms


def task_row(task: SweTask) -> dict[str, Any]:
    return {
        "instance_id": task.instance_id,
        "repo": task.repo,
        "base_commit": task.base_commit,
        "splits": list(task.splits),
        "gold_files": task.gold_paths,
        "gold_lines": sum(b - a + 1 for g in task.gold for a, b in g.ranges),
    }


# --- one shard --------------------------------------------------------------------------------------------


@dataclass
class _ShardState:
    shard: Shard
    config: SweConfig
    tree: WorkTree
    cache: CorpusCache
    index: Index | None = None
    indexed_commit: str | None = None
    model: ModelClient | None = None

    def prepare(self, commit: str) -> tuple[Index, dict[str, Any]]:
        """Move the tree to ``commit`` and refresh the index; the index and what it cost."""
        if self.indexed_commit == commit and self.index is not None:
            return self.index, {"reused": True, "blobs_missing": list(self.tree.missing)}
        started = time.perf_counter()
        self.tree.checkout(commit)
        checkout_s = time.perf_counter() - started
        if self.index is None:
            self.index = open_index(self.tree.root)
        cpu = cpu_seconds()
        report = self.index.refresh()
        self.indexed_commit = commit
        return self.index, {
            "reused": False,
            "checkout_s": round(checkout_s, 3),
            "refresh_s": round(report.seconds_ms / MS_PER_S, 3),
            "refresh_cpu_s": round(cpu_seconds() - cpu, 3),
            "files_indexed": report.files_indexed,
            "files_removed": report.files_removed,
            "files_unchanged": report.files_unchanged,
            "nodes": report.nodes,
            "blobs_missing": list(self.tree.missing),
        }

    def close(self) -> None:
        if self.index is not None:
            self.index.close()
            self.index = None


def _tree_lines(root: Path, path: str) -> int | None:
    """The number of lines of the tree's file ``path``; None when the tree holds no regular file there that
    can be read (a file the corpus lacks is named in ``gold_not_indexed`` instead)."""
    try:
        return count_lines(read_bytes_checked(root, path, GOLD_READ_LIMIT))
    except SourceError:
        return None


def _past_end(task: SweTask, number: int, gold: GoldFile, lines: int) -> ArtifactError | None:
    """The error of the first of ``gold``'s ranges that ends past the file's ``lines``, if one does."""
    for n, (first, last) in enumerate(gold.ranges):
        if last > lines:
            return ArtifactError(
                f"task {task.instance_id}: gold lines {first}-{last} of {gold.path} are past the end of the"
                f" file, which has {lines} lines at base_commit {task.base_commit}",
                instance_id=task.instance_id,
                file=gold.path,
                line_range=[first, last],
                lines=lines,
                field=f"fix_files[{number}].base_line_ranges[{n}]",
            )
    return None


def check_gold_ranges(task: SweTask, root: Path) -> None:
    """Every gold line range lies within its file as the tree at the task's ``base_commit`` holds it; one
    past the file's end (it would count lines that do not exist) is an :class:`ArtifactError` naming the
    task, the file, the range and the file's length."""
    for number, gold in enumerate(task.gold):
        lines = _tree_lines(root, gold.path) if gold.ranges else None
        error = None if lines is None else _past_end(task, number, gold, lines)
        if error is not None:
            raise error


def _failed(row: dict[str, Any], exc: Exception, arms: Sequence[str]) -> dict[str, Any]:
    """The row of a task none of whose arms could run: each arm failed with the same error."""
    row["arms"] = {arm: {"ok": False, "error": error_record(exc)} for arm in arms}
    return row


def evaluate_task(state: _ShardState, task: SweTask) -> dict[str, Any]:
    row = task_row(task)
    row["shard"] = state.shard.name
    try:
        index, row["index"] = state.prepare(task.base_commit)
    except Exception as exc:  # the tree or index could not be built: every arm of the task failed
        state.indexed_commit = None
        row["index"] = {"error": error_record(exc)}
        return _failed(row, exc, state.config.arms)
    if row["index"]["blobs_missing"]:  # files the mirror lacks: left out of the tree, each with its reason
        row["files_left_out"] = [{"path": p, "reason": BLOB_MISSING} for p in row["index"]["blobs_missing"]]
    try:
        check_gold_ranges(task, state.tree.root)
    except ArtifactError as exc:  # the gold does not fit the task's own tree: nothing can be scored
        return _failed(row, exc, state.config.arms)
    ctx = _TaskContext(task, index, state.config, state.cache, want_prompts=state.model is not None)
    row["arms"] = _run_arms(ctx)
    # Gold files the permitted corpus lacks (excluded by the scan, or not in the commit): no arm can quote
    # them. Read whichever arms ran, so that the same task gets the same diagnosis.
    present = set(ctx.corpus().paths)
    row["gold_not_indexed"] = [p for p in task.gold_paths if p not in present]
    if state.model is not None:
        _ask_model(state.model, task, row, ctx)
    return row


def _ask_model(client: ModelClient, task: SweTask, row: dict[str, Any], ctx: _TaskContext) -> None:
    """Each arm's prompt to the model (an arm over the budget or that failed is not sent), scored."""
    spans = dict(task.spans)

    def score(text: str) -> dict[str, Any]:
        return swe_score(text, task.gold_paths, spans)

    for arm, result in row["arms"].items():
        prompt = ctx.prompts.get(arm)
        if not result.get("ok"):
            result["model"] = not_sent("the arm failed")
        elif prompt is None or int(result.get("prompt_tokens", 0)) > ctx.config.budget:
            result["model"] = not_sent("over the budget")
        else:
            result["model"] = client.answer(
                task.instance_id, arm, prompt, int(result["prompt_tokens"]), score
            )


@dataclass(frozen=True)
class ShardRunner:
    """``runner(shard, emit)``: a picklable unit function for the executors."""

    config: SweConfig
    model: ModelPlan | None = None

    def __call__(self, shard: Shard, emit: Emit) -> int:
        return run_shard(shard, self.config, emit, self.model)


def run_shard(shard: Shard, config: SweConfig, emit: Emit, model: ModelPlan | None = None) -> int:
    """Evaluate a shard's tasks in order on its own work tree; each row goes to ``emit``."""
    tree = WorkTree(shard.git_dir, config.work_dir / shard.name, shard.repo)
    cache = CorpusCache(get_counter(config.tokenizer), config.bm25_k1, config.bm25_b, config.bm25_kinds)
    state = _ShardState(shard, config, tree, cache, model=None if model is None else ModelClient(model))
    try:
        for task in shard.tasks:
            emit(evaluate_task(state, task))
    finally:
        state.close()
        if state.model is not None:
            state.model.close()
    return len(shard.tasks)
