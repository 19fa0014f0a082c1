"""The depth report: per data set, how many items each tier took, surface precision and recall, how often
memory search and retrieval ran (when the run recorded it), per-intent surface recall and a few examples
per tier, each table with one sentence computed from the summary saying what it shows.

It reads the summary :func:`prooftext.eval.depth.run_depth` returns and nothing else, so keys a run did not
record (tiers per data set, gate counts, examples per tier) leave their column or table out instead of
failing. It imports nothing from :mod:`prooftext.eval.depth`, which calls it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from prooftext.depth import Tier
from prooftext.eval.html import HtmlReport, manifest_section, num, pct, verdict_section
from prooftext.eval.prose import count as count_of
from prooftext.eval.prose import names, percent

Block = Mapping[str, Any]
Table = tuple[str, list[str], list[list[str]]]

DATASET_LABELS: Mapping[str, str] = {
    "clinc": "CLINC150 test",
    "clinc_oos": "CLINC150 oos_test",
    "locomo": "LoCoMo questions",
    "locomo_gates": "LoCoMo questions as turns",
    "swebench_gates": "SWE-bench issue titles",
}
BAR_LABELS: Mapping[str, str] = {
    "locomo_memory_share": "memory search ran, LoCoMo questions in their conversation",
    "swebench_retrieval_share": "retrieval ran, SWE-bench issue titles with their repository open",
    "small_talk_memory_share_max": "memory search ran, CLINC150 small talk (highest over roots)",
    "small_talk_retrieval_share_max": "retrieval ran, CLINC150 small talk (highest over roots)",
}
SIZE_KEYS = ("utterances", "questions", "items", "titles", "turns")
"""A summary entry holding one of these counts is a data set."""
NOT_DATASETS = frozenset({"small_talk_gates"})
"""Entries that count items but are shown in their own table (small talk asked with each root open)."""
GATES: Mapping[str, str] = {"memory": "memory search ran", "retrieval": "retrieval ran"}
GATE_SUFFIXES = ("_ran", "_runs", "_count", "_share", "_rate")
EXAMPLE_KEYS = ("tier_examples", "examples_by_tier")
EXAMPLES_SHOWN = 5
TEXT_CHARS = 90
"""An example's text is cut to this many characters in a table."""


def datasets(summary: Mapping[str, Any]) -> dict[str, Block]:
    """The summary's data sets, in its order: every entry that counts items."""
    return {
        key: value
        for key, value in summary.items()
        if key not in NOT_DATASETS
        and isinstance(value, Mapping)
        and any(isinstance(value.get(k), int) for k in SIZE_KEYS)
    }


def size(block: Block) -> int:
    return next(int(block[k]) for k in SIZE_KEYS if isinstance(block.get(k), int))


def label(key: str) -> str:
    return DATASET_LABELS.get(key, key.replace("_", " "))


def tier_counts(key: str, block: Block) -> dict[str, int] | None:
    """Items per tier: the run's own count when it recorded one; for CLINC150 the surface count alone
    (the rest are not surface); None when the run recorded neither."""
    tiers = block.get("tiers")
    if isinstance(tiers, Mapping):
        return {str(k): int(v) for k, v in tiers.items()}
    if isinstance(block.get("predicted_surface"), int):
        return {Tier.SURFACE.value: int(block["predicted_surface"])}
    if key == "clinc_oos" and isinstance(block.get("false_surface_count"), int):
        return {Tier.SURFACE.value: int(block["false_surface_count"])}
    return None


def tier_names(blocks: Mapping[str, Block]) -> list[str]:
    known = [t.value for t in Tier]
    seen = {t for key, b in blocks.items() for t in (tier_counts(key, b) or {})}
    return known + sorted(seen - set(known))


def gate(block: Block, name: str) -> tuple[int | None, float | None] | None:
    """How often gate ``name`` (memory, retrieval) ran on a data set: (count, share), either may be None;
    None when the run did not record it. Read from ``<name>_ran``/``_runs``/``_count`` (a count),
    ``<name>_share``/``_rate`` (a share), or ``gates[name]`` (a number or ``{"count", "share"}``)."""
    count: int | None = None
    share: float | None = None
    sources: list[object] = [block.get(name + suffix) for suffix in GATE_SUFFIXES]
    gates = block.get("gates")
    if isinstance(gates, Mapping):
        sources.append(gates.get(name))
    for value in sources:
        if isinstance(value, Mapping):
            value_count, value_share = value.get("count", value.get("ran")), value.get("share")
            if isinstance(value_count, int) and not isinstance(value_count, bool):
                count = value_count
            if isinstance(value_share, float | int) and not isinstance(value_share, bool):
                share = float(value_share)
        elif isinstance(value, bool):
            continue
        elif isinstance(value, int):
            count = value
        elif isinstance(value, float):
            share = value
    if count is None and share is None:
        return None
    total = size(block)
    if share is None and count is not None and total:
        share = count / total
    if count is None and share is not None:
        count = round(share * total)
    return count, share


def _gate_text(block: Block, name: str) -> str:
    ran = gate(block, name)
    if ran is None:
        return "–"
    count, share = ran
    return f"{num(count)} ({pct(share)}%)" if share is not None else num(count)


def _recorded_gates(blocks: Mapping[str, Block]) -> list[str]:
    return [g for g in GATES if any(gate(b, g) is not None for b in blocks.values())]


def dataset_rows(summary: Mapping[str, Any], short: bool = False) -> tuple[list[str], list[list[str]]]:
    """One row per data set: items, items per tier, surface precision and recall, and the gates' runs
    (``short``: headers for a terminal)."""
    blocks = datasets(summary)
    tiers = tier_names(blocks)
    gates = _recorded_gates(blocks)
    scores = ["precision %", "recall %"] if short else ["surface precision %", "surface recall %"]
    headers = ["data set", "items", *tiers, *scores, *[GATES[g] for g in gates]]
    rows = []
    for key, block in blocks.items():
        counts = tier_counts(key, block)
        row = [label(key), num(size(block))]
        row += [
            num(counts.get(t, 0)) if counts is not None and _tier_known(counts, t) else "–" for t in tiers
        ]
        row += [pct(block.get("surface_precision")), pct(block.get("surface_recall"))]
        row += [_gate_text(block, g) for g in gates]
        rows.append(row)
    return headers, rows


def _tier_known(counts: Mapping[str, int], tier: str) -> bool:
    """A partial count (surface only) says nothing about the other tiers."""
    return tier in counts or len(counts) > 1


def datasets_sentence(summary: Mapping[str, Any]) -> str:
    blocks = datasets(summary)
    parts = []
    clinc = blocks.get("clinc")
    if clinc is not None:
        gold, predicted = clinc.get("gold_surface"), clinc.get("predicted_surface")
        precision, recall = clinc.get("surface_precision"), clinc.get("surface_recall")
        parts.append(
            f"On {label('clinc')} the classifier called {num(predicted)} of {num(size(clinc))} utterances"
            f" surface against {num(gold)} small-talk ones: surface recall"
            f" {percent(recall) if isinstance(recall, int | float) else 'undefined'}, precision"
            f" {percent(precision) if isinstance(precision, int | float) else 'undefined (nothing called surface)'}"
        )
    for key, block in blocks.items():
        if key == "clinc":
            continue
        counts = tier_counts(key, block)
        if counts is None:
            continue
        surface = counts.get(Tier.SURFACE.value, 0)
        parts.append(
            f"none of the {num(size(block))} {label(key)} was called surface"
            if surface == 0
            else f"{num(surface)} of {num(size(block))} {label(key)} were called surface, each one an error"
        )
    gates = _recorded_gates(blocks)
    for g in gates:
        ran = [
            f"{label(k)} {percent(r[1])}"
            for k, b in blocks.items()
            if (r := gate(b, g)) is not None and r[1] is not None
        ]
        parts.append(f"{GATES[g]} on {names(ran)}")
    if not gates:
        parts.append(
            "no data set here records how often memory search and retrieval ran (--locomo and --swebench add"
            f" them{'; small talk is measured on its own' if summary.get('small_talk_gates') else ''})"
        )
    text = "; ".join(parts) or "No data set was evaluated"
    return text[0].upper() + text[1:] + "."


def intent_rows(summary: Mapping[str, Any]) -> list[list[str]]:
    by_intent = (summary.get("clinc") or {}).get("surface_recall_by_intent") or {}
    return [[intent, pct(recall)] for intent, recall in by_intent.items()]


def intent_sentence(summary: Mapping[str, Any]) -> str:
    by_intent = {
        k: float(v) for k, v in ((summary.get("clinc") or {}).get("surface_recall_by_intent") or {}).items()
    }
    if not by_intent:
        return "No small-talk intent was scored."
    best = max(by_intent.items(), key=lambda kv: kv[1])
    worst = min(by_intent.items(), key=lambda kv: kv[1])
    if best[1] == worst[1]:
        return f"Every small-talk intent has the same surface recall: {percent(best[1])}."
    return (
        f"Surface recall is highest for {best[0]} ({percent(best[1])}) and lowest for {worst[0]}"
        f" ({percent(worst[1])})."
    )


def _text(value: object) -> str:
    text = value if isinstance(value, str) else str(value)
    text = " ".join(text.split())
    return text if len(text) <= TEXT_CHARS else text[: TEXT_CHARS - 1] + "…"


def _example_rows(items: Sequence[object]) -> list[list[str]]:
    rows = []
    for item in items[:EXAMPLES_SHOWN]:
        if isinstance(item, Mapping):
            rows.append([_text(item.get("text", "")), str(item.get("intent", item.get("category", "–")))])
        else:
            rows.append([_text(item), "–"])
    return rows


def example_groups(summary: Mapping[str, Any]) -> list[tuple[str, int, list[list[str]]]]:
    """(title, how many there are, the first rows): examples per tier when the run recorded them, and the
    surface errors it always records."""
    groups: list[tuple[str, int, list[list[str]]]] = []
    for key, block in datasets(summary).items():
        for example_key in EXAMPLE_KEYS:
            by_tier = block.get(example_key)
            if isinstance(by_tier, Mapping):
                counts = tier_counts(key, block) or {}
                for tier, items in by_tier.items():
                    if isinstance(items, Sequence) and not isinstance(items, str):
                        total = counts.get(str(tier), len(items))
                        groups.append((f"{label(key)} called {tier}", total, _example_rows(items)))
                break
        errors = (
            ("false_surface", "false_surface_count", "called surface, not small talk"),
            ("missed_surface_examples", None, "small talk not called surface"),
            ("surface_examples", "surface_count", "called surface"),
        )
        for items_key, count_key, title in errors:
            items = block.get(items_key)
            if not isinstance(items, list):
                continue
            if count_key is not None and isinstance(block.get(count_key), int):
                total = int(block[count_key])
            elif items_key == "missed_surface_examples" and isinstance(block.get("gold_surface"), int):
                total = int(block["gold_surface"]) - int(block.get("true_positives") or 0)
            else:
                total = len(items)
            groups.append((f"{label(key)}: {title}", total, _example_rows(items)))
    return groups


def _verdict_sentence(summary: Mapping[str, Any], metric: str, threshold: float) -> str:
    entry = (summary.get("verdict") or {}).get("depth") or {}
    value = entry.get("value")
    if not isinstance(value, int | float):
        note = entry.get("note") or f"{metric} is undefined"
        return f"Fails: {note}, so the declared bar ({metric} at least {percent(threshold)}) cannot be met."
    outcome = "Passes" if entry.get("passes") else "Fails"
    return f"{outcome}: {metric} is {percent(value)} against the declared {percent(threshold)}."


def _scope_sentence(summary: Mapping[str, Any]) -> str:
    """What counts as small talk in this run: the intents scored, and those left out."""
    clinc = summary.get("clinc") or {}
    scored = sorted(clinc.get("surface_recall_by_intent") or {})
    left_out = sorted(clinc.get("not_counted") or {})
    text = "Surface is the tier for small talk that needs no context"
    if scored:
        text += f"; CLINC150's {names(scored)} intents are small talk"
    if left_out:
        text += f" ({names(left_out)} is left out: neither small talk nor counted against it)"
    return text + "; every other intent and every LoCoMo question is not."


def depth_report(record: dict[str, Any], summary: dict[str, Any]) -> str:
    report = HtmlReport("prooftext evaluation: depth tiers")
    declaration = record.get("declaration") or summary.get("declaration") or {}
    metric = str(declaration.get("metric", "surface_precision"))
    report.note(f"{_scope_sentence(summary)} Wall time {num(summary.get('wall_s'), 2)} s.")
    report.heading("Per data set")
    report.finding(datasets_sentence(summary))
    headers, rows = dataset_rows(summary)
    report.table(headers, rows)
    intents = intent_rows(summary)
    if intents:
        report.heading("CLINC150 surface recall per small-talk intent")
        report.finding(intent_sentence(summary))
        report.table(["intent", "surface recall %"], intents)
    _gates_section(report, summary)
    report.heading("Verdict against the declaration")
    report.finding(_verdict_sentence(summary, metric, float(declaration.get("threshold", 0.0))))
    verdict_section(report, summary.get("verdict", {}), metric, heading=False)
    report.heading("Examples")
    for title, total, example_rows in example_groups(summary):
        report.heading(title, 3)
        if not example_rows:
            report.note("None.")
            continue
        report.note(f"{len(example_rows)} of {num(total)} shown.")
        report.table(["text", "intent"], example_rows, text_columns=2)
    manifest_section(report, record)
    return report.render()


SHORT_BAR_LABELS: Mapping[str, str] = {
    "locomo_memory_share": "LoCoMo memory",
    "swebench_retrieval_share": "SWE-bench retrieval",
    "small_talk_memory_share_max": "small talk memory",
    "small_talk_retrieval_share_max": "small talk retrieval",
}
"""The same, short enough for a terminal's first column."""


def gate_bar_rows(summary: Mapping[str, Any], short: bool = False) -> list[list[str]]:
    """The gates' bars (``gate_targets``): what each measures, the measurement, the bar, whether it is met
    (``short``: labels for a terminal)."""
    targets = summary.get("gate_targets") or {}
    labels = SHORT_BAR_LABELS if short else BAR_LABELS
    return [
        [
            labels.get(name, name.replace("_", " ")),
            pct(bar.get("measured")),
            _target(bar),
            "not measured" if bar.get("met") is None else ("yes" if bar.get("met") else "no"),
        ]
        for name, bar in targets.items()
        if isinstance(bar, Mapping)
    ]


def _target(bar: Mapping[str, Any]) -> str:
    value = bar.get("bar")
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f"{bar.get('op', '')} {pct(value)}"
    return str(bar.get("target", ""))


def gate_bars_sentence(summary: Mapping[str, Any]) -> str:
    targets = summary.get("gate_targets") or {}
    measured = {k: v for k, v in targets.items() if isinstance(v, Mapping) and v.get("met") is not None}
    if not measured:
        return "No gate was measured: give the LoCoMo data (and SWE-bench tasks) to measure them."
    missed = [BAR_LABELS.get(k, k) for k, v in measured.items() if not v.get("met")]
    if not missed:
        return f"Every measured gate meets its bar ({len(measured)} of {len(targets)} measured)."
    return f"{len(missed)} of {len(measured)} measured gates miss their bar: {names(missed)}."


def small_talk_rows(summary: Mapping[str, Any]) -> list[list[str]]:
    """Small talk asked with each root open: how often memory search and retrieval ran."""
    per_root = (summary.get("small_talk_gates") or {}).get("per_root") or {}
    return [
        [str(root), num(row.get("turns")), pct(row.get("memory_share")), pct(row.get("retrieval_share"))]
        for root, row in per_root.items()
        if isinstance(row, Mapping)
    ]


def small_talk_note(summary: Mapping[str, Any]) -> str:
    """What the small-talk turns were asked with: the LoCoMo names known, and the repositories open."""
    gates = summary.get("small_talk_gates") or {}
    known = int(gates.get("names_known") or 0)
    names_said = f"the {count_of(known, 'name')} of the LoCoMo conversations" if known else "no names"
    roots = [r for r in gates.get("per_root") or {} if not str(r).startswith("(")]
    opened = "each repository open in turn" if roots else "no repository open"
    return f"CLINC150 small talk asked as turns, with {names_said} known and {opened}:"


def _gates_section(report: HtmlReport, summary: Mapping[str, Any]) -> None:
    bars = gate_bar_rows(summary)
    if not bars:
        return
    report.heading("Gates against their bars")
    report.finding(gate_bars_sentence(summary))
    report.table(["bar", "measured %", "target (share)", "met"], bars)
    talk = small_talk_rows(summary)
    if talk:
        report.note(small_talk_note(summary))
        report.table(["open root", "turns", "memory search ran %", "retrieval ran %"], talk)
    note = (summary.get("swebench_gates") or {}).get("note")
    if note:
        report.note(str(note))


def depth_tables(summary: Mapping[str, Any]) -> list[Table]:
    """The depth summary as a terminal shows it: tiers per data set, then the gates, then the intents."""
    headers, rows = dataset_rows(summary, short=True)
    gates = len(_recorded_gates(datasets(summary)))
    split = len(headers) - gates
    tiers = [r[:split] for r in rows if _shows(r[2:split])]
    tables: list[Table] = [("depth tiers per data set", headers[:split], tiers)]
    if gates:
        ran = [[r[0], r[1], *r[split:]] for r in rows if _shows(r[split:])]
        tables.append(("how often the gates ran", [headers[0], headers[1], *headers[split:]], ran))
    bars = gate_bar_rows(summary, short=True)
    if bars:
        tables.append(("gates against their bars", ["bar", "measured %", "target", "met"], bars))
    intents = intent_rows(summary)
    if intents:
        tables.append(("surface recall per intent", ["intent", "recall %"], intents))
    return tables


def _shows(cells: Sequence[str]) -> bool:
    """Whether a row says anything in these columns (a data set that recorded none of them is left out)."""
    return any(cell != "–" for cell in cells)


def depth_notes(summary: Mapping[str, Any]) -> list[str]:
    declaration = summary.get("declaration") or {}
    metric = str(declaration.get("metric", "surface_precision"))
    return [
        datasets_sentence(summary),
        gate_bars_sentence(summary),
        intent_sentence(summary),
        _verdict_sentence(summary, metric, float(declaration.get("threshold", 0.0))),
    ]
