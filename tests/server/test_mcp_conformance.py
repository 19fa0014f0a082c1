"""What an MCP client reads from the server agrees with what the server does: each tool's input schema
accepts the arguments the tool takes and refuses those it refuses, and the HTTP transport reads a
``Content-Type`` and a path as the JSON-RPC server does."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator
from mcp import Client
from mcp_types import CallToolResult

from helpers import MCP_HEADERS, MCP_INITIALIZE, MCP_PATH, MCP_SESSION, mcp_session, served_mcp
from prooftext.select.query import MAX_TOKENS
from prooftext.server.context import ServerContext
from prooftext.server.dispatcher import Dispatcher
from prooftext.server.mcp_server import create_mcp_server

PATH, HEADERS, SESSION = MCP_PATH, MCP_HEADERS, MCP_SESSION
PING = {"jsonrpc": "2.0", "id": 2, "method": "ping"}


@pytest.fixture
def mcp_ctx(sample_repo: Path) -> Iterator[ServerContext]:
    context = ServerContext.open(sample_repo, interface="mcp")
    context.index.refresh()
    yield context
    context.close()


def _calls(ctx: ServerContext, tools: str, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    async def main() -> list[Any]:
        async with Client(create_mcp_server(Dispatcher(ctx), tools)) as client:
            schemas = {t.name: t.input_schema for t in (await client.list_tools()).tools}
            answers: list[Any] = [schemas]
            for name, arguments in calls:
                answers.append(await client.call_tool(name, arguments))
            return answers

    return asyncio.run(main())


def _code(result: CallToolResult) -> str | None:
    if not result.is_error:
        return None
    code: str = json.loads(result.content[0].text)["error"]["data"]["code"]  # type: ignore[union-attr]
    return code


ITEM_TYPES = [
    ("who_uses", {"targets": [1]}),
    ("who_uses", {"targets": [None]}),
    ("map", {"paths": [7]}),
    ("map", {"paths": [""]}),
]


def test_a_lean_tools_input_schema_refuses_the_list_items_the_tool_refuses(mcp_ctx: ServerContext) -> None:
    schemas, *results = _calls(mcp_ctx, "lean", ITEM_TYPES)
    for (name, arguments), result in zip(ITEM_TYPES, results, strict=True):
        assert _code(result) == "invalid_request", (name, arguments)
        assert not Draft202012Validator(schemas[name]).is_valid(arguments), (name, arguments)
    assert schemas["who_uses"]["properties"]["targets"]["items"] == {"type": "string"}


@pytest.fixture
def mcp_url(sample_repo: Path) -> Iterator[str]:
    with served_mcp(sample_repo) as url:
        yield url


def _answer(reply: httpx.Response) -> dict[str, Any]:
    """The JSON-RPC message of a reply, sent as JSON or as one server-sent event."""
    if reply.headers["content-type"].startswith("text/event-stream"):
        data = [line[5:].strip() for line in reply.text.splitlines() if line.startswith("data:")]
        message: dict[str, Any] = json.loads(data[0])
        return message
    answer: dict[str, Any] = reply.json()
    return answer


@pytest.mark.parametrize("content_type", ["application/JSON", "Application/Json; charset=UTF-8"])
def test_a_json_content_type_is_read_whatever_its_letter_case(mcp_url: str, content_type: str) -> None:
    """Media types are case-insensitive (RFC 9110), and ``prooftext serve --http`` reads these."""
    with httpx.Client(timeout=30) as client:
        headers = mcp_session(client, mcp_url)
        reply = client.post(
            mcp_url, content=json.dumps(PING), headers={**headers, "Content-Type": content_type}
        )
    assert reply.status_code == 200 and _answer(reply) == {"jsonrpc": "2.0", "id": 2, "result": {}}


@pytest.mark.parametrize(
    "content_type",
    ["text/plain", "application/json-patch+json", "application/jsonl", "application/json, text/plain"],
)
def test_every_content_type_other_than_json_is_refused_alike(mcp_url: str, content_type: str) -> None:
    with httpx.Client(timeout=30) as client:
        headers = mcp_session(client, mcp_url)
        reply = client.post(
            mcp_url, content=json.dumps(PING), headers={**headers, "Content-Type": content_type}
        )
    assert reply.status_code == 400 and reply.headers["content-type"] == "application/json"
    assert reply.json()["error"]["data"] == {"code": "invalid_request", "field": "content-type"}


@pytest.mark.parametrize("path", ["/mcp/", "/mcp/x", "/"])
def test_a_path_other_than_the_served_one_is_not_found_without_a_redirect(mcp_url: str, path: str) -> None:
    with httpx.Client(timeout=30, follow_redirects=False) as client:
        reply = client.post(mcp_url.removesuffix(PATH) + path, json=MCP_INITIALIZE, headers=HEADERS)
    assert reply.status_code == 404 and reply.headers["content-type"] == "application/json"
    assert reply.json()["error"]["data"] == {"code": "not_found"}


def test_the_protocol_version_with_batches_which_initialize_does_not_agree_to_is_refused_in_a_header(
    mcp_url: str,
) -> None:
    with httpx.Client(timeout=30) as client:
        headers = {**mcp_session(client, mcp_url), "mcp-protocol-version": "2025-03-26"}
        posted = client.post(mcp_url, json=PING, headers=headers)
        deleted = client.delete(mcp_url, headers=headers)
        still = client.post(mcp_url, json=PING, headers={**headers, "mcp-protocol-version": "2025-06-18"})
    for reply in (posted, deleted):
        assert reply.status_code == 400, reply.text
        error = reply.json()["error"]
        assert error["data"] == {"code": "invalid_request", "field": "mcp-protocol-version"}
        assert "'2025-03-26'" in error["message"] and "2025-03-26," not in error["message"]
    assert still.status_code == 200 and _answer(still)["result"] == {}


def test_the_lean_context_tool_takes_every_max_tokens_its_schema_allows(mcp_ctx: ServerContext) -> None:
    """The lean tool has no ``token_step``: a budget the default step cannot climb in 256 rungs climbs in
    the smallest step that can, instead of an error naming a parameter the tool does not take."""
    calls = [
        ("context", {"query": "separability matrix", "max_tokens": budget}) for budget in (600_000, 2_097_152)
    ]
    schemas, *results = _calls(mcp_ctx, "lean", calls)
    assert schemas["context"]["properties"]["max_tokens"].get("maximum", 2_097_152) >= 2_097_152
    for result in results:
        assert result.is_error is False, result.content
        assert isinstance(result.structured_content, dict) and "packet" in result.structured_content


@pytest.mark.parametrize(
    ("header", "value"),
    [
        ("Host", "127.0.0.1"),
        ("Host", "localhost"),
        ("Host", "[::1]"),
        ("Host", "LOCALHOST"),
        ("Host", "LocalHost:{port}"),
        ("Origin", "http://localhost"),
        ("Origin", "https://localhost:8443"),
        ("Origin", "https://127.0.0.1"),
        ("Origin", "http://[::1]"),
    ],
)
def test_a_loopback_host_or_origin_without_a_port_or_over_https_is_taken(
    mcp_url: str, header: str, value: str
) -> None:
    """What ``prooftext serve --http`` takes as loopback, and what the refusal says is taken (a host name
    in any letter case: names are case-insensitive)."""
    port = mcp_url.rsplit(":", 1)[1].split("/")[0]
    with httpx.Client(timeout=30) as client:
        reply = client.post(
            mcp_url, json=MCP_INITIALIZE, headers={**HEADERS, header: value.format(port=port)}
        )
    assert reply.status_code == 200, reply.text


@pytest.mark.parametrize(
    ("header", "value", "status"),
    [
        ("Host", "evil.example", 421),
        ("Host", "127.0.0.1.evil.example", 421),
        ("Origin", "http://evil.example", 403),
    ],
)
def test_a_host_or_origin_elsewhere_is_still_refused(
    mcp_url: str, header: str, value: str, status: int
) -> None:
    with httpx.Client(timeout=30) as client:
        reply = client.post(mcp_url, json=MCP_INITIALIZE, headers={**HEADERS, header: value})
    assert reply.status_code == status and reply.json()["error"]["data"]["code"] == "unauthorized"


def test_a_lean_tools_max_tokens_schema_states_the_bound_the_tool_holds_it_to(mcp_ctx: ServerContext) -> None:
    """The lean tools take no tokenizer, so their token ceiling has one bound, which the schema states."""
    calls = [(name, {"query": "separability", "max_tokens": MAX_TOKENS + 1}) for name in ("context", "map")]
    schemas, *results = _calls(mcp_ctx, "lean", calls)
    for (name, arguments), result in zip(calls, results, strict=True):
        assert schemas[name]["properties"]["max_tokens"]["maximum"] == MAX_TOKENS
        assert not Draft202012Validator(schemas[name]).is_valid(arguments)
        assert _code(result) == "value_out_of_range"


@pytest.mark.parametrize("bound", ["127.0.0.2", "127.1.2.3", "0:0:0:0:0:0:0:1"])
def test_a_server_on_any_loopback_address_refuses_a_host_or_origin_elsewhere(
    sample_repo: Path, bound: str
) -> None:
    """Bound to a loopback address without a token, a page rebinding its name to that address cannot call
    the server, whichever loopback address it is; the address itself is taken as a Host."""
    shown = f"[{bound}]" if ":" in bound else bound
    with served_mcp(sample_repo, bound) as url, httpx.Client(timeout=30) as client:
        rebound = client.post(url, json=MCP_INITIALIZE, headers={**HEADERS, "Host": "evil.example"})
        page = client.post(url, json=MCP_INITIALIZE, headers={**HEADERS, "Origin": "http://evil.example"})
        named = client.post(url, json=MCP_INITIALIZE, headers={**HEADERS, "Host": f"{shown}:8766"})
    assert rebound.status_code == 421 and rebound.json()["error"]["data"]["header"] == "host"
    assert page.status_code == 403 and page.json()["error"]["data"]["header"] == "origin"
    assert named.status_code == 200, named.text


def test_tools_list_is_one_page_and_a_cursor_is_refused_as_invalid_params(mcp_url: str) -> None:
    listing = {"jsonrpc": "2.0", "id": 5, "method": "tools/list"}
    with httpx.Client(timeout=30) as client:
        headers = mcp_session(client, mcp_url)
        whole = _answer(client.post(mcp_url, json=listing, headers=headers))
        paged = _answer(client.post(mcp_url, json={**listing, "params": {"cursor": "abc"}}, headers=headers))
        first = _answer(client.post(mcp_url, json={**listing, "params": {"cursor": None}}, headers=headers))
    assert "nextCursor" not in whole["result"] and whole["result"]["tools"]
    assert paged["error"]["code"] == -32602
    assert paged["error"]["data"] == {"code": "invalid_request", "field": "cursor"}
    assert first["result"] == whole["result"]
