"""``prooftext.repository_map``: the door's map over an index handle, brought up to date first."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import prooftext
from prooftext.errors import StoreError


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


def _damage_pages(root: Path) -> None:
    """Overwrite the store's pages after the first: SQLite opens it, then finds it malformed."""
    store = root / ".prooftext" / "index.sqlite"
    with store.open("r+b") as handle:
        handle.seek(4096)
        handle.write(b"\xff" * 8192)


@pytest.mark.parametrize(
    "door",
    [
        lambda index: prooftext.repository_map(index),
        lambda index: prooftext.risk_of_changing(index, ["separability_matrix"]),
    ],
    ids=["map", "risk"],
)
def test_a_damaged_store_is_store_corrupt_at_the_map_and_risk_doors(sample_repo: Path, door: Any) -> None:
    """Bringing the index up to date first read the store outside the translation of SQLite's errors: a
    damaged page surfaced as a bare ``DatabaseError`` (``internal_error`` on the command line)."""
    with prooftext.open(sample_repo) as index:
        index.refresh()
    _damage_pages(sample_repo)
    with prooftext.open(sample_repo) as index, pytest.raises(StoreError) as caught:
        door(index)
    assert caught.value.code == "store_corrupt"


def test_the_map_weighs_files_under_the_handle_s_ranking_policy(sample_repo: Path) -> None:
    """``prooftext.open(root, ranking=...)`` ranks every search and pack of the handle; the map, which weighs
    files as the packet ranking does, used to rank under the default policy whatever the handle's."""
    (sample_repo / "tests").mkdir()
    (sample_repo / "tests" / "test_core.py").write_text(
        "from modeling.core import CompoundModel\n\n\ndef test_compound():\n    assert CompoundModel(1, 2)\n",
        encoding="utf-8",
    )
    settings = prooftext.MapSettings(max_tokens=2000, query="compound model")
    with prooftext.open(sample_repo) as index:
        default = prooftext.repository_map(index, settings)
    tests_first = prooftext.RankingPolicy.from_dict({"test_factor_milli": 10_000, "doc_factor_milli": 10})
    with prooftext.open(sample_repo, ranking=tests_first) as index:
        weighed = prooftext.repository_map(index, settings)
    assert default.paths.index("tests/test_core.py") > weighed.paths.index("tests/test_core.py")


def test_a_query_of_stop_words_alone_is_query_empty_without_pointing_at_required_sources(
    sample_repo: Path,
) -> None:
    """A map has no required sources: the packet's hint "or require a source" sent the user to an option the
    map does not have."""
    with prooftext.open(sample_repo) as index, pytest.raises(prooftext.ProoftextError) as caught:
        prooftext.repository_map(index, prooftext.MapSettings(query="the of and"))
    assert caught.value.code == "query_empty"
    assert "require" not in caught.value.message and "leave the query out" in caught.value.message
