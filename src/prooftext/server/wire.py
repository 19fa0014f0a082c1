"""Reading and writing JSON on the wire: what a peer sends us, and the bytes we send back.

The wire loader is strict where two readers could disagree (duplicate keys, NaN/Infinity, a byte-order
mark, invalid UTF-8, lone surrogates, integers beyond the I-JSON range, nesting deeper than
:data:`MAX_WIRE_DEPTH`) and raises the canonical JSON error for each. Unlike the artifact loader it keeps
floats, so that a float where an integer belongs is reported as invalid params naming the field, and a
float ``id`` as an invalid request, as the JSON-RPC specification and the catalogue (D4, G8) ask.
"""

from __future__ import annotations

import json
from typing import Any

from prooftext.canonical import MAX_DEPTH, MAX_SAFE_INTEGER
from prooftext.errors import (
    JSONBOMError,
    JSONDepthError,
    JSONDuplicateKeyError,
    JSONEncodingError,
    JSONIntegerRangeError,
    JSONLoneSurrogateError,
    JSONNonFiniteError,
    JSONSyntaxError,
)

MAX_WIRE_DEPTH = MAX_DEPTH
"""Deepest nesting accepted in a request (the same bound as canonical artifacts)."""

_BOM = b"\xef\xbb\xbf"
_MAX_INT_DIGITS = len(str(MAX_SAFE_INTEGER))
_SURROGATES = range(0xD800, 0xE000)


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


class _NonFinite(Exception):
    pass


class _IntegerRange(Exception):
    pass


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key[:80])
        out[key] = value
    return out


def _parse_constant(text: str) -> Any:
    raise _NonFinite(text)


def _parse_int(text: str) -> int:
    # Checked on the digits first: Python refuses to convert more than 4300 digits at all.
    if len(text.lstrip("-")) > _MAX_INT_DIGITS or abs(int(text)) > MAX_SAFE_INTEGER:
        raise _IntegerRange(text[:40])
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise _NonFinite(text[:40])
    return value


def _has_surrogate(text: str) -> bool:
    return any(ord(c) in _SURROGATES for c in text)


def _check(value: Any, depth: int) -> None:
    """Depth and lone surrogates, walked iteratively so hostile nesting cannot exhaust the stack."""
    stack: list[tuple[Any, int]] = [(value, depth)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, str):
            if _has_surrogate(item):
                raise JSONLoneSurrogateError("lone surrogate in a string")
        elif isinstance(item, (dict, list)):
            if level + 1 > MAX_WIRE_DEPTH:
                raise JSONDepthError(f"nesting deeper than {MAX_WIRE_DEPTH}")
            if isinstance(item, dict):
                for key, child in item.items():
                    if _has_surrogate(key):
                        raise JSONLoneSurrogateError("lone surrogate in an object key")
                    stack.append((child, level + 1))
            else:
                stack.extend((child, level + 1) for child in item)


def _decode_text(data: bytes) -> str:
    if data.startswith(_BOM):
        raise JSONBOMError("a byte-order mark is not allowed")
    try:
        return data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        raise JSONEncodingError(f"input is not valid UTF-8 at byte {exc.start}") from None


def load(data: bytes) -> Any:
    """Parse one JSON text from the wire; every rejection is a canonical JSON error with its own code."""
    text = _decode_text(data)
    try:
        value = json.loads(
            text,
            object_pairs_hook=_pairs,
            parse_constant=_parse_constant,
            parse_int=_parse_int,
            parse_float=_parse_float,
        )
    except RecursionError:
        raise JSONDepthError(f"nesting deeper than {MAX_WIRE_DEPTH}") from None
    except json.JSONDecodeError as exc:
        raise JSONSyntaxError(f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except _DuplicateKey as exc:
        raise JSONDuplicateKeyError(f"duplicate object key: {exc.key!r}", key=exc.key) from None
    except _NonFinite as exc:
        raise JSONNonFiniteError(f"non-finite number is not allowed: {exc}") from None
    except _IntegerRange:
        raise JSONIntegerRangeError(f"integer outside the safe range ±{MAX_SAFE_INTEGER}") from None
    _check(value, 0)
    return value


def dump(value: Any) -> bytes:
    """Compact JSON bytes (ASCII, so no peer can be confused by encodings); sorted keys for stable output."""
    return json.dumps(
        value, ensure_ascii=True, sort_keys=True, separators=(",", ":"), allow_nan=False
    ).encode("ascii")
