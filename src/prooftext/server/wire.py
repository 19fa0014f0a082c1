"""Reading and writing JSON on the wire: what a peer sends us, and the bytes we send back.

The wire loader is the canonical strict loader (duplicate keys, NaN/Infinity, a byte-order mark, invalid
UTF-8, lone surrogates, integers beyond the I-JSON range and nesting deeper than the canonical bound are each
a canonical JSON error) that keeps floats, so that a float where an integer belongs is reported as invalid
params naming the field, and a float ``id`` as an invalid request, as the JSON-RPC specification and the
catalogue (D4, G8) ask.

A message whose one fault is an integer beyond that range is read by :func:`load_request` with a marker in
the integer's place, so that the call holding it, and only that call, is refused for it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from prooftext import load_json
from prooftext.errors import CanonicalJSONError, JSONIntegerRangeError

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?')
"""A JSON string (skipped whole, so digits inside one are never taken for a number) or a number."""
_SHORTEST_BEYOND = len(str(2**53))
"""No integer written with fewer characters is beyond the range (2^53 - 1 has as many digits as 2^53)."""


class OutOfRange:
    """Stands for an integer beyond the safe range, with the loader's error for it."""

    __slots__ = ("error",)

    def __init__(self, error: JSONIntegerRangeError) -> None:
        self.error = error


def load(data: bytes) -> Any:
    """Parse one JSON text from the wire; every rejection is a canonical JSON error with its own code."""
    return load_json(data, floats=True)


def range_error(token: str) -> JSONIntegerRangeError | None:
    """The loader's error for a number token beyond the safe range; None for any other token."""
    if len(token) < _SHORTEST_BEYOND or not token.lstrip("-").isdigit():
        return None  # a string, a float, or too few digits to pass the range
    try:
        load(token.encode("ascii", "replace"))
    except JSONIntegerRangeError as exc:
        return exc
    except CanonicalJSONError:
        return None
    return None


def _marked(text: str) -> Any:
    """The message with an :class:`OutOfRange` for each integer beyond the range; a canonical JSON error if
    it has any other fault (checked on the text with those integers made 0)."""
    load(_TOKEN.sub(lambda m: "0" if range_error(m.group()) else m.group(), text).encode())

    def integer(token: str) -> int | OutOfRange:
        error = range_error(token)
        return int(token) if error is None else OutOfRange(error)

    return json.loads(text, parse_int=integer)


def load_request(data: bytes) -> Any:
    """As :func:`load`, except that a message whose only fault is integers beyond the safe range is read,
    each of them an :class:`OutOfRange`; any other fault is raised as :func:`load` raises it."""
    try:
        return load(data)
    except JSONIntegerRangeError as exc:
        try:
            return _marked(data.decode("utf-8"))  # the loader has checked the encoding
        except CanonicalJSONError:
            raise exc from None


def find_out_of_range(value: Any) -> tuple[list[str | int], OutOfRange] | None:
    """The first :class:`OutOfRange` in ``value`` and where it is (keys and indexes); None when none is."""
    if isinstance(value, OutOfRange):
        return [], value
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found = find_out_of_range(item)
        if found is not None:
            return [key, *found[0]], found[1]
    return None


def dump(value: Any) -> bytes:
    """Compact JSON bytes (ASCII, so no peer can be confused by encodings); sorted keys for stable output."""
    return json.dumps(
        value, ensure_ascii=True, sort_keys=True, separators=(",", ":"), allow_nan=False
    ).encode("ascii")


def id_despite_range(data: bytes, exc: CanonicalJSONError) -> str | int | None:
    """The id of a request refused only for an integer beyond the safe range elsewhere in it (its params),
    so that the answer can name the request; None when there is no such id to give back."""
    if not isinstance(exc, JSONIntegerRangeError):
        return None
    try:
        message = json.loads(data)
    except (ValueError, RecursionError):
        return None
    request_id = message.get("id") if isinstance(message, dict) else None
    if isinstance(request_id, bool) or not isinstance(request_id, (str, int)):
        return None
    try:  # the id alone, read as the wire reads it: one beyond the safe range is no id to give back
        load(json.dumps(request_id).encode())
    except CanonicalJSONError:
        return None
    return request_id
