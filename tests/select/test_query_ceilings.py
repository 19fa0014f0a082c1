"""One rule per ceiling: a byte count has the byte range however it was asked for, and allow_truncated
is a boolean wherever the query comes from."""

from __future__ import annotations

from pathlib import Path

import pytest

import prooftext
from prooftext.errors import RangeError, RequestError
from prooftext.select.query import MIN_BYTES, Query, validate
from prooftext.tokens import BYTES_BASIS


@pytest.mark.parametrize("spelling", [{"unit": "bytes"}, {"tokenizer": BYTES_BASIS}])
def test_a_byte_ceiling_below_the_byte_minimum_is_refused_however_bytes_were_asked_for(
    spelling: dict[str, str],
) -> None:
    with pytest.raises(RangeError) as caught:
        validate(Query(text="widget", max_tokens=MIN_BYTES - 1, **spelling))
    assert caught.value.field == "max_tokens"
    assert f"between {MIN_BYTES} and" in str(caught.value)
    query = Query(text="widget", max_tokens=MIN_BYTES, **spelling)
    assert validate(query) is query


@pytest.mark.parametrize("value", ["no", 0, 1, None])
def test_allow_truncated_other_than_a_boolean_is_refused_naming_the_field(value: object) -> None:
    with pytest.raises(RequestError) as caught:
        validate(Query(text="widget", allow_truncated=value))  # type: ignore[arg-type]
    assert caught.value.field == "allow_truncated"


def test_index_pack_refuses_a_string_allow_truncated(sample_repo: Path) -> None:
    with prooftext.open(sample_repo) as index, pytest.raises(RequestError) as caught:
        index.pack(Query("separability_matrix", allow_truncated="no"))  # type: ignore[arg-type]
    assert caught.value.field == "allow_truncated"
