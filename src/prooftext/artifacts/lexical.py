"""The context framework's lexical tokenizer and binary field scores.

Tokenization lowercases ASCII letters by hand, emits maximal ASCII alphanumeric runs, and treats each
non-ASCII Unicode scalar as one exact token (no locale, no Unicode database, no model). Each distinct query
token scores binary presence: title 16, labels 8, path 4, content 1; term frequency adds nothing.
"""

from __future__ import annotations

import re

SCORE_TITLE = 16
SCORE_LABELS = 8
SCORE_PATH = 4
SCORE_CONTENT = 1

_ASCII_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_ASCII_LOWER = "abcdefghijklmnopqrstuvwxyz"
_LOWER_ASCII = str.maketrans(_ASCII_UPPER, _ASCII_LOWER)
_TOKEN = re.compile(r"[a-z0-9]+|[^\x00-\x7f]")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def lexical_tokens(text: str) -> frozenset[str]:
    """Distinct tokens of ``text``: only ``A``-``Z`` are lowercased; ``É`` stays ``É``."""
    return frozenset(_TOKEN.findall(text.translate(_LOWER_ASCII)))


def identifiers(text: str) -> frozenset[str]:
    """Exact identifiers a query names (case kept): maximal ``[A-Za-z_][A-Za-z0-9_]*`` runs."""
    return frozenset(_IDENTIFIER.findall(text))


def binary_score(query: frozenset[str], title: str, labels: str, path: str, content: str) -> int:
    """Sum over distinct query tokens of 16/8/4/1 for presence in title/labels/path/content."""
    fields = ((title, SCORE_TITLE), (labels, SCORE_LABELS), (path, SCORE_PATH), (content, SCORE_CONTENT))
    return sum(weight * len(query & lexical_tokens(text)) for text, weight in fields)
