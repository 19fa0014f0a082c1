"""The built-in evidence-sufficiency estimator, v1 (SACP §5).

Query terms are case-insensitive alphanumeric runs minus a fixed, versioned stop-word list; they are
measured only against the selected evidence blocks, never the packet header that holds the query itself.
The result is named ``estimated_sufficient``: a routing heuristic, not a claim of quality or completeness.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from prooftext.select.terms import STOPWORDS_VERSION, lexical_terms

ESTIMATOR_NAME = "prooftext.term-coverage"
ESTIMATOR_VERSION = 1
BPS = 10_000

COND_COVERAGE = "term_coverage_below_threshold"
COND_EVIDENCE = "evidence_count_below_minimum"
COND_TRUNCATED = "truncated_evidence_present"


@dataclass(frozen=True)
class Thresholds:
    min_coverage_bps: int
    min_evidence: int
    require_untruncated: bool


@dataclass(frozen=True)
class Estimate:
    term_coverage_bps: int
    matched_terms: tuple[str, ...]
    missing_terms: tuple[str, ...]
    evidence_count: int
    truncated_evidence_count: int
    failed_conditions: tuple[str, ...]

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
            "failed_conditions": list(self.failed_conditions),
            "estimated_sufficient": self.estimated_sufficient,
        }


def query_terms(query: str) -> list[str]:
    """The estimator's unique query terms, in first-seen order."""
    return lexical_terms(query)


def estimate(
    query: str,
    evidence_texts: Sequence[str],
    truncated: int,
    thresholds: Thresholds,
    memo: dict[str, frozenset[str]] | None = None,
) -> Estimate:
    """Evaluate estimator v1 on the evidence blocks of one round.

    ``memo`` (text to its terms) lets the rounds of one compilation share the work on blocks they share."""
    terms = query_terms(query)
    present: set[str] = set()
    for text in evidence_texts:
        found = None if memo is None else memo.get(text)
        if found is None:
            found = frozenset(lexical_terms(text))
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
    return Estimate(coverage, matched, missing, len(evidence_texts), truncated, tuple(failed))


def describe(thresholds: Thresholds) -> dict[str, object]:
    return {
        "name": ESTIMATOR_NAME,
        "version": ESTIMATOR_VERSION,
        "stopwords": STOPWORDS_VERSION,
        "min_query_term_coverage_bps": thresholds.min_coverage_bps,
        "min_evidence": thresholds.min_evidence,
        "require_untruncated_evidence": thresholds.require_untruncated,
    }
