"""Running requests for the transports: bounded concurrency, an admission limit and a per-request deadline.

The dispatcher is synchronous (SQLite and the tokenizers block), so requests run on a fixed pool of worker
threads, or, with ``processes > 1``, on a pool of worker processes that each open the same root (ranking
holds the interpreter lock, so only processes use several cores). At most ``max_pending`` requests are
admitted at once (running or queued); a request beyond that is refused as busy at once, or, when its
transport can hold the client back instead (stdio, which stops reading), waits for a place. A request that
misses its deadline is answered with ``limit_exceeded``; work that has not started is cancelled, work that
has started finishes in the background and still counts against the admission limit until it does, so the
bound holds.

A worker process that dies (killed, out of memory) takes the whole pool down: ``concurrent.futures`` ends
the other workers and fails every request in flight or queued, without telling which one the dead worker
ran. The pool is started again, and each of those requests runs again, up to :data:`MAX_ATTEMPTS` times
within its deadline, when every call it holds may run twice with the effect of once
(:data:`REPEATABLE_METHODS`: everything but ``memory.add``). A request that may not, or that lost its
worker every time, is answered ``worker_lost`` (:class:`~prooftext.errors.WorkerLostError`, retryable, with
``repeatable`` and a ``retry_after_ms`` hint), never an internal error. Workers ignore SIGINT
(the server shuts them down after its own graceful shutdown) and end by themselves if the server is killed.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import multiprocessing
import os
import signal
import threading
from collections.abc import Mapping
from concurrent.futures import process as cf_process
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from prooftext import SigningKey, start_every_worker, watch_parent
from prooftext.errors import CanonicalJSONError, LimitError, WorkerLostError
from prooftext.server import wire
from prooftext.server.context import ServerContext
from prooftext.server.dispatcher import Dispatcher, error_object
from prooftext.server.limits import Limits
from prooftext.server.methods import METHODS, Method

THREAD_PREFIX = "prooftext-rpc"

_child: Dispatcher | None = None
"""The dispatcher of a worker process, over its own context for the served root."""


MAX_ATTEMPTS = 3
"""How often a repeatable request runs when its worker keeps dying (each time on a new pool)."""
RETRY_AFTER_MS = 1000
"""The hint a retryable refusal gives in ``details.retry_after_ms``: a ``worker_lost`` answer (about the time
a new pool of spawned workers takes to start) and every ``busy`` one, on every interface."""

REPEATABLE_METHODS = frozenset(name for name, method in METHODS.items() if method.repeatable)
"""Methods that may run twice with the effect of once (:attr:`Method.repeatable`), so a request a dead
worker took down is run again. A method not listed is never repeated."""


def _start_child(
    root: Path,
    limits: Limits,
    interface: str,
    methods: Mapping[str, Method],
    parent: int,
    key: SigningKey | None,
) -> None:
    global _child
    watch_parent(parent)  # a killed server must not leave its workers holding the index open
    # Ctrl-C reaches the whole process group; the server ends its workers once its requests are answered.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _child = Dispatcher(ServerContext.open(root, limits, interface, key, worker=True), methods=methods)


QUEUED_CALLS = 16
"""Calls queued to the worker processes beyond one each. ``ProcessPoolExecutor`` queues one spare call and
refills from its manager thread, which must win this busy process's interpreter lock first: under load the
workers idled about a fifth of the time. The depth is read from a module constant when a pool is built."""
_POOL_LOCK = threading.Lock()
_DEPTH_NAME = "EXTRA_QUEUED_CALLS"


def _child_handle(payload: bytes) -> bytes | None:
    assert _child is not None, "worker process was not initialized"
    return _child.handle(payload)


def _errors_for(ids: list[Any], error: Exception, batch: bool) -> Any:
    replies = [{"jsonrpc": "2.0", "id": i, "error": error_object(error)} for i in ids]
    if not replies:
        return None
    return replies if batch else replies[0]


class Runner:
    """Runs dispatcher work off the event loop, within the server's limits."""

    def __init__(self, dispatcher: Dispatcher, *, repeatable: frozenset[str] = REPEATABLE_METHODS) -> None:
        self.dispatcher = dispatcher
        self.limits = dispatcher.ctx.limits
        self.repeatable = repeatable
        self._pool = self._new_pool()
        self._pending = 0
        self._waiters: collections.deque[asyncio.Future[None]] = collections.deque()

    def _new_pool(self) -> concurrent.futures.Executor:
        if self.limits.processes == 1:
            return concurrent.futures.ThreadPoolExecutor(
                max_workers=self.limits.max_workers, thread_name_prefix=THREAD_PREFIX
            )
        ctx = self.dispatcher.ctx
        with _POOL_LOCK:
            saved = cf_process.EXTRA_QUEUED_CALLS
            setattr(cf_process, _DEPTH_NAME, QUEUED_CALLS)  # typeshed calls it Final; it is read once
            try:  # started together, a request on a worker that dies fails at once, not at its deadline
                pool = concurrent.futures.ProcessPoolExecutor(
                    max_workers=self.limits.processes,
                    # Never fork a process that runs an event loop and threads; a fresh interpreter is safe.
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_start_child,
                    # The workers serve the dispatcher's own method table, as the threads do.
                    initargs=(
                        ctx.root,
                        self.limits,
                        ctx.interface,
                        dict(self.dispatcher.methods),
                        os.getpid(),
                        ctx.signing_key,
                    ),
                )
                return start_every_worker(pool)
            finally:
                setattr(cf_process, _DEPTH_NAME, saved)

    def _submit(self, payload: bytes) -> concurrent.futures.Future[bytes | None]:
        if self.limits.processes == 1:
            return self._pool.submit(self.dispatcher.handle, payload)
        try:
            return self._pool.submit(_child_handle, payload)
        except BrokenProcessPool:  # a worker died (killed, out of memory): start a new pool once
            self._replace(self._pool)
            return self._pool.submit(_child_handle, payload)

    def _replace(self, broken: concurrent.futures.Executor) -> None:
        """Start a new pool in place of ``broken``, unless another request has done so already (a request
        failed by a dying pool may learn of it before the pool refuses new work: it must not go back)."""
        if self._pool is broken:
            broken.shutdown(wait=False, cancel_futures=True)
            self._pool = self._new_pool()

    @property
    def pending(self) -> int:
        return self._pending

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

    async def handle(self, payload: bytes, *, wait: bool = False) -> bytes | None:
        """Answer one JSON-RPC message; None when nothing is to be sent back (notifications). At the admission
        limit it is refused as busy, or, with ``wait``, admitted once a place frees (its deadline runs from
        then)."""
        while wait and self._pending >= self.limits.max_pending:
            await self._place_freed()
        if self._pending >= self.limits.max_pending:
            busy = LimitError(
                "the server is busy; retry later",
                reason="busy",
                limit=self.limits.max_pending,
                retry_after_ms=RETRY_AFTER_MS,
            )
            return await self._refuse(payload, busy)
        try:
            async with asyncio.timeout(self.limits.timeout_s):
                return await self._run(payload)
        except TimeoutError:
            late = LimitError(
                f"the request did not finish within {self.limits.timeout_s:g} s",
                reason="timeout",
                limit_ms=int(self.limits.timeout_s * 1000),
            )
            return await self._refuse(payload, late)
        except WorkerLostError as lost:  # a worker died each time, or with a call that must not repeat
            return await self._refuse(payload, lost)

    async def _run(self, payload: bytes) -> bytes | None:
        """Run the request; when a worker dies and the pool fails every request with it, run it again on a
        new pool, as often as :data:`MAX_ATTEMPTS` allows, if every call it holds may repeat."""
        repeatable: bool | None = None
        for attempt in range(1, MAX_ATTEMPTS + 1):
            pool = self._pool
            try:
                return await self._attempt(payload)
            except BrokenProcessPool:
                self._replace(pool)
                if repeatable is None:
                    repeatable = await self._repeatable(payload)
                if not repeatable or attempt == MAX_ATTEMPTS:
                    break
        raise WorkerLostError(
            "the worker process running this request died"
            + (
                f" {MAX_ATTEMPTS} times; send it again"
                if repeatable
                else "; it may or may not have taken effect"
            ),
            repeatable=bool(repeatable),
            retry_after_ms=RETRY_AFTER_MS,
        )

    async def _attempt(self, payload: bytes) -> bytes | None:
        loop = asyncio.get_running_loop()
        work = self._submit(payload)
        self._pending += 1
        work.add_done_callback(lambda _: self._release_soon(loop))
        try:
            return await asyncio.shield(asyncio.wrap_future(work))
        except asyncio.CancelledError:  # the deadline passed: drop the work if it has not started
            work.cancel()
            raise

    async def _repeatable(self, payload: bytes) -> bool:
        """Whether every call of the message may run twice (parsed off the loop)."""
        try:
            message = await asyncio.to_thread(wire.load_request, payload)
        except CanonicalJSONError:
            return True  # no method runs: the worker only answers a parse error
        calls = message if isinstance(message, list) else [message]
        return all(isinstance(c, dict) and c.get("method") in self.repeatable for c in calls)

    async def _place_freed(self) -> None:
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter in self._waiters:
                self._waiters.remove(waiter)
            else:  # woken, then cancelled: the place goes to the next one waiting
                self._wake_one()
            raise

    def _wake_one(self) -> None:
        """Wake the longest waiting request (which checks the count again), skipping cancelled ones."""
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return

    def _release(self) -> None:
        self._pending -= 1
        self._wake_one()

    def _release_soon(self, loop: asyncio.AbstractEventLoop) -> None:
        """From the worker thread: count the work as finished on the loop (unless the loop is gone)."""
        with contextlib.suppress(RuntimeError):  # the loop closed while abandoned work still ran
            loop.call_soon_threadsafe(self._release)

    async def _refuse(self, payload: bytes, error: Exception) -> bytes | None:
        """Errors for every id the message carries (parsed off the loop; unparsable → one ``id: null``)."""
        try:
            message = await asyncio.to_thread(wire.load_request, payload)
        except CanonicalJSONError:
            return Dispatcher.error_response(None, error)
        reply = _errors_for(Dispatcher.request_ids(message), error, isinstance(message, list))
        return None if reply is None else wire.dump(reply)
