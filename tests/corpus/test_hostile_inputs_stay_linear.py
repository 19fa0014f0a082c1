"""Hostile text never makes a pattern or a scanner backtrack: each case below took minutes or more with
backtracking regular expressions (a `.gitignore` glob, a Markdown heading, a private-key fragment) and is
linear now. The inputs are sized so that a regression hangs the test run instead of passing quietly."""

from __future__ import annotations

from prooftext.corpus.ignore import PatternSet
from prooftext.corpus.secrets import redact_text
from prooftext.graph.markup import extract_markdown

STARS = 14
"""``*a`` repeated this often: each repetition multiplied a backtracking match's time by about five."""
LONG_NAME = "a" * 250
BLANKS = 100_000
"""A run of blanks this long took hours where a lazy group was followed by a trailing-blank class."""


def test_a_glob_of_many_stars_against_a_long_name_is_decided_at_once() -> None:
    patterns = PatternSet.from_lines(["*a" * STARS + "*b", "!keep-*a*a*a*a*b"])
    assert patterns.check(LONG_NAME, False) is None
    assert patterns.check(LONG_NAME + "b", False) is True
    assert patterns.check(f"dir/{LONG_NAME}b", False) is True


def test_a_heading_with_a_huge_run_of_blanks_keeps_its_title() -> None:
    text = "# title" + " " * BLANKS + "end\n\nbody\n"
    (section,) = extract_markdown(text, text.count("\n")).nodes
    assert section.start_line == 1 and section.name.startswith("title")  # cut at the longest title kept


def test_a_key_fragment_line_with_a_huge_run_of_blanks_is_scanned_at_once() -> None:
    text = "marker\n" + "A" * 16 + " " * BLANKS + "X\n-----END PRIVATE KEY-----\n"
    assert redact_text(text, "notes.txt").startswith("marker\n")
