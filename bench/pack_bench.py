"""Pack benchmark: warm in-process adaptive_pack latency beside a bm25s query over the same files.

Usage: python bench/pack_bench.py ROOT QUERIES.jsonl [--limit 50] [--max-tokens 8000]

QUERIES is a JSON-lines file whose objects carry ``problem_statement`` (or ``query``). The index is refreshed
first; then each query runs once to warm up and once measured. A bm25s index over the same accepted files
is built and queried in the same run as the baseline. Cold CLI calls (each a new process, start-up
included) are timed at the end; their median is the figure, every call is printed. Peak memory is this process's maximum resident set.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from cli_args import at_least_one, existing_directory

import prooftext
from prooftext import Ladder
from prooftext.corpus.config import load_config
from prooftext.corpus.walk import walk
from prooftext.store.fts import expand_identifiers

TARGET_P50_MS = 66
TARGET_CLI_S = 1.5
TARGET_PEAK_MB = 300
PERCENT_95 = 0.95
COLD_CALLS = 3


def read_queries(path: Path, limit: int) -> list[str]:
    """The first ``limit`` queries of a JSON-lines file; stops with a message when a row has none, or the
    file has none."""
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            row = json.loads(line)
            query = row.get("problem_statement") or row.get("query")
            if not query:
                raise SystemExit(f"{path}: line {number} has neither problem_statement nor query")
            out.append(query)
    if not out:
        raise SystemExit(f"no queries in {path}")
    return out[:limit]


def percentile(samples: list[float], share: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def adaptive_latency(
    index: prooftext.Index, queries: list[str], max_tokens: int
) -> tuple[list[float], dict[str, int]]:
    """Warm in-process ``adaptive_pack`` times (ms) of each query (run once to warm up, once measured), and
    how often each stop reason ended the climb."""
    times: list[float] = []
    stops: dict[str, int] = {}
    for query in queries:
        index.adaptive_pack(query, ladder=Ladder(max_tokens=max_tokens), refresh=False)
        start = time.perf_counter()
        result = index.adaptive_pack(query, ladder=Ladder(max_tokens=max_tokens), refresh=False)
        times.append((time.perf_counter() - start) * 1000)
        stops[result.stop_reason] = stops.get(result.stop_reason, 0) + 1
    return times, stops


def _bm25_baseline(root: Path, queries: list[str]) -> list[float]:
    import bm25s  # the eval extra; the latency helpers above need only the core install

    docs = []
    for stat in walk(root, load_config(root)).stats:
        try:
            docs.append(expand_identifiers(stat.path + "\n" + (root / stat.path).read_text(encoding="utf-8")))
        except (UnicodeDecodeError, OSError):
            continue
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(docs, show_progress=False), show_progress=False)
    times = []
    for query in queries:
        start = time.perf_counter()
        retriever.retrieve(bm25s.tokenize([query], show_progress=False), k=10, show_progress=False)
        times.append((time.perf_counter() - start) * 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=existing_directory)
    parser.add_argument("queries", type=Path)
    parser.add_argument("--limit", type=at_least_one, default=50)
    parser.add_argument("--max-tokens", type=int, default=8000)
    args = parser.parse_args()
    root = args.root.resolve()
    queries = read_queries(args.queries, args.limit)
    index = prooftext.open(root)
    index.refresh()
    times, stops = adaptive_latency(index, queries, args.max_tokens)
    index.close()
    bm25_times = _bm25_baseline(root, queries)
    cold: list[float] = []
    statuses: list[int] = []
    for query in queries[:COLD_CALLS]:
        start = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "prooftext", "adaptive-pack", query, "--root", str(root)],
            capture_output=True,
            check=False,
        )
        cold.append(time.perf_counter() - start)
        statuses.append(proc.returncode)
    p50 = statistics.median(times)
    print(
        json.dumps(
            {
                "queries": len(queries),
                "adaptive_pack_ms": {"p50": round(p50, 1), "p95": round(percentile(times, PERCENT_95), 1)},
                "bm25s_query_ms": {
                    "p50": round(statistics.median(bm25_times), 1),
                    "p95": round(percentile(bm25_times, PERCENT_95), 1),
                },
                "ratio_p50_to_bm25s": round(p50 / max(statistics.median(bm25_times), 1e-6), 1),
                "stop_reasons": stops,
                "cold_cli_s": round(statistics.median(cold), 3),
                "cold_cli_calls_s": [round(c, 3) for c in cold],
                "cold_cli_status": statuses,
                "peak_memory_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
                "targets": {"p50_ms": TARGET_P50_MS, "cli_s": TARGET_CLI_S, "peak_memory_mb": TARGET_PEAK_MB},
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
