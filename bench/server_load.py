"""Load benchmark of the JSON-RPC HTTP server (a benchmark script, not a test).

Starts ``prooftext serve --http`` on a free loopback port for ROOT, brings the index up to date, then runs
N concurrent clients for D seconds mixing ``context.adaptive`` and ``index.status``, while one more client
edits files under ``ROOT/_prooftext_bench/`` and calls ``index.refresh``. Reports requests/s, p50/p95/p99
latency (overall and per method), errors, whether every returned packet verifies against the files on
disk, and the server's RSS (start, end, peak, sampled every second). The edit folder is removed at the end.

Targets (issue): p95 <= 300 ms on a sphinx-sized tree; no request fails; memory stays flat.

    .venv/bin/python bench/server_load.py ROOT [--clients 16] [--duration 30] [--adaptive-share 50]
                                              [--think-ms 0] [--workers 8] [--processes CORES] [--fresh-ms 0]
                                              [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prooftext.pack.verify import verify_packet

BOOTSTRAP = "import prooftext.cli.serve; from prooftext.cli import main; main()"
READY = re.compile(r"listening on (http://\S+)/rpc")
STARTUP_S = 120.0
INDEX_TIMEOUT_S = 1800.0
REQUEST_TIMEOUT_S = 120.0
EDIT_DIR = "_prooftext_bench"
EDIT_FILES = 4
EDIT_INTERVAL_S = 1.0
RSS_SAMPLE_S = 1.0
RSS_TREND_S = 10.0
SEED = 20260810
PERCENTILES = (50, 95, 99)
P95_TARGET_MS = 300.0

QUERIES = (
    "configuration option parsing and defaults",
    "html builder writes output pages",
    "extension setup registers directives",
    "cross reference resolution of python objects",
    "warnings emitted for missing references",
    "test fixtures for building a project",
    "command line arguments of the build",
    "template rendering with jinja",
    "environment pickling and cache invalidation",
    "locale translation of messages",
    "autodoc documenter for classes and members",
    "search index for html output",
)


@dataclass
class Stats:
    latencies_ms: dict[str, list[float]] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    packets: dict[str, dict[str, Any]] = field(default_factory=dict)
    refreshes: list[float] = field(default_factory=list)
    edits: int = 0
    rss_kb: list[int] = field(default_factory=list)

    def record(self, method: str, ms: float) -> None:
        self.latencies_ms.setdefault(method, []).append(ms)

    def fail(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            out.extend(int(c) for c in (task / "children").read_text().split())
    except OSError:
        pass
    return out


def tree_rss_kb(pid: int) -> int:
    """Resident memory of the server and its worker processes (``--processes``)."""
    return rss_kb(pid) + sum(tree_rss_kb(child) for child in _children(pid))


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def start_server(
    root: Path, workers: int, fresh_ms: int, processes: int
) -> tuple[subprocess.Popen[str], str]:
    """Start the server; return it and its base URL once it announces it is listening."""
    cmd = [sys.executable, "-c", BOOTSTRAP, "serve", "--http", "--port", "0", "--root", str(root)]
    cmd += [
        "--workers",
        str(workers),
        "--fresh-ms",
        str(fresh_ms),
        "--processes",
        str(processes),
        "--no-warm",
    ]
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    assert proc.stderr is not None
    deadline = time.monotonic() + STARTUP_S
    said: list[str] = []
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        match = READY.search(line)
        if match:
            return proc, match.group(1)
        said.append(line)
    proc.kill()
    raise SystemExit(f"the server did not start: {''.join(said)[-2000:]}")


class Connection:
    """One keep-alive HTTP/1.1 connection per simulated client, as load generators (wrk, hey) keep them:
    no pool, no redirects, little client CPU, so that on a shared machine the figures measure the server."""

    def __init__(self, url: str) -> None:
        parts = urllib.parse.urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.path = (parts.path.rstrip("/") + "/rpc").encode()
        self.streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def post(self, body: bytes) -> bytes:
        if self.streams is None:
            self.streams = await asyncio.open_connection(self.host, self.port)
        reader, writer = self.streams
        head = b"POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
        writer.write(head % (self.path, self.host.encode(), len(body)) + body)
        try:
            status = await reader.readline()
            length = None
            while (line := await reader.readline()) not in (b"\r\n", b""):
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            if length is None or not status.startswith(b"HTTP/1.1 200"):
                raise RuntimeError(f"unexpected answer {status[:40]!r}")
            return await reader.readexactly(length)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        if self.streams is not None:
            self.streams[1].close()
            self.streams = None


TRANSPORT_ERRORS = (OSError, asyncio.IncompleteReadError, ValueError, RuntimeError)


async def rpc(conn: Connection, method: str, params: dict[str, Any], rid: int) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}
    reply: dict[str, Any] = json.loads(
        await asyncio.wait_for(conn.post(json.dumps(body).encode()), REQUEST_TIMEOUT_S)
    )
    if reply.get("id") != rid:
        raise RuntimeError(f"answer for id {reply.get('id')} to request {rid}")
    return reply


async def one_client(url: str, number: int, stop: float, share: int, think_s: float, stats: Stats) -> None:
    rng = random.Random(SEED + number)
    rid = number * 1_000_000
    conn = Connection(url)
    while time.monotonic() < stop:
        rid += 1
        adaptive = rng.randrange(100) < share
        method = "context.adaptive" if adaptive else "index.status"
        params = {"query": rng.choice(QUERIES)} if adaptive else {}
        began = time.perf_counter()
        try:
            reply = await rpc(conn, method, params, rid)
        except TRANSPORT_ERRORS as exc:
            stats.fail(f"transport:{type(exc).__name__}")
            continue
        stats.record(method, (time.perf_counter() - began) * 1000)
        if "error" in reply:
            stats.fail(f"rpc:{reply['error'].get('data', {}).get('code', reply['error']['code'])}")
        elif adaptive:
            packet = reply["result"]["packet"]
            stats.packets.setdefault(packet["blake3"], packet)
        if think_s:
            await asyncio.sleep(think_s)
    conn.close()


async def editor(url: str, root: Path, stop: float, stats: Stats) -> None:
    """Change, add and remove files under the edit folder, then refresh, about once a second."""
    folder = root / EDIT_DIR
    folder.mkdir(exist_ok=True)
    rng = random.Random(SEED)
    conn = Connection(url)
    step = 0
    while time.monotonic() < stop:
        target = folder / f"edit_{step % EDIT_FILES}.txt"
        if step % 7 == 6 and target.exists():
            target.unlink()
        else:
            words = " ".join(f"zq{rng.randrange(10**6)}x" for _ in range(50))
            target.write_text(f"bench edit {step}\n{words}\n")
        stats.edits += 1
        began = time.perf_counter()
        try:
            reply = await rpc(conn, "index.refresh", {}, -(step + 1))
            if "error" in reply:
                stats.fail(f"refresh:{reply['error'].get('data', {}).get('code')}")
        except TRANSPORT_ERRORS as exc:
            stats.fail(f"refresh_transport:{type(exc).__name__}")
        stats.refreshes.append((time.perf_counter() - began) * 1000)
        step += 1
        await asyncio.sleep(EDIT_INTERVAL_S)
    conn.close()


async def sample_rss(pid: int, stop: float, stats: Stats) -> None:
    while time.monotonic() < stop:
        stats.rss_kb.append(tree_rss_kb(pid))
        await asyncio.sleep(RSS_SAMPLE_S)


async def load(url: str, root: Path, pid: int, args: argparse.Namespace, stats: Stats) -> float:
    began = time.monotonic()
    stop = began + args.duration
    tasks = [
        one_client(url, i, stop, args.adaptive_share, args.think_ms / 1000, stats)
        for i in range(args.clients)
    ]
    await asyncio.gather(*tasks, editor(url, root, stop, stats), sample_rss(pid, stop, stats))
    return time.monotonic() - began


def percentile(values: list[float], p: int) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))
    return round(ordered[index], 1)


def summary(values: list[float]) -> dict[str, Any]:
    out: dict[str, Any] = {"count": len(values)}
    out.update({f"p{p}_ms": percentile(values, p) for p in PERCENTILES})
    out["mean_ms"] = round(statistics.fmean(values), 1) if values else 0.0
    return out


def verify_all(root: Path, packets: dict[str, dict[str, Any]]) -> dict[str, Any]:
    failed = [digest for digest, packet in packets.items() if not verify_packet(packet, root).ok]
    return {"distinct_packets": len(packets), "verified": len(packets) - len(failed), "failed": failed[:10]}


def report(stats: Stats, seconds: float, root: Path, setup: dict[str, Any]) -> dict[str, Any]:
    everything = [ms for values in stats.latencies_ms.values() for ms in values]
    total = len(everything) + sum(v for k, v in stats.errors.items() if k.startswith("transport"))
    rss = stats.rss_kb or [0]
    return {
        "root": str(root),
        "setup": setup,
        "seconds": round(seconds, 1),
        "requests": total,
        "requests_per_s": round(total / seconds, 1) if seconds else 0.0,
        "latency": summary(everything),
        "by_method": {m: summary(v) for m, v in sorted(stats.latencies_ms.items())},
        "errors": dict(sorted(stats.errors.items())),
        "error_count": sum(stats.errors.values()),
        "edits": stats.edits,
        "refresh": summary(stats.refreshes),
        "rss_kb": {
            "start": rss[0],
            "end": rss[-1],
            "peak": max(rss),
            "samples": len(rss),
            "every_10_s": rss[:: max(1, int(RSS_TREND_S / RSS_SAMPLE_S))],
        },
    }


def print_human(data: dict[str, Any]) -> None:
    lat = data["latency"]
    print(f"root {data['root']}: {data['setup']}")
    print(f"{data['requests']} requests in {data['seconds']} s = {data['requests_per_s']} req/s")
    print(
        f"latency p50 {lat['p50_ms']} ms, p95 {lat['p95_ms']} ms, p99 {lat['p99_ms']} ms (target p95 <= {P95_TARGET_MS:g})"
    )
    for method, s in data["by_method"].items():
        print(f"  {method}: n={s['count']} p50 {s['p50_ms']} p95 {s['p95_ms']} p99 {s['p99_ms']} ms")
    ref = data["refresh"]
    print(f"editor: {data['edits']} edits, index.refresh p50 {ref['p50_ms']} p95 {ref['p95_ms']} ms")
    print(f"errors: {data['error_count']} {data['errors']}")
    v = data["verification"]
    print(f"packets: {v['verified']}/{v['distinct_packets']} distinct packets verify; failed {v['failed']}")
    r = data["rss_kb"]
    print(
        f"server RSS: start {r['start'] // 1024} MiB, end {r['end'] // 1024} MiB, peak {r['peak'] // 1024} MiB"
    )
    print(f"  every 10 s (MiB): {', '.join(str(kb // 1024) for kb in r['every_10_s'])}")


def stop_server(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


async def prepare(url: str) -> dict[str, Any]:
    conn = Connection(url)
    began = time.perf_counter()
    reply = await rpc(conn, "index.refresh", {}, 0)
    if "error" in reply:
        raise SystemExit(f"index.refresh failed: {reply['error']}")
    result: dict[str, Any] = reply["result"]
    result["wall_ms"] = round((time.perf_counter() - began) * 1000)
    info = await rpc(conn, "server.info", {}, 1)
    result["indexed_files"] = info["result"]["index"]["indexed_files"]
    conn.close()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--duration", type=float, default=30.0)
    parser.add_argument(
        "--adaptive-share", type=int, default=50, help="percent of requests that are context.adaptive"
    )
    parser.add_argument("--think-ms", type=float, default=0.0, help="pause between a client's requests")
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument(
        "--processes",
        type=int,
        default=os.cpu_count() or 1,
        help="server --processes (worker processes); default: one per core, as the README advises",
    )
    parser.add_argument("--fresh-ms", type=int, default=0, help="server --fresh-ms (freshness check reuse)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    root = args.root.resolve()
    proc, url = start_server(root, args.workers, args.fresh_ms, args.processes)
    stats = Stats()
    try:
        indexed = asyncio.run(prepare(url))
        seconds = asyncio.run(load(url, root, proc.pid, args, stats))
        stats.rss_kb.append(tree_rss_kb(proc.pid))
    finally:
        shutil.rmtree(root / EDIT_DIR, ignore_errors=True)
    verification = verify_all(root, stats.packets)
    try:
        asyncio.run(prepare(url))  # leave the index as the tree is now (the edit folder removed)
    finally:
        stop_server(proc)
    setup = {
        "clients": args.clients,
        "duration_s": args.duration,
        "adaptive_share_pct": args.adaptive_share,
        "think_ms": args.think_ms,
        "workers": args.workers,
        "processes": args.processes,
        "fresh_ms": args.fresh_ms,
        "cpus": os.cpu_count(),
        "initial_refresh": indexed,
    }
    data = report(stats, seconds, root, setup)
    data["verification"] = verification
    if args.json:
        print(json.dumps(data, indent=2, sort_keys=True))
    else:
        print_human(data)


if __name__ == "__main__":
    main()
