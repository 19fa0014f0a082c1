"""The public functions outside the index take what they document and refuse anything else with a coded
error naming the argument, never a bare ``TypeError``, ``AttributeError`` or ``JSONDecodeError``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import prooftext
from prooftext.errors import NotFoundError, ProoftextError, RequestError

SCHEMA = "rpc-context.read.params.schema.json"


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda root: prooftext.load_schema(5), "name"),
        (lambda root: prooftext.load_schema(["x"]), "name"),
        (lambda root: prooftext.check_params(None, {}), "schema_name"),
        (lambda root: prooftext.check_params([], {}), "schema_name"),
        (lambda root: prooftext.result_problems(5, {}), "schema_name"),
        (lambda root: prooftext.visible_text(5), "text"),
        (lambda root: prooftext.visible_text(b"x"), "text"),
        (lambda root: prooftext.check_turn(root, None), "turn"),
        (lambda root: prooftext.turn_plan(root, "hi"), "turn"),
        (lambda root: prooftext.turn_plan(root, prooftext.TurnRequest("main", "hi", files=5)), "files"),
        (lambda root: prooftext.turn_plan(root, prooftext.TurnRequest("main", "hi", files=[1])), "files"),
        (lambda root: prooftext.turn_plan(root, prooftext.TurnRequest("main", "hi", now_ms="x")), "now_ms"),
        (
            lambda root: prooftext.turn_plan(root, prooftext.TurnRequest("main", "hi", has_attachment="x")),
            "has_attachment",
        ),
        (
            lambda root: prooftext.turn_plan(root, prooftext.TurnRequest("main", "hi", identity_source=5)),
            "identity_source",
        ),
    ],
    ids=[
        "load_schema-int",
        "load_schema-list",
        "check_params-none",
        "check_params-list",
        "result_problems-int",
        "visible_text-int",
        "visible_text-bytes",
        "check_turn-none",
        "turn_plan-str",
        "turn-files-int",
        "turn-files-item",
        "turn-now_ms",
        "turn-has_attachment",
        "turn-identity_source",
    ],
)
def test_an_argument_of_the_wrong_type_is_a_request_error_naming_it(
    tmp_path: Path, call: Any, field: str
) -> None:
    with pytest.raises(RequestError) as caught:
        call(tmp_path)
    assert caught.value.details["field"] == field


@pytest.mark.parametrize("name", ["../py.typed", "../_version.py", "schemas/" + SCHEMA, ""])
def test_a_schema_name_outside_the_shipped_schemas_is_not_found(name: str) -> None:
    with pytest.raises(NotFoundError):
        prooftext.load_schema(name)
    with pytest.raises(ProoftextError):
        prooftext.check_params(name, {})


def test_the_documented_arguments_still_work(tmp_path: Path) -> None:
    assert prooftext.load_schema(SCHEMA)["type"] == "object"
    prooftext.check_params(SCHEMA, {"path": "a.md"})
    assert prooftext.result_problems("rpc-context.read.result.schema.json", {}) != []
    assert prooftext.visible_text("a\x1bb") == "a␛b"
    assert prooftext.check_turn(tmp_path, prooftext.TurnRequest("main", "hi")) == tmp_path.resolve()
