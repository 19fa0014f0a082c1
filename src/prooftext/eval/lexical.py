"""The independent lexical baseline: bm25s over whole documents, and whole-document packing to a budget.

Terms are lowercase runs of letters and digits; identifiers are split on ``snake_case`` and ``camelCase``
boundaries and also kept whole, so ``separability_matrix`` and ``separabilityMatrix`` both match
``separability`` and ``matrix``. A short stop list removes English function words. The scorer is bm25s
(Lucene BM25) with the parameters the SWE-bench paper's retrieval used (Pyserini: k1 0.9, b 0.4).

This module keeps its own tokenizer and stop list on purpose: it is an independent baseline, and must not
move when the product's text handling (:mod:`prooftext.text`) changes.

Packing follows the SWE-bench BM25 retrieval: documents in rank order, each whole; a document that would
overflow the budget is skipped and the next one tried. Each block's cost is its exact count alone; the
finished prompt is counted exactly again and, if block boundaries merged into more tokens than the sum, the
last block is dropped until it fits.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from prooftext.eval.common import require_eval_extra
from prooftext.tokens import Counter

if TYPE_CHECKING:
    import bm25s

BM25_K1 = 0.9
BM25_B = 0.4

_STOP_TEXT = (
    "a an and are as at be been but by can could did do does for from had has have how i if in into is it "
    "its me my of on or our so than that the their them then there these they this to was we were what "
    "when where which who why will with would you your"
)
STOP_WORDS: frozenset[str] = frozenset(_STOP_TEXT.split())
MIN_TERM_CHARS = 2

_WORD = re.compile(r"[A-Za-z0-9_]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def _keep(term: str) -> bool:
    return len(term) >= MIN_TERM_CHARS and term not in STOP_WORDS


def terms(text: str) -> list[str]:
    """Index terms of ``text`` with repeats: words, identifier parts, and whole multi-part identifiers."""
    out: list[str] = []
    for match in _WORD.finditer(text):
        word = match.group(0)
        parts = [p.lower() for chunk in word.split("_") for p in _CAMEL.findall(chunk)]
        out.extend(p for p in parts if _keep(p))
        whole = word.strip("_").lower()
        if len(parts) > 1 and _keep(whole):
            out.append(whole)
    return out


def path_terms(path: str) -> list[str]:
    """Terms of a path (directories, stem and extension are words too)."""
    return terms(path.replace("/", " ").replace(".", " "))


class Bm25Ranker:
    """bm25s over a fixed list of term lists; ranks document indices for a query."""

    def __init__(self, documents: Sequence[list[str]], k1: float = BM25_K1, b: float = BM25_B) -> None:
        require_eval_extra()
        import bm25s  # the eval extra: a core install has no bm25s or numpy

        self.size = len(documents)
        self._model: bm25s.BM25 = bm25s.BM25(k1=k1, b=b)
        self._vocab: set[str] = set()
        if documents:
            self._model.index(list(documents), show_progress=False)
            self._vocab = set(self._model.vocab_dict)

    def scores(self, query: str) -> list[float]:
        known = [t for t in terms(query) if t in self._vocab]
        if not known or not self.size:
            return [0.0] * self.size
        return [float(v) for v in self._model.get_scores(known)]

    def rank(self, query: str, names: Sequence[str]) -> list[int]:
        """Indices of documents with a positive score, best first; ties by name (deterministic)."""
        scores = self.scores(query)
        order = [i for i, s in enumerate(scores) if s > 0.0]
        order.sort(key=lambda i: (-scores[i], names[i]))
        return order


def file_block(path: str, text: str) -> str:
    """A whole file as the SWE-bench retrieval prompt shows it."""
    body = text if text.endswith("\n") or not text else text + "\n"
    return f"[start of {path}]\n{body}[end of {path}]\n"


def file_prompt(query: str, blocks: Sequence[str]) -> str:
    return f"<issue>\n{query.rstrip()}\n</issue>\n<code>\n{''.join(blocks)}</code>\n"


@dataclass
class WholePack:
    """Whole documents packed in rank order: which were taken, and the exact prompt count."""

    taken: list[int] = field(default_factory=list)
    skipped: int = 0
    prompt_tokens: int = 0


def pack_whole(
    order: Sequence[int],
    cost_of: Callable[[int], int],
    prompt_of: Callable[[list[int]], str],
    budget: int,
    counter: Counter,
    skip_overflow: bool = True,
) -> WholePack:
    """Greedy whole-document packing, then an exact check of the whole prompt.

    ``prompt_of(taken)`` renders the prompt of the taken documents (``prompt_of([])`` is the frame alone);
    a document that does not fit is skipped (``skip_overflow``) or ends the packing.
    """
    result = WholePack()
    used = counter.count(prompt_of([]))
    for position, index in enumerate(order):
        cost = cost_of(index)
        if used + cost <= budget:
            result.taken.append(index)
            used += cost
        elif skip_overflow:
            result.skipped += 1
        else:
            result.skipped += len(order) - position
            break
    while True:
        count = counter.count(prompt_of(result.taken))
        if count <= budget or not result.taken:
            result.prompt_tokens = count
            return result
        result.taken.pop()
        result.skipped += 1
