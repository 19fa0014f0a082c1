"""The indexed fields of the packet ranking's best candidates as ASCII tokens, and their binary field score
(:func:`prooftext.select.binary.binary_score` under the policy's weights): a late tie-break it records."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from prooftext.cache import GenerationCache
from prooftext.select.binary import binary_score
from prooftext.store.queries import NodeRow, field_texts
from prooftext.text import ascii_tokens

ROW_TOKEN_CACHE_TOKENS = 400_000
"""Field tokens of nodes kept per store, counted in tokens so that large file nodes cannot make the cache
large. A node's indexed fields are fixed by its content id and its file's authority and kind, so entries
stay valid across generations: a refresh that changes one file does not make every request re-read the
texts of the nodes it ranks."""
ANY_GENERATION = 0
"""The one generation under which field tokens are kept (they outlive generations, see above)."""

FieldTokens = tuple[frozenset[str], ...]
row_tokens: GenerationCache[tuple[str, str, str], FieldTokens] = GenerationCache(
    ROW_TOKEN_CACHE_TOKENS, weight=lambda fields: sum(len(tokens) for tokens in fields)
)


def _row_key(row: NodeRow) -> tuple[str, str, str]:
    return (row.node_id, row.authority, row.file_kind)


def field_tokens(
    conn: sqlite3.Connection, rows: Sequence[NodeRow], store: str | None
) -> dict[int, FieldTokens]:
    """The tokens of each row's indexed fields, by rowid, kept per ``store`` (nothing kept when None)."""
    out: dict[int, FieldTokens] = {}
    missing: dict[int, NodeRow] = {}
    for row in rows:
        known = None if store is None else row_tokens.get(store, ANY_GENERATION, _row_key(row))
        if known is None:
            missing[row.rowid] = row
        else:
            out[row.rowid] = known
    for rowid, texts in field_texts(conn, list(missing)):
        out[rowid] = tuple(ascii_tokens(text) for text in texts)
        if store is not None:
            row_tokens.put(store, ANY_GENERATION, _row_key(missing[rowid]), out[rowid])
    return out


def binary_scores(
    fields: dict[int, FieldTokens], terms: frozenset[str], weights: Sequence[int]
) -> dict[int, int]:
    """Each row's score: the sum over its fields of the field's weight times the ``terms`` it holds."""
    return {rowid: binary_score(terms, per_field, weights) for rowid, per_field in fields.items()}
