"""Text preparation for the FTS5 index: identifiers are kept whole and also split into their words.

SQLite's ``unicode61`` tokenizer neither splits camelCase nor (with ``_`` as a token character) snake_case,
so ``separabilityMatrix`` and ``separability_matrix`` would each be one opaque token. We index the whole
identifier (exact matches stay possible) followed by its parts (word matches become possible).
"""

from __future__ import annotations

import functools
import re

FTS_TOKENIZER = "unicode61 tokenchars '_'"
"""Underscore is a token character so snake_case identifiers survive whole; parts are added explicitly."""

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_WORD = re.compile(r"[A-Za-z0-9_]+")


PARTS_CACHE_SIZE = 1 << 16
"""Identifiers repeat across a repository; splitting each distinct one once keeps indexing fast."""


@functools.lru_cache(maxsize=PARTS_CACHE_SIZE)
def _parts(identifier: str) -> tuple[str, ...]:
    parts: list[str] = []
    for piece in identifier.split("_"):
        parts.extend(m.group(0).lower() for m in _CAMEL.finditer(piece))
    return tuple(parts)


def identifier_parts(identifier: str) -> list[str]:
    """Lowercase words of a camelCase / snake_case identifier (``HTTPServer_v2`` → http, server, v, 2)."""
    return list(_parts(identifier))


_COMPOUND = re.compile(r"\b\w*?(?:[A-Za-z0-9]_[A-Za-z0-9]|[a-z0-9][A-Z]|[A-Z][A-Z][a-z])\w*")
"""Identifiers that split into several words: an inner ``_`` or a case change. Others index as they are."""


def expand_identifiers(text: str) -> str:
    """``text`` followed by the parts of every compound identifier it contains (each once, in order)."""
    extra: list[str] = []
    for ident in dict.fromkeys(_COMPOUND.findall(text)):
        parts = _parts(ident)
        if len(parts) > 1:
            extra.extend(parts)
    if not extra:
        return text
    return text + "\n" + " ".join(extra)


def query_terms(text: str) -> list[str]:
    """Distinct lowercase search terms of a query: whole identifiers and their parts, in first-seen order."""
    out: list[str] = []
    seen: set[str] = set()
    for match in _WORD.finditer(text):
        word = match.group(0)
        candidates = [word.lower(), *identifier_parts(word)]
        for term in candidates:
            term = term.strip("_")
            if term and term not in seen:
                seen.add(term)
                out.append(term)
    return out


def fts_quote(term: str) -> str:
    """A term as an FTS5 string literal, so query text can never be read as FTS5 syntax."""
    return '"' + term.replace('"', '""') + '"'
