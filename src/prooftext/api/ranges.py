"""Reading a verified line range of an indexed file: what an agent reads after a search hit.

The range is read through the index and the scan's safe reader, never around them: a path the index left out
(ignored, a credential, binary, too large, ...) is refused with :class:`~prooftext.errors.SourceExcludedError`
and the scan's reason code; a file above the clearance is refused as a packet refuses it; the bytes read are
the indexed ones (their SHA-256 is checked against the index's), and credentials are redacted exactly as a
packet's excerpt redacts them. The result names the path, the lines actually read and the source's SHA-256.
"""

from __future__ import annotations

from typing import Any

from prooftext.corpus.lines import LineText
from prooftext.corpus.model import REMEDIES, SENSITIVITIES
from prooftext.corpus.safeio import Refusal, split_portable
from prooftext.errors import (
    PathOutsideRootError,
    RangeError,
    RequestError,
    SensitivityError,
    SourceDriftError,
    SourceExcludedError,
    SourceMissingError,
    SourceUnreadableError,
    UnknownNameError,
)
from prooftext.index import Index, require_index
from prooftext.pack.render import flag_label, redacted
from prooftext.pack.sources import (
    REASON_DRIFT,
    REASON_LOCATOR,
    REASON_MISSING,
    file_repeats,
    observe,
)
from prooftext.select.query import DEFAULT_CLEARANCE
from prooftext.store.db import store_errors
from prooftext.store.queries import exclusion_of

DEFAULT_RANGE_LINES = 200
"""Lines read when no end is given."""
MAX_RANGE_LINES = 2000
"""Lines one read may return at most (a longer range is refused, not cut silently)."""


def _portable(path: str) -> str:
    """``path`` when it is a portable relative path (see :func:`~prooftext.corpus.safeio.split_portable`):
    one that leaves the root is ``path_outside_root``, any other refusal a request error naming why."""
    if not isinstance(path, str):
        raise RequestError("path must be a string", field="path")
    if not path or path.startswith("/") or "\\" in path or ".." in path.split("/"):
        raise PathOutsideRootError(f"path is not a relative path below the root: {path[:200]}", field="path")
    try:
        split_portable(path)
    except Refusal as exc:
        raise RequestError(
            f"path {path[:200]!r} is not a portable relative path: {exc.detail}", field="path"
        ) from None
    return path


def _indexed(index: Index, path: str) -> tuple[str, str, int]:
    """The indexed file's SHA-256, sensitivity and line count; why it is not indexed otherwise."""
    row = index.conn.execute(
        "SELECT sha256, sensitivity, line_count FROM files WHERE path = ?", (path,)
    ).fetchone()
    if row is not None:
        return str(row[0]), str(row[1]), int(row[2])
    left_out = exclusion_of(index.conn, path)
    if left_out is None:
        raise SourceMissingError(f"{path} is not in the index", field="path", path=path)
    remedy = REMEDIES.get(left_out.reason, "")
    raise SourceExcludedError(
        f"{path} is left out of the index ({left_out.reason}): {remedy}",
        field="path",
        path=path,
        reason=left_out.reason,
    )


def _reread(index: Index, path: str, sha256: str, start: int, end: int) -> LineText:
    """The file re-read safely, with the indexed digest and the range in it; a coded error otherwise."""
    seen = observe(index.root, path, sha256, [(start, end)])
    if seen.text is not None:
        return seen.text
    if seen.reason == REASON_DRIFT:
        raise SourceDriftError(f"{path} changed since it was indexed: {seen.detail}", path=path)
    if seen.reason == REASON_MISSING:
        raise SourceMissingError(f"{path} is gone from disk", field="path", path=path)
    if seen.reason == REASON_LOCATOR:
        raise PathOutsideRootError(seen.detail, field="path")
    raise SourceUnreadableError(f"{path} cannot be read: {seen.detail}", path=path)


def _span(start: int, end: int | None) -> int:
    """The last line asked for, once the range is checked."""
    for name, value in (("start", start), ("end", start if end is None else end)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise RequestError(f"{name} must be a whole line number", field=name)
    if start < 1:
        raise RangeError(f"start must be at least 1, got {start}", field="start")
    last = start + DEFAULT_RANGE_LINES - 1 if end is None else end
    if last < start:
        raise RangeError(f"end ({last}) is before start ({start})", field="end")
    if last - start + 1 > MAX_RANGE_LINES:
        raise RangeError(
            f"at most {MAX_RANGE_LINES} lines per read, asked for {last - start + 1}", field="end"
        )
    return last


def read_range(
    index: Index,
    path: str,
    start: int = 1,
    end: int | None = None,
    *,
    clearance: str = DEFAULT_CLEARANCE,
) -> dict[str, Any]:
    """Lines ``start..end`` (1-based, inclusive; ``end`` past the last line reads to the last line) of the
    indexed file ``path``, re-read from disk and checked against the index: ``{"path", "lines": [start,
    end], "line_count", "sha256", "sensitivity", "text"}``, and ``"flags"`` when the text holds what a
    packet's excerpt is flagged for (``bidi:1,control:2``, the same labels). ``text`` has every credential
    redacted as a packet's excerpt has, and is otherwise exact, as the JSON packet format quotes it:
    :func:`~prooftext.pack.render.visible` shows it as a printed prompt does. A range longer than :data:`MAX_RANGE_LINES` is refused; so is a start past the
    last line. An empty file reads as ``[1, 1]`` (``line_count`` 0, empty ``text``), the range of its map
    entry and packet evidence. A path the index left out is a :class:`~prooftext.errors.SourceExcludedError` with the
    scan's ``reason``; a file above ``clearance`` a :class:`~prooftext.errors.SensitivityError`."""
    require_index(index)
    _portable(path)
    last = _span(start, end)
    if clearance not in SENSITIVITIES:
        raise UnknownNameError(f"unknown clearance {str(clearance)[:40]!r}", field="clearance")
    with store_errors():
        sha256, sensitivity, line_count = _indexed(index, path)
    levels = {name: i for i, name in enumerate(SENSITIVITIES)}
    if levels.get(sensitivity, len(SENSITIVITIES)) > levels.get(clearance, 0):
        raise SensitivityError(f"{path} is {sensitivity}, above the clearance {clearance}", path=path)
    if start > max(line_count, 1):
        raise RangeError(f"start {start} is past the last line ({line_count}) of {path}", field="start")
    last = min(last, max(line_count, 1))
    text = _reread(index, path, sha256, start, last)
    quoted = text.slice(start, last) if text.count else ""
    shown = redacted(quoted, path, file_repeats(path, sha256, text))
    read: dict[str, Any] = {
        "path": path,
        "lines": [start, last],
        "line_count": line_count,
        "sha256": sha256,
        "sensitivity": sensitivity,
        "text": shown,
    }
    marks = flag_label(shown, path)
    if marks:
        read["flags"] = marks
    return read
