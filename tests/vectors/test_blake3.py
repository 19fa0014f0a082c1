"""The 22 official BLAKE3 test vectors (``../shared/vectors/blake3``) against the ``blake3`` package.

Each case checks hash, keyed_hash and derive_key (66 checks): the full 131-byte extended output and the
32-byte default digest, which must be its prefix. Input of case ``n`` is the bytes ``i % 251`` for i < n.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from blake3 import blake3

from helpers import shared_path

VECTORS = Path("vectors") / "blake3" / "test_vectors.json"
ABSENT = "../shared/vectors/blake3 is not present beside this checkout (set PROOFTEXT_SHARED)"
MODES = ("hash", "keyed_hash", "derive_key")


@pytest.fixture
def shared(shared: Path) -> Path:
    """conftest's ``shared`` folder; skips with a reason when it lacks this module's vectors."""
    if not (shared / VECTORS).exists():
        pytest.skip(ABSENT)
    return shared


def _load(root: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / VECTORS).read_text(encoding="utf-8"))
    return data


def _cases() -> list[object]:
    """(input_len, mode) pairs read at collection time; one skipped placeholder when the data is absent."""
    root = shared_path()
    if root is None or not (root / VECTORS).is_file():
        return [pytest.param(-1, "absent", marks=pytest.mark.skip(reason=ABSENT), id="absent")]
    lengths = [case["input_len"] for case in _load(root)["cases"]]
    return [pytest.param(n, mode, id=f"{mode}-{n}") for n in lengths for mode in MODES]


def test_the_vector_file_has_22_cases_with_the_official_key_and_context(shared: Path) -> None:
    data = _load(shared)
    assert len(data["cases"]) == 22
    assert data["key"] == "whats the Elvish word for friend"
    assert data["context_string"] == "BLAKE3 2019-12-27 16:29:52 test vectors context"
    assert all(len(case[mode]) == 262 for case in data["cases"] for mode in MODES)


@pytest.mark.parametrize(("input_len", "mode"), _cases())
def test_blake3_matches_the_official_vector(shared: Path, input_len: int, mode: str) -> None:
    data = _load(shared)
    case = next(c for c in data["cases"] if c["input_len"] == input_len)
    message = bytes(i % 251 for i in range(input_len))
    if mode == "hash":
        hasher = blake3(message)
    elif mode == "keyed_hash":
        hasher = blake3(message, key=data["key"].encode("ascii"))
    else:
        hasher = blake3(message, derive_key_context=data["context_string"])
    expected = bytes.fromhex(case[mode])
    assert len(expected) == 131
    assert hasher.digest(length=131) == expected
    assert hasher.digest() == expected[:32]
    assert hasher.hexdigest() == case[mode][:64]
