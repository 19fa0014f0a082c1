"""The JSON-RPC 2.0 specification's examples (section 7), table-driven, against the one dispatcher.

The example methods (subtract, sum, update, notify_hello, get_data) are served by a test method table; the
dispatcher, envelope checks, batching and error mapping are the production ones.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from prooftext.server.context import ServerContext
from prooftext.server.dispatcher import Dispatcher
from prooftext.server.methods import Method


def _subtract(ctx: ServerContext, p: dict[str, Any]) -> Any:
    return p["minuend"] - p["subtrahend"]


def _sum(ctx: ServerContext, p: dict[str, Any]) -> Any:
    return p["a"] + p["b"] + p["c"]


def _nothing(ctx: ServerContext, p: dict[str, Any]) -> Any:
    return None


def _get_data(ctx: ServerContext, p: dict[str, Any]) -> Any:
    return ["hello", 5]


SPEC_METHODS = {
    m.name: m
    for m in (
        Method("subtract", _subtract, ("minuend", "subtrahend"), published=False),
        Method("sum", _sum, ("a", "b", "c"), published=False),
        Method("update", _nothing, ("a", "b", "c", "d", "e"), published=False),
        Method("notify_hello", _nothing, ("a",), published=False),
        Method("notify_sum", _nothing, ("a", "b", "c"), published=False),
        Method("get_data", _get_data, published=False),
    )
}

PARSE, INVALID, NOT_FOUND = -32700, -32600, -32601


def ok(result: Any, rid: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "result": result, "id": rid}


def err(code: int, rid: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "error": code, "id": rid}


def _codes_only(reply: Any) -> Any:
    """Error objects reduced to their code (messages are ours to word; codes are the specification's)."""
    if isinstance(reply, list):
        return [_codes_only(r) for r in reply]
    if isinstance(reply, dict) and "error" in reply:
        return {**reply, "error": reply["error"]["code"]}
    return reply


SPEC_EXAMPLES: list[tuple[str, str, Any]] = [
    (
        "positional params",
        '{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}',
        ok(19, 1),
    ),
    (
        "positional params, reversed",
        '{"jsonrpc": "2.0", "method": "subtract", "params": [23, 42], "id": 2}',
        ok(-19, 2),
    ),
    (
        "named params",
        '{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}',
        ok(19, 3),
    ),
    (
        "named params, other order",
        '{"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 42, "subtrahend": 23}, "id": 4}',
        ok(19, 4),
    ),
    ("notification", '{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}', None),
    ("notification of an unknown method", '{"jsonrpc": "2.0", "method": "foobar"}', None),
    ("non-existent method", '{"jsonrpc": "2.0", "method": "foobar", "id": "1"}', err(NOT_FOUND, "1")),
    (
        "invalid JSON",
        '{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]',
        err(PARSE, None),
    ),
    ("invalid request object", '{"jsonrpc": "2.0", "method": 1, "params": "bar"}', err(INVALID, None)),
    (
        "batch, invalid JSON",
        '[{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"}, {"jsonrpc": "2.0", "method"]',
        err(PARSE, None),
    ),
    ("empty array", "[]", err(INVALID, None)),
    ("invalid batch, not empty", "[1]", [err(INVALID, None)]),
    ("invalid batch", "[1,2,3]", [err(INVALID, None)] * 3),
    (
        "batch",
        "["
        '{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},'
        '{"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},'
        '{"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},'
        '{"foo": "boo"},'
        '{"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},'
        '{"jsonrpc": "2.0", "method": "get_data", "id": "9"}'
        "]",
        [ok(7, "1"), ok(19, "2"), err(INVALID, None), err(NOT_FOUND, "5"), ok(["hello", 5], "9")],
    ),
    (
        "batch of notifications only",
        '[{"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]},'
        ' {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}]',
        None,
    ),
]


@pytest.mark.parametrize(
    ("case", "request_text", "expected"), SPEC_EXAMPLES, ids=[c[0] for c in SPEC_EXAMPLES]
)
def test_specification_example(ctx: ServerContext, case: str, request_text: str, expected: Any) -> None:
    dispatcher = Dispatcher(ctx, methods=SPEC_METHODS)
    out = dispatcher.handle(request_text.encode())
    reply = None if out is None else json.loads(out)
    assert _codes_only(reply) == expected


def test_every_error_carries_a_message_and_a_stable_string_code(ctx: ServerContext) -> None:
    dispatcher = Dispatcher(ctx, methods=SPEC_METHODS)
    out = dispatcher.handle(b'[1, {"jsonrpc": "2.0", "method": "nope", "id": 7}, {bad')
    error = json.loads(out or b"null")["error"]
    assert error["code"] == PARSE and error["message"] and error["data"]["code"] == "json_syntax"
    replies = json.loads(dispatcher.handle(b'[1, {"jsonrpc": "2.0", "method": "nope", "id": 7}]') or b"null")
    assert [r["error"]["data"]["code"] for r in replies] == ["invalid_rpc_request", "method_not_found"]


def test_too_many_positional_params_is_invalid_params_naming_params(ctx: ServerContext) -> None:
    dispatcher = Dispatcher(ctx, methods=SPEC_METHODS)
    out = dispatcher.handle(b'{"jsonrpc": "2.0", "method": "subtract", "params": [1, 2, 3], "id": 1}')
    error = json.loads(out or b"null")["error"]
    assert error["code"] == -32602 and error["data"]["field"] == "params"


@pytest.mark.parametrize(
    ("payload", "said"),
    [
        (
            b'{"jsonrpc": "2.0", "method": "a\x1bb", "id": 1}',
            "invalid JSON: Invalid control character at line 1",
        ),
        (b'{"jsonrpc": "2.0", "method": "nope', "invalid JSON: Unterminated string starting at line 1"),
    ],
    ids=["control character", "unterminated string"],
)
def test_a_parse_error_says_where_the_fault_is_once(ctx: ServerContext, payload: bytes, said: str) -> None:
    error = json.loads(Dispatcher(ctx, methods=SPEC_METHODS).handle(payload) or b"null")["error"]
    assert error["code"] == PARSE and error["data"]["code"] == "json_syntax"
    assert said in error["message"] and "at at" not in error["message"]
