"""Validating params and results against the published ``rpc-*.schema.json`` files.

Params go through ``jsonschema`` (its errors name the field precisely). Results, which are large and
checked on every call, go through ``jsonschema_rs`` (compiled; validation takes microseconds, not the
milliseconds a pure-Python walk of a packet costs).

A params violation becomes the same error class the core raises for the same mistake, naming the field:
``unknown_name`` for a value outside an enumeration, ``value_out_of_range`` for a bound, and
``invalid_request`` for everything else (a missing field, a wrong type, an unknown field). Integers are
integers: ``1.0`` is refused where an integer belongs (JSON Schema alone would accept it).
"""

from __future__ import annotations

import functools
from typing import Any

import jsonschema_rs
from jsonschema import ValidationError

from prooftext.errors import RangeError, RequestError, UnknownNameError
from prooftext.schema_registry import StrictValidator, innermost, load_schema, schema_names, shipped_registry

_NAME_KEYWORDS = frozenset({"enum", "const"})
_RANGE_KEYWORDS = frozenset(
    {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "maxItems", "minItems", "maxLength"}
)
_MESSAGE_CHARS = 300


@functools.cache
def validator(name: str) -> Any:
    """A compiled validator for one shipped schema (references resolve among the shipped schemas)."""
    return StrictValidator(load_schema(name), registry=shipped_registry())


def _field(error: ValidationError) -> str:
    path = [str(p) for p in error.absolute_path]
    if error.validator == "required" and isinstance(error.instance, dict):
        missing = [p for p in error.validator_value if p not in error.instance]
        path.append(str(missing[0]) if missing else "")
    elif error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = set(error.schema.get("properties", {}))
        extra = sorted(k for k in error.instance if k not in allowed)
        path.append(extra[0] if extra else "")
    return ".".join(p for p in path if p) or "params"


def _error_for(error: ValidationError) -> RequestError:
    error = innermost(error)
    field = _field(error)
    message = f"invalid params: {field}: {error.message[:_MESSAGE_CHARS]}"
    if error.validator in _NAME_KEYWORDS:
        return UnknownNameError(message, field=field)
    if error.validator in _RANGE_KEYWORDS:
        return RangeError(message, field=field)
    return RequestError(message, field=field)


def check_params(schema_name: str, params: dict[str, Any]) -> None:
    """Raise the request error naming the first failing field (errors ordered by path for determinism)."""
    errors = sorted(
        validator(schema_name).iter_errors(params), key=lambda e: [str(p) for p in e.absolute_path]
    )
    if errors:
        raise _error_for(errors[0])


_ID_SCHEME = "urn:prooftext:id:"
"""Prefix for a shipped ``$id`` that is not an absolute URI (``prooftext.adaptive-context/v1``): a strict
resolver refuses a relative reference against a ``urn:`` base, so the compiled copies use absolute ids."""


@functools.cache
def _relative_ids() -> frozenset[str]:
    ids = (load_schema(name).get("$id") for name in schema_names())
    return frozenset(i for i in ids if isinstance(i, str) and ":" not in i)


def _absolute(node: Any) -> Any:
    """A copy of a schema whose relative ``$id``s, and references to them, are absolute URNs."""
    if isinstance(node, list):
        return [_absolute(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("$id", "$ref") and isinstance(value, str) and value.split("#", 1)[0] in _relative_ids():
            value = _ID_SCHEME + value
        out[key] = _absolute(value)
    return out


@functools.cache
def _compiled_registry() -> Any:
    schemas = (_absolute(load_schema(name)) for name in schema_names())
    return jsonschema_rs.Registry([(schema["$id"], schema) for schema in schemas if "$id" in schema])


@functools.cache
def _compiled(name: str) -> Any:
    return jsonschema_rs.validator_for(_absolute(load_schema(name)), registry=_compiled_registry())


def result_problems(schema_name: str, result: Any) -> list[str]:
    """Where a result departs from its published schema (empty when it conforms)."""
    errors = _compiled(schema_name).iter_errors(result)
    return ["/" + "/".join(str(p) for p in e.instance_path) + ": " + e.message[:200] for e in errors]
