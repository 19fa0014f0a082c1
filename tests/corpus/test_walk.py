from __future__ import annotations

import errno
import importlib
import os
from pathlib import Path

import pytest

from prooftext.corpus.config import CorpusConfig
from prooftext.corpus.model import Exclusion, FileStat
from prooftext.corpus.walk import walk
from prooftext.errors import RootError, RootMissingError, RootNotDirectoryError, RootUnreadableError

from .conftest import MakeTree

HUNDRED_MB = 100 * 1024 * 1024
# ``prooftext.corpus.walk`` the attribute is the function; the module is patched through sys.modules.
walk_module = importlib.import_module("prooftext.corpus.walk")


def reasons(root: Path, config: CorpusConfig | None = None) -> dict[str, str]:
    return {e.path: e.reason for e in walk(root, config or CorpusConfig()).excluded}


def test_a_missing_root_raises_root_missing(tmp_path: Path) -> None:
    with pytest.raises(RootMissingError) as info:
        walk(tmp_path / "absent", CorpusConfig())
    assert info.value.code == "root_missing"


def test_a_root_that_is_a_file_raises_root_not_directory(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(RootNotDirectoryError) as info:
        walk(tmp_path / "file", CorpusConfig())
    assert info.value.code == "root_not_directory"


def test_a_root_that_exists_but_cannot_be_opened_raises_root_unreadable(tmp_path: Path) -> None:
    """A loop of links stands for every root that is there but cannot be opened (no permission too)."""
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    with pytest.raises(RootUnreadableError) as info:
        walk(tmp_path / "loop", CorpusConfig())
    assert info.value.code == "root_unreadable" and "cannot be opened" in info.value.message


def test_candidates_are_sorted_by_portable_path_with_their_lstat(make_tree: MakeTree) -> None:
    root = make_tree({"b.py": "bb", "a/z.py": "z", "a-b.py": "", "A.md": "abc"})
    result = walk(root, CorpusConfig())
    assert [s.path for s in result.stats] == ["A.md", "a-b.py", "a/z.py", "b.py"]
    st = os.lstat(root / "b.py")
    assert result.stats[-1] == FileStat("b.py", 2, st.st_mtime_ns, st.st_ino, st.st_nlink, st.st_ctime_ns)
    assert result.excluded == []


def test_a_symlink_to_a_file_or_directory_inside_the_root_is_excluded_with_reason_symlink(
    make_tree: MakeTree,
) -> None:
    root = make_tree({"real/a.py": "x"})
    os.symlink("real/a.py", root / "link.py")
    os.symlink("real", root / "linkdir")
    assert reasons(root) == {"link.py": "symlink", "linkdir": "symlink"}


def test_a_symlink_escaping_the_root_is_excluded_with_reason_symlink(
    make_tree: MakeTree, tmp_path: Path
) -> None:
    root = make_tree({"a.py": ""})
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("s")
    os.symlink(tmp_path / "outside" / "secret.txt", root / "escape.txt")
    os.symlink("../outside", root / "escape_dir")
    result = walk(root, CorpusConfig())
    assert [s.path for s in result.stats] == ["a.py"]
    assert reasons(root) == {"escape.txt": "symlink", "escape_dir": "symlink"}


def test_a_symlink_loop_is_excluded_with_reason_symlink(make_tree: MakeTree) -> None:
    root = make_tree({"a.py": ""})
    os.symlink("loop_b", root / "loop_a")
    os.symlink("loop_a", root / "loop_b")
    os.symlink(".", root / "self")
    assert reasons(root) == {"loop_a": "symlink", "loop_b": "symlink", "self": "symlink"}


def test_a_fifo_is_excluded_with_reason_not_regular(make_tree: MakeTree) -> None:
    root = make_tree({"a.py": ""})
    os.mkfifo(root / "pipe")
    assert reasons(root) == {"pipe": "not_regular"}


def test_a_sparse_100_mb_file_is_excluded_by_size_without_being_opened(
    make_tree: MakeTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_tree({"a.py": ""})
    with open(root / "huge.bin", "wb") as handle:
        handle.truncate(HUNDRED_MB)
    real_open = os.open

    def guarded_open(path: object, *args: object, **kwargs: object) -> int:
        assert path != "huge.bin", "the walk must not open a file it excludes by size"
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(walk_module.os, "open", guarded_open)
    result = walk(root, CorpusConfig())
    assert result.excluded == [Exclusion("huge.bin", "size", f"{HUNDRED_MB} bytes > limit 1048576")]


def test_a_file_exactly_at_the_size_limit_is_a_candidate(make_tree: MakeTree) -> None:
    root = make_tree({"at.txt": b"x" * 10, "over.txt": b"x" * 11})
    result = walk(root, CorpusConfig(max_file_bytes=10))
    assert [s.path for s in result.stats] == ["at.txt"]
    assert [(e.path, e.reason) for e in result.excluded] == [("over.txt", "size")]


def test_files_past_the_total_limit_in_sorted_order_are_excluded_with_reason_total_size(
    make_tree: MakeTree,
) -> None:
    root = make_tree({"a.txt": b"a" * 4, "b.txt": b"b" * 4, "c.txt": b"c" * 4, "d.txt": b"d" * 1})
    result = walk(root, CorpusConfig(max_total_bytes=9))
    assert [s.path for s in result.stats] == ["a.txt", "b.txt", "d.txt"]
    assert [(e.path, e.reason) for e in result.excluded] == [("c.txt", "total_size")]
    assert sum(s.size for s in result.stats) <= 9


def test_names_that_are_not_portable_are_excluded_with_reason_path_not_portable(make_tree: MakeTree) -> None:
    root = make_tree({"ok_ünïcode.md": "fine"})
    for raw in (b"bad_\xff.txt", b"ctl_\x01.txt", b"back\\slash.txt"):
        with open(os.path.join(os.fsencode(root), raw), "wb") as handle:
            handle.write(b"x")
    os.mkdir(os.path.join(os.fsencode(root), b"dir_\xfe"))
    with open(os.path.join(os.fsencode(root), b"dir_\xfe", b"inner.txt"), "wb") as handle:
        handle.write(b"x")
    result = walk(root, CorpusConfig())
    assert [s.path for s in result.stats] == ["ok_ünïcode.md"]
    assert {(e.path, e.reason) for e in result.excluded} == {
        ("bad_\\xff.txt", "path_not_portable"),
        ("ctl_\\x01.txt", "path_not_portable"),
        ("back\\x5cslash.txt", "path_not_portable"),
        ("dir_\\xfe", "path_not_portable"),
    }


def test_an_unreadable_directory_is_excluded_with_reason_unreadable(
    make_tree: MakeTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_tree({"locked/a.py": "", "open/b.py": ""})
    real_open = os.open

    def denying_open(path: object, *args: object, **kwargs: object) -> int:
        if path == "locked":
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(walk_module.os, "open", denying_open)
    result = walk(root, CorpusConfig())
    assert [s.path for s in result.stats] == ["open/b.py"]
    assert result.excluded == [Exclusion("locked", "unreadable", os.strerror(errno.EACCES))]


@pytest.mark.skipif(
    os.geteuid() == 0, reason="root bypasses directory permissions; the monkeypatch variant covers it"
)
def test_a_directory_without_permissions_is_excluded_with_reason_unreadable(make_tree: MakeTree) -> None:
    root = make_tree({"locked/a.py": ""})
    (root / "locked").chmod(0)
    try:
        assert reasons(root) == {"locked": "unreadable"}
    finally:
        (root / "locked").chmod(0o755)


def test_a_root_that_cannot_be_listed_is_a_root_error(
    make_tree: MakeTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_tree({"a.py": ""})

    def failing_scandir(fd: int) -> object:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(walk_module.os, "scandir", failing_scandir)
    with pytest.raises(RootError):
        walk(root, CorpusConfig())


def test_a_tree_deeper_than_the_walk_limit_is_cut_with_one_exclusion(
    make_tree: MakeTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(walk_module, "MAX_WALK_DEPTH", 2)
    root = make_tree({"a/b/c/d.py": "", "a/x.py": ""})
    result = walk(root, CorpusConfig())
    assert [s.path for s in result.stats] == ["a/x.py"]
    assert [(e.path, e.reason) for e in result.excluded] == [("a/b/c", "path_not_portable")]


def test_two_walks_of_the_same_tree_are_equal(make_tree: MakeTree) -> None:
    root = make_tree({f"d{i % 3}/f{i}.py": str(i) for i in range(30)})
    os.symlink("d0", root / "link")
    assert walk(root, CorpusConfig()) == walk(root, CorpusConfig())


def test_a_walk_reads_a_gitignore_only_in_directories_that_list_one(
    make_tree: MakeTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_tree({"a/x.py": "", "b/.gitignore": "*.log\n", "b/y.log": "", "b/c/z.py": ""})
    opened: list[str] = []
    real = walk_module.load_gitignore

    def recorded(fd: int, directory: str) -> str | None:
        opened.append(directory)
        return real(fd, directory)

    monkeypatch.setattr(walk_module, "load_gitignore", recorded)
    assert reasons(root) == {"b/y.log": "ignored"}
    assert opened == ["b"]
