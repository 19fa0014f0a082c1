"""Contradiction components are taken or excluded atomically; a required member makes its component required."""

from __future__ import annotations

from pathlib import Path

import pytest

import prooftext
from helpers import write_tree
from prooftext import Query
from prooftext.errors import BudgetError

DOCS = {
    "docs/retention.md": "---\ncontradicts: [docs/policy.md]\n---\n# Retention\n\nLogs are kept for 30 days.\n",
    "docs/policy.md": "# Policy\n\nLogs are kept for ninety days in cold storage.\n" + "More words.\n" * 40,
    "src/app.py": "def rotate_logs():\n    return 30\n",
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "repo", DOCS)


def test_selecting_one_side_brings_the_other_side_whole(repo: Path) -> None:
    with prooftext.open(repo) as index:
        packet = index.pack("retention logs kept 30 days")
    paths = [e.path for e in packet.evidence]
    assert {"docs/retention.md", "docs/policy.md"} <= set(paths)
    policy = next(e for e in packet.evidence if e.path == "docs/policy.md")
    assert (policy.start_line, policy.end_line) == (1, 43)


def test_a_component_that_does_not_fit_is_excluded_as_a_unit(repo: Path) -> None:
    with prooftext.open(repo) as index:
        packet = index.pack(Query("retention logs kept 30 days", max_tokens=260))
    assert not {"docs/retention.md", "docs/policy.md"} & {e.path for e in packet.evidence}
    reasons = {e["path"]: e["reason"] for e in packet.excluded if e["path"].startswith("docs/")}
    assert reasons == {
        "docs/retention.md": "contradiction_component",
        "docs/policy.md": "contradiction_component",
    }
    assert packet.prompt_tokens.count <= 260


def test_a_required_member_makes_the_whole_component_required(repo: Path) -> None:
    with prooftext.open(repo) as index:
        packet = index.pack(Query("rotate", required=("docs/retention.md",)))
        assert [e.reason for e in packet.evidence[:2]] == ["required", "contradicts docs/retention.md"]
        with pytest.raises(BudgetError):
            index.pack(Query("rotate", required=("docs/retention.md",), max_tokens=300))
