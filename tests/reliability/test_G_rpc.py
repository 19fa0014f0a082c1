"""Catalogue G: JSON-RPC 2.0 and MCP on loopback (and D16, the 64 MiB request line).

The dispatcher is exercised in-process for the specification's section 7 cases; the transports run as real
``prooftext serve`` / ``prooftext mcp`` subprocesses for framing, disconnects and the MCP lifecycle. Reads
from a child are bounded with ``select`` timeouts (a bound, never a pacing sleep).
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import PYTHON, REPO, Cli, Figure, error_code
from .fakes import fake_secrets

context_module = pytest.importorskip("prooftext.server.context")
dispatcher_module = pytest.importorskip("prooftext.server.dispatcher")
methods_module = pytest.importorskip("prooftext.server.methods")

SERVE = "import prooftext.cli.serve; from prooftext.cli import main; main()"
READ_BOUND_S = 60.0


@pytest.fixture
def dispatcher(indexed: Path) -> Iterator[Any]:
    ctx = context_module.ServerContext.open(indexed, context_module.Limits(), "rpc")
    try:
        yield dispatcher_module.Dispatcher(ctx)
    finally:
        ctx.close()


def send(dispatcher: Any, message: Any) -> Any:
    payload = message if isinstance(message, bytes) else json.dumps(message).encode()
    reply = dispatcher.handle(payload)
    return None if reply is None else json.loads(reply)


def req(method: str, params: Any = None, id: Any = 1) -> dict[str, Any]:
    out: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "id": id}
    if params is not None:
        out["params"] = params
    return out


@pytest.mark.parametrize(
    "payload", [b'{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]', b"\xff", b"[1,"]
)
def test_G01_invalid_json_is_a_parse_error_with_a_null_id(
    dispatcher: Any, payload: bytes, figure: Figure
) -> None:
    reply = send(dispatcher, payload)
    figure("bad_inputs_tried", 1)
    figure("rpc_internal_errors", int(reply["error"]["code"] == -32603))
    assert reply["error"]["code"] == -32700 and reply["id"] is None


def test_G02_a_non_string_method_is_an_invalid_request(dispatcher: Any) -> None:
    reply = send(dispatcher, {"jsonrpc": "2.0", "method": 1, "params": "bar"})
    assert reply["error"]["code"] == -32600 and reply["id"] is None


def test_G03_an_unknown_method_is_method_not_found_with_the_same_id(dispatcher: Any) -> None:
    reply = send(dispatcher, req("foobar", id="abc"))
    assert reply["error"]["code"] == -32601 and reply["id"] == "abc"


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"query": 5},
        {"query": "x", "max_tokens": "many"},
        {"query": "x", "max_tokens": 1.5},
        {"query": "x", "extra": 1},
    ],
)
def test_G04_bad_params_are_invalid_params(dispatcher: Any, params: dict[str, Any], figure: Figure) -> None:
    reply = send(dispatcher, req("context.pack", params))
    figure("bad_inputs_tried", 1)
    figure("rpc_internal_errors", int(reply["error"]["code"] == -32603))
    assert reply["error"]["code"] == -32602 and reply["id"] == 1


def test_G05_a_raising_handler_is_an_internal_error_without_traceback_or_secrets(
    indexed: Path, figure: Figure
) -> None:
    secret = fake_secrets()["github-token"]

    def explode(ctx: Any, params: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError(f"boom with {secret}")

    methods = {
        **methods_module.METHODS,
        "test.explode": methods_module.Method("test.explode", explode, published=False),
    }
    ctx = context_module.ServerContext.open(indexed, context_module.Limits(), "rpc")
    try:
        dispatcher = dispatcher_module.Dispatcher(ctx, methods=methods)
        raw = dispatcher.handle(json.dumps(req("test.explode")).encode())
        after = send(dispatcher, req("index.status", id=2))
    finally:
        ctx.close()
    reply = json.loads(raw)
    figure("secret_leaks", raw.decode().count(secret))
    assert reply["error"]["code"] == -32603 and reply["id"] == 1
    assert secret.encode() not in raw and b"Traceback" not in raw and b"boom" not in raw
    assert "result" in after  # the server keeps serving


@pytest.mark.parametrize(
    "message",
    [
        {"jsonrpc": "2.0", "method": "index.status"},
        {"jsonrpc": "2.0", "method": "no.such.method"},
        {"jsonrpc": "2.0", "method": "context.pack", "params": {"query": 5}},
    ],
)
def test_G06_notifications_get_no_response_even_when_invalid(
    dispatcher: Any, message: dict[str, Any]
) -> None:
    assert send(dispatcher, message) is None


def test_G07_batches_follow_the_specification(dispatcher: Any) -> None:
    empty = send(dispatcher, b"[]")
    assert empty["error"]["code"] == -32600 and empty["id"] is None
    one = send(dispatcher, b"[1]")
    assert [r["error"]["code"] for r in one] == [-32600]
    three = send(dispatcher, b"[1,2,3]")
    assert [r["error"]["code"] for r in three] == [-32600] * 3
    assert send(dispatcher, [{"jsonrpc": "2.0", "method": "index.status"}] * 2) is None
    mixed = send(
        dispatcher,
        [req("index.status", id=1), {"jsonrpc": "2.0", "method": "index.status"}, req("nope", id=3)],
    )
    assert sorted(r["id"] for r in mixed) == [1, 3]


@pytest.mark.parametrize("bad_id", [1.5, {"a": 1}, [1], True])
def test_G08_float_object_array_or_boolean_ids_are_invalid_requests(dispatcher: Any, bad_id: Any) -> None:
    reply = send(dispatcher, req("index.status", id=bad_id))
    assert reply["error"]["code"] == -32600


@pytest.mark.parametrize("version", [None, "1.0", 2.0, "2"])
def test_G09_a_missing_or_wrong_jsonrpc_version_is_an_invalid_request(dispatcher: Any, version: Any) -> None:
    message: dict[str, Any] = {"method": "index.status", "id": 1}
    if version is not None:
        message["jsonrpc"] = version
    assert send(dispatcher, message)["error"]["code"] == -32600


LOCATOR_CASES = ["../x", "/etc/passwd", "a.py\0.md", "a//b", "a\\..\\b", "modeling"]


@pytest.mark.parametrize("loc", LOCATOR_CASES)
def test_G12_locator_errors_through_rpc_have_the_cli_error_code(
    dispatcher: Any, indexed: Path, cli: Cli, loc: str
) -> None:
    reply = send(dispatcher, req("context.pack", {"query": "separability", "required": [loc]}))
    status, out, _ = cli("pack", "separability", "--root", indexed, "--require", loc, "--json")
    assert status != 0
    assert reply["error"]["code"] != -32603
    assert reply["error"]["data"]["code"] == error_code(out)


# --- transports ------------------------------------------------------------------------------------------


class Child:
    """A server subprocess; lines are read from the raw descriptors with a bound, through our own buffer
    (a buffered reader can hold a second line that ``select`` then never reports)."""

    def __init__(self, *argv: str) -> None:
        env = {**os.environ, "PYTHONPATH": str(REPO / "tests")}
        self.proc = subprocess.Popen(
            [PYTHON, "-c", SERVE, *argv],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            start_new_session=True,
            bufsize=0,
        )
        self._buffers: dict[int, bytearray] = {}

    def write(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def line(self, stream: Any = None, bound: float = READ_BOUND_S) -> bytes | None:
        """The next line of ``stream`` (stdout by default), or None when none arrives within ``bound``."""
        stream = stream or self.proc.stdout
        fd = stream.fileno()
        buffer = self._buffers.setdefault(fd, bytearray())
        deadline = time.monotonic() + bound
        while b"\n" not in buffer:
            remaining = deadline - time.monotonic()
            ready, _, _ = select.select([fd], [], [], max(0.0, remaining))
            if not ready:
                return None
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            buffer.extend(chunk)
        if b"\n" not in buffer:
            data, buffer[:] = bytes(buffer), b""
            return data or None
        end = buffer.index(b"\n") + 1
        data = bytes(buffer[:end])
        del buffer[:end]
        return data

    def rest(self) -> bytes:
        """Everything left on stdout after the child exited."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        data = bytes(self._buffers.pop(fd, b""))
        while chunk := os.read(fd, 1 << 16):
            data += chunk
        return data

    def close(self) -> int:
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=READ_BOUND_S)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)


@pytest.fixture(scope="module")
def stdio_session(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One ``prooftext serve --stdio`` conversation: a 64 MiB line, a reused id, a partial frame, EOF."""
    root = tmp_path_factory.mktemp("stdio") / "repo"
    from helpers import SAMPLE_FILES

    from .conftest import write_tree

    write_tree(root, dict(SAMPLE_FILES))
    child = Child("serve", "--stdio", "--root", str(root), "--no-warm", "--max-body-bytes", str(1 << 20))
    out: dict[str, Any] = {}
    try:
        chunk = b"x" * (1 << 20)
        for _ in range(64):  # 64 MiB in one line, written in pieces
            child.write(chunk)
        child.write(b"\n")
        out["oversize"] = json.loads(child.line() or b"null")
        child.write(json.dumps(req("index.status", id=9)).encode() + b"\n")
        out["after_oversize"] = json.loads(child.line() or b"null")
        first = req("depth.classify", {"text": "hi"}, id=7)
        second = req("index.status", {}, id=7)
        child.write(json.dumps(first).encode() + b"\n" + json.dumps(second).encode() + b"\n")
        out["same_id"] = [json.loads(child.line() or b"null") for _ in range(2)]
        child.write(json.dumps(req("index.status", id=1)).encode() + b"\n")
        child.write(b'{"jsonrpc":"2.0","id":2,"method":"index.st')  # no newline, then EOF
        out["before_eof"] = json.loads(child.line() or b"null")
        out["exit"] = child.close()
        out["rest"] = child.rest()
        out["stderr"] = child.proc.stderr.read() if child.proc.stderr else b""
    finally:
        child.close()
    return out


def test_G10_D16_an_oversized_line_is_refused_unread_and_the_server_keeps_serving(
    stdio_session: dict[str, Any],
) -> None:
    refused = stdio_session["oversize"]
    assert refused["error"]["data"]["code"] == "limit_exceeded" and refused["id"] is None
    assert stdio_session["after_oversize"]["id"] == 9 and "result" in stdio_session["after_oversize"]


def test_G10_a_partial_frame_then_eof_ends_cleanly(stdio_session: dict[str, Any]) -> None:
    assert stdio_session["before_eof"]["id"] == 1
    assert stdio_session["exit"] == 0
    for line in stdio_session["rest"].splitlines():
        assert json.loads(line)["error"]["code"] == -32700  # the fragment, if answered, is a parse error
    assert b"Traceback" not in stdio_session["stderr"]


def test_G14_the_same_id_reused_concurrently_is_answered_twice_never_crossed(
    stdio_session: dict[str, Any],
) -> None:
    replies = stdio_session["same_id"]
    assert [r["id"] for r in replies] == [7, 7]
    kinds = sorted("tier" in json.dumps(r["result"]) for r in replies)
    assert kinds == [False, True]  # one classify result, one status result


def test_G13_a_client_disconnecting_mid_request_leaves_the_http_server_up(indexed: Path) -> None:
    child = Child("serve", "--http", "--port", "0", "--root", str(indexed), "--no-warm")
    try:
        banner = (child.line(child.proc.stderr) or b"").decode()
        assert "listening on http://" in banner
        host_port = banner.split("http://", 1)[1].split("/", 1)[0]
        host, port = host_port.rsplit(":", 1)
        body = json.dumps(req("context.adaptive", {"query": "separability matrix"})).encode()
        head = f"POST /rpc HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        for _ in range(1):
            sock = socket.create_connection((host, int(port)), timeout=READ_BOUND_S)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            sock.sendall(head.encode() + body)
            sock.close()  # reset before the response
        with socket.create_connection((host, int(port)), timeout=READ_BOUND_S) as sock:
            status = json.dumps(req("index.status", id=5)).encode()
            sock.sendall(
                f"POST /rpc HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {len(status)}\r\nConnection: close\r\n\r\n".encode()
                + status
            )
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
        assert data.startswith(b"HTTP/1.1 200") and b'"id":5' in data
        assert child.proc.poll() is None
    finally:
        child.proc.send_signal(signal.SIGTERM)
        child.close()


# --- MCP ---------------------------------------------------------------------------------------------------

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "reliability", "version": "1"},
    },
}


@pytest.fixture(scope="module")
def mcp_session(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One ``prooftext mcp`` stdio conversation; each reply is matched by the id that follows it."""
    root = tmp_path_factory.mktemp("mcp") / "repo"
    from helpers import SAMPLE_FILES

    from .conftest import write_tree

    write_tree(root, dict(SAMPLE_FILES))
    child = Child("mcp", "--root", str(root), "--no-warm")
    out: dict[str, Any] = {}

    def ask(message: Any) -> Any:
        child.write((message if isinstance(message, bytes) else json.dumps(message).encode()) + b"\n")
        line = child.line()
        return None if line is None else json.loads(line)

    try:
        out["early"] = ask({"jsonrpc": "2.0", "id": 0, "method": "tools/list"})
        out["init"] = ask(INIT)
        child.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode() + b"\n")
        call = {"name": "context", "arguments": {"query": 5}}
        out["bad_args"] = ask({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})
        unknown = {"name": "nope", "arguments": {}}
        out["unknown_tool"] = ask({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": unknown})
        # Each hostile frame is followed by a valid request: the replies show whether it was answered.
        child.write(b"{not json\n")
        child.write(json.dumps({"jsonrpc": "2.0", "id": 4, "method": "tools/list"}).encode() + b"\n")
        out["after_invalid_json"] = [json.loads(child.line() or b"null") for _ in range(2)]
        child.write(json.dumps([{"jsonrpc": "2.0", "id": 5, "method": "tools/list"}]).encode() + b"\n")
        child.write(json.dumps({"jsonrpc": "2.0", "id": 6, "method": "tools/list"}).encode() + b"\n")
        out["after_batch"] = [json.loads(child.line() or b"null") for _ in range(2)]
    finally:
        child.close()
    return out


def test_G11_an_mcp_request_before_initialize_is_a_protocol_error(mcp_session: dict[str, Any]) -> None:
    assert mcp_session["early"]["id"] == 0 and "error" in mcp_session["early"]
    assert "result" in mcp_session["init"]


def test_G04_mcp_bad_arguments_are_tool_errors_and_an_unknown_tool_is_a_protocol_error(
    mcp_session: dict[str, Any],
) -> None:
    assert mcp_session["bad_args"]["result"]["isError"] is True
    assert mcp_session["unknown_tool"]["error"]["code"] == -32602


def test_G07_an_mcp_batch_is_rejected_and_the_server_keeps_serving(mcp_session: dict[str, Any]) -> None:
    rejected, after = mcp_session["after_batch"]
    assert rejected["id"] is None and rejected["error"]["code"] == -32600  # MCP >= 2025-06-18: no batches
    assert after["id"] == 6 and "result" in after


def test_G01_mcp_answers_invalid_json_with_a_parse_error(mcp_session: dict[str, Any]) -> None:
    error, after = mcp_session["after_invalid_json"]
    assert error["id"] is None and error["error"]["code"] == -32700
    assert after["id"] == 4 and "result" in after


def test_G05_rpc_work_runs_in_threads_and_concurrent_errors_stay_separate(dispatcher: Any) -> None:
    results: dict[int, Any] = {}

    def call(i: int) -> None:
        message = req("context.pack", {"query": "separability"} if i % 2 else {"query": 5}, id=i)
        results[i] = send(dispatcher, message)

    threads = [threading.Thread(target=call, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for i, reply in results.items():
        assert reply["id"] == i and (("result" in reply) if i % 2 else reply["error"]["code"] == -32602)
