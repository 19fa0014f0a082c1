"""The best files get their further lexical hits: their nodes that the corpus-wide hit limit dropped become
candidates, after the file's nodes with corpus-wide evidence."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import prooftext
from helpers import ranked_hits
from prooftext.select import rank

PARSER = '''def parse_header(line):
    """Parse a header line: a malformed header raises, an empty one is skipped."""
    name, _, value = line.partition(":")
    return name.strip(), value.strip()


def split_fields(value):
    return [part for part in value.split(";") if part]


def fold_continuation(lines):
    return " ".join(line.strip() for line in lines if line.startswith(" "))
'''

OTHER = """def render_table(rows):
    return "\\n".join(";".join(row) for row in rows)


def continuation_marker():
    return "continuation"
"""

ISSUE = (
    "parse_header fails on a malformed header\n\n"
    "A header whose value is folded over a continuation line is not parsed: fields after the fold are lost."
)
CORPUS_HITS = 1
"""One corpus-wide lexical hit, as in a large repository where a long issue's rare words elsewhere fill the
hits: only ``parse_header`` is found by the corpus-wide search."""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "parser.py").write_text(PARSER, encoding="utf-8")
    (tmp_path / "tables.py").write_text(OTHER, encoding="utf-8")
    monkeypatch.setattr(rank, "FTS_LIMIT", CORPUS_HITS)
    monkeypatch.setattr(rank, "RESCAN_FILES", 1)
    return tmp_path


def _hits(repo: Path) -> dict[str, dict[str, Any]]:
    return {h["qualname"]: h for h in ranked_hits(repo, ISSUE)}


def test_a_node_of_the_best_file_dropped_by_the_corpus_wide_limit_is_found_by_searching_the_file(
    repo: Path,
) -> None:
    hits = _hits(repo)
    folded = hits["fold_continuation"]
    assert folded["reason"] == rank.REASON_RESCAN
    assert folded["components"]["rescanned"] == 1
    assert "rescanned" not in hits["parse_header"]["components"]


def test_a_rescanned_node_follows_the_nodes_of_its_file_with_corpus_wide_evidence(repo: Path) -> None:
    hits = _hits(repo)
    assert (
        hits["parse_header"]["components"]["rank_in_file"]
        < hits["fold_continuation"]["components"]["rank_in_file"]
    )


def test_only_the_best_files_are_searched_again(repo: Path) -> None:
    assert "continuation_marker" not in _hits(repo)


def test_without_the_rescan_the_dropped_node_is_no_candidate(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rank, "RESCAN_FILES", 0)
    assert "fold_continuation" not in _hits(repo)


def test_the_rescan_is_recorded_in_the_ranking_trace(repo: Path) -> None:
    with prooftext.open(repo) as index:
        packet = index.pack(ISSUE)
    ranking = packet.trace["ranking"]
    assert ranking["constants"]["rescan_files"] == 1
    assert ranking["constants"]["rescan_limit"] == rank.RESCAN_LIMIT
    assert ranking["constants"]["rescan_pool"] == rank.RESCAN_POOL
    assert ranking["rescanned_files"] == ["parser.py"]
    assert ranking["rescanned_nodes"] >= 1
