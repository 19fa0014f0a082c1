"""Query validation: one clear error naming the offending field."""

from __future__ import annotations

import pytest

from prooftext.errors import EmptyQueryError, RangeError, RequestError, UnknownNameError
from prooftext.select.query import Query, validate


def test_a_valid_query_is_returned_unchanged() -> None:
    query = Query(text="separability matrix", max_tokens=4000)
    assert validate(query) is query


@pytest.mark.parametrize(
    ("query", "error", "field"),
    [
        (Query(text=""), EmptyQueryError, "query"),
        (Query(text="   \n"), EmptyQueryError, "query"),
        (Query(text="?!"), EmptyQueryError, "query"),
        (Query(text="x", max_tokens=0), RangeError, "max_tokens"),
        (Query(text="x", unit="bytes", max_tokens=100), RangeError, "max_tokens"),
        (Query(text="x", max_nodes=0), RangeError, "max_nodes"),
        (Query(text="x", max_nodes=4097), RangeError, "max_nodes"),
        (Query(text="x", max_edges=16_385), RangeError, "max_edges"),
        (Query(text="x", max_depth=9), RangeError, "max_depth"),
        (Query(text="x", tokenizer="gpt2"), UnknownNameError, "tokenizer"),
        (Query(text="x", unit="words"), UnknownNameError, "unit"),
        (Query(text="x", clearance="top-secret"), UnknownNameError, "clearance"),
        (Query(text="x", as_of="yesterday"), RequestError, "as_of"),
        (Query(text="x", as_of="2026-01-01T00:00:00+02:00"), RequestError, "as_of"),
        (Query(text="x", required=("",)), RequestError, "required"),
        (Query(text="x", required=None), RequestError, "required"),  # type: ignore[arg-type]
        (Query(text="x", required="src/app.py"), RequestError, "required"),  # type: ignore[arg-type]
        (Query(text="x", required=("src/\ud800.py",)), RequestError, "required"),
        (Query(text="x", path_seeds=None), RequestError, "path_seeds"),  # type: ignore[arg-type]
        (Query(text="x", path_seeds=5), RequestError, "path_seeds"),  # type: ignore[arg-type]
        (Query(text="x", path_seeds="src/app.py"), RequestError, "path_seeds"),  # type: ignore[arg-type]
        (Query(text="x", path_seeds=("src/\ud800.py",)), RequestError, "path_seeds"),
        (Query(text="x", as_of=5), RequestError, "as_of"),  # type: ignore[arg-type]
    ],
)
def test_an_invalid_field_fails_with_an_error_naming_it(
    query: Query, error: type[RequestError], field: str
) -> None:
    with pytest.raises(error) as caught:
        validate(query)
    assert caught.value.field == field


def test_a_utc_as_of_is_accepted() -> None:
    validate(Query(text="x", as_of="2026-11-29T00:00:00Z"))
