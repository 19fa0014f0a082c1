"""The server's limits: a deadline must be a finite number of seconds, from a millisecond to a day; processes and
workers have ceilings."""

from __future__ import annotations

import math

import pytest

from prooftext.errors import RangeError
from prooftext.server.limits import MAX_PROCESSES, MAX_TIMEOUT_S, MAX_WORKERS, MIN_TIMEOUT_S, Limits


@pytest.mark.parametrize("timeout", [math.inf, -math.inf, math.nan, 1e300, MAX_TIMEOUT_S + 1, 0.0, -1.0])
def test_a_timeout_that_is_not_positive_and_at_most_a_day_is_out_of_range(timeout: float) -> None:
    with pytest.raises(RangeError) as caught:
        Limits(timeout_s=timeout)
    assert caught.value.code == "value_out_of_range" and caught.value.field == "timeout"


def test_the_longest_timeout_is_reported_as_whole_milliseconds() -> None:
    assert Limits(timeout_s=MAX_TIMEOUT_S).to_dict()["timeout_ms"] == 86_400_000


@pytest.mark.parametrize("timeout", [1e-300, 0.0009])
def test_a_timeout_below_a_millisecond_which_the_server_would_report_as_0_ms_is_out_of_range(
    timeout: float,
) -> None:
    with pytest.raises(RangeError) as caught:
        Limits(timeout_s=timeout)
    assert caught.value.field == "timeout" and "at least 0.001" in caught.value.message


def test_the_shortest_timeout_is_reported_as_one_millisecond() -> None:
    assert Limits(timeout_s=MIN_TIMEOUT_S).to_dict()["timeout_ms"] == 1


@pytest.mark.parametrize(("field", "most"), [("processes", MAX_PROCESSES), ("max_workers", MAX_WORKERS)])
def test_processes_and_workers_beyond_their_ceiling_are_out_of_range_naming_the_field(
    field: str, most: int
) -> None:
    """``serve --http --processes 100000`` is refused at once instead of forking at the first request."""
    assert getattr(Limits(**{field: most}), field) == most
    with pytest.raises(RangeError) as caught:
        Limits(**{field: most + 1})
    assert caught.value.details["field"] == field
