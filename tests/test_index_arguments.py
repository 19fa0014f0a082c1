"""The index's doors take what they document and refuse anything else with a coded error naming the
argument, never a bare ``TypeError`` or ``AttributeError`` from deep inside."""

from __future__ import annotations

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
