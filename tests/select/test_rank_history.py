"""A packet depends on the files, never on the order in which refreshes inserted them: equally scored
nodes are kept and ordered by node id, not by row id or file id."""

from __future__ import annotations

from pathlib import Path

import prooftext
from prooftext import Query
from prooftext.select.policy import DEFAULT_POLICY

TIED_FILES = DEFAULT_POLICY.fts_limit + 40
"""More equally scored files than the corpus-wide search keeps, so that the cut falls inside the tie."""
TEXT = "The frobnicator widget spins quickly.\n"


def _ranking(root: Path) -> tuple[list[object], str]:
    with prooftext.open(root) as index:
        index.refresh()
        ranked = [c["node_id"] for c in index.search("frobnicator widget", limit=TIED_FILES * 2)]
        return ranked, index.pack(Query("frobnicator widget", max_tokens=1500)).prompt


def test_an_incremental_refresh_and_a_rebuild_give_the_same_packet_when_scores_tie(tmp_path: Path) -> None:
    for n in range(TIED_FILES):
        (tmp_path / f"f{n:03d}.txt").write_text(TEXT)
    with prooftext.open(tmp_path) as index:
        index.refresh()
    # The first half leaves the index and comes back: its rows are inserted again, after the others.
    first_half = [tmp_path / f"f{n:03d}.txt" for n in range(TIED_FILES // 2)]
    for path in first_half:
        path.rename(path.with_suffix(".moved"))
    with prooftext.open(tmp_path) as index:
        index.refresh()
    for path in first_half:
        path.with_suffix(".moved").rename(path)
    incremental = _ranking(tmp_path)
    with prooftext.open(tmp_path) as index:
        index.rebuild()
    assert _ranking(tmp_path) == incremental
