"""Published JSON Schemas (Draft 2020-12) shipped in the package, and validation against them."""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator, ValidationError
from jsonschema.validators import extend
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from prooftext.errors import NotFoundError, SchemaViolationError

MAX_REPORTED_ERRORS = 5
"""A violation report names at most this many failing places (errors stay bounded)."""


def schema_names() -> list[str]:
    folder = resources.files("prooftext").joinpath("schemas")
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".schema.json"))


@functools.cache
def load_schema(name: str) -> dict[str, Any]:
    """A shipped schema by file name (``adaptive-context-v1.schema.json``)."""
    path = resources.files("prooftext").joinpath("schemas").joinpath(name)
    if not path.is_file():
        raise NotFoundError(f"no schema named {name}")
    schema: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return schema


@functools.cache
def _validator(name: str) -> Draft202012Validator:
    return Draft202012Validator(load_schema(name))


def validate_against(name: str, instance: Any) -> None:
    """Raise :class:`SchemaViolationError` naming the failing places when ``instance`` does not conform."""
    errors = sorted(_validator(name).iter_errors(instance), key=lambda e: list(e.absolute_path))
    if errors:
        places = ["/" + "/".join(str(p) for p in e.absolute_path) + ": " + e.message[:200] for e in errors]
        raise SchemaViolationError(
            f"{len(errors)} schema violation(s) against {name}",
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
