"""Change detection without a walk: an inotify watch on every directory the last walk listed.

A long-running server would otherwise walk the whole tree (tens of milliseconds on a sphinx-sized
repository) for every request just to learn that nothing changed. The kernel queues an inotify event
before the modifying system call returns, so draining the queue without blocking at request time sees
every change that happened before the request: there is no delivery lag and no timer, unlike watchers
that batch events on a background thread.

Any event bumps an epoch, and a walk result is trusted while the epoch is unchanged. The watcher also
keeps a short log of what the events were (directory, name, mask), so a caller can patch its last walk
for edits and deletions of files it knew instead of walking again (``corpus.walk.patch``); anything the
log cannot vouch for (an overflow, an event on a directory, an unknown watch, a log grown past its bound)
makes ``events_since`` answer None, and the caller walks. Directories that appear
are watched only after a walk listed them, so a walk that added watches is not trusted either (a file
created between its listing and the new watch would be missed); the next walk, with the watch in place,
is. After the queue overflowed, the watches themselves are in doubt (the end of a removed directory's
watch may be among the dropped events), so the next walk's ``sync`` asks the kernel again for each
directory's watch instead of trusting its own table. ``.prooftext/ignore`` lies in a directory no walk lists: its stat
data is compared at every :meth:`~DirectoryWatcher.epoch` instead, as ``prooftext.toml``'s is by the index.
Where inotify is unavailable (other systems, or the per-user watch limit is reached), or cannot see every
change (a root on a network, FUSE or shared-folder file system, which another machine writes without an
event here), the watcher reports itself inactive and callers walk every time, as before.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import struct
import sys
import threading
from collections.abc import Iterable
from pathlib import Path

from prooftext.corpus.ignore import PROOFTEXT_IGNORE, is_internal
from prooftext.corpus.safeio import stat_stamp

IN_MODIFY = 0x00000002
IN_ATTRIB = 0x00000004
IN_CLOSE_WRITE = 0x00000008
IN_MOVED_FROM = 0x00000040
IN_MOVED_TO = 0x00000080
IN_CREATE = 0x00000100
IN_DELETE = 0x00000200
IN_DELETE_SELF = 0x00000400
IN_MOVE_SELF = 0x00000800
IN_Q_OVERFLOW = 0x00004000
IN_IGNORED = 0x00008000
IN_ISDIR = 0x40000000
IN_ONLYDIR = 0x01000000
IN_DONT_FOLLOW = 0x02000000
IN_NONBLOCK = os.O_NONBLOCK
IN_CLOEXEC = os.O_CLOEXEC

WATCH_MASK = (
    IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
    | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW
)  # fmt: skip
"""Content, metadata, naming and lifetime changes; reads and opens (our own verification) are not events."""
EVENT_HEADER = struct.Struct("iIII")
"""``struct inotify_event``: watch descriptor, mask, cookie, name length (the name follows)."""
READ_CHUNK = 64 * 1024
"""Bytes drained per read; a full queue overflows into one ``IN_Q_OVERFLOW`` event, which also counts."""
MAX_LOGGED_EVENTS = 1024
"""Events remembered for :meth:`DirectoryWatcher.events_since`; past this, callers walk again."""

Event = tuple[str, str, int]
"""One logged event: the watched directory (relative, ``""`` for the root), the entry's name, the mask."""
_UNKNOWN: Event = ("", "", -1)
"""A logged event that says nothing usable about what changed."""
_INSTANCES_REACHED = (
    "the per-user limit of inotify instances (fs.inotify.max_user_instances) or this process's limit of "
    "open files is reached"
)
_WATCHES_REACHED = "the per-user limit of inotify watches (fs.inotify.max_user_watches) is reached"
LIMIT_HINTS = {
    ("inotify_init1", errno.EMFILE): _INSTANCES_REACHED,
    ("inotify_add_watch", errno.ENOSPC): _WATCHES_REACHED,
}
"""What a failure means when its system message would mislead (ENOSPC reads "No space left on device")."""


def _failure(call: str, code: int) -> str:
    """Why watching stopped, for ``freshness_check``: the call, and the limit reached or the system's message."""
    return f"{call} failed: {LIMIT_HINTS.get((call, code)) or os.strerror(code)}"


UNWATCHED_FILE_SYSTEMS = frozenset(
    {"9p", "afs", "ceph", "cifs", "fuse", "gpfs", "lustre", "nfs", "nfs4", "prl_fs", "smb3", "smbfs"}
    | {"drvfs", "fakeowner", "vboxsf", "vmhgfs", "virtiofs"}
)
"""File systems shared with another machine or a host (network mounts, a VM's or container's shared
folders, WSL's Windows drives, FUSE): a change made on the other side raises no inotify event here."""
LOCAL_FUSE_FILE_SYSTEMS = frozenset({"fuse.fuse-overlayfs"})
"""FUSE file systems that only this machine writes (a rootless container's own files): watched."""
MOUNTINFO = "/proc/self/mountinfo"


def _mountinfo() -> str:
    try:
        with open(MOUNTINFO, encoding="utf-8", errors="surrogateescape") as lines:
            return lines.read()
    except OSError:
        return ""


def _file_system(root: Path) -> str | None:
    """The type of the mounted file system holding ``root`` (matched by device), or None when not known."""
    try:
        st = os.stat(root)
    except OSError:
        return None
    device = f"{os.major(st.st_dev)}:{os.minor(st.st_dev)}"
    for line in _mountinfo().splitlines():
        fields, _, rest = line.partition(" - ")
        parts = fields.split()
        if len(parts) > 2 and parts[2] == device and rest.split():
            return rest.split()[0]
    return None


def _unwatched_reason(root: Path) -> str:
    """Why inotify cannot vouch for changes under ``root`` (its file system is shared), or ``""``."""
    kind = _file_system(root)
    if kind is None:
        return ""
    shared = kind in UNWATCHED_FILE_SYSTEMS or (
        kind.startswith("fuse.") and kind not in LOCAL_FUSE_FILE_SYSTEMS
    )
    if not shared:
        return ""
    return f"the root is on a {kind} file system, where a change made from elsewhere raises no inotify event"


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.inotify_init1.argtypes = [ctypes.c_int]
        libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        libc.inotify_rm_watch.argtypes = [ctypes.c_int, ctypes.c_int]
    except (OSError, AttributeError):
        return None
    return libc


class DirectoryWatcher:
    """Watches the directories of one root; ``epoch()`` changes whenever anything under them may have."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._lock = threading.Lock()
        self._epoch = 0
        self._by_path: dict[str, int] = {}
        self._by_wd: dict[int, str] = {}
        self._log: list[tuple[int, Event]] = []
        self._log_floor = 0
        """Events are logged for every epoch above this one."""
        self._ignore_stamp = stat_stamp(root / PROOFTEXT_IGNORE)
        self._in_doubt = False
        """Set by a queue overflow: the next :meth:`sync` asks the kernel for every watch again."""
        self._libc = _libc()
        self._fd = -1
        self.reason = "inotify is not available on this system"
        if self._libc is not None:
            self.reason = _unwatched_reason(root)
        if self._libc is not None and not self.reason:
            fd = int(self._libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC))
            if fd >= 0:
                self._fd, self.reason = fd, ""
            else:
                self.reason = _failure("inotify_init1", ctypes.get_errno())

    @property
    def active(self) -> bool:
        return self._fd >= 0

    @property
    def watched(self) -> int:
        return len(self._by_path)

    def close(self) -> None:
        with self._lock:
            self._deactivate(self.reason or "closed")

    def _deactivate(self, reason: str) -> None:
        if self._fd >= 0:
            os.close(self._fd)
        self._fd, self.reason = -1, reason
        self._by_path.clear()
        self._by_wd.clear()

    def epoch(self) -> int:
        """Drain the queued events (without blocking); the epoch moves if any of them mattered."""
        with self._lock:
            while self._fd >= 0:
                try:
                    data = os.read(self._fd, READ_CHUNK)
                except BlockingIOError:
                    break
                except OSError as exc:
                    self._deactivate(f"reading inotify events failed: {exc.strerror}")
                    break
                self._note(self._events(data))
            stamp = stat_stamp(self.root / PROOFTEXT_IGNORE)
            if stamp != self._ignore_stamp:  # the walk's own ignore rules changed: no event says so
                self._ignore_stamp = stamp
                self._note([_UNKNOWN])
            return self._epoch

    def _note(self, events: list[Event]) -> None:
        if events:
            self._epoch += 1
            self._remember(events)

    def events_since(self, epoch: int) -> list[Event] | None:
        """What happened after ``epoch`` (call :meth:`epoch` first), or None when the log cannot say."""
        with self._lock:
            if epoch < self._log_floor:
                return None
            events = [event for at, event in self._log if at > epoch]
        return None if _UNKNOWN in events else events

    def _remember(self, events: list[Event]) -> None:
        self._log.extend((self._epoch, event) for event in events)
        if len(self._log) > MAX_LOGGED_EVENTS:
            self._log_floor = self._epoch
            self._log.clear()

    def _events(self, data: bytes) -> list[Event]:
        """Every event except the acknowledgements of our own removals and names internal to the tool."""
        offset, found = 0, []
        while offset + EVENT_HEADER.size <= len(data):
            wd, mask, _cookie, length = EVENT_HEADER.unpack_from(data, offset)
            name = data[offset + EVENT_HEADER.size : offset + EVENT_HEADER.size + length].rstrip(b"\0")
            offset += EVENT_HEADER.size + length
            if mask & IN_IGNORED:
                self._forget(wd)
                continue
            if mask & IN_Q_OVERFLOW:
                self._in_doubt = True  # the end of a watch may be among the events dropped
            decoded = os.fsdecode(name)
            if name and is_internal(decoded):
                continue
            directory = self._by_wd.get(wd)
            usable = directory is not None and bool(name) and not mask & (IN_ISDIR | IN_Q_OVERFLOW)
            found.append((directory or "", decoded, mask) if usable else _UNKNOWN)
        return found

    def _forget(self, wd: int) -> None:
        path = self._by_wd.pop(wd, None)
        if path is not None and self._by_path.get(path) == wd:
            del self._by_path[path]

    def sync(self, directories: Iterable[str]) -> int:
        """Watch exactly ``directories`` (relative, ``""`` for the root); returns how many were not watched
        under that name before (new, renamed, replaced, or gone since the walk listed them)."""
        wanted = set(directories)
        with self._lock:
            if self._fd < 0 or self._libc is None:
                return 0
            if self._in_doubt:
                self._in_doubt = False
                return self._rewatch(sorted(wanted))
            for path in sorted(set(self._by_path) - wanted):
                gone = self._by_path.pop(path)
                self._by_wd.pop(gone, None)
                self._libc.inotify_rm_watch(self._fd, gone)
            added = 0
            for path in sorted(wanted - set(self._by_path)):
                wd = self._add(path)
                if wd is None:
                    return 0
                added += 1
                if wd < 0:
                    continue
                previous = self._by_wd.get(wd)
                if previous is not None and previous != path:
                    del self._by_path[previous]  # the same directory, renamed: one watch, the new name
                self._by_wd[wd] = path
                self._by_path[path] = wd
        return added

    def _rewatch(self, wanted: list[str]) -> int:
        """After an overflow, ask the kernel for every directory's watch again (it answers an inode it
        watches with the watch it has): the table may name a watch the kernel has ended (its end was among
        the dropped events), or a directory that is another one now. Returns what :meth:`sync` returns."""
        by_path: dict[str, int] = {}
        added = 0
        for path in wanted:
            wd = self._add(path)
            if wd is None:
                return 0
            if wd < 0 or self._by_wd.get(wd) != path:
                added += 1
            if wd >= 0:
                by_path[path] = wd
        assert self._libc is not None
        for wd in sorted(set(self._by_wd) - set(by_path.values())):
            self._libc.inotify_rm_watch(self._fd, wd)  # an ended watch is refused: nothing to undo
        self._by_path = by_path
        self._by_wd = {wd: path for path, wd in by_path.items()}
        return added

    def _add(self, path: str) -> int | None:
        """The watch of directory ``path``: its descriptor, -1 when the directory is gone or swapped since
        the walk (the next walk decides), None when watching had to stop (a limit reached)."""
        assert self._libc is not None
        wd = int(self._libc.inotify_add_watch(self._fd, os.fsencode(self.root / path), WATCH_MASK))
        if wd >= 0:
            return wd
        code = ctypes.get_errno()
        if code in (errno.ENOENT, errno.ENOTDIR, errno.EACCES, errno.ELOOP):
            return -1
        self._deactivate(_failure("inotify_add_watch", code))
        return None
