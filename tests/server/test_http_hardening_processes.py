"""Worker processes of ``--processes N``: they end with the server, and one dying does not fail the rest.

Real processes, FIFOs to hold work in a worker and pidfds to wait for a process that is not our child; the
waits' bounds only keep a failure from hanging.
"""

from __future__ import annotations

import asyncio
import json
import os
import select
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from helpers import children, spawned_workers
from prooftext.errors import WorkerLostError
from prooftext.server.context import Limits, ServerContext
from prooftext.server.dispatcher import Dispatcher
from prooftext.server.methods import METHODS, Method
from prooftext.server.runner import REPEATABLE_METHODS, Runner

WAIT_S = 60.0
"""A bound on waiting for a process to end or a request to finish (a failure stays finite)."""
TERMINATED_STATUS = 128 + signal.SIGTERM
REPO = Path(__file__).resolve().parents[2]
BOOTSTRAP = "import prooftext.cli.serve; from prooftext.cli import main; main()"
STATUS = {"jsonrpc": "2.0", "method": "index.status", "id": 1}
LISTENING = "listening on "

needs_pidfd = pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="needs pidfd_open")


def hold(ctx: ServerContext, params: dict[str, Any]) -> dict[str, Any]:
    """A method that tells its process id through one FIFO, then waits until the test writes another."""
    with open(params["ready"], "w") as fifo:
        fifo.write(str(os.getpid()))
    with open(params["go"]) as fifo:
        fifo.read()
    return {"pid": os.getpid()}


def _readable(fd: int, within_s: float) -> bool:
    ready, _, _ = select.select([fd], [], [], within_s)
    return bool(ready)


def _ended(pidfd: int, within_s: float) -> bool:
    return _readable(pidfd, within_s)  # a pidfd becomes readable when its process ends


@contextmanager
def pooled_server(root: Path) -> Iterator[tuple[subprocess.Popen[bytes], list[int]]]:
    """``prooftext serve --http --processes 2`` after one request; yields it and pidfds of its children."""
    argv = ["serve", "--http", "--port", "0", "--processes", "2", "--no-warm", "--root", str(root)]
    server = subprocess.Popen([sys.executable, "-c", BOOTSTRAP, *argv], stderr=subprocess.PIPE)
    assert server.stderr is not None
    handles: list[int] = []
    try:
        line = server.stderr.readline().decode()
        assert LISTENING in line, line
        url = line.split(LISTENING)[1].strip()
        assert "result" in httpx.post(url, json=STATUS, timeout=WAIT_S).json()
        handles = [os.pidfd_open(pid) for pid in children(server.pid)]
        assert handles, "the request ran in no worker process"
        yield server, handles
    finally:
        for handle in handles:
            if not _ended(handle, 0):
                signal.pidfd_send_signal(handle, signal.SIGKILL)
            os.close(handle)
        server.kill()
        server.wait()
        server.stderr.close()  # not read to its end: a worker that outlived the server may hold it open


@needs_pidfd
def test_sigterm_shuts_the_server_down_with_its_worker_processes(sample_repo: Path) -> None:
    with pooled_server(sample_repo) as (server, children):
        server.terminate()
        assert server.wait(WAIT_S) == TERMINATED_STATUS
        assert all(_ended(handle, WAIT_S) for handle in children), "a worker process outlived the server"


@needs_pidfd
def test_worker_processes_end_when_the_server_is_killed(sample_repo: Path) -> None:
    with pooled_server(sample_repo) as (server, children):
        server.kill()
        server.wait(WAIT_S)
        # Idle workers wait on a queue every worker holds open: only their watch of the server ends them.
        assert all(_ended(handle, WAIT_S) for handle in children), "an orphaned worker is still running"


def _fifos(folder: Path, name: str) -> dict[str, str]:
    paths = {"ready": str(folder / f"{name}.ready"), "go": str(folder / f"{name}.go")}
    for path in paths.values():
        os.mkfifo(path)
    return paths


def _ready_pid(fifos: dict[str, str]) -> int:
    """The process id a ``hold`` call writes; opened without blocking so that the wait stays bounded."""
    fd = os.open(fifos["ready"], os.O_RDONLY | os.O_NONBLOCK)
    chunks = []
    try:
        # Linux reports the FIFO readable only once a writer has come: data, then its end of file.
        while _readable(fd, WAIT_S) and (data := os.read(fd, 64)):
            chunks.append(data)
    finally:
        os.close(fd)
    assert chunks, "no worker ran the call"
    return int(b"".join(chunks))


def _call(method: str, rid: int, params: dict[str, str]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}).encode()


def test_the_first_request_starts_every_worker_so_the_pool_watches_each_from_the_start(
    sample_repo: Path,
) -> None:
    # A pool that starts a worker per request it cannot place may wait on the deaths of the workers it
    # knew before that one: the new worker, killed, would leave its request waiting for its deadline.
    ctx = ServerContext.open(sample_repo, Limits(processes=2, timeout_s=WAIT_S))
    runner = Runner(Dispatcher(ctx))
    before = spawned_workers()
    try:
        reply = json.loads(asyncio.run(runner.handle(json.dumps(STATUS).encode())) or b"{}")
        started = spawned_workers() - before
    finally:
        runner.close()
        ctx.close()
    assert "result" in reply
    assert len(started) == 2


def test_a_dead_worker_does_not_fail_repeatable_requests_in_flight_and_fails_one_that_must_not_repeat(
    sample_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(REPO))  # the spawned workers import ``hold`` from this module
    methods = {**METHODS, "hold": Method("hold", hold, published=False)}
    methods["hold.once"] = Method("hold.once", hold, published=False)
    ctx = ServerContext.open(sample_repo, Limits(processes=2, timeout_s=WAIT_S))
    runner = Runner(Dispatcher(ctx, methods=methods), repeatable=REPEATABLE_METHODS | {"hold"})
    again, once = _fifos(tmp_path, "again"), _fifos(tmp_path, "once")
    replies: list[Any] = []

    async def both() -> list[bytes | None]:
        return list(
            await asyncio.gather(
                runner.handle(_call("hold", 1, again)), runner.handle(_call("hold.once", 2, once))
            )
        )

    thread = threading.Thread(target=lambda: replies.extend(asyncio.run(both())))
    thread.start()
    try:
        killed, other = _ready_pid(again), _ready_pid(once)  # each request holds one of the two workers
        os.kill(killed, signal.SIGKILL)
        rerun = _ready_pid(again)  # run again in the restarted pool
        with open(again["go"], "w") as fifo:
            fifo.write("go")
        thread.join(WAIT_S)
    finally:
        runner.close()
        ctx.close()
    first, second = (json.loads(r) for r in replies)
    assert first["result"] == {"pid": rerun} and rerun not in (killed, other)
    assert second["id"] == 2 and second["error"]["code"] == WorkerLostError.rpc_code
    assert second["error"]["data"] == {"code": "worker_lost", "repeatable": False, "retry_after_ms": 1000}


def test_a_repeatable_request_whose_worker_dies_twice_is_answered_on_the_third_pool(
    sample_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(REPO))  # the spawned workers import ``hold`` from this module
    methods = {**METHODS, "hold": Method("hold", hold, published=False)}
    ctx = ServerContext.open(sample_repo, Limits(processes=2, timeout_s=WAIT_S))
    runner = Runner(Dispatcher(ctx, methods=methods), repeatable=REPEATABLE_METHODS | {"hold"})
    fifos = _fifos(tmp_path, "again")
    replies: list[Any] = []
    thread = threading.Thread(
        target=lambda: replies.append(asyncio.run(runner.handle(_call("hold", 7, fifos))))
    )
    thread.start()
    try:
        killed = []
        for _ in range(2):  # the request's worker dies on its first pool and again on its second
            killed.append(_ready_pid(fifos))
            os.kill(killed[-1], signal.SIGKILL)
        last = _ready_pid(fifos)
        with open(fifos["go"], "w") as fifo:
            fifo.write("go")
        thread.join(WAIT_S)
    finally:
        runner.close()
        ctx.close()
    assert json.loads(replies[0]) == {"jsonrpc": "2.0", "id": 7, "result": {"pid": last}}
    assert last not in killed
