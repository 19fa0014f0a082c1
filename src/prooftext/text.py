"""Text primitives: the context framework's ASCII tokens and the exact identifiers a text names.

The tokenizer lowercases ASCII letters by hand, emits maximal ASCII alphanumeric runs, and treats each
non-ASCII Unicode scalar as one exact token: no locale, Unicode database, corpus or model takes part, so
every platform tokenizes a text the same way.
"""

from __future__ import annotations

import re

_LOWER_ASCII = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_TOKEN = re.compile(r"[a-z0-9]+|[^\x00-\x7f]")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def ascii_tokens(text: str) -> frozenset[str]:
    """Distinct tokens of ``text``: only ``A``-``Z`` are lowercased; ``É`` stays ``É``, one token."""
    return frozenset(_TOKEN.findall(text.translate(_LOWER_ASCII)))


def identifiers(text: str) -> frozenset[str]:
    """Exact identifiers a text names (case kept): maximal ``[A-Za-z_][A-Za-z0-9_]*`` runs."""
    return frozenset(_IDENTIFIER.findall(text))
