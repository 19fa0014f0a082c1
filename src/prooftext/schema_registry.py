"""Published JSON Schemas (Draft 2020-12) shipped in the package, and validation against them."""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator

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
