"""RFC 8785 (JCS) vectors (``../shared/vectors/jcs``) against prooftext's canonical JSON.

Our canonical form and JCS agree on most things (sorted keys, no whitespace, the same short escapes,
integers written as plain digits) and differ by design in three places (DESIGN.md "Fixed decisions"):

1. **Non-ASCII**: JCS emits raw UTF-8; we escape every character outside ``' '..'~'`` as ``\\uXXXX``
   (``ensure_ascii``; astral characters as surrogate-pair escapes, DEL as ``\\u007f``).
2. **Key order**: JCS sorts keys by UTF-16 code units; we sort by code point. They differ only when a key
   holds an astral character and another a BMP character at or above U+E000.
3. **Numbers**: JCS serializes IEEE-754 doubles; we accept integers only, so any float is ``json_float``.

Each vector is checked against the rule that applies to it, so both the agreements and the differences
are stated precisely rather than skipped.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from helpers import shared_path
from prooftext import canonical
from prooftext.errors import CanonicalJSONError

JCS = Path("vectors") / "jcs"
ABSENT = "../shared/vectors/jcs is not present beside this checkout (set PROOFTEXT_SHARED)"

# How each vector relates to our canonical form.
IDENTICAL = {"arrays"}  # ASCII only, no floats: byte-identical
ESCAPED = {"french", "unicode"}  # identical once JCS's raw UTF-8 is written as \u escapes
KEY_ORDER = {"weird"}  # also differs in key order (UTF-16 units vs code points)
FLOATS = {"structures", "values"}  # floats present: rejected with json_float
ALL = IDENTICAL | ESCAPED | KEY_ORDER | FLOATS


@pytest.fixture
def shared(shared: Path) -> Path:
    """conftest's ``shared`` folder; skips with a reason when it lacks this module's vectors."""
    if not (shared / JCS).exists():
        pytest.skip(ABSENT)
    return shared


def _names() -> list[object]:
    root = shared_path()
    if root is None or not (root / JCS / "input").is_dir():
        return [pytest.param("absent", marks=pytest.mark.skip(reason=ABSENT), id="absent")]
    return [pytest.param(p.stem, id=p.stem) for p in sorted((root / JCS / "input").glob("*.json"))]


def read(shared: Path, name: str) -> tuple[bytes, bytes]:
    """(input bytes, JCS canonical output bytes); the output must equal its hex twin."""
    data = (shared / JCS / "input" / f"{name}.json").read_bytes()
    expected = (shared / JCS / "output" / f"{name}.json").read_bytes()
    hex_text = (shared / JCS / "outhex" / f"{name}.txt").read_text(encoding="ascii")
    assert bytes.fromhex("".join(hex_text.split())) == expected
    return data, expected


def ascii_escaped(jcs_output: bytes) -> bytes:
    """JCS output with every raw character outside ``' '..'~'`` written the way ``ensure_ascii`` does."""
    text = jcs_output.decode("utf-8")
    assert not re.search("[\x00-\x1f]", text), "JCS escapes control characters itself"

    def escape(match: re.Match[str]) -> str:
        units = match.group().encode("utf-16-be")
        return "".join(f"\\u{units[i] << 8 | units[i + 1]:04x}" for i in range(0, len(units), 2))

    return re.sub("[^\x20-\x7e]", escape, text).encode("ascii")


def members(obj: bytes) -> list[bytes]:
    """The ``"key":value`` members of a flat object whose keys and values hold no comma."""
    assert obj.startswith(b"{") and obj.endswith(b"}")
    return obj[1:-1].split(b",")


def utf16_units(key: str) -> bytes:
    return key.encode("utf-16-be")


@pytest.mark.parametrize("name", _names())
def test_every_vector_is_classified(shared: Path, name: str) -> None:
    assert name in ALL


def test_the_six_rfc8785_vectors_are_present(shared: Path) -> None:
    assert {p.stem for p in (shared / JCS / "input").glob("*.json")} == ALL


@pytest.mark.parametrize("name", sorted(IDENTICAL))
def test_ascii_vectors_without_floats_are_byte_identical_to_jcs(shared: Path, name: str) -> None:
    data, expected = read(shared, name)
    assert canonical.encode(canonical.load(data)) == expected
    assert canonical.is_canonical(expected)


@pytest.mark.parametrize("name", sorted(ESCAPED))
def test_non_ascii_vectors_equal_jcs_once_its_utf8_is_escaped(shared: Path, name: str) -> None:
    """Difference 1 only: same members, same order, same value; JCS writes UTF-8 where we escape."""
    data, expected = read(shared, name)
    ours = canonical.encode(canonical.load(data))
    assert ours != expected
    assert ours == ascii_escaped(expected)
    assert canonical.load(ours) == json.loads(expected)


def test_unicode_vector_is_not_normalized(shared: Path) -> None:
    data, _ = read(shared, "unicode")
    assert canonical.load(data) == {"Unnormalized Unicode": "A\u030a"}


def test_weird_vector_differs_from_jcs_only_in_escapes_and_astral_key_order(shared: Path) -> None:
    """Differences 1 and 2: the same members byte for byte (after escaping), ordered differently."""
    data, expected = read(shared, "weird")
    ours = canonical.encode(canonical.load(data))
    theirs = ascii_escaped(expected)
    assert canonical.load(ours) == json.loads(expected)
    assert sorted(members(ours)) == sorted(members(theirs))
    assert members(ours) != members(theirs)

    our_keys = list(json.loads(ours))
    jcs_keys = list(json.loads(expected))
    assert our_keys == sorted(our_keys)  # code points
    assert jcs_keys == sorted(jcs_keys, key=utf16_units)  # UTF-16 code units
    # The one inversion: U+1F602 (units D83D DE02) against U+FB33.
    assert jcs_keys.index("\U0001f602") < jcs_keys.index("\ufb33")
    assert our_keys.index("\ufb33") < our_keys.index("\U0001f602")
    assert [k for k in our_keys if k not in ("\ufb33", "\U0001f602")] == [
        k for k in jcs_keys if k not in ("\ufb33", "\U0001f602")
    ]


@pytest.mark.parametrize("name", sorted(FLOATS))
def test_vectors_with_floats_are_rejected_with_json_float(shared: Path, name: str) -> None:
    data, _ = read(shared, name)
    with pytest.raises(CanonicalJSONError) as info:
        canonical.load(data)
    assert info.value.code == "json_float"


def test_structures_vector_matches_jcs_once_its_integral_float_is_written_as_an_integer(shared: Path) -> None:
    """JCS writes the double 56.0 as ``56``; with the integer 56 in the input we produce the same bytes."""
    data, expected = read(shared, "structures")
    assert data.count(b"56.0") == 1
    assert canonical.encode(canonical.load(data.replace(b"56.0", b"56"))) == expected


def test_values_vector_matches_jcs_apart_from_its_numbers(shared: Path) -> None:
    """Without the ``numbers`` member (all doubles), the strings and literals agree after escaping."""
    data, expected = read(shared, "values")
    numbers_in = re.compile(rb'"numbers":\s*\[[^\]]*\],\s*')
    numbers_out = re.compile(rb'"numbers":\[[^\]]*\],')
    assert len(numbers_in.findall(data)) == 1 and len(numbers_out.findall(expected)) == 1
    ours = canonical.encode(canonical.load(numbers_in.sub(b"", data)))
    assert ours == ascii_escaped(numbers_out.sub(b"", expected))
