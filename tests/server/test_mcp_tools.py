"""The MCP server through the SDK's in-process client, every tool; and once through ``prooftext mcp`` on stdio."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from jsonschema import Draft7Validator, Draft202012Validator
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult

import prooftext
from helpers import REPO, SAMPLE_FILES
from prooftext.errors import UnknownNameError
from prooftext.server.context import ServerContext
from prooftext.server.dispatcher import Dispatcher
from prooftext.server.mcp_server import (
    DEFAULT_PROFILE,
    LEAN,
    TOOLS,
    ScreenedLines,
    create_mcp_server,
    input_schema,
    output_schema,
    screen_line,
)

LEAN_TOOLS = {"context", "search", "map", "read", "who_uses", "verify"}
ADVANCED_TOOLS = {
    "adaptive_context",
    "pack_context",
    "rank_candidates",
    "risk_of_changing",
    "index_status",
    "classify_depth",
    "plan_turn",
    "add_memory",
    "should_recall_memory",
}
TOKEN = "gh" + "p_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC2dF4gH6"  # split so no scanner takes this file for a leak

Session = Callable[[Client], Awaitable[Any]]


def _run(ctx: ServerContext, session: Session, tools: str = "all") -> Any:
    async def main() -> Any:
        async with Client(create_mcp_server(Dispatcher(ctx), tools)) as client:
            return await session(client)

    return asyncio.run(main())


@pytest.fixture
def mcp_ctx(sample_repo: Path) -> Any:
    (sample_repo / "deploy.py").write_text(f'DEPLOY_TOKEN = "{TOKEN}"\n\n\ndef deploy():\n    return 1\n')
    (sample_repo / ".gitignore").write_text("build/\n")
    (sample_repo / "build").mkdir()
    (sample_repo / "build" / "out.py").write_text("x = 1\n")
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


def _cost(value: Any) -> int:
    return prooftext.count(json.dumps(value, ensure_ascii=False, separators=(",", ":")), "o200k_base").count


def test_the_default_profile_is_six_short_tools_within_two_thousand_tokens(mcp_ctx: ServerContext) -> None:
    listed = _run(mcp_ctx, lambda c: c.list_tools(), tools=DEFAULT_PROFILE)
    tools = {t.name: t for t in listed.tools}
    assert set(tools) == LEAN_TOOLS
    for spec in LEAN:
        tool = tools[spec.name]
        assert 40 < len(tool.description or "") <= 200
        assert set(tool.input_schema["properties"]) == set(spec.params or ())
        assert (
            len(tool.input_schema["properties"]) <= 3 and tool.input_schema["additionalProperties"] is False
        )
        assert tool.output_schema is not None and tool.output_schema["type"] == "object"
    assert set(tools["context"].input_schema["properties"]) == {"query", "max_tokens", "require_sufficient"}
    assert _cost(listed.model_dump(mode="json", by_alias=True, exclude_none=True)) <= 2000


def test_the_readme_states_the_cost_of_the_lean_definitions_within_two_percent(
    mcp_ctx: ServerContext,
) -> None:
    listed = _run(mcp_ctx, lambda c: c.list_tools(), tools=DEFAULT_PROFILE)
    tools = listed.model_dump(mode="json", by_alias=True, exclude_none=True)["tools"]
    cost = _cost({"tools": tools})  # what tools/list sends (the SDK's model holds newer protocols' members)
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    stated = re.search(r"about ([0-9,]+) o200k tokens of definitions", readme)
    assert stated is not None
    assert abs(int(stated.group(1).replace(",", "")) - cost) <= cost * 0.02, cost


def test_the_all_profile_adds_the_advanced_knobs_and_conversation_tools(mcp_ctx: ServerContext) -> None:
    listed = _run(mcp_ctx, lambda c: c.list_tools(), tools="all")
    tools = {t.name: t for t in listed.tools}
    assert set(tools) == LEAN_TOOLS | ADVANCED_TOOLS
    for spec in TOOLS:
        tool = tools[spec.name]
        assert tool.input_schema == input_schema(spec.method, spec.params, spec.maxima)
        assert "$ref" not in json.dumps(tool.input_schema) and "$ref" not in json.dumps(tool.output_schema)
        assert tool.output_schema == output_schema(spec.method, spec.output_depth)
        assert tool.annotations is not None and tool.annotations.read_only_hint is spec.read_only
    assert len(tools["adaptive_context"].input_schema["properties"]) > 10
    with pytest.raises(UnknownNameError):
        create_mcp_server(Dispatcher(mcp_ctx), "most")


def _every_tool(packet_holder: dict[str, Any]) -> Session:
    async def session(c: Client) -> dict[str, CallToolResult]:
        out: dict[str, CallToolResult] = {}
        out["context"] = await c.call_tool("context", {"query": "separability matrix"})
        out["search"] = await c.call_tool("search", {"query": "separability matrix", "limit": 5})
        out["map"] = await c.call_tool("map", {"query": "separability matrix", "max_tokens": 300})
        out["read"] = await c.call_tool("read", {"path": "util/strings.py", "start": 1, "end": 2})
        out["who_uses"] = await c.call_tool("who_uses", {"targets": ["separability_matrix"]})
        assert out["context"].structured_content is not None
        out["verify"] = await c.call_tool("verify", {"packet": out["context"].structured_content})
        out["adaptive_context"] = await c.call_tool("adaptive_context", {"query": "separability matrix"})
        out["pack_context"] = await c.call_tool("pack_context", {"query": "slugify", "max_tokens": 2000})
        out["rank_candidates"] = await c.call_tool("rank_candidates", {"query": "slugify", "limit": 2})
        out["risk_of_changing"] = await c.call_tool(
            "risk_of_changing", {"targets": ["modeling/separable.py"]}
        )
        out["index_status"] = await c.call_tool("index_status", {})
        out["classify_depth"] = await c.call_tool("classify_depth", {"text": "hello"})
        out["plan_turn"] = await c.call_tool("plan_turn", {"text": "how does slugify work?"})
        out["add_memory"] = await c.call_tool(
            "add_memory", {"kind": "decision", "text": "slugify joins dashes"}
        )
        out["should_recall_memory"] = await c.call_tool(
            "should_recall_memory", {"task": "remember what we decided about slugify?"}
        )
        packet_holder["tools"] = {t.name: t for t in (await c.list_tools()).tools}
        return out

    return session


def test_every_tool_answers_with_a_result_its_output_schema_accepts(mcp_ctx: ServerContext) -> None:
    held: dict[str, Any] = {}
    out = _run(mcp_ctx, _every_tool(held))
    assert set(out) == LEAN_TOOLS | ADVANCED_TOOLS
    for name, result in out.items():
        schema = held["tools"][name].output_schema
        for validator in (Draft7Validator(schema), Draft202012Validator(schema)):
            errors = [e.message[:120] for e in validator.iter_errors(_structured(result))]
            assert errors == [], name
    broken = {**_structured(out["read"]), "sha256": 5}
    assert list(Draft7Validator(held["tools"]["read"].output_schema).iter_errors(broken))
    context = _structured(out["context"])
    assert out["context"].content[0].text == context["packet"]["prompt"]  # type: ignore[union-attr]
    assert _structured(out["verify"])["status"] == 0
    assert _structured(out["classify_depth"])["decision"]["tier"] == "surface"
    assert _structured(out["add_memory"])["record"]["source"] == "mcp"
    uses = _structured(out["who_uses"])["dependents"]
    assert {d["path"] for d in uses} >= {"modeling/core.py"} and all("found_by" in d for d in uses)
    for name in ("search", "who_uses", "index_status"):
        assert json.loads(out[name].content[0].text) == out[name].structured_content  # type: ignore[union-attr]


def test_search_hits_are_compact_located_and_readable_within_sixty_tokens(mcp_ctx: ServerContext) -> None:
    async def session(c: Client) -> tuple[CallToolResult, CallToolResult]:
        found = await c.call_tool("search", {"query": "separability matrix", "limit": 8})
        first = (found.structured_content or {"hits": [{}]})["hits"][0]
        args = {"path": first["path"], "start": first["lines"][0], "end": first["lines"][1]}
        return found, await c.call_tool("read", args)

    found, read = _run(mcp_ctx, session, tools="lean")
    hits = _structured(found)["hits"]
    assert len(hits) >= 3
    assert all(_cost(hit) <= 60 for hit in hits)
    best = hits[0]
    assert best["path"] == "modeling/separable.py" and best["name"] == "separability_matrix"
    assert best["sig"] == "def separability_matrix(transform):" and best["snippet"]
    assert _structured(read)["text"].startswith("def separability_matrix(transform):")


def test_read_is_verified_and_refuses_what_the_index_leaves_out(mcp_ctx: ServerContext) -> None:
    async def session(c: Client) -> list[CallToolResult]:
        return [
            await c.call_tool("read", {"path": "deploy.py"}),
            await c.call_tool("read", {"path": "build/out.py"}),
            await c.call_tool("read", {"path": "../outside.py"}),
            await c.call_tool("read", {"path": ".prooftext/index.sqlite"}),
            await c.call_tool("read", {"path": "util/strings.py", "start": 40}),
        ]

    secret, ignored, outside, internal, past = _run(mcp_ctx, session, tools="lean")
    read = _structured(secret)
    data = (mcp_ctx.root / "deploy.py").read_bytes()
    assert read["sha256"] == hashlib.sha256(data).hexdigest() and read["lines"] == [1, 5]
    assert (TOKEN in json.dumps(read)) is False and "[REDACTED:github-token]" in read["text"]
    assert (TOKEN in secret.content[0].text) is False  # type: ignore[union-attr]
    assert (_error(ignored)["data"]["code"], _error(ignored)["data"]["reason"]) == (
        "source_excluded",
        "ignored",
    )
    assert _error(outside)["data"]["code"] == "path_outside_root"
    assert _error(internal)["data"]["code"] == "source_excluded"
    assert _error(past)["data"] == {"code": "value_out_of_range", "field": "start"}


def test_integers_sent_as_strings_or_floats_are_read_when_unambiguous(mcp_ctx: ServerContext) -> None:
    async def session(c: Client) -> list[CallToolResult]:
        return [
            await c.call_tool("context", {"query": "slugify", "max_tokens": "3000"}),
            await c.call_tool("context", {"query": "slugify", "max_tokens": 3000.0}),
            await c.call_tool("read", {"path": "util/strings.py", "start": "2", "end": 2.0}),
            await c.call_tool("context", {"query": "slugify", "max_tokens": "3000.5"}),
            await c.call_tool("context", {"query": "slugify", "max_tokens": 1.5}),
            await c.call_tool("context", {"query": "slugify", "min_tokens": 100}),
        ]

    as_text, as_float, read, half, float_half, knob = _run(mcp_ctx, session, tools="lean")
    assert _structured(as_text)["request"]["max_tokens"] == 3000
    assert _structured(as_float)["request"]["max_tokens"] == 3000
    assert _structured(read)["lines"] == [2, 2]
    for refused in (half, float_half):
        assert _error(refused)["data"] == {"code": "invalid_request", "field": "max_tokens"}
    assert _error(knob)["data"] == {"code": "invalid_request", "field": "min_tokens"}


def test_an_integer_beyond_2_53_sent_as_a_string_or_a_float_is_refused_as_one_naming_the_argument(
    mcp_ctx: ServerContext,
) -> None:
    """However many digits it has: past 4,300, Python would not even read it as an integer."""

    async def session(c: Client) -> list[CallToolResult]:
        return [
            await c.call_tool("search", {"query": "slugify", "limit": "9" * 5000}),
            await c.call_tool("search", {"query": "slugify", "limit": "-" + "9" * 30}),
            await c.call_tool("read", {"path": "util/strings.py", "start": str(2**53)}),
            await c.call_tool("search", {"query": "slugify", "limit": 1e300}),
        ]

    for refused in _run(mcp_ctx, session, tools="lean"):
        error = _error(refused)
        assert error["code"] == -32602
        assert error["data"]["code"] == "json_integer_range"
        assert error["data"]["field"] in ("limit", "start")
        assert len(error["message"]) < 200


def test_an_integer_spelled_with_digits_other_than_ascii_ones_is_not_read_as_one(
    mcp_ctx: ServerContext,
) -> None:
    arabic_indic_three = "\u0663"

    async def session(c: Client) -> CallToolResult:
        return await c.call_tool("search", {"query": "slugify", "limit": arabic_indic_three})

    refused = _error(_run(mcp_ctx, session, tools="lean"))
    assert refused["data"] == {"code": "invalid_request", "field": "limit"}


def test_required_sufficiency_fails_with_its_code_when_the_estimator_does_not_pass(
    mcp_ctx: ServerContext,
) -> None:
    async def session(c: Client) -> CallToolResult:
        arguments = {"query": "separability matrix", "max_tokens": 200, "require_sufficient": True}
        return await c.call_tool("context", arguments)

    error = _error(_run(mcp_ctx, session, tools="lean"))
    assert error["code"] == -32006 and error["data"]["code"] == "context_insufficient"
    assert error["data"]["max_tokens"] == 200


def test_a_cold_index_reports_progress_to_a_client_that_asked(sample_repo: Path) -> None:
    context = ServerContext.open(sample_repo, interface="mcp")
    heard: list[tuple[float, float | None, str | None]] = []

    async def listen(progress: float, total: float | None, message: str | None) -> None:
        heard.append((progress, total, message))

    async def session(c: Client) -> CallToolResult:
        return await c.call_tool("search", {"query": "slugify"}, progress_callback=listen)

    try:
        found = _run(context, session, tools="lean")
        again = _run(context, session, tools="lean")
    finally:
        context.close()
    assert _structured(found)["hits"] and _structured(again)["hits"]
    files = len(SAMPLE_FILES)
    assert heard and heard[-1][:2] == (files, files) and "indexing" in (heard[-1][2] or "")
    assert [p for p, _, _ in heard] == sorted({p for p, _, _ in heard})  # increasing, none repeated
    assert len(heard) <= files  # the second call found the index fresh: nothing more was reported


def test_no_prompts_or_resources_are_advertised(mcp_ctx: ServerContext) -> None:
    async def session(c: Client) -> tuple[Any, MCPError | None]:
        try:
            await c.list_prompts()
        except MCPError as exc:
            return c.server_capabilities, exc
        return c.server_capabilities, None

    capabilities, refused = _run(mcp_ctx, session)
    assert capabilities.tools is not None
    assert capabilities.prompts is None and capabilities.resources is None
    assert refused is not None and refused.code == -32601


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


def _stdio(root: Path, *extra: str) -> StdioServerParameters:
    bootstrap = "import prooftext.cli.serve; from prooftext.cli import main; main()"
    argv = ["-c", bootstrap, "mcp", "--root", str(root), "--no-warm", *extra]
    return StdioServerParameters(command=sys.executable, args=argv)


def test_prooftext_mcp_over_stdio_serves_the_lean_tools_unless_asked_for_all(sample_repo: Path) -> None:
    """``prooftext mcp`` as a subprocess (the CLI module is imported explicitly until it is registered)."""

    async def main() -> tuple[set[str], set[str], CallToolResult, CallToolResult]:
        async with Client(_stdio(sample_repo), read_timeout_seconds=60) as client:
            lean = {t.name for t in (await client.list_tools()).tools}
            packed = await client.call_tool("context", {"query": "separability matrix"})
        async with Client(_stdio(sample_repo, "--tools", "all"), read_timeout_seconds=60) as client:
            every = {t.name for t in (await client.list_tools()).tools}
            bad = await client.call_tool("classify_depth", {"text": ""})
        return lean, every, packed, bad

    lean, every, packed, bad = asyncio.run(main())
    assert lean == LEAN_TOOLS and every == LEAN_TOOLS | ADVANCED_TOOLS
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


def test_read_text_shows_controls_visibly_and_names_its_flags_while_its_structured_text_is_exact(
    mcp_ctx: ServerContext,
) -> None:
    source = 'x = 1\nwarn = "\x1b[2J\x1b[31mquiet\x1b[0m admin\u202e zero\u200bwidth over\rwrite"\n'
    (mcp_ctx.root / "hostile.py").write_text(source, encoding="utf-8", newline="")
    mcp_ctx.index.refresh()

    async def session(c: Client) -> CallToolResult:
        return await c.call_tool("read", {"path": "hostile.py"})

    read = _run(mcp_ctx, session, tools="lean")
    header, shown = read.content[0].text.split("\n", 1)  # type: ignore[union-attr]
    sha = hashlib.sha256(source.encode()).hexdigest()
    assert header == f"hostile.py:1-2 sha256:{sha} flags=bidi:1,control:4,invisible:1"
    assert "\u241b[2J" in shown and "admin[U+202E]" in shown and "zero[U+200B]width" in shown
    assert "over\u240dwrite" in shown and not any(ch in shown for ch in "\x1b\r\u202e\u200b")
    assert (
        _structured(read)["text"] == source and _structured(read)["flags"] == "bidi:1,control:4,invisible:1"
    )
