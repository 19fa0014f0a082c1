from __future__ import annotations

import pytest

from prooftext.corpus.lines import LineText, count_lines, count_text_lines, line_slice
from prooftext.errors import RangeError


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"", 0),
        (b"\n", 1),
        (b"a", 1),
        (b"a\n", 1),
        (b"a\nb", 2),
        (b"a\nb\n", 2),
        (b"a\r\nb\r\n", 2),
        (b"a\rb\x0cc\xe2\x80\xa8d", 1),
    ],
)
def test_a_line_ends_only_at_newline_and_a_final_unterminated_line_counts(data: bytes, expected: int) -> None:
    assert count_lines(data) == expected
    assert count_text_lines(data.decode("utf-8")) == expected


def test_a_slice_keeps_line_endings_and_is_one_based_inclusive() -> None:
    text = "one\r\ntwo\nthree"
    assert line_slice(text, 1, 1) == "one\r\n"
    assert line_slice(text, 2, 3) == "two\nthree"
    assert line_slice(text, 1, 3) == text


def test_slices_of_consecutive_ranges_concatenate_to_the_source() -> None:
    text = "a\nb\u2028still b\nc\n"
    assert count_text_lines(text) == 3
    assert line_slice(text, 1, 1) + line_slice(text, 2, 3) == text


@pytest.mark.parametrize(("start", "end"), [(0, 1), (0, -1), (3, 1), (1, 4), (4, 4), (5, 4)])
def test_a_slice_outside_the_text_is_a_range_error(start: int, end: int) -> None:
    with pytest.raises(RangeError) as info:
        line_slice("a\nb\nc", start, end)
    assert info.value.field == "line_range"


def test_an_empty_text_has_no_line_to_slice_but_the_empty_range_is_allowed() -> None:
    with pytest.raises(RangeError):
        line_slice("", 1, 1)
    assert line_slice("", 1, 0) == ""
    assert line_slice("a\nb\n", 2, 1) == ""


@pytest.mark.parametrize("text", ["", "a", "a\n", "one\r\ntwo\nthree", "x\n\ny\n", "\n\n"])
def test_a_split_text_slices_and_counts_as_the_one_definition_does(text: str) -> None:
    lines = LineText(text)
    assert lines.count == count_text_lines(text)
    for start in range(1, lines.count + 1):
        for end in range(start, lines.count + 1):
            assert lines.slice(start, end) == line_slice(text, start, end)
