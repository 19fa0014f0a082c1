"""Stable ids of the SACP-0.2 requirements (§3-§7, §10) and of prooftext's declared extensions to them;
each is claimed by a test docstring.

A test claims a requirement with a line ``Requirement: <id>`` in its docstring; a meta-test checks every id
below is claimed, so coverage of the specification is visible.
"""

from __future__ import annotations

SACP_REQUIREMENTS: dict[str, str] = {
    "sacp.request.searchable-query": "§3 a non-empty query with at least one searchable term",
    "sacp.request.positive-ceilings": "§3 positive minimum and maximum token and node ceilings",
    "sacp.request.positive-steps": "§3 positive token and node steps",
    "sacp.request.coverage-range": "§3 coverage threshold from 0 through 10,000 basis points",
    "sacp.request.min-evidence-positive": "§3 a positive minimum evidence count",
    "sacp.request.min-not-above-max": "§3 minimum ceilings MUST NOT exceed maximum ceilings",
    "sacp.request.min-evidence-not-above-max-nodes": "§3 minimum evidence MUST NOT exceed the max node ceiling",
    "sacp.request.truncation-declared": "§3 whether shortened excerpts are permitted is declared, and kept",
    "sacp.request.path-seeds-are-hints": "§3 a path seed MUST NOT bypass membership, range or digest checks",
    "sacp.round.steps": "§4 each round retrieves, packs, verifies, counts, digests, estimates, appends",
    "sacp.ladder.kernel-over-max-fails": "§4 a kernel above max_tokens MUST fail with a token-budget error",
    "sacp.ladder.first-rung-raised": "§4 raising the first rung to the kernel is recorded in round one",
    "sacp.ladder.round-one": "§4 the first round is numbered one",
    "sacp.ladder.non-decreasing": "§4 ceilings MUST be non-decreasing",
    "sacp.ladder.strictly-increases": "§4 at least one ceiling MUST strictly increase between rounds",
    "sacp.ladder.hard-max": "§4 the hard maximum is never crossed",
    "sacp.estimator.evidence-only": "§5 terms are measured on evidence blocks only, never the header",
    "sacp.estimator.terms": "§5 terms are case-insensitive alphanumeric runs minus a fixed stop-word list",
    "sacp.estimator.formula": "§5 coverage = floor(10000 * matched / unique) and the three conditions",
    "sacp.estimator.field-name": "§5 the result uses estimated_sufficient, never verified_quality or complete",
    "sacp.stop.exactly-one": "§6 exactly one stop reason is recorded",
    "sacp.stop.first-passing-round": "§6 estimated_sufficient selects the first passing round",
    "sacp.stop.candidate-exhausted": "§6 candidate_exhausted when nothing remained omitted",
    "sacp.stop.hard-limit-final-round": "§6 hard_limit_reached selects the final round's packet",
    "sacp.stop.failed-estimate-valid-packet": "§6 a failed estimate still produces a verifiable packet",
    "sacp.result.fields": "§7 the result records request, thresholds, stop, rounds, digests, terms, packet",
    "sacp.result.schema": "§7 every result validates against the shipped schema",
    "sacp.integration.prompt-only": "§8 models receive only the prompt; the trace is for the caller",
    "sacp.integration.require-sufficient": "§8 adaptive-pack --require-sufficient exits 2 on a failed estimate",
    "sacp.security.no-authorization": "§10 estimator success MUST NOT authorize access or override policy",
    "prooftext.ladder.bounded-rungs": "a ladder that would climb more than 256 rungs is refused before any round, naming the step to raise",
    "prooftext.estimator.declared": "§1 the estimator in use is declared: name, version and every threshold",
    "prooftext.estimator.top-files": "with min_top_files, the estimator fails while a top-ranked file is unquoted and one of its candidates waits on a ceiling",
    "prooftext.estimator.strong-candidates": "v4 fails while a ranked candidate weighing at least the declared share of the best one is unquoted and waits on a ceiling",
    "prooftext.estimator.measured": "the declaration holds how often a sufficient stop was right on each benchmark, for the thresholds that was measured at only",
    "prooftext.estimator.v1-when-zero": "with min_top_files and the strong share 0 the estimator decides exactly as §5's v1",
}
