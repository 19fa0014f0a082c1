"""Retrieval for standard and deep turns: an adaptive pack over the project's index, when there is one.

The index API may be absent (an older build) or fail to open or pack (no index, nothing to find); either
way :func:`plan_turn` records ``retrieval: unavailable: <reason>`` or ``failed: <code>``, never a silent
skip. The index is opened lazily, at the first retrieval, so a surface turn never touches it.
"""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path
from typing import Any

from prooftext.depth.turn import RetrievalResult, Retriever
from prooftext.tokens import BYTES_BASIS, TokenCount

LADDER_RUNGS = 4
"""The adaptive ladder for a turn climbs from a quarter of the retrieval budget in quarter steps."""


def _call_pack(index: Any, query: str, max_tokens: int, basis: str) -> Any:
    method = index.adaptive_pack
    try:
        params: set[str] = set(inspect.signature(method).parameters)
    except (TypeError, ValueError):
        params = set()
    kwargs: dict[str, Any] = {"max_tokens": max_tokens}
    step = max(1, max_tokens // LADDER_RUNGS)
    if "min_tokens" in params:
        kwargs["min_tokens"] = step
    if "token_step" in params:
        kwargs["token_step"] = step
    if "tokenizer" in params and basis != BYTES_BASIS:
        kwargs["tokenizer"] = basis
    return method(query, **kwargs)


def index_retriever(root: Path | str, basis: str = "o200k_base") -> tuple[Retriever | None, str]:
    """(retriever, "") over ``prooftext.open(root)``, or (None, why retrieval is unavailable)."""
    package = importlib.import_module("prooftext")
    opener = getattr(package, "open", None)
    if opener is None or not callable(opener):
        return None, "the index API (prooftext.open) is not available in this build"
    state: dict[str, Any] = {}

    def retrieve(query: str, max_tokens: int) -> RetrievalResult | None:
        if "index" not in state:
            state["index"] = opener(str(root))
        result = _call_pack(state["index"], query, max_tokens, basis)
        if result is None:
            return None
        tokens = getattr(result, "prompt_tokens", None)
        if tokens is None and hasattr(result, "packet"):
            tokens = result.packet.prompt_tokens
        count = (
            TokenCount(int(tokens.count), str(tokens.basis)) if tokens is not None else TokenCount(0, basis)
        )
        trace = result.to_dict() if hasattr(result, "to_dict") else {}
        return RetrievalResult(str(result.prompt), count, dict(trace))

    return retrieve, ""
