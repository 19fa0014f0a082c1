"""Results are checked against their published schemas by a compiled validator that sees what Python sees."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from prooftext import load_schema, result_problems
from prooftext.server.context import ServerContext
from prooftext.server.dispatcher import Dispatcher
from prooftext.server.methods import METHODS, Method


def _adaptive(ctx: ServerContext) -> dict[str, Any]:
    return Dispatcher(ctx, validate_results=False).call("context.adaptive", {"query": "greeting function"})


def test_a_served_adaptive_result_conforms_to_its_schema(ctx: ServerContext) -> None:
    assert result_problems("rpc-context.adaptive.result.schema.json", _adaptive(ctx)) == []


def test_a_reference_into_the_adaptive_artifact_schema_is_followed(ctx: ServerContext) -> None:
    # rpc-context.pack.result refers to prooftext.adaptive-context/v1#/$defs/packet (a relative id).
    packet = Dispatcher(ctx, validate_results=False).call("context.pack", {"query": "greeting function"})
    assert result_problems("rpc-context.pack.result.schema.json", packet) == []
    broken = copy.deepcopy(packet)
    broken["evidence"] = "not a list"
    assert result_problems("rpc-context.pack.result.schema.json", broken)


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (lambda r: r.__setitem__("stop_reason", "tired"), "/stop_reason"),
        (lambda r: r["rounds"][0].__setitem__("surprise", 1), "/rounds/0"),
        (lambda r: r.pop("digests"), "/"),
    ],
)
def test_a_result_that_departs_from_its_schema_is_reported_with_its_place(
    ctx: ServerContext, change: Any, where: str
) -> None:
    result = _adaptive(ctx)
    change(result)
    problems = result_problems("rpc-context.adaptive.result.schema.json", result)
    assert problems and problems[0].startswith(where + ":")


def test_the_dispatcher_refuses_to_send_a_result_its_schema_rejects(ctx: ServerContext) -> None:
    def bad(_ctx: ServerContext, _params: dict[str, Any]) -> dict[str, Any]:
        return {"unexpected": True}

    status = METHODS["index.status"]
    methods = {"index.status": Method(**{**status.__dict__, "handler": bad})}
    with pytest.raises(RuntimeError, match="departs from its schema"):
        Dispatcher(ctx, methods=methods).call("index.status", {})


def test_memory_add_without_a_thread_stores_none_and_its_schema_promises_no_other_default(
    ctx: ServerContext,
) -> None:
    record = Dispatcher(ctx).call("memory.add", {"kind": "decision", "text": "Use WAL"})["record"]
    thread = load_schema("rpc-memory.add.params.schema.json")["properties"]["thread"]
    assert record["thread"] is None
    assert thread.get("default") is None
