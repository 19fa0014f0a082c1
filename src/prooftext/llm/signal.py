"""The signal report: the shape of one turn, never its content.

It records the tier and mode, the compiled prompt's exact token count (with its basis), how many memory,
retrieval, history and file items went in, the output budget, and, when Ollama returns them, its timing
fields, so a slow turn can be told apart as model load, prompt processing or generation. No message text,
reply text, memory text or retrieved text ever enters it.

The model is never switched silently: ``model`` is the one requested, ``served_model`` the one the server
says answered, and ``model_switched`` is true when the server named another model. A name that only adds
Ollama's implicit ``:latest`` tag or a dated snapshot suffix (``-2024-08-06``, as the OpenAI API resolves an
alias) is the same model.

Suspected silent truncation: a server that cuts a prompt to its context length without saying so reports a
``prompt_eval_count`` well short of what was sent. Different tokenizers and prompt caching also move that
count, so the flag is a suspicion with its rule recorded, not a verdict.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol

from prooftext.llm.backends import OLLAMA_TIMING_FIELDS, ChatResult
from prooftext.tokens import TokenCount

TRUNCATION_SHARE_BP = 5000
"""Flag when the server evaluated fewer than 50 % of the compiled prompt tokens."""

TRUNCATION_MIN_PROMPT_TOKENS = 64
"""Below this compiled size the comparison is noise (chat templates add tokens of their own)."""

SIGNAL_SCHEMA = "prooftext.signal-report/v1"

SAME_MODEL_SUFFIX = r"(?::latest|-\d{4}-\d{2}-\d{2})"
"""What a server may add to the requested name and still be answering as that model."""


class _Named(Protocol):
    @property
    def value(self) -> str: ...


class PlannedTurn(Protocol):
    """What the report reads of a planned turn (:class:`~prooftext.conversation.turn.TurnPlan`): its shape,
    never its messages."""

    @property
    def tier(self) -> _Named | None: ...

    @property
    def mode(self) -> _Named: ...

    @property
    def status_label(self) -> str: ...

    @property
    def prompt_tokens(self) -> TokenCount: ...

    @property
    def output_budget(self) -> int: ...

    @property
    def counts(self) -> dict[str, int]: ...


@dataclass(frozen=True)
class SignalReport:
    tier: str | None
    mode: str
    status_label: str
    prompt_tokens: TokenCount
    output_budget: int
    counts: dict[str, int]
    backend: str
    model: str
    served_model: str | None
    model_switched: bool
    streamed: bool
    done_reason: str | None
    timings: dict[str, int | None]
    usage: dict[str, int | None]
    suspected_truncation: bool
    truncation_reason: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "backend": self.backend,
            "counts": dict(self.counts),
            "done_reason": self.done_reason,
            "mode": self.mode,
            "model": self.model,
            "model_switched": self.model_switched,
            "output_budget": self.output_budget,
            "prompt_tokens": self.prompt_tokens.to_dict(),
            "schema": SIGNAL_SCHEMA,
            "served_model": self.served_model,
            "status_label": self.status_label,
            "streamed": self.streamed,
            "suspected_truncation": self.suspected_truncation,
            "tier": self.tier,
            "timings": dict(self.timings),
            "truncation_rule": {
                "min_prompt_tokens": TRUNCATION_MIN_PROMPT_TOKENS,
                "share_bp": TRUNCATION_SHARE_BP,
            },
            "truncation_reason": self.truncation_reason,
            "usage": dict(self.usage),
        }

    @property
    def model_warning(self) -> str | None:
        """What to tell the user when the server answered as another model; ``None`` when it did not."""
        if not self.model_switched:
            return None
        return f"the server answered as model {self.served_model!r}, not {self.model!r} as requested"


def model_switched(requested: str, served: str | None) -> bool:
    """Whether the server named a model other than the one requested (see :data:`SAME_MODEL_SUFFIX`)."""
    if served is None:
        return False
    return re.fullmatch(re.escape(requested) + f"(?:{SAME_MODEL_SUFFIX})?", served) is None


def truncation_check(compiled: int, evaluated: int | None) -> tuple[bool, str]:
    """(suspected, why) for a compiled prompt size and the server's evaluated prompt token count."""
    if evaluated is None:
        return False, "server reported no prompt token count"
    if compiled < TRUNCATION_MIN_PROMPT_TOKENS:
        return False, f"compiled prompt under {TRUNCATION_MIN_PROMPT_TOKENS} tokens"
    if evaluated * 10000 < compiled * TRUNCATION_SHARE_BP:
        return True, f"server evaluated {evaluated} of {compiled} compiled prompt tokens"
    return False, f"server evaluated {evaluated} of {compiled} compiled prompt tokens"


def signal_report(plan: PlannedTurn, result: ChatResult) -> SignalReport:
    """The shape-only report of one planned and answered turn."""
    timings = {k: result.timings.get(k) for k in OLLAMA_TIMING_FIELDS}
    evaluated = timings.get("prompt_eval_count")
    if evaluated is None:
        evaluated = result.usage.get("prompt_tokens")
    suspected, why = truncation_check(plan.prompt_tokens.count, evaluated)
    return SignalReport(
        tier=plan.tier.value if plan.tier else None,
        mode=plan.mode.value,
        status_label=plan.status_label,
        prompt_tokens=plan.prompt_tokens,
        output_budget=plan.output_budget,
        counts=dict(plan.counts),
        backend=result.backend,
        model=result.model,
        served_model=result.served_model,
        model_switched=model_switched(result.model, result.served_model),
        streamed=result.streamed,
        done_reason=result.done_reason,
        timings=timings,
        usage=dict(result.usage),
        suspected_truncation=suspected,
        truncation_reason=why,
    )
