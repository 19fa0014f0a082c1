"""Hostile JSON-RPC input (catalogue D and G): each is one clear error, and the dispatcher keeps serving."""

from __future__ import annotations

import json
from typing import Any

import pytest

from prooftext.server.context import ServerContext
from prooftext.server.dispatcher import Dispatcher
from prooftext.server.methods import METHODS, Method

from .conftest import Rpc, send

STATUS = b'{"jsonrpc": "2.0", "method": "index.status", "id": 1}'

PARSE_CASES: list[tuple[str, bytes, str]] = [
    ("malformed", b'{"jsonrpc": "2.0", "method": ', "json_syntax"),
    ("trailing garbage", STATUS + b" x", "json_syntax"),
    ("two values", STATUS + STATUS, "json_syntax"),
    (
        "duplicate keys",
        b'{"jsonrpc": "2.0", "id": 1, "id": 2, "method": "index.status"}',
        "json_duplicate_key",
    ),
    ("NaN", b'{"jsonrpc": "2.0", "id": NaN, "method": "index.status"}', "json_nonfinite"),
    (
        "Infinity via 1e400",
        b'{"jsonrpc": "2.0", "id": 1, "method": "x", "params": [1e400]}',
        "json_nonfinite",
    ),
    ("byte-order mark", b"\xef\xbb\xbf" + STATUS, "json_bom"),
    ("invalid UTF-8", b'{"jsonrpc": "2.0", "id": "\xff", "method": "index.status"}', "json_encoding"),
    (
        "lone surrogate",
        b'{"jsonrpc": "2.0", "id": "\\ud800", "method": "index.status"}',
        "json_lone_surrogate",
    ),
    (
        "an integer beyond 2^53 before a NaN",
        b'{"jsonrpc": "2.0", "id": 9007199254740993, "method": "m", "params": [NaN]}',
        "json_integer_range",
    ),
    (
        "a duplicate key beside an integer beyond 2^53",
        b'{"jsonrpc": "2.0", "id": 1, "id": 2, "method": "m", "params": [9007199254740993]}',
        "json_duplicate_key",
    ),
    ("100000-deep nesting", b"[" * 100_000 + b"]" * 100_000, "json_too_deep"),
    (
        "nesting one past the limit",
        b'{"jsonrpc": "2.0", "id": 1, "method": "m", "params": ' + b"[" * 64 + b"]" * 64 + b"}",
        "json_too_deep",
    ),
]


@pytest.mark.parametrize(("case", "payload", "code"), PARSE_CASES, ids=[c[0] for c in PARSE_CASES])
def test_unparsable_input_is_a_parse_error_with_id_null(
    rpc: Rpc, case: str, payload: bytes, code: str
) -> None:
    reply = rpc(payload)
    assert reply["id"] is None
    assert reply["error"]["code"] == -32700 and reply["error"]["data"]["code"] == code
    assert rpc(STATUS)["result"]["fresh"] is True


@pytest.mark.parametrize("request_id", [7, "seven"])
def test_an_integer_beyond_2_53_in_params_is_invalid_params_under_the_request_s_own_id(
    rpc: Rpc, request_id: object
) -> None:
    """Valid JSON the wire cannot carry exactly: the caller still learns which request failed."""
    payload = {"jsonrpc": "2.0", "id": request_id, "method": "context.pack", "params": {"query": "x"}}
    raw = json.dumps(payload).encode()[:-2] + b', "max_tokens": 100000000000000000}}'
    reply = rpc(raw)
    assert reply["id"] == request_id
    assert reply["error"]["code"] == -32602
    assert reply["error"]["data"] == {"code": "json_integer_range", "field": "max_tokens"}
    assert rpc(STATUS)["result"]["fresh"] is True


@pytest.mark.parametrize("digits", [b"9007199254740993", b"-9007199254740992", b"9" * 5000])
def test_an_id_beyond_2_53_is_an_invalid_request_with_id_null(rpc: Rpc, digits: bytes) -> None:
    reply = rpc(b'{"jsonrpc": "2.0", "id": ' + digits + b', "method": "index.status"}')
    assert reply["id"] is None and reply["error"]["code"] == -32600
    assert reply["error"]["data"] == {"code": "invalid_rpc_request"}
    assert "safe range" in reply["error"]["message"]


def test_integers_beyond_2_53_in_a_batch_fail_only_their_own_calls(rpc: Rpc) -> None:
    big = b"9007199254740993"
    batch = b"".join(
        [
            b'[{"jsonrpc": "2.0", "id": 7, "method": "context.search", "params": {"query": "x", "limit": ',
            big + b"}},",
            b'{"jsonrpc": "2.0", "id": 8, "method": "nope", "params": [' + big + b"]},",
            b'{"jsonrpc": "2.0", "id": ' + big + b', "method": "index.status"},',
            b'{"jsonrpc": "2.0", "id": 9, "method": "context.pack", "params": ["the \\"9007199254740993\\"", ',
            big + b"]},",
            b'{"jsonrpc": "2.0", "id": 10, "method": "context.pack", "params": {"query": "x", "path_seeds": ',
            b'["a", ' + big + b"]}},",
            b'{"jsonrpc": "2.0", "method": "context.search", "params": {"query": "x", "limit": '
            + big
            + b"}},",
            STATUS + b"]",
        ]
    )
    replies = rpc(batch)
    assert [r["id"] for r in replies] == [7, 8, None, 9, 10, 1]
    fields = [r["error"]["data"]["field"] for r in replies if r.get("error", {}).get("code") == -32602]
    assert fields == ["limit", "max_tokens", "path_seeds.1"]
    assert [r["error"]["code"] for r in replies[1:3]] == [-32601, -32600]
    assert replies[-1]["result"]["fresh"] is True


INVALID_CASES: list[tuple[str, Any]] = [
    ("method is a number", {"jsonrpc": "2.0", "method": 1}),
    ("jsonrpc missing", {"method": "index.status", "id": 1}),
    ("jsonrpc 1.0", {"jsonrpc": "1.0", "method": "index.status", "id": 1}),
    ("id is a float", {"jsonrpc": "2.0", "method": "index.status", "id": 1.5}),
    ("id is an object", {"jsonrpc": "2.0", "method": "index.status", "id": {"a": 1}}),
    ("id is an array", {"jsonrpc": "2.0", "method": "index.status", "id": [1]}),
    ("id is a boolean", {"jsonrpc": "2.0", "method": "index.status", "id": True}),
    ("params is a string", {"jsonrpc": "2.0", "method": "index.status", "params": "x", "id": 1}),
    ("unknown member", {"jsonrpc": "2.0", "method": "index.status", "id": 1, "extra": 1}),
    ("not an object", "index.status"),
]


@pytest.mark.parametrize(("case", "message"), INVALID_CASES, ids=[c[0] for c in INVALID_CASES])
def test_malformed_request_objects_are_invalid_requests_with_id_null(
    rpc: Rpc, case: str, message: Any
) -> None:
    reply = rpc(message)
    assert reply == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {
            "code": -32600,
            "message": reply["error"]["message"],
            "data": {"code": "invalid_rpc_request"},
        },
    }


def test_an_invalid_notification_still_gets_its_invalid_request_answer(rpc: Rpc) -> None:
    assert rpc({"jsonrpc": "2.0", "method": 1})["error"]["code"] == -32600


def test_unknown_and_reserved_methods_are_method_not_found_with_the_same_id(rpc: Rpc) -> None:
    for name in ("nope", "rpc.discover", "index.status.extra", ""):
        reply = rpc({"jsonrpc": "2.0", "method": name, "id": "abc"})
        assert reply["id"] == "abc" and reply["error"]["code"] == -32601


def test_a_failing_notification_gets_no_response(rpc: Rpc) -> None:
    assert rpc({"jsonrpc": "2.0", "method": "context.pack", "params": {"query": 5}}) is None
    assert rpc({"jsonrpc": "2.0", "method": "nope"}) is None


WRONG_PARAMS: list[tuple[str, str, Any, str, str]] = [
    (
        "float in an integer field",
        "context.pack",
        {"query": "x", "max_tokens": 1.0},
        "max_tokens",
        "invalid_request",
    ),
    (
        "1e2 in an integer field",
        "context.adaptive",
        {"query": "x", "min_tokens": 1e2},
        "min_tokens",
        "invalid_request",
    ),
    ("boolean as integer", "context.select", {"query": "x", "limit": True}, "limit", "invalid_request"),
    (
        "string as integer",
        "context.adaptive",
        {"query": "x", "max_nodes": "64"},
        "max_nodes",
        "invalid_request",
    ),
    ("query is a number", "context.adaptive", {"query": 42}, "query", "invalid_request"),
    ("missing field", "context.adaptive", {}, "query", "invalid_request"),
    ("unknown field", "context.adaptive", {"query": "x", "budget": 5}, "budget", "invalid_request"),
    ("unknown tokenizer", "context.pack", {"query": "x", "tokenizer": "gpt9"}, "tokenizer", "unknown_name"),
    ("negative budget", "context.pack", {"query": "x", "max_tokens": -1}, "max_tokens", "value_out_of_range"),
    ("zero budget", "context.adaptive", {"query": "x", "max_tokens": 0}, "max_tokens", "value_out_of_range"),
    (
        "too many top files",
        "context.adaptive",
        {"query": "x", "min_top_files": 65},
        "min_top_files",
        "value_out_of_range",
    ),
    (
        "array where a list of strings",
        "context.pack",
        {"query": "x", "required": [1]},
        "required.0",
        "invalid_request",
    ),
    ("empty query", "context.adaptive", {"query": "   "}, "query", "query_empty"),
    ("stop words only", "context.adaptive", {"query": "the of and a"}, "query", "query_empty"),
    (
        "min above max",
        "context.adaptive",
        {"query": "x", "min_tokens": 9000, "max_tokens": 8000},
        "min_tokens",
        "value_out_of_range",
    ),
    (
        "a ladder of two million rungs",
        "context.adaptive",
        {"query": "x", "min_tokens": 1, "token_step": 1, "max_tokens": 2_097_152},
        "token_step",
        "value_out_of_range",
    ),
    ("bad thread name", "turn.plan", {"text": "hello there", "thread": "../x"}, "thread", "invalid_request"),
    ("unknown memory kind", "memory.add", {"kind": "rumour", "text": "x"}, "kind", "unknown_name"),
    (
        "constraint without strength",
        "memory.add",
        {"kind": "constraint", "text": "x"},
        "strength",
        "invalid_request",
    ),
    (
        "packet without evidence",
        "context.verify",
        {"packet": {"prompt": "x"}},
        "packet.version",
        "invalid_request",
    ),
    ("too many positional", "index.status", [1], "params", "invalid_request"),
    ("no targets", "context.risk", {"targets": []}, "targets", "value_out_of_range"),
]


@pytest.mark.parametrize(
    ("case", "method", "params", "field", "code"), WRONG_PARAMS, ids=[c[0] for c in WRONG_PARAMS]
)
def test_wrong_params_are_invalid_params_naming_the_field(
    rpc: Rpc, case: str, method: str, params: Any, field: str, code: str
) -> None:
    reply = rpc({"jsonrpc": "2.0", "method": method, "params": params, "id": 9})
    assert reply["id"] == 9
    assert reply["error"]["code"] == -32602, reply
    assert reply["error"]["data"]["code"] == code
    assert reply["error"]["data"]["field"] == field


def test_paths_outside_the_root_are_refused_with_a_project_code(rpc: Rpc) -> None:
    for method, params in (
        ("context.pack", {"query": "separability", "required": ["../outside.py"]}),
        ("context.adaptive", {"query": "separability", "required": ["/etc/passwd"]}),
        ("context.risk", {"targets": ["../../etc/passwd"]}),
    ):
        reply = rpc({"jsonrpc": "2.0", "method": method, "params": params, "id": 1})
        assert reply["error"]["code"] == -32005, reply
        assert reply["error"]["data"]["code"] == "path_outside_root"


def test_verify_never_reads_outside_the_root(rpc: Rpc) -> None:
    packet = rpc({"jsonrpc": "2.0", "method": "context.pack", "params": {"query": "separability"}, "id": 1})
    evidence = packet["result"]["evidence"]
    evidence[0]["path"] = "../../../etc/passwd"
    report = rpc(
        {"jsonrpc": "2.0", "method": "context.verify", "params": {"packet": packet["result"]}, "id": 2}
    )
    assert report["result"]["ok"] is False
    assert report["result"]["problems"][0]["path"] == "../../../etc/passwd"


def _boom(ctx: ServerContext, params: dict[str, Any]) -> Any:
    raise KeyError("secret-value-in-a-traceback")


def test_a_handler_bug_is_an_internal_error_without_traceback_and_serving_continues(
    ctx: ServerContext,
) -> None:
    methods = {**METHODS, "boom": Method("boom", _boom, published=False)}
    dispatcher = Dispatcher(ctx, methods=methods)
    reply = send(dispatcher, {"jsonrpc": "2.0", "method": "boom", "id": 3})
    assert reply == {
        "jsonrpc": "2.0",
        "id": 3,
        "error": {"code": -32603, "message": "internal error", "data": {"code": "internal_error"}},
    }
    assert send(dispatcher, {"jsonrpc": "2.0", "method": "index.status", "id": 4})["result"]["fresh"]


def test_a_batch_larger_than_the_limit_is_refused_whole(rpc: Rpc, ctx: ServerContext) -> None:
    batch = [{"jsonrpc": "2.0", "method": "index.status", "id": i} for i in range(ctx.limits.max_batch + 1)]
    reply = rpc(batch)
    assert reply["id"] is None and reply["error"]["data"]["code"] == "limit_exceeded"


def test_same_id_reused_in_one_batch_is_answered_twice(rpc: Rpc) -> None:
    message = {"jsonrpc": "2.0", "method": "depth.classify", "params": ["hi"], "id": 5}
    replies = rpc([message, {**message, "params": ["please analyze the separability matrix in detail"]}])
    assert [r["id"] for r in replies] == [5, 5]
    assert [r["result"]["decision"]["tier"] for r in replies] == ["surface", "deep"]


@pytest.mark.parametrize(
    ("params", "field", "index"),
    [
        ({"text": "hi", "active_files": ["/etc/passwd"]}, "active_files", 0),
        ({"text": "hi", "attachments": ["modeling/__init__.py", "../outside.md"]}, "attachments", 1),
    ],
)
def test_a_turn_file_outside_the_root_names_its_field_and_index(
    rpc: Rpc, params: dict[str, Any], field: str, index: int
) -> None:
    reply = rpc({"jsonrpc": "2.0", "method": "turn.plan", "params": params, "id": 1})
    assert reply["error"]["data"]["code"] == "path_outside_root", reply
    assert reply["error"]["data"]["field"] == field and reply["error"]["data"]["index"] == index
