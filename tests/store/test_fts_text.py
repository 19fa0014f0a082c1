"""The FTS content of a node from its file scanned once equals ``expand_identifiers`` of its lines."""

from __future__ import annotations

import random

from prooftext.corpus.lines import LineText
from prooftext.store.fts import _COMPOUND, IndexedText, _compound_words, expand_identifiers

ALPHABET = "aZ_9 \n\t.é_xYAB(b)Ω1_cDe\rß中·?\u0301\udcff"
"""ASCII word classes, and other characters that are word characters (é, Ω, ß, 中, a combining accent) or not
(·, a lone surrogate): an inner pattern is ASCII, the words around it need not be."""


def _texts() -> list[str]:
    rng = random.Random(31)
    fixed = [
        "",
        "\n",
        "x",
        "snake_case camelCase HTTPServer_v2 plain\nALL_CAPS _lead trail_ é_x xé_A\n",
        "a_b\n\nc_d",
        "fooBar fooBar\nfooBar barBaz\n",
    ]
    ascii_only = "aZ_9 \n\t.xYAB(b)1_cDe\r-q"
    return (
        fixed
        + ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 80))) for _ in range(3000)]
        + ["".join(rng.choice(ascii_only) for _ in range(rng.randint(0, 80))) for _ in range(3000)]
    )


def test_compound_words_are_the_compound_pattern_matches() -> None:
    for text in _texts():
        assert [word for _, word in _compound_words(text)] == _COMPOUND.findall(text), repr(text)
        assert [at for at, _ in _compound_words(text)] == [m.start() for m in _COMPOUND.finditer(text)]


def test_expanding_line_ranges_equals_expanding_their_text() -> None:
    for text in _texts():
        indexed = IndexedText(text)
        lines = LineText(text)
        assert indexed.count == lines.count
        for start in range(1, indexed.count + 2):
            for end in range(start - 1, indexed.count + 1):
                body = indexed.slice(start, end)
                assert body == lines.slice(start, end)
                assert indexed.expand(body, indexed.identifiers(start, end)) == expand_identifiers(body)
