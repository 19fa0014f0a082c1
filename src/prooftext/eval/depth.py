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
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from prooftext.depth import Tier, classify
from prooftext.depth.tiers import MARKER, tier_constants
from prooftext.errors import ArtifactError
from prooftext.eval.common import Progress, RunOptions, elapsed_ms
from prooftext.eval.dataio import load_json
from prooftext.eval.declare import Declaration, manifest, verdict
from prooftext.eval.html import HtmlReport, bar_figure, manifest_section, num, pct, verdict_section
from prooftext.eval.locomo_data import load_locomo
from prooftext.eval.metrics import frequencies, percentile
from prooftext.eval.output import RunOutput
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


def load_clinc(path: Path) -> dict[str, list[tuple[str, str]]]:
    """CLINC150 ``data_full.json``: split name → (utterance, intent) pairs.

    Every split must be a list of ``[utterance, intent]`` string pairs and the ``test`` split must be there
    (without it a run would score nothing and still pass); otherwise an :class:`ArtifactError` names the
    file, the split and the item.
    """
    data = load_json(path, "CLINC150 data", ArtifactError)
    if not isinstance(data, dict):
        raise ArtifactError(f"{path}: CLINC150 data is a JSON object of splits", path=str(path))
    if CLINC_SPLIT not in data:
        raise ArtifactError(
            f"{path}: no {CLINC_SPLIT!r} split (splits: {', '.join(sorted(data))[:200] or 'none'})",
            path=str(path),
            field=CLINC_SPLIT,
        )
    splits: dict[str, list[tuple[str, str]]] = {}
    for split, items in data.items():
        if not isinstance(items, list):
            raise ArtifactError(f"{path}: split {split!r} must be a list", path=str(path), field=split)
        pairs: list[tuple[str, str]] = []
        for number, item in enumerate(items):
            if not (isinstance(item, list) and len(item) == 2 and all(isinstance(x, str) for x in item)):
                raise ArtifactError(
                    f"{path}: {split}[{number}] must be an [utterance, intent] pair of strings",
                    path=str(path),
                    field=f"{split}[{number}]",
                )
            pairs.append((item[0], item[1]))
        splits[split] = pairs
    if not splits[CLINC_SPLIT]:
        raise ArtifactError(f"{path}: the {CLINC_SPLIT!r} split is empty", path=str(path), field=CLINC_SPLIT)
    return splits


def _is_surface(text: str) -> bool:
    return classify(text) is Tier.SURFACE


def clinc_scores(items: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """Surface precision and recall over labelled utterances, per-intent rates, and the errors."""
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


def run_depth(
    clinc_path: Path,
    locomo_path: Path | None,
    declaration: Declaration,
    options: RunOptions,
    progress: Progress | None = None,
) -> dict[str, Any]:
    datasets = {"clinc": clinc_path, **({"locomo": locomo_path} if locomo_path else {})}
    # Both files are read and checked before anything is declared or written: a bad one refuses the run.
    splits = load_clinc(clinc_path)
    questions = (
        None if locomo_path is None else [q.text for c in load_locomo(locomo_path)[0] for q in c.questions]
    )
    record = manifest("depth", datasets, declaration, DEFAULT_TOKENIZER, {"classifier": _classifier_params()})
    with RunOutput(options.out_dir) as output:
        output.start(record)
        started = time.perf_counter()
        summary: dict[str, Any] = {"clinc": clinc_scores(splits[CLINC_SPLIT])}
        oos = clinc_scores(splits.get(CLINC_OOS_SPLIT, []))
        summary["clinc_oos"] = {k: oos[k] for k in ("utterances", "false_surface_count", "false_surface")}
        summary["surface_targets"] = surface_targets(summary["clinc"], summary["clinc_oos"])
        if progress is not None:
            progress(1, 2)
        if questions is not None:
            summary["locomo"] = locomo_surface(questions)
        if progress is not None:
            progress(2, 2)
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


def depth_report(record: dict[str, Any], summary: dict[str, Any]) -> str:
    report = HtmlReport("prooftext evaluation: depth tiers")
    clinc = summary["clinc"]
    report.table(
        ["dataset", "utterances", "gold surface", "predicted surface", "precision %", "recall %", "p95 ms"],
        [
            [
                f"CLINC150 {CLINC_SPLIT}",
                clinc["utterances"],
                clinc["gold_surface"],
                clinc["predicted_surface"],
                pct(clinc["surface_precision"]),
                pct(clinc["surface_recall"]),
                num(clinc["latency_ms_p95"], 3),
            ]
        ],
    )
    report.table(
        ["surface intent", "recall %"], [[k, pct(v)] for k, v in clinc["surface_recall_by_intent"].items()]
    )
    report.note(
        f"CLINC150 {CLINC_OOS_SPLIT}: {summary['clinc_oos']['false_surface_count']} classified surface."
    )
    targets = summary["surface_targets"]
    report.table(
        ["bar", "measured", "target", "met"],
        [
            [
                "surface recall on small talk %",
                pct(targets["surface_recall"]),
                f">= {pct(TARGET_SURFACE_RECALL)}",
                "",
            ],
            [
                f"other utterances called surface % (of {targets['other_utterances']})",
                pct(targets["false_surface_share"]),
                f"<= {pct(TARGET_FALSE_SURFACE_SHARE)}",
                "yes" if targets["met"] else "no",
            ],
        ],
    )
    for intent, row in clinc["not_counted"].items():
        report.note(f"not counted: {intent}, {row['surface']} of {row['utterances']} classified surface.")
    locomo = summary.get("locomo")
    if locomo is not None:
        report.heading("LoCoMo questions (all need history)")
        report.table(
            ["questions", "classified surface", "share %"],
            [[locomo["questions"], locomo["surface_count"], pct(locomo["surface_share"])]],
        )
        report.figure(bar_figure("LoCoMo question tiers", locomo["tiers"], "tier"), "locomo tiers")
    verdict_section(report, summary.get("verdict", {}), record["declaration"]["metric"])
    report.heading("Misclassified examples")
    report.json_block(
        {"false_surface": clinc["false_surface"], "missed_surface": clinc["missed_surface_examples"]}
    )
    manifest_section(report, record)
    return report.render()
