"""``extract(path, text)``: everything one file says about itself, as a pure function of path and text.

Nodes of a file, in order:

1. one ``file`` node: ``name`` is the basename, ``qualname`` the path, lines ``1..max(line_count, 1)``
   (an empty file has no lines, but a range ``[1, 0]`` is invalid, so it is ``[1, 1]`` and its text is
   empty; quoting reads that range of an empty file as the empty text, ``pack.sources.EMPTY_FILE_RANGE``,
   so an empty file is quotable and can be required); for Python its ``docstring`` is the module docstring;
2. the reader's nodes in document order: code ``symbol`` nodes (tree-sitter, see ``code.py``) or
   Markdown / reStructuredText ``section`` nodes (see ``markup.py``);
3. ``chunk`` nodes: windows of at most ``CHUNK_LINES`` lines over whatever no top-level node covers
   (module-level code, a README's preamble), with blank lines trimmed from each run. A file with no
   other node gets windows only when it is longer than one window: a shorter file *is* its one chunk.

Lines are counted on the raw UTF-8 bytes: a line ends at ``\\n``; ranges are 1-based and inclusive.
A node's ``text_sha256`` is the SHA-256 of the exact bytes of its lines, terminators included, and
the node id is ``content_id({kind, path, qualname, symbol_kind, start_line, end_line, text_sha256,
ordinal})``, where ``ordinal`` counts earlier nodes of the file with the same (kind, qualname,
symbol_kind), so overloads and repeated headings never share an id.

Names are redacted like the text: a credential spelled in a symbol or heading name, a qualname, a
signature or a used identifier is replaced by the placeholder :func:`~prooftext.corpus.secrets.redact_text`
puts in a prompt, before ids are computed. The scan leaves such a value in a file's text only when an
allowlist pragma covers it (``[scan] secrets_allow_pragma``); prompts redact the text, but names travel in
a packet's JSON (``evidence[].qualname``, ``joined[].qualname``, the trace) where nothing redacts them.

Nothing here raises on malformed input: tree-sitter is error tolerant, a missing grammar or a file over
``MAX_PARSE_BYTES`` degrades to chunks, and every per-file list is bounded.
"""

from __future__ import annotations

import bisect
import hashlib
import posixpath
import re
from collections import Counter
from collections.abc import Callable
from itertools import accumulate

import prooftext.graph.languages as L
from prooftext.corpus.secrets import find_secrets, redact_text
from prooftext.graph.code import extract_code
from prooftext.graph.draft import FILE, Draft, Drafts, Lines
from prooftext.graph.markup import extract_markdown, extract_rst
from prooftext.graph.model import (
    EDGE_CONTAINS,
    NODE_CHUNK,
    NODE_FILE,
    FileGraph,
    ImportRef,
    LinkRef,
    Node,
    Use,
    make_edge,
    node_id,
)

CHUNK_LINES = 60
"""Lines per chunk window."""
MAX_PARSE_BYTES = 1 << 20
"""Files larger than 1 MiB are not parsed (generated code, data): they are cut into chunks instead."""
MAX_USES_PER_FILE = 2_000
"""Bound on plain-name ``uses`` per file, shared fairly between nodes (see ``_cap_uses``)."""
MAX_REFERENCES_PER_FILE = 10_000
"""Bound on the spelled references (who-uses) per file, shared the same way: a generated file is cut, a long
test module is not."""

language_for = L.language_for
_WORD = re.compile(rb"\w")
_PRIVATE_KEY_MARK = "PRIVATE KEY"
""":func:`redact_text` also blanks key lines around a marker spelling this: a name holding it is redacted."""


def _read(language: str | None, text: str, data: bytes, lines: Lines, path: str) -> Drafts | None:
    if language is None or len(data) > MAX_PARSE_BYTES:
        return None
    if language == L.MARKDOWN:
        return extract_markdown(text, lines.count)
    if language == L.RST:
        return extract_rst(text, lines.count)
    return extract_code(language, data, header=path.lower().endswith(".h"))


def _windows(start: int, end: int, lines: Lines, out: list[Draft]) -> None:
    for first in range(start, end + 1, CHUNK_LINES):
        last = min(first + CHUNK_LINES - 1, end)
        label = f"L{first}-L{last}"
        out.append(Draft(NODE_CHUNK, label, label, "", first, last))


def _is_blank(lines: Lines, number: int) -> bool:
    return not lines.span(number, number).strip()


def _gap_chunks(covered: list[tuple[int, int]], lines: Lines) -> list[Draft]:
    """Chunks over the non-blank runs of lines no top-level node covers."""
    chunks: list[Draft] = []
    if not covered:
        if lines.count > CHUNK_LINES:
            _windows(1, lines.count, lines, chunks)
        return chunks
    cursor = 1
    for start, end in [*sorted(covered), (lines.count + 1, lines.count + 1)]:
        first, last = cursor, min(start - 1, lines.count)
        while first <= last and _is_blank(lines, first):
            first += 1
        while last >= first and _is_blank(lines, last):
            last -= 1
        # A run of only brackets and punctuation (Go's `type (` … `)`, a closing `});`) says nothing.
        if first <= last and _WORD.search(lines.span(first, last)):
            _windows(first, last, lines, chunks)
        cursor = max(cursor, end + 1)
    return chunks


def _cap_uses(uses: list[tuple[int, str, int]], cap: int) -> list[tuple[int, str, int]]:
    """Keep at most ``cap`` uses, fairly: every owner keeps its first k (the largest k that fits), and the
    remaining budget goes to the next use of owners in document order. Long files keep evidence for their
    last functions too."""
    if len(uses) <= cap:
        return uses
    counts = sorted(Counter(owner for owner, _, _ in uses).values())
    prefix = [0, *accumulate(counts)]

    def kept(k: int) -> int:  # sum(min(count, k)) over owners, via the sorted counts
        split = bisect.bisect_left(counts, k)
        return prefix[split] + k * (len(counts) - split)

    low, high = 0, counts[-1]
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if kept(middle) <= cap else (low, middle - 1)
    extra = cap - kept(low)
    taken: Counter[int] = Counter()
    out = []
    for use in uses:
        count = taken[use[0]]
        if count == low and extra > 0:
            extra -= 1
        elif count >= low:
            continue
        taken[use[0]] = count + 1
        out.append(use)
    return out


class _Builder:
    """Assigns ids in order and accumulates the FileGraph."""

    def __init__(self, path: str, language: str, lines: Lines) -> None:
        self.graph = FileGraph(path=path, language=language)
        self.lines = lines
        self.ordinals: Counter[tuple[str, str, str]] = Counter()

    def add(self, draft: Draft, parent_id: str | None) -> Node:
        path, lines = self.graph.path, self.lines
        end = max(draft.end_line, draft.start_line)
        text_sha256 = hashlib.sha256(lines.span(draft.start_line, end)).hexdigest()
        key = (draft.kind, draft.qualname, draft.symbol_kind)
        ordinal = self.ordinals[key]
        self.ordinals[key] += 1
        ident = node_id(
            kind=draft.kind,
            path=path,
            qualname=draft.qualname,
            symbol_kind=draft.symbol_kind,
            start_line=draft.start_line,
            end_line=end,
            text_sha256=text_sha256,
            ordinal=ordinal,
        )
        node = Node(
            id=ident,
            kind=draft.kind,
            path=path,
            name=draft.name,
            qualname=draft.qualname,
            symbol_kind=draft.symbol_kind,
            start_line=draft.start_line,
            end_line=end,
            language=self.graph.language,
            signature=draft.signature,
            docstring=draft.docstring,
            parent_id=parent_id,
            text_sha256=text_sha256,
            ordinal=ordinal,
        )
        self.graph.nodes.append(node)
        if parent_id is not None:
            self.graph.edges.append(make_edge(EDGE_CONTAINS, parent_id, node.id))
        return node


def _name_redactor(path: str, drafts: Drafts) -> Callable[[str], str] | None:
    """What redacts the names of ``drafts``, or None when none spells a credential (nearly every file).

    One scan of all names, one per line, decides: every secret rule is line-local, so it finds exactly
    what scanning each name apart would, for a seventh of what scanning the text again would cost (3% of
    extraction over a site-packages tree, against 20%)."""
    names = [field for d in drafts.nodes for field in (d.name, d.qualname, d.signature)]
    names.extend(name for _, name, _ in drafts.uses)
    # Each distinct name once: a rule finds nothing in a repeat that it did not find in the first.
    joined = "\n".join(dict.fromkeys(names))
    if _PRIVATE_KEY_MARK not in joined and not find_secrets(joined, path=path):
        return None
    return lambda name: redact_text(name, path)


def _redact_names(path: str, drafts: Drafts) -> None:
    """Redact names in place; uses too, so a call of a redacted function still names what it defines."""
    clean = _name_redactor(path, drafts)
    if clean is None:
        return
    for draft in drafts.nodes:
        draft.name, draft.qualname, draft.signature = (
            clean(draft.name),
            clean(draft.qualname),
            clean(draft.signature),
        )
    drafts.uses = [(owner, clean(name), line) for owner, name, line in drafts.uses]


def _assemble(path: str, language: str, lines: Lines, drafts: Drafts) -> FileGraph:
    _redact_names(path, drafts)
    builder = _Builder(path, language, lines)
    last = max(lines.count, 1)  # an empty file's node is lines 1-1 (see the module notes)
    file_draft = Draft(
        NODE_FILE, posixpath.basename(path), path, "", 1, last, docstring=drafts.file_docstring
    )
    file_id = builder.add(file_draft, None).id
    ids: list[str] = []
    for draft in [*drafts.nodes, *_gap_chunks(drafts.covered, lines)]:
        draft.start_line = min(max(draft.start_line, 1), last)
        draft.end_line = min(draft.end_line, last)
        parent_id = file_id if draft.parent == FILE else ids[draft.parent]
        ids.append(builder.add(draft, parent_id).id)

    def owner(index: int) -> str:
        return file_id if index == FILE else ids[index]

    graph = builder.graph
    plain = [use for use in drafts.uses if " " not in use[1]]  # spelled references hold a space
    spelled = [use for use in drafts.uses if " " in use[1]]
    kept = _cap_uses(plain, MAX_USES_PER_FILE) + _cap_uses(spelled, MAX_REFERENCES_PER_FILE)
    graph.uses = [Use(owner(o), name, line) for o, name, line in kept]
    graph.imports = [ImportRef(owner(o), module, line, names) for o, module, line, names in drafts.imports]
    graph.links = [LinkRef(owner(o), target, line) for o, target, line in drafts.links]
    graph.contradicts = list(drafts.contradicts)
    return graph


def _encode(text: str) -> tuple[str, bytes]:
    """UTF-8 bytes of ``text``; lone surrogates (never produced by a strict read) are replaced, not fatal."""
    try:
        return text, text.encode("utf-8")
    except UnicodeEncodeError:
        data = text.encode("utf-8", "surrogatepass")
        return data.decode("utf-8", "replace"), data


def extract(path: str, text: str) -> FileGraph:
    """The nodes, intra-file edges and unresolved references of one file (portable relative ``path``)."""
    text, data = _encode(text)
    lines = Lines(data)
    language = L.language_for(path)
    drafts = _read(language, text, data, lines, path)
    if drafts is None:
        drafts = Drafts()
    return _assemble(path, language or L.TEXT, lines, drafts)
