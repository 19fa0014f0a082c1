"""A root's error names the root as given, with control characters and undecodable bytes written out, so
the one-line error of the command line stays one line and no escape sequence reaches the terminal."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from prooftext.corpus.safeio import existing_directory, open_root
from prooftext.errors import RootError, RootMissingError, RootNotDirectoryError


@pytest.mark.parametrize("opener", [existing_directory, open_root], ids=["existing_directory", "open_root"])
def test_a_missing_root_with_a_newline_and_an_escape_is_named_on_one_printable_line(
    tmp_path: Path, opener: Callable[[Path], object]
) -> None:
    root = tmp_path / "repo\nfake: line\x1b[31m"
    with pytest.raises(RootMissingError) as info:
        opener(root)
    message = info.value.message
    assert "\n" not in message and "\x1b" not in message
    assert message.endswith("repo\\x0afake: line\\x1b[31m")
    assert info.value.details["root"] == message.split(": ", 1)[1]


def test_a_root_below_a_file_with_an_undecodable_byte_is_named_with_the_byte_written_out(
    tmp_path: Path,
) -> None:
    afile = Path(os.fsdecode(os.path.join(os.fsencode(tmp_path), b"f\xff")))
    afile.write_text("x")
    with pytest.raises(RootNotDirectoryError) as info:
        existing_directory(afile)
    assert info.value.message == f"root is a file, not a directory: {tmp_path}/f\\xff"


def test_a_plain_root_with_a_backslash_or_an_accent_is_named_as_it_is(tmp_path: Path) -> None:
    root = tmp_path / "caf\u00e9 \\ dir"
    with pytest.raises(RootError) as info:
        existing_directory(root)
    assert info.value.message == f"root does not exist: {root}"
