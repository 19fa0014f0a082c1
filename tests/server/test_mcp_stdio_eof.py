"""``prooftext mcp`` on stdio answers every request it read before its input ended, then exits."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio

from prooftext.server.mcp_server import InFlight

BOOTSTRAP = "import prooftext.cli.serve; from prooftext.cli import main; main()"
"""The CLI module imported explicitly, as test_mcp_tools launches it."""
HANG_GUARD_S = 300
"""Fails the test instead of hanging it should the server never exit; never reached when it works."""
INITIALIZE_ID = 1
INITIALIZE: dict[str, Any] = {
    "jsonrpc": "2.0",
    "id": INITIALIZE_ID,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
CALLS: dict[int, tuple[str, dict[str, Any]]] = {
    2: ("index_status", {}),
    3: ("search", {"query": "separability matrix"}),
    4: ("classify_depth", {"text": "How does the separability matrix work?"}),
}


def _call(request_id: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    params = {"name": name, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def _session(root: Path, messages: list[dict[str, Any]]) -> tuple[int, list[dict[str, Any]]]:
    """Write every message in one write, close stdin at once, and read stdout until the server exits."""
    command = [sys.executable, "-c", BOOTSTRAP, "mcp", "--root", str(root), "--no-warm", "--tools", "all"]
    payload = "".join(json.dumps(m) + "\n" for m in messages).encode()
    done = subprocess.run(command, input=payload, capture_output=True, timeout=HANG_GUARD_S, check=False)
    return done.returncode, [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def test_every_tools_call_written_just_before_stdin_closes_is_answered_before_the_server_exits(
    sample_repo: Path,
) -> None:
    calls = [_call(request_id, *call) for request_id, call in CALLS.items()]
    status, replies = _session(sample_repo, [INITIALIZE, INITIALIZED, *calls])
    assert status == 0
    assert sorted(r["id"] for r in replies) == [INITIALIZE_ID, *CALLS]
    assert all(r["result"].get("isError") is False for r in replies if r["id"] in CALLS)


def test_a_request_the_client_cancels_does_not_keep_the_server_waiting_at_end_of_input(
    sample_repo: Path,
) -> None:
    cancelled, kept = 2, 3
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": str(cancelled)}}
    messages = [
        INITIALIZE,
        INITIALIZED,
        _call(cancelled, *CALLS[cancelled]),
        cancel,
        _call(kept, *CALLS[kept]),
    ]
    status, replies = _session(sample_repo, messages)
    ids = [r["id"] for r in replies]
    assert status == 0
    assert INITIALIZE_ID in ids and kept in ids
    assert ids.count(cancelled) <= 1  # answered or not, as the cancel raced the handler, never twice


def test_in_flight_is_drained_once_each_request_is_answered_or_cancelled() -> None:
    def request(request_id: int | str) -> str:
        return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "ping"})

    def cancel(request_id: str) -> str:
        params = {"requestId": request_id}
        return json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params})

    async def main() -> list[bool]:
        from mcp_types import JSONRPCResponse

        in_flight = InFlight()
        drained = anyio.Event()

        async def wait() -> None:
            await in_flight.drained()
            drained.set()

        for line in (request(1), request(1), request(2)):
            in_flight.read(line)
        states = []
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(wait)
            for step in (
                lambda: in_flight.answered(JSONRPCResponse(jsonrpc="2.0", id=1, result={})),
                lambda: in_flight.read(cancel("2")),  # "2" and 2 are one id, as the SDK correlates them
                lambda: in_flight.answered(JSONRPCResponse(jsonrpc="2.0", id=2, result={})),  # late: no-op
                lambda: in_flight.answered(JSONRPCResponse(jsonrpc="2.0", id=1, result={})),
            ):
                step()
                await anyio.wait_all_tasks_blocked()  # the waiter has run as far as it can
                states.append(drained.is_set())
        return states

    assert anyio.run(main) == [False, False, False, True]
