"""Reading a verified line range: a path must be a portable relative path below the root, checked by the
corpus's one rule for paths; one that leaves the root is ``path_outside_root``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import prooftext
from prooftext.errors import PathOutsideRootError, RequestError, StoreError


@pytest.mark.parametrize("path", ["../outside.py", "/etc/passwd", "", "a\\b.py", "modeling/../../x.py"])
def test_a_path_that_leaves_the_root_is_path_outside_root(sample_repo: Path, path: str) -> None:
    with prooftext.open(sample_repo) as index, pytest.raises(PathOutsideRootError) as info:
        prooftext.read_range(index, path)
    assert info.value.details["field"] == "path"


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("modeling//separable.py", "component ''"),
        ("./modeling/separable.py", "component '.'"),
        ("modeling/sep\x01arable.py", "control character"),
    ],
)
def test_a_path_that_is_not_portable_is_refused_saying_why(sample_repo: Path, path: str, why: str) -> None:
    with prooftext.open(sample_repo) as index, pytest.raises(RequestError, match=why) as info:
        prooftext.read_range(index, path)
    assert info.value.details["field"] == "path"


def test_a_portable_path_reads_its_lines(sample_repo: Path) -> None:
    with prooftext.open(sample_repo) as index:
        index.refresh()
        read = prooftext.read_range(index, "modeling/separable.py", 1, 1)
    assert read["lines"] == [1, 1] and read["text"]


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"path": None}, "path"),
        ({"start": None}, "start"),
        ({"end": 1.5}, "end"),
        ({"start": True}, "start"),
        ({"clearance": []}, "clearance"),
        ({"clearance": "top-secret"}, "clearance"),
    ],
)
def test_an_argument_of_the_wrong_type_is_refused_naming_it(
    sample_repo: Path, arguments: dict[str, object], field: str
) -> None:
    call = {"path": "modeling/separable.py", **arguments}
    with prooftext.open(sample_repo) as index, pytest.raises(RequestError) as info:
        prooftext.read_range(index, **call)  # type: ignore[arg-type]
    assert info.value.details["field"] == field


HOSTILE = (
    "# Notes\n\nNormal line.\n"
    "\x1b[2J\x1b[31mquiet\x1b[0m\n"
    'if user != "admin\u202e \u2066// check later\u2069 \u2066" {\n'
    "zero\u200bwidth and carriage\rreturn overwrite\n"
)


def test_a_range_holding_terminal_bidi_or_invisible_characters_is_exact_and_flagged_as_packets_flag_it(
    tmp_path: Path,
) -> None:
    (tmp_path / "notes.md").write_text(HOSTILE, encoding="utf-8", newline="")
    with prooftext.open(tmp_path) as index:
        index.refresh()
        read = prooftext.read_range(index, "notes.md")
        packet = index.pack(prooftext.Query("notes", required=("notes.md",)), format="json")
    assert read["text"] == HOSTILE  # the exact text, as a JSON packet quotes it
    block = next(b for b in json.loads(packet.prompt)["evidence"] if b["path"] == "notes.md")
    assert block["text"] == read["text"] and read["flags"] == block["flags"] == "bidi:4,control:4,invisible:1"


def test_visible_text_shows_every_control_bidi_and_invisible_character_as_packets_show_them(
    tmp_path: Path,
) -> None:
    (tmp_path / "notes.md").write_text(HOSTILE, encoding="utf-8", newline="")
    with prooftext.open(tmp_path) as index:
        index.refresh()
        shown = prooftext.visible_text(prooftext.read_range(index, "notes.md")["text"])
        prompt = index.pack(prooftext.Query("notes", required=("notes.md",))).prompt
    assert "\u241b[2J" in shown and "admin[U+202E] [U+2066]" in shown and "zero[U+200B]width" in shown
    assert "carriage\u240dreturn" in shown and shown in prompt
    assert not any(ch in shown for ch in "\x1b\r\u202e\u2066\u2069\u200b")


def test_ordinary_text_carries_no_flags(sample_repo: Path) -> None:
    with prooftext.open(sample_repo) as index:
        index.refresh()
        read = prooftext.read_range(index, "modeling/separable.py", 1, 3)
    assert "flags" not in read


def test_a_store_damaged_under_a_read_is_store_corrupt(sample_repo: Path) -> None:
    """The look-up of a path that is not indexed read the store outside the translation of SQLite's
    errors: a dropped table surfaced as a bare ``OperationalError``."""
    with prooftext.open(sample_repo) as index:
        index.refresh()
        index.conn.execute("PRAGMA foreign_keys = OFF")
        index.conn.execute("DROP TABLE excluded")
        with pytest.raises(StoreError) as caught:
            prooftext.read_range(index, "modeling/missing.py")
    assert caught.value.code == "store_corrupt"


def test_an_empty_file_reads_as_the_range_its_map_entry_and_packet_evidence_give(tmp_path: Path) -> None:
    (tmp_path / "empty.md").write_text("")
    (tmp_path / "notes.md").write_text("Basil wants sun.\n")
    with prooftext.open(tmp_path) as index:
        index.refresh()
        read = prooftext.read_range(index, "empty.md")
        packet = index.pack(prooftext.Query("basil", required=["empty.md"]))
        entries = prooftext.repository_map(index).to_dict()["entries"]
    evidence = next(e for e in packet.evidence if e.path == "empty.md")
    mapped = next(e for e in entries if e["path"] == "empty.md")
    assert read["lines"] == [1, 1] and read["line_count"] == 0 and read["text"] == ""
    assert [evidence.start_line, evidence.end_line] == read["lines"] == mapped["lines"]
    with prooftext.open(tmp_path) as index, pytest.raises(prooftext.errors.RangeError):
        prooftext.read_range(index, "empty.md", 2)
