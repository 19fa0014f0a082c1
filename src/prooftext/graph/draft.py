"""Intermediate results of reading one file, before ids are assigned (internal to the graph package).

Readers (``code.py``, ``markup.py``) produce :class:`Drafts`: nodes that point at their parent by list
index, and references that point at their owner node by index (``FILE`` is the file node). ``extract.py``
turns them into :class:`~prooftext.graph.model.Node` objects with content ids.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from itertools import accumulate, repeat
from operator import add

FILE = -1
"""Owner / parent index meaning "the file node"."""


class Lines:
    """Line geometry of raw bytes: a line ends at ``\\n``; lines are numbered from 1.

    ``count`` is the number of lines: 0 for empty data, and a last line without a terminating ``\\n``
    still counts. ``span(s, e)`` is the exact bytes of lines ``s..e`` inclusive, each with its ``\\n``.
    """

    __slots__ = ("count", "data", "starts")

    def __init__(self, data: bytes) -> None:
        self.data = data
        # starts[i] is the byte offset of line i+1; one entry per "\n" plus the first line.
        # (All C-level iterators: this runs over every line of every file.)
        sizes = map(add, map(len, data.split(b"\n")), repeat(1))
        self.starts: list[int] = [0, *accumulate(sizes)][:-1]
        newlines = len(self.starts) - 1
        self.count = newlines if not data or data.endswith(b"\n") else newlines + 1

    def span(self, start_line: int, end_line: int) -> bytes:
        """Bytes of lines ``start_line..end_line`` (1-based, inclusive), terminators included."""
        begin = self.starts[start_line - 1] if start_line - 1 < len(self.starts) else len(self.data)
        end = self.starts[end_line] if end_line < len(self.starts) else len(self.data)
        return self.data[begin:end]


@dataclass
class Draft:
    """A node before it has an id: a symbol, section or chunk, parented by index (``FILE`` = file node)."""

    kind: str
    name: str
    qualname: str
    symbol_kind: str
    start_line: int
    end_line: int
    parent: int = FILE
    signature: str = ""
    docstring: str = ""


@dataclass
class Drafts:
    """Everything a reader found in one file; owners and parents are indexes into ``nodes``."""

    nodes: list[Draft] = field(default_factory=list)
    uses: list[tuple[int, str, int]] = field(default_factory=list)  # (owner, name, line)
    imports: list[tuple[int, str, int, tuple[str, ...]]] = field(default_factory=list)  # owner, module, line
    links: list[tuple[int, str, int]] = field(default_factory=list)  # (owner, target, line)
    contradicts: list[str] = field(default_factory=list)
    file_docstring: str = ""
    covered: list[tuple[int, int]] = field(default_factory=list)
    """Line spans of top-level nodes (with their leading doc comments): the rest is module-level code."""


class Owners:
    """Innermost of properly nested ranges containing a position (byte offset or line).

    ``starts`` ascend, ``ends`` are exclusive and ``parents`` index the enclosing range (``FILE`` for none).
    Bisect to the last range starting at or before the position, then climb parents until one contains
    it: the innermost container is always on that chain because ranges nest or are disjoint.
    """

    def __init__(self, starts: list[int], ends: list[int], parents: list[int]) -> None:
        self.starts, self.ends, self.parents = starts, ends, parents

    def __call__(self, position: int) -> int:
        index = bisect_right(self.starts, position) - 1
        while index != FILE and self.ends[index] <= position:
            index = self.parents[index]
        return index
