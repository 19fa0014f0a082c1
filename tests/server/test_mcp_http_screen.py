"""``prooftext mcp --http`` screens each request body as the stdio transport screens each line: what the SDK
would drop silently or answer without a stable code gets the same coded answer on both transports."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp_types.version import LATEST_HANDSHAKE_VERSION

from helpers import MCP_INITIALIZE, serving_app
from prooftext.server import http
from prooftext.server.context import ServerContext
from prooftext.server.dispatcher import Dispatcher
from prooftext.server.mcp_server import create_mcp_server, screen_line

PATH = "/mcp"
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
SESSION = "mcp-session-id"
INITIALIZE = MCP_INITIALIZE
REFUSED = [
    '{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}',
    '{"jsonrpc": "2.0", "id": null, "method": "ping"}',
    '{"jsonrpc": "2.0", "id": 8, "id": 9, "method": "ping"}',
    '[{"jsonrpc": "2.0", "id": 5, "method": "ping"}, {"jsonrpc": "2.0", "id": 6, "method": "ping"}]',
    '{"jsonrpc": "2.0", "id": 4, "method": ',
    '{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": "x"}',
]


@contextmanager
def _running(app: Any) -> Iterator[str]:
    """Serve ``app`` on a free loopback port; yield its base URL."""
    with serving_app(app) as sock:
        yield http.url_of(sock, "")


@pytest.fixture
def mcp_url(sample_repo: Path) -> Iterator[str]:
    ctx = ServerContext.open(sample_repo, interface="mcp")
    try:
        with _running(create_mcp_server(Dispatcher(ctx)).http_app(PATH, "127.0.0.1")) as base:
            yield base + PATH
    finally:
        ctx.close()


def _message(reply: httpx.Response) -> Any:
    """The JSON-RPC message of a reply, sent as JSON or as the one event of a stream."""
    if reply.headers["content-type"].startswith("text/event-stream"):
        data = [line[5:] for line in reply.text.splitlines() if line.startswith("data:") and line[5:].strip()]
        return json.loads(data[-1])
    return reply.json()


def _session(client: httpx.Client, url: str, initialize: dict[str, Any]) -> tuple[dict[str, str], Any]:
    opened = client.post(url, json=initialize, headers=HEADERS)
    headers = {**HEADERS, SESSION: opened.headers[SESSION]}
    client.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
    return headers, _message(opened)


def test_every_body_stdio_refuses_is_refused_over_http_with_the_same_coded_error(mcp_url: str) -> None:
    with httpx.Client(timeout=30) as client:
        headers, _ = _session(client, mcp_url, INITIALIZE)
        replies = [client.post(mcp_url, content=body, headers=headers) for body in REFUSED]
        ping = client.post(mcp_url, json={"jsonrpc": "2.0", "id": 7, "method": "ping"}, headers=headers)
    for body, reply in zip(REFUSED, replies, strict=True):
        expected = screen_line(body)
        assert expected is not None
        assert reply.status_code == 400 and reply.headers["content-type"] == "application/json"
        assert reply.json() == {"jsonrpc": "2.0", "id": None, "error": expected.model_dump(exclude_none=True)}
    assert [r.json()["error"]["data"]["code"] for r in replies] == [
        "invalid_rpc_request",
        "invalid_rpc_request",
        "json_duplicate_key",
        "invalid_rpc_request",
        "json_syntax",
        "invalid_rpc_request",
    ]
    assert _message(ping) == {"jsonrpc": "2.0", "id": 7, "result": {}}


def test_errors_the_sdk_makes_over_http_carry_the_stable_code(mcp_url: str) -> None:
    unknown = {"jsonrpc": "2.0", "id": 2, "method": "nope"}
    bad_arguments = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": "map", "arguments": [1]},
    }
    with httpx.Client(timeout=30) as client:
        headers, _ = _session(client, mcp_url, INITIALIZE)
        replies = [_message(client.post(mcp_url, json=m, headers=headers)) for m in (unknown, bad_arguments)]
    assert [(r["error"]["code"], r["error"]["data"]) for r in replies] == [
        (-32601, {"code": "method_not_found"}),
        (-32602, {"code": "invalid_request", "field": "arguments"}),
    ]


def test_a_client_asking_for_the_batch_version_over_http_is_offered_the_latest(mcp_url: str) -> None:
    asking = {**INITIALIZE, "params": {**INITIALIZE["params"], "protocolVersion": "2025-03-26"}}
    with httpx.Client(timeout=30) as client:
        _, opened = _session(client, mcp_url, asking)
    assert opened["result"]["protocolVersion"] == LATEST_HANDSHAKE_VERSION


def test_the_transport_checks_still_come_first(mcp_url: str) -> None:
    """A cross-site request is refused by its headers, before its body is read."""
    with httpx.Client(timeout=30) as client:
        crossing = client.post(
            mcp_url, content=REFUSED[0], headers={**HEADERS, "Origin": "http://evil.example"}
        )
        plain = client.post(mcp_url, content=REFUSED[0], headers={**HEADERS, "Content-Type": "text/plain"})
    assert (crossing.status_code, plain.status_code) == (403, 400)
    assert crossing.json()["error"]["data"] == {"code": "unauthorized", "header": "origin"}
    assert plain.json()["error"]["data"] == {"code": "invalid_request", "field": "content-type"}
