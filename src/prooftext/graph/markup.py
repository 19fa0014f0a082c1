"""Markdown and reStructuredText: sections by heading, relative links, and declared contradictions.

A section runs from its heading (the first line of a setext title, or an RST overline) to the line before
the next heading of the same or a higher level, or to the last line of the file. Its ``qualname`` is the
chain of enclosing headings joined by `` > ``. Lines before the first heading are no section: they are
chunks of the file (see ``extract.py``), and so are a file's lines when it has no heading at all.

Markdown headings follow CommonMark (ATX and setext) at the top level of the document: a heading inside a
fenced code block, an HTML block (a comment, ``<details>``, ``<pre>``...), front matter or indented code is
not one, nor is a heading inside a block quote or a list item (on the item's line, or on a line indented
to its text). A line that continues a list item's or a quote's paragraph lazily is no setext title, and an
empty heading (a lone ``#``) is no section. Three deliberate departures: a line starting with ``|`` (a
table row, as GitHub reads it) never starts a setext title, a byte order mark before the first line is
ignored, and only a closing fence ends a fenced block (CommonMark also ends one with the list item it
opened in, so a line pasted unindented into it would be a heading and its closing fence open a new block).

reStructuredText titles follow docutils: a title line starts a block (a line inside a paragraph or a
doctest block is none, nor is a line that starts a list item, field, directive, line block or doctest),
its underline is at least as wide as the title or four characters long, an overline must equal the
underline, and levels are the order in which adornment styles first appear; a title that would skip a
level is no section, so its lines stay in the enclosing one.

Front matter, in Markdown and reStructuredText alike, is a ``---`` line at the very top, closed by ``---``
or ``...``; no heading is read inside it. Only its ``contradicts`` key is read, by hand (no YAML dependency), in the two simple list forms::

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
_BOM = "\ufeff"
# Only the opening of a line is matched with a regex; its text is then trimmed with str methods. A lazy
# ``(.*?)`` before a trailing ``[ \t]*$`` rescans the whitespace run at every step: quadratic in a line.
_ATX_OPEN = re.compile(r" {0,3}(#{1,6})(?=[ \t]|$)")
_BLANKS = " \t"
_CLOSING_HASHES = "#"
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_BLOCK_MARKS = frozenset("#`~=-<*_")
"""First characters of a line that can open a fence, a heading, an HTML block or a rule, or underline."""
_THEMATIC_BREAK = re.compile(r" {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_INDENTED = re.compile(r" {4}|\t")
_CODE_INDENT = 4
"""Blanks past a block's margin that make its text indented code (one more after a list marker)."""
_TABLE_ROW = re.compile(r" {0,3}\|")
# A list item (group 1: its number, if ordered) or a block quote (group 2), then its text (group 3).
_CONTAINER = re.compile(r" {0,3}(?:(?:[-*+]|(\d{1,9})[.)])(?=[ \t]|$)|(>))(.*)")
# HTML blocks (CommonMark 0.31, kinds 1 to 7): an opening and what ends the block. Kinds 1 to 5 end at a
# line holding their closing text, kinds 6 and 7 at a blank line; kind 7 cannot interrupt a paragraph.
_HTML_BLOCK_NAMES = (
    "address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|"
    "dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h1|h2|h3|h4|h5|h6|head|header|hr|"
    "html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|param|search|section|"
    "summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul"
)
_HTML_ATTRIBUTE = (
    r"""(?:[ \t]+[A-Za-z_:][A-Za-z0-9_.:-]*(?:[ \t]*=[ \t]*(?:[^ \t"'=<>`]+|'[^']*'|"[^"]*"))?)"""
)
_HTML_ENDS_AT_BLANK = re.compile(r"^[ \t]*$")
_HTML_BLOCKS: tuple[tuple[re.Pattern[str], re.Pattern[str], bool], ...] = (
    (
        re.compile(r" {0,3}<(?:script|pre|style|textarea)(?=[ \t>]|$)", re.IGNORECASE | re.ASCII),
        re.compile(r"</(?:script|pre|style|textarea)>", re.IGNORECASE | re.ASCII),
        True,
    ),
    (re.compile(r" {0,3}<!--"), re.compile(r"-->"), True),
    (re.compile(r" {0,3}<\?"), re.compile(r"\?>"), True),
    (re.compile(r" {0,3}<![A-Za-z]"), re.compile(r">"), True),
    (re.compile(r" {0,3}<!\[CDATA\["), re.compile(r"\]\]>"), True),
    (
        re.compile(rf" {{0,3}}</?(?:{_HTML_BLOCK_NAMES})(?=[ \t]|/?>|$)", re.IGNORECASE | re.ASCII),
        _HTML_ENDS_AT_BLANK,
        True,
    ),
    (
        re.compile(
            rf" {{0,3}}(?:<[A-Za-z][A-Za-z0-9-]*{_HTML_ATTRIBUTE}*[ \t]*/?>|</[A-Za-z][A-Za-z0-9-]*[ \t]*>)"
            r"[ \t]*$"
        ),
        _HTML_ENDS_AT_BLANK,
        False,
    ),
)
_MD_LINK = re.compile(
    r"\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\]\(\s*(<[^>\n]*>|[^\s()]+(?:\([^\s()]*\)[^\s()]*)*)"
    r"(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^)\n]*\)))?\s*\)"
)
_MD_REFERENCE = re.compile(r"^ {0,3}\[[^\]\n]+\]:[ \t]*(<[^>\n]*>|\S+)")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_RST_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1*[ \t]*$")
_RST_MARKS = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
"""The characters an adornment is made of (``_RST_ADORNMENT``'s class)."""
_RST_SHORT_UNDERLINE = 4
"""docutils takes an underline (or overline) narrower than its title when it is at least this long."""
# docutils' block starts that a line under no overline cannot be the title of: bullet, doctest, line block,
# explicit markup, anonymous target, field, table.
_RST_BLOCK_START = re.compile(
    r"(?:[-+*\u2022\u2023\u2043]|>>>|\||\.\.|__)(?: +|$)|:(?![: ])(?:[^:\\]|\\.|:(?!(?:[ `]|$)))*(?<! ):(?: +|$)"
    r"|=+(?: +=+)+ *$|\+-[-+]*-\+ *$"
)
_RST_RUNS_TO_BLANK = re.compile(r">>>(?: +|$)|=+(?: +=+)+ *$|\+-[-+]*-\+ *$")
"""A doctest block or a table: only a blank line ends it, an indented line does not."""
_RST_TEXT, _RST_RUN = "text", "run"
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


def _opens_fence(line: str) -> str | None:
    """The fence a line opens: three or more backticks (with no backtick after them) or tildes."""
    fence = _FENCE.match(line)
    if fence is None or (fence.group(1)[0] == "`" and "`" in line[fence.end() :]):
        return None
    return fence.group(1)


def _opens_html(line: str, interrupting: bool) -> re.Pattern[str] | None:
    """What ends the HTML block ``line`` opens (found in a later line, or in this one), None for no block.
    ``interrupting``: a paragraph is open, which the seventh kind (a lone tag) cannot interrupt."""
    if "<" not in line[:4]:
        return None
    for opening, closing, interrupts in _HTML_BLOCKS:
        if (interrupts or not interrupting) and opening.match(line):
            return closing
    return None


class _MarkdownScan:
    """One pass over the lines: fences, HTML blocks, ATX and setext headings, links."""

    def __init__(self) -> None:
        self.headings: list[tuple[int, str, int]] = []
        self.links: list[tuple[int, str]] = []
        self.fence: str | None = None
        self.html: re.Pattern[str] | None = None  # what ends the open HTML block
        self.paragraph: int = 0  # first line of the open paragraph (a setext title candidate), 0 = none
        self.lazy = False  # a list item's or a quote's paragraph is open: its lazy lines are no title
        self.item = 0  # the column of the open list item's text, 0 = none: lines indented so far are its own
        self.empty_item = False  # the item opened on the line before has no text: a blank line ends it

    def line(self, number: int, line: str, lines: list[str]) -> None:
        if self.fence is not None:
            if self._closes_fence(line, self.fence):
                self.fence = None
            return
        if self.html is not None:
            self._in_html(line)
        elif not line.strip():
            self.paragraph, self.lazy = 0, False
            self.item = 0 if self.empty_item else self.item
            self.empty_item = False
        elif self.item and line[0] in _BLANKS and _indent(line) >= self.item:
            self._in_item(line)
        elif line.lstrip(" ")[0].isalpha() and not _INDENTED.match(line):  # plain text: no block opens
            self.paragraph = self.paragraph or (0 if self.lazy else number)
            self.item = self.item if self.lazy else 0
        elif self._block(number, line, lines):
            self.item = 0
        else:
            self._text(number, line)
        if self.fence is None:  # a fence's opening line holds its info string, no link
            self._links(number, line)

    def _in_item(self, line: str) -> None:
        """A line of the open list item: fences and HTML blocks open as anywhere, but no heading there is
        one of the document (CommonMark nests it in the item)."""
        self.paragraph, self.empty_item = 0, False
        self.fence = _opens_fence(line)
        self.html = None if self.fence else _opens_html(line, interrupting=self.lazy)
        self._in_html(line)
        text = _past_columns(line, self.item)
        if _indent(text) < _CODE_INDENT:  # else code, or a line of the paragraph already open
            self.lazy = _opens_paragraph(text)

    def _in_html(self, line: str) -> None:
        if self.html is not None and self.html.search(line):
            self.html = None

    def _block(self, number: int, line: str, lines: list[str]) -> bool:
        """Whether ``line`` opens a block that ends the open paragraph (a fence, a heading, HTML, a rule)."""
        if line.lstrip(" ")[0] not in _BLOCK_MARKS:
            return False
        open_paragraph = bool(self.paragraph or self.lazy)
        fence = _opens_fence(line)
        if fence is not None:
            self.fence = fence
        elif (atx := _atx(line)) is not None:
            self.headings.append(_heading(*atx, number))
        elif self.paragraph and _SETEXT.match(line):
            title = " ".join(text.strip() for text in lines[self.paragraph - 1 : number - 1])
            self.headings.append(_heading(1 if line.lstrip()[0] == "=" else 2, title, self.paragraph))
        elif (html := _opens_html(line, open_paragraph)) is not None:
            self.html = html
            self._in_html(line)  # kinds 1 to 5 may close on their first line
        elif not _THEMATIC_BREAK.match(line):
            return False
        self.paragraph, self.lazy = 0, False
        return True

    def _text(self, number: int, line: str) -> None:
        """A line that opens or continues a paragraph, or opens a list item or a block quote."""
        if self.lazy and _SETEXT.match(line) and "-" in line:
            self.lazy = False  # an underline is never lazy: it ends the item or the quote
        container = _CONTAINER.match(line)
        if _TABLE_ROW.match(line):
            self.paragraph, self.lazy = 0, False
        elif self.paragraph or self.lazy:
            # Only a quote, or a list item with text (an ordered one numbered 1) interrupts a paragraph;
            # any item or quote ends the lazy lines of another.
            if container is not None and (self.lazy or _interrupts(container)):
                self._open_container(container)
            return  # else a lazy line: the item stays open
        elif container is not None:
            self._open_container(container)
            return
        elif not (_INDENTED.match(line) or _MD_REFERENCE.match(line)):
            self.paragraph = number
        self.item = 0

    def _open_container(self, container: re.Match[str]) -> None:
        text = container.group(3)
        self.paragraph, self.lazy = 0, _indent(text) <= _CODE_INDENT and _opens_paragraph(text)
        self.item = 0 if container.group(2) else _item_column(container)
        self.empty_item = not container.group(2) and not text.strip()

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


def _indent(line: str) -> int:
    """Columns of blanks before a line's text, a tab reaching the next multiple of four."""
    lead = line[: len(line) - len(line.lstrip(_BLANKS))]
    return len(lead.expandtabs(4)) if "\t" in lead else len(lead)


def _past_columns(line: str, columns: int) -> str:
    """``line`` less its first ``columns`` columns of blanks (tabs expanded only when there are any)."""
    return line.expandtabs(4)[columns:] if "\t" in line[:columns] else line[columns:]


def _item_column(item: re.Match[str]) -> int:
    """The column of a list item's text: past the marker and its blanks, or one past the marker when it
    has no text or five blanks or more (its text is then indented code)."""
    marker_end = item.start(3)
    gap = _indent(item.group(3))
    text = item.group(3).strip()
    return marker_end + (1 if not text or gap > _CODE_INDENT else gap)


def _interrupts(container: re.Match[str]) -> bool:
    """Whether a quote or list item can interrupt a paragraph: a quote, or an item with text (numbered 1
    when ordered)."""
    number = container.group(1)
    return bool(container.group(2) or (container.group(3).strip() and (number is None or int(number) == 1)))


def _opens_paragraph(text: str) -> bool:
    """Whether a list item's or a quote's text opens a paragraph (lines after it may continue it lazily)."""
    first = text.lstrip(_BLANKS)[:1]
    if first.isalpha():
        return True
    return bool(first) and not (
        _atx(text)
        or _opens_fence(text)
        or _THEMATIC_BREAK.match(text)
        or _opens_html(text, interrupting=False)
    )


def _split_lines(text: str) -> list[str]:
    """Lines without their ``\\r``; a byte order mark before the first line is dropped."""
    return [line.removesuffix("\r") for line in text.removeprefix(_BOM).split("\n")]


def extract_markdown(text: str, line_count: int) -> Drafts:
    lines = _split_lines(text)
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


def _width(text: str) -> int:
    """Columns ``text`` takes as docutils counts them: wide characters two, combining marks none."""
    return sum(
        0 if unicodedata.combining(char) else 2 if unicodedata.east_asian_width(char) in "WF" else 1
        for char in text
    )


def _rst_title(lines: list[str], index: int, overline: str | None) -> tuple[str, bool] | None:
    """(adornment style, has overline) when ``lines[index]`` is a section title, else None.
    ``overline``: the adornment line just before, when that line starts a block."""
    if (
        index + 1 >= len(lines)
        or lines[index + 1][:1] not in _RST_MARKS
        or not _RST_ADORNMENT.match(lines[index + 1])
    ):
        return None
    title = lines[index].rstrip()
    if not title.strip() or _RST_ADORNMENT.match(title):
        return None
    under = lines[index + 1].rstrip()
    if overline is None and (title[0] in _BLANKS or _RST_BLOCK_START.match(title)):
        return None  # an indented line under a rule is a block quote, unless an overline frames it
    if overline is not None and overline != under:
        return None  # docutils reports the mismatch and makes no title
    if _width(title if overline else title.strip()) > len(under) and len(under) < _RST_SHORT_UNDERLINE:
        return None
    return under[0], overline is not None


def _rst_state(line: str, block: str) -> tuple[str | None, str]:
    """After ``line``: (the line, when it is an adornment that starts a block, a possible overline; the
    block still open, in which no line is a title: :data:`_RST_TEXT` (a paragraph) runs to a blank or an
    indented line, :data:`_RST_RUN` (a doctest block or a table) to a blank line, ``""`` is none)."""
    stripped = line.rstrip()
    if not stripped:
        return None, ""
    if stripped[0] in _BLANKS:
        return None, block if block == _RST_RUN else ""  # the body of a list, directive or quote
    if block:
        return None, block
    if _RST_BLOCK_START.match(stripped):  # tried before a rule, as docutils does: ``-`` is a bullet
        return None, _RST_RUN if _RST_RUNS_TO_BLANK.match(stripped) else ""
    return (stripped, "") if _RST_ADORNMENT.match(stripped) else (None, _RST_TEXT)


def _rst_level(styles: list[tuple[str, bool]], depth: int, style: tuple[str, bool]) -> int | None:
    """The level of a title of ``style`` under a section at ``depth``, as docutils decides: a known style
    at most one level deeper, a new style only below the deepest known one; None for an inconsistent one."""
    if style in styles:
        level = styles.index(style) + 1
        return level if level <= depth + 1 else None
    if len(styles) != depth:
        return None
    styles.append(style)
    return depth + 1


def _rst_headings(lines: list[str]) -> list[tuple[int, str, int]]:
    styles: list[tuple[str, bool]] = []  # RST levels are the order in which adornment styles first appear
    headings: list[tuple[int, str, int]] = []
    depth, overline, block, index = 0, None, "", 0
    while index < len(lines):
        style = None if block else _rst_title(lines, index, overline)
        if style is None:
            overline, block = _rst_state(lines[index], block)
            index += 1
            continue
        level = _rst_level(styles, depth, style)
        if level is not None:
            depth = level
            headings.append(_heading(level, lines[index], index if style[1] else index + 1))
        overline, block, index = None, "", index + 2
    return headings


def _rst_links(number: int, line: str, found: list[tuple[int, str]]) -> None:
    if "`" in line:
        found.extend((number, match.group(1)) for match in _RST_LINK.finditer(line))
        found.extend((number, match.group(1) or match.group(2)) for match in _RST_DOC.finditer(line))
    directive = _RST_DIRECTIVE.match(line)
    if directive is not None:
        found.append((number, directive.group(1)))


def extract_rst(text: str, line_count: int) -> Drafts:
    lines = _split_lines(text)[:line_count]
    found: list[tuple[int, str]] = []
    for index, line in enumerate(lines):
        _rst_links(index + 1, line, found)
    drafts = Drafts()
    front_end, drafts.contradicts = _front_matter(lines)
    headings = [(level, title, start + front_end) for level, title, start in _rst_headings(lines[front_end:])]
    owners = _sections(headings, line_count, drafts)
    _attach_links([(line, target) for line, target in found if not target.endswith("_")], owners, drafts)
    _section_windows(drafts, lines)
    return drafts
