"""The estimator's declared ranking conditions: the best-ranked files (when asked for), and every ranked
candidate nearly as strong as the best, must be quoted (estimator v4)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

import prooftext
from helpers import write_tree
from prooftext import Ladder, Query
from prooftext.adaptive.compile import strong_candidates, top_files, unquoted, waiting
from prooftext.adaptive.estimator import (
    COND_STRONG,
    COND_TOP_FILES,
    ESTIMATOR_NAME,
    ESTIMATOR_VERSION,
    MEASURED,
    MEASURED_AT,
    Thresholds,
    estimate,
)
from prooftext.adaptive.ladder import DEFAULT_MIN_TOP_FILES, DEFAULT_STRONG_SHARE_BPS
from prooftext.select.candidates import PHASE_LEXICAL, PHASE_TRAVERSAL
from prooftext.text import STOPWORDS_VERSION

QUERY = "gauge calibration drift offset"
SLACK = 32
"""Tokens above a one-block packet's count: room for round-to-round label differences, not a second block."""
V1_CONDITIONS = {
    "term_coverage_below_threshold",
    "evidence_count_below_minimum",
    "truncated_evidence_present",
}


def _module(name: str) -> str:
    body = "".join(f"    reading_{i} = gauge.calibration(drift={i}, offset={i} * step)\n" for i in range(25))
    return f"def calibrate_{name}(gauge, step):\n{body}    return reading_0\n"


def _three_files(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "repo", {f"gauges/{n}.py": _module(n) for n in ("alpha", "beta", "gamma")})


def _climb(root: Path, top_files: int, strong_share_bps: int = 0) -> prooftext.AdaptiveResult:
    with prooftext.open(root) as index:
        one_block = index.pack(Query(QUERY, max_nodes=1, max_tokens=8000)).prompt_tokens.count + SLACK
        return index.adaptive_pack(
            QUERY,
            ladder=Ladder(
                min_tokens=one_block,
                token_step=one_block // 2,
                max_tokens=one_block * 4,
                min_nodes=1,
                node_step=1,
                max_nodes=8,
                min_evidence=1,
                min_top_files=top_files,
                strong_share_bps=strong_share_bps,
            ),
        )


def test_an_unquoted_top_ranked_file_holds_the_climb_until_a_rung_quotes_it(tmp_path: Path) -> None:
    """Requirement: prooftext.estimator.top-files"""
    root = _three_files(tmp_path)
    result = _climb(root, top_files=3)
    first, last = result.rounds[0], result.rounds[-1]
    assert len(first.packet.evidence) == 1 and first.estimate.term_coverage_bps == 10_000
    assert first.estimate.failed_conditions == (COND_TOP_FILES,)
    assert len(first.estimate.top_files) == 3 and len(first.estimate.unquoted_top_files) == 2
    assert result.stop_reason == "estimated_sufficient" and result.selected_round == len(result.rounds)
    assert {e.path for e in last.packet.evidence} == set(last.estimate.top_files)
    assert last.estimate.unquoted_top_files == ()


def test_without_the_condition_the_same_climb_stops_at_the_first_rung(tmp_path: Path) -> None:
    """Requirement: prooftext.estimator.v1-when-zero"""
    result = _climb(_three_files(tmp_path), top_files=0)
    assert result.selected_round == 1 and result.stop_reason == "estimated_sufficient"
    assert result.rounds[0].estimate.top_files == ()


def test_the_estimator_and_its_thresholds_are_declared_in_the_result(sample_repo: Path) -> None:
    """Requirement: prooftext.estimator.declared"""
    with prooftext.open(sample_repo) as index:
        data = index.adaptive_pack("separability_matrix of a compound model").to_dict()
    assert data["estimator"]["version"] == ESTIMATOR_VERSION == 4
    assert data["estimator"]["min_top_files"] == data["request"]["min_top_files"] == DEFAULT_MIN_TOP_FILES
    assert data["estimator"]["strong_candidate_share_bps"] == DEFAULT_STRONG_SHARE_BPS
    assert data["request"]["strong_candidate_share_bps"] == DEFAULT_STRONG_SHARE_BPS
    for rnd in data["rounds"]:
        assert set(rnd["estimate"]["unquoted_top_files"]) <= set(rnd["estimate"]["top_files"])
        assert rnd["estimate"]["unquoted_strong_candidates"] <= rnd["estimate"]["strong_candidates"]


def test_every_threshold_the_ladder_sets_is_declared_with_the_estimators_name_and_version(
    sample_repo: Path,
) -> None:
    """Requirement: prooftext.estimator.declared"""
    ladder = Ladder(min_coverage_bps=1234, min_evidence=3, min_top_files=2, strong_share_bps=4321)
    with prooftext.open(sample_repo) as index:
        data = index.adaptive_pack("separability_matrix of a compound model", ladder=ladder).to_dict()
    declared = data["estimator"]
    assert (declared["name"], declared["version"]) == (ESTIMATOR_NAME, ESTIMATOR_VERSION)
    assert declared["stopwords"] == STOPWORDS_VERSION
    request = data["request"]
    for name in (
        "min_query_term_coverage_bps",
        "min_evidence",
        "min_top_files",
        "strong_candidate_share_bps",
    ):
        assert declared[name] == request[name] == ladder.to_dict()[name]
    assert declared["require_untruncated_evidence"] is (not ladder.allow_truncated) is True
    with prooftext.open(sample_repo) as index:
        truncating = index.adaptive_pack("separability", ladder=Ladder(allow_truncated=True)).to_dict()
    assert truncating["estimator"]["require_untruncated_evidence"] is False


def test_the_default_ladder_declares_how_often_a_sufficient_stop_was_right(sample_repo: Path) -> None:
    """Requirement: prooftext.estimator.measured"""
    with prooftext.open(sample_repo) as index:
        default = index.adaptive_pack("separability_matrix of a compound model").to_dict()["estimator"]
        other = index.adaptive_pack("separability_matrix", ladder=Ladder(strong_share_bps=5000)).to_dict()
        steps = index.adaptive_pack("separability_matrix", ladder=Ladder(min_tokens=1000, token_step=1000))
        ceiling = index.adaptive_pack("separability_matrix", ladder=Ladder(max_tokens=8192))
    assert [m["benchmark"] for m in default["measured"]] == [m.benchmark for m in MEASURED]
    for record in default["measured"]:
        assert 0 < record["right"] <= record["sufficient_stops"] <= record["cases"]
        assert record["right_bps"] == record["right"] * 10_000 // record["sufficient_stops"]
    # A figure measured at the default thresholds and rungs says nothing about others; each record states
    # the ceiling it was measured under.
    assert other["estimator"]["measured"] == []
    assert steps.to_dict()["estimator"]["measured"] == []
    assert ceiling.to_dict()["estimator"]["measured"] == default["measured"]


def test_the_measured_thresholds_are_the_default_ladders() -> None:
    ladder = Ladder()
    assert MEASURED_AT.strong_candidate_share_bps == ladder.strong_share_bps
    assert MEASURED_AT.min_coverage_bps == ladder.min_coverage_bps
    assert MEASURED_AT.min_evidence == ladder.min_evidence
    assert MEASURED_AT.min_top_files == ladder.min_top_files
    assert MEASURED_AT.require_untruncated is not ladder.allow_truncated


def test_an_unquoted_strong_candidate_holds_the_climb_until_a_rung_quotes_it(tmp_path: Path) -> None:
    """Requirement: prooftext.estimator.strong-candidates"""
    result = _climb(_three_files(tmp_path), top_files=0, strong_share_bps=5000)
    first, last = result.rounds[0], result.rounds[-1]
    assert COND_STRONG in first.estimate.failed_conditions and first.estimate.unquoted_strong
    assert result.stop_reason == "estimated_sufficient" and len(result.rounds) > 1
    assert last.estimate.unquoted_strong == () and last.estimate.strong_candidates >= 3
    assert {e.path for e in last.packet.evidence} == {f"gauges/{n}.py" for n in ("alpha", "beta", "gamma")}


def _ranked(*rows: tuple[str, int]) -> Any:
    return [SimpleNamespace(path=path, priority=priority, phase=PHASE_LEXICAL) for path, priority in rows]


def test_the_top_files_are_the_first_distinct_ranked_files() -> None:
    """Requirement: prooftext.estimator.top-files"""
    ranked = _ranked(("a.py", 100), ("a.py", 90), ("b.py", 60), ("d.py", 50), ("c.py", 49), ("e.py", 45))
    assert top_files(ranked, Thresholds(5000, 1, True, 1)) == ("a.py",)
    assert top_files(ranked, Thresholds(5000, 1, True, 4)) == ("a.py", "b.py", "d.py", "c.py")
    assert top_files(ranked, Thresholds(5000, 1, True, 0)) == ()


def _nodes(*rows: tuple[str, int, int]) -> Any:
    return [SimpleNamespace(node_id=n, priority=p, phase=phase) for n, p, phase in rows]


def test_strong_candidates_weigh_the_share_of_the_best_ranked_one() -> None:
    """Requirement: prooftext.estimator.strong-candidates"""
    ranked = _nodes(
        ("seed", 900, PHASE_TRAVERSAL),
        ("a", 100, PHASE_LEXICAL),
        ("b", 36, PHASE_LEXICAL),
        ("c", 34, PHASE_LEXICAL),
    )
    assert strong_candidates(ranked, Thresholds(0, 1, True, strong_candidate_share_bps=3500)) == ("a", "b")
    assert strong_candidates(ranked, Thresholds(0, 1, True, strong_candidate_share_bps=0)) == ()


def test_only_a_strong_candidate_waiting_on_a_ceiling_holds_the_climb() -> None:
    packet = SimpleNamespace(
        excluded=[
            {"node_id": "a", "reason": "over_budget"},
            {"node_id": "b", "reason": "source_drift"},
            {"node_id": "c", "reason": "node_ceiling"},
        ]
    )
    assert waiting(packet, ("a", "b", "c", "d")) == ("a", "c")  # type: ignore[arg-type]


def test_traversal_from_required_evidence_is_no_top_file() -> None:
    ranked = [SimpleNamespace(path="seed.py", priority=500, phase=PHASE_TRAVERSAL), *_ranked(("a.py", 100))]
    assert top_files(ranked, Thresholds(5000, 1, True, 2)) == ("a.py",)


def _packet(quoted: list[str], excluded: list[tuple[str, str]]) -> Any:
    return SimpleNamespace(
        evidence=[SimpleNamespace(path=p) for p in quoted],
        excluded=[{"path": p, "reason": r} for p, r in excluded],
    )


def test_only_a_file_waiting_on_a_ceiling_counts_as_unquoted() -> None:
    packet = _packet(
        ["a.py"],
        [
            ("b.py", "source_drift"),
            ("c.py", "over_budget"),
            ("d.py", "node_ceiling"),
            ("e.py", "over_clearance"),
        ],
    )
    assert unquoted(packet, ("a.py", "b.py", "c.py", "d.py", "e.py")) == ("c.py", "d.py")
    assert unquoted(packet, ()) == ()


texts = st.lists(st.text(alphabet="abc xyz", max_size=12), max_size=4)


@given(texts, st.integers(0, 10_000), st.integers(1, 3), st.booleans(), st.integers(0, 2))
def test_with_no_unquoted_top_file_the_decision_is_v1s(
    evidence: list[str], bps: int, min_evidence: int, require: bool, truncated: int
) -> None:
    """Requirement: prooftext.estimator.v1-when-zero"""
    v2 = estimate("abc xyz", evidence, truncated, Thresholds(bps, min_evidence, require, 4), None, ("f.py",))
    v1 = estimate("abc xyz", evidence, truncated, Thresholds(bps, min_evidence, require))
    assert v2.failed_conditions == v1.failed_conditions and set(v1.failed_conditions) <= V1_CONDITIONS
    held = estimate(
        "abc xyz", evidence, truncated, Thresholds(bps, min_evidence, require, 4), None, ("f.py",), ("f.py",)
    )
    assert held.failed_conditions == (*v1.failed_conditions, COND_TOP_FILES) and not held.estimated_sufficient
