"""When the adaptive ladder stops adding evidence: the evidence-sufficiency estimator (SACP §5), version 4.

Each round of the ladder packs more evidence; the estimator decides whether the round's packet is
``estimated_sufficient``, which stops the climb. It is a routing heuristic, not a claim of quality or
completeness. Its conditions, each declared with its threshold in the result's ``estimator`` object:

- SACP §5: at least ``min_query_term_coverage_bps`` of the query's terms (case-insensitive alphanumeric
  runs minus a fixed, versioned stop-word list) appear in the evidence blocks (never in the header that holds
  the query itself); at least ``min_evidence`` excerpts; none shortened, unless truncation was allowed.
- The ranking's files: the packet quotes each of the ranking's best ``min_top_files`` files.
- The ranking's candidates: the packet quotes every ranked candidate weighing at least
  ``strong_candidate_share_bps`` of the best one. The climb stops when what is left out is much weaker than
  what is quoted, not when the question's words appear somewhere.

A file or candidate holds the climb only while this round's ceilings leave out its excerpts; one left out for
another reason (policy, source drift) cannot. With ``min_top_files`` and ``strong_candidate_share_bps`` 0
the estimator is exactly §5's v1. How often a sufficient stop was right (it quoted every gold file of a
SWE-bench task, every evidence turn of a LoCoMo question) is declared as ``measured``: the records of
:data:`MEASURED`, for the thresholds and rungs they were measured at, else none (see ``docs/ADAPTIVE_NOTES.md``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from prooftext.cache import BoundedCache
from prooftext.text import STOPWORDS_VERSION, lexical_terms

ESTIMATOR_NAME = "prooftext.term-coverage"
ESTIMATOR_VERSION = 4
BPS = 10_000

TERM_CACHE_ENTRIES = 512
"""Evidence blocks whose terms a process remembers (as many as the renderer keeps prepared excerpts): the
queries a server answers quote the same blocks again and again, and reading a block's terms was most of the
estimator's time (1.3 of 1.5 ms a request on the server benchmark's queries)."""
_BLOCK_TERMS: BoundedCache[str, frozenset[str]] = BoundedCache(TERM_CACHE_ENTRIES)

COND_COVERAGE = "term_coverage_below_threshold"
COND_EVIDENCE = "evidence_count_below_minimum"
COND_TRUNCATED = "truncated_evidence_present"
COND_TOP_FILES = "top_files_unquoted"
COND_STRONG = "strong_candidates_unquoted"
MAX_LISTED_CANDIDATES = 16
"""An estimate lists at most this many of the strong candidates still left out (it counts them all)."""


@dataclass(frozen=True)
class Thresholds:
    """The estimator's conditions, each off at 0: term coverage, excerpts, untruncated evidence, the ranking's
    best files and its strong candidates (see the module's docstring)."""

    min_coverage_bps: int
    min_evidence: int
    require_untruncated: bool
    min_top_files: int = 0
    strong_candidate_share_bps: int = 0


MEASURED_AT = Thresholds(0, 2, True, 0, strong_candidate_share_bps=3000)
"""The thresholds :data:`MEASURED` holds for: the default ladder's (on its 2k-token rungs)."""


@dataclass(frozen=True)
class Measured:
    """How often a sufficient stop was right on one benchmark: ``right`` of ``sufficient_stops`` stops of
    ``cases`` compiled with a ``max_tokens`` ceiling, "right" meaning ``right_means``."""

    benchmark: str
    cases: int
    max_tokens: int
    sufficient_stops: int
    right: int
    right_means: str

    def to_dict(self) -> dict[str, object]:
        return {
            "benchmark": self.benchmark,
            "cases": self.cases,
            "max_tokens": self.max_tokens,
            "sufficient_stops": self.sufficient_stops,
            "right": self.right,
            "right_bps": self.right * BPS // self.sufficient_stops,
            "right_means": self.right_means,
        }


MEASURED = (
    Measured("SWE-bench development split", 181, 8000, 60, 57, "every gold file quoted"),
    Measured("LoCoMo", 1982, 8192, 1979, 1720, "every evidence turn quoted"),
)


@dataclass(frozen=True)
class Estimate:
    term_coverage_bps: int
    matched_terms: tuple[str, ...]
    missing_terms: tuple[str, ...]
    evidence_count: int
    truncated_evidence_count: int
    failed_conditions: tuple[str, ...]
    top_files: tuple[str, ...] = ()
    """The ranking's best files the condition looks at, best first."""
    unquoted_top_files: tuple[str, ...] = ()
    """Those of them the packet does not quote while this round's ceilings leave out their excerpts."""
    strong_candidates: int = 0
    """Ranked candidates weighing at least ``strong_candidate_share_bps`` of the best one."""
    unquoted_strong: tuple[str, ...] = ()
    """The node ids of those this round's ceilings leave out."""

    @property
    def estimated_sufficient(self) -> bool:
        return not self.failed_conditions

    def to_dict(self) -> dict[str, object]:
        return {
            "term_coverage_bps": self.term_coverage_bps,
            "matched_terms": list(self.matched_terms),
            "missing_terms": list(self.missing_terms),
            "evidence_count": self.evidence_count,
            "truncated_evidence_count": self.truncated_evidence_count,
            "top_files": list(self.top_files),
            "unquoted_top_files": list(self.unquoted_top_files),
            "strong_candidates": self.strong_candidates,
            "unquoted_strong_candidates": len(self.unquoted_strong),
            "unquoted_strong_node_ids": list(self.unquoted_strong[:MAX_LISTED_CANDIDATES]),
            "failed_conditions": list(self.failed_conditions),
            "estimated_sufficient": self.estimated_sufficient,
        }


def estimate(
    query: str,
    evidence_texts: Sequence[str],
    truncated: int,
    thresholds: Thresholds,
    memo: dict[str, frozenset[str]] | None = None,
    top_files: Sequence[str] = (),
    unquoted_top_files: Sequence[str] = (),
    strong: Sequence[str] = (),
    unquoted_strong: Sequence[str] = (),
) -> Estimate:
    """Evaluate the estimator on the evidence blocks of one round.

    ``memo`` (text to its terms) lets the rounds of one compilation share the work on blocks they share.
    ``top_files`` are the files the ranking condition looks at and ``unquoted_top_files`` those of them this
    round's packet leaves out for its ceilings (see :func:`prooftext.adaptive.compile.top_files`).

    Requirement: sacp.estimator.formula, prooftext.estimator.top-files
    """
    terms = lexical_terms(query)
    present: set[str] = set()
    for text in evidence_texts:
        found = None if memo is None else memo.get(text)
        if found is None:
            found = _block_terms(text)
            if memo is not None:
                memo[text] = found
        present |= found
    matched = tuple(t for t in terms if t in present)
    missing = tuple(t for t in terms if t not in present)
    coverage = (BPS * len(matched)) // len(terms) if terms else 0
    failed: list[str] = []
    if coverage < thresholds.min_coverage_bps:
        failed.append(COND_COVERAGE)
    if len(evidence_texts) < thresholds.min_evidence:
        failed.append(COND_EVIDENCE)
    if thresholds.require_untruncated and truncated:
        failed.append(COND_TRUNCATED)
    if unquoted_top_files:
        failed.append(COND_TOP_FILES)
    if unquoted_strong:
        failed.append(COND_STRONG)
    return Estimate(
        coverage,
        matched,
        missing,
        len(evidence_texts),
        truncated,
        tuple(failed),
        tuple(top_files),
        tuple(unquoted_top_files),
        len(strong),
        tuple(unquoted_strong),
    )


def _block_terms(text: str) -> frozenset[str]:
    found = _BLOCK_TERMS.get(text)
    if found is None:
        found = frozenset(lexical_terms(text))
        _BLOCK_TERMS.put(text, found)
    return found


def describe(thresholds: Thresholds, default_rungs: bool = True) -> dict[str, object]:
    """The estimator's declaration; its ``measured`` records only for the thresholds and rungs they were
    measured at (``default_rungs``: the ladder climbs the default rungs)."""
    measured = thresholds == MEASURED_AT and default_rungs
    return {
        "name": ESTIMATOR_NAME,
        "version": ESTIMATOR_VERSION,
        "stopwords": STOPWORDS_VERSION,
        "min_query_term_coverage_bps": thresholds.min_coverage_bps,
        "min_evidence": thresholds.min_evidence,
        "require_untruncated_evidence": thresholds.require_untruncated,
        "min_top_files": thresholds.min_top_files,
        "strong_candidate_share_bps": thresholds.strong_candidate_share_bps,
        "measured": [m.to_dict() for m in MEASURED] if measured else [],
    }
