"""The ranking's reads of one index generation, kept per store for its latest generation.

A server answers the same queries many times between two refreshes, and an evaluation ranks each issue
text once per arm: node rows, lexical hits and term frequencies are read once per generation. Nothing kept
describes a state other than the generation it was read in.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from prooftext.cache import GenerationCache
from prooftext.store.queries import (
    LexicalHits,
    NodeRow,
    bm25_hits,
    chunks,
    rows_by_rowid,
    term_document_count,
)

TERM_CACHE_SIZE = 100_000
"""Probed term frequencies kept per store for its latest generation (queries share most words)."""
NODE_ROW_CACHE_ROWS = 16_384
"""Node rows (path, lines, digest, labels) kept per store for its latest generation: the nodes a query's
hits name repeat across queries (about 20 MB at most; see docs/RANKING_NOTES.md)."""
LEXICAL_HIT_CACHE_HITS = 400_000
"""Lexical hits kept per store for its latest generation, counted in hits (a row id and a score each)."""
LEXICAL_ENTRY_HITS = 16
"""What one kept search costs besides its hits (its key weighs about as much as 16 hits): a search that
finds nothing is kept too, and must count, or such searches would grow without bound."""

LexicalKey = tuple[tuple[str, ...], tuple[str, ...], int, tuple[float, ...]]
"""A search's columns, phrases (in order), limit and column weights."""


def hits_weight(hits: LexicalHits) -> int:
    """What a kept search weighs in :data:`lexical_hits`."""
    return len(hits.scores) + LEXICAL_ENTRY_HITS


term_counts: GenerationCache[tuple[int, str], int] = GenerationCache(TERM_CACHE_SIZE)
node_rows: GenerationCache[int, NodeRow] = GenerationCache(NODE_ROW_CACHE_ROWS)
lexical_hits: GenerationCache[LexicalKey, LexicalHits] = GenerationCache(
    LEXICAL_HIT_CACHE_HITS, weight=hits_weight
)


@dataclass(frozen=True)
class Reads:
    """A connection inside one read snapshot and the generation it reads (None: nothing is kept)."""

    conn: sqlite3.Connection
    generation: tuple[str, int] | None

    @property
    def store(self) -> str | None:
        """The store's database file, or None."""
        return None if self.generation is None else self.generation[0]

    def term_count(self, term: str, cap: int) -> int:
        """How many nodes hold ``term``, counted up to ``cap + 1``."""
        found = None if self.generation is None else term_counts.get(*self.generation, (cap, term))
        if found is None:
            found = term_document_count(self.conn, term, cap)
            if self.generation is not None:
                term_counts.put(*self.generation, (cap, term), found)
        return found

    def bm25(
        self, phrases: Sequence[str], limit: int, columns: Sequence[str], weights: Sequence[float]
    ) -> LexicalHits:
        """The best ``limit`` nodes holding any of ``phrases`` (terms or word runs) in ``columns`` (all when
        empty), by weighted BM25, best first (ties by node id), with those found through their path alone;
        its scores a new dict the caller may change.

        FTS5 scores the whole ``OR`` query and SQLite keeps only the best ``limit`` rows, so no row past them
        reaches Python. The hits are kept per generation, keyed by the phrases in order."""
        if not phrases or limit <= 0:
            return LexicalHits({})
        key = (tuple(columns), tuple(phrases), limit, tuple(weights))
        known = None if self.generation is None else lexical_hits.get(*self.generation, key)
        if known is None:
            known = bm25_hits(self.conn, phrases, limit, columns, weights)
            if self.generation is not None:
                lexical_hits.put(*self.generation, key, known)
        return LexicalHits(dict(known.scores), known.path_only)

    def rows(self, rowids: Sequence[int]) -> list[NodeRow]:
        """The rows of ``rowids`` that exist, in ascending rowid order per chunk of the store's parameter
        lists (the order SQLite reads ``rowid IN (...)`` in), from the kept rows where they are."""
        out: list[NodeRow] = []
        for chunk in chunks(rowids):
            found: dict[int, NodeRow] = {}
            unknown: list[int] = []
            for rowid in chunk:
                row = None if self.generation is None else node_rows.get(*self.generation, rowid)
                if row is None:
                    unknown.append(rowid)
                else:
                    found[rowid] = row
            for row in rows_by_rowid(self.conn, unknown) if unknown else ():
                found[row.rowid] = row
                if self.generation is not None:
                    node_rows.put(*self.generation, row.rowid, row)
            out.extend(found[rowid] for rowid in sorted(found))
        return out
