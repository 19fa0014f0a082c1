"""Load L4-L5 (the load cases of tests/reliability/catalogue.py): concurrent JSON-RPC clients, and queries during a reindex.

L4  32 concurrent clients x 50 requests against ``prooftext serve --http`` on loopback (bounded by 60 s):
    every response matched to its request id, the count of -32603 (target 0), p50/p95/p99 latency.
L5  queries (``context.pack`` semantics, in-process readers) while another process reindexes a changed
    corpus: client-visible lock errors (target 0), answered queries, latency p95.

Not a test (slow); ``tests/reliability/test_L_load.py`` runs each at a small scale under ``-m slow``.

    .venv/bin/python bench/load_rpc.py [--only L4,L5] [--clients 32] [--requests 50] [--files 400] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

import prooftext
from prooftext import Query
from prooftext.errors import ProoftextError

SERVE = "import prooftext.cli.serve; from prooftext.cli import main; main()"
READY = re.compile(r"listening on (http://\S+)")
BOUND_S = 60.0
QUERIES = ("ledger batch reconcile", "token budget ladder", "verify digest nonce", "graph node source")


def _corpus(root: Path, files: int, salt: str = "") -> None:
    rng = random.Random(7)
    words = " ".join(QUERIES).split()
    for i in range(files):
        path = root / f"pkg{i // 100:02d}/mod{i:04d}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        body = "".join(
            f"def {rng.choice(words)}_{i}_{j}(x):\n    '''{' '.join(rng.choices(words, k=8))} {salt}'''\n    return x\n"
            for j in range(6)
        )
        path.write_text(body)


def _percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values) or [0.0]
    pick = lambda share: ordered[min(len(ordered) - 1, int(share * len(ordered)))]  # noqa: E731
    return {
        "p50_ms": round(statistics.median(ordered), 1),
        "p95_ms": round(pick(0.95), 1),
        "p99_ms": round(pick(0.99), 1),
    }


def l4_concurrent_clients(clients: int = 32, requests: int = 50, files: int = 200) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "repo"
        _corpus(root, files)
        with prooftext.open(root) as index:
            index.refresh()
        server = subprocess.Popen(
            [sys.executable, "-c", SERVE, "serve", "--http", "--port", "0", "--root", str(root), "--no-warm"],
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
            start_new_session=True,
        )
        try:
            assert server.stderr is not None
            match = READY.search(server.stderr.readline())
            if match is None:
                raise RuntimeError("the server did not announce its address")
            url = match.group(1)
            latencies: list[float] = []
            problems = {"mismatched_ids": 0, "internal_errors": 0, "other_errors": 0, "transport_errors": 0}
            lock = threading.Lock()
            deadline = time.monotonic() + BOUND_S

            def client(number: int) -> None:
                rng = random.Random(number)
                with httpx.Client(timeout=BOUND_S) as http:
                    for k in range(requests):
                        if time.monotonic() > deadline:
                            return
                        rid = number * 10_000 + k
                        method = "context.pack" if k % 3 else "index.status"
                        params = (
                            {"query": rng.choice(QUERIES), "max_tokens": 2000, "refresh": False}
                            if k % 3
                            else {}
                        )
                        started = time.perf_counter()
                        try:
                            reply = http.post(
                                url, json={"jsonrpc": "2.0", "id": rid, "method": method, "params": params}
                            ).json()
                        except httpx.HTTPError:
                            with lock:
                                problems["transport_errors"] += 1
                            continue
                        elapsed = (time.perf_counter() - started) * 1000
                        with lock:
                            latencies.append(elapsed)
                            if reply.get("id") != rid:
                                problems["mismatched_ids"] += 1
                            error = reply.get("error")
                            if error:
                                problems[
                                    "internal_errors" if error["code"] == -32603 else "other_errors"
                                ] += 1

            threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
            started = time.perf_counter()
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            seconds = time.perf_counter() - started
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=BOUND_S)
    return {
        "clients": clients,
        "requests": len(latencies),
        "seconds": round(seconds, 2),
        "requests_per_s": int(len(latencies) / seconds) if seconds else 0,
        **_percentiles(latencies),
        **problems,
    }


REINDEX = """
import sys, prooftext
with prooftext.open(sys.argv[1]) as index:
    print(index.refresh().files_indexed, flush=True)
"""


def l5_queries_during_reindex(files: int = 400, readers: int = 4) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "repo"
        _corpus(root, files)
        with prooftext.open(root) as index:
            index.refresh()
        _corpus(root, files, salt="changed")  # every file changes: the reindex rewrites everything
        writer = subprocess.Popen(
            [sys.executable, "-c", REINDEX, str(root)], stdout=subprocess.PIPE, text=True
        )
        lock_errors = answered = other = 0
        latencies: list[float] = []
        guard = threading.Lock()

        def reader(number: int) -> None:
            nonlocal lock_errors, answered, other
            rng = random.Random(number)
            with prooftext.open(root) as index:
                while writer.poll() is None:
                    started = time.perf_counter()
                    try:
                        index.pack(Query(rng.choice(QUERIES), max_tokens=2000), refresh=False)
                        outcome = "ok"
                    except ProoftextError as exc:
                        outcome = "lock" if exc.code == "store_busy" or "locked" in exc.message else "other"
                    except Exception:  # a crash must count, not end the thread unseen
                        outcome = "other"
                    with guard:
                        latencies.append((time.perf_counter() - started) * 1000)
                        answered += outcome == "ok"
                        lock_errors += outcome == "lock"
                        other += outcome == "other"

        threads = [threading.Thread(target=reader, args=(n,)) for n in range(readers)]
        for thread in threads:
            thread.start()
        writer.wait(timeout=600)
        for thread in threads:
            thread.join()
    return {
        "answered": answered,
        "lock_errors": lock_errors,
        "other_errors": other,
        **_percentiles(latencies),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default="L4,L5")
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument("--files", type=int, default=400)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    wanted = set(args.only.split(","))
    out: dict[str, Any] = {}
    if "L4" in wanted:
        out["L4"] = l4_concurrent_clients(args.clients, args.requests)
    if "L5" in wanted:
        out["L5"] = l5_queries_during_reindex(args.files)
    sys.stdout.write(
        (json.dumps(out, indent=2) if args.json else "\n".join(f"{k}: {v}" for k, v in out.items())) + "\n"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
