"""Exclusive publication: an output appears complete, once, or not at all.

The artifact is written to a fresh temporary file (``O_CREAT|O_EXCL``) in the output's directory, flushed,
and then hard-linked to the output name; ``link`` never replaces an existing name, so of concurrent
publishers exactly one wins and the others get ``output_exists``. The temporary name is always removed,
so no partial file remains. Where hard links are unsupported, the output is created with ``O_EXCL``
directly and removed again if writing fails.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
from collections.abc import Callable, Sequence
from pathlib import Path

import prooftext.canonical as canonical
from prooftext.errors import ArtifactError, OutputExistsError, OutputUnwritableError

FILE_MODE = 0o644
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _CLOEXEC
TEMP_TOKEN_BYTES = 8
TEMP_PREFIX_BYTES = 64
"""At most this many bytes of the output's name start its temporary name: with the dot, process id, token
and suffix the temporary name stays far below the 255-byte name limit whatever the output is called."""
_NO_LINK_ERRNOS = frozenset({errno.EPERM, errno.EOPNOTSUPP, errno.ENOSYS, errno.EXDEV, errno.EMLINK})


def _json_string_body(text: str) -> bytes:
    return canonical.encode(text)[1:-1]


def check_no_absolute_roots(data: bytes, roots: Sequence[str]) -> None:
    """Absolute roots are command arguments and are never serialized."""
    for root in roots:
        if _json_string_body(root) in data:
            raise ArtifactError(
                "refusing to serialize an absolute root into an artifact", reason="absolute_root"
            )


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
    os.fsync(fd)


def _exists_error(path: Path) -> OutputExistsError:
    return OutputExistsError(f"output already exists: {path.name}", output=path.name)


def _fill(fd: int, path: Path, data: bytes) -> None:
    """Write ``data`` to the new file ``path`` open at ``fd`` and close it; a failed write removes the file,
    so no partial output is left behind."""
    try:
        _write_all(fd, data)
    except BaseException:
        os.close(fd)
        path.unlink(missing_ok=True)
        raise
    os.close(fd)


def _create_direct(path: Path, data: bytes) -> None:
    try:
        fd = os.open(path, CREATE_FLAGS, FILE_MODE)
    except FileExistsError:
        raise _exists_error(path) from None
    _fill(fd, path, data)


def _link_into_place(temp: Path, path: Path, data: bytes) -> None:
    try:
        os.link(temp, path, follow_symlinks=False)
    except FileExistsError:
        raise _exists_error(path) from None
    except OSError as exc:
        if exc.errno not in _NO_LINK_ERRNOS:
            raise
        _create_direct(path, data)


def _sync_directory(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


_TEMP_NAME = re.compile(rf"^\..+\.(\d+)\.[0-9a-f]{{{2 * TEMP_TOKEN_BYTES}}}\.tmp$")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, but not ours to signal
        return True
    return True


def sweep_orphans(directory: Path) -> list[str]:
    """Remove the temporary files of publishers that died before linking them (their process is gone).

    A temp names its writer's process id, so a live publisher's temp is never touched; a reused process id
    only delays the sweep. Returns the names removed."""
    removed: list[str] = []
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return removed
    for name in names:
        match = _TEMP_NAME.match(name)
        if match is None or _alive(int(match.group(1))):
            continue
        try:
            os.unlink(directory / name)
        except OSError:
            continue
        removed.append(name)
    return removed


def _temp_name(name: str) -> str:
    """``.{prefix}.{pid}.{token}.tmp``, the prefix a bounded cut of ``name`` (a cut inside a multi-byte
    character decodes to surrogate escapes, which the file system receives back as the same bytes)."""
    prefix = os.fsdecode(os.fsencode(name)[:TEMP_PREFIX_BYTES])
    return f".{prefix}.{os.getpid()}.{secrets.token_hex(TEMP_TOKEN_BYTES)}.tmp"


def _temp_file(directory: Path, name: str, data: bytes) -> Path:
    temp = directory / _temp_name(name)
    _fill(os.open(temp, CREATE_FLAGS, FILE_MODE), temp, data)
    return temp


def publish_exclusive(path: Path, data: bytes, before: Callable[[], None] | None = None) -> None:
    """Create ``path`` holding exactly ``data``; never overwrite. ``before`` runs last, just before the
    output is created (the final candidate check), and can still stop publication."""
    path = Path(path)
    if os.path.lexists(path):
        raise _exists_error(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputUnwritableError(f"cannot create the output directory: {exc.strerror}") from None
    sweep_orphans(path.parent)
    if before is not None:
        before()
    try:
        temp = _temp_file(path.parent, path.name, data)
    except OSError as exc:
        raise OutputUnwritableError(f"cannot write the output: {exc.strerror}") from None
    try:
        _link_into_place(temp, path, data)
    except OSError as exc:
        raise OutputUnwritableError(f"cannot publish the output: {exc.strerror}") from None
    finally:
        temp.unlink(missing_ok=True)
    _sync_directory(path.parent)
