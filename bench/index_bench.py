"""Index benchmark: cold index, no-change refresh and one-changed-file refresh against in-process floors.

Usage: python bench/index_bench.py ROOT [--repeat N]

Floors are measured in the same run over the files the scan accepts: walk+stat (os.walk + lstat) and
walk+read+SHA-256. Each index time is printed with its ratio to its floor. ROOT/.prooftext is deleted
first (the cold run needs an empty store); one accepted file is appended to and then restored.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import prooftext
from prooftext.corpus.config import load_config
from prooftext.corpus.walk import walk
from prooftext.store.db import STORE_DIR, STORE_FILE, STORE_SUFFIXES

TARGET_COLD_RATIO = 40
TARGET_NOCHANGE_RATIO = 5
TARGET_ONE_FILE_SECONDS = 0.3
TARGET_PEAK_MB = 300


def _timed(fn: Callable[[], object], repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def _floors(root: Path, paths: list[str], repeat: int) -> tuple[float, float]:
    def stat_all() -> None:
        for directory, _dirs, files in os.walk(root):
            for name in files:
                os.lstat(os.path.join(directory, name))

    def read_all() -> None:
        for path in paths:
            with open(root / path, "rb") as handle:
                hashlib.sha256(handle.read()).digest()

    return _timed(stat_all, repeat), _timed(lambda: (stat_all(), read_all()), repeat)


def _peak_mb() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, children) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    root: Path = args.root.resolve()
    # The index store alone: memory and context artifacts under .prooftext/ are the user's, not a cache.
    store = root / STORE_DIR / STORE_FILE
    for suffix in STORE_SUFFIXES:
        Path(f"{store}{suffix}").unlink(missing_ok=True)
    accepted = [s.path for s in walk(root, load_config(root)).stats]
    stat_floor, read_floor = _floors(root, accepted, args.repeat)

    start = time.perf_counter()
    index = prooftext.open(root)
    cold_report = index.refresh()
    cold = time.perf_counter() - start
    nochange = _timed(index.refresh, args.repeat)

    victim = (
        next(p for p in accepted if p.endswith(".py"))
        if any(p.endswith(".py") for p in accepted)
        else accepted[0]
    )
    original = (root / victim).read_bytes()
    try:
        (root / victim).write_bytes(original + b"\n# benchmark edit\n")
        start = time.perf_counter()
        one = index.refresh()
        one_file = time.perf_counter() - start
    finally:
        (root / victim).write_bytes(original)
        index.refresh()
        index.close()
    result = {
        "root": root.name,
        "files_accepted_by_walk": len(accepted),
        "files_indexed": cold_report.files_indexed,
        "nodes": cold_report.nodes,
        "edges": cold_report.edges,
        "floor_walk_stat_s": round(stat_floor, 4),
        "floor_walk_read_sha256_s": round(read_floor, 4),
        "cold_index_s": round(cold, 3),
        "cold_ratio_to_read_floor": round(cold / read_floor, 1),
        "nochange_refresh_s": round(nochange, 4),
        "nochange_ratio_to_stat_floor": round(nochange / stat_floor, 1),
        "one_changed_file_s": round(one_file, 4),
        "one_changed_file_indexed": one.files_indexed,
        "peak_memory_mb": round(_peak_mb(), 1),
        "targets": {
            "cold_ratio_max": TARGET_COLD_RATIO,
            "nochange_ratio_max": TARGET_NOCHANGE_RATIO,
            "one_changed_file_s_max": TARGET_ONE_FILE_SECONDS,
            "peak_memory_mb_max": TARGET_PEAK_MB,
        },
        "cpu_count": os.cpu_count(),
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
