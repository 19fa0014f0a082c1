"""``prooftext serve --stdio`` stops at the first response it cannot write, says so once, and exits 4; a
request line's terminator (LF or CRLF) does not count against the size limit."""

from __future__ import annotations

import asyncio
import io
import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

import pytest

from prooftext.cli.common import EXIT_IO
from prooftext.server.context import Limits, ServerContext
from prooftext.server.dispatcher import Dispatcher
from prooftext.server.runner import Runner
from prooftext.server.stdio import StdioServer

BOOTSTRAP = "import prooftext.cli.serve; from prooftext.cli import main; main()"
"""The CLI module imported explicitly, as the other server tests launch it."""
HANG_GUARD_S = 120
"""Fails the test instead of hanging it should the server never exit; never reached when it works."""
REQUEST = b'{"jsonrpc": "2.0", "id": 1, "method": "depth.classify", "params": ["hi"]}'
UNWRITABLE = "prooftext: error [output_unwritable]: cannot write to standard output: {reason}\n"


@contextmanager
def _server(root: Path, stdout: Any) -> Iterator[subprocess.Popen[bytes]]:
    command = [sys.executable, "-c", BOOTSTRAP, "serve", "--stdio", "--root", str(root), "--no-warm"]
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=stdout, stderr=subprocess.PIPE)
    try:
        yield process
    finally:
        process.kill()  # only ever reached alive when the test has failed
        process.wait()
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def _exit_with_stdin_open(process: subprocess.Popen[bytes]) -> tuple[int, str]:
    """Send one request and keep stdin open: only the failed output may end the server."""
    assert process.stdin is not None and process.stderr is not None
    process.stdin.write(REQUEST + b"\n")
    process.stdin.flush()
    try:
        status = process.wait(timeout=HANG_GUARD_S)
    except subprocess.TimeoutExpired:
        pytest.fail("the server kept reading after its response could not be written")
    return status, process.stderr.read().decode()


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="/dev/full does not exist on this system")
def test_a_response_written_to_a_full_device_stops_the_server_with_one_coded_error_and_exit_4(
    sample_repo: Path,
) -> None:
    with open("/dev/full", "wb") as full, _server(sample_repo, full) as process:
        status, stderr = _exit_with_stdin_open(process)
    assert status == EXIT_IO
    assert stderr == UNWRITABLE.format(reason="No space left on device")


def test_a_response_written_to_a_closed_pipe_stops_the_server_with_one_coded_error_and_exit_4(
    sample_repo: Path,
) -> None:
    with _server(sample_repo, subprocess.PIPE) as process:
        assert process.stdout is not None
        process.stdout.close()  # the client stopped reading
        status, stderr = _exit_with_stdin_open(process)
    assert status == EXIT_IO
    assert stderr == UNWRITABLE.format(reason="Broken pipe")


class _CountingFullStdout(io.BytesIO):
    """A stdout on a full disk that counts the writes tried."""

    def __init__(self) -> None:
        super().__init__()
        self.tries = 0

    def write(self, data: Any) -> int:
        self.tries += 1
        raise OSError(28, "No space left on device")


def _serve(ctx: ServerContext, stdin: BinaryIO, stdout: BinaryIO) -> None:
    runner = Runner(Dispatcher(ctx))
    try:
        asyncio.run(StdioServer(runner, stdin, stdout).serve())
    finally:
        runner.close()


def test_the_stdio_server_raises_the_first_failed_write_itself_not_a_group(sample_repo: Path) -> None:
    ctx = ServerContext.open(sample_repo, Limits(max_workers=1))
    stdout = _CountingFullStdout()
    try:
        with pytest.raises(OSError) as raised:
            _serve(ctx, io.BytesIO(REQUEST + b"\n"), stdout)
    finally:
        ctx.close()
    assert type(raised.value) is OSError and raised.value.errno == 28
    assert stdout.tries == 1


@pytest.mark.parametrize("terminator", [b"\n", b"\r\n"], ids=["lf", "crlf"])
def test_a_request_exactly_at_the_size_limit_is_answered_whatever_its_line_terminator(
    sample_repo: Path, terminator: bytes
) -> None:
    over = REQUEST.replace(b'["hi"]', b'["hi!"]')  # one byte over the limit
    ctx = ServerContext.open(sample_repo, Limits(max_body_bytes=len(REQUEST)))
    stdout = io.BytesIO()
    try:
        _serve(ctx, io.BytesIO(REQUEST + terminator + over + terminator), stdout)
    finally:
        ctx.close()
    replies = [json.loads(line) for line in stdout.getvalue().splitlines()]
    by_id = {r["id"]: r for r in replies}
    assert by_id[1]["result"]["decision"]["tier"] == "surface"
    assert by_id[None]["error"]["data"]["code"] == "limit_exceeded"
