"""Catalogue A: paths and locators, through the index walk and through requests (API, CLI, verify).

Reason codes are prooftext's (README "Every file that is not indexed ..."): RELIABILITY.md's suggested names
map to them as ``vcs_internal`` → ``internal``, ``non_utf8_path`` → ``path_not_portable``,
``not_regular_file`` → ``not_regular``, ``permission_denied``/``vanished`` → ``unreadable``,
``changed_during_read`` → ``changed``, ``too_large`` → ``size``.
"""

from __future__ import annotations

import errno
import importlib
import json
import os
import socket
import unicodedata
from pathlib import Path
from typing import Any

import pytest

import prooftext
from helpers import tmpfs
from prooftext import Query
from prooftext.corpus import safeio
from prooftext.corpus.config import CorpusConfig
from prooftext.corpus.model import Exclusion, FileStat, SourceFile
from prooftext.corpus.read import read_source
from prooftext.corpus.scan import scan
from prooftext.errors import ProoftextError
from prooftext.pack.verify import BIT_DIGEST, BIT_IO, BIT_SOURCE, verify_packet

from .conftest import Cli, Figure, MakeTree, error_code, packet_json
from .fakes import fake_secrets, pem_block


def _reasons(root: Path) -> dict[str, str]:
    result = scan(root)
    return {e.path: e.reason for e in result.excluded}


def _sources(root: Path) -> list[str]:
    return [s.path for s in scan(root).sources]


def _stat(root: Path, rel: str) -> FileStat:
    st = os.lstat(root / rel)
    return FileStat(rel, st.st_size, st.st_mtime_ns, st.st_ino)


# --- the walk ------------------------------------------------------------------------------------------


def test_A01_symlink_to_a_file_outside_is_excluded_and_never_read(
    make_tree: MakeTree, tmp_path: Path
) -> None:
    root = make_tree({"a.py": "x = 1\n"})
    (tmp_path / "outside.txt").write_text("OUTSIDE-CONTENT\n")
    os.symlink(tmp_path / "outside.txt", root / "link.txt")
    assert _reasons(root) == {"link.txt": "symlink"}
    with prooftext.open(root) as index:
        index.refresh()
        assert b"OUTSIDE-CONTENT" not in (root / ".prooftext" / "index.sqlite").read_bytes()


def test_A02_symlinked_directory_escaping_the_root_is_excluded(make_tree: MakeTree, tmp_path: Path) -> None:
    root = make_tree({"a.py": "x = 1\n"})
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "outside.txt").write_text("OUTSIDE\n")
    os.symlink(tmp_path / "outside", root / "dirlink")
    assert _reasons(root) == {"dirlink": "symlink"}
    with pytest.raises(ProoftextError) as caught:
        prooftext.corpus.read_bytes_checked(root, "dirlink/outside.txt", 1024)
    assert caught.value.details["reason"] == "symlink"


def test_A03_symlink_inside_the_root_is_excluded_and_its_target_indexed_under_its_own_path(
    make_tree: MakeTree,
) -> None:
    root = make_tree({"real.py": "x = 1\n"})
    os.symlink("real.py", root / "alias.py")
    assert _sources(root) == ["real.py"]
    assert _reasons(root) == {"alias.py": "symlink"}


def test_A04_symlink_loop_is_excluded_without_hanging(make_tree: MakeTree) -> None:
    root = make_tree({"a.py": ""})
    os.symlink("b", root / "a")
    os.symlink("a", root / "b")
    os.symlink(".", root / "self")
    assert _reasons(root) == {"a": "symlink", "b": "symlink", "self": "symlink"}


# --- locators in requests: the API, the CLI and verify give an error, never a crash --------------------

BAD_LOCATORS: dict[str, list[str]] = {
    "A05": ["../x", "a/../../x", "modeling/../../x"],
    "A06": ["/etc/passwd"],
    "A07": ["a.py\0.md"],
    "A08": ["a//b", "modeling/", "modeling/./core.py", "./modeling/core.py"],
    "A09": ["a\\..\\b", "C:\\x", "modeling\\core.py"],
}
_LOCATOR_CASES = [
    pytest.param(case, loc, id=f"{case}-{loc!r}") for case, locs in BAD_LOCATORS.items() for loc in locs
]
LOCATOR_ERRORS = {"path_outside_root", "invalid_request", "source_missing"}


@pytest.mark.parametrize(("case", "loc"), _LOCATOR_CASES)
def test_A05_A06_A07_A08_A09_bad_locators_are_errors_with_one_stable_code_in_the_api_and_the_cli(
    indexed: Path, cli: Cli, case: str, loc: str
) -> None:
    with prooftext.open(indexed) as index, pytest.raises(ProoftextError) as caught:
        index.pack(Query("separability matrix", required=(loc,)))
    api_code = caught.value.code
    status, out, err = cli("pack", "separability matrix", "--root", indexed, "--require", loc, "--json")
    assert status != 0 and "Traceback" not in err
    assert api_code in LOCATOR_ERRORS
    assert error_code(out) == api_code


def _tampered(packet: dict[str, Any], **changes: Any) -> dict[str, Any]:
    copy: dict[str, Any] = json.loads(json.dumps(packet))
    copy["evidence"][0].update(changes)
    return copy


@pytest.mark.parametrize(("case", "loc"), [(c, loc) for c, locs in BAD_LOCATORS.items() for loc in locs])
def test_A05_A06_A07_A08_A09_bad_locators_in_a_saved_packet_fail_verification_without_crashing(
    indexed: Path, case: str, loc: str
) -> None:
    report = verify_packet(_tampered(packet_json(indexed), path=loc), indexed)
    assert not report.ok and report.problems


def test_A05_a_locator_escaping_the_root_in_a_packet_is_not_reported_as_an_io_error(indexed: Path) -> None:
    report = verify_packet(_tampered(packet_json(indexed), path="../x"), indexed)
    assert report.status & BIT_IO == 0
    assert report.status & (BIT_DIGEST | BIT_SOURCE)


# --- names -----------------------------------------------------------------------------------------------


def test_A10_git_directory_variants_are_excluded_as_internal(make_tree: MakeTree) -> None:
    root = make_tree(
        {"a.py": "", ".GIT/config": "x", ".git /config": "x", "git~1/config": "x", ".Git./c": "x"}
    )
    assert _sources(root) == ["a.py"]


def test_A10_the_git_directory_itself_is_internal(make_tree: MakeTree) -> None:
    root = make_tree({"a.py": "", ".git/config": "[core]\n", "sub/.git/HEAD": "ref\n"})
    assert _reasons(root) == {".git": "internal", "sub/.git": "internal"}


def test_A11_a_non_utf8_file_name_is_excluded_and_recorded_printably(make_tree: MakeTree) -> None:
    root = make_tree({"a.py": ""})
    (root / os.fsdecode(b"bad\xff.txt")).write_text("x")
    reasons = _reasons(root)
    assert reasons == {"bad\\xff.txt": "path_not_portable"}
    manifest = prooftext.corpus.build_manifest(*_manifest_inputs(root))
    json.dumps(manifest, ensure_ascii=True).encode("ascii")  # serializable: no lone surrogate


def _manifest_inputs(root: Path) -> tuple[list[SourceFile], list[Exclusion], Any]:
    result = scan(root)
    return result.sources, result.excluded, result.candidate


def test_A12_nfc_and_nfd_twins_are_two_distinct_sources(make_tree: MakeTree) -> None:
    nfc, nfd = unicodedata.normalize("NFC", "é.txt"), unicodedata.normalize("NFD", "é.txt")
    root = make_tree({nfc: "composed\n", nfd: "decomposed\n"})
    sources = scan(root).sources
    assert sorted(s.path for s in sources) == sorted([nfc, nfd])
    assert len({s.sha256 for s in sources}) == 2


def test_A13_case_twins_are_distinct(make_tree: MakeTree) -> None:
    root = make_tree({"README": "upper\n", "readme": "lower\n"})
    assert _sources(root) == ["README", "readme"]


def test_A14_a_newline_or_control_character_in_a_name_is_excluded_and_escaped(
    make_tree: MakeTree, cli: Cli
) -> None:
    root = make_tree({"a.py": "x = 1\n"})
    (root / "evil\nname.txt").write_text("x")
    (root / "bell\x07.txt").write_text("x")
    reasons = _reasons(root)
    assert reasons == {"bell\\x07.txt": "path_not_portable", "evil\\x0aname.txt": "path_not_portable"}
    status, out, _ = cli("index", root, "--json")
    assert status == 0 and out.count("\n") == 1  # one JSON line, the name cannot break it


def test_A15_a_path_longer_than_4096_bytes_is_excluded(make_tree: MakeTree) -> None:
    root = make_tree({"a.py": ""})
    fd = os.open(root, os.O_RDONLY)
    for _ in range(18):  # 18 x 251 bytes: over 4096 without any single component over 255
        os.mkdir("d" * 250, dir_fd=fd)
        child = os.open("d" * 250, os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = child
    leaf = os.open("deep.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
    os.write(leaf, b"deep\n")
    os.close(leaf)
    os.close(fd)
    assert _sources(root) == ["a.py"]


def test_A15_a_component_over_255_bytes_cannot_exist_and_a_long_one_is_handled(make_tree: MakeTree) -> None:
    root = make_tree({"a.py": ""})
    with pytest.raises(OSError) as caught:
        (root / ("n" * 256)).write_text("x")
    assert caught.value.errno == errno.ENAMETOOLONG
    (root / ("n" * 255)).write_text("x\n")
    assert _sources(root) == ["a.py", "n" * 255]


def test_A16_fifo_socket_and_device_are_excluded_without_blocking(make_tree: MakeTree) -> None:
    root = make_tree({"a.py": ""})
    os.mkfifo(root / "fifo")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(root / "sock"))
    try:
        if os.geteuid() == 0:
            os.mknod(root / "zero", 0o644 | 0o020000, os.makedev(1, 5))  # character device, like /dev/zero
        expected = {"fifo": "not_regular", "sock": "not_regular"}
        if os.geteuid() == 0:
            expected["zero"] = "not_regular"
        assert _reasons(root) == expected
    finally:
        sock.close()


def test_A16_a_fifo_swapped_in_after_the_walk_is_refused_by_the_reader(make_tree: MakeTree) -> None:
    root = make_tree({"a.txt": "text\n"})
    stat = _stat(root, "a.txt")
    os.unlink(root / "a.txt")
    os.mkfifo(root / "a.txt")  # a plain open() would block here
    outcome = read_source(root, stat, CorpusConfig())
    assert isinstance(outcome, Exclusion) and outcome.reason in {"not_regular", "changed"}


def test_A17_a_directory_where_a_file_is_expected_and_the_reverse_are_errors(indexed: Path, cli: Cli) -> None:
    for loc in ("modeling", "modeling/core.py/inner.py"):
        status, out, _ = cli("pack", "separability", "--root", indexed, "--require", loc, "--json")
        assert status != 0 and error_code(out) == "source_missing"
    for loc in ("modeling", "modeling/core.py/inner.py"):
        report = verify_packet(_tampered(packet_json(indexed), path=loc), indexed)
        assert report.status & (BIT_SOURCE | BIT_IO)


def test_A18_an_unreadable_file_is_excluded_and_the_build_continues(
    make_tree: MakeTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_tree({"a.py": "x = 1\n", "locked.txt": "private\n", "z.py": "y = 2\n"})
    os.chmod(root / "locked.txt", 0)  # root bypasses the mode bits, so the open is refused by hand too
    real_open = os.open

    def deny(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if path == "locked.txt":
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(safeio.os, "open", deny)
    result = scan(root)
    assert [s.path for s in result.sources] == ["a.py", "z.py"]
    assert [(e.path, e.reason, e.detail) for e in result.excluded] == [
        ("locked.txt", "unreadable", "Permission denied")
    ]


def test_A19_a_file_deleted_between_walk_and_read_is_excluded_and_the_build_continues(
    make_tree: MakeTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_tree({"a.py": "x = 1\n", "gone.txt": "soon gone\n", "z.py": "y = 2\n"})
    scan_module = importlib.import_module("prooftext.corpus.scan")
    real = scan_module.read_source_at

    def vanish_then_read(root_fd: int, stat: FileStat, config: CorpusConfig) -> SourceFile | Exclusion:
        if stat.path == "gone.txt":
            os.unlink(root / "gone.txt")
        return real(root_fd, stat, config)

    monkeypatch.setattr(scan_module, "read_source_at", vanish_then_read)
    result = scan(root)
    assert [s.path for s in result.sources] == ["a.py", "z.py"]
    assert [(e.path, e.reason) for e in result.excluded] == [("gone.txt", "unreadable")]


def test_A20_a_file_replaced_by_rename_after_indexing_is_never_served_as_verified(indexed: Path) -> None:
    target = indexed / "modeling" / "separable.py"
    old = target.read_text()
    replacement = indexed / "modeling" / ".tmp-new"
    replacement.write_text(old.replace("Compute the correlation", "REPLACED TEXT Compute the correlation"))
    os.rename(replacement, target)
    with prooftext.open(indexed) as index:
        packet = index.pack("separability matrix", refresh=False)
    assert "REPLACED TEXT" not in packet.prompt
    assert "def separability_matrix" not in packet.prompt  # the old text is not served either
    assert any(
        e["path"] == "modeling/separable.py" and e["reason"] == "source_drift" for e in packet.excluded
    )


def test_A20_verify_marks_an_excerpt_whose_file_was_replaced_as_stale(indexed: Path) -> None:
    saved = packet_json(indexed)
    target = indexed / "modeling" / "separable.py"
    replacement = indexed / "modeling" / ".tmp-new"
    replacement.write_text(target.read_text() + "# appended\n")
    os.rename(replacement, target)
    assert verify_packet(saved, indexed).status & BIT_SOURCE


def test_A21_a_file_modified_during_the_read_is_excluded_as_changed(
    make_tree: MakeTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_tree({"a.txt": "x" * 100_000})
    stat = _stat(root, "a.txt")
    real_read = os.read
    touched = []

    def read_and_touch(fd: int, n: int) -> bytes:
        data = real_read(fd, n)
        if not touched:
            touched.append(True)
            os.utime(root / "a.txt", ns=(1, 1))  # same size, different mtime: a concurrent writer
        return data

    monkeypatch.setattr(safeio.os, "read", read_and_touch)
    outcome = read_source(root, stat, CorpusConfig())
    assert isinstance(outcome, Exclusion) and outcome.reason == "changed"


def test_A22_a_file_growing_past_the_limit_during_the_read_is_excluded_by_size(
    make_tree: MakeTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_tree({"grow.txt": "x" * 1000})
    config = CorpusConfig(max_file_bytes=1500)
    stat = _stat(root, "grow.txt")
    real_read = os.read
    reads: list[int] = []

    def read_and_grow(fd: int, n: int) -> bytes:
        if not reads:
            with open(root / "grow.txt", "ab") as handle:
                handle.write(b"y" * 5000)
        data = real_read(fd, n)
        reads.append(len(data))
        return data

    monkeypatch.setattr(safeio.os, "read", read_and_grow)
    outcome = read_source(root, stat, config)
    assert isinstance(outcome, Exclusion) and outcome.reason in {"size", "changed"}
    assert sum(reads) <= config.max_file_bytes + 1  # never an unbounded read


def test_A23_a_symlinked_root_is_resolved_once_and_gives_the_same_packet(
    indexed: Path, tmp_path: Path
) -> None:
    link = tmp_path / "root-link"
    os.symlink(indexed, link)
    direct = packet_json(indexed)
    with prooftext.open(link) as index:
        assert index.root == indexed.resolve()
        via_link = index.pack("separability matrix").to_dict()
    assert via_link == direct


def test_A24_a_hard_link_to_content_outside_the_tree_is_indexed_as_a_regular_file(
    make_tree: MakeTree, tmp_path: Path
) -> None:
    root = make_tree({"a.py": ""})
    (tmp_path / "outside.txt").write_text("shared content\n")
    os.link(tmp_path / "outside.txt", root / "hard.txt")
    assert os.stat(root / "hard.txt").st_nlink == 2
    assert _sources(root) == ["a.py", "hard.txt"]


def test_A24_a_hard_linked_source_is_labelled_in_the_manifest(make_tree: MakeTree, tmp_path: Path) -> None:
    root = make_tree({"a.py": ""})
    (tmp_path / "outside.txt").write_text("shared content\n")
    os.link(tmp_path / "outside.txt", root / "hard.txt")
    result = scan(root)
    manifest = prooftext.corpus.build_manifest(result.sources, result.excluded, result.candidate)
    assert "hardlinked" in json.dumps(manifest)


def test_A25_a_mount_point_inside_the_root_is_excluded(make_tree: MakeTree) -> None:
    root = make_tree({"a.py": ""})
    with tmpfs(root / "mnt"):
        (root / "mnt" / "inside.txt").write_text("on another device\n")
        assert _sources(root) == ["a.py"]


def test_A00_every_path_of_a_hostile_tree_is_indexed_or_excluded_with_a_reason(
    make_tree: MakeTree, tmp_path: Path, figure: Figure
) -> None:
    """No silent drop: each entry on disk is a source, an exclusion, or inside an excluded directory."""
    root = make_tree(
        {
            "ok.py": "x = 1\n",
            "bin.dat": b"\0\1\2",
            "latin.txt": "café".encode("latin-1"),
            "big.log": b"x" * 1_100_000,
            "ignored/a.txt": "x",
            ".gitignore": "ignored/\n",
            "deep/a/b/c/d.md": "# d\n",
            ".git/HEAD": "ref\n",
            "keys.env": "AWS_SECRET_ACCESS_KEY = 'x'\nDB_PASSWORD = \"Zq9!kLm2Vx7#\"\n",
            "deploy.pem": pem_block(fake_secrets()["private-key"]),  # always excluded: "secret"
        }
    )
    (root / os.fsdecode(b"bad\xfe.txt")).write_text("x")
    (root / "nl\nname.txt").write_text("x")
    os.symlink("ok.py", root / "alias.py")
    os.symlink(tmp_path, root / "escape")
    os.mkfifo(root / "fifo")
    result = scan(root)
    accounted = {s.path for s in result.sources} | {e.path for e in result.excluded}
    excluded_dirs = {e.path for e in result.excluded}
    silent = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        rel_dir = os.path.relpath(dirpath, root)
        for name in dirnames + filenames:
            rel = name if rel_dir == "." else f"{rel_dir}/{name}"
            shown = safeio.display_name(rel)
            if shown in accounted or any(shown.startswith(d + "/") for d in excluded_dirs):
                continue
            if os.path.isdir(os.path.join(dirpath, name)) and not os.path.islink(os.path.join(dirpath, name)):
                continue  # a directory is accounted for by its entries
            silent.append(shown)
    figure("silent_drops", len(silent))
    assert silent == []
    assert {e.reason for e in result.excluded} >= {
        "binary",
        "encoding",
        "size",
        "ignored",
        "internal",
        "path_not_portable",
        "symlink",
        "not_regular",
        "secret",
    }
