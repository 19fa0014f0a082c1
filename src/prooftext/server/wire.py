"""Reading and writing JSON on the wire: what a peer sends us, and the bytes we send back.

The wire loader is the canonical strict loader (duplicate keys, NaN/Infinity, a byte-order mark, invalid
UTF-8, lone surrogates, integers beyond the I-JSON range and nesting deeper than the canonical bound are each
a canonical JSON error) that keeps floats, so that a float where an integer belongs is reported as invalid
params naming the field, and a float ``id`` as an invalid request, as the JSON-RPC specification and the
catalogue (D4, G8) ask.
"""

from __future__ import annotations

import json
from typing import Any

from prooftext import load_json
from prooftext.errors import CanonicalJSONError, JSONIntegerRangeError


def load(data: bytes) -> Any:
    """Parse one JSON text from the wire; every rejection is a canonical JSON error with its own code."""
    return load_json(data, floats=True)


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
