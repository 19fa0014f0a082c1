"""A code file with a candidate offers its opening (imports, module docstring, constants) at a share of its
best priority."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import prooftext
from helpers import ranked_hits
from prooftext import Query
from prooftext.select import expand
from prooftext.select.policy import DEFAULT_POLICY
from under_policy import packed_under, ranked_under

CODEC = '''"""Wire format helpers."""

import base64
import zlib

LEVEL = 6


def compress_payload(data):
    return base64.b64encode(zlib.compress(data, LEVEL))
'''

BARE = """def decompress_payload(blob):
    return blob
"""

SIZES = """import os


def payload_size(path):
    return os.path.getsize(path)  # the payload's bytes
"""

GUIDE = "# Payloads\n\nA payload is compressed before it is sent.\n"

ISSUE = "compress_payload drops bytes\n\nA payload is compressed wrongly: bytes go missing."


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "codec.py").write_text(CODEC, encoding="utf-8")
    (tmp_path / "bare.py").write_text(BARE, encoding="utf-8")
    (tmp_path / "guide.md").write_text(GUIDE, encoding="utf-8")
    (tmp_path / "sizes.py").write_text(SIZES, encoding="utf-8")
    return tmp_path


def _hits(repo: Path) -> list[dict[str, Any]]:
    return ranked_hits(repo, ISSUE)


def _opening(hits: list[dict[str, Any]], path: str) -> dict[str, Any] | None:
    found = [h for h in hits if h["path"] == path and h["components"].get("opening") == 1]
    assert len(found) <= 1
    return found[0] if found else None


def test_a_code_file_with_evidence_offers_the_lines_before_its_first_definition(repo: Path) -> None:
    opening = _opening(_hits(repo), "codec.py")
    assert opening is not None
    assert opening["excerpt_range"] == [1, 6]


def test_the_opening_weighs_a_share_of_its_files_best_candidate(repo: Path) -> None:
    hits = _hits(repo)
    opening = _opening(hits, "codec.py")
    assert opening is not None
    best = max(h["priority"] for h in hits if h["path"] == "codec.py" and h is not opening)
    assert opening["priority"] >= int(best * DEFAULT_POLICY.opening_factor)
    if opening["reason"] == expand.REASON_OPENING:
        assert opening["priority"] == int(best * DEFAULT_POLICY.opening_factor)


def test_only_the_best_files_offer_an_opening(repo: Path) -> None:
    assert _opening(_hits(repo), "sizes.py") is not None
    hits = ranked_under(repo, ISSUE, replace(DEFAULT_POLICY, opening_files=1))
    assert _opening(hits, "codec.py") is not None
    assert _opening(hits, "sizes.py") is None


def test_a_file_that_starts_with_a_definition_and_a_document_offer_none(repo: Path) -> None:
    hits = _hits(repo)
    assert _opening(hits, "bare.py") is None
    assert _opening(hits, "guide.md") is None


def test_the_packet_quotes_the_opening_whose_lines_hold_no_query_word(repo: Path) -> None:
    with prooftext.open(repo) as index:
        packet = index.pack(Query(ISSUE, max_tokens=4000))
    ranges = {(e.path, e.start_line, e.end_line) for e in packet.evidence}
    assert any(path == "codec.py" and start == 1 for path, start, _ in ranges)
    recorded = packet.trace["ranking"]["policy"]
    assert recorded["opening_factor_milli"] == int(DEFAULT_POLICY.opening_factor * 1000)
    assert recorded["opening_files"] == DEFAULT_POLICY.opening_files


def test_without_openings_those_lines_stay_out(repo: Path) -> None:
    # The opening is also the node before the best hit: a neighbour, which this test is not about.
    policy = replace(DEFAULT_POLICY, opening_files=0, neighbour_files=0)
    packet = packed_under(repo, ISSUE, policy, max_tokens=4000)
    assert not any(e.path == "codec.py" and e.start_line == 1 for e in packet.evidence)
