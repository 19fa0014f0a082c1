"""Sections agree with the real parsers on odd inputs: CommonMark (as markdown-it-py reads it) for Markdown,
docutils for reStructuredText. Each expected list was checked against those parsers by hand; the few
deliberate departures are named in ``markup.py`` and marked here."""

from __future__ import annotations

import pytest

from prooftext.graph import NODE_CHUNK, NODE_SECTION, FileGraph
from prooftext.graph.extract import extract


def sections(graph: FileGraph) -> list[tuple[str, int, int]]:
    return [(n.qualname, n.start_line, n.end_line) for n in graph.nodes if n.kind == NODE_SECTION]


def md(text: str) -> list[tuple[str, int, int]]:
    return sections(extract("docs/a.md", text))


def rst(text: str) -> list[tuple[str, int, int]]:
    return sections(extract("docs/a.rst", text))


MARKDOWN_CASES = {
    "backtick fence": ("# A\n\n```\n# no\n```\n## B\n", [("A", 1, 6), ("A > B", 6, 6)]),
    "tilde fence": ("~~~\n# no\n~~~\n# A\n", [("A", 4, 4)]),
    "longer fence holds a shorter one": ("````\n```\n# no\n```\n````\n# A\n", [("A", 6, 6)]),
    "a closing fence with text after it closes nothing": ("```\n``` x\n# no\n```\n# A\n", [("A", 5, 5)]),
    "unclosed fence runs to the end": ("# A\n\n```\n# no\n", [("A", 1, 4)]),
    "four spaces open no fence": ("# A\n\n    ```\n# B\n", [("A", 1, 3), ("B", 4, 4)]),
    "indented code": ("# A\n\n    # no\n\n## B\n", [("A", 1, 5), ("A > B", 5, 5)]),
    "hash without a blank": ("#5 no\n#tag\n# yes\n", [("yes", 3, 3)]),
    "closing hashes": (
        "# A #\n## B ##   \n### C#\n#### D \\#\n",
        [("A", 1, 4), ("A > B", 2, 4), ("A > B > C#", 3, 4), ("A > B > C# > D \\#", 4, 4)],
    ),
    "three spaces and a tab": ("   # Three\n#\tTab\n", [("Three", 1, 1), ("Tab", 2, 2)]),
    "headings in quotes and list items are no sections": (
        "> # Q\n\n- # L\n\n1. ## M\n\n# A\n",
        [("A", 7, 7)],
    ),
    "setext": ("Title\n=====\n\nSub\n---\nx\n", [("Title", 1, 6), ("Title > Sub", 4, 6)]),
    "multi-line setext": ("Line one\nline two\n===\n", [("Line one line two", 1, 3)]),
    "empty headings are no sections": ("# A\n\n##\n\n# \n\ntext\n", [("A", 1, 7)]),
    "skipped levels": (
        "# A\n### C\n## B\n# D\n",
        [("A", 1, 3), ("A > C", 2, 2), ("A > B", 3, 3), ("D", 4, 4)],
    ),
    "front matter": ("---\ntitle: x\n---\n# A\n", [("A", 4, 4)]),
    "front matter closed by dots": ("---\ntitle: x\n...\n# A\n", [("A", 4, 4)]),
    "unclosed front matter is a rule and a paragraph": ("---\ntitle: x\n\n# A\n", [("A", 4, 4)]),
    "crlf": ("# A\r\n\r\nSub\r\n---\r\nx\r\n", [("A", 1, 5), ("A > Sub", 3, 5)]),
    # HTML blocks hide what they hold: comments and kinds 1 to 5 up to their closing text, the others up
    # to a blank line.
    "html comment": ("# A\n\n<!--\n## Hidden\n-->\n\n## B\n", [("A", 1, 7), ("A > B", 7, 7)]),
    "html comment after a paragraph": ("para\n<!--\n# no\n-->\n# A\n", [("A", 5, 5)]),
    "one-line html comment": ("# A\n<!-- x -->\n## B\n", [("A", 1, 3), ("A > B", 3, 3)]),
    "details": ("<details>\n# no\n</details>\n\n# A\n", [("A", 5, 5)]),
    "pre holds blank lines": ("<pre>\n# no\n\n# no\n</pre>\n# A\n", [("A", 6, 6)]),
    "script closed on its line": ("<script>x</script>\n# A\n", [("A", 2, 2)]),
    "lone tag": ("<span>\n# no\n\n# A\n", [("A", 4, 4)]),
    "closing tag": ("</DIV>\n# no\n\n# A\n", [("A", 4, 4)]),
    "declaration, instruction, cdata": (
        "<!DOCTYPE x\n# no\n>\n<?php\n# no\n?>\n<![CDATA[\n# no\n]]>\n# A\n",
        [("A", 10, 10)],
    ),
    "a lone tag does not interrupt a paragraph": ("para\n<span>\n# A\n", [("A", 3, 3)]),
    "inline html starts a setext title": ("<b>Bold</b> title\n===\n", [("<b>Bold</b> title", 1, 2)]),
    # A backtick fence's info text holds no backtick: such a line is inline code, not a fence.
    "inline code on its own line": ("# A\n\n```js```\n\n## B\n", [("A", 1, 5), ("A > B", 5, 5)]),
    "backtick in the info of a backtick fence": ("``` `x`\n# A\n", [("A", 2, 2)]),
    "backtick in the info of a tilde fence": ("~~~ a`b\n# no\n~~~\n# A\n", [("A", 4, 4)]),
    # Paragraphs: what ends one, what cannot.
    "a rule ends a paragraph and starts none": ("***\ntext\n---\n", [("text", 2, 3)]),
    "a rule between paragraphs": ("Foo\n***\nbar\n---\n", [("bar", 3, 4)]),
    "lazy list item line": ("- item\ncontinuation\n---\n", []),
    "lazy list item line before equals": ("- item\ncontinuation\n===\n", []),
    "lazy quote line": ("> quote\nmore\n---\n", []),
    "a dash line is never lazy: it ends the quote": ("> quote\n-\n<span>\n# no\n\n--\n--\n", [("--", 6, 7)]),
    "after a blank the quote is over": ("> quote\n\nmore\n---\n", [("more", 3, 4)]),
    "an item holding a heading has no lazy line": ("- # L\ncont\n---\n", [("cont", 2, 3)]),
    "an empty item has no lazy line": ("-\nfoo\n---\n", [("foo", 2, 3)]),
    "indented code cannot interrupt a paragraph": ("Para\n    indented\n---\n", [("Para indented", 1, 3)]),
    "an item numbered 2 cannot interrupt a paragraph": (
        "The year\n2. thing\n===\n",
        [("The year 2. thing", 1, 3)],
    ),
    "an empty item cannot interrupt a paragraph": ("Foo\n*\nbar\n---\n", [("Foo * bar", 1, 4)]),
    "an item numbered 1 interrupts a paragraph": ("The year\n1. thing\n===\n", []),
    # List items: a line indented to an item's text is the item's, and its headings are the item's too.
    "headings under a list item": ("- item\n\n  # In\n\n  Sub\n  ---\n\n# A\n", [("A", 8, 8)]),
    "an unindented heading ends the item": ("1. step\n\n   ## In\n# Out\n", [("Out", 4, 4)]),
    "an item opening with code has no lazy line": ("-     code\npara\n---\n", [("para", 2, 3)]),
    "a blank line ends an empty item": ("-\n\n  Title\n  ---\n", [("Title", 3, 4)]),
    "a heading in an item ends its paragraph": ("10. ten\n    # deep\n===\n  ---\n", [("===", 3, 4)]),
    "an empty item ends a quote's lazy lines": ("> q\n1.\nmore text\n  ---\n", [("more text", 3, 4)]),
    "a link reference definition is no title": ("[a]: /url\n===\n", []),
    # Departures: CommonMark has no tables, keeps a byte order mark as text, and ends a fence with the item
    # it opened in (a line pasted unindented into an item's fence would then be a heading, and the
    # closing fence open a new one); here only a fence closes a fence.
    "a fence in an item ends at its closing fence": ("- item\n  ```\n# x\n  ```\n# A\n", [("A", 5, 5)]),
    "a table row is no title (as GitHub reads tables)": ("| a |\n|---|\n| b |\n---\n", []),
    "a byte order mark hides no heading": ("\ufeff# A\n\nx\n", [("A", 1, 3)]),
    "a byte order mark hides no setext title": ("\ufeffA\n===\n", [("A", 1, 2)]),
}


@pytest.mark.parametrize(("text", "expected"), MARKDOWN_CASES.values(), ids=MARKDOWN_CASES.keys())
def test_markdown_sections_follow_commonmark_on_odd_inputs(
    text: str, expected: list[tuple[str, int, int]]
) -> None:
    assert md(text) == expected


RST_CASES = {
    "underline only": ("Title\n=====\n\nx\n", [("Title", 1, 4)]),
    "overline": ("=====\nTitle\n=====\n\nx\n", [("Title", 1, 5)]),
    "indented title under an overline": ("=======\n Title\n=======\n", [("Title", 1, 3)]),
    "an indented line under a rule is a quote": ("Top\n===\n\n  Quote\n  -----\n", [("Top", 1, 5)]),
    "overline and underline styles are two levels": (
        "=====\nTitle\n=====\n\nSub\n=====\n\nx\n",
        [("Title", 1, 8), ("Title > Sub", 5, 8)],
    ),
    "crlf": ("Title\r\n=====\r\n\r\nx\r\n", [("Title", 1, 4)]),
    "one character": ("A\n=\n\nx\n", [("A", 1, 4)]),
    "an underline of four may be shorter": ("A long title\n====\n\nx\n", [("A long title", 1, 4)]),
    "an underline of three may not": ("A long title\n===\n\nx\n", []),
    "an overline of four may be shorter": ("=====\nA long title\n=====\n", [("A long title", 1, 3)]),
    "wide characters count twice": ("日本\n===\n\nx\n", []),
    "a line inside a paragraph is no title": ("Para one\npara two\n--------\n\nbody\n", []),
    "nor one after a title's paragraph": ("Top\n===\ntext\nmore\n----\n", [("Top", 1, 5)]),
    "an enumerated line and the next are a paragraph": ("Top\n===\n\n1. item\nSub\n---\n", [("Top", 1, 6)]),
    "a doctest block runs to a blank line": (
        "Top\n===\n\n>>> x\nabc\n---\n\nSec\n---\n",
        [("Top", 1, 9), ("Top > Sec", 8, 9)],
    ),
    "a title after a list item": ("Top\n===\n\n- item\nSub\n---\n", [("Top", 1, 6), ("Top > Sub", 5, 6)]),
    "a title after a directive": (
        "Top\n===\n\n.. note:: x\nSub\n---\n",
        [("Top", 1, 6), ("Top > Sub", 5, 6)],
    ),
    "a title after a field": ("Top\n===\n\n:f: v\nSub\n---\n", [("Top", 1, 6), ("Top > Sub", 5, 6)]),
    "a title after an empty bullet": ("Top\n===\n\n-\nSub\n---\n", [("Top", 1, 6), ("Top > Sub", 5, 6)]),
    "a title right after a title": ("Aaa\n===\nBbb\n---\nx\n", [("Aaa", 1, 5), ("Aaa > Bbb", 3, 5)]),
    # docutils takes the rule under "para" as its underline; "Title" is then underlined only (same level).
    "an underline is no overline of the next title": (
        "Top\n===\n\npara\n-----\nTitle\n-----\n",
        [("Top", 1, 7), ("Top > para", 4, 5), ("Top > Title", 6, 7)],
    ),
    "overline and underline differ": ("=====\nTitle\n-----\n\nx\n", []),
    "block starts are no titles": ("- Title\n=======\n\n:Title:\n=======\n\n.. Title\n========\n", []),
    "nor a doctest or line block": (">>> Title\n=========\n\n| Title\n=======\n", []),
    "an overline frames any text as a title": (
        "=====\n__ x\n=====\n\n=====\n.. x\n=====\n",
        [("__ x", 1, 4), (".. x", 5, 7)],
    ),
    "a table's top border is no title": ("=====  =====\n-----\n\n+---+\n=====\n", []),
    "a table runs past an indented line": ("=====  =====\n  a\nTitle\n=====\n", []),
    "an enumerated line can be a title": ("1. Title\n========\n", [("1. Title", 1, 2)]),
    "a code block's body": (
        "Top\n===\n\n.. code-block:: rst\n\n   Inner\n   =====\n\nSec\n---\n",
        [("Top", 1, 10), ("Top > Sec", 9, 10)],
    ),
    "a literal block": ("Top\n===\n\nExample::\n\n  Inner\n  -----\n\nx\n", [("Top", 1, 9)]),
    "a transition": ("Top\n===\n\npara\n\n------\n\nmore\n", [("Top", 1, 8)]),
    "a single-column table reads as a title": ("=====\nA\n=====\n", [("A", 1, 3)]),
    "a two-column table does not": ("=====  =====\nA      B\n=====  =====\n", []),
    # docutils levels: a known style at most one level deeper, a new style only below the deepest one.
    "a title that skips a level is none": (
        "Aaa\n===\n\nBbb\n---\n\nCcc\n~~~\n\nDdd\n===\n\nEee\n~~~\n",
        [("Aaa", 1, 9), ("Aaa > Bbb", 4, 9), ("Aaa > Bbb > Ccc", 7, 9), ("Ddd", 10, 14)],
    ),
    "a new style above the deepest is none": (
        "Aaa\n===\n\nBbb\n---\n\nCcc\n===\n\nDdd\n~~~\n",
        [("Aaa", 1, 6), ("Aaa > Bbb", 4, 6), ("Ccc", 7, 11)],
    ),
    "a byte order mark hides no title": ("\ufeffTitle\n=====\n", [("Title", 1, 2)]),
    "nor an overline": ("\ufeff=====\nTitle\n=====\n", [("Title", 1, 3)]),
}


@pytest.mark.parametrize(("text", "expected"), RST_CASES.values(), ids=RST_CASES.keys())
def test_rst_sections_follow_docutils_on_odd_inputs(text: str, expected: list[tuple[str, int, int]]) -> None:
    assert rst(text) == expected


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("docs/a.md", "Intro line\nmore intro\n\n# A\n\ntext\n"),
        ("docs/a.rst", "Intro line\nmore intro\n\nTitle\n=====\n\ntext\n"),
    ],
)
def test_a_preamble_before_the_first_section_is_a_chunk_so_every_line_can_be_quoted(
    path: str, text: str
) -> None:
    graph = extract(path, text)
    assert [
        (n.kind, n.start_line, n.end_line) for n in graph.nodes if n.kind in (NODE_CHUNK, NODE_SECTION)
    ] == [
        (NODE_SECTION, 4, 6 if path.endswith(".md") else 7),
        (NODE_CHUNK, 1, 2),
    ]


def test_links_inside_an_html_comment_are_still_read() -> None:
    graph = extract("docs/a.md", "<!--\n[old](old.md)\n-->\n# A\n[new](new.md)\n")
    assert [(link.target, link.line) for link in graph.links] == [("old.md", 2), ("new.md", 5)]


def test_a_link_in_a_heading_belongs_to_its_section_and_a_fence_info_string_holds_none() -> None:
    graph = extract(
        "docs/a.md", "# See [guide](guide.md)\n\n```md [x](fence.md)\n```\nSub [api](api.md)\n---\n"
    )
    owners = {node.id: node.qualname for node in graph.nodes}
    assert [(owners[link.node_id], link.target, link.line) for link in graph.links] == [
        ("See [guide](guide.md)", "guide.md", 1),
        ("See [guide](guide.md) > Sub [api](api.md)", "api.md", 5),
    ]


def test_rst_front_matter_declares_contradicts_and_holds_no_title() -> None:
    graph = extract("docs/a.rst", "---\nab: c\ncontradicts: [docs/b.rst]\n---\nTitle\n=====\n")
    assert graph.contradicts == ["docs/b.rst"]
    assert sections(graph) == [("Title", 5, 6)]
