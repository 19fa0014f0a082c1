"""Reading the evaluation's input files: every defect of a file becomes a coded error that names it.

Datasets, repo maps and declarations are user files. Whatever they hold — bytes that are not UTF-8, a path
with a NUL byte, nesting deep enough to exhaust the parser's stack, NaN or Infinity (which would make every
JSON output invalid), a key given twice (one value silently dropped), a lone surrogate (which no UTF-8
output can hold) — the reader raises the caller's error class with the file named, never a bare Python
exception.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from prooftext.errors import NotFoundError, ProoftextError

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class _Refused(ValueError):
    """Raised by the parser hooks; turned into the caller's error with the location."""


def _no_constant(text: str) -> Any:
    raise _Refused(f"non-finite number {text} (JSON has no NaN or Infinity)")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Refused(f"key {key[:80]!r} appears twice")
        out[key] = value
    return out


def _lone_surrogate(value: Any) -> bool:
    """Whether any string of a decoded value holds a lone surrogate (walked without recursion, since the
    value may be as deep as the parser allowed)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _LONE_SURROGATE.search(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def read_text(path: Path, what: str, error: type[ProoftextError]) -> str:
    """The UTF-8 text of ``path``; ``what`` names the file in the error (``"tasks"``, ``"repo map"``) and is
    its ``details.input``."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise NotFoundError(f"{what} not found: {path}", path=str(path), input=what) from None
    except OSError as exc:
        raise error(f"cannot read {what} {path}: {exc.strerror}", path=str(path), input=what) from None
    except UnicodeDecodeError as exc:
        raise error(f"{what} {path} is not UTF-8 (byte {exc.start})", path=str(path), input=what) from None
    except ValueError as exc:  # a path holding a NUL byte
        raise error(f"cannot read {what} {path!r}: {exc}", path=repr(path), input=what) from None


def parse_json(text: str, where: str, error: type[ProoftextError], **details: Any) -> Any:
    """One JSON value from ``text``; ``where`` (``"file:line"``) and ``details`` locate it in the error."""
    try:
        value = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except RecursionError:
        raise error(f"{where}: JSON nested too deeply", **details) from None
    except json.JSONDecodeError as exc:
        # Some of the decoder's messages end in "at" ("Unterminated string starting at"): say it once.
        said = exc.msg.removesuffix(" at")
        raise error(f"{where}: not JSON ({said} at column {exc.colno})", **details) from None
    except ValueError as exc:  # the hooks above, or an integer too long for Python to convert
        raise error(f"{where}: {str(exc)[:200]}", **details) from None
    if _lone_surrogate(value):
        raise error(f"{where}: a string holds a lone surrogate (not representable in UTF-8)", **details)
    return value


def load_json(path: Path, what: str, error: type[ProoftextError]) -> Any:
    """The JSON value of a whole file (see :func:`read_text` and :func:`parse_json`)."""
    return parse_json(read_text(path, what, error), f"{what} {path}", error, path=str(path), input=what)
