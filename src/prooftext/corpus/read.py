"""Safe reading of one source: regular, unlinked, bounded, unchanged, strict UTF-8.

The path is opened one component at a time under the root with ``O_NOFOLLOW`` (see
:mod:`prooftext.corpus.safeio`), the leaf with ``O_NOFOLLOW|O_NONBLOCK``; ``fstat`` must show a regular
file whose (size, mtime_ns, inode) still equal the walk's, before and after reading at most
``max_file_bytes + 1`` bytes (a refresh reads a file that changed once more, against its stat of then:
:func:`read_settled_at`). Then: a NUL in the first ``BINARY_SNIFF_BYTES`` bytes is ``binary``, and
text that is not strict UTF-8 is ``encoding``. Text is kept exactly as stored (no newline translation).

Then the secrets policy (:mod:`prooftext.corpus.secrets`, ``[scan] secrets``): a path spelling a credential
is excluded with reason ``secret`` under a redacted path; a text carrying one is excluded with reason
``secret`` (policy ``exclude``, and always for private keys) or adopted with each value replaced by a
placeholder (policy ``redact``). The digest stays that of the raw bytes; the line structure is kept.
"""

from __future__ import annotations

import os
import stat as stat_module
from pathlib import Path

import prooftext.corpus.secrets as secrets
from prooftext.canonical import sha256_hex
from prooftext.corpus.config import CorpusConfig
from prooftext.corpus.labels import labels_for, source_kind
from prooftext.corpus.lines import count_lines
from prooftext.corpus.model import (
    BINARY_SNIFF_BYTES,
    REASON_BINARY,
    REASON_CHANGED,
    REASON_ENCODING,
    REASON_SECRET,
    Exclusion,
    FileStat,
    SourceFile,
)
from prooftext.corpus.safeio import (
    Refusal,
    display_name,
    open_parent,
    open_root,
    read_below,
    source_error,
    split_portable,
)

NUL = b"\0"


def _decode(stat: FileStat, data: bytes) -> str | Exclusion:
    if NUL in data[:BINARY_SNIFF_BYTES]:
        return Exclusion(stat.path, REASON_BINARY, f"NUL byte in the first {BINARY_SNIFF_BYTES} bytes")
    try:
        return data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        return Exclusion(stat.path, REASON_ENCODING, f"not UTF-8 at byte {exc.start}")


def _apply_secrets_policy(stat: FileStat, text: str, config: CorpusConfig) -> str | Exclusion:
    """The text to index under the secrets policy, or the exclusion (whose detail never holds a value)."""
    findings = secrets.blocking(
        secrets.find_secrets(text, path=stat.path, allow_pragma=config.secrets_allow_pragma)
    )
    if not findings:
        return text
    always = [f for f in findings if f.rule in secrets.ALWAYS_EXCLUDED]
    if config.secrets == secrets.POLICY_EXCLUDE or always:
        return Exclusion(stat.path, REASON_SECRET, secrets.describe(always or findings))
    return secrets.redact_source(text, findings)


def adopt(stat: FileStat, data: bytes, config: CorpusConfig) -> SourceFile | Exclusion:
    """A source from bytes already read safely for ``stat``: sniff, decode, apply the secrets policy,
    digest, count, label."""
    in_path = secrets.path_findings(stat.path)
    if in_path:
        return Exclusion(
            secrets.redact_path(stat.path), REASON_SECRET, secrets.describe(in_path, in_path=True)
        )
    text = _decode(stat, data)
    if isinstance(text, Exclusion):
        return text
    text = _apply_secrets_policy(stat, text, config)
    if isinstance(text, Exclusion):
        return text
    return SourceFile(
        path=stat.path,
        size=stat.size,
        mtime_ns=stat.mtime_ns,
        inode=stat.inode,
        sha256=sha256_hex(data),
        text=text,
        kind=source_kind(stat.path, config),
        labels=labels_for(stat.path, config),
        line_count=count_lines(data),
        links=stat.links,
        ctime_ns=stat.ctime_ns,
    )


def read_source_at(root_fd: int, stat: FileStat, config: CorpusConfig) -> SourceFile | Exclusion:
    """:func:`read_source` with the root already open (the scan reads many files through one descriptor)."""
    try:
        data = read_below(root_fd, stat.path, config.max_file_bytes, expected=stat)
    except Refusal as refusal:
        return Exclusion(stat.path, refusal.reason, refusal.detail)
    return adopt(stat, data, config)


def _restat(root_fd: int, rel_path: str) -> FileStat | None:
    """The walk entry ``rel_path`` would get now (``lstat`` through its directories, never following a
    link); None when it is no longer a regular file, or cannot be looked at."""
    try:
        parts = split_portable(rel_path)
        parent = open_parent(root_fd, parts)
    except (Refusal, OSError):
        return None
    try:
        st = os.stat(parts[-1], dir_fd=parent, follow_symlinks=False)
    except OSError:
        return None
    finally:
        os.close(parent)
    if not stat_module.S_ISREG(st.st_mode):
        return None
    return FileStat(rel_path, st.st_size, st.st_mtime_ns, st.st_ino, st.st_nlink, st.st_ctime_ns)


def read_settled_at(root_fd: int, stat: FileStat, config: CorpusConfig) -> SourceFile | Exclusion:
    """:func:`read_source_at`, and once more against the file's stat of now when it changed since the walk
    or while it was read (a save in progress): an index taken during an edit holds the file as it is. A
    file that changes again is left out as ``changed``; its stat then differs from the one recorded, so the
    next refresh reads it."""
    outcome = read_source_at(root_fd, stat, config)
    if not isinstance(outcome, Exclusion) or outcome.reason != REASON_CHANGED:
        return outcome
    now = _restat(root_fd, stat.path)
    return outcome if now is None else read_source_at(root_fd, now, config)


def read_source(root: Path, stat: FileStat, config: CorpusConfig) -> SourceFile | Exclusion:
    """Read the walk entry ``stat`` under ``root``: the adopted source, or its exclusion with a reason."""
    root_fd = open_root(Path(root))
    try:
        return read_source_at(root_fd, stat, config)
    finally:
        os.close(root_fd)


def read_bytes_checked(root: Path, rel_path: str, max_bytes: int) -> bytes:
    """The complete bytes of ``rel_path`` under ``root``, read with the scan's safety rules.

    Used to re-verify sources later. Raises :class:`PathOutsideRootError` for a path that is not a
    portable relative path under the root, :class:`SourceMissingError` when it does not exist, and
    :class:`SourceUnreadableError` otherwise; each carries the scan's ``reason`` code in its details.
    """
    root_fd = open_root(Path(root))
    try:
        return read_below(root_fd, rel_path, max_bytes)
    except Refusal as refusal:
        raise source_error(refusal, display_name(rel_path)) from None
    finally:
        os.close(root_fd)
