"""The one definition of lines for the whole project.

A line ends at ``\\n`` on the raw bytes (``\\r``, form feeds and Unicode line separators are ordinary
characters); a final line without ``\\n`` still counts; an empty file has zero lines. Ranges are 1-based and
inclusive, and a slice keeps its line endings so that concatenated slices reproduce the source exactly.
"""

from __future__ import annotations

import re

from prooftext.errors import RangeError, RequestError

NEWLINE = "\n"
NEWLINE_BYTE = b"\n"
CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
"""Control characters other than tab and line breaks: text a caller writes (a query, a memory record)
that holds one is refused, since it would reach a prompt or a terminal (an escape sequence, a NUL)."""


def require_utf8(text: str, field: str = "query") -> str:
    """``text`` if it has a UTF-8 form; a lone surrogate (an undecodable command-line or stdin byte
    becomes one) is refused, naming ``field``: the lexical index, the tokenizers, every digest and every
    JSON document work on UTF-8, so such text would otherwise fail deep inside them."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise RequestError(
            f"{field} is not valid Unicode text: a lone surrogate at character {exc.start}"
            " (an undecodable byte becomes one)",
            field=field,
        ) from None
    return text


def count_lines(data: bytes) -> int:
    """Number of lines in raw bytes: one per ``\\n``, plus one for a final unterminated line."""
    unterminated = 1 if data and not data.endswith(NEWLINE_BYTE) else 0
    return data.count(NEWLINE_BYTE) + unterminated


def count_text_lines(text: str) -> int:
    """:func:`count_lines` for decoded text (UTF-8 never encodes ``\\n`` inside another character)."""
    unterminated = 1 if text and not text.endswith(NEWLINE) else 0
    return text.count(NEWLINE) + unterminated


def _advance(text: str, offset: int, lines: int) -> int:
    """Offset just past ``lines`` more line endings from ``offset``; ``len(text)`` when they run out."""
    for _ in range(lines):
        found = text.find(NEWLINE, offset)
        if found < 0:
            return len(text)
        offset = found + 1
    return offset


def line_slice(text: str, start: int, end: int) -> str:
    """Lines ``start..end`` (1-based, inclusive) of ``text``, with their line endings.

    ``end == start - 1`` is the empty range (``[1, 0]`` is how an empty file's range is written). Raises
    :class:`RangeError` (field ``line_range``) unless ``1 <= start <= end + 1`` and ``end <=`` the line count.
    """
    total = count_text_lines(text)
    if not (1 <= start <= end + 1 and end <= total):
        raise RangeError(
            f"line range {start}-{end} is outside 1-{total}", field="line_range", start=start, end=end
        )
    begin = _advance(text, 0, start - 1)
    stop = _advance(text, begin, end - start + 1)
    return text[begin:stop]


class LineText:
    """A text split once into lines (ending at ``\\n``), for fast 1-based inclusive slicing."""

    def __init__(self, text: str) -> None:
        self.lines = text.split(NEWLINE) if text else []
        self.terminated = text.endswith(NEWLINE)
        if self.terminated:
            self.lines.pop()

    @property
    def count(self) -> int:
        return len(self.lines)

    def slice(self, start: int, end: int) -> str:
        body = NEWLINE.join(self.lines[start - 1 : end])
        if end < len(self.lines) or self.terminated:
            body += NEWLINE
        return body
