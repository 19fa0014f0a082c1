"""Lexical hits are FTS5's BM25 over the whole ``OR`` query, best first with ties by node id (never by row id,
which follows the order of refreshes), cut at the limit, and kept per index generation."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import prooftext
from prooftext.cache import GenerationCache
from prooftext.select import reads
from prooftext.select.policy import DEFAULT_POLICY
from prooftext.select.reads import Reads
from prooftext.store.fts import fts_quote
from prooftext.store.queries import FTS_COLUMNS, LexicalHits, generation

WORDS = [
    "core",
    "modeling",
    "model",
    "separability",
    "matrix",
    "compound",
    "transform",
    "inputs",
    "outputs",
    "return",
    "self",
]
RUNS = ["compound model", "separability matrix", "inputs and outputs", "absent words here"]
COLUMNS: list[tuple[str, ...]] = [(), DEFAULT_POLICY.subject_columns, ("content",)]
WEIGHTS = DEFAULT_POLICY.fts_weights


def _bm25(
    conn: sqlite3.Connection, at: tuple[str, int] | None, phrases: list[str], limit: int
) -> dict[int, float]:
    return Reads(conn, at).bm25(phrases, limit, (), WEIGHTS).scores


def _every_match(
    conn: sqlite3.Connection, phrases: list[str], columns: tuple[str, ...]
) -> list[tuple[int, float]]:
    """Every row FTS5 matches with its score, in no particular order (sorted here, in Python)."""
    match = " OR ".join(fts_quote(p) for p in phrases)
    if columns:
        match = f"{{{' '.join(columns)}}} : ({match})"
    weights = ", ".join(str(w) for w in WEIGHTS)
    sql = f"SELECT rowid, bm25(nodes_fts, {weights}) FROM nodes_fts WHERE nodes_fts MATCH ?"
    return [(rowid, -score) for rowid, score in conn.execute(sql, (match,))]


def _path_only(
    conn: sqlite3.Connection, phrases: list[str], columns: tuple[str, ...], hits: dict[int, float]
) -> frozenset[int]:
    """The hits that no search of the same phrases outside the path column finds."""
    if columns and "path" not in columns:
        return frozenset()
    outside = [c for c in FTS_COLUMNS if c != "path" and (not columns or c in columns)]
    match = f"{{{' '.join(outside)}}} : ({' OR '.join(fts_quote(p) for p in phrases)})"
    found = {
        rowid for (rowid,) in conn.execute("SELECT rowid FROM nodes_fts WHERE nodes_fts MATCH ?", (match,))
    }
    return frozenset(hits) - found


def _head(conn: sqlite3.Connection, matches: list[tuple[int, float]], limit: int) -> list[tuple[int, float]]:
    ids = dict(conn.execute("SELECT rowid, id FROM nodes"))
    return sorted(matches, key=lambda hit: (-hit[1], ids[hit[0]]))[:limit]


def test_hits_are_the_best_matches_of_the_whole_query_ties_by_node_id(sample_repo: Path) -> None:
    with prooftext.open(sample_repo) as index:
        index.refresh()
        conn = index.conn
        at = generation(conn)

        @settings(max_examples=60, deadline=None)
        @given(
            st.lists(st.sampled_from(WORDS + RUNS), min_size=1, max_size=8),
            st.integers(1, 40),
            st.sampled_from(COLUMNS),
        )
        def same(phrases: list[str], limit: int, columns: tuple[str, ...]) -> None:
            expected = _head(conn, _every_match(conn, phrases, columns), limit)
            hits = Reads(conn, at).bm25(phrases, limit, columns, WEIGHTS)
            assert list(hits.scores.items()) == expected
            assert hits.path_only == _path_only(conn, phrases, columns, hits.scores)
            # A second search over the same phrases reads the kept hits and still agrees.
            again = Reads(conn, at).bm25(phrases, limit, columns, WEIGHTS)
            assert list(again.scores.items()) == expected and again.path_only == hits.path_only

        same()


def test_hits_are_kept_for_the_generation_and_follow_an_edit(sample_repo: Path) -> None:
    key: reads.LexicalKey = ((), ("separability",), 10, WEIGHTS)
    with prooftext.open(sample_repo) as index:
        index.refresh()
        conn = index.conn
        before_generation = generation(conn)
        assert before_generation is not None
        _bm25(conn, before_generation, ["separability"], 10)
        assert reads.lexical_hits.get(*before_generation, key) is not None
        path = sample_repo / "modeling" / "core.py"
        path.write_text(
            path.read_text(encoding="utf-8") + "\n# separability separability\n", encoding="utf-8"
        )
        index.refresh()
        after_generation = generation(conn)
        assert after_generation != before_generation
        assert reads.lexical_hits.get(*after_generation, key) is None
        after = _bm25(conn, after_generation, ["separability"], 10)
        assert list(after.items()) == _head(conn, _every_match(conn, ["separability"], ()), 10)


def test_the_caller_owns_the_hits_it_gets(sample_repo: Path) -> None:
    with prooftext.open(sample_repo) as index:
        index.refresh()
        at = generation(index.conn)
        first = _bm25(index.conn, at, ["matrix", "model"], 5)
        kept = dict(first)
        first.clear()
        assert _bm25(index.conn, at, ["matrix", "model"], 5) == kept != {}


def test_without_a_generation_nothing_is_kept(sample_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kept = GenerationCache[reads.LexicalKey, LexicalHits](reads.LEXICAL_HIT_CACHE_HITS)
    monkeypatch.setattr(reads, "lexical_hits", kept)
    with prooftext.open(sample_repo) as index:
        index.refresh()
        hits = _bm25(index.conn, None, ["matrix", "model"], 5)
        assert list(hits.items()) == _head(index.conn, _every_match(index.conn, ["matrix", "model"], ()), 5)
    assert kept.get("any", 0, ((), ("matrix", "model"), 5, WEIGHTS)) is None


def test_no_phrases_or_no_room_finds_nothing(sample_repo: Path) -> None:
    with prooftext.open(sample_repo) as index:
        index.refresh()
        at = generation(index.conn)
        assert _bm25(index.conn, at, [], 10) == {}
        assert _bm25(index.conn, at, ["matrix"], 0) == {}


def test_searches_that_find_nothing_count_toward_the_bound(
    sample_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bound = 3 * reads.LEXICAL_ENTRY_HITS
    kept = GenerationCache[reads.LexicalKey, LexicalHits](bound, weight=reads.hits_weight)
    monkeypatch.setattr(reads, "lexical_hits", kept)
    absent = [f"absentword{i}" for i in range(6)]
    with prooftext.open(sample_repo) as index:
        index.refresh()
        at = generation(index.conn)
        assert at is not None
        for word in absent:
            assert _bm25(index.conn, at, [word], 10) == {}
    held = [w for w in absent if kept.get(*at, ((), (w,), 10, WEIGHTS)) is not None]
    assert held == absent[-3:]


def test_a_match_outside_the_path_is_never_path_only_whatever_the_columns_weigh(sample_repo: Path) -> None:
    with prooftext.open(sample_repo) as index:
        index.refresh()
        conn = index.conn
        for weights in (WEIGHTS, (0.0, 0.0, 3.0, 0.0)):
            hits = Reads(conn, None).bm25(["core"], 20, (), weights)
            assert hits.path_only == _path_only(conn, ["core"], (), hits.scores)
            assert hits.path_only and hits.path_only != set(hits.scores)
