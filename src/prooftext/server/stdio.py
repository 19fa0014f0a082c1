"""JSON-RPC over stdio: one JSON message per line in, one response per line out (newline-delimited JSON).

Requests run concurrently (within the runner's limits), so responses may come back in a different order
than the requests: match them by ``id``. A line longer than the size limit is answered with one
``limit_exceeded`` error and skipped without being held in memory. Blank lines are ignored. At end of
input the server answers what is still running, then exits.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from typing import BinaryIO

from prooftext.errors import LimitError
from prooftext.server.dispatcher import Dispatcher
from prooftext.server.runner import Runner

DISCARD_CHUNK = 64 * 1024
"""An over-long line is skipped in pieces of this size."""


class _TooLong:
    """Stands for a line that exceeded the size limit (its content is never kept)."""


def _read_line(stream: BinaryIO, limit: int) -> bytes | _TooLong | None:
    """The next line (None at end of input), or a marker when it is longer than ``limit`` bytes."""
    line = stream.readline(limit + 1)
    if not line:
        return None
    if len(line) <= limit or line.endswith(b"\n"):
        return line
    while True:
        rest = stream.readline(DISCARD_CHUNK)
        if not rest or rest.endswith(b"\n"):
            return _TooLong()


class StdioServer:
    def __init__(self, runner: Runner, stdin: BinaryIO, stdout: BinaryIO) -> None:
        self.runner = runner
        self.stdin = stdin
        self.stdout = stdout
        self.limit = runner.limits.max_body_bytes
        self._reader = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="prooftext-stdin")
        self._writer = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="prooftext-stdout")

    def _write(self, data: bytes) -> None:
        self.stdout.write(data + b"\n")
        self.stdout.flush()

    async def _send(self, data: bytes | None) -> None:
        if data is not None:
            await asyncio.get_running_loop().run_in_executor(self._writer, self._write, data)

    async def _answer(self, line: bytes) -> None:
        await self._send(await self.runner.handle(line))

    async def serve(self) -> None:
        loop = asyncio.get_running_loop()
        tasks: set[asyncio.Task[None]] = set()
        try:
            while True:
                line = await loop.run_in_executor(self._reader, _read_line, self.stdin, self.limit)
                if line is None:
                    break
                if isinstance(line, _TooLong):
                    error = LimitError(f"a request line is limited to {self.limit} bytes", limit=self.limit)
                    await self._send(Dispatcher.error_response(None, error))
                    continue
                if not line.strip():
                    continue
                task = asyncio.create_task(self._answer(line))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
            if tasks:
                await asyncio.gather(*tasks)
        finally:
            self._reader.shutdown(wait=False)
            self._writer.shutdown(wait=True)


def serve_stdio(runner: Runner, stdin: BinaryIO, stdout: BinaryIO) -> None:
    """Serve until end of input (blocking)."""
    asyncio.run(StdioServer(runner, stdin, stdout).serve())
