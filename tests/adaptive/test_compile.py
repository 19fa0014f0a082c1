"""Adaptive compilation over a real index: rounds, stop reasons, the result artifact (SACP §4-§8)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import blake3
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import prooftext
import prooftext.canonical as canonical
import prooftext.pack.packet as packet_module
from helpers import SAMPLE_FILES, adaptive_fields, write_tree
from prooftext.adaptive.compile import STOP_REASONS, AdaptiveResult, Round
from prooftext.adaptive.estimator import Thresholds, estimate
from prooftext.schema_registry import validate_against
from prooftext.text import lexical_terms
from prooftext.tokens import get_counter
from sacp_requirements import SACP_REQUIREMENTS

SCHEMA = "adaptive-context-v1.schema.json"
QUESTION = "separability_matrix of a compound model"


def _run(root: Path, **kw: object) -> prooftext.AdaptiveResult:
    with prooftext.open(root) as index:
        return adaptive_fields(index, str(kw.pop("query", QUESTION)), **kw)


def test_every_round_is_verified_counted_digested_and_estimated(sample_repo: Path) -> None:
    """Each round's packet verifies, its count is the exact count of its prompt, its digest is the BLAKE3 of
    its prompt, its estimate is the estimator's on its evidence, and it is appended to the trace as it is
    made, the first numbered one.

    Requirement: sacp.round.steps, sacp.ladder.round-one"""
    appended: list[tuple[int, dict[str, object]]] = []
    result = _run(
        sample_repo,
        min_tokens=150,
        token_step=100,
        max_tokens=2000,
        min_coverage_bps=10_000,
        strong_share_bps=0,
        on_round=lambda number, record: appended.append((number, record)),
    )
    counter = get_counter("o200k_base")
    thresholds = Thresholds(10_000, result.ladder.min_evidence, True)
    assert len(result.rounds) > 1
    assert [r.number for r in result.rounds] == list(range(1, len(result.rounds) + 1))
    assert appended == [(r.number, r.to_dict()) for r in result.rounds]
    for rnd in result.rounds:
        assert rnd.packet.prompt_tokens.count == counter.count(rnd.packet.prompt) <= rnd.token_ceiling
        assert rnd.packet.blake3 == blake3.blake3(rnd.packet.prompt.encode()).hexdigest()
        assert sum(1 + len(e.joined) for e in rnd.packet.evidence) <= rnd.node_ceiling  # joined nodes count
        again = estimate(result.query.text, rnd.packet.evidence_texts, rnd.packet.truncated_count, thresholds)
        assert rnd.estimate == again
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
    assert result.stop_reason == "estimated_sufficient" and len(result.rounds) > 1
    assert result.selected_round == len(result.rounds)
    assert all(not r.estimate.estimated_sufficient for r in result.rounds[:-1])
    assert result.rounds[-1].estimate.estimated_sufficient and result.estimated_sufficient
    assert result.packet is result.rounds[-1].packet


def _members(value: object) -> Iterator[tuple[str, object]]:
    """Every member of every object in ``value``, however deep."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield key, item
            yield from _members(item)
    elif isinstance(value, list):
        for item in value:
            yield from _members(item)


def _stops_met(result: AdaptiveResult, rnd: Round) -> set[str]:
    """The stop reasons whose condition (SACP §6, read from the round's own record) ``rnd`` meets."""
    if rnd.estimate.estimated_sufficient:
        return {"estimated_sufficient"}
    if rnd.packet.omitted == 0 and rnd.packet.truncated_count == 0:
        return {"candidate_exhausted"}
    maxima = (result.ladder.max_tokens, result.ladder.max_nodes)
    return {"hard_limit_reached"} if (rnd.token_ceiling, rnd.node_ceiling) == maxima else set()


EXHAUSTED = {"query": "slugify zebra quantum", "min_coverage_bps": 10_000}
STOPPING = {
    "estimated_sufficient": (
        "estimated_sufficient",
        {"min_coverage_bps": 5000, "min_evidence": 1, "min_nodes": 1, "node_step": 1},
    ),
    "candidate_exhausted": ("candidate_exhausted", EXHAUSTED),
    # Nothing left out at the last rung: the candidates are exhausted, whatever the ceilings.
    "candidate_exhausted_at_the_maxima": (
        "candidate_exhausted",
        {**EXHAUSTED, "min_tokens": 8000, "min_nodes": 64},
    ),
    "hard_limit_reached": (
        "hard_limit_reached",
        {"max_tokens": 260, "token_step": 50, "min_nodes": 1, "max_nodes": 2, "node_step": 1},
    ),
}


@pytest.mark.parametrize("case", sorted(STOPPING))
def test_the_one_stop_reason_recorded_is_the_one_the_final_round_meets_and_no_earlier_round_met_any(
    sample_repo: Path, case: str
) -> None:
    """Requirement: sacp.stop.exactly-one"""
    reason, fields = STOPPING[case]
    result = _run(sample_repo, **{"min_tokens": 150, "token_step": 150, **fields})
    data = result.to_dict()
    assert data["stop_reason"] == result.stop_reason == reason and reason in STOP_REASONS
    assert [key for key, _ in _members(data) if key == "stop_reason"] == ["stop_reason"]
    assert _stops_met(result, result.rounds[-1]) == {reason}
    assert all(_stops_met(result, r) == set() for r in result.rounds[:-1])
    assert data["selected_round"] == len(data["rounds"])


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
    assert result.selected_round == len(result.rounds) > 1
    last = result.rounds[-1]
    assert (last.token_ceiling, last.node_ceiling) == (260, 2)
    assert not last.estimate.estimated_sufficient and last.packet.omitted > 0
    assert result.packet is last.packet
    data = result.to_dict()
    assert data["packet"]["blake3"] == data["digests"][-1] == last.packet.blake3


def test_a_raised_first_rung_is_recorded_in_round_one(sample_repo: Path) -> None:
    """Requirement: sacp.ladder.first-rung-raised"""
    result = _run(sample_repo, required=("modeling/separable.py",), min_tokens=10, max_tokens=4000)
    assert result.rounds[0].raised_to_kernel
    assert result.rounds[0].token_ceiling == result.kernel_tokens > 10
    assert not any(r.raised_to_kernel for r in result.rounds[1:])


def test_a_required_source_above_max_tokens_fails_with_a_token_budget_error_before_any_round(
    sample_repo: Path,
) -> None:
    """Requirement: sacp.ladder.kernel-over-max-fails"""
    rounds: list[int] = []
    with pytest.raises(prooftext.errors.BudgetError) as caught:
        _run(
            sample_repo,
            required=("modeling/separable.py",),
            min_tokens=50,
            max_tokens=100,
            on_round=lambda number, _record: rounds.append(number),
        )
    assert caught.value.code == "budget_exceeded" and caught.value.details["max_tokens"] == 100
    assert caught.value.details["kernel"] > 100 and rounds == []


@pytest.mark.parametrize("allowed", [False, True])
def test_excerpts_are_shortened_at_no_round_unless_the_request_permits_it(
    sample_repo: Path, allowed: bool
) -> None:
    """Requirement: sacp.request.truncation-declared"""
    result = _run(sample_repo, min_tokens=120, token_step=40, max_tokens=320, allow_truncated=allowed)
    data = result.to_dict()
    assert data["request"]["allow_truncated_evidence"] is allowed
    assert data["estimator"]["require_untruncated_evidence"] is not allowed
    assert all(r.packet.query.allow_truncated is allowed for r in result.rounds)
    truncated = [r.packet.truncated_count for r in result.rounds]
    assert any(truncated) if allowed else not any(truncated)
    with pytest.raises(prooftext.errors.RequestError) as caught:
        _run(sample_repo, allow_truncated="no")
    assert caught.value.details["field"] == "allow_truncated"


def test_the_estimator_ignores_the_header_that_holds_the_query(sample_repo: Path) -> None:
    """Requirement: sacp.estimator.evidence-only"""
    result = _run(sample_repo, query="separability xylophone", min_coverage_bps=10_000)
    assert "xylophone" in result.prompt
    assert all("xylophone" in r.estimate.missing_terms for r in result.rounds)


def test_the_estimator_formula_and_conditions() -> None:
    """Coverage is floor(10000 * matched / unique) over case-insensitive alphanumeric terms, stop words
    removed; the estimate passes only when all three conditions hold, and names each one that fails.

    Requirement: sacp.estimator.formula, sacp.estimator.terms"""
    thresholds = Thresholds(min_coverage_bps=6666, min_evidence=2, require_untruncated=True)
    est = estimate("alpha beta gamma", ["alpha here", "and beta"], truncated=1, thresholds=thresholds)
    assert est.term_coverage_bps == 6666
    assert est.failed_conditions == ("truncated_evidence_present",)
    assert not est.estimated_sufficient
    assert estimate("alpha beta gamma", ["alpha beta"], 0, thresholds).failed_conditions == (
        "evidence_count_below_minimum",
    )
    passing = estimate("alpha beta gamma", ["alpha", "beta"], 0, thresholds)
    assert passing.failed_conditions == () and passing.estimated_sufficient
    above = Thresholds(min_coverage_bps=6667, min_evidence=2, require_untruncated=False)
    assert estimate("alpha beta gamma", ["alpha", "beta"], 1, above).failed_conditions == (
        "term_coverage_below_threshold",
    )
    # "The", "of" and "is" are stop words; ALPHA and Alpha are one term; the repeat counts once.
    words = estimate("The ALPHA of beta, Alpha is", ["alpha+BETA"], 0, Thresholds(10_000, 1, True))
    assert (words.matched_terms, words.missing_terms, words.term_coverage_bps) == (
        ("alpha", "beta"),
        (),
        10_000,
    )
    assert estimate("alpha beta gamma", ["ALPHA"], 0, Thresholds(0, 1, True)).term_coverage_bps == 3333


def test_the_result_names_its_estimate_estimated_sufficient_and_claims_nothing_more(
    sample_repo: Path,
) -> None:
    """Requirement: sacp.estimator.field-name"""
    data = _run(sample_repo).to_dict()
    keys = {key for key, _ in _members(data)}
    assert isinstance(data["estimated_sufficient"], bool)
    assert all(isinstance(r["estimate"]["estimated_sufficient"], bool) for r in data["rounds"])
    claims = {k for k in keys if re.search(r"quality|complete|correct|verified|accura", k)}
    assert claims == set()


def test_the_result_records_everything_sacp_section_7_lists_and_validates(sample_repo: Path) -> None:
    """The exact request and thresholds, the stop and selected round, every attempted ceiling and digest,
    and per round its tokens, evidence, new evidence, paths and terms, each as the round had them.

    Requirement: sacp.result.fields, sacp.result.schema"""
    result = _run(sample_repo, min_tokens=150, token_step=200, min_coverage_bps=10_000, strong_share_bps=0)
    data = result.to_dict()
    validate_against(SCHEMA, data)
    assert len(result.rounds) > 1
    assert data["request"] == {"query": QUESTION, **result.ladder.to_dict()}
    assert (
        prooftext.Ladder.from_dict({k: v for k, v in data["request"].items() if k != "query"})
        == result.ladder
    )
    estimator = data["estimator"]
    assert estimator["min_query_term_coverage_bps"] == 10_000 and estimator["min_evidence"] == 2
    assert estimator["require_untruncated_evidence"] is True
    assert data["stop_reason"] == result.stop_reason and data["selected_round"] == result.selected_round
    assert data["attempted_ceilings"] == [[r.token_ceiling, r.node_ceiling] for r in result.rounds]
    assert (
        data["digests"] == [r.packet.blake3 for r in result.rounds] == [r["blake3"] for r in data["rounds"]]
    )
    terms = set(lexical_terms(QUESTION))
    for rnd, record in zip(result.rounds, data["rounds"], strict=True):
        assert record["prompt_tokens"] == rnd.packet.prompt_tokens.to_dict()
        assert record["evidence_count"] == len(rnd.packet.evidence)
        assert record["evidence_paths"] == sorted({e.path for e in rnd.packet.evidence})
        assert record["new_evidence_count"] == len(record["new_evidence"])
        estimate_record = record["estimate"]
        assert set(estimate_record["matched_terms"]) | set(estimate_record["missing_terms"]) == terms
        assert not set(estimate_record["matched_terms"]) & set(estimate_record["missing_terms"])
        failed = "term_coverage_below_threshold" in estimate_record["failed_conditions"]
        assert failed == bool(estimate_record["missing_terms"])
    assert data["packet"] == result.packet.to_dict()
    assert data["packet"]["blake3"] == data["digests"][data["selected_round"] - 1]


def test_models_receive_only_the_prompt(sample_repo: Path) -> None:
    """Requirement: sacp.integration.prompt-only"""
    result = _run(sample_repo)
    assert result.prompt == result.packet.prompt
    assert "stop_reason" not in result.prompt and "term_coverage" not in result.prompt


HIDDEN = "separability matrix compound model " * 20 + "\n"
"""Text that answers the question better than anything the index may quote."""
POLICY = '[[labels]]\nglob = "private/**"\nsensitivity = "secret-or-prohibited"\n'


def _guarded_repo(parent: Path) -> Path:
    """The sample repository beside a file outside it, with an ignored file and a file above the default
    clearance inside it, each holding the question's words many times over."""
    write_tree(parent, {"outside.py": HIDDEN})
    extra = {
        ".gitignore": "ignored.py\n",
        "ignored.py": HIDDEN,
        "private/notes.md": HIDDEN,
        "prooftext.toml": POLICY,
    }
    return write_tree(parent / "repo", {**SAMPLE_FILES, **extra})


def test_path_seeds_never_bring_in_what_the_index_does_not_hold(tmp_path: Path) -> None:
    """A seed naming a file outside the root, an ignored file or a file above the clearance ranks nothing
    into the packet, at any round; the packet still verifies.

    Requirement: sacp.request.path-seeds-are-hints"""
    root = _guarded_repo(tmp_path)
    seeds = ("../outside.py", "ignored.py", "private/notes.md", "missing.py")
    result = _run(root, path_seeds=seeds, min_tokens=150, token_step=300, max_tokens=4000)
    for rnd in result.rounds:
        assert {e.path for e in rnd.packet.evidence} <= set(SAMPLE_FILES)
        assert "compound model separability matrix" not in rnd.packet.prompt
    unused = {u["path"] for u in result.packet.trace["ranking"]["unused_seeds"]}
    assert {"../outside.py", "ignored.py", "missing.py"} <= unused
    excluded = {x["path"]: x["reason"] for x in result.packet.excluded}
    assert excluded.get("private/notes.md") == "over_clearance"
    with prooftext.open(root) as index:
        assert index.verify(result.to_dict()).ok


def test_estimator_success_changes_no_policy(tmp_path: Path) -> None:
    """Requirement: sacp.security.no-authorization

    A passing estimate cannot lift clearance or relabel a source: a file above the clearance that holds
    every word of the question stays out at every round, passing or not, and each quoted excerpt carries the
    labels the configuration gives its path."""
    root = _guarded_repo(tmp_path)
    query = QUESTION + " xylophone"
    strict = _run(root, query=query, min_coverage_bps=0, min_evidence=1)
    loose = _run(root, query=query, min_coverage_bps=10_000)
    assert strict.estimated_sufficient and not loose.estimated_sufficient
    assert strict.query.clearance == loose.query.clearance == prooftext.Query("x").clearance
    for rnd in [*strict.rounds, *loose.rounds]:
        assert "private/notes.md" not in {e.path for e in rnd.packet.evidence}
        assert ("private/notes.md", "over_clearance") in {
            (x["path"], x["reason"]) for x in rnd.packet.excluded
        }
        assert all(e.sensitivity == "repository-private" for e in rnd.packet.evidence)
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


def test_a_saved_result_compiles_again_from_its_query_and_request_to_the_same_bytes(
    sample_repo: Path,
) -> None:
    """As the README's Python section says: a saved result's ``query`` (``Query.from_dict``) and its
    ``request`` without the query (``Ladder.from_dict``) compile the same result again, byte for byte,
    whatever the ladder's maxima; a query whose ceilings differ from the ladder's is still refused."""
    ladder = prooftext.Ladder(
        min_tokens=150,
        token_step=150,
        max_tokens=1200,
        min_nodes=2,
        node_step=2,
        max_nodes=12,
        allow_truncated=True,
    )
    query = prooftext.Query(QUESTION, tokenizer="cl100k_base", path_seeds=("docs/guide.md",))
    with prooftext.open(sample_repo) as index:
        first = canonical.encode(index.adaptive_pack(query, ladder=ladder).to_dict())
        saved = json.loads(first)
        request = {k: v for k, v in saved["request"].items() if k != "query"}
        again = index.adaptive_pack(
            prooftext.Query.from_dict(saved["query"]), ladder=prooftext.Ladder.from_dict(request)
        )
        assert canonical.encode(again.to_dict()) == first
        with pytest.raises(prooftext.errors.RequestError) as caught:
            index.adaptive_pack(prooftext.Query(QUESTION, max_tokens=1000), ladder=ladder)
    assert caught.value.details["field"] == "max_tokens"
