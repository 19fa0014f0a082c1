"""The context framework's binary field score of a node: per field, a weight times the query tokens the
field holds. The ranking records it as a late tie-break of its best candidates."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence

from prooftext.cache import GenerationCache
from prooftext.store.queries import NodeRow, field_texts

_SEED_TOKEN = re.compile(r"[a-z0-9]+|[^\x00-\x7f]")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")

ROW_TOKEN_CACHE_TOKENS = 400_000
"""Field tokens of nodes kept per store, counted in tokens so that large file nodes cannot make the cache
large. A node's indexed fields are fixed by its content id and its file's authority and kind, so entries
stay valid across generations: a refresh that changes one file does not make every request re-read the
texts of the nodes it ranks."""
ANY_GENERATION = 0
"""The one generation under which field tokens are kept (they outlive generations, see above)."""

FieldTokens = tuple[set[str], ...]
row_tokens: GenerationCache[tuple[str, str, str], FieldTokens] = GenerationCache(
    ROW_TOKEN_CACHE_TOKENS, weight=lambda fields: sum(len(tokens) for tokens in fields)
)


def seed_tokens(text: str) -> set[str]:
    """The context framework's lexical tokens: only ASCII letters are lowercased; alphanumeric ASCII runs,
    and each non-ASCII scalar as one exact token (no locale or Unicode case tables)."""
    return set(_SEED_TOKEN.findall(text.translate(_ASCII_LOWER)))


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
        out[rowid] = tuple(seed_tokens(text) for text in texts)
        if store is not None:
            row_tokens.put(store, ANY_GENERATION, _row_key(missing[rowid]), out[rowid])
    return out


def binary_scores(fields: dict[int, FieldTokens], terms: set[str], weights: Sequence[int]) -> dict[int, int]:
    """Each row's score: the sum over its fields of the field's weight times the ``terms`` it holds."""
    return {
        rowid: sum(w * len(terms & tokens) for w, tokens in zip(weights, per_field, strict=True))
        for rowid, per_field in fields.items()
    }
