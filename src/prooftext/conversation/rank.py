"""Lexical ranking: Okapi BM25 of texts against a task, pure and deterministic.

Terms are lowercase runs of letters and digits; identifiers are also split (``camelCase`` → ``camel``,
``case``; ``snake_case`` → ``snake``, ``case``) and kept whole. A small stop list
(:data:`~prooftext.text.CHAT_STOPWORDS_V1`) keeps function words from making every text look relevant. IDF
is the non-negative Lucene form, so a term present in every text still counts a little instead of counting
against it.
"""

from __future__ import annotations

import math
import re
from collections import Counter as TermCounter
from collections.abc import Sequence
from functools import lru_cache
from typing import Protocol

from prooftext.text import CHAT_STOPWORDS_V1, identifier_parts

BM25_K1 = 1.2
"""Term-frequency saturation (the usual Okapi default)."""

BM25_B = 0.75
"""Length normalisation (the usual Okapi default)."""

_WORD = re.compile(r"[A-Za-z0-9]+(?:_[A-Za-z0-9]+)*")


TERM_CACHE_SIZE = 8192
"""Texts whose terms are memoised (history and memory repeat from turn to turn)."""


def terms(text: str) -> list[str]:
    """The index terms of ``text`` (with repeats), identifiers split and kept whole, stop words removed."""
    return list(_terms(text))


@lru_cache(maxsize=TERM_CACHE_SIZE)
def _terms(text: str) -> tuple[str, ...]:
    out: list[str] = []
    for match in _WORD.finditer(text):
        word = match.group(0)
        lower = word.lower()
        if "_" not in word and (word == lower or word[1:] == lower[1:]):
            if lower not in CHAT_STOPWORDS_V1:
                out.append(lower)
            continue
        parts = identifier_parts(word)
        if len(parts) > 1:
            out.extend(p for p in parts if p not in CHAT_STOPWORDS_V1)
            out.append(lower)
        elif lower not in CHAT_STOPWORDS_V1:
            out.append(lower)
    return tuple(out)


SCORABLE_TERM_MIN_LENGTH = 3
"""A task term counts as scorable when it has at least this many characters or holds a digit: ``ok``,
``hi`` or ``oh`` name no topic a text could be relevant to."""


def has_scorable_terms(task: str) -> bool:
    """Whether ``task`` holds a term relevance can be judged by: a :func:`terms` term of at least
    :data:`SCORABLE_TERM_MIN_LENGTH` characters or with a digit. ``ok???`` or ``why?`` holds none, so
    nothing can be relevant to it: it neither measures a relevant ratio nor selects memory."""
    return any(len(t) >= SCORABLE_TERM_MIN_LENGTH or any(c.isdigit() for c in t) for t in _terms(task))


def bm25_scores(query: str, texts: Sequence[str], *, k1: float = BM25_K1, b: float = BM25_B) -> list[float]:
    """BM25 score of each text against ``query``; 0.0 where no query term occurs."""
    q_terms = sorted(set(_terms(query)))
    if not q_terms or not texts:
        return [0.0 for _ in texts]
    docs = [TermCounter(_terms(t)) for t in texts]
    n = len(docs)
    lengths = [sum(d.values()) for d in docs]
    avg = (sum(lengths) / n) or 1.0
    df = {t: sum(1 for d in docs if t in d) for t in q_terms}
    idf = {t: math.log(1.0 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in q_terms}
    scores: list[float] = []
    for doc, length in zip(docs, lengths, strict=True):
        s = 0.0
        for t in q_terms:
            tf = doc.get(t, 0)
            if tf:
                s += idf[t] * tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * length / avg))
        scores.append(s)
    return scores


class Ranker(Protocol):
    """Scores texts against a task. ``None`` means "cannot score this text", which is not "irrelevant"."""

    @property
    def name(self) -> str: ...

    def score(self, task: str, texts: Sequence[str]) -> list[float | None]: ...


class BM25Ranker:
    """BM25 over the given texts; a text sharing no term with the task is unscorable (``None``)."""

    @property
    def name(self) -> str:
        return "bm25"

    def score(self, task: str, texts: Sequence[str]) -> list[float | None]:
        return [s if s > 0.0 else None for s in bm25_scores(task, texts)]


def score_milli(score: float | None) -> int | None:
    """A score as an integer in thousandths, for traces (no floats in recorded artifacts)."""
    return None if score is None else round(score * 1000)


def clear_term_cache() -> None:
    """Forget memoised terms (benchmarks measure a cold first sight of every text this way)."""
    _terms.cache_clear()
