"""The best files get their further lexical hits: their nodes that the corpus-wide hit limit dropped become
candidates, after the file's nodes with corpus-wide evidence."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from prooftext.select.fusion import REASON_RESCAN
from prooftext.select.policy import DEFAULT_POLICY, RankingPolicy
from under_policy import packed_under, ranked_under

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
POLICY = replace(DEFAULT_POLICY, fts_limit=1, rescan_files=1)
"""One corpus-wide lexical hit, as in a large repository where a long issue's rare words elsewhere fill the
hits: only ``parse_header`` is found by the corpus-wide search; the best file is searched again."""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "parser.py").write_text(PARSER, encoding="utf-8")
    (tmp_path / "tables.py").write_text(OTHER, encoding="utf-8")
    return tmp_path


def _hits(repo: Path, policy: RankingPolicy = POLICY) -> dict[str, dict[str, Any]]:
    return {h["qualname"]: h for h in ranked_under(repo, ISSUE, policy)}


def test_a_node_of_the_best_file_dropped_by_the_corpus_wide_limit_is_found_by_searching_the_file(
    repo: Path,
) -> None:
    hits = _hits(repo)
    folded = hits["fold_continuation"]
    assert folded["reason"] == REASON_RESCAN
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


def test_without_the_rescan_the_dropped_node_is_no_candidate(repo: Path) -> None:
    assert "fold_continuation" not in _hits(repo, replace(POLICY, rescan_files=0))


def test_the_rescan_is_recorded_in_the_ranking_trace(repo: Path) -> None:
    packet = packed_under(repo, ISSUE, POLICY)
    ranking = packet.trace["ranking"]
    assert ranking["policy"]["rescan_files"] == 1
    assert ranking["policy"]["rescan_limit"] == DEFAULT_POLICY.rescan_limit
    assert ranking["policy"]["rescan_pool"] == DEFAULT_POLICY.rescan_pool
    assert ranking["rescanned_files"] == ["parser.py"]
    assert ranking["rescanned_nodes"] >= 1
