"""The settings value objects (``Query``, ``Ladder``, ``RankingPolicy``) read back what ``to_dict`` records,
so a saved packet or adaptive result can be compiled again under the same settings; a bad value is a coded
error naming its field."""

from __future__ import annotations

from pathlib import Path

import pytest

import prooftext
from prooftext.errors import RequestError

QUERY = prooftext.Query(
    "where is the separability matrix computed?",
    max_tokens=3000,
    tokenizer="cl100k_base",
    required=("modeling/separable.py",),
    path_seeds=("modeling/core.py",),
    clearance="public",
)
LADDER = prooftext.Ladder(
    min_tokens=1000, max_tokens=5000, token_step=1000, min_coverage_bps=2500, strong_share_bps=0
)


def test_a_query_reads_back_what_its_to_dict_records() -> None:
    assert prooftext.Query.from_dict(QUERY.to_dict()) == QUERY


def test_a_ladder_reads_back_what_its_to_dict_records() -> None:
    assert prooftext.Ladder.from_dict(LADDER.to_dict()) == LADDER


def test_a_ranking_policy_reads_back_what_its_to_dict_records() -> None:
    policy = prooftext.RankingPolicy.from_dict({"fts_limit": 50, "test_factor_milli": 300})
    assert prooftext.RankingPolicy.from_dict(policy.to_dict()) == policy


def test_a_saved_adaptive_result_compiles_again_to_the_same_packet(sample_repo: Path) -> None:
    with prooftext.open(sample_repo) as index:
        first = index.adaptive_pack("separability matrix", ladder=LADDER).to_dict()
        request = {k: v for k, v in first["request"].items() if k != "query"}
        query = prooftext.Query.from_dict(first["query"])
        again = index.adaptive_pack(
            prooftext.Query(query.text, tokenizer=query.tokenizer), ladder=prooftext.Ladder.from_dict(request)
        )
    assert again.to_dict()["packet"]["blake3"] == first["packet"]["blake3"]


@pytest.mark.parametrize(
    ("make", "data", "field"),
    [
        ("Query", {"text": "x", "max_tokens": "big"}, "max_tokens"),
        ("Query", {"text": "x", "colour": 1}, "colour"),
        ("Query", {"max_tokens": 10}, "text"),
        ("Query", {"text": "x", "required": "a.py"}, "required"),
        ("Query", ["x"], "query"),
        ("Ladder", {"max_tokens": -1}, "max_tokens"),
        ("Ladder", {"min_coverage_bps": 10}, "min_coverage_bps"),
        ("Ladder", {"min_query_term_coverage_bps": 10_001}, "min_coverage_bps"),
        ("Ladder", {"allow_truncated_evidence": "yes"}, "allow_truncated"),
        ("Ladder", None, "ladder"),
    ],
)
def test_a_recorded_setting_that_is_not_valid_is_a_request_error_naming_it(
    make: str, data: object, field: str
) -> None:
    with pytest.raises(RequestError) as caught:
        getattr(prooftext, make).from_dict(data)
    assert caught.value.details["field"] == field
