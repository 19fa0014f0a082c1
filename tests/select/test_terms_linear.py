"""Reading a query takes time linear in its length: no pattern backtracks over a long run of one kind of
character, and the identifiers read are those of the patterns' plain spellings."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import prooftext
from prooftext.select.terms import _CAMEL, _SNAKE, analyze

QUERY_LIMIT = 65_536
"""The longest query a request may carry."""

# The spellings before they were made linear: the same languages, with nested or overlapping quantifiers.
_CAMEL_NESTED = re.compile(r"\b([A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+|[a-z]+[A-Z][A-Za-z0-9]*)\b")
_SNAKE_OVERLAPPING = re.compile(r"\b([A-Za-z0-9]*[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+)\b")

ADVERSARIAL = {
    "capitals before a letter that is not ASCII": "Ab" + "C" * 60 + "é",
    "one letter": "x" * QUERY_LIMIT,
    "hexadecimal": ("deadbeef0123456789abcdef" * QUERY_LIMIT)[:QUERY_LIMIT],
    "words and underscores": ("a_" * QUERY_LIMIT)[: QUERY_LIMIT - 1] + "é",
    "a dotted name of many parts": ("a." * QUERY_LIMIT)[: QUERY_LIMIT - 1] + "é",
    "words and hyphens": ("a-" * QUERY_LIMIT)[: QUERY_LIMIT - 1] + "é",
    "slashes and hyphens": ("a/-" * QUERY_LIMIT)[:QUERY_LIMIT],
}


@pytest.mark.parametrize("text", ADVERSARIAL.values(), ids=ADVERSARIAL.keys())
def test_a_long_run_of_one_kind_of_character_is_read_in_linear_time(text: str) -> None:
    # With the nested spelling the first case takes about 2**60 steps, and the others minutes: the test
    # would not finish.
    analysis = analyze(text)
    assert len(analysis.paths) <= len(text)


def test_a_dotted_name_of_many_parts_is_ranked_without_joining_every_suffix(tmp_path: Path) -> None:
    # Each of its 20,000 suffixes joined and looked up took minutes; the module it ends in is still found.
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "b.py").write_text("def b():\n    return 1\n")
    with prooftext.open(tmp_path) as index:
        hits = index.search("a." * 20_000 + "a.b")
    assert [hit["path"] for hit in hits][:1] == ["a/b.py"]


_WORDS = st.text(alphabet="aZ9_é-. ", max_size=14)


@settings(max_examples=400, deadline=None)
@given(_WORDS)
def test_camel_case_reads_what_its_nested_spelling_read(text: str) -> None:
    assert _CAMEL.findall(text) == _CAMEL_NESTED.findall(text)


@settings(max_examples=400, deadline=None)
@given(_WORDS)
def test_snake_case_reads_what_its_overlapping_spelling_read(text: str) -> None:
    assert _SNAKE.findall(text) == _SNAKE_OVERLAPPING.findall(text)
