"""CLI, JSON-RPC and MCP side by side: the same request gives the same result and the same error code."""

from __future__ import annotations

import asyncio
import importlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from prooftext.cli import main
from prooftext.server.context import ServerContext
from prooftext.server.dispatcher import Dispatcher
from prooftext.server.mcp_server import create_mcp_server

from .conftest import send

importlib.import_module("prooftext.cli.serve")  # registers serve/mcp until the CLI lists the module

VOLATILE = ("id", "created_ms", "updated_ms")


class Three:
    """One root served three ways."""

    def __init__(self, root: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.root = root
        self.capsys = capsys
        self.ctx = ServerContext.open(root)
        self.dispatcher = Dispatcher(self.ctx)
        self.mcp = create_mcp_server(
            Dispatcher(ServerContext(self.ctx.root, self.ctx.index, interface="mcp"))
        )

    def cli(self, *argv: str) -> tuple[int, Any]:
        status = main([*argv, "--json"])
        out, _ = self.capsys.readouterr()
        return status, json.loads(out)

    def rpc(self, method: str, params: dict[str, Any]) -> Any:
        return send(self.dispatcher, {"jsonrpc": "2.0", "id": 1, "method": method, "params": params})

    def tool(self, name: str, arguments: dict[str, Any]) -> tuple[bool, Any]:
        async def run() -> tuple[bool, Any]:
            async with Client(self.mcp) as client:
                result = await client.call_tool(name, arguments)
            if result.is_error:
                return True, json.loads(result.content[0].text)["error"]  # type: ignore[union-attr]
            return False, result.structured_content

        return asyncio.run(run())

    def same(self, argv: tuple[str, ...], method: str, tool: str, params: dict[str, Any]) -> Any:
        status, cli_out = self.cli(*argv)
        reply = self.rpc(method, params)
        is_error, mcp_out = self.tool(tool, params)
        assert status == 0 and "result" in reply and not is_error, (cli_out, reply, mcp_out)
        assert cli_out == reply["result"] == mcp_out
        return cli_out

    def same_error(self, argv: tuple[str, ...], method: str, tool: str, params: dict[str, Any]) -> str:
        status, cli_out = self.cli(*argv)
        reply = self.rpc(method, params)
        is_error, mcp_out = self.tool(tool, params)
        assert status != 0 and "error" in reply and is_error
        code: str = cli_out["error"]["code"]
        assert code == reply["error"]["data"]["code"] == mcp_out["data"]["code"]
        assert reply["error"]["code"] == mcp_out["code"]
        return code


@pytest.fixture
def three(sample_repo: Path, capsys: pytest.CaptureFixture[str]) -> Iterator[Three]:
    served = Three(sample_repo, capsys)
    served.ctx.index.refresh()
    yield served
    served.ctx.close()


def test_packing_gives_the_same_artifacts(three: Three) -> None:
    root = str(three.root)
    adaptive = three.same(
        ("adaptive-pack", "separability matrix", "--root", root),
        "context.adaptive",
        "adaptive_context",
        {"query": "separability matrix"},
    )
    assert adaptive["packet"]["evidence"]
    three.same(
        ("pack", "slugify words", "--root", root, "--max-tokens", "2000", "--format", "xml"),
        "context.pack",
        "pack_context",
        {"query": "slugify words", "max_tokens": 2000, "format": "xml"},
    )


def test_verify_status_depth_and_turn_give_the_same_reports(three: Three, tmp_path: Path) -> None:
    root = str(three.root)
    packet = three.rpc("context.pack", {"query": "compound model"})["result"]
    saved = tmp_path / "packet.json"
    saved.write_text(json.dumps(packet))
    three.same(("verify", str(saved), "--root", root), "context.verify", "verify", {"packet": packet})
    three.same(("index", "--status", root), "index.status", "index_status", {})
    three.same(
        ("depth", "analyze the separability matrix"),
        "depth.classify",
        "classify_depth",
        {"text": "analyze the separability matrix"},
    )
    turn = ("turn", "how is separability_matrix computed?", "--dry-run", "--root", root, "--thread", "t")
    params = {"text": "how is separability_matrix computed?", "thread": "t"}
    three.same(turn, "turn.plan", "plan_turn", params)


def _stable(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k not in VOLATILE}


def test_memory_gives_the_same_records(three: Three) -> None:
    root = str(three.root)
    params = {"kind": "constraint", "text": "keep slugify ascii", "strength": "hard", "source": "me"}
    _, cli_out = three.cli(
        "memory",
        "add",
        "constraint",
        "keep slugify ascii",
        "--strength",
        "hard",
        "--source",
        "me",
        "--root",
        root,
    )
    rpc_out = three.rpc("memory.add", params)["result"]
    _, mcp_out = three.tool("add_memory", params)
    assert _stable(cli_out["record"]) == _stable(rpc_out["record"]) == _stable(mcp_out["record"])
    _, listed = three.cli("memory", "list", "--root", root)
    assert listed == three.rpc("memory.list", {})["result"]
    assert [r["id"] for r in listed["records"]] == [1, 2, 3]


ERROR_CASES: list[tuple[str, tuple[str, ...], str, str, dict[str, Any], str]] = [
    (
        "path outside the root",
        ("pack", "separability", "--require", "../outside.py"),
        "context.pack",
        "pack_context",
        {"query": "separability", "required": ["../outside.py"]},
        "path_outside_root",
    ),
    (
        "unknown tokenizer",
        ("adaptive-pack", "separability", "--tokenizer", "gpt9"),
        "context.adaptive",
        "adaptive_context",
        {"query": "separability", "tokenizer": "gpt9"},
        "unknown_name",
    ),
    (
        "empty query",
        ("adaptive-pack", "   "),
        "context.adaptive",
        "adaptive_context",
        {"query": "   "},
        "query_empty",
    ),
    (
        "ceiling out of range",
        ("adaptive-pack", "separability", "--max-tokens", "0"),
        "context.adaptive",
        "adaptive_context",
        {"query": "separability", "max_tokens": 0},
        "value_out_of_range",
    ),
    (
        "unknown format",
        ("pack", "separability", "--format", "yaml"),
        "context.pack",
        "pack_context",
        {"query": "separability", "format": "yaml"},
        "unknown_name",
    ),
    (
        "constraint without strength",
        ("memory", "add", "constraint", "keep it"),
        "memory.add",
        "add_memory",
        {"kind": "constraint", "text": "keep it"},
        "invalid_request",
    ),
    ("empty message", ("depth", " "), "depth.classify", "classify_depth", {"text": " "}, "query_empty"),
]


@pytest.mark.parametrize(
    ("case", "argv", "method", "tool", "params", "code"), ERROR_CASES, ids=[c[0] for c in ERROR_CASES]
)
def test_the_same_mistake_gives_the_same_error_code(
    three: Three, case: str, argv: tuple[str, ...], method: str, tool: str, params: dict[str, Any], code: str
) -> None:
    needs_root = argv[0] in {"pack", "adaptive-pack", "memory"}
    full = (*argv, "--root", str(three.root)) if needs_root else argv
    assert three.same_error(full, method, tool, params) == code


CEILINGS: list[tuple[str, tuple[str, ...], str, str, dict[str, Any], str]] = [
    (
        "adaptive in tokens",
        ("adaptive-pack", "separability", "--max-tokens", "100000000"),
        "context.adaptive",
        "adaptive_context",
        {"query": "separability", "max_tokens": 100_000_000},
        "max_tokens must be between 1 and 2097152, got 100000000",
    ),
    (
        "adaptive in bytes",
        ("adaptive-pack", "separability", "--max-tokens", "100000000", "--tokenizer", "bytes"),
        "context.adaptive",
        "adaptive_context",
        {"query": "separability", "max_tokens": 100_000_000, "tokenizer": "bytes"},
        "max_tokens must be between 1024 and 8388608 bytes, got 100000000",
    ),
    (
        "map in tokens",
        ("map", "--max-tokens", "100000000"),
        "context.map",
        "map",
        {"max_tokens": 100_000_000},
        "max_tokens must be between 1 and 2097152, got 100000000",
    ),
]


@pytest.mark.parametrize(
    ("case", "argv", "method", "tool", "params", "message"), CEILINGS, ids=[c[0] for c in CEILINGS]
)
def test_a_ceiling_past_its_bound_is_told_the_bound_of_what_it_counts_on_every_interface(
    three: Three,
    case: str,
    argv: tuple[str, ...],
    method: str,
    tool: str,
    params: dict[str, Any],
    message: str,
) -> None:
    status, cli_out = three.cli(*argv, "--root", str(three.root))
    reply = three.rpc(method, params)["error"]
    is_error, mcp_out = three.tool(tool, params)
    assert status != 0 and is_error
    assert cli_out["error"]["message"] == reply["message"] == mcp_out["message"] == message
    assert reply["data"] == mcp_out["data"] == {"code": "value_out_of_range", "field": "max_tokens"}
