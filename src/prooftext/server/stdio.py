"""JSON-RPC over stdio: one JSON message per line in, one response per line out (newline-delimited JSON).

Requests run concurrently (within the runner's limits), so responses may come back in a different order
than the requests: match them by ``id``. While as many requests are pending as the runner admits
(``max_pending``), the server reads no further line: a client that pipelines more is held back, not
refused as busy, and every line is answered. A line longer than the size limit (its terminator, LF or CRLF,
not counted) is answered with one ``limit_exceeded`` error and skipped without being held in memory. Blank
lines are ignored. At end of input the server answers what is still running, then exits. When a response
cannot be written (a full disk, a closed pipe), the server stops reading and raises that ``OSError``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import queue
import threading
from typing import BinaryIO

from prooftext.errors import LimitError
from prooftext.server.dispatcher import Dispatcher
from prooftext.server.runner import Runner

DISCARD_CHUNK = 64 * 1024
"""An over-long line is skipped in pieces of this size."""
CRLF = b"\r\n"
LF = b"\n"


class _TooLong:
    """Stands for a line that exceeded the size limit (its content is never kept)."""


Line = bytes | _TooLong | None
"""A request line, a line over the limit, or None at end of input."""


def _content_length(line: bytes) -> int:
    """The length of ``line`` without its terminator: a CRLF client must get the same limit as an LF one."""
    for terminator in (CRLF, LF):
        if line.endswith(terminator):
            return len(line) - len(terminator)
    return len(line)


def _read_line(stream: BinaryIO, limit: int | None) -> Line:
    """The next line (None at end of input), or a marker when it is longer than ``limit`` bytes."""
    line = stream.readline(-1 if limit is None else limit + len(CRLF))
    if not line:
        return None
    if limit is None or _content_length(line) <= limit:
        return line
    if line.endswith(LF):  # over the limit, but wholly read
        return _TooLong()
    while True:
        rest = stream.readline(DISCARD_CHUNK)
        if not rest or rest.endswith(LF):
            return _TooLong()


def _settle(future: asyncio.Future[Line], outcome: Line | Exception) -> None:
    if future.done():  # the server stopped waiting (its output failed, or it was interrupted)
        return
    if isinstance(outcome, Exception):
        future.set_exception(outcome)
    else:
        future.set_result(outcome)


def _own_reader(stream: BinaryIO) -> BinaryIO:
    """A reader of its own on ``stream``'s descriptor, for the daemon thread. At exit the interpreter closes
    the process's stdin object, which waits for the lock a blocked read holds: a fatal error. Nothing has
    read stdin before the server starts, so no buffered byte is left behind in the other object."""
    try:
        fd = stream.fileno()
    except (OSError, ValueError):  # an in-memory stream: nothing closes it at exit
        return stream
    return open(fd, "rb", closefd=False)  # lives as long as the thread, and never closes the descriptor


class LineReader:
    """Reads stdin one line at a time, each when the server asks, on a daemon thread (the MCP server's too).

    Not an executor's or anyio's worker thread: a cancelled wait for those waits for the read, and they are
    joined at exit, so a read blocked on a stdin that the client keeps open would keep the process alive
    after Ctrl-C or after its output failed. ``limit`` (None: none) is as :func:`_read_line` applies it."""

    def __init__(self, stream: BinaryIO, limit: int | None) -> None:
        self._asks: queue.SimpleQueue[tuple[asyncio.AbstractEventLoop, asyncio.Future[Line]] | None]
        self._asks = queue.SimpleQueue()
        self._stream = _own_reader(stream)
        self._limit = limit
        threading.Thread(target=self._run, name="prooftext-stdin", daemon=True).start()

    async def next(self) -> Line:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Line] = loop.create_future()
        self._asks.put((loop, future))
        return await future

    def close(self) -> None:
        """Let the thread end if it is waiting to be asked (not if it is blocked reading)."""
        self._asks.put(None)

    def _run(self) -> None:
        while (ask := self._asks.get()) is not None:
            loop, future = ask
            try:
                line: Line | Exception = _read_line(self._stream, self._limit)
            except Exception as exc:  # raised by the server's ``await``, where it is reported
                line = exc
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits for the line
                loop.call_soon_threadsafe(_settle, future, line)
            if line is None or isinstance(line, Exception):
                return


class StdioServer:
    def __init__(self, runner: Runner, stdin: BinaryIO, stdout: BinaryIO) -> None:
        self.runner = runner
        self.stdin = stdin
        self.stdout = stdout
        self.limit = runner.limits.max_body_bytes
        self._writer = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="prooftext-stdout")

    def _write(self, data: bytes) -> None:
        self.stdout.write(data + LF)
        self.stdout.flush()

    async def _send(self, data: bytes | None) -> None:
        if data is not None:
            await asyncio.get_running_loop().run_in_executor(self._writer, self._write, data)

    async def _answer(self, line: bytes, places: asyncio.Semaphore) -> None:
        try:
            await self._send(await self.runner.handle(line, wait=True))
        finally:
            places.release()

    async def serve(self) -> None:
        """Answer every line until end of input. The first response that cannot be written stops the server:
        reading and answering are cancelled, and that ``OSError`` is raised (to be reported once, by the
        caller, as the output's failure)."""
        reader = LineReader(self.stdin, self.limit)
        # Lines read and not yet answered; the runner waits for work it abandoned at a deadline too.
        places = asyncio.Semaphore(self.runner.limits.max_pending)
        try:
            # A task group, so that a task's failure (a write to a full disk) stops the server at once
            # instead of being dropped with its task.
            async with asyncio.TaskGroup() as tasks:
                while await places.acquire() and (line := await reader.next()) is not None:
                    if isinstance(line, _TooLong):
                        places.release()
                        error = LimitError(
                            f"a request line is limited to {self.limit} bytes", limit=self.limit
                        )
                        await self._send(Dispatcher.error_response(None, error))
                    elif line.strip():
                        tasks.create_task(self._answer(line, places))
                    else:
                        places.release()
        except* OSError as failed:  # later writes fail the same way; the first says it
            raise failed.exceptions[0] from None
        finally:
            reader.close()
            self._writer.shutdown(wait=True)


def serve_stdio(runner: Runner, stdin: BinaryIO, stdout: BinaryIO) -> None:
    """Serve until end of input (blocking); an ``OSError`` when stdout cannot be written."""
    asyncio.run(StdioServer(runner, stdin, stdout).serve())
