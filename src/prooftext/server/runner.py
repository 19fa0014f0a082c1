"""Running requests for the transports: bounded concurrency, an admission limit and a per-request deadline.

The dispatcher is synchronous (SQLite and the tokenizers block), so requests run on a fixed pool of worker
threads, or, with ``processes > 1``, on a pool of worker processes that each open the same root (ranking
holds the interpreter lock, so only processes use several cores). At most ``max_pending`` requests are
admitted at once (running or queued); a request beyond that is refused as busy at once. A request that
misses its deadline is answered with ``limit_exceeded``; work that has not started is cancelled, work that
has started finishes in the background and still counts against the admission limit until it does, so the
bound holds. A worker process that dies fails its own request with an internal error, and the pool is
started again for the next one.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import multiprocessing
import threading
from concurrent.futures import process as cf_process
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from prooftext.errors import CanonicalJSONError, LimitError
from prooftext.server import wire
from prooftext.server.context import ServerContext
from prooftext.server.dispatcher import Dispatcher, error_object
from prooftext.server.limits import Limits

THREAD_PREFIX = "prooftext-rpc"

_child: Dispatcher | None = None
"""The dispatcher of a worker process, over its own context for the served root."""


def _start_child(root: Path, limits: Limits, interface: str) -> None:
    global _child
    _child = Dispatcher(ServerContext.open(root, limits, interface))


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

    def __init__(self, dispatcher: Dispatcher) -> None:
        self.dispatcher = dispatcher
        self.limits = dispatcher.ctx.limits
        self._pool = self._new_pool()
        self._pending = 0

    def _new_pool(self) -> concurrent.futures.Executor:
        if self.limits.processes == 1:
            return concurrent.futures.ThreadPoolExecutor(
                max_workers=self.limits.max_workers, thread_name_prefix=THREAD_PREFIX
            )
        ctx = self.dispatcher.ctx
        with _POOL_LOCK:
            saved = cf_process.EXTRA_QUEUED_CALLS
            setattr(cf_process, _DEPTH_NAME, QUEUED_CALLS)  # typeshed calls it Final; it is read once
            try:
                return concurrent.futures.ProcessPoolExecutor(
                    max_workers=self.limits.processes,
                    # Never fork a process that runs an event loop and threads; a fresh interpreter is safe.
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_start_child,
                    initargs=(ctx.root, self.limits, ctx.interface),
                )
            finally:
                setattr(cf_process, _DEPTH_NAME, saved)

    def _submit(self, payload: bytes) -> concurrent.futures.Future[bytes | None]:
        if self.limits.processes == 1:
            return self._pool.submit(self.dispatcher.handle, payload)
        try:
            return self._pool.submit(_child_handle, payload)
        except BrokenProcessPool:  # a worker died (killed, out of memory): start a new pool once
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = self._new_pool()
            return self._pool.submit(_child_handle, payload)

    @property
    def pending(self) -> int:
        return self._pending

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

    async def handle(self, payload: bytes) -> bytes | None:
        """Answer one JSON-RPC message; None when nothing is to be sent back (notifications)."""
        if self._pending >= self.limits.max_pending:
            busy = LimitError("the server is busy; retry later", reason="busy", limit=self.limits.max_pending)
            return await self._refuse(payload, busy)
        loop = asyncio.get_running_loop()
        self._pending += 1
        work = self._submit(payload)
        work.add_done_callback(lambda _: self._release_soon(loop))
        try:
            reply = await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(work)), self.limits.timeout_s)
        except TimeoutError:
            work.cancel()
            late = LimitError(
                f"the request did not finish within {self.limits.timeout_s:g} s",
                reason="timeout",
                limit_ms=int(self.limits.timeout_s * 1000),
            )
            return await self._refuse(payload, late)
        except BrokenProcessPool as broken:  # the worker running it died: an internal error, the server lives
            return await self._refuse(payload, broken)
        return reply

    def _release(self) -> None:
        self._pending -= 1

    def _release_soon(self, loop: asyncio.AbstractEventLoop) -> None:
        """From the worker thread: count the work as finished on the loop (unless the loop is gone)."""
        with contextlib.suppress(RuntimeError):  # the loop closed while abandoned work still ran
            loop.call_soon_threadsafe(self._release)

    async def _refuse(self, payload: bytes, error: Exception) -> bytes | None:
        """Errors for every id the message carries (parsed off the loop; unparsable → one ``id: null``)."""
        try:
            message = await asyncio.to_thread(wire.load, payload)
        except CanonicalJSONError:
            return Dispatcher.error_response(None, error)
        reply = _errors_for(Dispatcher.request_ids(message), error, isinstance(message, list))
        return None if reply is None else wire.dump(reply)
