"""Verify holds a packet to the limits its own query declares: a budget it breaks, a count in another
basis, an excerpt above its clearance, a node ceiling it exceeds or a truncation it forbids all fail."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import prooftext
from helpers import pack_fields
from prooftext.pack.verify import (
    BIT_DIGEST,
    KIND_BASIS,
    KIND_CEILING,
    KIND_CLEARANCE,
    KIND_TRUNCATION,
    verify_packet,
)
from prooftext.tokens import BYTES_BASIS

QUERY = "separability_matrix of a compound model"
TRUNCATING_CEILING = 250
"""A budget at which the sample repository's packet shortens its one excerpt (when allowed to)."""


def _saved(root: Path, **kw: Any) -> dict[str, Any]:
    with prooftext.open(root) as index:
        packet: dict[str, Any] = json.loads(json.dumps(pack_fields(index, QUERY, **kw).to_dict()))
    assert verify_packet(packet, root).ok
    return packet


def _kinds(packet: dict[str, Any], root: Path) -> list[tuple[str, str | None]]:
    report = verify_packet(packet, root)
    assert report.status == BIT_DIGEST
    return [(p["kind"], p.get("field") or p.get("path")) for p in report.problems]


def test_a_packet_whose_declared_token_ceiling_is_below_its_count_fails(sample_repo: Path) -> None:
    packet = _saved(sample_repo)
    packet["query"]["max_tokens"] = packet["prompt_tokens"]["count"] - 1
    assert _kinds(packet, sample_repo) == [(KIND_CEILING, "max_tokens")]


def test_a_packet_whose_declared_node_ceiling_is_below_the_nodes_it_quotes_fails(sample_repo: Path) -> None:
    packet = _saved(sample_repo)
    packet["query"]["max_nodes"] = sum(1 + len(e["joined"]) for e in packet["evidence"]) - 1
    assert _kinds(packet, sample_repo) == [(KIND_CEILING, "max_nodes")]


def test_a_packet_counted_in_bytes_while_its_query_names_a_tokenizer_fails(sample_repo: Path) -> None:
    packet = _saved(sample_repo)
    packet["prompt_tokens"] = {"count": len(packet["prompt"].encode()), "basis": BYTES_BASIS}
    assert _kinds(packet, sample_repo) == [(KIND_BASIS, None)]


def test_a_packet_whose_query_names_no_known_tokenizer_fails(sample_repo: Path) -> None:
    packet = _saved(sample_repo)
    packet["query"]["tokenizer"] = "gpt2"
    assert (KIND_BASIS, None) in _kinds(packet, sample_repo)


def test_a_packet_whose_clearance_was_lowered_below_its_evidence_fails_once_per_excerpt(
    sample_repo: Path,
) -> None:
    packet = _saved(sample_repo)
    assert {e["sensitivity"] for e in packet["evidence"]} == {"repository-private"}
    packet["query"]["clearance"] = "public"
    assert _kinds(packet, sample_repo) == [(KIND_CLEARANCE, e["path"]) for e in packet["evidence"]]


def test_a_packet_without_a_clearance_fails(sample_repo: Path) -> None:
    packet = _saved(sample_repo)
    del packet["query"]["clearance"]
    assert _kinds(packet, sample_repo) == [(KIND_CLEARANCE, None)]


def test_a_shortened_excerpt_in_a_packet_that_forbids_truncation_fails(sample_repo: Path) -> None:
    packet = _saved(sample_repo, max_tokens=TRUNCATING_CEILING, allow_truncated=True)
    shortened = [e["path"] for e in packet["evidence"] if e["truncated_from"] is not None]
    assert shortened
    packet["query"]["allow_truncated"] = False
    assert _kinds(packet, sample_repo) == [(KIND_TRUNCATION, path) for path in shortened]


def test_a_byte_packet_is_checked_against_its_byte_ceiling(sample_repo: Path) -> None:
    packet = _saved(sample_repo, unit="bytes", max_tokens=4096)
    assert packet["prompt_tokens"]["basis"] == BYTES_BASIS
    packet["query"]["max_tokens"] = len(packet["prompt"].encode()) - 1
    assert _kinds(packet, sample_repo) == [(KIND_CEILING, "max_tokens")]
