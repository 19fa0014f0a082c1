"""The one JSON-RPC 2.0 dispatcher, and the one place where exceptions become JSON-RPC errors.

Per the specification: ``-32700`` parse error and ``-32600`` invalid request answer with ``id: null``;
``-32601`` method not found; ``-32602`` invalid params naming the field; ``-32603`` internal error, never
with a traceback; project errors keep their ``-32000..-32099`` code and carry their stable string code in
``data.code``. Notifications (no ``id``) get no response, even when they fail. A batch answers each of its
requests in one array; an empty batch is one invalid-request error; a batch of notifications gets nothing.
An integer beyond ±(2^53 - 1), which valid JSON may hold but the wire cannot carry exactly, fails only its
own call: as its ``id``, an invalid request; in its params, invalid params naming the field.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from prooftext import check_params, result_problems
from prooftext.errors import CanonicalJSONError, LimitError, ProoftextError, RequestError
from prooftext.server import wire
from prooftext.server.context import ServerContext
from prooftext.server.methods import METHODS, Method

log = logging.getLogger("prooftext.server")

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

CODE_PARSE = "parse_error"
CODE_INVALID = "invalid_rpc_request"
CODE_NOT_FOUND = "method_not_found"
CODE_INTERNAL = "internal_error"

_ENVELOPE_KEYS = frozenset({"jsonrpc", "method", "params", "id"})
_NO_ID: Any = object()
"""Marks a notification (the ``id`` member is absent), as opposed to ``"id": null``."""


class ProtocolError(Exception):
    """A JSON-RPC protocol failure (not a project error): its wire code and stable string code."""

    def __init__(self, rpc_code: int, code: str, message: str, **data: Any) -> None:
        super().__init__(message)
        self.rpc_code = rpc_code
        self.code = code
        self.message = message
        self.data = data


def error_object(exc: BaseException) -> dict[str, Any]:
    """The JSON-RPC ``error`` member for any exception: the single mapping of the exception tree."""
    if isinstance(exc, ProtocolError):
        return {"code": exc.rpc_code, "message": exc.message, "data": {**exc.data, "code": exc.code}}
    if isinstance(exc, CanonicalJSONError):
        return {"code": PARSE_ERROR, "message": f"parse error: {exc.message}", "data": _data(exc)}
    if isinstance(exc, ProoftextError):
        return {"code": exc.rpc_code, "message": exc.message, "data": _data(exc)}
    log.error("internal error while serving a request", exc_info=exc)
    return {"code": INTERNAL_ERROR, "message": "internal error", "data": {"code": CODE_INTERNAL}}


def _data(exc: ProoftextError) -> dict[str, Any]:
    body = exc.to_dict()
    return {**body.get("details", {}), "code": body["code"]}


def _response(request_id: Any, *, result: Any = None, error: BaseException | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id}
    if error is not None:
        out["error"] = error_object(error)
    else:
        out["result"] = result
    return out


def out_of_range_params(exc: CanonicalJSONError, **data: Any) -> ProtocolError:
    """Invalid params (-32602) for a value the wire cannot carry, with the loader's code in ``data``."""
    field = data.get("field")
    where = f"{field}: " if field else ""
    return ProtocolError(INVALID_PARAMS, exc.code, f"invalid params: {where}{exc.message}", **data)


def _check_range(method: Method | None, params: Any) -> None:
    """Invalid params naming the field when ``params`` holds an integer beyond the safe range (an unknown
    method is left to be reported as one)."""
    found = None if method is None else wire.find_out_of_range(params)
    if method is None or found is None:
        return
    path, marker = found
    first = path[0]
    if isinstance(first, int) and first < len(method.positional):
        path[0] = method.positional[first]  # a positional param is named as its object member
    raise out_of_range_params(marker.error, field=".".join(str(p) for p in path))


@dataclass(frozen=True)
class Call:
    """One well-formed request or notification, ready to run."""

    method: str
    params: Any
    id: Any

    @property
    def is_notification(self) -> bool:
        return self.id is _NO_ID


def _valid_id(value: Any) -> bool:
    return value is None or isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _invalid(message: str) -> ProtocolError:
    return ProtocolError(INVALID_REQUEST, CODE_INVALID, f"invalid request: {message}")


def parse_call(message: Any) -> Call:
    """Check one request object's envelope; a :class:`ProtocolError` (-32600) otherwise."""
    if not isinstance(message, dict):
        raise _invalid("a request must be a JSON object")
    extra = sorted(set(message) - _ENVELOPE_KEYS)
    if extra:
        raise _invalid(f"unknown member {extra[0][:40]!r}")
    if message.get("jsonrpc") != "2.0":
        raise _invalid('"jsonrpc" must be exactly "2.0"')
    request_id = message.get("id", _NO_ID)
    if isinstance(request_id, wire.OutOfRange):
        raise _invalid(f'"id": {request_id.error.message}')
    if request_id is not _NO_ID and not _valid_id(request_id):
        raise _invalid('"id" must be a string, an integer or null')
    if not isinstance(message.get("method"), str):
        raise _invalid('"method" must be a string')
    params = message.get("params", {})
    if not isinstance(params, (dict, list)):
        raise _invalid('"params" must be an object or an array')
    return Call(message["method"], params, request_id)


def _named(method: Method, params: Any) -> dict[str, Any]:
    if isinstance(params, dict):
        return dict(params)
    if len(params) > len(method.positional):
        raise RequestError(
            f"{method.name} takes at most {len(method.positional)} positional params, got {len(params)}",
            field="params",
        )
    return dict(zip(method.positional, params, strict=False))


class Dispatcher:
    """Parses, validates, runs and answers JSON-RPC messages for one :class:`ServerContext`."""

    def __init__(
        self,
        ctx: ServerContext,
        *,
        validate_results: bool = True,
        methods: Mapping[str, Method] | None = None,
    ) -> None:
        self.ctx = ctx
        self.validate_results = validate_results
        self.methods = METHODS if methods is None else methods

    # -- the Python-level entry point (also used by the MCP tools) ------------------------------------

    def call(self, name: str, params: Any) -> dict[str, Any]:
        """Run one method by name: params checked against its schema, result against its schema."""
        method = self.methods.get(name)
        if method is None or name.startswith("rpc."):
            raise ProtocolError(METHOD_NOT_FOUND, CODE_NOT_FOUND, f"method not found: {name[:80]}")
        named = _named(method, params)
        if method.published:
            check_params(method.params_schema, named)
        result = method.handler(self.ctx, named)
        if self.validate_results and method.published:
            problems = result_problems(method.result_schema, result)
            if problems:
                raise RuntimeError(f"{name} result departs from its schema: {problems[:3]}")
        return result

    # -- the wire ------------------------------------------------------------------------------------

    def handle(self, payload: bytes) -> bytes | None:
        """One JSON-RPC message (a request, a notification or a batch) in; the response bytes or None."""
        reply = self.handle_message(payload)
        return None if reply is None else wire.dump(reply)

    def handle_message(self, payload: bytes) -> Any:
        try:
            message = wire.load_request(payload)
        except CanonicalJSONError as exc:
            return _response(None, error=exc)
        if not isinstance(message, list):
            return self.run_one(message)
        if not message:
            return _response(None, error=_invalid("an empty batch"))
        if len(message) > self.ctx.limits.max_batch:
            limit = self.ctx.limits.max_batch
            too_many = LimitError(f"a batch may hold at most {limit} calls", field="batch", limit=limit)
            return _response(None, error=too_many)
        replies = [r for r in (self.run_one(m) for m in message) if r is not None]
        return replies or None

    def run_one(self, message: Any) -> dict[str, Any] | None:
        """Answer one element: None for a notification, whatever happens while running it."""
        try:
            call = parse_call(message)
        except ProtocolError as exc:
            return _response(None, error=exc)
        try:
            _check_range(self.methods.get(call.method), call.params)
            result = self.call(call.method, call.params)
        except Exception as exc:
            return None if call.is_notification else _response(call.id, error=exc)
        return None if call.is_notification else _response(call.id, result=result)

    @staticmethod
    def error_response(request_id: Any, exc: BaseException) -> bytes:
        """A complete error response, for transports that fail a request before dispatching it."""
        return wire.dump(_response(request_id, error=exc))

    @staticmethod
    def request_ids(payload_message: Any) -> list[Any]:
        """The ids a parsed message expects answers for (for deadline errors); empty for notifications."""
        items = payload_message if isinstance(payload_message, list) else [payload_message]
        ids = []
        for item in items:
            if isinstance(item, dict) and "id" in item and _valid_id(item["id"]):
                ids.append(item["id"])
        return ids
