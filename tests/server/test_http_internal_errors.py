"""A failure inside an HTTP server's app (a bug) reaches the client as the JSON-RPC internal error, status
500, with its stable code and no traceback, on ``prooftext serve --http`` and ``prooftext mcp --http``
alike, and a response already under way is never answered a second time."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import httpx
import pytest
from starlette.types import Receive, Scope, Send

from helpers import MCP_INITIALIZE, serving_app
from prooftext.server import http, mcp_server
from prooftext.server.context import ServerContext
from prooftext.server.dispatcher import Dispatcher
from prooftext.server.runner import Runner

SECRET = "a detail only the server may know"
STATUS = {"jsonrpc": "2.0", "id": 1, "method": "index.status"}
SEARCH = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {"name": "search", "arguments": {"query": "separability"}},
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
HANG_GUARD_S = 20.0
"""Only bounds a read that would otherwise hang."""


def _raise(*args: Any, **kwargs: Any) -> NoReturn:
    raise RuntimeError(SECRET)


def _internal(reply: httpx.Response) -> None:
    """``reply`` is the coded internal error: 500, a JSON body, nothing of the exception in it."""
    assert reply.status_code == 500
    assert reply.headers["content-type"] == "application/json"
    assert reply.json() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32603, "message": "internal error", "data": {"code": "internal_error"}},
    }
    assert SECRET not in reply.text and "Traceback" not in reply.text


@pytest.fixture
def dispatcher_and_url(ctx: ServerContext) -> Iterator[tuple[Dispatcher, str]]:
    dispatcher = Dispatcher(ctx)
    runner = Runner(dispatcher)
    try:
        with serving_app(http.create_app(runner)) as sock:
            yield dispatcher, http.url_of(sock, "/rpc")
    finally:
        runner.close()


def test_a_json_rpc_request_whose_handling_raises_is_answered_with_the_coded_internal_error(
    dispatcher_and_url: tuple[Dispatcher, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    dispatcher, url = dispatcher_and_url
    monkeypatch.setattr(dispatcher, "handle", _raise)
    with httpx.Client(timeout=HANG_GUARD_S) as client:
        _internal(client.post(url, json=STATUS))
        monkeypatch.undo()
        assert "result" in client.post(url, json=STATUS).json()  # the server goes on serving


def test_an_mcp_request_whose_screening_raises_is_answered_with_the_coded_internal_error(
    sample_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ctx = ServerContext.open(sample_repo, interface="mcp")
    try:
        server = mcp_server.create_mcp_server(Dispatcher(ctx))
        app = http.BearerGuard(server.http_app("/mcp", "127.0.0.1"), None)
        with serving_app(app) as sock, httpx.Client(timeout=HANG_GUARD_S) as client:
            monkeypatch.setattr(mcp_server, "_screen", _raise)
            _internal(client.post(http.url_of(sock, "/mcp"), json=MCP_INITIALIZE, headers=MCP_HEADERS))
    finally:
        ctx.close()


async def _silent(scope: Scope, receive: Receive, send: Send) -> None:
    """An app that returns without answering."""


async def _raises_midway(scope: Scope, receive: Receive, send: Send) -> None:
    """An app that fails after its answer has begun."""
    headers = [(b"content-type", b"application/json"), (b"content-length", b"100")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": b'{"partial":', "more_body": True})
    raise RuntimeError(SECRET)


def test_an_app_that_returns_without_answering_is_answered_with_the_coded_internal_error() -> None:
    with serving_app(_silent) as sock:
        _internal(httpx.get(http.url_of(sock, "/anything"), timeout=HANG_GUARD_S))


def test_a_failure_after_the_answer_has_begun_closes_the_connection_without_a_second_answer() -> None:
    with (
        serving_app(_raises_midway) as sock,
        socket.create_connection(sock.getsockname()[:2], timeout=HANG_GUARD_S) as conn,
    ):
        conn.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        received = b""
        while data := conn.recv(65536):
            received += data
    head, _, body = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 ") and body == b'{"partial":'
    assert received.count(b"HTTP/1.1") == 1 and SECRET.encode() not in received


def test_a_plain_text_server_error_of_the_app_is_replaced_by_the_coded_internal_error() -> None:
    async def plain(scope: Scope, receive: Receive, send: Send) -> None:
        headers = [(b"content-type", b"text/plain; charset=utf-8")]
        await send({"type": "http.response.start", "status": 500, "headers": headers})
        await send({"type": "http.response.body", "body": b"Internal Server Error"})

    with serving_app(plain) as sock:
        _internal(httpx.get(http.url_of(sock, "/"), timeout=HANG_GUARD_S))


def test_a_coded_server_error_of_the_app_passes_unchanged() -> None:
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 7,
            "error": {"code": -32015, "message": "busy", "data": {"code": "limit_exceeded"}},
        }
    ).encode()

    async def coded(scope: Scope, receive: Receive, send: Send) -> None:
        headers = [(b"content-type", b"application/json"), (b"retry-after", b"1")]
        await send({"type": "http.response.start", "status": 503, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    with serving_app(coded) as sock:
        reply = httpx.get(http.url_of(sock, "/"), timeout=HANG_GUARD_S)
    assert (reply.status_code, reply.headers["retry-after"], reply.content) == (503, "1", body)


def test_a_tool_whose_result_cannot_be_shaped_answers_the_coded_internal_error_over_http(
    sample_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(mcp_server, "ok_result", _raise)
    ctx = ServerContext.open(sample_repo, interface="mcp")
    try:
        server = mcp_server.create_mcp_server(Dispatcher(ctx))
        app = http.BearerGuard(server.http_app("/mcp", "127.0.0.1"), None)
        with serving_app(app) as sock, httpx.Client(timeout=HANG_GUARD_S) as client:
            url = http.url_of(sock, "/mcp")
            opened = client.post(url, json=MCP_INITIALIZE, headers=MCP_HEADERS)
            headers = {**MCP_HEADERS, "mcp-session-id": opened.headers["mcp-session-id"]}
            client.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
            reply = client.post(url, json=SEARCH, headers=headers)
    finally:
        ctx.close()
    assert SECRET not in reply.text and "Traceback" not in reply.text
    result = _sse_message(reply.text)["result"]
    assert result["isError"] is True
    assert json.loads(result["content"][0]["text"])["error"]["data"] == {"code": "internal_error"}


def _sse_message(text: str) -> Any:
    """The one JSON-RPC message of a server-sent-events answer."""
    (data,) = [line[len("data: ") :] for line in text.splitlines() if line.startswith("data: ")]
    return json.loads(data)
