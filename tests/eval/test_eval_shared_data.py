"""The real datasets in ../shared/eval (skipped with a reason when absent): they load as documented.

Numbers asserted here are the ones shared/eval/SOURCES.md states: 181 SWE-bench tasks over four repositories;
LoCoMo with 10 conversations, 272 sessions, 5,882 turns, 1,986 questions, 9 malformed evidence ids and 4
questions without evidence; CLINC150's test split of 4,500 utterances, 30 per intent.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from prooftext.eval.common import RunOptions
from prooftext.eval.depth import DEFAULT_DEPTH_DECLARATION, SURFACE_INTENTS, load_clinc, run_depth
from prooftext.eval.locomo_data import load_locomo
from prooftext.eval.swebench import load_tasks


@pytest.fixture(scope="module")
def eval_dir(shared: Path) -> Path:
    path = shared / "eval"
    if not path.is_dir():
        pytest.skip("../shared/eval (the evaluation datasets) is not present")
    return path


def test_swebench_dev_tasks_load(eval_dir: Path) -> None:
    tasks = load_tasks(eval_dir / "swebench_dev.jsonl")
    assert len(tasks) == 181
    assert Counter(t.repo for t in tasks) == {
        "sympy/sympy": 130,
        "pytest-dev/pytest": 34,
        "psf/requests": 13,
        "pallets/flask": 4,
    }
    assert all(t.gold and all(a <= b for g in t.gold for a, b in g.ranges) for t in tasks)


def test_locomo_loads_with_nine_malformed_evidence_ids(eval_dir: Path) -> None:
    conversations, stats = load_locomo(eval_dir / "locomo10.json")
    assert len(conversations) == 10
    assert sum(len(c.headings) for c in conversations) == 272
    assert sum(len(c.turns) for c in conversations) == 5882
    assert sum(len(c.questions) for c in conversations) == 1986
    malformed = stats.entries_split + stats.repaired + len(stats.dropped)
    assert malformed == 9 and stats.questions_without_evidence == 4
    for conv in conversations:
        lines = conv.transcript().splitlines()
        assert all(lines[t.line - 1] == t.line_text for t in conv.turns)


def test_depth_on_clinc150_and_locomo(eval_dir: Path) -> None:
    clinc = eval_dir / "clinc150_data_full.json"
    test_split = load_clinc(clinc)["test"]
    assert len(test_split) == 4500
    assert sum(1 for _, intent in test_split if intent in SURFACE_INTENTS) == 5 * 30  # maybe is not counted
    summary = run_depth(clinc, eval_dir / "locomo10.json", DEFAULT_DEPTH_DECLARATION, RunOptions())
    assert summary["clinc"]["gold_surface"] == 150
    assert summary["locomo"]["questions"] == 1986
    assert summary["locomo"]["surface_count"] == 0  # the target: no LoCoMo question is treated as surface
    assert summary["surface_targets"]["met"]  # recall >= 80 %, at most 0.5 % of the rest surface
    assert summary["gate_targets"]["locomo_memory_share"]["met"]
    assert summary["gate_targets"]["small_talk_memory_share_max"]["met"]
