from __future__ import annotations

import errno
import hashlib
import os
from pathlib import Path

import pytest

from prooftext.corpus.config import CorpusConfig
from prooftext.corpus.labels import LabelRule
from prooftext.corpus.model import Exclusion, FileStat, Labels, SourceFile
from prooftext.corpus.read import read_bytes_checked, read_source
from prooftext.errors import PathOutsideRootError, RootMissingError, SourceMissingError, SourceUnreadableError

from .conftest import MakeTree

CONFIG = CorpusConfig()


def stat_of(root: Path, rel: str) -> FileStat:
    st = os.lstat(root / rel)
    return FileStat(rel, st.st_size, st.st_mtime_ns, st.st_ino)


def read(root: Path, rel: str, config: CorpusConfig = CONFIG) -> SourceFile | Exclusion:
    return read_source(root, stat_of(root, rel), config)


def test_a_utf8_file_is_adopted_with_digest_lines_kind_and_labels(make_tree: MakeTree) -> None:
    data = "def f():\r\n    return 'é'\n# no newline".encode()
    root = make_tree({"pkg/mod.py": data})
    config = CorpusConfig(label_rules=(LabelRule(glob="pkg/**", sensitivity="public"),))
    source = read(root, "pkg/mod.py", config)
    assert isinstance(source, SourceFile)
    assert source.text == data.decode()
    assert source.sha256 == hashlib.sha256(data).hexdigest()
    assert (source.line_count, source.kind, source.size) == (3, "code", len(data))
    assert source.labels == Labels(sensitivity="public")


def test_an_empty_file_has_zero_lines(make_tree: MakeTree) -> None:
    source = read(make_tree({"__init__.py": ""}), "__init__.py")
    assert isinstance(source, SourceFile)
    assert (source.text, source.line_count) == ("", 0)


def test_a_nul_byte_in_the_first_8000_bytes_excludes_the_file_as_binary(make_tree: MakeTree) -> None:
    root = make_tree({"early.bin": b"abc\0def", "late.txt": b"a" * 8000 + b"\0"})
    assert read(root, "early.bin") == Exclusion("early.bin", "binary", "NUL byte in the first 8000 bytes")
    late = read(root, "late.txt")
    assert isinstance(late, SourceFile) and late.text.endswith("\0")


def test_a_non_utf8_file_is_excluded_with_reason_encoding(make_tree: MakeTree) -> None:
    root = make_tree({"latin1.txt": "café".encode("latin-1"), "lone.txt": b"\xed\xa0\x80"})
    assert read(root, "latin1.txt") == Exclusion("latin1.txt", "encoding", "not UTF-8 at byte 3")
    outcome = read(root, "lone.txt")
    assert isinstance(outcome, Exclusion) and outcome.reason == "encoding"


def test_a_symlink_in_the_middle_of_the_path_is_excluded_with_reason_symlink(
    make_tree: MakeTree, tmp_path: Path
) -> None:
    root = make_tree({"real/a.py": "x"})
    stat = stat_of(root, "real/a.py")
    (root / "real").rename(root / "moved")
    os.symlink("moved", root / "real")
    outcome = read_source(root, stat, CONFIG)
    assert isinstance(outcome, Exclusion) and outcome.reason == "symlink"
    assert outcome.detail.startswith("directory real: ")


def test_a_leaf_replaced_by_a_symlink_after_the_walk_is_excluded_with_reason_symlink(
    make_tree: MakeTree,
) -> None:
    root = make_tree({"a.py": "x", "b.py": "y"})
    stat = stat_of(root, "a.py")
    (root / "a.py").unlink()
    os.symlink("b.py", root / "a.py")
    outcome = read_source(root, stat, CONFIG)
    assert isinstance(outcome, Exclusion) and outcome.reason == "symlink"


def test_a_leaf_replaced_by_a_fifo_is_excluded_with_reason_not_regular_without_blocking(
    make_tree: MakeTree,
) -> None:
    root = make_tree({"a.py": "x"})
    stat = stat_of(root, "a.py")
    (root / "a.py").unlink()
    os.mkfifo(root / "a.py")
    assert read_source(root, stat, CONFIG) == Exclusion("a.py", "not_regular", "not a regular file")


def test_a_file_that_differs_from_the_walk_stat_is_excluded_with_reason_changed(make_tree: MakeTree) -> None:
    root = make_tree({"a.py": "x"})
    stat = stat_of(root, "a.py")
    (root / "a.py").write_text("xy")
    assert read_source(root, stat, CONFIG) == Exclusion("a.py", "changed", "changed since the walk")


def test_a_file_that_changes_while_it_is_read_is_excluded_with_reason_changed(
    make_tree: MakeTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_tree({"a.py": "original\n"})
    stat = stat_of(root, "a.py")
    real_read = os.read

    appended: list[bool] = []

    def read_then_append(fd: int, n: int) -> bytes:
        data = real_read(fd, n)
        if not appended:  # another writer appends once, after the first chunk was read
            appended.append(True)
            with open(root / "a.py", "ab") as other_writer:
                other_writer.write(b"appended\n")
        return data

    monkeypatch.setattr(os, "read", read_then_append)
    assert read_source(root, stat, CONFIG) == Exclusion("a.py", "changed", "changed while it was read")


def test_a_file_grown_past_the_limit_since_the_walk_is_excluded_with_reason_size(make_tree: MakeTree) -> None:
    root = make_tree({"a.txt": b"x" * 8})
    stat = stat_of(root, "a.txt")
    outcome = read_source(root, stat, CorpusConfig(max_file_bytes=4))
    assert outcome == Exclusion("a.txt", "size", "8 bytes > limit 4")


def test_a_file_that_vanished_is_excluded_with_reason_unreadable(make_tree: MakeTree) -> None:
    root = make_tree({"a.py": "x"})
    stat = stat_of(root, "a.py")
    (root / "a.py").unlink()
    assert read_source(root, stat, CONFIG) == Exclusion("a.py", "unreadable", os.strerror(errno.ENOENT))


@pytest.mark.parametrize("err", [errno.EACCES, errno.EIO])
def test_permission_denied_or_io_error_on_open_is_excluded_with_reason_unreadable(
    make_tree: MakeTree, monkeypatch: pytest.MonkeyPatch, err: int
) -> None:
    root = make_tree({"a.py": "x"})
    stat = stat_of(root, "a.py")
    real_open = os.open

    def failing_open(path: object, *args: object, **kwargs: object) -> int:
        if path == "a.py":
            raise OSError(err, os.strerror(err))
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", failing_open)
    assert read_source(root, stat, CONFIG) == Exclusion("a.py", "unreadable", os.strerror(err))


def test_an_io_error_while_reading_is_excluded_with_reason_unreadable(
    make_tree: MakeTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_tree({"a.py": "x"})
    stat = stat_of(root, "a.py")

    def failing_read(fd: int, n: int) -> bytes:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(os, "read", failing_read)
    assert read_source(root, stat, CONFIG) == Exclusion("a.py", "unreadable", os.strerror(errno.EIO))


@pytest.mark.skipif(
    os.geteuid() == 0, reason="root bypasses file permissions; the monkeypatch variant covers it"
)
def test_a_file_without_read_permission_is_excluded_with_reason_unreadable(make_tree: MakeTree) -> None:
    root = make_tree({"a.py": "x"})
    (root / "a.py").chmod(0)
    outcome = read(root, "a.py")
    assert isinstance(outcome, Exclusion) and outcome.reason == "unreadable"


def test_read_bytes_checked_returns_the_complete_bytes(make_tree: MakeTree) -> None:
    root = make_tree({"docs/a.md": b"# A\n"})
    assert read_bytes_checked(root, "docs/a.md", 100) == b"# A\n"


@pytest.mark.parametrize("path", ["../outside.txt", "/etc/passwd", "a/../../x", "a\\b"])
def test_read_bytes_checked_refuses_a_path_outside_the_root(make_tree: MakeTree, path: str) -> None:
    root = make_tree({"a.md": "x"})
    with pytest.raises(PathOutsideRootError) as info:
        read_bytes_checked(root, path, 100)
    assert info.value.details["reason"] == "path_not_portable"


def test_read_bytes_checked_reports_a_missing_source(make_tree: MakeTree) -> None:
    root = make_tree({"a.md": "x"})
    with pytest.raises(SourceMissingError) as info:
        read_bytes_checked(root, "gone/b.md", 100)
    assert info.value.details["reason"] == "unreadable"


def test_read_bytes_checked_refuses_symlinks_and_oversized_files(make_tree: MakeTree) -> None:
    root = make_tree({"a.md": "0123456789"})
    os.symlink("a.md", root / "link.md")
    with pytest.raises(SourceUnreadableError) as info:
        read_bytes_checked(root, "link.md", 100)
    assert info.value.details["reason"] == "symlink"
    with pytest.raises(SourceUnreadableError) as info:
        read_bytes_checked(root, "a.md", 9)
    assert info.value.details["reason"] == "size"


def test_read_bytes_checked_of_a_missing_root_is_a_root_error(tmp_path: Path) -> None:
    with pytest.raises(RootMissingError):
        read_bytes_checked(tmp_path / "absent", "a.md", 100)
