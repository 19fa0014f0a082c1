"""Markdown and reStructuredText sections, links, front matter; chunks; files and line geometry."""

from __future__ import annotations

import hashlib
import textwrap

import pytest

from prooftext.graph import CHUNK_LINES, NODE_CHUNK, NODE_FILE, NODE_SECTION, FileGraph
from prooftext.graph.extract import extract
from prooftext.graph.markup import MAX_TITLE_CHARS, SECTION_WINDOW_LINES


def _text(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def sections(graph: FileGraph) -> list[tuple[str, int, int]]:
    return [(n.qualname, n.start_line, n.end_line) for n in graph.nodes if n.kind == NODE_SECTION]


MARKDOWN = _text("""
    ---
    title: Design
    contradicts: [docs/old.md, "docs/older.md"]
    ---
    Intro with a [guide](guide.md#setup) and [site](https://example.com).

    # Design

    See [the API](../api/README.md "API") and [top](#design).

    ## Storage

    ```python
    # not a heading
    ```

    Details
    -------

    ![diagram](img/d.png)

    # Appendix

    [ref]: ./notes.md
""")


def test_markdown_sections_nest_by_level_and_end_before_the_next_peer() -> None:
    graph = extract("docs/design.md", MARKDOWN)
    assert graph.language == "markdown"
    assert sections(graph) == [
        ("Design", 7, 21),
        ("Design > Storage", 11, 16),
        ("Design > Details", 17, 21),  # a setext heading
        ("Appendix", 22, 24),
    ]
    storage = next(n for n in graph.nodes if n.name == "Storage")
    design = next(n for n in graph.nodes if n.name == "Design")
    assert storage.parent_id == design.id


def test_markdown_links_skip_schemes_and_anchors_and_belong_to_their_section() -> None:
    graph = extract("docs/design.md", MARKDOWN)
    names = {n.id: n.qualname for n in graph.nodes}
    assert [(names[link.node_id], link.target, link.line) for link in graph.links] == [
        ("docs/design.md", "guide.md#setup", 5),
        ("Design", "../api/README.md", 9),
        ("Design > Details", "img/d.png", 20),
        ("Appendix", "./notes.md", 24),
    ]


def test_front_matter_contradicts_in_both_list_forms() -> None:
    assert extract("docs/design.md", MARKDOWN).contradicts == ["docs/old.md", "docs/older.md"]
    block = "---\ncontradicts:\n  - a.md\n  - 'b/c.md'\nowner: x\n---\n# T\n"
    assert extract("x.md", block).contradicts == ["a.md", "b/c.md"]
    assert extract("y.md", "# no front matter\ncontradicts: [a.md]\n").contradicts == []


def test_markdown_preamble_before_the_first_heading_is_a_chunk() -> None:
    graph = extract("docs/design.md", MARKDOWN)
    chunks = [(n.start_line, n.end_line) for n in graph.nodes if n.kind == NODE_CHUNK]
    assert chunks == [(1, 5)]


RST = _text("""
    =====
    Title
    =====

    Intro, see `the guide <guide.rst>`_ and :doc:`api/index`.

    Section A
    ---------

    .. include:: snippets/a.txt

    Sub
    ~~~

    Section B
    ---------
    text
""")


def test_rst_sections_by_adornment_order() -> None:
    graph = extract("docs/index.rst", RST)
    assert sections(graph) == [
        ("Title", 1, 17),
        ("Title > Section A", 7, 14),
        ("Title > Section A > Sub", 12, 14),
        ("Title > Section B", 15, 17),
    ]
    assert [link.target for link in graph.links] == ["guide.rst", "api/index", "snippets/a.txt"]


def _titles(path: str, text: str) -> list[str]:
    return [n.name for n in extract(path, text).nodes if n.kind == NODE_SECTION]


def test_a_heading_past_the_title_limit_is_cut_at_a_word_boundary_in_markdown_and_rst() -> None:
    words = "word " * 59 + "identifier_past_the_limit tail"
    assert len(words) > MAX_TITLE_CHARS > len("word " * 59)
    expected = ("word " * 59).rstrip()
    assert _titles("a.md", f"# {words}\n") == [expected]
    assert _titles("a.rst", f"{words}\n{'=' * len(words)}\n") == [expected]


@pytest.mark.parametrize(
    ("tail", "kept"),
    [
        ("e\u0301zz", ""),  # an accent after the base letter at the limit
        ("\U0001f469\u200d\U0001f4bb", ""),  # a ZWJ emoji sequence across the limit
        ("\U0001f44d\U0001f3fdzz", ""),  # a skin tone modifier after the emoji at the limit
        ("yz" * 10, "y"),  # no sequence: exactly at the limit
    ],
)
def test_a_heading_of_one_long_token_is_cut_at_the_limit_never_inside_a_combining_sequence(
    tail: str, kept: str
) -> None:
    token = "x" * (MAX_TITLE_CHARS - 1) + tail
    assert _titles("a.md", f"# {token}\n") == ["x" * (MAX_TITLE_CHARS - 1) + kept]


def test_a_heading_that_is_one_endless_combining_sequence_keeps_the_limit_rather_than_vanish() -> None:
    assert _titles("a.md", "# a" + "\u0301" * 2 * MAX_TITLE_CHARS + "\n") == [
        "a" + "\u0301" * (MAX_TITLE_CHARS - 1)
    ]


def test_plain_text_is_chunked_in_windows_only_past_one_window() -> None:
    short = extract("notes.txt", "line\n" * CHUNK_LINES)
    assert [n.kind for n in short.nodes] == [NODE_FILE]
    long = extract("notes.txt", "".join(f"line {i}\n" for i in range(1, 2 * CHUNK_LINES + 11)))
    chunks = [(n.name, n.start_line, n.end_line) for n in long.nodes if n.kind == NODE_CHUNK]
    assert chunks == [
        ("L1-L60", 1, 60),
        ("L61-L120", 61, 120),
        ("L121-L130", 121, 130),
    ]
    assert long.language == "text"


def test_module_level_code_between_symbols_becomes_chunks() -> None:
    text = "import os\n\nX = 1\n\n\ndef f():\n    pass\n\n\nREGISTRY = {f}\n"
    graph = extract("m.py", text)
    chunks = [(n.start_line, n.end_line) for n in graph.nodes if n.kind == NODE_CHUNK]
    assert chunks == [(1, 3), (10, 10)]


def test_empty_file_has_one_file_node_with_lines_1_1() -> None:
    for path in ("empty.py", "empty.md", "empty.txt", "empty.rs"):
        graph = extract(path, "")
        assert len(graph.nodes) == 1
        node = graph.nodes[0]
        assert (node.kind, node.name, node.qualname, node.start_line, node.end_line) == (
            NODE_FILE,
            path,
            path,
            1,
            1,
        )
        assert node.text_sha256 == hashlib.sha256(b"").hexdigest()
        assert graph.edges == [] and graph.uses == []


def test_file_node_covers_every_line_and_hashes_the_whole_file() -> None:
    text = "a\nb\nc"  # no final newline: still three lines
    graph = extract("dir/x.txt", text)
    node = graph.nodes[0]
    assert (node.name, node.qualname, node.start_line, node.end_line) == ("x.txt", "dir/x.txt", 1, 3)
    assert node.text_sha256 == hashlib.sha256(text.encode()).hexdigest()
    assert extract("y.txt", "a\nb\n").nodes[0].end_line == 2


def test_symbol_text_sha256_is_over_its_exact_lines() -> None:
    text = "x = 1\ndef f():\n    return 'é'\ny = 2\n"
    node = next(n for n in extract("m.py", text).nodes if n.name == "f")
    assert node.text_sha256 == hashlib.sha256("def f():\n    return 'é'\n".encode()).hexdigest()


def test_oversized_files_and_lone_surrogates_degrade_without_raising() -> None:
    big = "def f():\n    pass\n" * 70_000  # > 1 MiB: not parsed, chunked
    graph = extract("big.py", big)
    assert {n.kind for n in graph.nodes} == {NODE_FILE, NODE_CHUNK}
    odd = extract("odd.md", "# Title \ud800\ntext\n")
    assert [n.kind for n in odd.nodes] == [NODE_FILE, NODE_SECTION]


def _windows(graph: FileGraph) -> list[tuple[str, int, int]]:
    return [(n.qualname, n.start_line, n.end_line) for n in graph.nodes if n.kind == NODE_CHUNK]


def test_a_long_section_is_also_cut_into_windows_ending_before_a_blank_line() -> None:
    paragraphs = ["line one\nline two\nline three\n", "alpha\nbeta\ngamma\ndelta\n", "tail\n"]
    text = "# Config\n" + "\n".join(paragraphs) + "## Keys\nshort\n"
    graph = extract("docs/config.md", text)
    assert sections(graph) == [("Config", 1, 13), ("Config > Keys", 12, 13)]
    # The section's own lines are 1..11; windows stop before the subsection and end at a blank line.
    assert _windows(graph) == [("Config > L1-L5", 1, 5), ("Config > L6-L11", 6, 11)]
    assert all(end - start + 1 <= SECTION_WINDOW_LINES for _, start, end in _windows(graph))


def test_a_window_of_blank_lines_only_is_no_node() -> None:
    text = "# Rungs\n" + "".join(f"line {n}\n" for n in range(SECTION_WINDOW_LINES - 1)) + "\n\n## Next\nx\n"
    windows = _windows(extract("docs/notes.md", text))
    assert [(s, e) for _, s, e in windows] == [(1, SECTION_WINDOW_LINES)]  # not the blank lines after it


def test_a_section_of_at_most_one_window_gets_none_and_a_long_rst_section_gets_them_too() -> None:
    assert _windows(extract("docs/short.md", "# Short\n" + "text\n" * (SECTION_WINDOW_LINES - 1))) == []
    rst = "Title\n=====\n\n" + "".join(f"sentence {n}\n" for n in range(12))
    windows = _windows(extract("docs/long.rst", rst))
    assert [(s, e) for _, s, e in windows] == [(1, 8), (9, 15)]
