"""Text preparation for the FTS5 index: identifiers are kept whole and also split into their words.

SQLite's ``unicode61`` tokenizer neither splits camelCase nor (with ``_`` as a token character) snake_case,
so ``separabilityMatrix`` and ``separability_matrix`` would each be one opaque token. We index the whole
identifier (exact matches stay possible) followed by its parts (word matches become possible).
"""

from __future__ import annotations

import re

FTS_TOKENIZER = "unicode61 tokenchars '_'"
"""Underscore is a token character so snake_case identifiers survive whole; parts are added explicitly."""

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_WORD = re.compile(r"[A-Za-z0-9_]+")


def identifier_parts(identifier: str) -> list[str]:
    """Lowercase words of a camelCase / snake_case identifier (``HTTPServer_v2`` → http, server, v, 2)."""
    parts: list[str] = []
    for piece in identifier.split("_"):
        parts.extend(m.group(0).lower() for m in _CAMEL.finditer(piece))
    return parts


def expand_identifiers(text: str) -> str:
    """``text`` followed by the parts of every compound identifier it contains (each once, in order)."""
    extra: list[str] = []
    seen: set[str] = set()
    for match in _IDENT.finditer(text):
        ident = match.group(0)
        if ident in seen:
            continue
        seen.add(ident)
        parts = identifier_parts(ident)
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
