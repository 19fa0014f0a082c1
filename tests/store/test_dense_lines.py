"""Minified code: a line that many nodes share is indexed once, so the index grows linearly with the file."""

from __future__ import annotations

from pathlib import Path

import prooftext
from prooftext.store import refresh


def _minified(definitions: int) -> str:
    """One line of ``definitions`` functions, each with a word of its own in its body."""
    return "".join(f"function f{i}(a){{return a.zeta{i}+{i};}};" for i in range(definitions))


def _indexed(root: Path, files: dict[str, str]) -> prooftext.Index:
    root.mkdir()
    for path, text in files.items():
        (root / path).write_text(text)
    index = prooftext.open(root)
    index.refresh()
    return index


def _stored_fts_bytes(root: Path, definitions: int) -> int:
    with _indexed(root, {"min.js": _minified(definitions)}) as index:
        row = index.conn.execute("SELECT sum(length(title) + length(path) + length(content)) FROM nodes_fts")
        return int(row.fetchone()[0])


def test_the_full_text_of_a_one_line_file_of_n_definitions_grows_linearly_with_n(tmp_path: Path) -> None:
    small, large = 200, 800  # both far past MAX_NODES_PER_LINE
    small_bytes = _stored_fts_bytes(tmp_path / "small", small)
    large_bytes = _stored_fts_bytes(tmp_path / "large", large)
    # Linear: four times the definitions cost about four times the bytes (each line once per node: sixteen).
    assert large_bytes <= 4.5 * small_bytes
    assert large_bytes <= 4 * len(_minified(large))
    assert small > refresh.MAX_NODES_PER_LINE


def test_each_word_of_a_dense_line_is_still_found_in_its_file_row(tmp_path: Path) -> None:
    with _indexed(tmp_path / "repo", {"min.js": _minified(50)}) as index:
        hits = index.conn.execute(
            "SELECT n.kind FROM nodes_fts t JOIN nodes n ON n.rowid = t.rowid WHERE nodes_fts MATCH 'zeta37'"
        ).fetchall()
    assert hits == [("file",)]


def test_a_definition_on_a_dense_line_holds_its_signature(tmp_path: Path) -> None:
    with _indexed(tmp_path / "repo", {"min.js": _minified(50)}) as index:
        content = index.conn.execute(
            "SELECT t.content FROM nodes_fts t JOIN nodes n ON n.rowid = t.rowid WHERE n.name = 'f37'"
        ).fetchone()[0]
    assert content == "function f37(a)\n"


def test_lines_few_nodes_share_are_indexed_in_each_of_them_as_before(tmp_path: Path) -> None:
    code = "class Box { open() { return 1; } shut() { return 0; } }\n"
    with _indexed(tmp_path / "repo", {"box.js": code}) as index:
        rows = index.conn.execute(
            "SELECT n.name, t.content FROM nodes_fts t JOIN nodes n ON n.rowid = t.rowid WHERE n.kind = 'symbol'"
        ).fetchall()
    assert sorted(rows) == [("Box", code), ("open", code), ("shut", code)]
