"""Published JSON Schemas (Draft 2020-12) shipped in the package, and validation against them.

Request params go through ``jsonschema`` (its errors name the field precisely): a violation becomes the same
error class the core raises for the same mistake, naming the field (``unknown_name`` for a value outside an
enumeration, ``value_out_of_range`` for a bound, ``invalid_request`` for everything else), and integers are
integers (``1.0`` is refused where an integer belongs). Results, which are large and checked on every call,
go through ``jsonschema_rs`` (compiled; validation takes microseconds, not the milliseconds a pure-Python
walk of a packet costs).
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator, ValidationError
from jsonschema.validators import extend
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from prooftext.errors import NotFoundError, RangeError, RequestError, SchemaViolationError, UnknownNameError

MAX_REPORTED_ERRORS = 5
"""A violation report names at most this many failing places (errors stay bounded)."""


def schema_names() -> list[str]:
    folder = resources.files("prooftext").joinpath("schemas")
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".schema.json"))


@functools.cache
def _shipped() -> frozenset[str]:
    return frozenset(schema_names())


def _shipped_name(name: object, field: str) -> str:
    """``name`` when it names a shipped schema: another type is a request error naming ``field``, a string
    naming no shipped schema (another file of the package included) is :class:`NotFoundError`."""
    if not isinstance(name, str):
        raise RequestError(
            f"{field} must be a schema file name (a string), not {type(name).__name__}", field=field
        )
    if name not in _shipped():
        raise NotFoundError(f"no schema named {name[:200]}", field=field)
    return name


def load_schema(name: str) -> dict[str, Any]:
    """A shipped schema by file name (``adaptive-context-v1.schema.json``)."""
    return _load(_shipped_name(name, "name"))


@functools.cache
def _load(name: str) -> dict[str, Any]:
    path = resources.files("prooftext").joinpath("schemas").joinpath(name)
    schema: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return schema


@functools.cache
def _validator(name: str) -> Draft202012Validator:
    return Draft202012Validator(load_schema(name))


MAX_PLACE_CHARS = 200
SHOWN_VALUE_CHARS = 40


def _reason(error: ValidationError) -> str:
    """The error's message with a long failing value cut short, so that the reason (``is too long``, ``does
    not match``) survives the bound."""
    shown = repr(error.instance)
    message = str(error.message)
    if len(shown) > SHOWN_VALUE_CHARS:
        message = message.replace(shown, shown[:SHOWN_VALUE_CHARS] + "…", 1)
    return message[:MAX_PLACE_CHARS]


def validate_against(name: str, instance: Any) -> None:
    """Raise :class:`SchemaViolationError` naming the failing places when ``instance`` does not conform."""
    errors = sorted(_validator(name).iter_errors(instance), key=lambda e: list(e.absolute_path))
    if errors:
        places = ["/" + "/".join(str(p) for p in e.absolute_path) + ": " + _reason(e) for e in errors]
        raise SchemaViolationError(
            f"{len(errors)} schema violation(s) against {name}, the first at {places[0]}",
            schema=name,
            errors=places[:MAX_REPORTED_ERRORS],
        )


def _is_integer(checker: Any, instance: Any) -> bool:
    # A line number or a limit of 1.0 passes JSON Schema's integer test, then fails where it is used.
    return isinstance(instance, int) and not isinstance(instance, bool)


StrictValidator = extend(
    Draft202012Validator,
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer),
)
"""Draft 2020-12 with integers that are integers (``1.0`` and ``true`` are refused where one belongs)."""


@functools.cache
def registry_of(names: tuple[str, ...]) -> Registry:
    """The named shipped schemas by their ``$id``, so that references resolve among them. A caller that
    needs only a few names them: loading (and checking) every shipped schema takes half a second."""
    resources_by_id = []
    for name in names:
        schema = load_schema(name)
        if "$id" in schema:
            resources_by_id.append(
                (schema["$id"], Resource.from_contents(schema, default_specification=DRAFT202012))
            )
    return Registry().with_resources(resources_by_id)


def shipped_registry() -> Registry:
    """Every shipped schema by its ``$id``."""
    return registry_of(tuple(schema_names()))


def innermost(error: ValidationError) -> ValidationError:
    """For ``if/then/else``, ``anyOf``, ``allOf`` and ``$ref`` chains, the innermost failure names the real
    place."""
    while error.context:
        error = sorted(error.context, key=lambda e: (-len(e.absolute_path), str(e.validator)))[0]
    return error


_NAME_KEYWORDS = frozenset({"enum", "const"})
_RANGE_KEYWORDS = frozenset(
    {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "maxItems", "minItems", "maxLength"}
)
_MESSAGE_CHARS = 300
_LENGTH_WORDS = {"maxLength": "longer", "minLength": "shorter"}


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


def _shown_json(value: Any) -> str:
    """A value as JSON spells it (``null``, ``true``), not as Python does; a container by its kind."""
    if isinstance(value, dict | list):
        return "an object" if isinstance(value, dict) else "an array"
    return json.dumps(value, ensure_ascii=False)


def _message(error: ValidationError) -> str:
    """What is wrong, in JSON's spelling where ``jsonschema`` would print a Python value (``None``)."""
    if error.validator == "type":
        expected = (
            error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        )
        return f"{_shown_json(error.instance)} is not of type {' or '.join(map(json.dumps, expected))}"
    if error.validator in _LENGTH_WORDS and isinstance(error.instance, str):
        # A text's length is what is wrong, not its first 300 characters.
        words = _LENGTH_WORDS[error.validator]
        return f"a text of {len(error.instance)} characters is {words} than {error.validator_value}"
    return str(error.message)


def _error_for(error: ValidationError) -> RequestError:
    error = innermost(error)
    field = _field(error)
    message = f"invalid params: {field}: {_message(error)[:_MESSAGE_CHARS]}"
    if error.validator in _NAME_KEYWORDS:
        return UnknownNameError(message, field=field)
    if error.validator in _RANGE_KEYWORDS:
        return RangeError(message, field=field)
    return RequestError(message, field=field)


def check_params(schema_name: str, params: dict[str, Any]) -> None:
    """Raise the request error naming the first failing field (errors ordered by path for determinism)."""
    checked = validator(_shipped_name(schema_name, "schema_name"))
    errors = sorted(checked.iter_errors(params), key=lambda e: [str(p) for p in e.absolute_path])
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
    import jsonschema_rs  # compiled validation, for the servers' results only

    schemas = (_absolute(load_schema(name)) for name in schema_names())
    return jsonschema_rs.Registry([(schema["$id"], schema) for schema in schemas if "$id" in schema])


@functools.cache
def _compiled(name: str) -> Any:
    import jsonschema_rs

    return jsonschema_rs.validator_for(_absolute(load_schema(name)), registry=_compiled_registry())


def result_problems(schema_name: str, result: Any) -> list[str]:
    """Where a result departs from its published schema (empty when it conforms)."""
    errors = _compiled(_shipped_name(schema_name, "schema_name")).iter_errors(result)
    return ["/" + "/".join(str(p) for p in e.instance_path) + ": " + e.message[:200] for e in errors]
