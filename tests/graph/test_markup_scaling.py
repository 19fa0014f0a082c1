"""Markdown headings and front matter are read in time linear in a line.

A lazy ``(.*?)`` followed by a trailing ``[ \\t]*$`` rescanned the run of blanks at every step, and the
closing-``#`` regex did the same from every blank: 40 000 blanks in a heading took 34 s, and these inputs
are ten times longer, so a regression hangs the run instead of passing quietly. The regexes that were
replaced are kept below as the reference for the exact text on small random lines.
"""

from __future__ import annotations

import random
import re

from prooftext.graph import markup
from prooftext.graph.markup import extract_markdown

BLANKS = 400_000
SEED = 20_240_601
LINES = 50_000
PIECES = (" ", "\t", "#", "##", "a", "x y", "\r", "-", ":", "   ")

OLD_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
OLD_ATX_CLOSE = re.compile(r"(?:^|[ \t]+)#+$")
OLD_CONTRADICTS = re.compile(r"^contradicts[ \t]*:[ \t]*(.*?)[ \t]*$")
OLD_LIST_ITEM = re.compile(r"^[ \t]*-[ \t]+(.*?)[ \t]*$")


def _extract(text: str) -> tuple[list[tuple[str, int]], list[str]]:
    drafts = extract_markdown(text, text.count("\n") + 1)
    return [(node.name, node.start_line) for node in drafts.nodes], drafts.contradicts


def test_a_heading_with_a_huge_run_of_blanks_inside_keeps_its_title() -> None:
    title = "a" + " " * BLANKS + "x"
    names, _ = _extract(f"# {title}\n\nbody\n")
    assert names == [("a", 1)]  # cut at the blank that ends the last whole word within the limit


def test_a_closing_sequence_after_a_huge_run_of_blanks_is_dropped() -> None:
    title = "a" + " " * BLANKS + "x"
    line = f"## {title}{' ' * BLANKS}##{' ' * BLANKS}"
    names, _ = _extract(line + "\n")
    assert names == [("a", 1)]
    assert markup._atx(line) == (2, title)


VALUE = "docs/a" + " " * BLANKS + "x.md"


def test_an_inline_contradicts_value_with_a_huge_run_of_blanks_inside_is_read_whole() -> None:
    assert _extract(f"---\ncontradicts: {VALUE}  \n---\n# t\n") == ([("t", 4)], [VALUE])


def test_a_listed_contradicts_value_with_a_huge_run_of_blanks_inside_is_read_whole() -> None:
    assert _extract(f"---\ncontradicts:\n  - {VALUE}\t\n---\n")[1] == [VALUE]


def test_headings_and_front_matter_values_equal_the_replaced_regexes() -> None:
    rng = random.Random(SEED)
    headings = 0
    for _ in range(LINES):
        line = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 12)))
        old = OLD_ATX.match(line)
        expected = None if old is None else (len(old.group(1)), OLD_ATX_CLOSE.sub("", old.group(2) or ""))
        assert markup._atx(line) == expected, repr(line)
        headings += expected is not None
        for key in ("contradicts", "contradicts \t", "contradict"):
            keyed = key + line.replace("#", ":")
            old = OLD_CONTRADICTS.match(keyed)
            assert _value(markup._CONTRADICTS, keyed) == (old and old.group(1)), repr(keyed)
        old = OLD_LIST_ITEM.match(line)
        assert _value(markup._LIST_ITEM, line) == (old and old.group(1)), repr(line)
    assert headings > LINES // 20


def _value(opening: re.Pattern[str], line: str) -> str | None:
    found = opening.match(line)
    return None if found is None else line[found.end() :].strip(" \t")
