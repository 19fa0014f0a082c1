"""Ranking: which nodes of the index answer a query, in a deterministic order with recorded components.

Files are ranked by a linear fusion of independent signals (:mod:`prooftext.select.signals`), each
normalized by its per-query maximum and weighted equally: lexical BM25 over symbols, exact identifier
matches, literal phrases the query quotes, BM25 of the query's subject line in symbol names and paths, paths
the query names, path words and path seeds. Test and documentation files are de-weighted. Within a file,
nodes are ordered by their own evidence and a node's priority decays with its rank inside its file
(:mod:`prooftext.select.fusion`), so that one file cannot take the whole budget. The best files then offer
further nodes (:mod:`prooftext.select.expand`): their openings and the neighbours of their best candidates. Every knob is a field of the
:class:`~prooftext.select.policy.RankingPolicy` passed in, and the trace records the whole policy.
``docs/RANKING_NOTES.md`` records what was measured for each knob and signal, and why no embedding
similarity takes part.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

import prooftext.select.expand as expand
from prooftext.select.candidates import Candidate
from prooftext.select.corpus_facts import CorpusFacts, corpus_facts
from prooftext.select.evidence import add_file_nodes, gather_evidence, search_terms
from prooftext.select.fusion import fuse, node_candidates
from prooftext.select.policy import DEFAULT_POLICY, RankingPolicy
from prooftext.select.query import Query
from prooftext.select.reads import Reads
from prooftext.select.signals import SIGNALS, SignalInputs, file_signals, find_test_code
from prooftext.select.terms import QueryAnalysis
from prooftext.store.db import read_snapshot
from prooftext.store.queries import generation

SEED_NOT_INDEXED = "not_indexed"
"""A path seed that names no indexed file (absent, excluded, outside the root, or spelled differently):
it ranks nothing, and the ranking trace lists it under ``unused_seeds`` with this reason."""


@dataclass
class RankResult:
    candidates: list[Candidate]
    trace: dict[str, object] = field(default_factory=dict)


def rank(
    conn: sqlite3.Connection, query: Query, analysis: QueryAnalysis, policy: RankingPolicy = DEFAULT_POLICY
) -> RankResult:
    """Every node with evidence for the query, best first (see the module docstring), read from one
    snapshot of the store."""
    with read_snapshot(conn):
        return _rank(Reads(conn, generation(conn)), query, analysis, policy)


def _rank(reads: Reads, query: Query, analysis: QueryAnalysis, policy: RankingPolicy) -> RankResult:
    corpus = corpus_facts(reads.conn, reads.generation, policy)
    terms = search_terms(reads, analysis, policy)
    ev = gather_evidence(reads, analysis, terms, len(corpus.paths) or 1, policy)
    ev.test_code = find_test_code(ev.rows.values(), corpus, policy)
    signals = file_signals(SignalInputs(ev, corpus, analysis, query.path_seeds), policy)
    fused = fuse(signals, corpus, policy)
    add_file_nodes(reads, [*signals["path"], *signals["seed"]], ev)
    candidates = list(node_candidates(ev, fused, policy).values())
    candidates.extend(expand.openings(reads.conn, candidates, corpus.ids, policy))
    candidates.extend(expand.neighbours(reads, candidates, corpus.ids, policy))
    candidates = expand.apply_heads(reads.conn, candidates, policy)
    candidates.sort(key=Candidate.rank_key)
    trace = {
        "fts_terms": terms,
        "phrase_runs": [" ".join(run) for run in analysis.phrases],
        "subject_terms": list(analysis.subject),
        "signals": list(SIGNALS),
        "policy": policy.to_dict(),
        "unused_seeds": _unused_seeds(query, corpus),
        "candidates": len(candidates),
    }
    return RankResult(candidates, trace)


def _unused_seeds(query: Query, corpus: CorpusFacts) -> list[dict[str, str]]:
    return [
        {"path": p, "reason": SEED_NOT_INDEXED}
        for p in dict.fromkeys(query.path_seeds)
        if p not in corpus.ids
    ]
