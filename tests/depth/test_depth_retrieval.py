"""The index retriever adapter: lazy opening, ladder arguments, and a recorded reason when unavailable."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import prooftext
from prooftext.depth import index_retriever, plan_turn
from prooftext.depth.turn import STEP_RETRIEVAL
from prooftext.errors import NotFoundError
from prooftext.tokens import TokenCount


@dataclass
class _Result:
    prompt: str
    prompt_tokens: TokenCount

    def to_dict(self) -> dict[str, Any]:
        return {"stop_reason": "sufficient"}


@dataclass
class _Index:
    calls: list[dict[str, Any]] = field(default_factory=list)

    def adaptive_pack(
        self,
        query: str,
        *,
        min_tokens: int = 2000,
        max_tokens: int = 8000,
        token_step: int = 2000,
        tokenizer: str = "",
    ) -> _Result:
        self.calls.append(
            {"query": query, "min": min_tokens, "max": max_tokens, "step": token_step, "tok": tokenizer}
        )
        return _Result("evidence block", TokenCount(3, "o200k_base"))


def test_index_is_opened_lazily_and_gets_a_ladder_within_the_budget(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Requirement: depth.retrieval.adaptive_pack"""
    opened: list[str] = []
    index = _Index()

    def fake_open(root: str) -> _Index:
        opened.append(root)
        return index

    monkeypatch.setattr(prooftext, "open", fake_open, raising=False)
    retriever, reason = index_retriever(tmp_path)
    assert retriever is not None and reason == ""
    plan_turn("main", "hi", retriever=retriever)
    assert opened == []
    plan = plan_turn("main", "Please analyze the store", retriever=retriever)
    assert opened == [str(tmp_path)] and plan.counts["retrieval"] == 1
    call = index.calls[0]
    assert call["max"] == (8192 - 2048) * 3000 // 10000 and call["min"] == call["step"] == call["max"] // 4
    assert call["tok"] == "o200k_base" and plan.retrieval_trace == {"stop_reason": "sufficient"}


def test_missing_index_api_or_failing_open_is_recorded(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def no_such_attribute(name: str) -> Any:
        raise AttributeError(name)

    monkeypatch.setattr(prooftext, "__getattr__", no_such_attribute, raising=False)
    monkeypatch.delattr(prooftext, "open", raising=False)
    retriever, reason = index_retriever(tmp_path)
    assert retriever is None and "not available" in reason

    def broken_open(root: str) -> _Index:
        raise NotFoundError("no index here")

    monkeypatch.setattr(prooftext, "open", broken_open, raising=False)
    retriever, _ = index_retriever(tmp_path)
    step = plan_turn("main", "Please analyze the store", retriever=retriever).step(STEP_RETRIEVAL)
    assert not step.ran and step.reason == "failed: not_found"
