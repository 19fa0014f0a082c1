"""Text primitives: identifier splitting, the versioned stop lists, query terms, the context framework's
ASCII tokens and the fence nonce.

Pure functions over strings, shared by the index (FTS5 text), the selector and the estimator (query terms),
the conversation ranker (chat terms), and the two renderers that fence quoted text (packets and chat
messages). Each list or derivation that changes results carries a version or is pinned by tests. The ASCII tokenizer
lowercases ASCII letters by hand, emits maximal ASCII alphanumeric runs, and treats each non-ASCII scalar as
one exact token: no locale, Unicode database, corpus or model takes part, so every platform tokenizes a text
the same way.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence

import blake3

# -- identifier splitting ------------------------------------------------------------------------------------

_IDENTIFIER_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
"""One word of an identifier piece: an acronym before a capitalised word, a (capitalised) lowercase run, an
upper-case run or a digit run."""

PARTS_CACHE_SIZE = 1 << 16
"""Identifiers repeat across a repository; splitting each distinct one once keeps indexing fast."""


_NOT_PLURAL = ("ss", "us", "is", "ous")


def singulars(word: str) -> tuple[str, ...]:
    """The forms an English plural's singular may take by the regular rules (``groups`` group; ``classes``
    classe, class; ``queries`` querie, query; ``cookies`` cookie, cooky), for a caller that keeps only the
    forms its corpus holds; none for a word that does not look plural."""
    if len(word) < 4 or not word.isalpha() or word.endswith(_NOT_PLURAL) or not word.endswith("s"):
        return ()
    forms = [word[:-1]]
    if word.endswith("es"):
        forms.append(word[:-2])
    if word.endswith("ies"):
        forms.append(word[:-3] + "y")
    return tuple(forms)


@functools.lru_cache(maxsize=PARTS_CACHE_SIZE)
def identifier_parts(identifier: str) -> tuple[str, ...]:
    """Lowercase words of a camelCase / snake_case identifier (``HTTPServer_v2`` → http, server, v, 2)."""
    parts: list[str] = []
    for piece in identifier.split("_"):
        parts.extend(word.lower() for word in _IDENTIFIER_WORD.findall(piece))
    return tuple(parts)


# -- stop lists ----------------------------------------------------------------------------------------------

STOPWORDS_VERSION = "prooftext-stopwords-v1"
STOPWORDS_V1: frozenset[str] = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "aren",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "cannot",
        "could",
        "did",
        "didn",
        "do",
        "does",
        "doesn",
        "doing",
        "don",
        "down",
        "during",
        "each",
        "else",
        "few",
        "for",
        "from",
        "further",
        "get",
        "gets",
        "got",
        "had",
        "has",
        "hasn",
        "have",
        "haven",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "however",
        "i",
        "if",
        "in",
        "into",
        "is",
        "isn",
        "it",
        "its",
        "itself",
        "just",
        "let",
        "like",
        "me",
        "more",
        "most",
        "much",
        "must",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "shall",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "upon",
        "us",
        "use",
        "used",
        "using",
        "very",
        "via",
        "was",
        "wasn",
        "we",
        "were",
        "weren",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "within",
        "without",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
    ]
)
"""Fixed, versioned stop words (English function words); changing them changes ``STOPWORDS_VERSION``."""

CHAT_STOPWORDS_VERSION = "prooftext-chat-stopwords-v1"
_CHAT_STOP_TEXT = (
    "a an and are as at be been but by can could did do does for from had has have how i if in into is it "
    "its me my of on or our so than that the their them then there these they this to was we were what "
    "when where which who why will with would you your"
)
CHAT_STOPWORDS_V1: frozenset[str] = frozenset(_CHAT_STOP_TEXT.split())
"""The short stop list of the conversation side (chat ranking and the depth tiers' content words); changing
it changes ``CHAT_STOPWORDS_VERSION``."""


# -- query terms ---------------------------------------------------------------------------------------------

_TERM = re.compile(r"[^\W_]+")
"""Alphanumeric runs (any script), so a query in Cyrillic or CJK has searchable terms too."""


def lexical_terms(text: str) -> list[str]:
    """Case-insensitive alphanumeric terms minus :data:`STOPWORDS_V1`, in first-seen order: the query terms
    of the SACP estimator (v1) and of the ladder's searchable-query check."""
    seen: dict[str, None] = {}
    for term in _TERM.findall(text.lower()):
        if term not in STOPWORDS_V1:
            seen.setdefault(term, None)
    return list(seen)


# -- fence nonce ---------------------------------------------------------------------------------------------

NONCE_DIGITS = 18
"""Nonce length in decimal digits (about 60 bits). Decimal, because both tokenizers split digit runs into
fixed groups of three: every nonce costs the same number of tokens, so costs measured with a placeholder of
this many digits are exact for the final text."""
_NONCE_MODULUS = 10**NONCE_DIGITS
_NONCE_BYTES = 8
"""Bytes of each BLAKE3 digest read as the nonce's integer (64 bits cover the 18 digits)."""


def fence_nonce(material: Iterable[bytes], texts: Sequence[str]) -> str:
    """A nonce that depends only on ``material`` and occurs in none of ``texts``.

    The seed is the BLAKE3 digest of the concatenated ``material``; candidates are BLAKE3 of the seed and an
    8-byte big-endian counter from 0, read as an integer modulo 10**:data:`NONCE_DIGITS`, zero-padded. The
    first candidate that occurs in no text is the nonce, so quoted text cannot close its own fence."""
    hasher = blake3.blake3()
    for part in material:
        hasher.update(part)
    seed = hasher.digest()
    counter = 0
    while True:
        digest = blake3.blake3(seed + counter.to_bytes(8, "big")).digest()
        nonce = str(int.from_bytes(digest[:_NONCE_BYTES], "big") % _NONCE_MODULUS).zfill(NONCE_DIGITS)
        if not any(nonce in text for text in texts):
            return nonce
        counter += 1


# -- the context framework's ASCII tokens --------------------------------------------------------------------

_LOWER_ASCII = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_TOKEN = re.compile(r"[a-z0-9]+|[^\x00-\x7f]")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def ascii_tokens(text: str) -> frozenset[str]:
    """Distinct tokens of ``text``: only ``A``-``Z`` are lowercased; ``É`` stays ``É``, one token."""
    return frozenset(_TOKEN.findall(text.translate(_LOWER_ASCII)))


def identifiers(text: str) -> frozenset[str]:
    """Exact identifiers a text names (case kept): maximal ``[A-Za-z_][A-Za-z0-9_]*`` runs."""
    return frozenset(_IDENTIFIER.findall(text))
