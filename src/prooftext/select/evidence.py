"""Gathering a query's evidence from the store: the terms worth a search, lexical, identifier, phrase and
subject hits, and the rows of the nodes they name."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from prooftext.select.policy import RankingPolicy
from prooftext.select.reads import Reads
from prooftext.select.signals import Evidence, choose_terms, identifier_hits
from prooftext.select.terms import QueryAnalysis
from prooftext.store.queries import file_node_rows, node_count, symbol_rows_named
from prooftext.text import singulars


def search_terms(reads: Reads, analysis: QueryAnalysis, policy: RankingPolicy) -> list[str]:
    """The query terms worth an FTS search (see :func:`~prooftext.select.signals.choose_terms`), then the
    subject's terms (see :func:`~prooftext.select.terms.subject_terms`).

    Document frequency is counted only up to a cap (a bounded probe per term), which is all the choice needs
    and keeps long issue texts fast."""
    total = node_count(reads.conn)
    cap = policy.common_cap(total)
    probed = _with_singulars(analysis.terms[: policy.max_term_probes], policy)
    subject = _with_singulars(analysis.subject, policy)
    counts: dict[str, int] = {}
    for term in dict.fromkeys([*probed, *subject]):
        found = reads.term_count(term, cap)
        if found:
            counts[term] = found
    return choose_terms(counts, cap, subject, policy)


def _with_singulars(terms: Sequence[str], policy: RankingPolicy) -> list[str]:
    """``terms``, each plural followed by the forms of its singular when the policy searches singulars (only
    the forms the index holds are searched: a term without nodes is never chosen)."""
    if not policy.singular_terms:
        return list(terms)
    return [form for term in terms for form in (term, *singulars(term))]


def add_rows(reads: Reads, rowids: Iterable[int], ev: Evidence) -> None:
    """Read the rows of ``rowids`` the evidence does not hold yet."""
    for row in reads.rows([r for r in rowids if r not in ev.rows]):
        ev.rows[row.rowid] = row


def _gather(
    reads: Reads,
    phrases: Sequence[str],
    limit: int,
    ev: Evidence,
    policy: RankingPolicy,
    columns: Sequence[str] = (),
) -> dict[int, float]:
    """The BM25 hits of ``phrases`` (see :meth:`Reads.bm25`), their rows added to the evidence, and which of
    them matched through their path alone noted in it."""
    hits = reads.bm25(phrases, limit, columns, policy.fts_weights)
    add_rows(reads, hits.scores, ev)
    ev.path_hits |= hits.path_only
    ev.text_hits.update(rowid for rowid in hits.scores if rowid not in hits.path_only)
    return hits.scores


def _gather_identifiers(
    reads: Reads, analysis: QueryAnalysis, ev: Evidence, total_files: int, policy: RankingPolicy
) -> None:
    rows = symbol_rows_named(reads.conn, list(analysis.identifiers))
    for row in rows:
        ev.rows[row.rowid] = row
    hits = identifier_hits(rows, analysis.identifiers, total_files, policy)
    ev.node_identifier, ev.identifier_phase, ev.file_identifier = hits.nodes, hits.phase, hits.files


def gather_evidence(
    reads: Reads, analysis: QueryAnalysis, terms: Sequence[str], total_files: int, policy: RankingPolicy
) -> Evidence:
    """The evidence of the searched ``terms`` and of the query's identifiers, phrases and subject."""
    ev = Evidence()
    ev.node_lexical = _gather(reads, terms, policy.fts_limit, ev, policy)
    _gather_identifiers(reads, analysis, ev, total_files, policy)
    # Runs of the literal text the query quotes, each weighed by its rarity.
    phrases = [" ".join(run) for run in analysis.phrases]
    ev.node_phrase = _gather(reads, phrases, policy.phrase_limit, ev, policy)
    # The subject's words alone, in names and paths: a title's few words are outweighed in the whole
    # query by the many tokens of its examples.
    subject = [t for t in analysis.subject if t in terms]
    ev.node_subject = _gather(reads, subject, policy.subject_limit, ev, policy, policy.subject_columns)
    return ev


def add_file_nodes(reads: Reads, fids: Iterable[int], ev: Evidence) -> None:
    """The whole-file nodes of ``fids`` that have no node in the evidence yet."""
    have = {row.file_id for row in ev.rows.values()}
    for row in file_node_rows(reads.conn, [f for f in fids if f not in have]):
        ev.rows[row.rowid] = row
