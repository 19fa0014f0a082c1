"""Low-level safe file access shared by the walk, the reader and the config loader.

Every path below the explicit root is opened one component at a time relative to its parent directory's
file descriptor, with ``O_NOFOLLOW``: a symlink anywhere in the chain fails with ``ELOOP`` instead of being
followed, so nothing outside the root is ever read through a link, and a directory swapped for a link
between the walk and the read is caught too. Failures are :class:`Refusal` values carrying a reason code
from :mod:`prooftext.corpus.model`; callers turn them into an ``Exclusion`` or a ``SourceError``.

Details never contain an absolute path: only the relative path and ``os.strerror`` text.
"""

from __future__ import annotations

import errno
import os
import stat as stat_module
from pathlib import Path

from prooftext.corpus.model import (
    REASON_CHANGED,
    REASON_NOT_REGULAR,
    REASON_PATH,
    REASON_SIZE,
    REASON_SYMLINK,
    REASON_UNREADABLE,
    REMEDIES,
    FileStat,
)
from prooftext.errors import (
    ArtifactError,
    LimitError,
    NotFoundError,
    PathOutsideRootError,
    RootError,
    RootMissingError,
    RootNotDirectoryError,
    RootUnreadableError,
    SourceError,
    SourceMissingError,
    SourceUnreadableError,
)

Stamp = tuple[int, int, int, int] | None
"""A file's (size, mtime_ns, inode, ctime_ns), or None when there is none: what a long-lived reader compares
to notice an edit without reading (the ctime catches one that keeps size and mtime)."""


def stat_stamp(path: Path) -> Stamp:
    """The :data:`Stamp` of ``path`` (a link's own, not its target's)."""
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)


_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
ROOT_FLAGS = os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC
"""The explicit root is a command argument: a symlinked root is the caller's choice, so it is followed."""
DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC
LEAF_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | _CLOEXEC
"""``O_NONBLOCK`` keeps a FIFO that replaced a file from blocking the open; ``fstat`` then rejects it."""

READ_CHUNK_BYTES = 1 << 16

_BYTE_MAX = 0xFF
_FIRST_SURROGATE_ESCAPE = 0xDC80
_LAST_SURROGATE_ESCAPE = 0xDCFF
_SURROGATE_ESCAPE_BASE = 0xDC00
_FORBIDDEN_NAME_CHARS = frozenset("\\")
_DOT_NAMES = frozenset({"", ".", ".."})

SYMLINK_ERRNOS = frozenset({errno.ELOOP, errno.EMLINK})
"""``O_NOFOLLOW`` on a symlink leaf fails with ELOOP (EMLINK on some BSDs)."""
_MISSING_ERRNOS = frozenset({errno.ENOENT, errno.ENOTDIR})
_NOT_REGULAR_ERRNOS = frozenset({errno.ENXIO, errno.ENODEV, errno.EOPNOTSUPP})
"""Opening a socket gives ENXIO; device nodes without a driver give ENODEV."""


class Refusal(Exception):
    """A path the scan will not read, with its reason code and a short, root-free detail."""

    def __init__(self, reason: str, detail: str = "", err: int | None = None) -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail
        self.errno = err

    @property
    def missing(self) -> bool:
        """The path (or one of its directories) does not exist."""
        return self.errno in _MISSING_ERRNOS


def source_error(refusal: Refusal, shown: str) -> SourceError:
    """The error a caller sees for a refused read of the path ``shown``: outside the root, missing, or
    unreadable, with the refusal's reason code."""
    detail = refusal.detail or refusal.reason
    if refusal.reason == REASON_SYMLINK and refusal.errno in SYMLINK_ERRNOS:
        detail = f"a symbolic link ({REMEDIES[REASON_SYMLINK]})"  # not the errno's "too many levels of links"
    message = f"{shown}: {detail}"
    if refusal.reason == REASON_PATH:
        return PathOutsideRootError(message, path=shown, reason=refusal.reason)
    if refusal.missing:
        return SourceMissingError(message, path=shown, reason=refusal.reason)
    return SourceUnreadableError(message, path=shown, reason=refusal.reason)


def reason_for_errno(err: int) -> str:
    """The reason code of an ``OSError`` errno met while opening or reading below the root."""
    if err in SYMLINK_ERRNOS:
        return REASON_SYMLINK
    if err in _NOT_REGULAR_ERRNOS:
        return REASON_NOT_REGULAR
    return REASON_UNREADABLE


def refusal_from(exc: OSError, where: str = "") -> Refusal:
    """A refusal for an ``OSError``; ``where`` names a component other than the path being read."""
    err = exc.errno if exc.errno is not None else errno.EIO
    cause = os.strerror(err)
    return Refusal(reason_for_errno(err), f"{where}: {cause}" if where else cause, err)


def _char_problem(char: str) -> str | None:
    code = ord(char)
    if _FIRST_SURROGATE_ESCAPE <= code <= _LAST_SURROGATE_ESCAPE:
        return "not valid UTF-8"
    if char in _FORBIDDEN_NAME_CHARS:
        return "contains a backslash"
    if not char.isprintable():  # C0/C1 controls, line and paragraph separators, format characters
        return "contains a control character"
    return None


def _plain(name: str) -> bool:
    """The common case, checked in C: printable ASCII without a backslash needs no per-character scan."""
    return name.isascii() and name.isprintable() and "\\" not in name


def name_problem(name: str) -> str | None:
    """Why one path component is not portable, or None. Non-ASCII is fine when it is valid UTF-8."""
    if name in _DOT_NAMES or "/" in name:
        return "not a plain file or directory name"
    if _plain(name):
        return None
    for char in name:
        problem = _char_problem(char)
        if problem is not None:
            return problem
    return None


def _written_out(char: str) -> str:
    code = ord(char)
    if _FIRST_SURROGATE_ESCAPE <= code <= _LAST_SURROGATE_ESCAPE:
        return f"\\x{code - _SURROGATE_ESCAPE_BASE:02x}"
    return f"\\x{code:02x}" if code <= _BYTE_MAX else f"\\u{code:04x}"


def display_name(name: str) -> str:
    """A printable, serializable form of a possibly non-portable name (undecodable bytes as ``\\xNN``)."""
    if _plain(name):
        return name
    return "".join(_written_out(char) if _char_problem(char) is not None else char for char in name)


def printable(text: str) -> str:
    """``text`` (a path a user gave) with control characters and undecodable bytes written out as
    ``\\xNN``, for a one-line message that no terminal takes for a command; a backslash stays."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else _written_out(char) for char in text)


def split_portable(rel_path: str) -> list[str]:
    """The components of a portable POSIX relative path; else :class:`Refusal` (``path_not_portable``)."""
    if not rel_path or rel_path.startswith("/"):
        raise Refusal(REASON_PATH, "not a relative path")
    parts = rel_path.split("/")
    for part in parts:
        problem = name_problem(part)
        if problem is not None:
            raise Refusal(REASON_PATH, f"component {display_name(part)!r}: {problem}")
    return parts


def open_root(root: Path) -> int:
    """A directory descriptor for the explicit root; the root errors are the user's to see."""
    shown = printable(str(root))
    try:
        return os.open(root, ROOT_FLAGS)
    except FileNotFoundError:
        raise RootMissingError(f"root does not exist: {shown}", root=shown) from None
    except NotADirectoryError:
        raise RootNotDirectoryError(f"root is not a directory: {shown}", root=shown) from None
    except OSError as exc:
        raise RootUnreadableError(f"root cannot be opened: {shown}: {exc.strerror}", root=shown) from None


def _is_symlink_at(dir_fd: int, name: str) -> bool:
    try:
        return stat_module.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def open_dir_at(dir_fd: int, name: str, where: str = "") -> int:
    """Open a subdirectory without following a symlink; :class:`Refusal` on failure."""
    try:
        return os.open(name, DIR_FLAGS, dir_fd=dir_fd)
    except NotADirectoryError as exc:
        # Linux reports O_DIRECTORY|O_NOFOLLOW on a symlink as ENOTDIR, the same as for a plain file.
        if _is_symlink_at(dir_fd, name):
            raise refusal_from(OSError(errno.ELOOP, os.strerror(errno.ELOOP)), where) from None
        raise refusal_from(exc, where) from None
    except OSError as exc:
        raise refusal_from(exc, where) from None


def open_parent(root_fd: int, parts: list[str]) -> int:
    """A new descriptor for the directory holding ``parts[-1]``, walked one component at a time."""
    fd = os.dup(root_fd)
    for index, part in enumerate(parts[:-1]):
        try:
            child = open_dir_at(fd, part, "directory " + "/".join(parts[: index + 1]))
        finally:
            os.close(fd)
        fd = child
    return fd


def same_file(a: os.stat_result, b: os.stat_result) -> bool:
    """Two stats of one open file agree on size, modification time, inode and device: it did not change."""
    return (a.st_size, a.st_mtime_ns, a.st_ino, a.st_dev) == (b.st_size, b.st_mtime_ns, b.st_ino, b.st_dev)


def matches_walk(st: os.stat_result, expected: FileStat) -> bool:
    return (st.st_size, st.st_mtime_ns, st.st_ino) == (expected.size, expected.mtime_ns, expected.inode)


def read_upto(fd: int, limit: int) -> bytes:
    """At most ``limit`` bytes from ``fd``, in chunks, up to its end."""
    chunks: list[bytes] = []
    remaining = limit
    while remaining > 0:
        chunk = os.read(fd, min(READ_CHUNK_BYTES, remaining))
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def _read_open_file(fd: int, max_bytes: int, expected: FileStat | None) -> bytes:
    before = os.fstat(fd)
    if not stat_module.S_ISREG(before.st_mode):
        raise Refusal(REASON_NOT_REGULAR, "not a regular file")
    if expected is not None and not matches_walk(before, expected):
        raise Refusal(REASON_CHANGED, "changed since the walk")
    if before.st_size > max_bytes:
        raise Refusal(REASON_SIZE, f"{before.st_size} bytes > limit {max_bytes}")
    # One byte past the limit tells "exactly at the limit" from "grew past it" without an unbounded read.
    data = read_upto(fd, max_bytes + 1)
    if len(data) > max_bytes:
        raise Refusal(REASON_SIZE, f"more than the limit of {max_bytes} bytes")
    after = os.fstat(fd)
    if not same_file(before, after) or len(data) != after.st_size:
        raise Refusal(REASON_CHANGED, "changed while it was read")
    return data


def read_regular_at(dir_fd: int, name: str, max_bytes: int, expected: FileStat | None = None) -> bytes:
    """Read a regular, unlinked file in ``dir_fd`` completely, at most ``max_bytes``; :class:`Refusal` else.

    ``expected`` (the walk's stat) must still describe the file, and the file must not change during the read.
    """
    try:
        fd = os.open(name, LEAF_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        raise refusal_from(exc) from None
    try:
        return _read_open_file(fd, max_bytes, expected)
    except OSError as exc:
        raise refusal_from(exc) from None
    finally:
        os.close(fd)


def read_below(root_fd: int, rel_path: str, max_bytes: int, expected: FileStat | None = None) -> bytes:
    """Read ``rel_path`` under the root descriptor, component by component, never following a symlink."""
    parts = split_portable(rel_path)
    parent = open_parent(root_fd, parts)
    try:
        return read_regular_at(parent, parts[-1], max_bytes, expected)
    finally:
        os.close(parent)


def read_small_file(path: Path, max_bytes: int) -> bytes | None:
    """Bounded read of trusted metadata (git's own files): regular files only, None when absent or odd.

    Symlinks are followed here (git itself follows them in ``.git``), but a FIFO or device never blocks.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | _CLOEXEC)
    except OSError:
        return None
    try:
        return _read_open_file(fd, max_bytes, None)
    except (OSError, Refusal):
        return None
    finally:
        os.close(fd)


def _encodable(path: str) -> bool:
    """Can the file system be asked about ``path`` (lone surrogates stand for undecodable bytes only)?"""
    try:
        os.fsencode(path)
    except UnicodeEncodeError:
        return False
    return True


def existing_directory(path: Path | str, what: str = "root") -> Path:
    """``path`` as an absolute existing directory; a clear, coded error otherwise (``what`` names it in the
    message: ``root``, ``--repository-root``). A file is ``root_not_directory`` and says it is a file; a
    path through a file (``app.py/src``) is ``root_not_directory`` too, not missing; anything but a path or
    a string of text without NUL is ``root_invalid``."""
    if not isinstance(path, (str, os.PathLike)):
        raise RootError(f"{what} must be a path or a string, not {type(path).__name__}", root=repr(path)[:80])
    spelled = os.fspath(path)
    if spelled == "":
        raise RootError(f"{what} is empty: give a directory (. for the working directory)", root="")
    if not isinstance(spelled, str) or "\x00" in spelled or not _encodable(spelled):
        raise RootError(f"{what} is not a path this system can name: {spelled!r:.80}", root=repr(path)[:80])
    given = Path(path).expanduser()
    shown = printable(str(path))
    try:
        mode = given.stat().st_mode
    except NotADirectoryError:
        raise RootNotDirectoryError(
            f"{what} is not a directory: {shown}: a part of its path is a file", root=shown
        ) from None
    except FileNotFoundError:
        raise RootMissingError(f"{what} does not exist: {shown}", root=shown) from None
    except OSError as exc:  # no permission to look, a loop of links
        raise RootUnreadableError(f"{what} cannot be opened: {shown}: {exc.strerror}", root=shown) from None
    if stat_module.S_ISREG(mode):
        raise RootNotDirectoryError(f"{what} is a file, not a directory: {shown}", root=shown)
    if not stat_module.S_ISDIR(mode):
        raise RootNotDirectoryError(f"{what} is not a directory: {shown}", root=shown)
    return given.resolve()


def read_bounded(path: Path, max_bytes: int, what: str = "file") -> bytes:
    """The bytes of a file a caller names (an artifact, a saved packet): a regular file of at most
    ``max_bytes``. A FIFO is opened without blocking and refused, a device or an oversized file is refused
    before it is read, so no input can hang the reader or exhaust its memory. A path that names nothing
    (nor a link to anything) is ``not_found``; every message names the path as given and ``what`` it is."""
    shown = display_name(str(path))
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | _CLOEXEC)
    except FileNotFoundError:
        raise NotFoundError(f"{what} not found: {shown}", path=shown) from None
    except OSError as exc:
        raise ArtifactError(f"cannot read {what} {shown}: {exc.strerror}", path=shown) from None
    try:
        return _read_whole(fd, max_bytes, f"{what} {shown}", shown)
    except OSError as exc:
        raise ArtifactError(f"cannot read {what} {shown}: {exc.strerror}", path=shown) from None
    finally:
        os.close(fd)


def _read_whole(fd: int, max_bytes: int, named: str, shown: str) -> bytes:
    """The bytes of the open file ``fd``, never more than ``max_bytes``: one that is larger, or grows past
    them while it is read, is a ``LimitError``; one that changes while it is read, an ``ArtifactError``."""
    before = os.fstat(fd)
    if not stat_module.S_ISREG(before.st_mode):
        raise ArtifactError(f"{named} is not a regular file", path=shown)
    if before.st_size > max_bytes:
        raise LimitError(f"{named} is larger than {max_bytes} bytes", path=shown)
    # One byte past the limit tells "exactly at the limit" from "grew past it" without an unbounded read.
    data = read_upto(fd, max_bytes + 1)
    if len(data) > max_bytes:
        raise LimitError(f"{named} grew past {max_bytes} bytes while it was read", path=shown)
    after = os.fstat(fd)
    if not same_file(before, after) or len(data) != after.st_size:
        raise ArtifactError(
            f"{named} changed while it was read; read it again once it is written", path=shown
        )
    return data


GITIGNORE = ".gitignore"
GITIGNORE_TEXT = "# Created by prooftext: git ignores this whole directory.\n*\n"
"""What a new store directory holds so that ``git status`` of the repository never lists it (as a virtual
environment's or pytest's cache directory does)."""


def ignore_in_git(directory: Path) -> None:
    """Write ``directory/.gitignore`` ignoring everything (``.prooftext/``, as a virtual environment does),
    unless a file of that name exists. Never through a link; a directory that cannot take it fails
    elsewhere, with a coded error. Callers write it only when they create their store, so one the user
    removed stays removed."""
    try:
        fd = os.open(
            directory / GITIGNORE, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644
        )
    except OSError:
        return
    try:
        os.write(fd, GITIGNORE_TEXT.encode())
    except OSError:
        pass
    finally:
        os.close(fd)
