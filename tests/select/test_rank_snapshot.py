"""A ranking reads one state of the store: a refresh that commits while it runs changes nothing in it, and
nothing it caches describes a state other than the generation it read."""

from __future__ import annotations

from pathlib import Path

import pytest

import prooftext
from prooftext.cache import GenerationCache
from prooftext.select import reads

QUERY = "separability matrix of a compound model"


def _ranking(index: prooftext.Index) -> list[tuple[str, str, int]]:
    return [(c["path"], c["node_id"], c["priority"]) for c in index.search(QUERY, limit=100)]


def test_a_refresh_committed_during_a_ranking_does_not_reach_it(
    sample_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with prooftext.open(sample_repo) as index:
        index.refresh()
        before = _ranking(index)
        assert any(path == "modeling/separable.py" for path, _, _ in before)
        monkeypatch.setattr(reads, "lexical_hits", GenerationCache(reads.LEXICAL_HIT_CACHE_HITS))
        scored = reads.bm25_hits
        edits: list[str] = []

        def refresh_midway(*args: object) -> object:
            if not edits:
                edits.append("removed separable.py")
                (sample_repo / "modeling" / "separable.py").unlink()
                with prooftext.open(sample_repo) as writer:
                    assert writer.refresh().files_removed == 1
            return scored(*args)  # type: ignore[arg-type]

        monkeypatch.setattr(reads, "bm25_hits", refresh_midway)
        during = _ranking(index)
        monkeypatch.undo()
        assert edits and during == before
        after = _ranking(index)
    assert after and not any(path == "modeling/separable.py" for path, _, _ in after)
