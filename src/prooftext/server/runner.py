"""Running requests for the transports: bounded concurrency, an admission limit and a per-request deadline.

The dispatcher is synchronous (SQLite and the tokenizers block), so requests run on a fixed pool of worker
threads. At most ``max_pending`` requests are admitted at once (running or queued); a request beyond that
is refused as busy at once. A request that misses its deadline is answered with ``limit_exceeded``; work
that has not started is cancelled, work that has started finishes in the background and still counts
against the admission limit until it does, so the bound holds.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
from typing import Any

from prooftext.errors import CanonicalJSONError, LimitError
from prooftext.server import wire
from prooftext.server.dispatcher import Dispatcher, error_object

THREAD_PREFIX = "prooftext-rpc"


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
        self._pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=self.limits.max_workers, thread_name_prefix=THREAD_PREFIX
        )
        self._pending = 0

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
        work = self._pool.submit(self.dispatcher.handle, payload)
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
