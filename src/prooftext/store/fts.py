"""Text preparation for the FTS5 index: identifiers are kept whole and also split into their words.

SQLite's ``unicode61`` tokenizer neither splits camelCase nor (with ``_`` as a token character) snake_case,
so ``separabilityMatrix`` and ``separability_matrix`` would each be one opaque token. We index the whole
identifier (exact matches stay possible) followed by its parts (word matches become possible).
"""

from __future__ import annotations

import re
import string
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator
from itertools import accumulate

from ahocorasick_rs import BytesAhoCorasick

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


_WORD_RUN = re.compile(r"\w*")


def _run_end(text: str, at: int) -> int:
    """Where the run of word characters from ``at`` ends (``\\w*`` matches everywhere)."""
    run = _WORD_RUN.match(text, at)
    assert run is not None
    return run.end()


def _class_table() -> bytes:
    table = bytearray(b" " * 256)
    for chars, mark in ((string.ascii_lowercase, "a"), (string.digits, "d"), (string.ascii_uppercase, "A")):
        for char in chars:
            table[ord(char)] = ord(mark)
    table[ord("_")] = ord("_")
    return bytes(table)


_CLASSES = _class_table()
"""ASCII bytes by class: ``a`` lowercase, ``d`` digit, ``A`` uppercase, ``_``, and a space for the rest (no
word character): for ASCII text, exactly the characters of ``\\w`` are the non-spaces."""
_INNER_SCAN = BytesAhoCorasick(
    [b"aA", b"dA", b"AAa", *(x + b"_" + y for x in (b"a", b"d", b"A") for y in (b"a", b"d", b"A"))]
)
"""What makes a word compound (see :data:`_COMPOUND`: an inner ``_`` or case change), spelled in classes and
found in one pass of an Aho-Corasick automaton over a text's class string."""


def _compound_words(text: str) -> list[tuple[int, str]]:
    """(offset, word) of each match of :data:`_COMPOUND` in ``text``, in order, found faster.

    A match of :data:`_COMPOUND` is a whole word (a maximal run of ``\\w``) that holds an inner pattern, all
    of whose characters are ASCII. So the inner patterns are found in a string of the text's character
    classes, one byte per character (a non-ASCII character becomes ``?``, no class), and each word that holds
    one is taken once, extended to its ends: over the class string's spaces, then, where a non-ASCII
    character stopped it (a letter of another script is a word character too), over the text itself."""
    ascii_only = text.isascii()
    classes = text.encode("ascii", "replace").translate(_CLASSES)
    find, rfind = classes.find, classes.rfind
    size = len(text)
    words: list[tuple[int, str]] = []
    reached = -1
    reversed_text = ""
    for _pattern, at, _end in _INNER_SCAN.find_matches_as_indexes(classes):
        if at < reached:
            continue  # another inner pattern of the word just taken
        start = rfind(b" ", 0, at) + 1
        end = find(b" ", at)
        end = size if end < 0 else end
        if not ascii_only:
            if start and not text[start - 1].isascii():
                reversed_text = reversed_text or text[::-1]
                start = size - _run_end(reversed_text, size - start)
            if end < size and not text[end].isascii():
                end = _run_end(text, end)
        words.append((start, text[start:end]))
        reached = end
    return words


class IndexedText:
    """A file's text scanned once for compound identifiers, to build the FTS content of each of its nodes.

    :func:`expand_identifiers` of a node's lines scans those lines again for every node that covers them
    (a method's lines once for itself, once for its class, ...). An identifier never spans a line break,
    so the identifiers of a run of whole lines are those found on each of its lines, in order: this scans
    the file once, and :meth:`expand` gives exactly what :func:`expand_identifiers` gives for text made of
    whole-line ranges (and literal pieces, scanned apart)."""

    def __init__(self, text: str) -> None:
        self.text = text
        lines = text.split("\n") if text else []
        self.terminated = text.endswith("\n")
        if self.terminated:
            lines.pop()
        self.lines = lines
        self.count = len(lines)
        # Each line's first offset: the running sum of (length + 1), in C; the last is the text's end.
        offsets = list(accumulate(map((1).__add__, map(len, lines)), initial=0))
        offsets[-1] = len(text)
        self.offsets = offsets
        found: dict[int, list[str]] = {}
        for start, word in _compound_words(text):
            found.setdefault(bisect_right(offsets, start), []).append(word)
        self.found = found
        self.found_lines = list(found)  # ascending: matches come in text order
        self._parts: dict[str, tuple[str, ...]] = {}

    def slice(self, start: int, end: int) -> str:
        """Lines ``start..end`` with their line endings, as :meth:`LineText.slice` gives them."""
        if 1 <= start <= end <= self.count:
            return self.text[self.offsets[start - 1] : self.offsets[end]]
        body = "\n".join(self.lines[start - 1 : end])
        if end < self.count or self.terminated:
            body += "\n"
        return body

    def identifiers(self, start: int, end: int) -> Iterator[str]:
        """The compound identifiers of lines ``start..end``, in text order."""
        found = self.found
        lines = self.found_lines
        for number in lines[bisect_left(lines, start) : bisect_right(lines, end)]:
            yield from found[number]

    def expand(self, body: str, identifiers: Iterable[str]) -> str:
        """``expand_identifiers(body)``, given the compound identifiers ``body`` holds, in text order."""
        extra: list[str] = []
        cache = self._parts
        for ident in dict.fromkeys(identifiers):
            parts = cache.get(ident)
            if parts is None:
                parts = cache[ident] = identifier_parts(ident)
            if len(parts) > 1:
                extra.extend(parts)
        if not extra:
            return body
        return body + "\n" + " ".join(extra)


def literal_identifiers(text: str) -> list[str]:
    """The compound identifiers of a piece of text that is not a run of a file's lines (a signature)."""
    return _COMPOUND.findall(text)
