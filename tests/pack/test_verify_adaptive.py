"""Verifying an adaptive result: every member of its packet that the README says verify covers is caught
when edited; the record of the climb is held to its schema, and only a signature covers the rest of it."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import prooftext
from prooftext.errors import ArtifactError
from prooftext.pack.verify import BIT_DIGEST, BIT_FORGED, BIT_SOURCE

Edit = Callable[[dict[str, Any]], None]
QUESTION = "separability_matrix of a compound model"


def _result(root: Path) -> dict[str, Any]:
    ladder = prooftext.Ladder(min_tokens=150, token_step=100, max_tokens=2000, min_coverage_bps=10_000)
    with prooftext.open(root) as index:
        data = index.adaptive_pack(QUESTION, ladder=ladder).to_dict()
    out: dict[str, Any] = json.loads(json.dumps(data))
    assert len(out["rounds"]) > 1 and out["packet"]["evidence"]
    return out


def _first(value: dict[str, Any]) -> dict[str, Any]:
    first: dict[str, Any] = value["packet"]["evidence"][0]
    return first


def _set(*where: str | int, to: object) -> Edit:
    def edit(value: dict[str, Any]) -> None:
        place: Any = value
        for step in where[:-1]:
            place = place[step]
        place[where[-1]] = to

    return edit


COVERED: dict[str, tuple[Edit, int, str]] = {
    "prompt": (lambda v: v["packet"].update(prompt=v["packet"]["prompt"] + " "), BIT_DIGEST, "digest"),
    "blake3": (_set("packet", "blake3", to="0" * 64), BIT_DIGEST, "digest"),
    "nonce": (_set("packet", "nonce", to="1234567890"), BIT_DIGEST, "nonce"),
    "format": (_set("packet", "format", to="xml"), BIT_DIGEST, "content"),
    "prompt_tokens": (_set("packet", "prompt_tokens", "count", to=1), BIT_DIGEST, "token_count"),
    "excerpt sha256": (lambda v: _first(v).update(sha256="0" * 64), BIT_SOURCE, "source_drift"),
    "excerpt lines": (lambda v: _first(v).update(lines=[1, 2]), BIT_DIGEST, "content"),
    "excerpt authority": (lambda v: _first(v).update(authority="owner-approved"), BIT_DIGEST, "labels"),
    "excerpt sensitivity": (lambda v: _first(v).update(sensitivity="public"), BIT_DIGEST, "labels"),
    "query text": (_set("packet", "query", "text", to="another question"), BIT_DIGEST, "content"),
    "query max_tokens": (_set("packet", "query", "max_tokens", to=10), BIT_DIGEST, "ceiling"),
    "query max_nodes": (_set("packet", "query", "max_nodes", to=0), BIT_DIGEST, "ceiling"),
    "query tokenizer": (_set("packet", "query", "tokenizer", to="cl100k_base"), BIT_DIGEST, "basis"),
    "query clearance": (_set("packet", "query", "clearance", to="public"), BIT_DIGEST, "clearance"),
}


@pytest.mark.parametrize("member", sorted(COVERED))
def test_an_edit_to_a_covered_member_of_an_adaptive_results_packet_fails_verification(
    sample_repo: Path, member: str
) -> None:
    edit, bit, kind = COVERED[member]
    value = _result(sample_repo)
    assert prooftext.verify(value, sample_repo).ok
    edit(value)
    report = prooftext.verify(value, sample_repo)
    assert report.status & bit and kind in {p["kind"] for p in report.problems}


SHAPE: dict[str, Edit] = {
    "stop_reason": _set("stop_reason", to="answer_correct"),
    "selected_round": _set("selected_round", to=0),
    "digests": _set("digests", 0, to="not a digest"),
    "rounds": _set("rounds", to=[]),
    "estimator": lambda v: v["estimator"].pop("version"),
    "estimated_sufficient": _set("estimated_sufficient", to="yes"),
    "kernel_tokens": _set("kernel_tokens", to=-1),
    "request": _set("request", "max_tokens", to=0),
}


@pytest.mark.parametrize("member", sorted(SHAPE))
def test_an_adaptive_result_whose_record_breaks_its_schema_is_refused_naming_the_member(
    sample_repo: Path, member: str
) -> None:
    value = _result(sample_repo)
    SHAPE[member](value)
    with pytest.raises(ArtifactError) as caught:
        prooftext.verify(value, sample_repo)
    assert caught.value.code == "artifact_invalid"
    assert caught.value.details["field"].startswith(f"packet.{member}")


RECORD: dict[str, Edit] = {
    "stop_reason": _set("stop_reason", to="hard_limit_reached"),
    "selected_round": _set("selected_round", to=1),
    "digests": _set("digests", 0, to="0" * 64),
    "rounds": lambda v: v["rounds"].pop(0),
    "estimated_sufficient": lambda v: v.update(estimated_sufficient=not v["estimated_sufficient"]),
    "request": _set("request", "max_tokens", to=9999),
}


@pytest.mark.parametrize("member", sorted(RECORD))
def test_an_edit_to_the_record_of_the_climb_is_caught_by_a_signature_only(
    sample_repo: Path, member: str, tmp_path: Path
) -> None:
    """As the README says: the record is held to its schema, not to the packet; a signature covers it."""
    key = prooftext.SigningKey.generate(tmp_path / "key")
    value = _result(sample_repo)
    signed = prooftext.sign(value, key)
    RECORD[member](value)
    assert prooftext.verify(value, sample_repo).ok
    RECORD[member](signed)
    assert prooftext.verify(signed, sample_repo, key=key).status == BIT_FORGED


def test_a_genuine_adaptive_result_verifies_signed_and_unsigned(sample_repo: Path, tmp_path: Path) -> None:
    key = prooftext.SigningKey.generate(tmp_path / "key")
    value = _result(sample_repo)
    assert prooftext.verify(copy.deepcopy(value), sample_repo).ok
    assert prooftext.verify(prooftext.sign(value, key), sample_repo, key=key).signature == "valid"
