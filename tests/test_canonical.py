"""Canonical JSON: the encoder's byte rules, the strict loader's rejections (one stable code each), ids."""

from __future__ import annotations

import hashlib
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prooftext import canonical
from prooftext.errors import CanonicalJSONError, ProoftextError

SAFE = canonical.MAX_SAFE_INTEGER
PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def code_of(call: Any, *args: Any) -> str:
    """The stable code of the CanonicalJSONError that ``call(*args)`` raises."""
    with pytest.raises(CanonicalJSONError) as info:
        call(*args)
    assert isinstance(info.value, ProoftextError)
    return info.value.code


def nested_arrays(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth - 1):
        value = [value]
    return value


# --- encoder rules -------------------------------------------------------------------------------------


def test_encode_sorts_keys_at_every_level() -> None:
    value = {"b": 1, "a": {"z": True, "y": None}, "A": [], "": 0}
    assert canonical.encode(value) == b'{"":0,"A":[],"a":{"y":null,"z":true},"b":1}'


def test_encode_sorts_keys_by_code_point_not_utf16_units() -> None:
    # U+FB33 < U+1F602 as code points; in UTF-16 units the astral key (D83D ...) would sort first.
    value = {"\U0001f602": 1, "\ufb33": 2, "\u00e9": 3, "z": 4}
    assert canonical.encode(value) == b'{"z":4,"\\u00e9":3,"\\ufb33":2,"\\ud83d\\ude02":1}'


def test_encode_emits_no_insignificant_whitespace() -> None:
    value = [1, {"a": [True, False, None], "b": "x y"}, [], {}]
    assert canonical.encode(value) == b'[1,{"a":[true,false,null],"b":"x y"},[],{}]'


def test_encode_escapes_every_non_ascii_character_and_returns_ascii_bytes() -> None:
    out = canonical.encode({"clé": "café — 東京 😂"})
    assert out == b'{"cl\\u00e9":"caf\\u00e9 \\u2014 \\u6771\\u4eac \\ud83d\\ude02"}'
    assert all(byte < 0x80 for byte in out)


def test_encode_escapes_control_characters_and_delete() -> None:
    assert canonical.encode('a\nb\t\x0f\x7f"\\/') == b'"a\\nb\\t\\u000f\\u007f\\"\\\\/"'


def test_encode_keeps_integers_booleans_and_null_distinct() -> None:
    assert canonical.encode([0, 1, -1, True, False, None]) == b"[0,1,-1,true,false,null]"
    assert canonical.encode(SAFE) == str(SAFE).encode()
    assert canonical.encode(-SAFE) == str(-SAFE).encode()


def test_encode_writes_a_tuple_as_an_array() -> None:
    assert canonical.encode((1, "a")) == b'[1,"a"]'


def test_encode_rejects_floats_even_integral_ones() -> None:
    assert code_of(canonical.encode, 1.0) == "json_float"
    assert code_of(canonical.encode, {"a": [0.5]}) == "json_float"
    assert code_of(canonical.encode, float("nan")) == "json_float"
    assert code_of(canonical.encode, float("inf")) == "json_float"


def test_encode_rejects_integers_beyond_the_safe_range() -> None:
    assert code_of(canonical.encode, SAFE + 1) == "json_integer_range"
    assert code_of(canonical.encode, -(SAFE + 1)) == "json_integer_range"
    assert code_of(canonical.encode, [10**400]) == "json_integer_range"


def test_encode_rejects_lone_surrogates_in_strings_and_keys() -> None:
    assert code_of(canonical.encode, "\ud800") == "json_lone_surrogate"
    assert code_of(canonical.encode, ["ok", "x\udfffy"]) == "json_lone_surrogate"
    assert code_of(canonical.encode, {"\udc00": 1}) == "json_lone_surrogate"


def test_encode_rejects_values_without_a_json_form() -> None:
    for value in [b"bytes", {1, 2}, object(), {1: "int key"}, {("a",): 1}]:
        assert code_of(canonical.encode, value) == "json_type"


def test_encode_accepts_64_levels_of_nesting_and_rejects_65() -> None:
    assert canonical.encode(nested_arrays(64)) == b"[" * 64 + b"]" * 64
    assert code_of(canonical.encode, nested_arrays(65)) == "json_too_deep"


def test_encode_rejects_pathological_nesting_without_recursion_error() -> None:
    assert code_of(canonical.encode, nested_arrays(5000)) == "json_too_deep"


# --- strict loader ---------------------------------------------------------------------------------------


def test_load_accepts_bytes_and_str() -> None:
    data = '{"a":[1,"\u00e9",true,null]}'
    assert canonical.load(data) == {"a": [1, "é", True, None]}
    assert canonical.load(data.encode()) == {"a": [1, "é", True, None]}


def test_load_accepts_top_level_scalars_and_insignificant_whitespace() -> None:
    assert canonical.load(b" 7 ") == 7
    assert canonical.load(b'\t"s"\r\n') == "s"
    assert canonical.load(b"null") is None
    assert canonical.load(b'{ "a" : [ 1 , 2 ] }') == {"a": [1, 2]}


def test_load_joins_a_valid_surrogate_pair_escape() -> None:
    assert canonical.load(b'"\\ud83d\\ude02"') == "\U0001f602"


@pytest.mark.parametrize(
    "data", [b"1.0", b"[0.5]", b"-0.0", b"1e3", b"1E+2", b"[2e-3]", b'{"a":1.5}', b"[1e400]"]
)
def test_load_rejects_floats_and_exponents_with_json_float(data: bytes) -> None:
    assert code_of(canonical.load, data) == "json_float"


@pytest.mark.parametrize("data", [b"NaN", b"[Infinity]", b'{"a":-Infinity}'])
def test_load_rejects_nan_and_infinities_with_json_nonfinite(data: bytes) -> None:
    assert code_of(canonical.load, data) == "json_nonfinite"


@pytest.mark.parametrize(
    "data", [b'{"a":1,"a":1}', b'{"a":1,"b":2,"a":3}', b'[{"x":{"k":0,"k":0}}]', b'{"a":1,"\\u0061":2}']
)
def test_load_rejects_duplicate_keys_with_json_duplicate_key(data: bytes) -> None:
    assert code_of(canonical.load, data) == "json_duplicate_key"


def test_duplicate_key_error_names_the_key_within_bounds() -> None:
    key = "k" * 500
    data = f'{{"{key}":1,"{key}":2}}'.encode()
    with pytest.raises(CanonicalJSONError) as info:
        canonical.load(data)
    assert info.value.code == "json_duplicate_key"
    assert info.value.details["key"] == key[:80]


@pytest.mark.parametrize(
    "data",
    [
        b'"\\ud800"',
        b'"\\udc00"',
        b'["a\\ud83dz"]',
        b'"\\ude02\\ud83d"',
        b'{"\\ud800":1}',
        b'{"k":{"\\udfff":null}}',
    ],
)
def test_load_rejects_lone_surrogate_escapes_in_strings_and_keys(data: bytes) -> None:
    assert code_of(canonical.load, data) == "json_lone_surrogate"


def test_load_rejects_lone_surrogates_in_python_str_input() -> None:
    assert code_of(canonical.load, '"\ud800"') == "json_lone_surrogate"
    assert code_of(canonical.load, '{"\udc00":1}') == "json_lone_surrogate"


def test_load_rejects_a_byte_order_mark_in_bytes_and_str() -> None:
    assert code_of(canonical.load, b"\xef\xbb\xbf{}") == "json_bom"
    assert code_of(canonical.load, "\ufeff{}") == "json_bom"


def test_load_accepts_64_levels_of_nesting_and_rejects_65() -> None:
    assert canonical.load(b"[" * 64 + b"]" * 64) == nested_arrays(64)
    assert code_of(canonical.load, b"[" * 65 + b"]" * 65) == "json_too_deep"
    mixed = b'{"a":' * 32 + b"[" * 33 + b"]" * 33 + b"}" * 32
    assert code_of(canonical.load, mixed) == "json_too_deep"
    assert canonical.load(b'{"a":' * 32 + b"[" * 32 + b"]" * 32 + b"}" * 32) is not None


def test_load_rejects_nesting_beyond_the_interpreter_stack_with_json_too_deep() -> None:
    assert code_of(canonical.load, b"[" * 100_000 + b"]" * 100_000) == "json_too_deep"


@pytest.mark.parametrize("data", [b'"\xff"', b'["\xc3"]', b'"\xed\xa0\x80"', b'"\xc0\xaf"', b"\xfe\xff\x00{"])
def test_load_rejects_invalid_utf8_with_json_encoding(data: bytes) -> None:
    assert code_of(canonical.load, data) == "json_encoding"


@pytest.mark.parametrize(
    "data",
    [
        str(SAFE + 1).encode(),
        str(-(SAFE + 1)).encode(),
        b"[12345678901234567890]",
        b"1" * 5000,  # more digits than Python's int() converts: still a range error, never ValueError
        b"-" + b"9" * 5000,
    ],
)
def test_load_rejects_integers_beyond_2_53_minus_1_with_json_integer_range(data: bytes) -> None:
    assert code_of(canonical.load, data) == "json_integer_range"


def test_load_accepts_the_safe_integer_bounds_exactly() -> None:
    assert canonical.load(str(SAFE).encode()) == SAFE
    assert canonical.load(str(-SAFE).encode()) == -SAFE
    assert canonical.load(b"-0") == 0


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b" ",
        b"{",
        b"[1,]",
        b"{'a':1}",
        b"{} x",
        b"[01]",
        b'"\x01"',
        b"[0.1.2]",
        b"[1.0e]",
        b'{"a":1,"a":2',
    ],
)
def test_load_rejects_malformed_input_with_json_syntax(data: bytes) -> None:
    assert code_of(canonical.load, data) == "json_syntax"


def test_syntax_errors_win_over_policy_violations_earlier_in_the_document() -> None:
    # A float, NaN or duplicate before the syntax error does not mask it: the document is not JSON.
    assert code_of(canonical.load, b"[1.5, NaN, ]") == "json_syntax"
    assert code_of(canonical.load, b'[{"a":1,"a":2}, }') == "json_syntax"


def test_policy_violations_are_reported_in_document_order() -> None:
    assert code_of(canonical.load, b'[1.5, {"a":1,"a":2}]') == "json_float"
    assert code_of(canonical.load, b'[{"a":1,"a":2}, 1.5]') == "json_duplicate_key"
    assert code_of(canonical.load, b'["\\ud800", NaN]') == "json_lone_surrogate"


def test_every_rejection_is_bounded_even_for_a_huge_hostile_input() -> None:
    data = b'"' + b"\\ud800" * 100_000 + b'"'
    with pytest.raises(CanonicalJSONError) as info:
        canonical.load(data)
    assert len(info.value.to_dict()["message"]) <= 2000


# --- is_canonical --------------------------------------------------------------------------------------


def test_is_canonical_is_false_for_anything_that_does_not_load_strictly() -> None:
    for data in [b"1.0", b"NaN", b'{"a":1,"a":1}', b'"\\ud800"', b"\xef\xbb\xbf1", b"\xff", b"[", b"9" * 30]:
        assert canonical.is_canonical(data) is False


def test_is_canonical_is_false_for_unsorted_keys_and_unescaped_non_ascii() -> None:
    assert canonical.is_canonical(b'{"a":1,"b":2}') is True
    assert canonical.is_canonical(b'{"b":2,"a":1}') is False
    assert canonical.is_canonical('"é"'.encode()) is False
    assert canonical.is_canonical(b'"\\u00e9"') is True
    assert canonical.is_canonical(b'"\\u00E9"') is False


# --- ids -------------------------------------------------------------------------------------------------


def test_content_id_is_64_uppercase_hex_of_the_sha256_of_canonical_bytes() -> None:
    value = {"b": [1, "é"], "a": None}
    cid = canonical.content_id(value)
    assert re.fullmatch(r"[0-9A-F]{64}", cid)
    assert cid == hashlib.sha256(canonical.encode(value)).hexdigest().upper()


def test_content_id_of_the_empty_object_is_pinned() -> None:
    assert canonical.content_id({}) == "44136FA355B3678A1146AD16F7E8649E94FB4FC21FE77E8310C060F61CAAFF8A"


def test_content_id_does_not_depend_on_key_insertion_order() -> None:
    assert canonical.content_id({"a": 1, "b": 2}) == canonical.content_id({"b": 2, "a": 1})


def test_content_id_refuses_content_that_has_no_canonical_form() -> None:
    assert code_of(canonical.content_id, {"score": 0.5}) == "json_float"


def test_sha256_hex_is_lowercase_digest_of_raw_bytes() -> None:
    assert canonical.sha256_hex(b"abc") == hashlib.sha256(b"abc").hexdigest()
    assert canonical.sha256_hex(b"abc").islower()


def test_artifact_id_ignores_the_artifact_id_field() -> None:
    body = {"schema": "x/v1", "items": [1, 2]}
    expected = canonical.content_id(body)
    assert canonical.artifact_id(body) == expected
    assert canonical.artifact_id({**body, "artifact_id": "anything"}) == expected
    assert canonical.artifact_id({**body, "artifact_id": 0.5}) == expected


def test_with_artifact_id_stamps_a_self_verifying_copy_without_mutating_the_input() -> None:
    body = {"schema": "x/v1", "artifact_id": "stale"}
    stamped = canonical.with_artifact_id(body)
    assert body["artifact_id"] == "stale"
    assert stamped["artifact_id"] == canonical.content_id({"schema": "x/v1"})
    assert canonical.artifact_id(stamped) == stamped["artifact_id"]


def test_artifact_id_changes_when_any_other_field_changes() -> None:
    assert canonical.artifact_id({"a": 1}) != canonical.artifact_id({"a": 2})


# --- properties ----------------------------------------------------------------------------------------

json_text = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=12)
json_scalars = st.none() | st.booleans() | st.integers(min_value=-SAFE, max_value=SAFE) | json_text


def json_values(depth: int = 4) -> st.SearchStrategy[Any]:
    """JSON values of bounded depth: None, bools, safe ints, text without surrogates, lists, dicts."""
    if depth == 0:
        return json_scalars
    children = json_values(depth - 1)
    return st.one_of(
        json_scalars,
        st.lists(children, max_size=4),
        st.dictionaries(json_text, children, max_size=4),
    )


def same(a: Any, b: Any) -> bool:
    """Equality that also distinguishes True from 1 (plain == does not)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return bool(a == b)


def insertion_points(data: bytes) -> list[int]:
    """Offsets between tokens (outside strings) where JSON allows whitespace."""
    points = [0, len(data)]
    in_string = escaped = False
    for index, byte in enumerate(data):
        char = chr(byte)
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
                points.append(index + 1)
        elif char == '"':
            in_string = True
            points.append(index)
        elif char in "[]{},:":
            points.extend([index, index + 1])
    return sorted(set(points))


@PROPERTY
@given(json_values())
def test_load_inverts_encode(value: Any) -> None:
    assert same(canonical.load(canonical.encode(value)), value)


@PROPERTY
@given(json_values())
def test_canonical_bytes_survive_a_load_encode_round_trip_unchanged(value: Any) -> None:
    data = canonical.encode(value)
    assert canonical.encode(canonical.load(data)) == data
    assert all(byte < 0x80 for byte in data)


@PROPERTY
@given(json_values(), st.data())
def test_encode_output_is_canonical_and_stops_being_so_after_inserting_a_space(value: Any, data: Any) -> None:
    encoded = canonical.encode(value)
    assert canonical.is_canonical(encoded)
    at = data.draw(st.sampled_from(insertion_points(encoded)))
    spaced = encoded[:at] + b" " + encoded[at:]
    assert same(canonical.load(spaced), value)
    assert not canonical.is_canonical(spaced)


@PROPERTY
@given(json_values())
def test_content_id_is_the_uppercase_sha256_of_encode(value: Any) -> None:
    cid = canonical.content_id(value)
    assert re.fullmatch(r"[0-9A-F]{64}", cid)
    assert cid == hashlib.sha256(canonical.encode(value)).hexdigest().upper()


@PROPERTY
@given(st.dictionaries(json_text, json_values(2), max_size=5), json_values(1))
def test_artifact_id_is_blind_to_any_artifact_id_value(body: dict[str, Any], stamp: Any) -> None:
    body.pop("artifact_id", None)
    assert canonical.artifact_id({**body, "artifact_id": stamp}) == canonical.content_id(body)


def test_loading_what_is_neither_bytes_nor_text_is_a_json_syntax_error() -> None:
    with pytest.raises(CanonicalJSONError) as caught:
        canonical.load(None)  # type: ignore[arg-type]
    assert caught.value.code == "json_syntax"
