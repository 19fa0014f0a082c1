"""The turn retriever over an index: lazy opening, ladder arguments, and a failing open recorded."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import prooftext
from prooftext import Ladder, Query
from prooftext.api.turns import LazyIndex
from prooftext.conversation.turn import STEP_RETRIEVAL, TurnRequest, TurnSources, plan_turn
from prooftext.errors import NotFoundError
from prooftext.select.query import MIN_BYTES
from prooftext.tokens import TokenCount, get_counter


@dataclass
class _Packet:
    prompt_tokens: TokenCount
    evidence: list[str] = field(default_factory=lambda: ["one excerpt"])


@dataclass
class _Result:
    prompt: str
    packet: _Packet

    def to_dict(self) -> dict[str, Any]:
        return {"stop_reason": "sufficient"}


@dataclass
class _Index:
    calls: list[dict[str, Any]] = field(default_factory=list)

    def adaptive_pack(self, query: Query, *, ladder: Ladder, refresh: bool = True) -> _Result:
        self.calls.append(
            {
                "query": query.text,
                "min": ladder.min_tokens,
                "max": ladder.max_tokens,
                "step": ladder.token_step,
                "tok": query.tokenizer,
                "refresh": refresh,
            }
        )
        return _Result("evidence block", _Packet(TokenCount(3, "o200k_base")))


def test_index_is_opened_lazily_and_gets_a_ladder_within_the_budget() -> None:
    """Requirement: depth.retrieval.adaptive_pack"""
    opened: list[str] = []
    index = _Index()

    def fake_open() -> _Index:
        opened.append("open")
        return index

    retriever = prooftext.index_retriever_for(fake_open, "o200k_base")  # type: ignore[arg-type]
    plan_turn(TurnRequest("main", "hi"), TurnSources(retriever=retriever))
    assert opened == []
    plan = plan_turn(TurnRequest("main", "Please analyze the store"), TurnSources(retriever=retriever))
    assert opened == ["open"] and plan.counts["retrieval"] == 1
    call = index.calls[0]
    assert call["max"] == (8192 - 2048) * 3000 // 10000 and call["min"] == call["step"] == call["max"] // 4
    assert call["tok"] == "o200k_base" and call["refresh"] is True
    assert plan.retrieval_trace == {"stop_reason": "sufficient"}


def test_a_bytes_turn_packs_its_evidence_in_bytes_within_its_share(sample_repo: Path) -> None:
    with prooftext.Conversation(sample_repo, "bytes", create=False) as conversation:
        plan = conversation.plan(TurnRequest("main", "Compare how separability_matrix works in detail"))
    step = plan.step(STEP_RETRIEVAL)
    assert step.reason == "adaptive pack within the retrieval budget" and plan.counts["retrieval"] == 1
    assert step.detail["tokens"]["basis"] == step.detail["budget"]["basis"] == "bytes"
    assert step.detail["tokens"]["count"] <= step.detail["budget"]["count"]
    assert plan.retrieval_trace is not None and plan.retrieval_trace["query"]["tokenizer"] == "bytes"


def test_a_bytes_share_below_the_smallest_pack_ceiling_skips_retrieval_saying_why() -> None:
    opened: list[str] = []

    def fake_open() -> _Index:
        opened.append("open")
        return _Index()

    retriever = prooftext.index_retriever_for(fake_open, "bytes")  # type: ignore[arg-type]
    request = TurnRequest("main", "Please analyze the store", window_tokens=4096)
    plan = plan_turn(request, TurnSources(retriever=retriever), counter=get_counter("bytes"))
    step = plan.step(STEP_RETRIEVAL)
    share = (4096 - 2048) * 3000 // 10000
    assert not step.ran and opened == [] and plan.counts["retrieval"] == 0
    assert step.reason == (
        f"skipped: a retrieval budget of {share} bytes is below the smallest pack ceiling, {MIN_BYTES}"
    )


def test_a_packet_quoting_no_evidence_adds_no_retrieval_block(tmp_path: Path) -> None:
    (tmp_path / "creds.py").write_text('aws_key = "x"\n', encoding="utf-8")
    with prooftext.Conversation(tmp_path, create=False) as conversation:
        plan = conversation.plan(TurnRequest("main", "hi", active_files=["creds.py"]))
    step = plan.step(STEP_RETRIEVAL)
    assert step.ran and step.reason == "retriever returned no evidence"
    assert plan.counts["retrieval"] == 0 and "## Evidence" not in plan.messages[0]["content"]


def test_an_index_that_cannot_be_opened_fails_the_retrieval_step_with_its_code() -> None:
    def broken_open() -> _Index:
        raise NotFoundError("no index here")

    retriever = prooftext.index_retriever_for(broken_open, "o200k_base")  # type: ignore[arg-type]
    step = plan_turn(TurnRequest("main", "Please analyze the store"), TurnSources(retriever=retriever))
    assert not step.step(STEP_RETRIEVAL).ran and step.step(STEP_RETRIEVAL).reason == "failed: not_found"


def test_a_lazy_index_is_opened_once_at_first_use_and_closed(tmp_path: Path) -> None:
    index = LazyIndex(tmp_path)
    index.close()
    assert not (tmp_path / ".prooftext").exists()
    first = index()
    assert index() is first and (tmp_path / ".prooftext" / "index.sqlite").is_file()
    index.close()
    assert index() is not first
    index.close()


def test_a_surface_dry_run_turn_never_creates_the_index_store(tmp_path: Path) -> None:
    prooftext.turn_plan(tmp_path, TurnRequest("main", "hi"))
    assert not (tmp_path / ".prooftext").exists()
