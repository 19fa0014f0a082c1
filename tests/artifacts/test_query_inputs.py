"""A Query's caller inputs are checked one by one, each failure naming its field and what it must be."""

from __future__ import annotations

import pytest

from gates.context import QUERY_TEXT, Run, node_of
from gates.fixture import DECISION
from prooftext.artifacts import lifecycle as lc
from prooftext.artifacts.query import byte_query
from prooftext.errors import ProoftextError
from prooftext.select.query import MAX_QUERY_CHARS


def _refusal(run: Run, **fields: object) -> ProoftextError:
    text = str(fields.pop("text", QUERY_TEXT))
    with pytest.raises(ProoftextError) as info:
        lc.run_query(run.out("graph"), byte_query(text, **fields), run.out("q"))  # type: ignore[arg-type]
    assert not run.out("q").exists()
    return info.value


def test_query_text_over_the_limit_says_so_and_names_the_limit(run: Run) -> None:
    error = _refusal(run, text="budget " * (MAX_QUERY_CHARS // 7 + 1))
    assert error.code == "value_out_of_range" and str(MAX_QUERY_CHARS) in error.message
    assert len(error.message) < 200


def test_an_as_of_that_is_not_a_utc_instant_names_the_spelling(run: Run) -> None:
    for as_of in ("2026-13-01", "2026-01-01T00:00:00+01:00", "2026-02-30T00:00:00Z"):
        error = _refusal(run, as_of=as_of)
        assert error.code == "invalid_request" and error.details["field"] == "as_of"
        assert "YYYY-MM-DDTHH:MM:SSZ" in error.message


def test_a_lone_string_of_required_references_is_refused_not_read_as_its_letters(run: Run) -> None:
    error = _refusal(run, required=DECISION)
    assert error.code == "invalid_request" and error.details["field"] == "required"
    lc.run_query(run.out("graph"), byte_query(QUERY_TEXT, required=(DECISION,)), run.out("q"))
    assert run.value("q")["required"] == [node_of(run, DECISION)]
