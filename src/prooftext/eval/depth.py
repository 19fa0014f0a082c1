"""Depth tiers: is the surface tier precise on CLINC150, and does it never swallow a LoCoMo question?

CLINC150's test split labels each utterance with an intent; greeting, goodbye, thank_you, yes and no are small
talk and should be surface, every other intent should not. ``maybe`` is not small talk (an undecided answer
asks for more) and is not counted either way; how often it comes out surface is reported on its own. The
classifier's surface prediction is scored for precision and recall, with per-intent rates and the
misclassified utterances. The out-of-scope test utterances (``oos_test``) are not surface; the false-surface
share counts them with the other in-scope intents. On LoCoMo every question needs the history, so the share
classified surface should be 0.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prooftext.api.turns import repository_terms_of
from prooftext.depth import KnownTerms, RepositoryTerms, Tier, classify, names_in, should_recall_memory
from prooftext.depth.tiers import MARKER, tier_constants
from prooftext.errors import ArtifactError
from prooftext.eval.common import Progress, RunOptions, elapsed_ms
from prooftext.eval.dataio import load_json
from prooftext.eval.declare import Declaration, manifest, verdict
from prooftext.eval.depth_report import depth_report
from prooftext.eval.gittree import WorkTree
from prooftext.eval.locomo_data import Conversation as LocomoConversation
from prooftext.eval.locomo_data import load_locomo
from prooftext.eval.metrics import frequencies, percentile
from prooftext.eval.output import RunOutput
from prooftext.eval.swebench import SweTask, load_repo_map, load_tasks, task_git_dirs
from prooftext.index import open_index
from prooftext.tokens import DEFAULT_TOKENIZER

SURFACE_INTENTS: frozenset[str] = frozenset({"greeting", "goodbye", "thank_you", "yes", "no"})
NOT_COUNTED_INTENTS: frozenset[str] = frozenset({"maybe"})
"""Intents left out of precision, recall and the false-surface share (reported on their own)."""
TARGET_SURFACE_RECALL = 0.80
TARGET_FALSE_SURFACE_SHARE = 0.005
"""The depth tiers' bars: surface recall on small talk, and the share of other utterances called surface."""
CLINC_SPLIT = "test"
CLINC_OOS_SPLIT = "oos_test"
EXAMPLES_KEPT = 25
P50 = 50
P95 = 95
DEFAULT_DEPTH_DECLARATION = Declaration("surface_precision", 0.95, None)
DEPTH_METRICS = ("surface_precision", "surface_recall")
"""The scores a declaration may name (higher is better)."""
"""Default bar: at least 95% of what is classified surface really is an acknowledgement."""


@dataclass(frozen=True)
class GateRepositories:
    """SWE-bench issue titles per repository and the names of each repository's index, for the retrieval
    gate; ``note`` says at which commits the indexes were built."""

    tasks: Path
    titles: Mapping[str, Sequence[str]]
    terms: Mapping[str, RepositoryTerms]
    note: str


def gate_repositories(
    tasks_path: Path, repo_map_path: Path, work_dir: Path, progress: Progress | None = None
) -> GateRepositories:
    """Index each SWE-bench repository once and learn its names, for the retrieval gate
    (:func:`plan_gates`, then :meth:`GatePlan.index`)."""
    return plan_gates(tasks_path, repo_map_path, work_dir).index(progress)


@dataclass(frozen=True)
class GatePlan:
    """The retrieval gate's inputs, read and checked (:func:`plan_gates`) but not yet indexed: a depth run
    indexes them only once its other data files are checked too, so a bad file never waits behind the
    indexing."""

    tasks: Path
    loaded: Sequence[SweTask]
    repo_map: Mapping[str, Path]
    work_dir: Path

    def index(self, progress: Progress | None = None) -> GateRepositories:
        """Building an index per task (181 commits, sympy among them) is slow, so each repository is indexed
        at one commit: the base commit of its first task in the file. Every title of that repository is then
        asked with that index open; the note says so. Trees are materialized from the commit alone (never
        later history) under ``work_dir``."""
        titles: dict[str, list[str]] = {}
        first: dict[str, str] = {}
        for task in self.loaded:
            titles.setdefault(task.repo, []).append(issue_title(task.problem_statement))
            first.setdefault(task.repo, task.base_commit)
        terms: dict[str, RepositoryTerms] = {}
        for number, (repo, commit) in enumerate(sorted(first.items()), start=1):
            tree = WorkTree(self.repo_map[repo], self.work_dir / repo.replace("/", "+"), repo)
            tree.checkout(commit)
            with open_index(tree.root) as index:
                terms[repo] = repository_terms_of(index)
            if progress is not None:
                progress(number, len(first))
        note = "Indexes built once per repository, at the base commit of its first task: " + ", ".join(
            f"{repo}@{commit[:12]}" for repo, commit in sorted(first.items())
        )
        return GateRepositories(self.tasks, titles, terms, note)


def plan_gates(tasks_path: Path, repo_map_path: Path, work_dir: Path) -> GatePlan:
    """Read and check the SWE-bench tasks, the repo map and each entry the tasks use, indexing nothing."""
    tasks = load_tasks(tasks_path)
    repo_map = load_repo_map(repo_map_path)
    task_git_dirs(tasks, repo_map, repo_map_path)
    return GatePlan(tasks_path, tasks, repo_map, work_dir)


CLINC_INPUT = "CLINC150 data"
"""``details.input`` of an error about a CLINC150 file (no command-line option names its fields)."""


def load_clinc(path: Path) -> dict[str, list[tuple[str, str]]]:
    """CLINC150 ``data_full.json``: split name → (utterance, intent) pairs.

    Every split must be a list of ``[utterance, intent]`` string pairs and the ``test`` split must be there
    (without it a run would score nothing and still pass); otherwise an :class:`ArtifactError` names the
    file, the split and the item.
    """
    data = load_json(path, CLINC_INPUT, ArtifactError)
    if not isinstance(data, dict):
        raise ArtifactError(
            f"{path}: CLINC150 data is a JSON object of splits", path=str(path), input=CLINC_INPUT
        )
    if CLINC_SPLIT not in data:
        raise ArtifactError(
            f"{path}: no {CLINC_SPLIT!r} split (splits: {', '.join(sorted(data))[:200] or 'none'})",
            path=str(path),
            field=CLINC_SPLIT,
            input=CLINC_INPUT,
        )
    splits: dict[str, list[tuple[str, str]]] = {}
    for split, items in data.items():
        if not isinstance(items, list):
            raise ArtifactError(
                f"{path}: split {split!r} must be a list", path=str(path), field=split, input=CLINC_INPUT
            )
        pairs: list[tuple[str, str]] = []
        for number, item in enumerate(items):
            if not (isinstance(item, list) and len(item) == 2 and all(isinstance(x, str) for x in item)):
                raise ArtifactError(
                    f"{path}: {split}[{number}] must be an [utterance, intent] pair of strings",
                    path=str(path),
                    field=f"{split}[{number}]",
                    input=CLINC_INPUT,
                )
            pairs.append((item[0], item[1]))
        splits[split] = pairs
    if not splits[CLINC_SPLIT]:
        raise ArtifactError(
            f"{path}: the {CLINC_SPLIT!r} split is empty",
            path=str(path),
            field=CLINC_SPLIT,
            input=CLINC_INPUT,
        )
    return splits


def _is_surface(text: str) -> bool:
    return classify(text) is Tier.SURFACE


def clinc_scores(
    items: Sequence[tuple[str, str]], row: Callable[[dict[str, Any]], None] | None = None
) -> dict[str, Any]:
    """Surface precision and recall over labelled utterances, per-intent rates, and the errors; ``row``, when
    given, receives each utterance with its intent and whether it was called surface (the run's rows)."""
    tp = fp = fn = 0
    false_pos: list[dict[str, str]] = []
    false_neg: list[dict[str, str]] = []
    per_intent: dict[str, list[int]] = {}
    not_counted: dict[str, list[int]] = {}
    timings: list[float] = []
    for text, intent in items:
        started = time.perf_counter()
        predicted = _is_surface(text)
        timings.append(elapsed_ms(started))
        if row is not None:
            row({"text": text, "intent": intent, "surface": predicted})
        if intent in NOT_COUNTED_INTENTS:
            not_counted.setdefault(intent, [0, 0])[0] += int(predicted)
            not_counted[intent][1] += 1
            continue
        gold = intent in SURFACE_INTENTS
        tp += int(predicted and gold)
        fp += int(predicted and not gold)
        fn += int(gold and not predicted)
        if gold:
            per_intent.setdefault(intent, [0, 0])[0] += int(predicted)
            per_intent[intent][1] += 1
        if predicted != gold:
            (false_pos if predicted else false_neg).append({"text": text, "intent": intent})
    return {
        "utterances": len(items),
        "gold_surface": tp + fn,
        "predicted_surface": tp + fp,
        "true_positives": tp,
        "surface_precision": tp / (tp + fp) if tp + fp else None,
        "surface_recall": tp / (tp + fn) if tp + fn else None,
        "surface_recall_by_intent": {k: v[0] / v[1] for k, v in sorted(per_intent.items())},
        "false_surface": false_pos[:EXAMPLES_KEPT],
        "false_surface_count": fp,
        "not_surface_gold": len(items) - sum(v[1] for v in not_counted.values()) - tp - fn,
        "not_counted": {k: {"surface": v[0], "utterances": v[1]} for k, v in sorted(not_counted.items())},
        "missed_surface_examples": false_neg[:EXAMPLES_KEPT],
        "latency_ms_p50": percentile(timings, P50),
        "latency_ms_p95": percentile(timings, P95),
    }


def surface_targets(clinc: dict[str, Any], oos: dict[str, Any]) -> dict[str, Any]:
    """The tiers' bars: surface recall on small talk, and the share of every other utterance (in-scope
    intents and out-of-scope) called surface."""
    others = clinc["not_surface_gold"] + oos["utterances"]
    wrong = clinc["false_surface_count"] + oos["false_surface_count"]
    share = wrong / others if others else None
    recall = clinc["surface_recall"]
    return {
        "false_surface_count": wrong,
        "false_surface_share": share,
        "false_surface_share_max": TARGET_FALSE_SURFACE_SHARE,
        "other_utterances": others,
        "surface_recall": recall,
        "surface_recall_min": TARGET_SURFACE_RECALL,
        "met": recall is not None
        and recall >= TARGET_SURFACE_RECALL
        and share is not None
        and share <= TARGET_FALSE_SURFACE_SHARE,
    }


def locomo_surface(questions: Sequence[str]) -> dict[str, Any]:
    """How LoCoMo questions are tiered; every one classified surface is an error."""
    tiers = [classify(q).value for q in questions]
    wrong = [q for q, t in zip(questions, tiers, strict=True) if t == Tier.SURFACE.value]
    return {
        "questions": len(questions),
        "tiers": frequencies(tiers),
        "surface_count": len(wrong),
        "surface_share": len(wrong) / len(questions) if questions else None,
        "surface_examples": wrong[:EXAMPLES_KEPT],
    }


TARGET_LOCOMO_MEMORY = 0.95
TARGET_SWEBENCH_RETRIEVAL = 0.90
TARGET_SMALL_TALK_GATES = 0.05
"""The gates' bars: memory search for LoCoMo questions in their own conversation, retrieval for SWE-bench
issue titles with their repository open, and at most this share of small talk running either."""


def _gate_row(decisions: Sequence[tuple[str, bool, bool]]) -> dict[str, Any]:
    """How often memory search and retrieval ran over ``(text, memory, retrieval)`` decisions."""
    n = len(decisions)
    memory = sum(1 for _, m, _ in decisions if m)
    retrieval = sum(1 for _, _, r in decisions if r)
    return {
        "turns": n,
        "memory_ran": memory,
        "memory_share": memory / n if n else None,
        "retrieval_ran": retrieval,
        "retrieval_share": retrieval / n if n else None,
        "memory_not_run_examples": [t for t, m, _ in decisions if not m][:EXAMPLES_KEPT],
        "retrieval_not_run_examples": [t for t, _, r in decisions if not r][:EXAMPLES_KEPT],
        "memory_run_examples": [t for t, m, _ in decisions if m][:EXAMPLES_KEPT],
        "retrieval_run_examples": [t for t, _, r in decisions if r][:EXAMPLES_KEPT],
    }


def _gates(text: str, known: KnownTerms) -> tuple[str, bool, bool]:
    gate = should_recall_memory(text, known=known)
    return text, gate.recall, gate.retrieval


def locomo_gates(conversations: Sequence[LocomoConversation]) -> dict[str, Any]:
    """Each LoCoMo question asked as a turn of its own conversation: the names its turns mention, and its
    speakers (the people of the thread), are what the thread knows (no repository is open, so retrieval has
    no index to run on; its share is the fallback rule's)."""
    decisions: list[tuple[str, bool, bool]] = []
    for conversation in conversations:
        speakers = {t.speaker.lower() for t in conversation.turns if t.speaker}
        known = KnownTerms(names=names_in(t.text for t in conversation.turns) | speakers)
        decisions.extend(_gates(q.text, known) for q in conversation.questions)
    return _gate_row(decisions)


def small_talk_gates(
    items: Sequence[tuple[str, str]],
    names: frozenset[str],
    repositories: Mapping[str, RepositoryTerms],
) -> dict[str, Any]:
    """The CLINC150 small-talk utterances with a thread's names known and, in turn, each repository open
    (none when no repository is given): the share that ran memory search or retrieval, per root and at
    worst."""
    talk = [text for text, intent in items if intent in SURFACE_INTENTS]
    roots: dict[str, RepositoryTerms | None] = dict(repositories) or {"(no repository)": None}
    per_root = {
        root: _gate_row([_gates(t, KnownTerms(names=names, repository=terms)) for t in talk])
        for root, terms in sorted(roots.items())
    }
    # Over no utterance nothing is measured: None, never a share of 0 that meets its bar.
    worst_memory = max((r["memory_share"] or 0.0) for r in per_root.values()) if talk else None
    worst_retrieval = max((r["retrieval_share"] or 0.0) for r in per_root.values()) if talk else None
    return {
        "utterances": len(talk),
        "names_known": len(names),
        "per_root": per_root,
        "memory_share_max": worst_memory,
        "retrieval_share_max": worst_retrieval,
    }


def issue_title(problem_statement: str) -> str:
    """The first non-empty line of an issue's problem statement, stripped of Markdown heading marks."""
    for line in problem_statement.splitlines():
        line = line.strip().lstrip("#").strip()
        if line:
            return line
    return problem_statement.strip()


def swebench_gates(
    titles: Mapping[str, Sequence[str]], repositories: Mapping[str, RepositoryTerms]
) -> dict[str, Any]:
    """Each issue title asked as a turn with its repository open: how often retrieval (and memory) ran,
    overall and per repository."""
    per_repo: dict[str, dict[str, Any]] = {}
    every: list[tuple[str, bool, bool]] = []
    for repo, texts in sorted(titles.items()):
        known = KnownTerms(repository=repositories[repo])
        decisions = [_gates(t, known) for t in texts]
        every.extend(decisions)
        row = _gate_row(decisions)
        per_repo[repo] = {
            k: row[k] for k in ("turns", "retrieval_ran", "retrieval_share", "retrieval_not_run_examples")
        }
    return {**_gate_row(every), "per_repository": per_repo}


def gate_targets(summary: Mapping[str, Any]) -> dict[str, Any]:
    """The gates' bars, each with its measurement (``None`` when its data set was not given)."""
    locomo = summary.get("locomo_gates")
    swe = summary.get("swebench_gates")
    talk = summary.get("small_talk_gates")
    rows = {
        "locomo_memory_share": (locomo or {}).get("memory_share"),
        "swebench_retrieval_share": (swe or {}).get("retrieval_share"),
        "small_talk_memory_share_max": (talk or {}).get("memory_share_max"),
        "small_talk_retrieval_share_max": (talk or {}).get("retrieval_share_max"),
    }
    bars = {
        "locomo_memory_share": (">=", TARGET_LOCOMO_MEMORY),
        "swebench_retrieval_share": (">=", TARGET_SWEBENCH_RETRIEVAL),
        "small_talk_memory_share_max": ("<=", TARGET_SMALL_TALK_GATES),
        "small_talk_retrieval_share_max": ("<=", TARGET_SMALL_TALK_GATES),
    }
    out: dict[str, Any] = {}
    for name, value in rows.items():
        op, bar = bars[name]
        met = None if value is None else (value >= bar if op == ">=" else value <= bar)
        out[name] = {"measured": value, "target": f"{op} {bar}", "op": op, "bar": bar, "met": met}
    return out


SCORING_STEPS = 2
"""The steps of a depth run after any indexing, as its progress counts them: CLINC150, then the gates."""


def run_depth(
    clinc_path: Path,
    locomo_path: Path | None,
    declaration: Declaration,
    options: RunOptions,
    progress: Progress | None = None,
    *,
    swebench: GateRepositories | GatePlan | None = None,
) -> dict[str, Any]:
    """The tiers on CLINC150 (and LoCoMo), and how often the standard tier's gates ran: memory search for
    LoCoMo questions in their own conversation, retrieval for SWE-bench issue titles with their repository
    open (``swebench``), and both for CLINC150 small talk with a conversation's names and each repository."""
    datasets = {"clinc": clinc_path, **({"locomo": locomo_path} if locomo_path else {})}
    if swebench is not None:
        datasets["swebench"] = swebench.tasks
    # Both files are read and checked before anything is declared or written: a bad one refuses the run.
    splits = load_clinc(clinc_path)
    conversations = None if locomo_path is None else load_locomo(locomo_path)[0]
    questions = None if conversations is None else [q.text for c in conversations for q in c.questions]
    indexed = 0  # progress counts each repository indexed here, then the two scoring steps
    if isinstance(swebench, GatePlan):  # indexed only now that every file is checked
        swebench = swebench.index(_then_scoring(progress))
        indexed = len(swebench.terms)
    record = manifest("depth", datasets, declaration, DEFAULT_TOKENIZER, {"classifier": _classifier_params()})
    with RunOutput(options.out_dir) as output:
        output.start(record)
        started = time.perf_counter()
        summary: dict[str, Any] = {"clinc": clinc_scores(splits[CLINC_SPLIT], _rows(output, CLINC_SPLIT))}
        oos = clinc_scores(splits.get(CLINC_OOS_SPLIT, []), _rows(output, CLINC_OOS_SPLIT))
        summary["clinc_oos"] = {k: oos[k] for k in ("utterances", "false_surface_count", "false_surface")}
        summary["surface_targets"] = surface_targets(summary["clinc"], summary["clinc_oos"])
        if progress is not None:
            progress(indexed + 1, indexed + SCORING_STEPS)
        if questions is not None and conversations is not None:
            summary["locomo"] = locomo_surface(questions)
            summary["locomo_gates"] = locomo_gates(conversations)
        if swebench is not None:
            summary["swebench_gates"] = swebench_gates(swebench.titles, swebench.terms)
            summary["swebench_gates"]["note"] = swebench.note
        names = frozenset() if conversations is None else names_in(t.text for t in conversations[0].turns)
        summary["small_talk_gates"] = small_talk_gates(
            splits[CLINC_SPLIT], names, {} if swebench is None else swebench.terms
        )
        summary["gate_targets"] = gate_targets(summary)
        if progress is not None:
            progress(indexed + SCORING_STEPS, indexed + SCORING_STEPS)
        flat = {"depth": _flat(summary)}
        summary.update(
            {
                "wall_s": round(time.perf_counter() - started, 2),
                "declaration": record["declaration"],
                "verdict": verdict(declaration, flat, None),
                "code": record["code"],
                "datasets": record["datasets"],
            }
        )
        output.finish(summary, depth_report(record, summary) if options.out_dir else None)
    return summary


def _then_scoring(progress: Progress | None) -> Progress | None:
    """``progress`` for the repositories a run indexes, its total counting the scoring steps still to come."""
    if progress is None:
        return None
    return lambda done, total: progress(done, total + SCORING_STEPS)


def _rows(output: RunOutput, split: str) -> Callable[[dict[str, Any]], None]:
    """Each CLINC150 utterance of ``split`` as one row of ``tasks.jsonl``: its text, intent and tier call."""
    return lambda row: output.row({"dataset": "clinc150", "split": split, **row})


def _flat(summary: dict[str, Any]) -> dict[str, Any]:
    """The declarable metrics of a depth run, under one name."""
    clinc = summary["clinc"]
    out = {k: clinc[k] for k in ("surface_precision", "surface_recall")}
    locomo = summary.get("locomo")
    if locomo is not None and locomo["surface_share"] is not None:
        out["locomo_not_surface"] = 1.0 - locomo["surface_share"]
    return out


def _classifier_params() -> dict[str, Any]:
    return {"marker": MARKER, "constants": tier_constants(), "surface_intents": sorted(SURFACE_INTENTS)}
