"""Load L1-L3 (the load cases of tests/reliability/catalogue.py): many tiny files, huge and sparse files, realistic files with queries.

L1  N tiny files (default 100,000; ``--files 1000000`` is the nightly size): files/s, peak RSS, index size,
    and every file indexed or excluded with a reason (``unaccounted`` must be 0).
L2  one 100 MiB file and a 1 TB sparse file: both excluded from ``stat`` alone (the scan time stays flat),
    plus the hashing cost of 100 MiB (SHA-256, BLAKE3) for comparison with M11.
L3  10,000 files of about 10 KB: index time and query latency p50/p95.

Not a test (slow); ``tests/reliability/test_L_load.py`` runs each at a small scale under ``-m slow``.

    .venv/bin/python bench/load_corpus.py [--only L1,L2,L3] [--files N] [--realistic N] [--json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import blake3

import prooftext
from prooftext import Query
from prooftext.corpus.scan import scan

WORDS = [
    "ledger",
    "batch",
    "reconcile",
    "statement",
    "account",
    "balance",
    "report",
    "archive",
    "refresh",
    "index",
    "token",
    "budget",
    "query",
    "packet",
    "excerpt",
    "verify",
    "digest",
    "render",
    "nonce",
    "ladder",
    "round",
    "estimate",
    "coverage",
    "evidence",
    "source",
    "graph",
    "node",
]


def peak_rss_mib() -> int:
    """Peak resident set of this process and its finished children, in MiB."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return int(max(own, children) // 1024)


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def _tree_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def l1_tiny_files(files: int = 100_000, base: Path | None = None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(dir=base) as scratch:
        root = Path(scratch) / "repo"
        started = time.perf_counter()
        for i in range(files):
            directory = root / f"d{i // 1000:04d}"
            if i % 1000 == 0:
                directory.mkdir(parents=True)
            (directory / f"f{i:07d}.txt").write_bytes(f"tiny file {i}\n".encode() if i % 97 else b"\0bin")
        created = time.perf_counter() - started
        started = time.perf_counter()
        with prooftext.open(root) as index:
            report = index.refresh()
        seconds = time.perf_counter() - started
        skipped = sum(v for k, v in report.files_skipped.items() if k != "internal")
        return {
            "files": files,
            "create_s": round(created, 2),
            "index_s": round(seconds, 2),
            "files_per_s": int(files / seconds) if seconds else files,
            "peak_rss_mib": peak_rss_mib(),
            "index_bytes": _tree_size(root / ".prooftext"),
            "indexed": report.files_indexed,
            "excluded": skipped,
            "unaccounted": files - report.files_indexed - skipped,
        }


def l2_huge_and_sparse(base: Path | None = None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(dir=base) as scratch:
        root = Path(scratch) / "repo"
        root.mkdir()
        (root / "a.py").write_text("x = 1\n")
        started = time.perf_counter()
        baseline = scan(root)
        baseline_s = time.perf_counter() - started
        with open(root / "sparse.bin", "wb") as handle:
            handle.truncate(1 << 40)
        payload = os.urandom(1 << 20) * 100
        (root / "huge.log").write_bytes(payload)
        started = time.perf_counter()
        result = scan(root)
        scan_s = time.perf_counter() - started
        started = time.perf_counter()
        hashlib.sha256(payload).hexdigest()
        sha_s = time.perf_counter() - started
        started = time.perf_counter()
        blake3.blake3(payload).hexdigest()
        b3_s = time.perf_counter() - started
        reasons = {e.path: e.reason for e in result.excluded}
        return {
            "excluded": reasons,
            "scan_ms_without": round(baseline_s * 1000, 1),
            "scan_ms_with": round(scan_s * 1000, 1),
            "sha256_100mib_s": round(sha_s, 3),
            "blake3_100mib_s": round(b3_s, 3),
            "sources": len(baseline.sources),
        }


def _realistic(rng: random.Random, i: int, size: int) -> str:
    lines: list[str] = [f"# Note {i}: {' '.join(rng.choices(WORDS, k=4))}", ""]
    while sum(len(line) + 1 for line in lines) < size:
        lines.append(" ".join(rng.choices(WORDS, k=rng.randint(6, 14))) + f" item{rng.randrange(10_000)}.")
    return "\n".join(lines) + "\n"


def l3_realistic(files: int = 10_000, queries: int = 50, base: Path | None = None) -> dict[str, Any]:
    rng = random.Random(3)
    with tempfile.TemporaryDirectory(dir=base) as scratch:
        root = Path(scratch) / "repo"
        for i in range(files):
            path = root / f"notes/n{i // 500:03d}/note{i:05d}.md"
            if i % 500 == 0:
                path.parent.mkdir(parents=True)
            path.write_text(_realistic(rng, i, 10_000))
        started = time.perf_counter()
        with prooftext.open(root) as index:
            index.refresh()
            index_s = time.perf_counter() - started
            latencies: list[float] = []
            for _ in range(queries):
                text = " ".join(rng.choices(WORDS, k=4))
                t0 = time.perf_counter()
                index.pack(Query(text, max_tokens=4000), refresh=False)
                latencies.append((time.perf_counter() - t0) * 1000)
        return {
            "files": files,
            "index_s": round(index_s, 2),
            "query_p50_ms": round(statistics.median(latencies), 1),
            "query_p95_ms": round(_percentile(latencies, 0.95), 1),
            "peak_rss_mib": peak_rss_mib(),
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default="L1,L2,L3")
    parser.add_argument("--files", type=int, default=100_000, help="L1 file count")
    parser.add_argument("--realistic", type=int, default=10_000, help="L3 file count")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    wanted = set(args.only.split(","))
    out: dict[str, Any] = {}
    if "L1" in wanted:
        out["L1"] = l1_tiny_files(args.files)
    if "L2" in wanted:
        out["L2"] = l2_huge_and_sparse()
    if "L3" in wanted:
        out["L3"] = l3_realistic(args.realistic)
    if args.json:
        sys.stdout.write(json.dumps(out, indent=2) + "\n")
    else:
        for key, value in out.items():
            sys.stdout.write(f"{key}: {value}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
