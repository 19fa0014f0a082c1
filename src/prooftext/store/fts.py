"""Text preparation for the FTS5 index: identifiers are kept whole and also split into their words.

SQLite's ``unicode61`` tokenizer neither splits camelCase nor (with ``_`` as a token character) snake_case,
so ``separabilityMatrix`` and ``separability_matrix`` would each be one opaque token. We index the whole
identifier (exact matches stay possible) followed by its parts (word matches become possible).
"""

from __future__ import annotations

import re

from prooftext.text import identifier_parts

FTS_TOKENIZER = "unicode61 tokenchars '_'"
"""Underscore is a token character so snake_case identifiers survive whole; parts are added explicitly."""


_COMPOUND = re.compile(r"\b\w*?(?:[A-Za-z0-9]_[A-Za-z0-9]|[a-z0-9][A-Z]|[A-Z][A-Z][a-z])\w*")
"""Identifiers that split into several words: an inner ``_`` or a case change. Others index as they are."""


def expand_identifiers(text: str) -> str:
    """``text`` followed by the parts of every compound identifier it contains (each once, in order)."""
    extra: list[str] = []
    for ident in dict.fromkeys(_COMPOUND.findall(text)):
        parts = identifier_parts(ident)
        if len(parts) > 1:
            extra.extend(parts)
    if not extra:
        return text
    return text + "\n" + " ".join(extra)


def fts_quote(term: str) -> str:
    """A term as an FTS5 string literal, so query text can never be read as FTS5 syntax."""
    return '"' + term.replace('"', '""') + '"'
