"""The MCP server through the SDK's in-process client, every tool; and once through ``prooftext mcp`` on stdio."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult

from prooftext.server.context import ServerContext
from prooftext.server.dispatcher import Dispatcher
from prooftext.server.mcp_server import TOOLS, ScreenedLines, create_mcp_server, input_schema, screen_line

EXPECTED_TOOLS = {
    "adaptive_context",
    "pack_context",
    "search",
    "verify_packet",
    "index_status",
    "classify_depth",
    "plan_turn",
    "add_memory",
    "should_recall_memory",
    "risk_of_changing",
}

Session = Callable[[Client], Awaitable[Any]]


def _run(ctx: ServerContext, session: Session) -> Any:
    async def main() -> Any:
        async with Client(create_mcp_server(Dispatcher(ctx))) as client:
            return await session(client)

    return asyncio.run(main())


@pytest.fixture
def mcp_ctx(sample_repo: Path) -> Any:
    context = ServerContext.open(sample_repo, interface="mcp")
    context.index.refresh()
    yield context
    context.close()


def _structured(result: CallToolResult) -> dict[str, Any]:
    assert result.is_error is False, result.content
    assert isinstance(result.structured_content, dict)
    return result.structured_content


def _error(result: CallToolResult) -> dict[str, Any]:
    assert result.is_error is True
    text = result.content[0].text  # type: ignore[union-attr]
    error: dict[str, Any] = json.loads(text)["error"]
    return error


def test_tools_are_listed_with_descriptions_and_the_published_input_schemas(mcp_ctx: ServerContext) -> None:
    listed = _run(mcp_ctx, lambda c: c.list_tools())
    tools = {t.name: t for t in listed.tools}
    assert set(tools) == EXPECTED_TOOLS
    for spec in TOOLS:
        tool = tools[spec.name]
        assert len(tool.description or "") > 80
        assert tool.input_schema == input_schema(spec.method)
        assert tool.input_schema["type"] == "object" and "$ref" not in json.dumps(tool.input_schema)
        assert tool.annotations is not None and tool.annotations.read_only_hint is spec.read_only


def test_every_tool_answers(mcp_ctx: ServerContext) -> None:
    async def session(c: Client) -> dict[str, Any]:
        out: dict[str, Any] = {}
        out["adaptive"] = await c.call_tool("adaptive_context", {"query": "separability matrix"})
        out["pack"] = await c.call_tool("pack_context", {"query": "slugify", "max_tokens": 2000})
        out["search"] = await c.call_tool("search", {"query": "slugify", "limit": 2})
        packet = out["pack"].structured_content
        out["verify"] = await c.call_tool("verify_packet", {"packet": packet})
        out["status"] = await c.call_tool("index_status", {})
        out["depth"] = await c.call_tool("classify_depth", {"text": "hello"})
        out["plan"] = await c.call_tool("plan_turn", {"text": "how does slugify work?"})
        out["add"] = await c.call_tool(
            "add_memory", {"kind": "decision", "text": "slugify joins with dashes"}
        )
        out["recall"] = await c.call_tool(
            "should_recall_memory", {"task": "remember what we decided about slugify?"}
        )
        out["risk"] = await c.call_tool("risk_of_changing", {"targets": ["slugify", "modeling/separable.py"]})
        return out

    out = _run(mcp_ctx, session)
    adaptive = _structured(out["adaptive"])
    assert out["adaptive"].content[0].text == adaptive["packet"]["prompt"]
    assert out["pack"].content[0].text == _structured(out["pack"])["prompt"]
    assert _structured(out["search"])["candidates"][0]["path"] == "util/strings.py"
    assert _structured(out["verify"]) == {"checked": 1, "ok": True, "problems": [], "status": 0}
    assert _structured(out["status"])["fresh"] is True
    assert _structured(out["depth"])["decision"]["tier"] == "surface"
    assert _structured(out["plan"])["dry_run"] is True
    assert _structured(out["add"])["record"]["source"] == "mcp"
    recall = _structured(out["recall"])
    assert recall["recall"] is True and recall["push"]["decided_by"] == "trigger"
    risk = _structured(out["risk"])
    assert risk["decisions"][0]["matched"] == ["slugify"]
    assert "modeling/core.py" in risk["files_affected"]
    for name in ("search", "status", "risk"):
        assert json.loads(out[name].content[0].text) == out[name].structured_content


def test_tool_input_errors_are_is_error_results_with_the_json_rpc_code(mcp_ctx: ServerContext) -> None:
    async def session(c: Client) -> list[CallToolResult]:
        return [
            await c.call_tool("adaptive_context", {"query": "x", "max_tokens": 1.5}),
            await c.call_tool("adaptive_context", {}),
            await c.call_tool("pack_context", {"query": "x", "tokenizer": "nope"}),
            await c.call_tool("risk_of_changing", {"targets": ["../../etc/passwd"]}),
            await c.call_tool("add_memory", {"kind": "decision", "text": "x", "bogus": 1}),
        ]

    errors = [_error(r) for r in _run(mcp_ctx, session)]
    assert [(e["code"], e["data"]["code"], e["data"].get("field")) for e in errors] == [
        (-32602, "invalid_request", "max_tokens"),
        (-32602, "invalid_request", "query"),
        (-32602, "unknown_name", "tokenizer"),
        (-32005, "path_outside_root", "targets"),
        (-32602, "invalid_request", "bogus"),
    ]


def test_an_unknown_tool_is_a_protocol_error(mcp_ctx: ServerContext) -> None:
    async def session(c: Client) -> MCPError | None:
        try:
            await c.call_tool("no_such_tool", {})
        except MCPError as exc:  # caught inside the session: the client's task group would wrap it
            return exc
        return None

    error = _run(mcp_ctx, session)
    assert isinstance(error, MCPError) and error.code == -32602
    assert error.error.data == {"code": "unknown_name", "field": "name"}


def test_prooftext_mcp_over_stdio(sample_repo: Path) -> None:
    """``prooftext mcp`` as a subprocess (the CLI module is imported explicitly until it is registered)."""
    bootstrap = "import prooftext.cli.serve; from prooftext.cli import main; main()"
    params = StdioServerParameters(
        command=sys.executable, args=["-c", bootstrap, "mcp", "--root", str(sample_repo), "--no-warm"]
    )

    async def main() -> tuple[set[str], CallToolResult, CallToolResult]:
        async with Client(params, read_timeout_seconds=60) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            packed = await client.call_tool("adaptive_context", {"query": "separability matrix"})
            bad = await client.call_tool("classify_depth", {"text": ""})
            return names, packed, bad

    names, packed, bad = asyncio.run(main())
    assert names == EXPECTED_TOOLS
    assert "separability_matrix" in packed.content[0].text  # type: ignore[union-attr]
    assert _error(bad)["data"]["code"] == "query_empty"


def test_stdio_lines_the_sdk_would_drop_are_answered_with_id_null() -> None:
    assert screen_line('{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}') is None
    parse = screen_line("{not json")
    batch = screen_line('[{"jsonrpc": "2.0", "id": 5, "method": "tools/list"}]')
    scalar = screen_line("42")
    assert parse is not None and parse.code == -32700 and parse.data == {"code": "json_syntax"}
    assert batch is not None and batch.code == -32600 and "batches" in batch.message
    assert scalar is not None and scalar.code == -32600

    async def main() -> tuple[list[str], list[Any]]:
        async def source() -> AsyncIterator[str]:
            for line in ('{"jsonrpc": "2.0", "id": 1, "method": "ping"}\n', "\n", "[1]\n", "{\n"):
                yield line

        send, receive = anyio.create_memory_object_stream[Any](8)
        passed = [line async for line in ScreenedLines(source(), send)]
        answered = [m.message async for m in receive]
        return passed, answered

    passed, answered = asyncio.run(main())
    assert passed == ['{"jsonrpc": "2.0", "id": 1, "method": "ping"}\n']
    assert [(a.id, a.error.code) for a in answered] == [(None, -32600), (None, -32700)]
