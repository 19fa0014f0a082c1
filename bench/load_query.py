"""Load L6-L8 (the load cases of tests/reliability/catalogue.py): a 100k-token query, a 10k-edge contradiction graph, a 1,000-selection soak.

L6  a query of about 100,000 tokens is rejected (``value_out_of_range``) in bounded time; a query at the
    length limit (65,536 characters) is packed, and both times are reported.
L7  a contradiction graph with about 10,000 edges (Markdown front matter ``contradicts``) goes through the
    artifact selector: it terminates, and every component is selected or excluded as a unit.
L8  1,000 sequential selections in one process: RSS (``/proc/self/status``) and open descriptors
    (``/proc/self/fd``) sampled at the start, middle and end must stay flat.

Not a test (slow); ``tests/reliability/test_L_load.py`` runs each at a small scale under ``-m slow``.

    .venv/bin/python bench/load_query.py [--only L6,L7,L8] [--docs 150] [--selections 1000] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import prooftext
from prooftext import Query
from prooftext.errors import ProoftextError
from prooftext.select.query import MAX_QUERY_CHARS

SAMPLE = {
    "billing/ledger.py": "def reconcile(ledger, statement):\n    '''Match ledger entries.'''\n    return ledger\n",
    "docs/batch.md": "# Nightly batch\n\nThe batch reconciles every ledger.\n",
}


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def _root(scratch: str, files: dict[str, str]) -> Path:
    root = Path(scratch) / "repo"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def l6_huge_query() -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as scratch:
        root = _root(scratch, SAMPLE)
        huge = " ".join(f"w{i}" for i in range(100_000))  # about 100k tokens
        at_limit = huge[: MAX_QUERY_CHARS - 20] + " ledger batch"
        with prooftext.open(root) as index:
            index.refresh()
            started = time.perf_counter()
            try:
                index.pack(huge)
                outcome = "accepted"
            except ProoftextError as exc:
                outcome = exc.code
            rejected_ms = (time.perf_counter() - started) * 1000
            started = time.perf_counter()
            packet = index.pack(Query(at_limit, max_tokens=60_000))
            limit_ms = (time.perf_counter() - started) * 1000
    return {
        "huge_query_outcome": outcome,
        "huge_query_ms": round(rejected_ms, 1),
        "limit_query_ms": round(limit_ms, 1),
        "limit_query_tokens": packet.prompt_tokens.count,
    }


def _contradiction_corpus(docs: int, fanout: int) -> dict[str, str]:
    files = {"SPEC.md": "# Spec\n\nThe retry policy is decided in the ADRs.\n"}
    for i in range(docs):
        targets = ", ".join(f"docs/adr/d{(i + k) % docs:04d}.md" for k in range(1, fanout + 1))
        files[f"docs/adr/d{i:04d}.md"] = (
            f"---\ncontradicts: [{targets}]\n---\n# Retry policy {i}\n\nretry policy {i}\n"
        )
    return files


def l7_contradiction_graph(docs: int = 150, fanout: int = 67) -> dict[str, Any]:
    from prooftext.artifacts import lifecycle
    from prooftext.artifacts.query import byte_query

    with tempfile.TemporaryDirectory() as scratch:
        root = _root(scratch, _contradiction_corpus(docs, fanout))
        out = root / ".prooftext" / "context"
        started = time.perf_counter()
        lifecycle.run_manifest(root, out / "manifest.json", "SPEC.md", [])
        lifecycle.run_index(out / "manifest.json", root, None, out / "graph.json")
        graph = json.loads((out / "graph.json").read_text())
        edges = sum(1 for e in graph["edges"] if e["type"] == "contradicts")
        lifecycle.run_query(
            out / "graph.json",
            byte_query("retry policy", max_nodes=4096, max_edges=16_384),
            out / "query.json",
        )
        try:
            lifecycle.run_select(out / "graph.json", out / "query.json", out / "selection.json")
            selection = json.loads((out / "selection.json").read_text())
            outcome = f"selected {len(selection['nodes'])}, excluded {len(selection['excluded'])}"
        except ProoftextError as exc:
            outcome = f"blocked: {exc.code}"
        seconds = time.perf_counter() - started
    return {"docs": docs, "contradiction_edges": edges, "outcome": outcome, "seconds": round(seconds, 2)}


def l8_soak(selections: int = 1000) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as scratch:
        root = _root(
            scratch, {**SAMPLE, **{f"pkg/m{i}.py": f"def ledger_{i}():\n    return {i}\n" for i in range(60)}}
        )
        samples: list[tuple[int, int]] = []
        with prooftext.open(root) as index:
            index.refresh()
            started = time.perf_counter()
            for n in range(selections):
                index.pack(Query(f"ledger batch {n % 7}", max_tokens=2000), refresh=n % 10 == 0)
                if n in (selections // 10, selections // 2, selections - 1):
                    samples.append((rss_kib(), open_fds()))
            seconds = time.perf_counter() - started
    (rss0, fd0), _, (rss2, fd2) = samples
    return {
        "selections": selections,
        "seconds": round(seconds, 2),
        "rss_kib": [s[0] for s in samples],
        "fds": [s[1] for s in samples],
        "rss_growth_kib": rss2 - rss0,
        "fd_growth": fd2 - fd0,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default="L6,L7,L8")
    parser.add_argument("--docs", type=int, default=150)
    parser.add_argument("--selections", type=int, default=1000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    wanted = set(args.only.split(","))
    out: dict[str, Any] = {}
    if "L6" in wanted:
        out["L6"] = l6_huge_query()
    if "L7" in wanted:
        out["L7"] = l7_contradiction_graph(args.docs)
    if "L8" in wanted:
        out["L8"] = l8_soak(args.selections)
    sys.stdout.write(
        (json.dumps(out, indent=2) if args.json else "\n".join(f"{k}: {v}" for k, v in out.items())) + "\n"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
