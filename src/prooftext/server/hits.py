"""Compact search hits: what an agent needs to decide what to read next, at most :data:`MAX_HIT_TOKENS` each.

A hit is its path and line range (together, the arguments of ``context.read``: the handle to read it), the
qualified name when it is a symbol, its signature (the line that names it) or first line, and as much of a
snippet as the rest of the hit's budget holds. Every line is read through :func:`prooftext.read_range`, so a
hit quotes nothing a packet would not (credentials redacted, excluded files never read); a hit whose source
cannot be read now keeps its location alone. The signature and snippet show control, bidirectional and
invisible characters as a markdown packet does (:func:`prooftext.visible_text`: ``␛``, ``[U+202E]``), and
the hit carries the ``flags`` of the lines it was read from, so no hit can drive a terminal or hide text.
"""

from __future__ import annotations

import json
import re
from typing import Any

import prooftext
from prooftext.errors import ProoftextError

MAX_HIT_TOKENS = 60
"""o200k tokens of one hit's compact JSON, at most."""
BASIS = "o200k_base"
SIG_CHARS = 120
"""A signature or first line is cut to this many characters."""
SNIPPET_LINES = 6
"""Lines after the signature a snippet may draw from."""
PEEK_LINES = 12
"""Lines read per hit: the signature is looked for among them (decorators and comments come first)."""
_LINE_LABEL = re.compile(r"L\d+-L\d+")
"""The name a chunk without a symbol or heading has: its lines, which the hit gives already."""
MIN_SNIPPET_CHARS = 12
"""A shorter snippet is left out: it would say nothing."""


def _cost(hit: dict[str, Any]) -> int:
    return prooftext.count(json.dumps(hit, ensure_ascii=False, separators=(",", ":")), BASIS).count


def _cut(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[: chars - 1].rstrip() + "…"


def _signature(lines: list[str], name: str) -> int:
    """The index of the line that names the symbol (else the first non-blank line), or -1."""
    simple = name.rsplit(".", 1)[-1]
    blank = -1
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        if blank < 0:
            blank = i
        if simple and simple in line and not line.lstrip().startswith(("@", "#")):
            return i
    return blank


def _fit(hit: dict[str, Any], key: str, text: str) -> None:
    """Set ``hit[key]`` to the longest prefix of ``text`` that keeps the hit within budget (or leave it out);
    a text shorter than :data:`MIN_SNIPPET_CHARS` (a short signature) is kept whole or left out."""
    low, high, best = min(MIN_SNIPPET_CHARS, len(text)), len(text), ""
    while low <= high:
        mid = (low + high) // 2
        candidate = _cut(text, mid)
        if _cost({**hit, key: candidate}) <= MAX_HIT_TOKENS:
            best, low = candidate, mid + 1
        else:
            high = mid - 1
    if best:
        hit[key] = best


def compact_hit(index: prooftext.Index, candidate: dict[str, Any]) -> dict[str, Any]:
    path = str(candidate["path"])
    start, end = (int(v) for v in candidate["node_range"])
    hit: dict[str, Any] = {"path": path, "lines": [start, end]}
    name = str(candidate.get("qualname") or "")
    if name and not _LINE_LABEL.fullmatch(name):
        hit["name"] = _cut(name, SIG_CHARS)
    try:
        peek = prooftext.read_range(index, path, start, min(end, start + PEEK_LINES - 1))
    except ProoftextError:
        return hit
    if "flags" in peek:
        hit["flags"] = str(peek["flags"])
    lines = str(peek["text"]).split("\n")
    at = _signature(lines, name)
    if at < 0:
        return hit
    _fit(hit, "sig", prooftext.visible_text(" ".join(lines[at].split())))
    rest = [prooftext.visible_text(" ".join(line.split())) for line in lines[at + 1 : at + 1 + SNIPPET_LINES]]
    snippet = "\n".join(line for line in rest if line)
    if len(snippet) >= MIN_SNIPPET_CHARS:
        _fit(hit, "snippet", snippet)
    return hit


def compact_hits(index: prooftext.Index, query: str, limit: int) -> list[dict[str, Any]]:
    """The ``limit`` best-ranked nodes for ``query`` as compact hits."""
    return [compact_hit(index, c) for c in index.search(query, limit=limit, refresh=False)]
