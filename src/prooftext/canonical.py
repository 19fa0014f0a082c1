"""Canonical JSON: the one byte form every hashed artifact takes, and the strict loader that reads it back.

Canonical form: keys sorted by code point, no insignificant whitespace, non-ASCII escaped, integers only
(within the I-JSON safe range so every consumer reads the same number), lone surrogates rejected.
The strict loader rejects what would make two readers disagree: duplicate keys, NaN/Infinity, floats,
a byte-order mark, nesting deeper than ``MAX_DEPTH``, invalid UTF-8 and lone surrogates.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from prooftext.errors import (
    CanonicalJSONError,
    JSONBOMError,
    JSONDepthError,
    JSONDuplicateKeyError,
    JSONEncodingError,
    JSONFloatError,
    JSONIntegerRangeError,
    JSONLoneSurrogateError,
    JSONNonFiniteError,
    JSONSyntaxError,
    JSONTypeError,
)

MAX_DEPTH = 64
"""Deepest nesting of arrays and objects the loader accepts (the outermost container is depth 1)."""

MAX_SAFE_INTEGER = 2**53 - 1
"""I-JSON (RFC 7493) safe integer bound: beyond it, common JSON readers silently lose precision."""

_BOM = b"\xef\xbb\xbf"
_SURROGATE = re.compile("[\ud800-\udfff]")

JSONValue = None | bool | int | str | list["JSONValue"] | dict[str, "JSONValue"]


_MAX_SAFE_DIGITS = len(str(MAX_SAFE_INTEGER))


class _Rejected:
    """Stands in for a value the policy rejects, so that a syntax error anywhere wins over policy.

    The parser hooks never raise: they return this marker, and :func:`_check_tree` raises its error when
    the walk reaches it (in document order). ``[0.1.2]`` is therefore ``json_syntax``, not ``json_float``.
    """

    __slots__ = ("error",)

    def __init__(self, error: CanonicalJSONError) -> None:
        self.error = error


def _parse_float(text: str) -> _Rejected:
    return _Rejected(JSONFloatError(f"floats are not allowed in canonical JSON: {text[:40]}"))


def _parse_finite_float(text: str) -> float | _Rejected:
    value = float(text)
    if value in (float("inf"), float("-inf")):  # ``1e999`` parses as an infinity
        return _Rejected(JSONNonFiniteError(f"non-finite number is not allowed: {text[:40]}"))
    return value


def _parse_constant(text: str) -> _Rejected:
    return _Rejected(JSONNonFiniteError(f"non-finite number is not allowed: {text}"))


def _parse_int(text: str) -> int | _Rejected:
    # Checked on the digits before int(): Python refuses to convert more than 4300 digits (ValueError).
    if len(text.lstrip("-")) > _MAX_SAFE_DIGITS:
        return _Rejected(JSONIntegerRangeError(f"integer outside the safe range ±{MAX_SAFE_INTEGER}"))
    return int(text)


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any] | _Rejected:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            return _Rejected(JSONDuplicateKeyError(f"duplicate object key: {key[:80]!r}", key=key[:80]))
        out[key] = value
    return out


def _check_string(text: str, where: str) -> None:
    if _SURROGATE.search(text):
        raise JSONLoneSurrogateError(f"lone surrogate in {where}")


def _check_tree(value: Any, depth: int, floats: bool = False) -> None:
    """Walk a decoded or to-be-encoded value: depth, types, integer range, surrogates (and floats, which only
    a ``floats`` walk admits)."""
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, _Rejected):
        raise value.error
    if isinstance(value, int):
        if abs(value) > MAX_SAFE_INTEGER:
            raise JSONIntegerRangeError(f"integer outside the safe range ±{MAX_SAFE_INTEGER}")
        return
    if isinstance(value, str):
        _check_string(value, "a string")
        return
    if isinstance(value, float):
        if floats:
            return
        raise JSONFloatError("floats are not allowed in canonical JSON")
    if isinstance(value, (list, tuple, dict)):
        if depth + 1 > MAX_DEPTH:
            raise JSONDepthError(f"nesting deeper than {MAX_DEPTH}")
        if isinstance(value, dict):
            for key, item in value.items():
                if not isinstance(key, str):
                    raise JSONTypeError("object keys must be strings")
                _check_string(key, "an object key")
                _check_tree(item, depth + 1, floats)
        else:
            for item in value:
                _check_tree(item, depth + 1, floats)
        return
    raise JSONTypeError(f"value of type {type(value).__name__} has no JSON form")


def load(data: bytes | str, *, floats: bool = False) -> Any:
    """Parse JSON strictly; every rejection is a :class:`CanonicalJSONError` with its own code.

    With ``floats``, finite floats are kept (a wire request's ``1.0`` where an integer belongs is then
    reported by its schema, naming the field); everything else stays as strict."""
    if isinstance(data, bytes):
        if data.startswith(_BOM):
            raise JSONBOMError("a byte-order mark is not allowed")
        try:
            text = data.decode("utf-8", errors="strict")
        except UnicodeDecodeError as exc:
            raise JSONEncodingError(f"input is not valid UTF-8 at byte {exc.start}") from None
    elif isinstance(data, str):
        text = data
        if text.startswith("\ufeff"):
            raise JSONBOMError("a byte-order mark is not allowed")
    else:
        raise JSONSyntaxError(f"JSON must be given as bytes or a string, not {type(data).__name__}")
    try:
        value = json.loads(
            text,
            object_pairs_hook=_pairs,
            parse_float=_parse_finite_float if floats else _parse_float,
            parse_int=_parse_int,
            parse_constant=_parse_constant,
        )
    except RecursionError:
        raise JSONDepthError(f"nesting deeper than {MAX_DEPTH}") from None
    except json.JSONDecodeError as exc:
        what = exc.msg.removesuffix(" at")  # "Invalid control character at": the place follows
        raise JSONSyntaxError(f"invalid JSON: {what} at line {exc.lineno} column {exc.colno}") from None
    _check_tree(value, 0, floats)
    return value


def encode(value: Any) -> bytes:
    """The canonical bytes of ``value`` (which must hold only dict, list, str, int, bool and None)."""
    _check_tree(value, 0)
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    return text.encode("ascii")


def is_canonical(data: bytes) -> bool:
    """True when ``data`` loads strictly and is already in canonical form."""
    try:
        return encode(load(data)) == data
    except CanonicalJSONError:
        return False


def sha256_hex(data: bytes) -> str:
    """Lowercase SHA-256 hex of bytes: the digest of a source."""
    return hashlib.sha256(data).hexdigest()


def content_id(value: Any) -> str:
    """The id of a node, edge or artifact: full SHA-256 of its canonical content, 64 uppercase hex."""
    return hashlib.sha256(encode(value)).hexdigest().upper()


def artifact_id(artifact: dict[str, Any]) -> str:
    """Id of an artifact: its canonical content without the ``artifact_id`` field itself."""
    body = {k: v for k, v in artifact.items() if k != "artifact_id"}
    return content_id(body)


def with_artifact_id(artifact: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``artifact`` whose ``artifact_id`` is its content id."""
    out = dict(artifact)
    out["artifact_id"] = artifact_id(artifact)
    return out
