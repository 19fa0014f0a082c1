"""The index's doors take what they document and refuse anything else with a coded error naming the
argument, never a bare ``TypeError`` or ``AttributeError`` from deep inside."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import prooftext
from prooftext.errors import RequestError, RootError, StoreError


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda index: index.pack(None), "query"),
        (lambda index: index.pack(5), "query"),
        (lambda index: index.pack("separability", refresh="no"), "refresh"),
        (lambda index: index.adaptive_pack(5), "query"),
        (lambda index: index.adaptive_pack("separability", ladder=None), "ladder"),
        (lambda index: index.adaptive_pack("separability", on_round=1), "on_round"),
        (lambda index: index.adaptive_pack("separability", refresh=[]), "refresh"),
    ],
    ids=["pack-none", "pack-int", "pack-refresh", "adaptive-int", "ladder", "on_round", "adaptive-refresh"],
)
def test_an_argument_of_the_wrong_type_is_a_request_error_naming_it(
    sample_repo: Path, call: Any, field: str
) -> None:
    with prooftext.open(sample_repo) as index, pytest.raises(RequestError) as caught:
        call(index)
    assert caught.value.details["field"] == field


def test_the_documented_arguments_still_pack(sample_repo: Path) -> None:
    with prooftext.open(sample_repo) as index:
        assert index.pack(prooftext.Query("separability", max_tokens=2000), refresh=True).evidence
        result = index.adaptive_pack("separability", ladder=prooftext.Ladder(), on_round=None, refresh=False)
    assert result.packet.evidence


@pytest.mark.parametrize(
    "call",
    [
        lambda index: index.refresh(),
        lambda index: index.pack("separability"),
        lambda index: index.status(),
        lambda index: prooftext.repository_map(index),
        lambda index: prooftext.risk_of_changing(index, ["separability_matrix"]),
        lambda index: prooftext.read_range(index, "modeling/separable.py"),
    ],
    ids=["refresh", "pack", "status", "map", "risk", "read_range"],
)
def test_a_closed_handle_is_a_store_error_for_every_call(sample_repo: Path, call: Any) -> None:
    index = prooftext.open(sample_repo)
    index.close()
    with pytest.raises(StoreError, match="closed"):
        call(index)
    index.close()  # closing twice is harmless


@pytest.mark.parametrize("root", [None, 5, "\x00", "/tmp/\ud800"], ids=["none", "int", "nul", "surrogate"])
@pytest.mark.parametrize(
    "door",
    [
        prooftext.open,
        prooftext.fsck,
        prooftext.MemoryStore.open,
        prooftext.memory_export,
        lambda root: prooftext.verify({}, root),
    ],
    ids=["open", "fsck", "memory", "export", "verify"],
)
def test_a_root_that_is_no_path_is_root_invalid_at_every_door(root: object, door: Any) -> None:
    with pytest.raises(RootError) as caught:
        door(root)
    assert caught.value.code == "root_invalid"


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"ranking": {"fts_limit": 5}}, "ranking"),
        ({"ranking": None}, "ranking"),
        ({"config": {"exclude": ["*.md"]}}, "config"),
        ({"config": "prooftext.toml"}, "config"),
    ],
    ids=["ranking-dict", "ranking-none", "config-dict", "config-str"],
)
def test_open_refuses_a_ranking_or_configuration_that_is_not_its_value_object(
    sample_repo: Path, options: dict[str, object], field: str
) -> None:
    """It used to open, then fail at the first pack with an ``AttributeError``."""
    with pytest.raises(RequestError) as caught:
        prooftext.open(sample_repo, **options)  # type: ignore[arg-type]
    assert caught.value.details["field"] == field


def test_assigning_a_ranking_that_is_not_a_policy_is_refused_and_keeps_the_old_one(sample_repo: Path) -> None:
    with prooftext.open(sample_repo) as index:
        with pytest.raises(RequestError) as caught:
            index.ranking = {"fts_limit": 5}  # type: ignore[assignment]
        assert caught.value.details["field"] == "ranking"
        index.ranking = prooftext.RankingPolicy.from_dict({"fts_limit": 5})
        assert index.ranking.fts_limit == 5 and index.pack("separability").evidence


def _verify_through_a_handle(root: Path, packet: object, key: object) -> object:
    with prooftext.open(root) as index:
        return index.verify(packet, key=key)  # type: ignore[arg-type]


@pytest.mark.parametrize("key", ["secret", b"k" * 32, 5], ids=["str", "bytes", "int"])
@pytest.mark.parametrize(
    "door",
    [
        lambda root, packet, key: prooftext.verify(packet, root, key=key),
        lambda root, packet, key: _verify_through_a_handle(root, packet, key),
        lambda root, packet, key: prooftext.sign(packet, key),
    ],
    ids=["verify", "index-verify", "sign"],
)
def test_a_key_that_is_not_a_signing_key_is_signing_key_invalid(
    sample_repo: Path, key: object, door: Any
) -> None:
    with prooftext.open(sample_repo) as index:
        packet = index.pack("separability").to_dict()
    with pytest.raises(prooftext.ProoftextError) as caught:
        door(sample_repo, packet, key)
    assert caught.value.code == "signing_key_invalid"
    assert caught.value.details["field"] == "key"


@pytest.mark.parametrize(
    "call",
    [
        lambda root: prooftext.repository_map(root),
        lambda root: prooftext.risk_of_changing(root, ["separability_matrix"]),
        lambda root: prooftext.read_range(root, "modeling/separable.py"),
    ],
    ids=["map", "risk", "read_range"],
)
def test_a_root_given_where_an_index_handle_is_due_is_a_request_error_naming_index(
    sample_repo: Path, call: Any
) -> None:
    with pytest.raises(RequestError) as caught:
        call(str(sample_repo))
    assert caught.value.details["field"] == "index"


def test_a_handle_verifies_a_saved_packet_file_as_prooftext_verify_does(
    sample_repo: Path, tmp_path: Path
) -> None:
    saved = tmp_path / "packet.json"
    with prooftext.open(sample_repo) as index:
        saved.write_text(json.dumps(index.pack("separability").to_dict()), encoding="utf-8")
        assert index.verify(saved).ok and index.verify(str(saved)).ok
    assert prooftext.verify(saved, sample_repo).ok


@pytest.mark.parametrize("indexed", [True, False], ids=["indexed", "never-indexed"])
def test_status_of_refuses_a_configuration_that_is_not_its_value_object(
    sample_repo: Path, indexed: bool
) -> None:
    if indexed:
        with prooftext.open(sample_repo) as index:
            index.refresh()
    with pytest.raises(RequestError) as caught:
        prooftext.Index.status_of(sample_repo, config={"exclude": []})  # type: ignore[arg-type]
    assert caught.value.details["field"] == "config"
