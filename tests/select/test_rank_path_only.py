"""A node found through its file's path alone carries no evidence of its own: it follows the nodes of its file
whose text holds the query's words, while the path still counts for the file."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from prooftext.select.policy import DEFAULT_POLICY
from under_policy import ranked_under

STOP = '''"""When the climb ends."""


def decide_stop(rounds):
    """Stop adding evidence once the last round holds enough of it."""
    for number, found in enumerate(rounds):
        if found.enough:
            return number
    return len(rounds)


def main():
    run()
'''
QUERY = "when does the ladder stop adding evidence?"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "ladder").mkdir()
    (tmp_path / "ladder" / "stop.py").write_text(STOP, encoding="utf-8")
    (tmp_path / "notes.md").write_text("# Notes\n\nNothing about climbing here.\n", encoding="utf-8")
    return tmp_path


def _by_name(repo: Path, named_only_last: bool = True) -> dict[str, dict[str, Any]]:
    """The candidates of ``ladder/stop.py`` by name, found by evidence alone (no neighbours, no openings)."""
    policy = replace(DEFAULT_POLICY, named_only_last=named_only_last, neighbour_files=0, opening_files=0)
    hits = ranked_under(repo, QUERY, policy)
    return {h["qualname"]: h for h in hits if h["path"] == "ladder/stop.py"}


def test_a_node_whose_text_holds_no_query_word_follows_its_files_matching_node(repo: Path) -> None:
    found = _by_name(repo)
    main, decide = found["main"], found["decide_stop"]
    assert main["components"]["path_only"] == 1 and main["components"]["named_only"] == 1
    assert main["components"]["node_lexical"] == 0 and main["reason"] == "path"
    assert "path_only" not in decide["components"] and decide["reason"] == "lexical"
    assert decide["components"]["rank_in_file"] < main["components"]["rank_in_file"]
    assert decide["priority"] > main["priority"]


def test_the_path_still_counts_for_the_file_and_its_nodes_stay_candidates(repo: Path) -> None:
    found = _by_name(repo)
    assert {"decide_stop", "main", "L1-L1"} <= set(found)
    assert found["main"]["components"]["lexical"] == found["decide_stop"]["components"]["lexical"] > 0


def test_without_the_named_only_rule_the_node_keeps_no_evidence_of_its_own(repo: Path) -> None:
    found = _by_name(repo, named_only_last=False)
    assert found["main"]["components"]["path_only"] == 1 and "named_only" not in found["main"]["components"]
    assert found["decide_stop"]["priority"] > found["main"]["priority"]
