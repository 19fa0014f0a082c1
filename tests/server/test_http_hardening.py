"""HTTP hardening against real uvicorn servers on loopback: slow clients, a busy port, non-ASCII tokens.

No test waits on the clock: a server is given a tiny read deadline and the client reads until the server
closes; socket timeouts only keep a failure from hanging.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from helpers import serving_app
from prooftext.cli import main
from prooftext.errors import ConfigError
from prooftext.server import http
from prooftext.server.context import ServerContext
from prooftext.server.dispatcher import Dispatcher
from prooftext.server.runner import Runner

HANG_GUARD_S = 20.0
"""Only bounds a read that would otherwise hang on a server that never closes (the old behaviour)."""
TINY_TIMEOUT_S = 0.05
LONG_TIMEOUT_S = 600.0
"""Longer than any test: partial connections stay open until the test closes them."""
SMALL_CAP = 3
EXIT_ERROR = 1
STATUS = {"jsonrpc": "2.0", "method": "index.status", "id": 1}
PARTIAL_HEAD = b"POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\n"
PARTIAL_BODY = b"POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"
TOKEN = "s\u00e9cret"


@contextmanager
def running(app: Any, **options: Any) -> Iterator[tuple[str, int]]:
    """Serve ``app`` on a free loopback port with ``make_server`` options; yield (host, port)."""
    with serving_app(app, **options) as sock:
        yield sock.getsockname()[:2]


@pytest.fixture
def rpc_app(ctx: ServerContext) -> Iterator[Any]:
    runner = Runner(Dispatcher(ctx))
    yield http.create_app(runner)
    runner.close()


def _connect(address: tuple[str, int], data: bytes = b"") -> socket.socket:
    conn = socket.create_connection(address, timeout=HANG_GUARD_S)
    if data:
        conn.sendall(data)
    return conn


def _until_closed(conn: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    chunks = []
    while data := conn.recv(65536):
        chunks.append(data)
    return b"".join(chunks)


def _request(body: dict[str, Any]) -> bytes:
    raw = json.dumps(body).encode()
    head = (
        "POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: close\r\n"
        f"Content-Length: {len(raw)}\r\n\r\n"
    )
    return head.encode() + raw


def _coded(response: bytes, status: bytes) -> dict[str, Any]:
    """The JSON-RPC error ``data`` of a raw response, which must have ``status`` and a JSON body."""
    head, _, body = response.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 " + status + b" ") and b"content-type: application/json" in head
    data: dict[str, Any] = json.loads(body)["error"]["data"]
    return data


@pytest.mark.parametrize("sent", [b"", PARTIAL_HEAD, PARTIAL_BODY], ids=["nothing", "headers", "body"])
def test_a_connection_that_does_not_send_its_whole_request_in_time_is_answered_408_and_closed(
    rpc_app: Any, sent: bytes
) -> None:
    with running(rpc_app, read_timeout_s=TINY_TIMEOUT_S) as address, _connect(address, sent) as conn:
        data = _coded(_until_closed(conn), b"408")
    assert data == {"code": "limit_exceeded", "reason": "read_timeout", "limit_ms": 50}


def test_clients_are_served_beside_partial_requests_and_a_connection_past_the_cap_is_answered_503(
    rpc_app: Any,
) -> None:
    options = {"read_timeout_s": LONG_TIMEOUT_S, "max_connections": SMALL_CAP}
    with running(rpc_app, **options) as address:
        stalled = [_connect(address, PARTIAL_HEAD) for _ in range(SMALL_CAP - 1)]
        try:
            with _connect(address, _request(STATUS)) as client:
                head, _, body = _until_closed(client).partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 200 ") and json.loads(body)["result"]["fresh"] is True
            stalled.append(_connect(address, PARTIAL_HEAD))  # now every connection allowed is taken
            with _connect(address) as refused:
                answer = _until_closed(refused)
            assert b"\r\nretry-after: 1\r\n" in answer.partition(b"\r\n\r\n")[0].lower()
            assert _coded(answer, b"503") == {
                "code": "limit_exceeded",
                "reason": "connections",
                "limit": SMALL_CAP,
                "retry_after_ms": 1000,
            }
        finally:
            for conn in stalled:
                conn.close()


@pytest.mark.parametrize(
    "sent",
    [
        b"NOT AN HTTP REQUEST\r\n\r\n",
        b"POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nno colon in this header\r\n\r\n",
        b"POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n\r\nnot a chunk size\r\n",
    ],
    ids=["request-line", "header", "chunk"],
)
def test_bytes_that_are_not_an_http_request_are_answered_400_with_a_coded_json_rpc_error(
    rpc_app: Any, sent: bytes
) -> None:
    with running(rpc_app) as address, _connect(address, sent) as conn:
        data = _coded(_until_closed(conn), b"400")
    assert data == {"code": "invalid_request", "field": "http_request"}


class Lingering:
    """An app whose every request is answered at once and then runs on (as a background task does) until
    released: a request still running whose client has its answer."""

    def __init__(self) -> None:
        self.release = threading.Event()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
        await send({"type": "http.response.body", "body": b"ok"})
        await asyncio.to_thread(self.release.wait, HANG_GUARD_S)


def _reply(conn: socket.socket) -> tuple[bytes, bytes]:
    """One whole response (with a Content-Length) read from a kept-alive connection: its head and body."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += conn.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        int(v)
        for k, _, v in (h.partition(b": ") for h in head.split(b"\r\n"))
        if k.lower() == b"content-length"
    )
    while len(body) < length:
        body += conn.recv(65536)
    return head, body


def test_a_request_past_the_most_running_at_once_is_answered_503_busy_with_a_retry_hint() -> None:
    app = Lingering()
    get = b"GET /held HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    with running(app, max_connections=1) as address:
        try:
            with _connect(address, get) as conn:
                first = _reply(conn)  # answered, and still running
                conn.sendall(get)
                head, body = _reply(conn)
        finally:
            app.release.set()  # before the server stops: it waits for every request running
    assert first[0].startswith(b"HTTP/1.1 200 ") and first[1] == b"ok"
    assert head.startswith(b"HTTP/1.1 503 ") and b"\r\nretry-after: 1" in head.lower()
    assert b"content-type: application/json" in head
    assert json.loads(body)["error"]["data"] == {
        "code": "limit_exceeded",
        "reason": "busy",
        "limit": 1,
        "retry_after_ms": 1000,
    }


def test_a_port_in_use_is_a_coded_configuration_error_that_exits_1(
    sample_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    importlib.import_module("prooftext.cli.serve")
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        with pytest.raises(ConfigError) as raised:
            http.bind("127.0.0.1", port)
        assert raised.value.details["port"] == port
        for command in ("serve", "mcp"):
            argv = [command, "--http", "--port", str(port), "--root", str(sample_repo), "--no-warm", "--json"]
            status = main(argv)
            error = json.loads(capsys.readouterr().out)["error"]
            assert status == EXIT_ERROR and error["code"] == "config_invalid"
            assert error["details"]["port"] == port and str(port) in error["message"]


def test_a_non_ascii_token_matches_its_utf8_bytes_and_not_their_latin1_reading(ctx: ServerContext) -> None:
    utf8, latin1 = f"Bearer {TOKEN}".encode(), f"Bearer {TOKEN}".encode("latin-1")
    assert http.authorized(utf8, TOKEN) and not http.authorized(latin1, TOKEN)
    runner = Runner(Dispatcher(ctx))
    apps = [http.create_app(runner, TOKEN), http.BearerGuard(http.create_app(runner), TOKEN)]
    try:
        for app in apps:
            with running(app) as (host, port), httpx.Client(base_url=f"http://{host}:{port}") as client:
                right = client.post("/rpc", json=STATUS, headers={"Authorization": utf8})
                assert right.status_code == 200 and right.json()["result"]["fresh"] is True
                assert client.post("/rpc", json=STATUS, headers={"Authorization": latin1}).status_code == 401
    finally:
        runner.close()
