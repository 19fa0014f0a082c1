"""Catalogue B: content and encoding. Hashes cover raw bytes; lines are counted by LF on raw bytes.

The binary rule is git's: a NUL within the first 8000 bytes (``BINARY_SNIFF_BYTES``) marks a file binary; a
NUL after that is ordinary (valid UTF-8) text. The size rule is decided from ``fstat`` before any read.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import tarfile
import zipfile
from pathlib import Path
from typing import Any

import pytest

import prooftext
from helpers import pack_fields
from prooftext.corpus import safeio
from prooftext.corpus.config import CorpusConfig
from prooftext.corpus.lines import count_lines
from prooftext.corpus.model import BINARY_SNIFF_BYTES, SourceFile
from prooftext.corpus.scan import scan
from prooftext.pack.injection import flags
from prooftext.pack.sources import observe
from prooftext.pack.verify import BIT_SOURCE, verify_packet

from .conftest import MakeTree


def _outcome(root: Path, rel: str, config: CorpusConfig | None = None) -> tuple[str, Any]:
    result = scan(root, config)
    for source in result.sources:
        if source.path == rel:
            return "adopted", source
    for exclusion in result.excluded:
        if exclusion.path == rel:
            return exclusion.reason, exclusion
    raise AssertionError(f"{rel} neither adopted nor excluded (silent drop)")


def _pack(root: Path, query: str, **kw: Any) -> prooftext.Packet:
    with prooftext.open(root) as index:
        return pack_fields(index, query, **kw)


def test_B01_a_nul_in_the_first_8000_bytes_is_binary(make_tree: MakeTree) -> None:
    root = make_tree({"early.dat": b"abc\0def\n", "at7999.txt": b"a" * 7999 + b"\0"})
    assert _outcome(root, "early.dat")[0] == "binary"
    assert _outcome(root, "at7999.txt")[0] == "binary"


def test_B02_a_nul_only_at_byte_70000_is_pinned_as_text_by_the_prefix_rule(make_tree: MakeTree) -> None:
    data = b"line\n" * 14_000 + b"\0tail\n"
    assert data.index(b"\0") == 70_000
    root = make_tree({"late.txt": data, "at8000.txt": b"a" * BINARY_SNIFF_BYTES + b"\0\n"})
    kind, source = _outcome(root, "late.txt")
    assert kind == "adopted" and source.sha256 == hashlib.sha256(data).hexdigest()
    assert _outcome(root, "at8000.txt")[0] == "adopted"


@pytest.mark.parametrize(
    "data",
    [
        pytest.param("café crème\n".encode("latin-1"), id="latin-1"),
        pytest.param("日本語のテキスト\n".encode("shift_jis"), id="shift-jis"),
    ],
)
def test_B03_legacy_encodings_are_excluded_as_encoding(make_tree: MakeTree, data: bytes) -> None:
    root = make_tree({"legacy.txt": data})
    assert _outcome(root, "legacy.txt")[0] == "encoding"


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"\xc0\xaf overlong slash\n", id="overlong"),
        pytest.param(b"lone \x80 continuation\n", id="lone-continuation"),
        pytest.param(b"surrogate \xed\xa0\x80 U+D800\n", id="encoded-surrogate"),
        pytest.param(b"truncated \xe6\x97\n", id="truncated"),
        pytest.param(b"beyond \xf4\x90\x80\x80 U+10FFFF\n", id="out-of-range"),
    ],
)
def test_B04_invalid_utf8_is_excluded_as_encoding(make_tree: MakeTree, data: bytes) -> None:
    root = make_tree({"bad.txt": data})
    kind, exclusion = _outcome(root, "bad.txt")
    assert kind == "encoding" and "byte" in exclusion.detail


def test_B05_a_utf8_bom_is_kept_in_the_digest_and_the_excerpt_round_trips(make_tree: MakeTree) -> None:
    data = b"\xef\xbb\xbfbommed_function_marker = 1\n"
    root = make_tree({"bom.py": data})
    kind, source = _outcome(root, "bom.py")
    assert kind == "adopted" and source.sha256 == hashlib.sha256(data).hexdigest()
    assert source.text.encode("utf-8") == data
    packet = _pack(root, "bommed_function_marker")
    assert data.decode("utf-8") in packet.prompt
    assert verify_packet(packet.to_dict(), root).ok


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_B06_utf16_with_a_bom_is_excluded(make_tree: MakeTree, codec: str) -> None:
    bom = b"\xff\xfe" if codec.endswith("le") else b"\xfe\xff"
    root = make_tree({"wide.txt": bom + "wide text\n".encode(codec)})
    assert _outcome(root, "wide.txt")[0] in {"binary", "encoding"}


def test_B07_crlf_lines_are_counted_by_lf_and_the_excerpt_keeps_cr(make_tree: MakeTree) -> None:
    data = b"def crlf_marker():\r\n    return 1\r\n"
    root = make_tree({"crlf.py": data})
    assert _outcome(root, "crlf.py")[1].line_count == 2
    packet = _pack(root, "crlf_marker")
    assert "def crlf_marker():\r\n    return 1\r\n" in packet.prompt
    assert verify_packet(packet.to_dict(), root).ok


def test_B08_lone_cr_u2028_ff_and_nel_are_not_line_breaks(make_tree: MakeTree) -> None:
    text = "a\u2028b\x0cc\r\nd\re\x85f\n"
    assert count_lines(text.encode()) == 2
    root = make_tree({"odd.txt": "oddbreaks_marker " + text})
    source = _outcome(root, "odd.txt")[1]
    assert isinstance(source, SourceFile) and source.line_count == 2


def test_B09_empty_newline_only_and_unterminated_files(make_tree: MakeTree) -> None:
    root = make_tree({"empty.txt": b"", "nl.txt": b"\n", "open.txt": b"no newline"})
    assert [_outcome(root, n)[1].line_count for n in ("empty.txt", "nl.txt", "open.txt")] == [0, 1, 1]


def test_B09_a_forged_range_on_an_empty_file_fails_verification(make_tree: MakeTree) -> None:
    root = make_tree({"empty.txt": b"", "a.py": "def empty_marker():\n    return 0\n"})
    saved = _pack(root, "empty_marker").to_dict()
    empty_sha = hashlib.sha256(b"").hexdigest()
    forged = dict(
        saved, evidence=[dict(saved["evidence"][0], path="empty.txt", lines=[1, 1], sha256=empty_sha)]
    )
    assert not verify_packet(forged, root).ok


def test_B09_l1_l1_on_an_empty_file_is_its_empty_excerpt_and_any_other_range_is_out_of_range(
    make_tree: MakeTree,
) -> None:
    # The graph gives an empty file's node lines 1-1 (1-0 is no range): that range quotes the empty text.
    root = make_tree({"empty.txt": b""})
    empty_sha = hashlib.sha256(b"").hexdigest()
    seen = observe(root, "empty.txt", empty_sha, [(1, 1)])
    assert seen.text is not None and seen.text.count == 0 and seen.text.slice(1, 1) == ""
    for span in [(1, 2), (2, 2)]:
        assert observe(root, "empty.txt", empty_sha, [span]).reason == "range_invalid"


def test_B10_one_10_mb_line_is_excluded_by_size(make_tree: MakeTree) -> None:
    root = make_tree({"min.js": b"x" * (10 * 1024 * 1024)})
    assert _outcome(root, "min.js")[0] == "size"


def test_B10_a_long_line_within_the_limit_is_bounded_by_the_budget(make_tree: MakeTree) -> None:
    root = make_tree(
        {"min.js": b"var longline_marker=1;" + b"a=1;" * 150_000, "a.py": "longline_marker = 2\n"}
    )
    packet = _pack(root, "longline_marker", max_tokens=2000)
    assert packet.prompt_tokens.count <= 2000
    assert any(
        e["path"] == "min.js" and e["reason"] in {"over_budget", "over_budget_exact"} for e in packet.excluded
    )


def _sparse(path: Path, size: int) -> None:
    with open(path, "wb") as handle:
        handle.truncate(size)


@pytest.mark.parametrize(("name", "size"), [("B11", 100 * 1024 * 1024), ("B13", 1 << 40)])
def test_B11_B13_huge_and_sparse_files_are_excluded_from_stat_without_a_read(
    make_tree: MakeTree, monkeypatch: pytest.MonkeyPatch, name: str, size: int
) -> None:
    root = make_tree({"a.py": ""})
    _sparse(root / "huge.bin", size)
    opened: list[str] = []
    real_open = os.open

    def watch(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        opened.append(str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(safeio.os, "open", watch)
    kind, exclusion = _outcome(root, "huge.bin")
    assert kind == "size" and str(size) in exclusion.detail
    assert "huge.bin" not in opened


def test_B12_a_file_exactly_at_the_limit_is_adopted_and_one_byte_more_is_excluded(
    make_tree: MakeTree,
) -> None:
    config = CorpusConfig(max_file_bytes=4096)
    root = make_tree({"at.txt": b"a" * 4095 + b"\n", "over.txt": b"a" * 4096 + b"\n"})
    assert _outcome(root, "at.txt", config)[0] == "adopted"
    assert _outcome(root, "over.txt", config)[0] == "size"


def test_B14_a_link_to_an_endless_device_is_refused(make_tree: MakeTree) -> None:
    root = make_tree({"a.py": ""})
    os.symlink("/dev/zero", root / "zeros")
    assert _outcome(root, "zeros")[0] == "symlink"
    if os.geteuid() == 0:
        os.mknod(root / "zero-device", 0o644 | 0o020000, os.makedev(1, 5))
        assert _outcome(root, "zero-device")[0] == "not_regular"


def _archives() -> dict[str, bytes]:
    zbuf = io.BytesIO()
    with zipfile.ZipFile(zbuf, "w") as archive:
        archive.writestr("inner.py", "def archived_marker(): pass\n")
    tbuf = io.BytesIO()
    with tarfile.open(fileobj=tbuf, mode="w") as archive:
        payload = b"def archived_marker(): pass\n"
        info = tarfile.TarInfo("inner.py")
        info.size = len(payload)
        archive.addfile(info, io.BytesIO(payload))
    return {
        "a.zip": zbuf.getvalue(),
        "a.tar": tbuf.getvalue(),
        "a.tar.gz": gzip.compress(tbuf.getvalue(), mtime=0),
    }


def test_B15_archives_are_excluded_and_never_expanded(make_tree: MakeTree) -> None:
    root = make_tree({**_archives(), "a.py": "x = 1\n"})
    result = scan(root)
    assert [s.path for s in result.sources] == ["a.py"]
    assert {e.path: e.reason for e in result.excluded} == {
        "a.tar": "binary",
        "a.tar.gz": "binary",
        "a.zip": "binary",
    }
    assert not any("inner.py" in e.path for e in result.excluded)


def test_B16_bidi_and_zero_width_characters_are_labelled_with_counts_and_written_out(
    make_tree: MakeTree,
) -> None:
    trojan = 'access_level = "user\u202e \u2066// Check if admin\u2069 \u2066"\u200b\u200b\n'
    root = make_tree({"trojan.py": "def trojan_marker():\n    " + trojan})
    source = _outcome(root, "trojan.py")[1]
    assert isinstance(source, SourceFile)
    assert source.sha256 == hashlib.sha256((root / "trojan.py").read_bytes()).hexdigest()
    packet = _pack(root, "trojan_marker")
    assert "flags=bidi:4,invisible:2" in packet.prompt
    assert '"user[U+202E] [U+2066]// Check if admin[U+2069] [U+2066]"[U+200B][U+200B]' in packet.prompt
    assert trojan in packet.evidence_texts[0]  # the excerpt itself is the source's bytes
    assert verify_packet(packet.to_dict(), root).ok
    assert flags(trojan) == ["bidi:4", "invisible:2"]


@pytest.mark.parametrize("lines", [[10, 5], [0, 1], [1, 999]])
def test_B17_line_ranges_out_of_bounds_are_rejected(indexed: Path, lines: list[int]) -> None:
    saved = _pack(indexed, "separability matrix").to_dict()
    saved["evidence"][0]["lines"] = lines
    report = verify_packet(saved, indexed)
    assert report.status & BIT_SOURCE and report.problems[0]["kind"] == "range_invalid"
