"""The adaptive request and ladder (SACP §3-§4), including property tests."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prooftext.adaptive.ladder import (
    DEFAULT_MIN_NODES,
    MAX_NODE_CEILING,
    MAX_RUNGS,
    MAX_TOP_FILES,
    Ladder,
    first_rung,
    fitting_step,
    next_rung,
    rungs,
    validate_ladder,
    validate_query_text,
)
from prooftext.errors import BudgetError, EmptyQueryError, RangeError, RequestError
from prooftext.select.query import MAX_QUERY_CHARS, MAX_TOKENS


def _validate(query: str, **fields: object) -> None:
    validate_query_text(query)
    validate_ladder(Ladder(**fields))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"query": ""}, "query"),
        ({"query": "the of and"}, "query"),
        ({"min_tokens": 0}, "min_tokens"),
        ({"max_tokens": -1}, "max_tokens"),
        ({"min_nodes": 0}, "min_nodes"),
        ({"max_nodes": 0}, "max_nodes"),
    ],
)
def test_queries_and_ceilings_must_be_searchable_and_positive(changes: dict[str, object], field: str) -> None:
    """Requirement: sacp.request.searchable-query, sacp.request.positive-ceilings"""
    with pytest.raises(RequestError) as caught:
        _validate(**{"query": "separability", **changes})  # type: ignore[arg-type]
    assert caught.value.field == field


def test_a_query_with_a_lone_surrogate_is_an_invalid_request_naming_the_query() -> None:
    with pytest.raises(RequestError) as caught:
        _validate(query="\udcff separability")
    assert caught.value.code == "invalid_request" and caught.value.field == "query"


def test_a_query_over_the_length_limit_is_out_of_range_as_in_pack_and_map() -> None:
    with pytest.raises(RangeError) as caught:
        validate_query_text("separability " * (MAX_QUERY_CHARS // 13 + 1))
    assert caught.value.code == "value_out_of_range" and caught.value.field == "query"
    assert caught.value.message == f"query is longer than {MAX_QUERY_CHARS} characters"
    with pytest.raises(RequestError) as wrong:
        validate_query_text(42)
    assert wrong.value.code == "invalid_request" and wrong.value.field == "query"


def test_a_query_of_stop_words_only_is_refused() -> None:
    """Requirement: sacp.request.searchable-query"""
    with pytest.raises(EmptyQueryError):
        _validate(query="What is this and how?")


@pytest.mark.parametrize("field", ["token_step", "node_step"])
def test_steps_must_be_positive(field: str) -> None:
    """Requirement: sacp.request.positive-steps"""
    with pytest.raises(RangeError) as caught:
        _validate(query="x1", **{field: 0})  # type: ignore[arg-type]
    assert caught.value.field == field


@pytest.mark.parametrize("bps", [-1, 10_001])
def test_coverage_outside_0_to_10000_is_refused(bps: int) -> None:
    """Requirement: sacp.request.coverage-range"""
    with pytest.raises(RangeError) as caught:
        _validate(query="x1", min_coverage_bps=bps)
    assert caught.value.field == "min_coverage_bps"


@pytest.mark.parametrize("count", [-1, MAX_TOP_FILES + 1, True])
def test_min_top_files_outside_0_to_its_maximum_is_refused(count: int) -> None:
    with pytest.raises(RangeError) as caught:
        _validate(query="x1", min_top_files=count)
    assert caught.value.field == "min_top_files"


def test_min_evidence_must_be_positive_and_not_above_max_nodes() -> None:
    """Requirement: sacp.request.min-evidence-positive, sacp.request.min-evidence-not-above-max-nodes"""
    with pytest.raises(RangeError) as zero:
        _validate(query="x1", min_evidence=0)
    assert zero.value.field == "min_evidence"
    with pytest.raises(RangeError) as caught:
        _validate(query="x1", min_evidence=9, max_nodes=8, min_nodes=2)
    assert caught.value.field == "min_evidence"
    _validate(query="x1", min_evidence=8, max_nodes=8, min_nodes=2)  # equal is allowed


@pytest.mark.parametrize(
    ("changes", "field"), [({"min_tokens": 9000}, "min_tokens"), ({"min_nodes": 65}, "min_nodes")]
)
def test_minimum_ceilings_must_not_exceed_maximums(changes: dict[str, int], field: str) -> None:
    """Requirement: sacp.request.min-not-above-max"""
    with pytest.raises(RangeError) as caught:
        _validate(query="x1", **changes)  # type: ignore[arg-type]
    assert caught.value.field == field


def test_a_maximum_lowered_below_the_default_minimum_names_both_values() -> None:
    """``adaptive-pack --max-tokens 100``: the minimum the user never set is said with its value."""
    with pytest.raises(RangeError) as caught:
        _validate(query="x1", max_tokens=100)
    assert caught.value.message == (
        "min_tokens (2000, its default) must not exceed max_tokens (100): set min_tokens too when lowering"
        " max_tokens"
    )


def test_a_minimum_raised_above_the_default_maximum_says_to_raise_the_maximum_not_that_it_was_lowered() -> (
    None
):
    """``adaptive-pack --min-evidence 1000``: nothing was lowered; the maximum is the default."""
    with pytest.raises(RangeError) as caught:
        _validate(query="x1", min_evidence=1000)
    assert (
        caught.value.message
        == "min_evidence (1000) must not exceed max_nodes (64, its default): raise max_nodes too"
    )
    assert caught.value.field == "min_evidence"


def test_a_minimum_above_a_maximum_both_given_names_both_values() -> None:
    with pytest.raises(RangeError) as caught:
        _validate(query="x1", min_tokens=9000, max_tokens=8500)
    assert caught.value.message == "min_tokens (9000) must not exceed max_tokens (8500)"


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"min_tokens": 1, "token_step": 1, "max_tokens": MAX_TOKENS}, "token_step"),
        ({"min_nodes": 1, "node_step": 1, "max_nodes": MAX_NODE_CEILING}, "node_step"),
    ],
)
def test_a_ladder_of_more_rungs_than_the_maximum_is_refused_naming_the_step_to_raise(
    changes: dict[str, int], field: str
) -> None:
    """``--min-tokens 1 --token-step 1 --max-tokens 2097152`` would climb two million rounds.

    Requirement: prooftext.ladder.bounded-rungs
    """
    with pytest.raises(RangeError) as caught:
        _validate(query="x1", **changes)
    assert caught.value.code == "value_out_of_range" and caught.value.field == field
    assert f"at most {MAX_RUNGS} rungs" in caught.value.message


@pytest.mark.parametrize(
    ("low", "high", "step"),
    [("min_tokens", "max_tokens", "token_step"), ("min_nodes", "max_nodes", "node_step")],
)
def test_a_ladder_of_exactly_the_maximum_rungs_is_accepted_and_one_more_is_not(
    low: str, high: str, step: str
) -> None:
    widest = Ladder(**{low: 1, high: MAX_RUNGS, step: 1})  # type: ignore[arg-type]
    assert validate_ladder(widest) is widest
    assert len(rungs(widest, kernel_tokens=0)) == MAX_RUNGS
    with pytest.raises(RangeError) as caught:
        validate_ladder(replace(widest, **{high: MAX_RUNGS + 1}))  # type: ignore[arg-type]
    assert caught.value.field == step


def test_the_refusal_names_the_smallest_step_that_fits() -> None:
    """Raising the step to the value the message names is enough; one less is not."""
    ladder = Ladder(min_tokens=1, token_step=1, max_tokens=MAX_TOKENS)
    with pytest.raises(RangeError) as caught:
        validate_ladder(ladder)
    least = caught.value.details["least"]
    assert f"raise token_step to at least {least}" in caught.value.message
    validate_ladder(replace(ladder, token_step=least))
    assert fitting_step(1, MAX_TOKENS, 1) == least and fitting_step(2000, 8000, 2000) == 2000
    with pytest.raises(RangeError):
        validate_ladder(replace(ladder, token_step=least - 1))


def test_a_kernel_above_max_tokens_is_a_token_budget_error() -> None:
    """Requirement: sacp.ladder.kernel-over-max-fails"""
    with pytest.raises(BudgetError):
        first_rung(Ladder(max_tokens=500, min_tokens=100), kernel_tokens=501)


def test_the_first_rung_is_raised_to_the_kernel_and_says_so() -> None:
    """Requirement: sacp.ladder.first-rung-raised"""
    nodes = DEFAULT_MIN_NODES
    assert first_rung(Ladder(min_tokens=100), kernel_tokens=300) == (300, nodes, True)
    assert first_rung(Ladder(min_tokens=400), kernel_tokens=300) == (400, nodes, False)


def test_the_default_token_and_node_ladders_reach_their_maximums_on_the_same_rung() -> None:
    climbed = rungs(Ladder(), kernel_tokens=0)
    assert climbed == [(2000, 16), (4000, 32), (6000, 48), (8000, 64)]


def test_next_rung_caps_at_the_maximums() -> None:
    req = Ladder(min_tokens=1000, max_tokens=2500, token_step=1000, max_nodes=10, node_step=8)
    assert next_rung(req, 2000, 8) == (2500, 10)


requests = st.builds(
    lambda mn, extra, step, nmin, nextra, nstep: Ladder(
        min_tokens=mn,
        max_tokens=mn + extra,
        token_step=step,
        min_nodes=nmin,
        max_nodes=nmin + nextra,
        node_step=nstep,
    ),
    st.integers(1, 5000),
    st.integers(0, 20000),
    st.integers(1, 6000),
    st.integers(1, 64),
    st.integers(0, 200),
    st.integers(1, 50),
)


@settings(max_examples=200, deadline=None)
@given(requests, st.integers(0, 5000))
def test_ladder_ceilings_never_decrease_and_one_always_rises(req: Ladder, kernel: int) -> None:
    """Requirement: sacp.ladder.non-decreasing, sacp.ladder.strictly-increases, sacp.ladder.hard-max"""
    if kernel > req.max_tokens:
        with pytest.raises(BudgetError):
            rungs(req, kernel)
        return
    climbed = rungs(req, kernel)
    assert climbed[0][0] == max(req.min_tokens, kernel)
    for (t1, n1), (t2, n2) in itertools.pairwise(climbed):
        assert t2 >= t1 and n2 >= n1
        assert t2 > t1 or n2 > n1
    assert all(t <= req.max_tokens and n <= req.max_nodes for t, n in climbed)
    assert climbed[-1] == (req.max_tokens, req.max_nodes)


@settings(max_examples=200, deadline=None)
@given(requests)
def test_a_ladder_is_refused_exactly_when_it_would_climb_more_than_the_maximum_rungs(req: Ladder) -> None:
    """The bound counts the rungs the ladder climbs from its minima: tokens and nodes rise together, and the
    climb ends when both reach their maxima, so the longer of the two sets the count."""
    req = replace(req, min_evidence=1)
    if len(rungs(req, kernel_tokens=0)) <= MAX_RUNGS:
        validate_ladder(req)
        return
    with pytest.raises(RangeError) as caught:
        validate_ladder(req)
    assert caught.value.field in ("token_step", "node_step")


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"min_tokens": 99_999_999},
            "min_tokens (99999999) must not exceed max_tokens (8000, its default): raise max_tokens too",
        ),
        (
            {"min_nodes": 5000},
            "min_nodes (5000) must not exceed max_nodes (64, its default): raise max_nodes too",
        ),
        (
            {"min_evidence": 5000},
            "min_evidence (5000) must not exceed max_nodes (64, its default): raise max_nodes too",
        ),
        ({"min_tokens": 0}, "min_tokens must be at least 1, got 0"),
        ({"token_step": 0}, "token_step must be at least 1, got 0"),
        ({"node_step": -2}, "node_step must be at least 1, got -2"),
        ({"node_step": 5000}, f"node_step must be at most {MAX_NODE_CEILING}, got 5000"),
    ],
)
def test_a_refused_minimum_or_step_names_the_bound_it_broke_and_the_values_involved(
    changes: dict[str, int], message: str
) -> None:
    with pytest.raises(RangeError) as caught:
        _validate(query="x1", **changes)  # type: ignore[arg-type]
    assert caught.value.message == message and caught.value.field == next(iter(changes))
