"""The runner's limits (deadline, admission) and the stdio transport, in process, with no sleeps."""

from __future__ import annotations

import asyncio
import io
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from prooftext.server.context import Limits, ServerContext
from prooftext.server.dispatcher import Dispatcher
from prooftext.server.methods import METHODS, Method
from prooftext.server.runner import RETRY_AFTER_MS, Runner
from prooftext.server.stdio import StdioServer

RELEASE_S = 10.0


class Gate:
    """A method that blocks until released, to hold work in flight deterministically."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()

    def __call__(self, ctx: ServerContext, params: dict[str, Any]) -> Any:
        self.entered.set()
        self.release.wait(RELEASE_S)
        return {"released": True}


@contextmanager
def gated(sample_repo: Path, limits: Limits, gate: Gate) -> Iterator[Runner]:
    """A runner over the production methods plus ``wait`` (held by ``gate``)."""
    ctx = ServerContext.open(sample_repo, limits)
    runner = Runner(Dispatcher(ctx, methods={**METHODS, "wait": Method("wait", gate, published=False)}))
    try:
        yield runner
    finally:
        gate.release.set()
        runner.close()
        ctx.close()


@pytest.fixture
def gate() -> Gate:
    return Gate()


def _message(method: str, rid: Any = 1, params: Any = None) -> bytes:
    body: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "id": rid}
    if params is not None:
        body["params"] = params
    return json.dumps(body).encode()


async def _late(runner: Runner) -> tuple[Any, Any]:
    single = await runner.handle(_message("wait", rid="slow"))
    batch = await runner.handle(b"[" + _message("wait", rid=1) + b"," + _message("wait", rid=2) + b"]")
    return json.loads(single or b"null"), json.loads(batch or b"null")


def test_a_request_past_its_deadline_is_answered_limit_exceeded_with_its_id(
    sample_repo: Path, gate: Gate
) -> None:
    with gated(sample_repo, Limits(timeout_s=0.2), gate) as runner:
        single, batch = asyncio.run(_late(runner))
    assert single["id"] == "slow" and single["error"]["code"] == -32015
    assert single["error"]["data"] == {"code": "limit_exceeded", "limit_ms": 200, "reason": "timeout"}
    assert [r["id"] for r in batch] == [1, 2]


async def _crowd(runner: Runner, gate: Gate) -> tuple[Any, Any, int]:
    held = asyncio.create_task(runner.handle(_message("wait", rid="held")))
    await asyncio.to_thread(gate.entered.wait, RELEASE_S)
    refused = await runner.handle(_message("index.status", rid="next"))
    gate.release.set()
    first = await held
    return json.loads(refused or b"null"), json.loads(first or b"null"), runner.pending


def test_requests_beyond_the_admission_limit_are_refused_as_busy_with_a_retry_hint(
    sample_repo: Path, gate: Gate
) -> None:
    with gated(sample_repo, Limits(max_workers=1, max_pending=1), gate) as runner:
        refused, first, pending = asyncio.run(_crowd(runner, gate))
    assert refused["id"] == "next" and refused["error"]["code"] == -32015
    assert refused["error"]["data"] == {
        "code": "limit_exceeded",
        "reason": "busy",
        "limit": 1,
        "retry_after_ms": RETRY_AFTER_MS,
    }
    assert first == {"jsonrpc": "2.0", "id": "held", "result": {"released": True}}
    assert pending == 0


def _stdio(dispatcher: Dispatcher, lines: list[bytes]) -> list[Any]:
    stdin = io.BytesIO(b"\n".join(lines) + b"\n")
    stdout = io.BytesIO()
    runner = Runner(dispatcher)
    asyncio.run(StdioServer(runner, stdin, stdout).serve())
    runner.close()
    return [json.loads(line) for line in stdout.getvalue().splitlines()]


def test_stdio_answers_each_line_skips_blank_lines_and_refuses_overlong_lines(sample_repo: Path) -> None:
    ctx = ServerContext.open(sample_repo, Limits(max_body_bytes=2048))
    try:
        replies = _stdio(
            Dispatcher(ctx),
            [
                _message("depth.classify", rid=1, params=["hi"]),
                b"",
                b"   ",
                b'{"jsonrpc": "2.0", "method": "depth.classify", "params": ["'
                + b"x" * 1_000_000
                + b'"], "id": 2}',
                _message("depth.classify", rid=3, params={"text": "please compare both in detail"}),
                b'{"jsonrpc": "2.0", "method": "index.status"}',
                b"not json",
            ],
        )
    finally:
        ctx.close()
    by_id = {json.dumps(r.get("id")): r for r in replies}
    assert len(replies) == 4
    assert by_id["1"]["result"]["decision"]["tier"] == "surface"
    assert by_id["3"]["result"]["decision"]["tier"] == "deep"
    errors = sorted(r["error"]["data"]["code"] for r in replies if r["id"] is None)
    assert errors == ["json_syntax", "limit_exceeded"]


def test_stdio_stops_reading_at_the_admission_limit_so_every_pipelined_request_is_answered(
    sample_repo: Path,
) -> None:
    ctx = ServerContext.open(sample_repo, Limits(max_workers=1, max_pending=1))
    texts = ["hi", "please compare both in detail"]
    lines = [_message("depth.classify", rid=i, params=[texts[i % 2]]) for i in range(200)]
    try:
        replies = _stdio(Dispatcher(ctx), lines)
    finally:
        ctx.close()
    assert sorted(r["id"] for r in replies) == list(range(200))
    assert all("result" in r for r in replies)


async def _held_back(runner: Runner, gate: Gate) -> tuple[Any, Any, int]:
    """A request that waits for admission instead of being refused, while another holds the only place."""
    held = asyncio.create_task(runner.handle(_message("wait", rid="held")))
    await asyncio.to_thread(gate.entered.wait, RELEASE_S)
    waiting = asyncio.create_task(runner.handle(_message("index.status", rid="next"), wait=True))
    await asyncio.sleep(0)  # let it reach its wait for admission
    assert not waiting.done()
    gate.release.set()
    first, second = await held, await waiting
    return json.loads(first or b"null"), json.loads(second or b"null"), runner.pending


def test_a_request_told_to_wait_is_admitted_when_a_place_frees_instead_of_refused_as_busy(
    sample_repo: Path, gate: Gate
) -> None:
    with gated(sample_repo, Limits(max_workers=1, max_pending=1), gate) as runner:
        first, second, pending = asyncio.run(_held_back(runner, gate))
    assert first["result"] == {"released": True}
    assert second["id"] == "next" and "fresh" in second["result"]
    assert pending == 0


def test_prooftext_serve_stdio_subprocess(sample_repo: Path) -> None:
    bootstrap = "import prooftext.cli.serve; from prooftext.cli import main; main()"
    lines = [_message("depth.classify", rid=1, params=["hi"]), _message("index.status", rid=2), b"[]"]
    done = subprocess.run(
        [sys.executable, "-c", bootstrap, "serve", "--stdio", "--root", str(sample_repo), "--no-warm"],
        input=b"\n".join(lines) + b"\n",
        capture_output=True,
        timeout=120,
        check=True,
    )
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    by_id = {json.dumps(r.get("id")): r for r in replies}
    assert set(by_id) == {"1", "2", "null"}
    assert by_id["1"]["result"]["decision"]["tier"] == "surface"
    assert by_id["2"]["result"]["added"] == 5
    assert by_id["null"]["error"]["code"] == -32600
