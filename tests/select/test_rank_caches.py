"""Ranking reuses corpus facts and node field tokens across refreshes, and node rows within one index
generation, and still ranks exactly as a fresh process does: an edit reaches the test-file rule, the binary
field score and the lines of the nodes it moved at once."""

from __future__ import annotations

from pathlib import Path

import pytest

import prooftext
from prooftext.cache import BoundedCache, GenerationCache
from prooftext.select import corpus_facts, reads
from prooftext.select.corpus_facts import CorpusFacts, FileFacts, build_corpus
from prooftext.select.policy import DEFAULT_POLICY
from prooftext.store.queries import NodeRow, generation

QUERY = "separability matrix of a compound model"


def _files(index: prooftext.Index) -> FileFacts:
    rows = index.conn.execute("SELECT path, id, kind, sha256, size, line_count FROM files")
    return {path: (fid, kind, sha, size, lines) for path, fid, kind, sha, size, lines in rows}


def _facts(index: prooftext.Index) -> CorpusFacts:
    return corpus_facts.corpus_facts(index.conn, generation(index.conn), DEFAULT_POLICY)


def _scores(index: prooftext.Index, query: str) -> list[tuple[str, int, int, dict[str, int]]]:
    return [(c["node_id"], c["priority"], c["components"]) for c in index.search(query)]


def test_an_edited_file_that_becomes_minified_is_known_as_data_after_the_refresh(
    sample_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with prooftext.open(sample_repo) as index:
        index.refresh()
        before = _facts(index)
        target = sample_repo / "modeling" / "core.py"
        assert before.ids["modeling/core.py"] not in before.data_files
        target.write_text("X = [" + ", ".join(str(n) for n in range(400)) + "]\n", encoding="utf-8")
        index.refresh()
        monkeypatch.setattr(corpus_facts, "build_corpus", lambda *a: pytest.fail("rebuilt, not rolled"))
        after = _facts(index)
        monkeypatch.undo()
        assert after.ids["modeling/core.py"] in after.data_files
        assert after == build_corpus(_files(index), DEFAULT_POLICY)


def test_a_bundled_copy_stays_data_after_an_edit_and_an_edit_of_its_license_is_read_again(
    sample_repo: Path,
) -> None:
    (sample_repo / "LICENSE").write_text("Copyright the project.\n", encoding="utf-8")
    bundled = sample_repo / "cextern" / "lib"
    bundled.mkdir(parents=True)
    (bundled / "COPYING").write_text("Copyright another project.\n", encoding="utf-8")
    (bundled / "lib.c").write_text("int f(void) { return 1; }\n", encoding="utf-8")
    with prooftext.open(sample_repo) as index:
        index.refresh()
        assert _facts(index).ids["cextern/lib/lib.c"] in _facts(index).data_files
        (bundled / "lib.c").write_text("int f(void) { return 2; }\n", encoding="utf-8")
        index.refresh()
        after = _facts(index)
        assert after.ids["cextern/lib/lib.c"] in after.data_files  # the edited file, under its new id
        (bundled / "COPYING").write_text("Copyright the project.\n", encoding="utf-8")  # the root's text
        index.refresh()
        own = _facts(index)
        assert own.ids["cextern/lib/lib.c"] not in own.data_files
        assert own == build_corpus(_files(index), DEFAULT_POLICY)


def test_files_that_come_and_go_rebuild_the_corpus_facts(sample_repo: Path) -> None:
    with prooftext.open(sample_repo) as index:
        index.refresh()
        _facts(index)
        (sample_repo / "modeling" / "extra.py").write_text("EXTRA = 1\n", encoding="utf-8")
        index.refresh()
        after = _facts(index)
        assert "modeling/extra.py" in after.ids
        assert after == build_corpus(_files(index), DEFAULT_POLICY)


def test_rankings_after_an_edit_match_a_process_with_empty_caches(
    sample_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with prooftext.open(sample_repo) as index:
        index.refresh()
        _scores(index, QUERY)
        path = sample_repo / "modeling" / "separable.py"
        path.write_text(
            path.read_text(encoding="utf-8").replace("correlation", "compound model separability"),
            encoding="utf-8",
        )
        index.refresh()
        warm = _scores(index, QUERY)
        _empty_caches(monkeypatch)
        assert warm == _scores(index, QUERY)


def _empty_caches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(corpus_facts, "_corpus_states", BoundedCache(4))
    monkeypatch.setattr(reads, "term_counts", GenerationCache(1000))
    monkeypatch.setattr(reads, "lexical_hits", GenerationCache(reads.LEXICAL_HIT_CACHE_HITS))
    monkeypatch.setattr(reads, "node_rows", GenerationCache(reads.NODE_ROW_CACHE_ROWS))


def _lines(index: prooftext.Index, query: str) -> list[tuple[str, str, list[int]]]:
    return [(c["node_id"], c["path"], c["node_range"]) for c in index.search(query)]


def test_a_repeated_ranking_reads_its_rows_from_the_cache_and_ranks_the_same(
    sample_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with prooftext.open(sample_repo) as index:
        index.refresh()
        first = _scores(index, QUERY)
        read: list[list[int]] = []
        real_rows = reads.rows_by_rowid

        def counted(conn: object, rowids: list[int]) -> list[NodeRow]:
            read.append(rowids)
            return real_rows(index.conn, rowids)

        monkeypatch.setattr(reads, "rows_by_rowid", counted)
        assert _scores(index, QUERY) == first
        assert not read


def test_rows_cached_before_an_edit_that_moves_lines_are_not_read_after_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One file, so its new nodes take the row ids its old ones had: only the generation tells them apart.
    source = "def separability_matrix():\n    return compound\n\n\ndef compound_model():\n    return 1\n"
    path = tmp_path / "model.py"
    path.write_text(source, encoding="utf-8")
    with prooftext.open(tmp_path) as index:
        index.refresh()
        before = _lines(index, QUERY)
        path.write_text("# moved\n" * 7 + source, encoding="utf-8")
        index.refresh()
        warm = _lines(index, QUERY)
        assert [tuple(lines) for _id, _path, lines in before] == [(1, 2), (5, 6)]
        assert [tuple(lines) for _id, _path, lines in warm][:2] == [(8, 9), (12, 13)]
        _empty_caches(monkeypatch)
        assert warm == _lines(index, QUERY)
