"""Markdown and reStructuredText: sections by heading, relative links, and declared contradictions.

A section runs from its heading (the first line of a setext title, or an RST overline) to the line before
the next heading of the same or a higher level, or to the last line of the file. Its ``qualname`` is the
chain of enclosing headings joined by `` > ``. Headings inside fenced code blocks and front matter are
not headings.

Front matter is a ``---`` line at the very top, closed by ``---`` or ``...``. Only its ``contradicts`` key
is read, by hand (no YAML dependency), in the two simple list forms::

    contradicts: [docs/a.md, "docs/b.md"]
    contradicts:
      - docs/a.md

Links: Markdown ``[text](target)``, images, and reference definitions ``[id]: target``; RST
```text <target>`_``, ``:doc:`` roles and ``include`` / ``literalinclude`` / ``image`` / ``figure``
directives. Targets with a URL scheme, protocol-relative targets and pure ``#anchors`` are skipped.
"""

from __future__ import annotations

import re
import unicodedata

from prooftext.graph.draft import FILE, Draft, Drafts, Owners
from prooftext.graph.model import NODE_CHUNK, NODE_SECTION

MAX_TITLE_CHARS = 300
"""Longest section title kept, in code points. A longer heading is cut at the last blank within the limit,
so no word or identifier is split, provided the cut keeps at least :data:`MIN_WORD_CUT_CHARS`; otherwise
(one long token) at the limit, moved back so that no combining sequence is split (see :func:`_cut_title`).
Titles are ``str``, so every cut already falls between code points, never inside a UTF-8 or UTF-16 unit."""
MIN_WORD_CUT_CHARS = MAX_TITLE_CHARS // 2
"""A blank earlier than this is not used: cutting there would drop more of the title than it saves."""
_COMBINING_CATEGORIES = frozenset({"Mn", "Mc", "Me"})
"""Marks that belong to the character before them (accents, variation selectors, enclosing marks)."""
_ZERO_WIDTH_JOINER = "\u200d"
_EMOJI_MODIFIERS = range(0x1F3FB, 0x1F400)
"""Skin tone modifiers: they extend the emoji before them."""
SECTION_WINDOW_LINES = 8
"""A section whose own lines (before its first subsection) are more than this many is also cut into
``chunk`` windows of at most this many lines, cut at a blank line where one falls inside the window: a long
section (a transcript's session, a long chapter) is then quoted by the part that answers, not whole."""
MAX_LINKS_PER_FILE = 2_000
MAX_SECTIONS_PER_FILE = 5_000
MAX_FRONT_MATTER_LINES = 200
SECTION_SEPARATOR = " > "

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
# Only the opening of a line is matched with a regex; its text is then trimmed with str methods. A lazy
# ``(.*?)`` before a trailing ``[ \t]*$`` rescans the whitespace run at every step: quadratic in a line.
_ATX_OPEN = re.compile(r" {0,3}(#{1,6})(?=[ \t]|$)")
_BLANKS = " \t"
_CLOSING_HASHES = "#"
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
# Lines that cannot be the text of a setext heading: list items, quotes, tables, HTML, indented code.
_NOT_PARAGRAPH = re.compile(r"^(?: {4}|\t| {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)| {0,3}[>|<])")
_MD_LINK = re.compile(
    r"\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\]\(\s*(<[^>\n]*>|[^\s()]+(?:\([^\s()]*\)[^\s()]*)*)"
    r"(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^)\n]*\)))?\s*\)"
)
_MD_REFERENCE = re.compile(r"^ {0,3}\[[^\]\n]+\]:[ \t]*(<[^>\n]*>|\S+)")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_RST_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1+[ \t]*$")
_RST_LINK = re.compile(r"`[^`<\n]*<([^`>\n]+)>`__?")
_RST_DOC = re.compile(r":doc:`(?:[^`<\n]*<([^`>\n]+)>|([^`<\n]+))`")
_RST_DIRECTIVE = re.compile(r"^\s*\.\.\s+(?:include|literalinclude|image|figure)::\s*(\S+)")
_CONTRADICTS = re.compile(r"contradicts[ \t]*:")
_LIST_ITEM = re.compile(r"[ \t]*-[ \t]")


def is_local_target(target: str) -> bool:
    """True for a link target that can name a repository file: no scheme, not ``//host``, not ``#anchor``."""
    return bool(target) and not (target.startswith(("#", "//")) or _SCHEME.match(target))


def _joins_previous(text: str, index: int) -> bool:
    """Whether ``text[index]`` continues the character sequence before it (a cut there would split it)."""
    char = text[index]
    return (
        unicodedata.category(char) in _COMBINING_CATEGORIES
        or ord(char) in _EMOJI_MODIFIERS
        or _ZERO_WIDTH_JOINER in (char, text[index - 1])
    )


def _cut_title(title: str) -> str:
    """``title`` within :data:`MAX_TITLE_CHARS`: at the last blank that keeps :data:`MIN_WORD_CUT_CHARS`,
    else at the limit moved back to the start of a combining sequence."""
    if len(title) <= MAX_TITLE_CHARS:
        return title
    # The first dropped character may itself be the blank that ends the last whole word.
    blank = max(title.rfind(char, 0, MAX_TITLE_CHARS + 1) for char in _BLANKS)
    if blank >= MIN_WORD_CUT_CHARS:
        return title[:blank].rstrip(_BLANKS)
    cut = MAX_TITLE_CHARS
    while cut > 0 and _joins_previous(title, cut):
        cut -= 1
    # One sequence longer than the limit (a base under hundreds of marks) is cut inside rather than lost.
    return title[: cut or MAX_TITLE_CHARS]


def _heading(level: int, title: str, start: int) -> tuple[int, str, int]:
    return level, _cut_title(title.strip()), start


def _sections(headings: list[tuple[int, str, int]], line_count: int, drafts: Drafts) -> Owners:
    """Turn (level, title, start line) headings into nested section drafts; returns the line owner map."""
    stack: list[tuple[int, int]] = []  # (level, draft index)
    starts: list[int] = []
    ends: list[int] = []
    parents: list[int] = []
    for level, title, start in headings[:MAX_SECTIONS_PER_FILE]:
        if not title:
            continue
        while stack and stack[-1][0] >= level:
            closed = stack.pop()[1]
            drafts.nodes[closed].end_line = max(start - 1, drafts.nodes[closed].start_line)
        parent = stack[-1][1] if stack else FILE
        prefix = drafts.nodes[parent].qualname + SECTION_SEPARATOR if parent != FILE else ""
        stack.append((level, len(drafts.nodes)))
        parents.append(parent)
        starts.append(start)
        drafts.nodes.append(Draft(NODE_SECTION, title, prefix + title, "", start, line_count, parent))
    for draft in drafts.nodes:
        ends.append(draft.end_line + 1)
        if draft.parent == FILE:
            drafts.covered.append((draft.start_line, draft.end_line))
    return Owners(starts, ends, parents)


def _window_ends(lines: list[str], first: int, last: int) -> list[int]:
    """The last line of each window over ``first..last``: at most :data:`SECTION_WINDOW_LINES` lines,
    ending before a blank line where the window holds one past its first half."""
    ends: list[int] = []
    start = first
    while start <= last:
        end = min(start + SECTION_WINDOW_LINES - 1, last)
        if end < last:
            blanks = [
                n for n in range(start + SECTION_WINDOW_LINES // 2, end + 1) if not lines[n - 1].strip()
            ]
            end = blanks[-1] if blanks else end
        ends.append(end)
        start = end + 1
    return ends


def _section_windows(drafts: Drafts, lines: list[str]) -> None:
    """Chunk windows, children of their section, over each section's own lines when they are too many."""
    first_child: dict[int, int] = {}
    for draft in drafts.nodes:
        if draft.parent != FILE:
            first_child.setdefault(draft.parent, draft.start_line)
    for index, section in enumerate(list(drafts.nodes)):
        last = first_child.get(index, section.end_line + 1) - 1
        if last - section.start_line + 1 <= SECTION_WINDOW_LINES:
            continue
        start = section.start_line
        for end in _window_ends(lines, start, last):
            if any(line.strip() for line in lines[start - 1 : end]):  # a window of blank lines quotes nothing
                label = f"L{start}-L{end}"
                qualname = section.qualname + SECTION_SEPARATOR + label
                drafts.nodes.append(Draft(NODE_CHUNK, label, qualname, "", start, end, index))
            start = end + 1


def _attach_links(found: list[tuple[int, str]], owners: Owners, drafts: Drafts) -> None:
    for line, target in found[:MAX_LINKS_PER_FILE]:
        target = target.strip()
        if target.startswith("<") and target.endswith(">"):
            target = target[1:-1].strip()
        if is_local_target(target):
            drafts.links.append((owners(line), target, line))


# --- Markdown -------------------------------------------------------------------------------------------


def _atx(line: str) -> tuple[int, str] | None:
    """(level, text) of an ATX heading line: the text between the opening and a closing sequence of
    ``#`` (one that is the whole text or follows a blank), blanks trimmed; None for any other line."""
    opening = _ATX_OPEN.match(line)
    if opening is None:
        return None
    text = line[opening.end() :].strip(_BLANKS)
    body = text.rstrip(_CLOSING_HASHES)
    if len(body) < len(text) and (not body or body[-1] in _BLANKS):
        text = body.rstrip(_BLANKS)
    return len(opening.group(1)), text


def _contradicts(block: list[str]) -> list[str]:
    for index, line in enumerate(block):
        match = _CONTRADICTS.match(line)
        if match is None:
            continue
        value = line[match.end() :].strip(_BLANKS)
        if value.startswith("["):
            items = value.strip("[]").split(",")
        elif value:
            items = [value]
        else:
            items = []
            for item_line in block[index + 1 :]:
                item = _LIST_ITEM.match(item_line)
                if item is None:
                    break
                items.append(item_line[item.end() :].strip(_BLANKS))
        return [clean for clean in (item.strip().strip("'\"").strip() for item in items) if clean]
    return []


def _front_matter(lines: list[str]) -> tuple[int, list[str]]:
    """(last line of the front matter or 0, its ``contradicts`` list)."""
    if not lines or lines[0].rstrip() != "---":
        return 0, []
    for index in range(1, min(len(lines), MAX_FRONT_MATTER_LINES)):
        if lines[index].rstrip() in ("---", "..."):
            return index + 1, _contradicts(lines[1:index])
    return 0, []


class _MarkdownScan:
    """One pass over the lines: fences, ATX and setext headings, links."""

    def __init__(self) -> None:
        self.headings: list[tuple[int, str, int]] = []
        self.links: list[tuple[int, str]] = []
        self.fence: str | None = None
        self.paragraph: int = 0  # first line of the open paragraph (a setext title candidate), 0 = none

    def line(self, number: int, line: str, lines: list[str]) -> None:
        if self.fence is not None:
            if self._closes_fence(line, self.fence):
                self.fence = None
            return
        fence = _FENCE.match(line)
        if fence is not None:
            self.fence, self.paragraph = fence.group(1), 0
            return
        atx = _atx(line)
        if atx is not None:
            self.headings.append(_heading(*atx, number))
            self.paragraph = 0
            return
        if self.paragraph and _SETEXT.match(line):
            title = " ".join(text.strip() for text in lines[self.paragraph - 1 : number - 1])
            self.headings.append(_heading(1 if line.lstrip()[0] == "=" else 2, title, self.paragraph))
            self.paragraph = 0
            return
        if not line.strip() or _NOT_PARAGRAPH.match(line):
            self.paragraph = 0
        elif not self.paragraph:
            self.paragraph = number
        self._links(number, line)

    @staticmethod
    def _closes_fence(line: str, fence: str) -> bool:
        closing = _FENCE.match(line)
        return (
            closing is not None
            and closing.group(1)[0] == fence[0]
            and len(closing.group(1)) >= len(fence)
            and not line.strip().lstrip(fence[0])
        )

    def _links(self, number: int, line: str) -> None:
        if "](" in line:
            self.links.extend((number, match.group(1)) for match in _MD_LINK.finditer(line))
        if "]:" in line:
            reference = _MD_REFERENCE.match(line)
            if reference is not None:
                self.links.append((number, reference.group(1)))


def extract_markdown(text: str, line_count: int) -> Drafts:
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    drafts = Drafts()
    front_end, drafts.contradicts = _front_matter(lines)
    scan = _MarkdownScan()
    for number in range(front_end + 1, line_count + 1):
        scan.line(number, lines[number - 1], lines)
    owners = _sections(scan.headings, line_count, drafts)
    _attach_links(scan.links, owners, drafts)
    _section_windows(drafts, lines)
    return drafts


# --- reStructuredText -----------------------------------------------------------------------------------


def _rst_title(lines: list[str], index: int) -> tuple[str, bool] | None:
    """(adornment style, has overline) when ``lines[index]`` is a section title, else None."""
    title = lines[index].rstrip()
    if not title.strip() or index + 1 >= len(lines) or _RST_ADORNMENT.match(title):
        return None
    under = _RST_ADORNMENT.match(lines[index + 1])
    if under is None or len(lines[index + 1].rstrip()) < len(title.strip()):
        return None
    over = index > 0 and lines[index - 1].rstrip() == lines[index + 1].rstrip()
    if title[0] in " \t" and not over:
        return None  # an indented line under a rule is a block quote, unless an overline frames it
    return under.group(1), over


def _rst_links(number: int, line: str, found: list[tuple[int, str]]) -> None:
    if "`" in line:
        found.extend((number, match.group(1)) for match in _RST_LINK.finditer(line))
        found.extend((number, match.group(1) or match.group(2)) for match in _RST_DOC.finditer(line))
    directive = _RST_DIRECTIVE.match(line)
    if directive is not None:
        found.append((number, directive.group(1)))


def extract_rst(text: str, line_count: int) -> Drafts:
    lines = [line.removesuffix("\r") for line in text.split("\n")][:line_count]
    styles: list[tuple[str, bool]] = []  # RST levels are the order in which adornment styles first appear
    headings: list[tuple[int, str, int]] = []
    found: list[tuple[int, str]] = []
    for index, line in enumerate(lines):
        style = _rst_title(lines, index)
        if style is not None:
            if style not in styles:
                styles.append(style)
            start = index if style[1] else index + 1
            headings.append(_heading(styles.index(style) + 1, line, start))
        _rst_links(index + 1, line, found)
    drafts = Drafts()
    owners = _sections(headings, line_count, drafts)
    _attach_links([(line, target) for line, target in found if not target.endswith("_")], owners, drafts)
    _section_windows(drafts, lines)
    return drafts
