"""Adaptive compilation over a real index: rounds, stop reasons, the result artifact (SACP §4-§8)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import prooftext
import prooftext.pack.packet as packet_module
from helpers import adaptive_fields, write_tree
from prooftext.adaptive.estimator import Thresholds, estimate
from prooftext.schema_registry import validate_against
from prooftext.tokens import get_counter
from sacp_requirements import SACP_REQUIREMENTS

SCHEMA = "adaptive-context-v1.schema.json"
QUESTION = "separability_matrix of a compound model"


def _run(root: Path, **kw: object) -> prooftext.AdaptiveResult:
    with prooftext.open(root) as index:
        return adaptive_fields(index, str(kw.pop("query", QUESTION)), **kw)


def test_every_round_is_verified_counted_digested_and_estimated(sample_repo: Path) -> None:
    """Requirement: sacp.round.steps, sacp.ladder.round-one"""
    result = _run(sample_repo, min_tokens=150, token_step=100, max_tokens=2000, min_coverage_bps=10_000)
    counter = get_counter("o200k_base")
    assert [r.number for r in result.rounds] == list(range(1, len(result.rounds) + 1))
    for rnd in result.rounds:
        assert rnd.packet.prompt_tokens.count == counter.count(rnd.packet.prompt) <= rnd.token_ceiling
        assert len(rnd.packet.evidence) <= rnd.node_ceiling
        with prooftext.open(sample_repo) as index:
            assert index.verify(rnd.packet.to_dict()).ok


def test_a_compilation_reads_each_source_once_and_the_next_one_reads_again(
    sample_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rounds share one verified read of a source; a later call re-reads it (and sees an edit)."""
    reads: list[str] = []
    real = packet_module.observe

    def counting(root: Path, path: str, sha256: str, ranges: list[tuple[int, int]]) -> object:
        reads.append(path)
        return real(root, path, sha256, ranges)

    monkeypatch.setattr(packet_module, "observe", counting)
    result = _run(sample_repo, min_tokens=150, token_step=100, max_tokens=2000, min_coverage_bps=10_000)
    assert len(result.rounds) > 1 and reads and len(reads) == len(set(reads))
    first = sorted(set(reads))
    reads.clear()
    _run(sample_repo, min_tokens=150, token_step=100, max_tokens=2000, min_coverage_bps=10_000)
    assert sorted(set(reads)) == first


def test_the_first_passing_round_is_selected(sample_repo: Path) -> None:
    """Requirement: sacp.stop.first-passing-round, sacp.stop.exactly-one"""
    result = _run(
        sample_repo,
        min_tokens=150,
        token_step=150,
        min_nodes=1,
        node_step=1,
        min_coverage_bps=5000,
        min_evidence=1,
    )
    assert result.stop_reason == "estimated_sufficient"
    assert result.selected_round == len(result.rounds)
    assert all(not r.estimate.estimated_sufficient for r in result.rounds[:-1])
    assert result.to_dict()["stop_reason"] in {"estimated_sufficient"}


def test_candidate_exhausted_when_nothing_remains_omitted(sample_repo: Path) -> None:
    """Requirement: sacp.stop.candidate-exhausted, sacp.stop.failed-estimate-valid-packet"""
    result = _run(sample_repo, query="slugify zebra quantum", max_tokens=8000, min_coverage_bps=10_000)
    assert result.stop_reason == "candidate_exhausted"
    assert not result.estimated_sufficient
    assert result.packet.omitted == 0
    with prooftext.open(sample_repo) as index:
        assert index.verify(result.packet.to_dict()).ok


def test_hard_limit_selects_the_final_round(sample_repo: Path) -> None:
    """Requirement: sacp.stop.hard-limit-final-round"""
    result = _run(
        sample_repo,
        min_tokens=150,
        max_tokens=260,
        token_step=50,
        min_nodes=1,
        max_nodes=2,
        node_step=1,
        min_coverage_bps=10_000,
    )
    assert result.stop_reason == "hard_limit_reached"
    assert result.selected_round == len(result.rounds)
    last = result.rounds[-1]
    assert (last.token_ceiling, last.node_ceiling) == (260, 2)


def test_a_raised_first_rung_is_recorded_in_round_one(sample_repo: Path) -> None:
    """Requirement: sacp.ladder.first-rung-raised"""
    result = _run(sample_repo, required=("modeling/separable.py",), min_tokens=10, max_tokens=4000)
    assert result.rounds[0].raised_to_kernel
    assert result.rounds[0].token_ceiling == result.kernel_tokens > 10
    assert not any(r.raised_to_kernel for r in result.rounds[1:])


def test_the_estimator_ignores_the_header_that_holds_the_query(sample_repo: Path) -> None:
    """Requirement: sacp.estimator.evidence-only"""
    result = _run(sample_repo, query="separability xylophone", min_coverage_bps=10_000)
    assert "xylophone" in result.prompt
    assert all("xylophone" in r.estimate.missing_terms for r in result.rounds)


def test_the_estimator_formula_and_conditions() -> None:
    """Requirement: sacp.estimator.formula"""
    thresholds = Thresholds(min_coverage_bps=6666, min_evidence=2, require_untruncated=True)
    est = estimate("alpha beta gamma", ["alpha here", "and beta"], truncated=1, thresholds=thresholds)
    assert est.term_coverage_bps == 6666
    assert est.failed_conditions == ("truncated_evidence_present",)
    assert not est.estimated_sufficient
    assert estimate("alpha beta gamma", ["alpha beta"], 0, thresholds).failed_conditions == (
        "evidence_count_below_minimum",
    )


def test_the_result_names_its_estimate_estimated_sufficient_and_claims_nothing_more(
    sample_repo: Path,
) -> None:
    """Requirement: sacp.estimator.field-name"""
    text = str(_run(sample_repo).to_dict())
    assert "estimated_sufficient" in text
    assert not re.search(r"verified_quality|'complete'", text)


def test_the_result_records_everything_sacp_section_7_lists_and_validates(sample_repo: Path) -> None:
    """Requirement: sacp.result.fields, sacp.result.schema"""
    data = _run(sample_repo, min_tokens=150, token_step=200).to_dict()
    validate_against(SCHEMA, data)
    assert data["request"]["query"] == QUESTION
    assert {"min_query_term_coverage_bps", "min_evidence", "require_untruncated_evidence"} <= set(
        data["estimator"]
    )
    assert len(data["attempted_ceilings"]) == len(data["rounds"]) == len(data["digests"])
    for rnd in data["rounds"]:
        assert {"prompt_tokens", "evidence_count", "new_evidence", "evidence_paths", "blake3"} <= set(rnd)
        assert {"matched_terms", "missing_terms", "failed_conditions"} <= set(rnd["estimate"])
    assert data["packet"]["blake3"] == data["digests"][data["selected_round"] - 1]


def test_models_receive_only_the_prompt(sample_repo: Path) -> None:
    """Requirement: sacp.integration.prompt-only"""
    result = _run(sample_repo)
    assert result.prompt == result.packet.prompt
    assert "stop_reason" not in result.prompt and "term_coverage" not in result.prompt


def test_path_seeds_never_bring_in_what_the_index_does_not_hold(sample_repo: Path) -> None:
    """Requirement: sacp.request.path-seeds-are-hints"""
    result = _run(sample_repo, path_seeds=("../outside.py", "missing.py"))
    assert {e.path for e in result.packet.evidence} <= {
        "modeling/separable.py",
        "modeling/core.py",
        "modeling/__init__.py",
        "docs/guide.md",
        "util/strings.py",
    }


def test_estimator_success_changes_no_policy(sample_repo: Path) -> None:
    """Requirement: sacp.security.no-authorization

    A passing estimate cannot lift clearance: the same request gives the same exclusions either way."""
    query = QUESTION + " xylophone"
    strict = _run(sample_repo, query=query, min_coverage_bps=0, min_evidence=1)
    loose = _run(sample_repo, query=query, min_coverage_bps=10_000)
    assert strict.estimated_sufficient and not loose.estimated_sufficient
    assert strict.query.clearance == loose.query.clearance
    assert {e.path for e in strict.packet.evidence} <= {e.path for e in loose.packet.evidence}


def test_same_corpus_and_request_give_identical_results(sample_repo: Path) -> None:
    assert _run(sample_repo).to_dict() == _run(sample_repo).to_dict()


def test_every_sacp_requirement_is_claimed_by_a_test() -> None:
    claimed: set[str] = set()
    for path in Path(__file__).resolve().parents[1].rglob("test_*.py"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if "Requirement:" in line:
                claimed.update(x.strip(' ."') for x in line.split("Requirement:", 1)[1].split(","))
    assert set(SACP_REQUIREMENTS) - claimed == set()


words = st.sampled_from(["alpha", "beta", "gamma", "delta", "model", "matrix", "token", "budget"])


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    files=st.dictionaries(
        st.sampled_from(["a.py", "b.py", "c/d.py", "e.md", "f.txt"]),
        st.lists(words, min_size=1, max_size=60).map(
            lambda ws: "\n".join(f"def f_{w}_{i}(): return '{w}'" for i, w in enumerate(ws)) + "\n"
        ),
        min_size=1,
    ),
    max_tokens=st.integers(200, 3000),
    step=st.integers(50, 1000),
)
def test_prompts_never_exceed_their_ceiling_and_ceilings_never_decrease(
    tmp_path_factory: pytest.TempPathFactory, files: dict[str, str], max_tokens: int, step: int
) -> None:
    """Requirement: sacp.ladder.hard-max, sacp.ladder.non-decreasing"""
    root = write_tree(tmp_path_factory.mktemp("corpus"), files)
    result = _run(
        root,
        query="alpha model budget",
        min_tokens=150,
        max_tokens=max_tokens,
        token_step=step,
        min_coverage_bps=10_000,
    )
    ceilings = [(r.token_ceiling, r.node_ceiling) for r in result.rounds]
    assert ceilings == sorted(ceilings)
    for rnd in result.rounds:
        assert rnd.packet.prompt_tokens.count <= rnd.token_ceiling <= max_tokens


NESTED = '''def separability_matrix(model):
    """The separability matrix of a compound model."""
    compound = model.left

    def _inner(part):
        return part.inputs

    return separability(compound, _inner)
'''


def test_a_node_quoted_in_two_parts_is_one_new_node_of_its_round(tmp_path: Path) -> None:
    """Requirement: sacp.result.fields"""
    write_tree(tmp_path, {"model.py": NESTED})
    result = _run(tmp_path, min_tokens=400, token_step=400, max_tokens=2000)
    parts = [i for e in result.rounds[0].packet.evidence for i in e.node_ids]
    assert len(parts) > len(set(parts))  # the function's head and its tail, one node id
    seen: list[str] = []
    for rnd in result.rounds:
        assert len(rnd.new_evidence) == len(set(rnd.new_evidence))
        assert not set(rnd.new_evidence) & set(seen)
        seen.extend(rnd.new_evidence)
    assert set(seen) == {i for r in result.rounds for e in r.packet.evidence for i in e.node_ids}
    validate_against(SCHEMA, result.to_dict())


def test_a_byte_ladder_may_climb_past_the_token_ceiling_up_to_the_byte_ceiling(sample_repo: Path) -> None:
    """``pack`` takes byte ceilings up to 8 MiB; the adaptive ladder does too, and a token ladder stays at
    its own maximum, refused by name."""
    with prooftext.open(sample_repo) as index:
        query = prooftext.Query("separability matrix", tokenizer="bytes")
        ladder = prooftext.Ladder(max_tokens=4_000_000, token_step=1_000_000)
        result = index.adaptive_pack(query, ladder=ladder)
        assert result.packet.prompt_tokens.basis == "bytes"
        with pytest.raises(prooftext.errors.RangeError) as caught:
            index.adaptive_pack("separability matrix", ladder=ladder)
    assert caught.value.details["field"] == "max_tokens"


def test_a_credential_in_the_question_is_redacted_in_the_whole_result(sample_repo: Path) -> None:
    secret = "AKIA" + "IOSFODNN7EXAMPLQ"
    result = _run(sample_repo, query=f"refresh the index with key {secret}")
    text = json.dumps(result.to_dict())
    assert secret.lower() not in text.lower()
    assert result.to_dict()["request"]["query"] == result.query.text == result.packet.query.text
    assert "[REDACTED:aws-access-key-id]" in result.query.text
