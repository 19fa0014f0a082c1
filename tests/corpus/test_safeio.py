from __future__ import annotations

import os
from pathlib import Path

import pytest

from prooftext.corpus import safeio
from prooftext.corpus.model import REASON_PATH
from prooftext.corpus.safeio import (
    Refusal,
    display_name,
    name_problem,
    open_root,
    read_below,
    read_bounded,
    source_error,
    split_portable,
)
from prooftext.errors import ArtifactError, LimitError


@pytest.mark.parametrize("name", ["a.py", "Ünïcode.md", "with space.txt", "日本語.txt", ".hidden"])
def test_a_valid_utf8_name_without_controls_is_portable(name: str) -> None:
    assert name_problem(name) is None


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("a\\b", "backslash"),
        ("a\x01b", "control"),
        ("a\x7fb", "control"),
        ("a\u2028b", "control"),
        ("bad\udcff", "UTF-8"),
        ("..", "plain"),
        ("", "plain"),
    ],
)
def test_a_name_with_a_backslash_control_or_undecodable_byte_is_not_portable(name: str, problem: str) -> None:
    found = name_problem(name)
    assert found is not None and problem in found


def test_a_non_portable_name_is_displayed_without_raw_bytes() -> None:
    assert display_name("bad\udcff\x01.txt") == "bad\\xff\\x01.txt"
    assert display_name("a\u2028b") == "a\\u2028b"
    assert display_name("fine.txt") == "fine.txt"


@pytest.mark.parametrize("path", ["/etc/passwd", "a/../b", "../x", "a//b", "a/./b", "", "a\\b", "a/"])
def test_a_path_that_is_not_portable_and_relative_is_refused(path: str) -> None:
    with pytest.raises(Refusal) as info:
        split_portable(path)
    assert info.value.reason == REASON_PATH


def test_a_portable_relative_path_splits_into_components() -> None:
    assert split_portable("src/pkg/mod.py") == ["src", "pkg", "mod.py"]


def test_a_read_refused_at_a_symbolic_link_says_so_with_its_remedy(tmp_path: Path) -> None:
    """``turn --attach link``: the errno's "too many levels of symbolic links" would mislead."""
    (tmp_path / "real.txt").write_text("x\n")
    (tmp_path / "link").symlink_to("real.txt")
    root_fd = open_root(tmp_path)
    try:
        with pytest.raises(Refusal) as caught:
            read_below(root_fd, "link", 1024)
    finally:
        os.close(root_fd)
    error = source_error(caught.value, "link")
    assert error.code == "source_unreadable" and error.details["reason"] == "symlink"
    assert (
        error.message
        == "link: a symbolic link (symbolic links are never followed; index the target where it lives)"
    )


def _append_after_first_stat(monkeypatch: pytest.MonkeyPatch, target: Path, extra: bytes) -> None:
    """Another writer appends ``extra`` to ``target`` just after the reader's first look at its size."""
    real_fstat = safeio.os.fstat
    done: list[bool] = []

    def fstat_then_append(fd: int) -> os.stat_result:
        found = real_fstat(fd)
        if not done:
            done.append(True)
            with target.open("ab") as handle:
                handle.write(extra)
        return found

    monkeypatch.setattr(safeio.os, "fstat", fstat_then_append)


def test_read_bounded_never_returns_more_than_its_cap_when_the_file_grows_past_it_during_the_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "packet.json"
    target.write_bytes(b"x" * 100)
    _append_after_first_stat(monkeypatch, target, b"y" * 50)
    with pytest.raises(LimitError) as caught:
        read_bounded(target, 120, "packet file")
    assert "grew past 120 bytes while it was read" in str(caught.value)
    assert caught.value.details["path"] == str(target)


def test_read_bounded_refuses_a_file_that_changes_under_its_cap_while_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "claims.json"
    target.write_bytes(b"x" * 100)
    _append_after_first_stat(monkeypatch, target, b"y" * 10)
    with pytest.raises(ArtifactError) as caught:
        read_bounded(target, 1000, "claims file")
    assert "changed while it was read" in str(caught.value)


def test_read_bounded_reads_a_file_exactly_at_its_cap(tmp_path: Path) -> None:
    target = tmp_path / "export.jsonl"
    target.write_bytes(b"z" * 64)
    assert read_bounded(target, 64) == b"z" * 64
