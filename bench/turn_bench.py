"""Turn-planning benchmark: a surface turn and a deep turn over a 500-turn thread with 200 memory records.

In-process planning time only (no model call). History and memory come from a real SQLite memory store;
retrieval is a fixed stand-in pack (the index's own adaptive-pack time is measured by its own benchmark).
Times are compared with a trivial baseline measured in the same run: take the last two stored messages and
build the message list by hand, with no classification, pipeline or token counting.

Term extraction is memoised per text (history and memory repeat between turns); the deep turn is also
measured with that cache cleared before every run.

Targets (issue): surface <= 5 ms and it must not touch memory search or retrieval; deep <= 100 ms.

    .venv/bin/python bench/turn_bench.py [--repeat N] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from cli_args import at_least_one

from prooftext.conversation.items import ContextItem, ItemKind, make_item
from prooftext.conversation.rank import clear_term_cache
from prooftext.conversation.turn import RetrievalResult, TurnRequest, TurnSources, plan_turn
from prooftext.depth import Tier
from prooftext.memory import MemoryStore, candidates_for
from prooftext.tokens import TokenCount, get_counter

HISTORY_TURNS = 500
MEMORY_RECORDS = 200
SURFACE_TARGET_MS = 5.0
DEEP_TARGET_MS = 100.0
SURFACE_TEXT = "Hi"
DEEP_TEXT = (
    "Please analyze in detail how the refresh decision interacts with the WAL constraint and the failures"
)

_TOPICS = [
    "sqlite wal journal",
    "tokenizer basis",
    "bm25 ranking",
    "thread history",
    "refresh plan",
    "ollama timing",
]


def _fill(store: MemoryStore) -> None:
    for i in range(HISTORY_TURNS):
        role = "user" if i % 2 == 0 else "assistant"
        topic = _TOPICS[i % len(_TOPICS)]
        store.append_message(
            "main", role, f"Turn {i}: a few sentences about {topic}, with detail number {i}."
        )
    kinds = ["decision", "constraint", "discovery", "failure"]
    for i in range(MEMORY_RECORDS):
        kind = kinds[i % 4]
        topic = _TOPICS[i % len(_TOPICS)]
        strength = ("hard" if i % 8 == 1 else "soft") if kind == "constraint" else None
        store.add(
            kind,
            f"{kind} {i} about {topic}: keep it short and specific ({i}).",
            source="bench",
            strength=strength,
        )


def _timed(fn: Callable[[], Any], repeat: int) -> list[float]:
    out: list[float] = []
    for _ in range(repeat):
        start = time.perf_counter_ns()
        fn()
        out.append((time.perf_counter_ns() - start) / 1e6)
    return out


def _summary(samples: Sequence[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return {"median_ms": round(statistics.median(ordered), 3), "p95_ms": round(p95, 3)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=at_least_one, default=50)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    counter = get_counter()
    calls = {"memory": 0, "retrieval": 0}
    pack = "\n".join(
        f"excerpt {i}: src/store/refresh.py lines {i}-{i + 9}: refresh logic" for i in range(120)
    )
    pack_tokens = TokenCount(counter.count(pack), counter.basis)

    with tempfile.TemporaryDirectory() as tmp:
        store = MemoryStore.open(Path(tmp))
        _fill(store)

        def history(thread: str, limit: int | None) -> list[ContextItem]:
            kind = {"user": ItemKind.USER, "assistant": ItemKind.ASSISTANT}
            return [
                make_item(
                    kind[m.role], m.text, item_id=f"msg:{m.id}", thread=m.thread, created_ms=m.created_ms
                )
                for m in store.history(thread, limit)
            ]

        def memory(task: str) -> list[ContextItem]:
            calls["memory"] += 1
            return candidates_for(store, task, counter)

        def retrieve(query: str, max_tokens: int) -> RetrievalResult:
            calls["retrieval"] += 1
            return RetrievalResult(pack, pack_tokens, {"stand_in": True})

        def baseline() -> list[dict[str, str]]:
            last = store.history("main", 2)
            return [{"role": "system", "content": "You are helpful."}] + [
                {"role": m.role, "content": m.text} for m in last
            ]

        def surface() -> None:
            plan = plan_turn(
                TurnRequest("main", SURFACE_TEXT),
                TurnSources(history=history, memory=memory, retriever=retrieve),
                counter=counter,
            )
            assert plan.tier is Tier.SURFACE

        def deep() -> None:
            plan = plan_turn(
                TurnRequest("main", DEEP_TEXT),
                TurnSources(history=history, memory=memory, retriever=retrieve),
                counter=counter,
            )
            assert plan.tier is Tier.DEEP and plan.counts["memory"] > 0 and plan.counts["retrieval"] == 1

        for fn in (baseline, surface, deep):  # warm up: tokenizer load, SQLite page cache
            fn()
        calls.update(memory=0, retrieval=0)
        base = _timed(baseline, args.repeat)
        surf = _timed(surface, args.repeat)
        surface_calls = dict(calls)
        dp = _timed(deep, args.repeat)

        def deep_cold() -> None:
            clear_term_cache()  # first sight of every text: no memoised terms
            deep()

        cold = _timed(deep_cold, args.repeat)
        store.close()

    b = statistics.median(base)
    result = {
        "baseline": _summary(base),
        "deep": {**_summary(dp), "ratio_to_baseline": round(statistics.median(dp) / b, 1)},
        "deep_cold_terms": {**_summary(cold), "ratio_to_baseline": round(statistics.median(cold) / b, 1)},
        "deep_target_ms": DEEP_TARGET_MS,
        "history_turns": HISTORY_TURNS,
        "memory_records": MEMORY_RECORDS,
        "repeat": args.repeat,
        "surface": {**_summary(surf), "ratio_to_baseline": round(statistics.median(surf) / b, 1)},
        "surface_searches": surface_calls,
        "surface_target_ms": SURFACE_TARGET_MS,
    }
    result["surface_ok"] = result["surface"]["median_ms"] <= SURFACE_TARGET_MS and surface_calls == {
        "memory": 0,
        "retrieval": 0,
    }
    result["deep_ok"] = (
        max(result["deep"]["median_ms"], result["deep_cold_terms"]["median_ms"]) <= DEEP_TARGET_MS
    )
    if args.json:
        print(json.dumps(result, sort_keys=True))
    else:
        print(f"baseline (last 2 messages, no pipeline): median {result['baseline']['median_ms']} ms")
        for name in ("surface", "deep"):
            r = result[name]
            print(
                f"{name:8s} median {r['median_ms']:8.3f} ms  p95 {r['p95_ms']:8.3f} ms  "
                f"x{r['ratio_to_baseline']} baseline  target <= {result[name + '_target_ms']} ms  "
                f"{'ok' if result[name + '_ok'] else 'MISSED'}"
            )
        c = result["deep_cold_terms"]
        print(f"deep, term cache cleared each run: median {c['median_ms']:.3f} ms  p95 {c['p95_ms']:.3f} ms")
        print(f"surface turn searches: {surface_calls} (must be zero)")
    return 0 if result["surface_ok"] and result["deep_ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
