"""Results are checked against their published schemas by a compiled validator that sees what Python sees."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from prooftext import load_schema, result_problems
from prooftext.adaptive.ladder import MAX_NODE_CEILING
from prooftext.canonical import MAX_SAFE_INTEGER
from prooftext.errors import RangeError
from prooftext.schema_registry import schema_names
from prooftext.select.query import MAX_DEPTH, MAX_NODES
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


WHOLE_NUMBER_BOUNDS: dict[tuple[str, str], int | None] = {
    ("context.pack", "max_tokens"): None,
    ("context.pack", "max_nodes"): MAX_NODES,
    ("context.pack", "max_depth"): MAX_DEPTH,
    ("context.map", "max_tokens"): None,
    **{("context.adaptive", name): None for name in ("min_tokens", "max_tokens", "token_step")},
    **{
        ("context.adaptive", name): MAX_NODE_CEILING
        for name in ("min_nodes", "max_nodes", "node_step", "min_evidence")
    },
    **{("context.read", name): MAX_SAFE_INTEGER for name in ("start", "end")},
    ("depth.classify", "active_files"): MAX_SAFE_INTEGER,
    ("memory.surface", "active_files"): MAX_SAFE_INTEGER,
}
"""The largest value of each whole-number parameter the server accepts, which its schema states (a count with
no bound of its own is bounded by the integers JSON readers read exactly). A token ceiling's bound depends on
what it counts (2,097,152 tokens, 8,388,608 bytes): its description says so, and the server's refusal names
the bound of its basis, which a schema's one maximum would hide."""


def test_every_whole_number_a_method_takes_states_the_largest_value_the_server_accepts() -> None:
    stated = {}
    for name in schema_names():
        if name.startswith("rpc-") and name.endswith(".params.schema.json"):
            method = name.removeprefix("rpc-").removesuffix(".params.schema.json")
            for field, spec in load_schema(name).get("properties", {}).items():
                listed = (method, field) in WHOLE_NUMBER_BOUNDS
                if spec.get("type") == "integer" and (listed or "maximum" not in spec):
                    stated[(method, field)] = spec.get("maximum")
    assert stated == WHOLE_NUMBER_BOUNDS


@pytest.mark.parametrize(
    ("method", "field"), [("context.pack", "max_depth"), ("context.adaptive", "node_step")]
)
def test_a_value_above_a_stated_maximum_is_refused_as_out_of_range_naming_it(
    ctx: ServerContext, method: str, field: str
) -> None:
    with pytest.raises(RangeError) as refused:
        Dispatcher(ctx).call(
            method, {"query": "greeting", field: (WHOLE_NUMBER_BOUNDS[(method, field)] or 0) + 1}
        )
    assert refused.value.details["field"] == field
