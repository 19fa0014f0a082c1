"""Query validation refuses text without a UTF-8 form (a lone surrogate) as a request error naming the query."""

from __future__ import annotations

import pytest

from prooftext.corpus.lines import require_utf8
from prooftext.errors import RequestError
from prooftext.select.query import Query, validate


@pytest.mark.parametrize("text", ["\udcff retries", "retries \ud800", "retries \udfff x"])
def test_a_query_with_a_lone_surrogate_is_an_invalid_request_naming_the_query(text: str) -> None:
    with pytest.raises(RequestError) as caught:
        validate(Query(text=text))
    assert caught.value.code == "invalid_request"
    assert caught.value.field == "query"
    assert "surrogate" in caught.value.message


def test_the_error_says_where_the_lone_surrogate_is() -> None:
    with pytest.raises(RequestError, match="at character 8"):
        require_utf8("retries \udcff")


def test_text_outside_the_basic_plane_is_still_a_valid_query() -> None:
    query = Query(text="retries 🔁 über 重试")
    assert validate(query) is query
