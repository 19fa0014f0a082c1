"""An empty packet from a root whose files were all left out says why on stderr: how many files the index
left out, by reason, and how to list them. A packet with excerpts has no such note, and the packet itself
(its bytes, its digest) is the same either way."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prooftext.cli import main

NOTE = (
    "no excerpts; the index left out 2 files: 1 binary, 1 encoding"
    " (list them: prooftext index --excluded [--reason R])\n"
)


def _left_out_root(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "blob.bin").write_bytes(b"\x00\x01\x02binary\x00")
    (root / "notes.txt").write_bytes(b"caf\xe9 latin1 text\n")
    return root


@pytest.mark.parametrize("command", ["pack", "adaptive-pack"])
def test_an_empty_packet_on_a_root_whose_files_were_all_left_out_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    root = _left_out_root(tmp_path)
    assert main([command, "hello", "--root", str(root)]) == 0
    err = capsys.readouterr().err
    assert err.endswith(NOTE)
    assert err.count("\n") == 2  # the summary line, then the note


def test_the_note_leaves_the_json_packet_as_it_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _left_out_root(tmp_path)
    assert main(["pack", "hello", "--root", str(root), "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["evidence"] == []
    assert captured.err == ""


def test_a_packet_with_excerpts_has_no_note(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _left_out_root(tmp_path)
    (root / "app.py").write_text("def hello():\n    return 1\n")
    assert main(["pack", "hello", "--root", str(root)]) == 0
    err = capsys.readouterr().err
    assert err.startswith("packet: 1 excerpt,")
    assert "left out" not in err


def test_an_empty_packet_from_a_root_with_nothing_left_out_has_no_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "app.py").write_text("def other():\n    return 1\n")
    assert main(["pack", "zebra", "--root", str(root)]) == 0
    err = capsys.readouterr().err
    assert err.startswith("packet: 0 excerpts")
    assert err.count("\n") == 1


def test_one_file_left_out_is_counted_as_one_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "blob.bin").write_bytes(b"\x00\x01\x02binary\x00")
    assert main(["pack", "hello", "--root", str(root)]) == 0
    assert "the index left out 1 file: 1 binary (" in capsys.readouterr().err
