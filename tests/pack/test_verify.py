"""Verifying a saved packet: labels derived from the root's configuration, structure checked by the schema."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import prooftext
from helpers import promoted
from prooftext.errors import ArtifactError
from prooftext.pack.verify import BIT_DIGEST, verify_packet

QUERY = "separability_matrix of a compound model"
DOCS_PUBLIC = '[[labels]]\nglob = "docs/**"\nsensitivity = "public"\n'


def _saved(root: Path) -> dict[str, Any]:
    with prooftext.open(root) as index:
        packet: dict[str, Any] = json.loads(json.dumps(index.pack(QUERY).to_dict()))
    return packet


def test_a_packet_relabelled_and_redigested_fails_with_one_labels_problem_per_excerpt(
    sample_repo: Path,
) -> None:
    forged = promoted(_saved(sample_repo))
    with prooftext.open(sample_repo) as index:
        report = index.verify(forged)
    assert report.status == BIT_DIGEST
    assert [(p["kind"], p["path"]) for p in report.problems] == [
        ("labels", e["path"]) for e in forged["evidence"]
    ]
    assert "'owner-approved'" in report.problems[0]["detail"]
    assert "'repository-record'" in report.problems[0]["detail"]


def test_labels_are_derived_from_the_roots_current_configuration(sample_repo: Path) -> None:
    (sample_repo / "prooftext.toml").write_text(DOCS_PUBLIC)
    packet = _saved(sample_repo)
    assert {e["sensitivity"] for e in packet["evidence"] if e["path"].startswith("docs/")} == {"public"}
    assert verify_packet(packet, sample_repo).ok
    (sample_repo / "prooftext.toml").unlink()
    report = verify_packet(packet, sample_repo)
    assert report.status == BIT_DIGEST
    assert {(p["kind"], p["path"]) for p in report.problems} == {("labels", "docs/guide.md")}


def _set(key: str, value: object) -> Callable[[dict[str, Any]], None]:
    return lambda packet: packet["evidence"][0].__setitem__(key, value)


TAMPERED: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "an empty evidence item": (lambda p: p["evidence"].__setitem__(0, {}), "packet.evidence.0.node_id"),
    "lines as a string": (_set("lines", "1-9"), "packet.evidence.0.lines"),
    "three line numbers": (_set("lines", [1, 2, 3]), "packet.evidence.0.lines"),
    "a float line number": (_set("lines", [1.0, 2]), "packet.evidence.0.lines.0"),
    "a boolean line number": (_set("lines", [True, 2]), "packet.evidence.0.lines.0"),
    "a null path": (_set("path", None), "packet.evidence.0.path"),
    "a numeric authority": (_set("authority", 7), "packet.evidence.0.authority"),
    "an unknown version": (lambda p: p.__setitem__("version", "prooftext.packet/v999"), "packet.version"),
    "no prompt": (lambda p: p.pop("prompt"), "packet.prompt"),
}


@pytest.mark.parametrize("case", sorted(TAMPERED))
def test_a_packet_that_does_not_match_the_packet_schema_is_refused_naming_the_place(
    sample_repo: Path, case: str
) -> None:
    tamper, field = TAMPERED[case]
    packet = _saved(sample_repo)
    tamper(packet)
    with prooftext.open(sample_repo) as index, pytest.raises(ArtifactError) as caught:
        index.verify(packet)
    assert caught.value.code == "artifact_invalid"
    assert caught.value.details["field"] == field


@pytest.mark.parametrize("value", ["x", None, [], 3])
def test_index_verify_refuses_a_value_that_is_not_a_packet_object(sample_repo: Path, value: Any) -> None:
    with prooftext.open(sample_repo) as index, pytest.raises(ArtifactError) as caught:
        index.verify(value)
    assert caught.value.code == "artifact_invalid" and caught.value.details["field"] == "packet"
