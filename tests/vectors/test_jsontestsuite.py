"""JSONTestSuite (nst/JSONTestSuite, ``../shared/vectors/jsontestsuite``) against the strict canonical loader.

``n_`` files must be rejected; ``y_`` files must be accepted unless our policy rejects them (floats and
exponents, duplicate keys), in which case the exact policy code is pinned; every ``i_`` outcome (accept or
code) is pinned so that any change in behaviour shows up as a failing test rather than drifting silently.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import shared_path
from prooftext import canonical
from prooftext.errors import CanonicalJSONError

SUITE = Path("vectors") / "jsontestsuite"
ABSENT = "../shared/vectors/jsontestsuite is not present beside this checkout (set PROOFTEXT_SHARED)"

# Valid JSON that canonical JSON refuses by design (DESIGN.md "Fixed decisions").
Y_POLICY: dict[str, str] = {
    "y_number.json": "json_float",
    "y_number_0e+1.json": "json_float",
    "y_number_0e1.json": "json_float",
    "y_number_double_close_to_zero.json": "json_float",
    "y_number_int_with_exp.json": "json_float",
    "y_number_real_capital_e.json": "json_float",
    "y_number_real_capital_e_neg_exp.json": "json_float",
    "y_number_real_capital_e_pos_exp.json": "json_float",
    "y_number_real_exponent.json": "json_float",
    "y_number_real_fraction_exponent.json": "json_float",
    "y_number_real_neg_exp.json": "json_float",
    "y_number_real_pos_exponent.json": "json_float",
    "y_number_simple_real.json": "json_float",
    "y_object_duplicated_key.json": "json_duplicate_key",
    "y_object_duplicated_key_and_value.json": "json_duplicate_key",
    "y_object_extreme_numbers.json": "json_float",
    "y_structure_lonely_negative_real.json": "json_float",
}

# Implementation-defined cases: our outcome, pinned. "accept" would mean the loader takes the file.
I_PINNED: dict[str, str] = {
    "i_number_double_huge_neg_exp.json": "json_float",
    "i_number_huge_exp.json": "json_float",
    "i_number_neg_int_huge_exp.json": "json_float",
    "i_number_pos_double_huge_exp.json": "json_float",
    "i_number_real_neg_overflow.json": "json_float",
    "i_number_real_pos_overflow.json": "json_float",
    "i_number_real_underflow.json": "json_float",
    "i_number_too_big_neg_int.json": "json_integer_range",
    "i_number_too_big_pos_int.json": "json_integer_range",
    "i_number_very_big_negative_int.json": "json_integer_range",
    "i_object_key_lone_2nd_surrogate.json": "json_lone_surrogate",
    "i_string_1st_surrogate_but_2nd_missing.json": "json_lone_surrogate",
    "i_string_1st_valid_surrogate_2nd_invalid.json": "json_lone_surrogate",
    "i_string_UTF-16LE_with_BOM.json": "json_encoding",
    "i_string_UTF-8_invalid_sequence.json": "json_encoding",
    "i_string_UTF8_surrogate_U+D800.json": "json_encoding",
    "i_string_incomplete_surrogate_and_escape_valid.json": "json_lone_surrogate",
    "i_string_incomplete_surrogate_pair.json": "json_lone_surrogate",
    "i_string_incomplete_surrogates_escape_valid.json": "json_lone_surrogate",
    "i_string_invalid_lonely_surrogate.json": "json_lone_surrogate",
    "i_string_invalid_surrogate.json": "json_lone_surrogate",
    "i_string_invalid_utf-8.json": "json_encoding",
    "i_string_inverted_surrogates_U+1D11E.json": "json_lone_surrogate",
    "i_string_iso_latin_1.json": "json_encoding",
    "i_string_lone_second_surrogate.json": "json_lone_surrogate",
    "i_string_lone_utf8_continuation_byte.json": "json_encoding",
    "i_string_not_in_unicode_range.json": "json_encoding",
    "i_string_overlong_sequence_2_bytes.json": "json_encoding",
    "i_string_overlong_sequence_6_bytes.json": "json_encoding",
    "i_string_overlong_sequence_6_bytes_null.json": "json_encoding",
    "i_string_truncated-utf-8.json": "json_encoding",
    "i_string_utf16BE_no_BOM.json": "json_encoding",
    "i_string_utf16LE_no_BOM.json": "json_encoding",
    "i_structure_500_nested_arrays.json": "json_too_deep",
    "i_structure_UTF-8_BOM_empty_object.json": "json_bom",
}

# Invalid JSON is rejected as json_syntax unless something more specific is wrong first (bytes that are
# not UTF-8, a BOM, nesting past the limit, Python's NaN/Infinity extension); those codes are pinned too.
N_NOT_SYNTAX: dict[str, str] = {
    "n_array_a_invalid_utf8.json": "json_encoding",
    "n_array_invalid_utf8.json": "json_encoding",
    "n_number_NaN.json": "json_nonfinite",
    "n_number_infinity.json": "json_nonfinite",
    "n_number_invalid-utf-8-in-bigger-int.json": "json_encoding",
    "n_number_invalid-utf-8-in-exponent.json": "json_encoding",
    "n_number_invalid-utf-8-in-int.json": "json_encoding",
    "n_number_minus_infinity.json": "json_nonfinite",
    "n_number_real_with_invalid_utf8_after_e.json": "json_encoding",
    "n_object_lone_continuation_byte_in_key_and_trailing_comma.json": "json_encoding",
    "n_string_invalid-utf-8-in-escape.json": "json_encoding",
    "n_string_invalid_utf8_after_escape.json": "json_encoding",
    "n_structure_100000_opening_arrays.json": "json_too_deep",
    "n_structure_UTF8_BOM_no_data.json": "json_bom",
    "n_structure_incomplete_UTF8_BOM.json": "json_encoding",
    "n_structure_lone-invalid-utf-8.json": "json_encoding",
    "n_structure_open_array_object.json": "json_too_deep",
    "n_structure_single_eacute.json": "json_encoding",
}

# test_transform/: how we read the cases where parsers disagree on the value.
TRANSFORM_PINNED: dict[str, str | bytes] = {
    "number_-9223372036854775808.json": "json_integer_range",
    "number_-9223372036854775809.json": "json_integer_range",
    "number_1.0.json": "json_float",
    "number_1.000000000000000005.json": "json_float",
    "number_1000000000000000.json": b"[1000000000000000]",
    "number_10000000000000000999.json": "json_integer_range",
    "number_1e-999.json": "json_float",
    "number_1e6.json": "json_float",
    "number_9223372036854775807.json": "json_integer_range",
    "number_9223372036854775808.json": "json_integer_range",
    "object_key_nfc_nfd.json": b'{"e\\u0301":"NFD","\\u00e9":"NFC"}',
    "object_key_nfd_nfc.json": b'{"e\\u0301":"NFD","\\u00e9":"NFC"}',
    "object_same_key_different_values.json": "json_duplicate_key",
    "object_same_key_same_value.json": "json_duplicate_key",
    "object_same_key_unclear_values.json": "json_duplicate_key",
    "string_1_escaped_invalid_codepoint.json": "json_lone_surrogate",
    "string_1_invalid_codepoint.json": "json_encoding",
    "string_2_escaped_invalid_codepoints.json": "json_lone_surrogate",
    "string_2_invalid_codepoints.json": "json_encoding",
    "string_3_escaped_invalid_codepoints.json": "json_lone_surrogate",
    "string_3_invalid_codepoints.json": "json_encoding",
    "string_with_escaped_NULL.json": b'["A\\u0000B"]',
}


@pytest.fixture
def shared(shared: Path) -> Path:
    """conftest's ``shared`` folder; skips with a reason when it lacks this module's vectors."""
    if not (shared / SUITE).exists():
        pytest.skip(ABSENT)
    return shared


def _names(folder: str, prefix: str = "") -> list[object]:
    """File names to parametrize over, read at collection time; one skipped placeholder when absent."""
    root = shared_path()
    directory = root / SUITE / folder if root else None
    if directory is None or not directory.is_dir():
        return [pytest.param("absent", marks=pytest.mark.skip(reason=ABSENT), id="absent")]
    return [pytest.param(p.name, id=p.name) for p in sorted(directory.iterdir()) if p.name.startswith(prefix)]


def outcome(data: bytes) -> str:
    """``accept`` or the code of the CanonicalJSONError; any other exception fails the test."""
    try:
        canonical.load(data)
    except CanonicalJSONError as exc:
        return exc.code
    return "accept"


def read(shared: Path, folder: str, name: str) -> bytes:
    return (shared / SUITE / folder / name).read_bytes()


def test_the_suite_holds_the_expected_number_of_cases(shared: Path) -> None:
    names = [p.name for p in (shared / SUITE / "test_parsing").iterdir()]
    counts = {prefix: sum(n.startswith(prefix) for n in names) for prefix in ("y_", "n_", "i_")}
    assert counts == {"y_": 95, "n_": 188, "i_": 35}
    assert {n for n in names if n.startswith("i_")} == set(I_PINNED)
    assert set(Y_POLICY) <= set(names)
    assert set(N_NOT_SYNTAX) <= set(names)


@pytest.mark.parametrize("name", _names("test_parsing", "n_"))
def test_invalid_json_is_rejected_with_a_canonical_json_error(shared: Path, name: str) -> None:
    assert outcome(read(shared, "test_parsing", name)) == N_NOT_SYNTAX.get(name, "json_syntax")


@pytest.mark.parametrize("name", _names("test_parsing", "y_"))
def test_valid_json_is_accepted_unless_refused_by_policy(shared: Path, name: str) -> None:
    data = read(shared, "test_parsing", name)
    assert outcome(data) == Y_POLICY.get(name, "accept")
    if name not in Y_POLICY:
        value = canonical.load(data)
        assert canonical.is_canonical(canonical.encode(value))
        assert canonical.load(canonical.encode(value)) == value


@pytest.mark.parametrize("name", _names("test_parsing", "i_"))
def test_implementation_defined_json_has_a_pinned_outcome(shared: Path, name: str) -> None:
    assert outcome(read(shared, "test_parsing", name)) == I_PINNED[name]


@pytest.mark.parametrize("name", _names("test_transform"))
def test_transform_cases_have_a_pinned_canonical_form_or_code(shared: Path, name: str) -> None:
    data = read(shared, "test_transform", name)
    expected = TRANSFORM_PINNED[name]
    if isinstance(expected, bytes):
        assert canonical.encode(canonical.load(data)) == expected
    else:
        assert outcome(data) == expected
