"""The adaptive request and its token/node ladder (SACP §3-§4). Pure functions."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from prooftext.corpus.lines import require_utf8
from prooftext.errors import BudgetError, EmptyQueryError, RangeError, RequestError, whole_number
from prooftext.select.query import (
    MAX_BYTES,
    MAX_QUERY_CHARS,
    MAX_TOKENS,
    MIN_BYTES,
    check_ceiling,
)
from prooftext.text import lexical_terms
from prooftext.tokens import BYTES_BASIS

DEFAULT_MIN_TOKENS = 2000
DEFAULT_MAX_TOKENS = 8000
DEFAULT_TOKEN_STEP = 2000
DEFAULT_MIN_NODES = 16
DEFAULT_MAX_NODES = 64
DEFAULT_NODE_STEP = 16
"""The token and node ladders reach their maxima on the same rung (2k/16, 4k/32, 6k/48, 8k/64)."""
DEFAULT_MIN_COVERAGE_BPS = 0
DEFAULT_MIN_EVIDENCE = 2
DEFAULT_MIN_TOP_FILES = 0
DEFAULT_STRONG_SHARE_BPS = 3000
"""The estimator waits for every ranked candidate weighing at least 30% of the best one; term coverage and the
best files are conditions a caller may add. What was measured for each default: ``docs/ADAPTIVE_NOTES.md``."""
MAX_TOP_FILES = 64
MAX_NODE_CEILING = 4096
BPS_MAX = 10_000
MAX_RUNGS = 256
"""The most rungs a ladder may climb (the default climbs 4). Every rung is a whole round: select, pack,
count exactly and estimate. Each field alone would allow two million rounds (``token_step`` 1 up to
``max_tokens`` 2,097,152), hours of work and tens of megabytes of trace that no deadline stops once started;
a climb that fine-grained tells the caller nothing that 256 rungs do not."""


@dataclass(frozen=True)
class Ladder:
    """SACP's ladder (§3-§4) and its estimator's thresholds: the first rung's token and node ceilings, each
    step, the hard maxima, and when a round's packet is estimated sufficient. ``Ladder()`` is the default."""

    min_tokens: int = DEFAULT_MIN_TOKENS
    max_tokens: int = DEFAULT_MAX_TOKENS
    token_step: int = DEFAULT_TOKEN_STEP
    min_nodes: int = DEFAULT_MIN_NODES
    max_nodes: int = DEFAULT_MAX_NODES
    node_step: int = DEFAULT_NODE_STEP
    min_coverage_bps: int = DEFAULT_MIN_COVERAGE_BPS
    """Basis points (1/100 of a percent) of the query's words the excerpts must hold."""
    min_evidence: int = DEFAULT_MIN_EVIDENCE
    min_top_files: int = DEFAULT_MIN_TOP_FILES
    strong_share_bps: int = DEFAULT_STRONG_SHARE_BPS
    """A ranked candidate weighing at least this share (basis points) of the best one is strong: the packet
    is estimated sufficient only once it quotes every strong candidate (0: no such condition)."""
    allow_truncated: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "min_tokens": self.min_tokens,
            "max_tokens": self.max_tokens,
            "token_step": self.token_step,
            "min_nodes": self.min_nodes,
            "max_nodes": self.max_nodes,
            "node_step": self.node_step,
            "min_query_term_coverage_bps": self.min_coverage_bps,
            "min_evidence": self.min_evidence,
            "min_top_files": self.min_top_files,
            "strong_candidate_share_bps": self.strong_share_bps,
            "allow_truncated_evidence": self.allow_truncated,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Ladder:
        """The ladder :meth:`to_dict` recorded (an adaptive result's ``request`` without its ``query``), checked
        as :func:`validate_ladder` checks it; a field left out keeps its default, an unknown one is refused."""
        if not isinstance(data, Mapping):
            raise RequestError("a ladder must be an object", field="ladder")
        names = {key: key for key in cls().to_dict()} | _RECORDED_AS
        values: dict[str, Any] = {}
        for key, value in data.items():
            name = names.get(key)
            if name is None:
                raise RequestError(f"unknown ladder field {str(key)[:80]!r}", field=str(key)[:80])
            values[name] = value
        return validate_ladder(cls(**values))


_RECORDED_AS = {
    "min_query_term_coverage_bps": "min_coverage_bps",
    "strong_candidate_share_bps": "strong_share_bps",
    "allow_truncated_evidence": "allow_truncated",
}
"""The fields :meth:`Ladder.to_dict` records under SACP's names."""


DEFAULT_LADDER = Ladder()


def validate_query_text(text: object) -> str:
    """SACP §3: a query of at most :data:`MAX_QUERY_CHARS` characters with a searchable term.

    Requirement: sacp.request.validated
    """
    if not isinstance(text, str):
        raise RequestError(f"query must be a string of at most {MAX_QUERY_CHARS} characters", field="query")
    if len(text) > MAX_QUERY_CHARS:
        raise RangeError(f"query is longer than {MAX_QUERY_CHARS} characters", field="query")
    require_utf8(text)
    if not lexical_terms(text):
        raise EmptyQueryError(
            "query must contain at least one searchable term (not only stop words)", field="query"
        )
    return text


def default_rungs(ladder: Ladder) -> bool:
    """Whether ``ladder`` climbs the default rungs, whatever its hard token ceiling: the rungs the estimator's
    ``measured`` records were taken on."""
    return (ladder.min_tokens, ladder.token_step, ladder.min_nodes, ladder.node_step, ladder.max_nodes) == (
        DEFAULT_MIN_TOKENS,
        DEFAULT_TOKEN_STEP,
        DEFAULT_MIN_NODES,
        DEFAULT_NODE_STEP,
        DEFAULT_MAX_NODES,
    )


def validate_ladder(ladder: Ladder) -> Ladder:
    """SACP §3: every declared input checked, each failure naming its field.

    Requirement: sacp.request.validated
    """
    # The ladder does not know its basis: a byte ceiling may reach MAX_BYTES, and each rung's query is then
    # held to its own basis's range (a token ceiling above MAX_TOKENS is refused there, naming max_tokens).
    # A minimum is held to the maximum it must not exceed (which is held to the widest range), so its
    # refusal names that maximum and its value rather than the widest range.
    most = max(MAX_TOKENS, MAX_BYTES)
    _counted("min_tokens", ladder.min_tokens)
    _counted("max_tokens", ladder.max_tokens, most)
    _counted("token_step", ladder.token_step, most)
    _counted("min_nodes", ladder.min_nodes)
    _counted("max_nodes", ladder.max_nodes, MAX_NODE_CEILING)
    _counted("node_step", ladder.node_step, MAX_NODE_CEILING)
    _counted("min_evidence", ladder.min_evidence)
    for low, high in (
        ("min_tokens", "max_tokens"),
        ("min_nodes", "max_nodes"),
        ("min_evidence", "max_nodes"),
    ):
        below, above = getattr(ladder, low), getattr(ladder, high)
        if below > above:
            raise RangeError(_order_message(low, below, high, above), field=low)
    _check_rungs(ladder)
    for name in ("min_coverage_bps", "strong_share_bps"):
        bps = getattr(ladder, name)
        if isinstance(bps, bool) or not isinstance(bps, int) or not 0 <= bps <= BPS_MAX:
            raise RangeError(f"{name} must be an integer from 0 through {BPS_MAX}", field=name)
    top = ladder.min_top_files
    if isinstance(top, bool) or not isinstance(top, int) or not 0 <= top <= MAX_TOP_FILES:
        raise RangeError(
            f"min_top_files must be an integer from 0 through {MAX_TOP_FILES}", field="min_top_files"
        )
    if not isinstance(ladder.allow_truncated, bool):
        raise RequestError("allow_truncated must be a boolean", field="allow_truncated")
    return ladder


def _order_message(low: str, below: int, high: str, above: int) -> str:
    """Why ``low`` may not be ``below`` while ``high`` is ``above``, saying which of the two is a default
    (the caller did not set it) and what to change: a default maximum is raised, and a minimum left at its
    default is lowered along with its maximum."""
    if above == getattr(DEFAULT_LADDER, high):
        return f"{low} ({below}) must not exceed {high} ({above}, its default): raise {high} too"
    if below == getattr(DEFAULT_LADDER, low):
        return f"{low} ({below}, its default) must not exceed {high} ({above}): set {low} too when lowering {high}"
    return f"{low} ({below}) must not exceed {high} ({above})"


def check_basis(ladder: Ladder, basis: str) -> None:
    """Every rung's token ceiling in the range of what ``basis`` counts, as a packet's ceiling is (see
    :func:`~prooftext.select.query.check_ceiling`): the hard maximum, and the first rung, from which every
    other rung rises (a byte ceiling is at least :data:`~prooftext.select.query.MIN_BYTES`)."""
    check_ceiling(ladder.max_tokens, basis)
    if basis == BYTES_BASIS:
        whole_number("min_tokens", ladder.min_tokens, MIN_BYTES, MAX_BYTES, " bytes")


def _counted(name: str, value: object, most: int | None = None) -> int:
    """``value`` when it is an integer (not a boolean) from 1 through ``most`` (no bound when None); a
    refusal names the bound it broke and the value given."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise RequestError(f"{name} must be an integer", field=name)
    if value < 1:
        raise RangeError(f"{name} must be at least 1, got {value}", field=name)
    if most is not None and value > most:
        raise RangeError(f"{name} must be at most {most}, got {value}", field=name)
    return value


def _climb(low: int, high: int, step: int) -> int:
    """The rungs one ceiling takes from ``low`` up to ``high`` in steps of ``step``, both ends counted."""
    return 1 + -(-(high - low) // step)


def _least_step(low: int, high: int) -> int:
    """The smallest step that climbs from ``low`` to ``high`` within :data:`MAX_RUNGS` rungs."""
    return max(1, -(-(high - low) // (MAX_RUNGS - 1)))


def fitting_step(low: int, high: int, step: int) -> int:
    """``step``, or the smallest larger step that keeps a climb from ``low`` to ``high`` within
    :data:`MAX_RUNGS` rungs: for a caller that sets a ladder's range itself (an evaluation's budget)."""
    return max(step, _least_step(low, high))


def climbing_to(ladder: Ladder, budget: int) -> Ladder:
    """``ladder`` climbing up to ``budget``: from a first rung no larger than it, in steps wide enough for
    :data:`MAX_RUNGS` rungs (a large budget widens them). What an evaluation's adaptive arm climbs."""
    lowest = min(ladder.min_tokens, budget)
    step = fitting_step(lowest, budget, ladder.token_step)
    return replace(ladder, min_tokens=lowest, max_tokens=budget, token_step=step)


def _check_rungs(ladder: Ladder) -> None:
    """At most :data:`MAX_RUNGS` rungs. Tokens and nodes rise on the same rungs, each stopping at its
    maximum, and the climb ends when both have: the longer of the two climbs is the ladder's length (a
    first rung raised to the kernel only shortens it). A failure names the step to raise and by how much.

    Requirement: prooftext.ladder.bounded-rungs
    """
    for low, high, step in (
        ("min_tokens", "max_tokens", "token_step"),
        ("min_nodes", "max_nodes", "node_step"),
    ):
        bottom, top, size = getattr(ladder, low), getattr(ladder, high), getattr(ladder, step)
        climbed = _climb(bottom, top, size)
        if climbed > MAX_RUNGS:
            least = _least_step(bottom, top)
            raise RangeError(
                f"a ladder climbs at most {MAX_RUNGS} rungs; {step} {size} from {low} {bottom} to {high} {top}"
                f" would climb {climbed} rungs: raise {step} to at least {least}, or narrow {low}..{high}",
                field=step,
                least=least,
            )


def first_rung(ladder: Ladder, kernel_tokens: int, kernel_nodes: int = 0) -> tuple[int, int, bool]:
    """``(T_0, N_0, raised)``: the first rung, raised to the kernel when needed, in both ceilings: its tokens
    (header and required evidence) and its nodes (``kernel_nodes``, every node the selector requires, the
    contradiction partners of a required file included). A kernel above a maximum fails, naming it.

    Requirement: sacp.ladder.kernel-over-max-fails, sacp.ladder.first-rung-raised
    """
    if kernel_tokens > ladder.max_tokens:
        raise BudgetError(
            f"the minimum context kernel needs {kernel_tokens} tokens, above max_tokens {ladder.max_tokens}",
            field="max_tokens",
            kernel=kernel_tokens,
            max_tokens=ladder.max_tokens,
        )
    if kernel_nodes > ladder.max_nodes:
        # The selector's own refusal, said before any round: no rung could hold the required evidence.
        raise RequestError(
            f"more required references than max_nodes: the minimum context kernel holds {kernel_nodes}"
            f" nodes, above max_nodes {ladder.max_nodes}",
            field="max_nodes",
        )
    t0 = max(ladder.min_tokens, kernel_tokens)
    n0 = max(ladder.min_nodes, kernel_nodes)
    return t0, n0, (t0, n0) != (ladder.min_tokens, ladder.min_nodes)


def next_rung(ladder: Ladder, tokens: int, nodes: int) -> tuple[int, int]:
    """``T_(i+1) = min(T_i + step, max)``, ``N_(i+1) = min(N_i + step, max)``."""
    return min(tokens + ladder.token_step, ladder.max_tokens), min(nodes + ladder.node_step, ladder.max_nodes)


def at_hard_limit(ladder: Ladder, tokens: int, nodes: int) -> bool:
    return tokens >= ladder.max_tokens and nodes >= ladder.max_nodes


def rungs(ladder: Ladder, kernel_tokens: int, kernel_nodes: int = 0) -> list[tuple[int, int]]:
    """Every rung from the first to the hard limit (for inspection and property tests)."""
    tokens, nodes, _raised = first_rung(ladder, kernel_tokens, kernel_nodes)
    out = [(tokens, nodes)]
    while not at_hard_limit(ladder, tokens, nodes):
        tokens, nodes = next_rung(ladder, tokens, nodes)
        out.append((tokens, nodes))
    return out
