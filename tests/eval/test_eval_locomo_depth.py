"""LoCoMo on a three-session conversation and depth tiers on a tiny CLINC file, checked by hand.

Transcript lines: 1 title; 2 ``## Session 1``; 3 D1:1; 4 D1:2; 5 ``## Session 2``; 6 D2:1; 7 D2:2;
8 ``## Session 3``; 9 D3:1; 10 D3:2. Tokens are bytes, so costs are string lengths of ``[date] Speaker: text``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from prooftext.eval.common import RunOptions
from prooftext.eval.declare import Declaration
from prooftext.eval.depth import DEFAULT_DEPTH_DECLARATION, clinc_scores, locomo_surface, run_depth
from prooftext.eval.locomo import LocomoConfig, turn_prompt
from prooftext.eval.locomo_data import load_locomo, sample_questions
from prooftext.eval.locomo_run import DEFAULT_LOCOMO_DECLARATION, run_locomo

D32 = "[3 May 2023] Bob: Kiwi learned to whistle.\n"
D31 = "[3 May 2023] Ann: I started pottery classes.\n"
Q_HOBBY = "What hobby did Ann start?"


def test_transcript_is_one_turn_per_line_and_evidence_is_normalized(locomo_file: Path) -> None:
    (conv,), stats = load_locomo(locomo_file)
    lines = conv.transcript().splitlines()
    assert lines[0] == "# Conversation conv-t between Ann and Bob"
    assert lines[1] == "## Session 1 (1 May 2023)" and lines[7] == "## Session 3 (3 May 2023)"
    assert lines[3] == "Bob: I adopted a parrot named Kiwi. [shares a photo: a photo of a green bird]"
    assert [(t.dia_id, t.line) for t in conv.turns][:3] == [("D1:1", 3), ("D1:2", 4), ("D2:1", 6)]
    assert conv.turns_in([(4, 6), (10, 10)]) == {"D1:2", "D2:1", "D3:2"}
    assert [q.evidence for q in conv.questions] == [("D1:2",), ("D2:1", "D2:2"), ("D3:1",), ()]
    assert stats.to_dict() == {
        "raw_entries": 6,
        "entries_split": 1,
        "ids_kept": 4,
        "ids_repaired": 1,
        "ids_dropped": 2,
        "dropped": ["D9:9", "D"],
        "questions_without_evidence": 1,
    }
    assert [q.qid for q in sample_questions(conv.questions, 2)] == ["conv-t#0", "conv-t#2"]


@pytest.fixture(scope="module")
def locomo_run(locomo_file: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    frame = len(turn_prompt(Q_HOBBY, []))
    budgets = (frame + len(D32), frame + len(D32) + len(D31), 8192)
    config = LocomoConfig(work_dir=Path("."), budgets=budgets, tokenizer="bytes")
    out = tmp_path_factory.mktemp("locomo-out")
    summary = run_locomo(locomo_file, config, DEFAULT_LOCOMO_DECLARATION, RunOptions(out_dir=out))
    rows = [json.loads(line) for line in (out / "tasks.jsonl").read_text().splitlines()]
    return {"summary": summary, "rows": {r["qid"]: r for r in rows}, "budgets": budgets, "out": out}


def test_lexical_arms_by_hand(locomo_run: dict[str, Any]) -> None:
    small, two_turns, _ = locomo_run["budgets"]
    hobby = locomo_run["rows"]["conv-t#2"]["arms"]
    assert hobby[f"last_n@{small}"]["evidence_recall"] == 0.0  # only D3:2 fits
    assert hobby[f"last_n@{small}"]["prompt_tokens"] == small
    assert hobby[f"last_n@{two_turns}"]["evidence_recall"] == 1.0  # D3:2 and D3:1
    assert hobby["oracle"]["prompt_tokens"] == len(turn_prompt(Q_HOBBY, [D31]))
    assert hobby["full"]["evidence_recall"] == 1.0
    parrot = locomo_run["rows"]["conv-t#0"]["arms"]
    assert parrot["bm25_top5"]["evidence_recall"] == 1.0  # "parrot" is only in D1:2
    assert parrot["bm25@8192"]["evidence_recall"] == 1.0
    assert parrot[f"last_n@{two_turns}"]["evidence_recall"] == 0.0


def test_packed_arms_and_summary(locomo_run: dict[str, Any]) -> None:
    parrot = locomo_run["rows"]["conv-t#0"]["arms"]
    assert parrot["fixed@8192"]["ok"] and parrot["fixed@8192"]["evidence_recall"] == 1.0
    assert parrot["adaptive@8192"]["stop_reason"]
    summary = locomo_run["summary"]
    assert summary["questions"] == 4 and summary["questions_with_evidence"] == 3
    full = summary["arms"]["full"]
    assert full["evidence_recall"] == 1.0 and full["questions"] == 3 and full["tasks"] == 4
    assert set(full["by_category"]) == {"1", "2", "4", "5"} and full["by_category"]["5"]["questions"] == 0
    small = locomo_run["budgets"][0]
    # last-N at the smallest budget holds D3:2 only: no question's evidence -> 0.
    assert summary["arms"][f"last_n@{small}"]["evidence_recall"] == 0.0
    assert summary["evidence_normalization"]["ids_dropped"] == 2
    assert "56.7" in (locomo_run["out"] / "report.html").read_text()


def test_clinc_surface_precision_and_recall_by_hand() -> None:
    items = [
        ("hi", "greeting"),  # TP
        ("thanks", "thank_you"),  # TP
        ("hello there, did the match go well?", "greeting"),  # FN
        ("ok", "confirm"),  # FP: small talk whose intent is not surface
        ("book a flight to paris", "book_flight"),  # TN
        ("maybe", "maybe"),  # not counted either way
    ]
    scores = clinc_scores(items)
    assert (scores["true_positives"], scores["false_surface_count"]) == (2, 1)
    assert scores["not_counted"] == {"maybe": {"surface": 0, "utterances": 1}}
    assert scores["not_surface_gold"] == 2
    assert scores["surface_precision"] == pytest.approx(2 / 3)
    assert scores["surface_recall"] == pytest.approx(2 / 3)
    assert scores["surface_recall_by_intent"] == {"greeting": 0.5, "thank_you": 1.0}
    assert locomo_surface(["hi", "When did Ann start pottery?"])["surface_count"] == 1


def test_depth_run_declares_and_reports(tmp_path: Path, locomo_file: Path) -> None:
    clinc = tmp_path / "clinc.json"
    clinc.write_text(
        json.dumps({"test": [["hi", "greeting"], ["play a song", "play_music"]], "oos_test": []})
    )
    out = tmp_path / "out"
    summary = run_depth(clinc, locomo_file, DEFAULT_DEPTH_DECLARATION, RunOptions(out_dir=out))
    assert summary["clinc"]["surface_precision"] == 1.0 and summary["locomo"]["surface_count"] == 0
    assert summary["verdict"]["depth"]["passes"]
    strict = run_depth(clinc, None, Declaration("surface_recall", 1.01, None), RunOptions())
    assert not strict["verdict"]["depth"]["passes"] and "locomo" not in strict
    assert (out / "report.html").exists() and (out / "declaration.json").exists()
    rows = [json.loads(line) for line in (out / "tasks.jsonl").read_text().splitlines()]
    assert rows == [
        {"dataset": "clinc150", "split": "test", "text": "hi", "intent": "greeting", "surface": True},
        {
            "dataset": "clinc150",
            "split": "test",
            "text": "play a song",
            "intent": "play_music",
            "surface": False,
        },
    ]


def test_the_adaptive_arm_climbs_a_bounded_ladder_at_the_largest_budget(
    locomo_file: Path, tmp_path: Path
) -> None:
    """At the byte ceiling the default step would climb thousands of rungs, which a ladder may not: the arm
    widens its step to fit and is measured, not refused."""
    config = LocomoConfig(work_dir=Path("."), budgets=(8_388_608,), arms=("adaptive",), tokenizer="bytes")
    run_locomo(locomo_file, config, DEFAULT_LOCOMO_DECLARATION, RunOptions(out_dir=tmp_path))
    rows = [json.loads(line) for line in (tmp_path / "tasks.jsonl").read_text().splitlines()]
    arms = [row["arms"]["adaptive@8388608"] for row in rows]
    assert arms and all(arm["ok"] for arm in arms), arms


def test_every_latency_of_a_locomo_row_is_rounded_to_the_microsecond(locomo_run: dict[str, Any]) -> None:
    for row in locomo_run["rows"].values():
        for name, arm in row["arms"].items():
            latency = arm.get("latency_ms")
            if latency is not None:
                assert latency == round(latency, 3), (name, latency)
