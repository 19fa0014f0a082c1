"""``prooftext mcp`` on stdio answers every line it cannot serve, as the JSON-RPC server does: an invalid
message with ``-32600`` and a line that is not UTF-8 with ``-32700``, never dropping or altering it; and a
stdout it cannot write is one coded error with exit status 4."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp_types.version import LATEST_HANDSHAKE_VERSION

from helpers import MCP_INITIALIZE
from prooftext.cli.common import EXIT_IO
from prooftext.server.limits import DEFAULT_MAX_BODY_BYTES
from prooftext.server.mcp_server import screen_line, stdin_lines

BOOTSTRAP = "import prooftext.cli.serve; from prooftext.cli import main; main()"
HANG_GUARD_S = 300
"""Fails the test instead of hanging it should the server never exit; never reached when it works."""
INITIALIZE = MCP_INITIALIZE
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
INVALID = [
    '{"id": 11, "method": "tools/list"}',
    '{"jsonrpc": "2.0", "id": 10.5, "method": "tools/list"}',
    '{"jsonrpc": "2.0", "id": true, "method": "tools/list"}',
    '{"jsonrpc": "2.0", "id": null, "method": "ping"}',
    '{"jsonrpc": "2.0", "id": 8}',
    '{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": "x"}',
]
NOT_UTF8 = (
    b'{"jsonrpc": "2.0", "id": 4, "method": "tools/call", '
    b'"params": {"name": "add_memory", "arguments": {"kind": "discovery", "text": "caf\xe9"}}}'
)
PING = {"jsonrpc": "2.0", "id": 5, "method": "ping"}
UNWRITABLE = "prooftext: error [output_unwritable]: cannot write to standard output: {reason}\n"


def _lines(*messages: dict[str, Any] | str | bytes) -> bytes:
    def raw(m: dict[str, Any] | str | bytes) -> bytes:
        return m if isinstance(m, bytes) else (m if isinstance(m, str) else json.dumps(m)).encode()

    return b"".join(raw(m) + b"\n" for m in messages)


def _command(root: Path) -> list[str]:
    return [sys.executable, "-c", BOOTSTRAP, "mcp", "--root", str(root), "--no-warm"]


@pytest.mark.parametrize("line", INVALID)
def test_a_json_object_that_is_no_json_rpc_message_is_an_invalid_request(line: str) -> None:
    error = screen_line(line)
    assert error is not None and error.code == -32600
    assert error.data == {"code": "invalid_rpc_request"}


def test_a_json_rpc_response_and_an_error_answering_an_unreadable_id_pass_the_screen() -> None:
    assert screen_line('{"jsonrpc": "2.0", "id": "7", "result": {}}') is None
    assert screen_line('{"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "x"}}') is None


def test_every_line_the_sdk_would_drop_or_alter_is_answered_with_id_null_and_serving_goes_on(
    sample_repo: Path,
) -> None:
    payload = _lines(INITIALIZE, INITIALIZED, *INVALID, NOT_UTF8, PING)
    done = subprocess.run(
        _command(sample_repo), input=payload, capture_output=True, timeout=HANG_GUARD_S, check=False
    )
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    refused = [r["error"] for r in replies if r["id"] is None]
    assert done.returncode == 0
    assert sorted(r["id"] for r in replies if r["id"] is not None) == [1, 5]
    assert [e["code"] for e in refused] == [-32600] * len(INVALID) + [-32700]
    assert refused[-1]["data"] == {"code": "json_encoding"}


def test_a_call_with_an_integer_beyond_2_53_in_its_arguments_is_a_tool_error_under_its_id_naming_it(
    sample_repo: Path,
) -> None:
    big = (
        b'{"jsonrpc": "2.0", "id": 6, "method": "tools/call", '
        b'"params": {"name": "context", "arguments": {"query": "x", "max_tokens": 100000000000000000}}}'
    )
    payload = _lines(INITIALIZE, INITIALIZED, big, PING)
    done = subprocess.run(
        _command(sample_repo), input=payload, capture_output=True, timeout=HANG_GUARD_S, check=False
    )
    replies = {r["id"]: r for r in (json.loads(line) for line in done.stdout.splitlines())}
    assert done.returncode == 0 and sorted(replies) == [1, 5, 6]
    result = replies[6]["result"]  # an input validation error is the tool's, as for a number sent as a string
    error = json.loads(result["content"][0]["text"])["error"]
    assert result["isError"] is True and error["code"] == -32602
    assert error["data"] == {"code": "json_integer_range", "field": "max_tokens"}


def test_errors_the_sdk_answers_by_itself_carry_a_stable_code_and_say_what_is_wrong(
    sample_repo: Path,
) -> None:
    """A call before ``initialize``, an unknown or unserved method, params the SDK's models refuse."""
    early = {"jsonrpc": "2.0", "id": 0, "method": "tools/list"}
    unknown = {"jsonrpc": "2.0", "id": 2, "method": "nope"}
    bad_arguments = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": "context", "arguments": "x"},
    }
    unserved = {"jsonrpc": "2.0", "id": 4, "method": "completion/complete"}
    bad_cursor = {"jsonrpc": "2.0", "id": 6, "method": "tools/list", "params": {"cursor": 123}}
    payload = _lines(early, INITIALIZE, INITIALIZED, unknown, bad_arguments, unserved, bad_cursor, PING)
    done = subprocess.run(
        _command(sample_repo), input=payload, capture_output=True, timeout=HANG_GUARD_S, check=False
    )
    errors = {r["id"]: r["error"] for r in map(json.loads, done.stdout.splitlines()) if "error" in r}
    assert done.returncode == 0 and sorted(errors) == [0, 2, 3, 4, 6]
    assert {i: (e["code"], e["message"], e["data"]) for i, e in errors.items()} == {
        0: (
            -32602,
            "not initialized: send initialize first",
            {"code": "invalid_request", "field": "method"},
        ),
        2: (-32601, "method not found: nope", {"code": "method_not_found"}),
        3: (
            -32602,
            "invalid params: arguments: Input should be a valid dictionary",
            {"code": "invalid_request", "field": "arguments"},
        ),
        4: (-32601, "method not found: completion/complete", {"code": "method_not_found"}),
        6: (
            -32602,
            "invalid params: cursor: Input should be a valid string",
            {"code": "invalid_request", "field": "cursor"},
        ),
    }


def test_a_stdin_line_over_the_limit_stands_as_one_coded_refusal_and_the_next_line_is_read() -> None:
    stream = io.BytesIO(b"x" * 100 + b"\n" + b"y" * 10 + b"\r\n" + b'{"a": 1}\n')

    async def read() -> list[Any]:
        return [line async for line in stdin_lines(stream, limit=10)]

    first, second, third = anyio.run(read)
    assert not isinstance(first, str) and first.id is None
    assert first.error.code == -32015
    assert first.error.message == "a request line is limited to 10 bytes"
    assert first.error.data == {"code": "limit_exceeded", "limit": 10}
    assert (second, third) == ("y" * 10 + "\r\n", '{"a": 1}\n')


def test_a_line_longer_than_serve_stdio_accepts_is_answered_limit_exceeded_and_serving_goes_on(
    sample_repo: Path,
) -> None:
    huge = {"jsonrpc": "2.0", "id": 6, "method": "ping", "params": {"pad": "x" * DEFAULT_MAX_BODY_BYTES}}
    payload = _lines(INITIALIZE, INITIALIZED, huge, PING)
    done = subprocess.run(
        _command(sample_repo), input=payload, capture_output=True, timeout=HANG_GUARD_S, check=False
    )
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.returncode == 0
    assert [r["id"] for r in replies if "result" in r] == [1, 5]
    [refused] = [r for r in replies if "error" in r]
    assert refused["id"] is None and refused["error"]["code"] == -32015
    assert refused["error"]["data"] == {"code": "limit_exceeded", "limit": DEFAULT_MAX_BODY_BYTES}


@pytest.mark.parametrize(
    ("asked", "agreed"), [("2025-03-26", LATEST_HANDSHAKE_VERSION), ("2024-11-05", "2024-11-05")]
)
def test_a_protocol_version_that_has_batches_is_not_agreed_to_and_a_batch_is_refused(
    sample_repo: Path, asked: str, agreed: str
) -> None:
    """2025-03-26 requires accepting batches, which the server does not serve: it offers its latest version."""
    initialize = {**INITIALIZE, "params": {**INITIALIZE["params"], "protocolVersion": asked}}
    batch = [PING, {**PING, "id": 6}]
    payload = _lines(initialize, INITIALIZED, json.dumps(batch), PING)
    done = subprocess.run(
        _command(sample_repo), input=payload, capture_output=True, timeout=HANG_GUARD_S, check=False
    )
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.returncode == 0
    assert replies[0]["result"]["protocolVersion"] == agreed
    assert replies[1] == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {
            "code": -32600,
            "message": "invalid request: MCP has no batches",
            "data": {"code": "invalid_rpc_request"},
        },
    }
    assert replies[2] == {"jsonrpc": "2.0", "id": 5, "result": {}}


def test_a_line_that_is_not_utf8_records_nothing(sample_repo: Path) -> None:
    payload = _lines(INITIALIZE, INITIALIZED, NOT_UTF8)
    subprocess.run(
        _command(sample_repo), input=payload, capture_output=True, timeout=HANG_GUARD_S, check=True
    )
    listed = subprocess.run(
        [sys.executable, "-m", "prooftext", "memory", "list", "--root", str(sample_repo), "--json"],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        check=True,
    )
    assert "caf" not in listed.stdout


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="/dev/full does not exist on this system")
def test_an_answer_written_to_a_full_device_is_one_coded_error_and_exit_4(sample_repo: Path) -> None:
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            _command(sample_repo),
            input=_lines(INITIALIZE),
            stdout=full,
            stderr=subprocess.PIPE,
            timeout=HANG_GUARD_S,
            check=False,
        )
    assert done.returncode == EXIT_IO
    assert done.stderr.decode() == UNWRITABLE.format(reason="No space left on device")


def test_an_answer_written_to_a_closed_pipe_is_one_coded_error_and_exit_4(sample_repo: Path) -> None:
    process = subprocess.Popen(
        _command(sample_repo), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdout is not None
    process.stdout.close()  # the client stopped reading before the answer
    _, stderr = process.communicate(_lines(INITIALIZE), timeout=HANG_GUARD_S)
    assert process.returncode == EXIT_IO
    assert stderr.decode() == UNWRITABLE.format(reason="Broken pipe")
