"""``prooftext mcp --http`` refuses at the HTTP level as ``prooftext serve --http`` does: whatever the SDK's
transport refuses (a header, a session, a body, a path, one session too many), the answer is a JSON-RPC
error with the stable code in ``data.code``, under the SDK's status."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from helpers import MCP_HEADERS, MCP_INITIALIZE, MCP_PATH, MCP_SESSION, mcp_session, served_mcp
from prooftext.server.limits import DEFAULT_MAX_BODY_BYTES

PATH, HEADERS, SESSION = MCP_PATH, MCP_HEADERS, MCP_SESSION
SEARCH = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "search", "arguments": {}}}
MODERN = "2026-07-28"


@pytest.fixture
def mcp_url(sample_repo: Path) -> Iterator[str]:
    with served_mcp(sample_repo) as url:
        yield url


def _refusal(reply: httpx.Response) -> tuple[int, dict[str, Any]]:
    """The status and the JSON-RPC error ``data`` of a refusal, which must be a JSON body."""
    assert reply.headers["content-type"] == "application/json"
    body = reply.json()
    assert body["jsonrpc"] == "2.0" and isinstance(body["error"]["message"], str) and body["error"]["message"]
    return reply.status_code, body["error"]["data"]


def _search(arguments: dict[str, Any]) -> dict[str, Any]:
    return {**SEARCH, "params": {"name": "search", "arguments": arguments}}


def test_every_session_level_refusal_carries_the_code_the_json_rpc_server_gives(mcp_url: str) -> None:
    too_large = json.dumps({"padding": "x" * DEFAULT_MAX_BODY_BYTES}).encode()
    with httpx.Client(timeout=30) as client:
        session = mcp_session(client, mcp_url)
        replies = {
            "unknown session": client.post(mcp_url, json=SEARCH, headers={**HEADERS, SESSION: "nope"}),
            "no session": client.post(mcp_url, json=SEARCH, headers=HEADERS),
            "accept": client.post(mcp_url, json=SEARCH, headers={**session, "Accept": "text/html"}),
            "content type": client.post(
                mcp_url, content=json.dumps(SEARCH), headers={**session, "Content-Type": "text/plain"}
            ),
            "too large": client.post(mcp_url, content=too_large, headers=session),
            "host": client.post(mcp_url, json=SEARCH, headers={**session, "Host": "rebound.example"}),
            "origin": client.post(mcp_url, json=SEARCH, headers={**session, "Origin": "http://evil.example"}),
            "method": client.put(mcp_url, json=SEARCH, headers=session),
            "stream without session": client.get(mcp_url, headers={"Accept": "text/event-stream"}),
            "path": client.get(mcp_url.replace(PATH, "/elsewhere")),
        }
    assert {case: _refusal(reply) for case, reply in replies.items()} == {
        "unknown session": (404, {"code": "not_found", "header": SESSION}),
        "no session": (400, {"code": "invalid_request", "field": SESSION}),
        "accept": (406, {"code": "invalid_request", "field": "accept"}),
        "content type": (400, {"code": "invalid_request", "field": "content-type"}),
        "too large": (413, {"code": "limit_exceeded", "field": "body", "limit": DEFAULT_MAX_BODY_BYTES}),
        "host": (421, {"code": "unauthorized", "header": "host"}),
        "origin": (403, {"code": "unauthorized", "header": "origin"}),
        "method": (405, {"code": "invalid_request", "field": "http_method"}),
        "stream without session": (400, {"code": "invalid_request", "field": SESSION}),
        "path": (404, {"code": "not_found"}),
    }
    assert replies["method"].headers["allow"] == "GET, POST, DELETE"


def test_a_session_past_the_most_kept_open_is_refused_with_a_retry_hint(sample_repo: Path) -> None:
    with served_mcp(sample_repo, max_sessions=1) as url, httpx.Client(timeout=30) as client:
        mcp_session(client, url)
        refused = client.post(url, json=MCP_INITIALIZE, headers=HEADERS)
    assert _refusal(refused) == (
        503,
        {"code": "limit_exceeded", "reason": "sessions", "limit": 1, "retry_after_ms": 1000},
    )
    assert refused.headers["retry-after"] == "1"


def test_the_sdks_own_errors_at_the_http_level_keep_their_code_and_gain_a_stable_one(mcp_url: str) -> None:
    """A request to the stateless protocol revision without its envelope: the SDK's -32602, coded."""
    with httpx.Client(timeout=30) as client:
        headers = {
            **HEADERS,
            "mcp-protocol-version": MODERN,
            "mcp-method": "tools/call",
            "mcp-name": "search",
        }
        reply = client.post(mcp_url, json=_search({"query": "x"}), headers=headers)
    assert reply.status_code == 400 and reply.json()["id"] == 3
    assert reply.json()["error"]["code"] == -32602
    assert _refusal(reply)[1] == {"code": "invalid_request", "field": "params"}


def test_arguments_that_fail_a_tools_input_schema_are_answered_naming_the_argument(mcp_url: str) -> None:
    with httpx.Client(timeout=30) as client:
        session = mcp_session(client, mcp_url)
        wrong_type = client.post(mcp_url, json=_search({"query": "x", "limit": "many"}), headers=session)
        beyond = client.post(
            mcp_url, content=json.dumps(_search({"query": "x", "limit": 2**60})), headers=session
        )
    event = next(line for line in wrong_type.text.splitlines() if line.startswith("data:"))
    result = json.loads(event[5:])["result"]
    error = json.loads(result["content"][0]["text"])["error"]
    assert result["isError"] and (error["code"], error["data"]) == (
        -32602,
        {"code": "invalid_request", "field": "limit"},
    )
    assert beyond.status_code == 200 and beyond.json()["id"] == 3
    refused = beyond.json()["result"]
    assert refused["isError"] is True
    assert json.loads(refused["content"][0]["text"])["error"]["data"] == {
        "code": "json_integer_range",
        "field": "limit",
    }


def test_a_protocol_version_header_the_server_does_not_speak_is_refused_naming_the_versions_it_does(
    mcp_url: str,
) -> None:
    with httpx.Client(timeout=30) as client:
        session = mcp_session(client, mcp_url)
        reply = client.post(
            mcp_url, json=_search({"query": "x"}), headers={**session, "mcp-protocol-version": "1999-01-01"}
        )
    status, data = _refusal(reply)
    assert (status, data["code"], data["field"]) == (400, "invalid_request", "mcp-protocol-version")
    message = reply.json()["error"]["message"]
    assert "unsupported MCP-Protocol-Version '1999-01-01'" in message and "2025-06-18" in message


def test_a_request_refused_before_a_session_opens_names_no_session(mcp_url: str) -> None:
    """The SDK discards the session it made for a refused first request; the answer must not name it."""
    with httpx.Client(timeout=30) as client:
        no_session = client.post(mcp_url, json=SEARCH, headers=HEADERS)
        malformed = client.post(mcp_url, content=b"{", headers=HEADERS)
    assert (no_session.status_code, malformed.status_code) == (400, 400)
    assert SESSION not in no_session.headers
    assert SESSION not in malformed.headers
