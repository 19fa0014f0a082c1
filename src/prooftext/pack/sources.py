"""Source text for excerpts: from the store while choosing, from the re-read file before emitting."""

from __future__ import annotations

import hashlib
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from prooftext.cache import BoundedCache
from prooftext.corpus.config import MAX_FILE_BYTES_LIMIT
from prooftext.corpus.lines import LineText
from prooftext.corpus.read import read_bytes_checked
from prooftext.corpus.secrets import Repeats, repeats_in
from prooftext.errors import PathOutsideRootError, ProoftextError, SourceError

VERIFY_MAX_BYTES = MAX_FILE_BYTES_LIMIT
"""Re-reads for verification are bounded like scans are: the configuration accepts no ``max_file_bytes``
above this, so every indexed file can be re-read and quoted."""
TEXT_CACHE_FILES = 1024
"""Split file texts kept per process; keyed by digest, so a changed file is never served stale."""

REASON_DRIFT = "source_drift"
REASON_MISSING = "source_missing"
REASON_UNREADABLE = "source_unreadable"
REASON_RANGE = "range_invalid"
REASON_LOCATOR = "locator_invalid"

EMPTY_FILE_RANGE = (1, 1)
"""The one range of a file with no lines: extraction gives an empty file's node lines 1-1 (``1-0`` is not a
range, see ``graph/extract.py``), and that range quotes the empty text, so an empty file can be required,
quoted and verified like any other."""


_TEXTS: BoundedCache[tuple[str, str], LineText] = BoundedCache(TEXT_CACHE_FILES)
_REPEATS: BoundedCache[tuple[str, str], Repeats] = BoundedCache(TEXT_CACHE_FILES)


def file_repeats(path: str, sha256: str, text: LineText) -> Repeats:
    """The credentials of a file read from disk (``text``, whose digest is ``sha256``), which every excerpt
    of it redacts wherever they recur, as the scan did for the stored text."""
    key = (path, sha256)
    found = _REPEATS.get(key)
    if found is None:
        found = repeats_in(text.slice(1, text.count) if text.count else "", path)
        _REPEATS.put(key, found)
    return found


@dataclass
class StoreTexts:
    """File texts from the index store, split once per (path, digest) and shared across requests."""

    conn: sqlite3.Connection

    def get(self, path: str, sha256: str) -> LineText:
        key = (path, sha256)
        text = _TEXTS.get(key)
        if text is None:
            row = self.conn.execute("SELECT text, sha256 FROM files WHERE path = ?", (path,)).fetchone()
            text = LineText(row[0] if row else "")
            if row is not None and row[1] == sha256:
                _TEXTS.put(key, text)
        return text


@dataclass(frozen=True)
class Observation:
    """A source re-read from disk: its text on success, or why it cannot be used."""

    path: str
    text: LineText | None
    reason: str | None = None
    detail: str = ""
    io_error: bool = False


def observe(root: Path, path: str, sha256: str, ranges: list[tuple[int, int]]) -> Observation:
    """Re-read ``path`` safely and check its digest and every line range against it."""
    try:
        data = read_bytes_checked(root, path, VERIFY_MAX_BYTES)
    except PathOutsideRootError as exc:  # a bad locator is a bad packet, not an I/O failure
        return Observation(path, None, REASON_LOCATOR, exc.message)
    except SourceError as exc:
        missing = exc.code == "source_missing"
        return Observation(
            path, None, REASON_MISSING if missing else REASON_UNREADABLE, exc.message, not missing
        )
    except ProoftextError as exc:
        return Observation(path, None, REASON_UNREADABLE, exc.message, True)
    actual = hashlib.sha256(data).hexdigest()
    if actual != sha256:
        return Observation(path, None, REASON_DRIFT, f"sha256 is now {actual}")
    # The bytes just read have the digest of a text split before: reuse that split.
    text = _TEXTS.get((path, actual))
    if text is None:
        try:
            text = LineText(data.decode("utf-8"))
        except UnicodeDecodeError:
            return Observation(path, None, REASON_DRIFT, "no longer strict UTF-8")
        _TEXTS.put((path, actual), text)
    for start, end in ranges:
        if not ranges_fit(text, [(start, end)]):
            return Observation(path, None, REASON_RANGE, f"lines {start}-{end} outside 1-{text.count}")
    return Observation(path, text)


def ranges_fit(text: LineText, ranges: list[tuple[int, int]]) -> bool:
    """Every 1-based inclusive range lies within ``text`` (an empty text has only :data:`EMPTY_FILE_RANGE`)."""
    if text.count == 0:
        return all(span == EMPTY_FILE_RANGE for span in ranges)
    return all(1 <= start <= end <= text.count for start, end in ranges)
