"""Lexical hits are summed from per-phrase BM25 scores kept per index generation, and they are exactly the
hits, scores and order of FTS5's own BM25 over the whole ``OR`` query."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import prooftext
from prooftext.select import rank
from prooftext.store.fts import fts_quote

WORDS = ["model", "separability", "matrix", "compound", "transform", "inputs", "outputs", "return", "self"]
RUNS = ["compound model", "separability matrix", "inputs and outputs", "absent words here"]
COLUMNS = ["", rank.SUBJECT_COLUMNS, "content"]


def _fts5(conn: sqlite3.Connection, phrases: list[str], limit: int, columns: str) -> dict[int, float]:
    """FTS5 scoring the whole query at once, best first, ties by row id."""
    match = " OR ".join(fts_quote(p) for p in phrases)
    if columns:
        match = f"{{{columns}}} : ({match})"
    weights = ", ".join(str(w) for w in rank.FTS_WEIGHTS)
    sql = (
        f"SELECT rowid, bm25(nodes_fts, {weights}) AS s FROM nodes_fts WHERE nodes_fts MATCH ?"
        " ORDER BY s, rowid LIMIT ?"
    )
    return {rowid: -score for rowid, score in conn.execute(sql, (match, limit))}


def _items(hits: dict[int, float]) -> list[tuple[int, float]]:
    return list(hits.items())


def test_summed_phrase_scores_are_fts5s_scores_of_the_whole_query(sample_repo: Path) -> None:
    with prooftext.open(sample_repo) as index:
        index.refresh()
        conn = index.conn
        generation = rank._generation(conn)

        @settings(max_examples=60, deadline=None)
        @given(
            st.lists(st.sampled_from(WORDS + RUNS), min_size=1, max_size=8),
            st.integers(1, 40),
            st.sampled_from(COLUMNS),
        )
        def same(phrases: list[str], limit: int, columns: str) -> None:
            expected = _items(_fts5(conn, phrases, limit, columns))
            assert _items(rank._bm25(conn, generation, phrases, limit, columns)) == expected
            # A second query over the same phrases reads the kept scores and still agrees.
            assert _items(rank._bm25(conn, generation, phrases, limit, columns)) == expected

        same()


def test_phrase_scores_are_kept_for_the_generation_and_follow_an_edit(sample_repo: Path) -> None:
    with prooftext.open(sample_repo) as index:
        index.refresh()
        conn = index.conn
        before_generation = rank._generation(conn)
        assert before_generation is not None
        rank._bm25(conn, before_generation, ["separability"], 10)
        assert rank._phrase_scores.get(*before_generation, ("", "separability")) is not None
        path = sample_repo / "modeling" / "core.py"
        path.write_text(
            path.read_text(encoding="utf-8") + "\n# separability separability\n", encoding="utf-8"
        )
        index.refresh()
        after_generation = rank._generation(conn)
        assert after_generation != before_generation
        assert rank._phrase_scores.get(*after_generation, ("", "separability")) is None
        after = rank._bm25(conn, after_generation, ["separability"], 10)
        assert _items(after) == _items(_fts5(conn, ["separability"], 10, ""))


def test_without_a_generation_nothing_is_kept(sample_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kept = rank.GenerationCache[tuple[str, str], tuple[object, object]](rank.PHRASE_SCORE_CACHE_POSTINGS)
    monkeypatch.setattr(rank, "_phrase_scores", kept)
    with prooftext.open(sample_repo) as index:
        index.refresh()
        hits = rank._bm25(index.conn, None, ["matrix", "model"], 5)
        assert _items(hits) == _items(_fts5(index.conn, ["matrix", "model"], 5, ""))
    assert kept.get("any", 0, ("", "matrix")) is None


def test_no_phrases_or_no_room_finds_nothing(sample_repo: Path) -> None:
    with prooftext.open(sample_repo) as index:
        index.refresh()
        generation = rank._generation(index.conn)
        assert rank._bm25(index.conn, generation, [], 10) == {}
        assert rank._bm25(index.conn, generation, ["matrix"], 0) == {}


def test_phrases_no_node_holds_count_toward_the_bound(
    sample_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bound = 3 * rank.PHRASE_ENTRY_POSTINGS
    kept = rank.GenerationCache[tuple[str, str], tuple[object, object]](bound, weight=rank._phrase_weight)
    monkeypatch.setattr(rank, "_phrase_scores", kept)
    absent = [f"absentword{i}" for i in range(6)]
    with prooftext.open(sample_repo) as index:
        index.refresh()
        generation = rank._generation(index.conn)
        assert generation is not None
        assert rank._bm25(index.conn, generation, absent, 10) == {}
    held = [p for p in absent if kept.get(*generation, ("", p)) is not None]
    assert held == absent[-3:]


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(st.integers(0, 400), st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.25, 3.0]), max_size=60),
    st.integers(1, 70),
)
def test_the_best_rows_are_the_head_of_the_whole_sort_ties_by_row_id(
    scores: dict[int, float], limit: int
) -> None:
    assert rank._best(scores, limit) == sorted((-score, rowid) for rowid, score in scores.items())[:limit]
