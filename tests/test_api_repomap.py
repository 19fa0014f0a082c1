"""``prooftext.repository_map``: the door's map over an index handle, brought up to date first."""

from __future__ import annotations

from pathlib import Path

import prooftext


def test_the_map_refreshes_the_index_first_so_a_new_file_is_named(sample_repo: Path) -> None:
    with prooftext.open(sample_repo) as index:
        index.refresh()
        (sample_repo / "fresh.py").write_text("def brand_new():\n    return 1\n", encoding="utf-8")
        built = prooftext.repository_map(index, prooftext.MapSettings(identifiers=("brand_new",)))
    assert built.paths[0] == "fresh.py"
    assert prooftext.verify(built.to_dict(), sample_repo).ok


def test_without_refresh_the_map_reads_the_index_as_it_is(sample_repo: Path) -> None:
    with prooftext.open(sample_repo) as index:
        index.refresh()
        (sample_repo / "fresh.py").write_text("def brand_new():\n    return 1\n", encoding="utf-8")
        built = prooftext.repository_map(index, refresh=False)
    assert "fresh.py" not in built.paths
