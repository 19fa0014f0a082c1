"""Every turn input (identity, summary, attachments, active files) through the real servers: ``prooftext
serve --stdio`` (JSON-RPC ``turn.plan``) and ``prooftext mcp`` (MCP ``plan_turn``), each a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from prooftext.memory import MemoryStore

BOOTSTRAP = "import prooftext.cli.serve; from prooftext.cli import main; main()"
HANG_GUARD_S = 300
VOICE = "You are Luminos, a calm gardener who answers in short sentences."
KEPT = "You are Fern, the thread's own voice."
SUMMARY = "So far: the user is planning a herb garden on a balcony."
NOTE = "Basil wants six hours of sun.\n"
PARAMS: dict[str, Any] = {
    "text": "What should I plant first?",
    "thread": "garden",
    "identity": VOICE,
    "summary": SUMMARY,
    "attachments": ["notes/basil.md"],
    "active_files": ["notes/mint.md"],
}


def _root(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "basil.md").write_text(NOTE)
    (root / "notes" / "mint.md").write_text("Mint spreads; keep it in its own pot.\n")
    with MemoryStore.open(root) as store:
        store.set_thread_identity("kept", KEPT)
    return root


def _run(args: list[str], messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    payload = "".join(json.dumps(m) + "\n" for m in messages).encode()
    done = subprocess.run(
        [sys.executable, "-c", BOOTSTRAP, *args], input=payload, capture_output=True, timeout=HANG_GUARD_S
    )
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def _check_plan(result: dict[str, Any]) -> None:
    plan = result["plan"]
    system = plan["messages"][0]["content"]
    assert plan["tier"] == "deep"  # an attachment makes the turn deep
    assert VOICE in system and SUMMARY in system and NOTE.strip() in system
    assert 'label="attachment: notes/basil.md' in system and 'label="active file: notes/mint.md' in system
    assert "BEGIN CONTEXT" in system and "Mint spreads" in system
    steps = {s["name"]: s for s in plan["steps"]}
    assert steps["identity"]["detail"]["source"] == "request" and steps["files"]["detail"]["used"] == 2
    assert plan["messages"][-1] == {"role": "user", "content": PARAMS["text"]}


def _check_kept(result: dict[str, Any]) -> None:
    plan = result["plan"]
    assert plan["tier"] == "surface" and KEPT in plan["messages"][0]["content"]
    assert {s["name"]: s for s in plan["steps"]}["identity"]["detail"]["source"] == "thread"


def test_json_rpc_turn_plan_takes_every_turn_input_over_the_stdio_server(tmp_path: Path) -> None:
    """Requirement: turn.inputs.rpc"""
    root = _root(tmp_path)
    replies = _run(
        ["serve", "--stdio", "--root", str(root), "--no-warm"],
        [
            {"jsonrpc": "2.0", "id": 1, "method": "turn.plan", "params": PARAMS},
            {"jsonrpc": "2.0", "id": 2, "method": "turn.plan", "params": {"text": "hi", "thread": "kept"}},
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "turn.plan",
                "params": {"text": "hi", "attachments": ["../x"]},
            },
        ],
    )
    by_id = {r["id"]: r for r in replies}
    _check_plan(by_id[1]["result"])
    _check_kept(by_id[2]["result"])
    assert by_id[3]["error"]["data"]["code"] == "path_outside_root"


def test_mcp_plan_turn_takes_every_turn_input_over_the_stdio_server(tmp_path: Path) -> None:
    """Requirement: turn.inputs.mcp"""
    root = _root(tmp_path)
    init = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"},
        },
    }
    calls = [
        init,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "plan_turn", "arguments": PARAMS},
        },
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "plan_turn", "arguments": {"text": "hi", "thread": "kept"}},
        },
    ]
    replies = {
        r.get("id"): r for r in _run(["mcp", "--root", str(root), "--no-warm", "--tools", "all"], calls)
    }
    _check_plan(replies[1]["result"]["structuredContent"])
    _check_kept(replies[2]["result"]["structuredContent"])
