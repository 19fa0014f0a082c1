"""The deterministic walk: which regular files under the root are candidates, and why the rest are not.

Directories are opened one at a time relative to their parent's descriptor with ``O_NOFOLLOW`` and listed
with ``os.scandir`` on that descriptor; entries are classified from ``lstat`` data, so no symlink is ever
followed (to a file or a directory, inside or outside the root, or in a loop). Nothing is read except
``.gitignore`` files. Per entry, in order: ``internal`` (``.git``, ``.prooftext``), ``ignored``,
``path_not_portable``, ``cross_device`` (a directory on another file system), ``symlink``, ``not_regular``,
``size``; unreadable directories get ``unreadable``. An ignored entry's detail names the ignore file, line and
pattern that decided it.
An excluded directory is one exclusion; the walk does not descend into it.

Candidates come back sorted by portable path. The total limit is then applied in that order: a file is
adopted only if the running sum of adopted sizes stays within ``max_total_bytes``; a file that would pass it
gets ``total_size`` while smaller files after it may still fit.
"""

from __future__ import annotations

import operator
import os
import stat as stat_module
from dataclasses import dataclass
from pathlib import Path

from prooftext.corpus.config import CorpusConfig
from prooftext.corpus.ignore import IgnoreMatcher, is_internal, load_gitignore, root_matcher
from prooftext.corpus.model import (
    REASON_CROSS_DEVICE,
    REASON_IGNORE_INVALID,
    REASON_IGNORED,
    REASON_INTERNAL,
    REASON_NOT_REGULAR,
    REASON_PATH,
    REASON_SIZE,
    REASON_SYMLINK,
    REASON_TOTAL_SIZE,
    REASON_UNREADABLE,
    Exclusion,
    FileStat,
    WalkResult,
)
from prooftext.corpus.safeio import (
    GITIGNORE,
    Refusal,
    display_name,
    name_problem,
    open_dir_at,
    open_root,
    refusal_from,
)
from prooftext.corpus.secrets import redact_path
from prooftext.corpus.watch import IN_ATTRIB, IN_CLOSE_WRITE, IN_DELETE, IN_MODIFY
from prooftext.errors import ConfigError, RootError

MAX_WALK_DEPTH = 128
"""Directory nesting the walk follows; deeper trees are excluded (no portable tool path is that deep)."""
MAX_PATH_BYTES = 4096
"""Longest relative path (UTF-8 bytes) adopted: git's ``largePathname`` threshold and Linux's PATH_MAX."""


_MAX_UTF8_BYTES = 4
_NAME = operator.attrgetter("name")


def _plain_name(name: str) -> bool:
    """A listed name that :func:`name_problem` passes without a look at each character (nearly all)."""
    return name.isascii() and name.isprintable() and "\\" not in name and name != ".." and name != "."


def _join(directory: str, name: str) -> str:
    return f"{directory}/{name}" if directory else name


def _shown(directory: str, name: str) -> str:
    """The recorded path of an entry whose name may not be portable: escaped for display, with any
    credential it spells redacted first (an escape such as ``\\x0a`` joined to a token hides it from the
    redaction every exclusion path gets when it is stored)."""
    path = _join(directory, name)
    return path if _plain_name(name) else display_name(redact_path(path))


@dataclass
class _Walker:
    config: CorpusConfig
    result: WalkResult
    device: int
    """The root's file system: a directory on another one is a mount point, never walked into. (Files are
    not compared: overlay file systems report the lower layer's device for them.)"""

    def exclude(self, path: str, reason: str, detail: str = "") -> None:
        self.result.excluded.append(Exclusion(path, reason, detail))

    def directory(self, fd: int, rel_dir: str, matcher: IgnoreMatcher, depth: int) -> None:
        try:
            with os.scandir(fd) as listing:
                entries = sorted(listing, key=_NAME)
        except OSError as exc:
            detail = refusal_from(exc).detail
            if not rel_dir:
                raise RootError(f"the root directory cannot be listed: {detail}") from None
            self.exclude(rel_dir, REASON_UNREADABLE, detail)
            return
        self.result.directories.append(rel_dir)
        try:
            # Only a listed .gitignore is opened: most directories have none, and a failed open per
            # directory was a tenth of a walk. (One created after the listing is the next walk's, as before.)
            listed = any(entry.name == GITIGNORE for entry in entries)
            gitignore = load_gitignore(fd, rel_dir) if listed else None
            if gitignore is not None:
                matcher = matcher.with_gitignore(rel_dir, gitignore)
        except Refusal as refusal:
            if not rel_dir:
                raise ConfigError(
                    f"the root .gitignore cannot be used: {refusal.detail}{_ROOT_REMEDY.get(refusal.reason, '')}",
                    file=".gitignore",
                ) from None
            invalid = refusal.reason == REASON_IGNORE_INVALID
            self.exclude(rel_dir, REASON_IGNORE_INVALID if invalid else REASON_UNREADABLE, refusal.detail)
            return
        for entry in entries:
            self.entry(fd, entry, rel_dir, matcher, depth)

    def entry(
        self, fd: int, entry: os.DirEntry[str], rel_dir: str, matcher: IgnoreMatcher, depth: int
    ) -> None:
        name = entry.name
        path = f"{rel_dir}/{name}" if rel_dir else name
        # Every spelling of an internal name starts with "." or holds "~" (an 8.3 short name).
        if (name[0] == "." or "~" in name) and is_internal(name):
            self.exclude(_shown(rel_dir, name), REASON_INTERNAL)
            return
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError as exc:
            self.exclude(_shown(rel_dir, name), REASON_UNREADABLE, refusal_from(exc).detail)
            return
        is_dir = stat_module.S_ISDIR(st.st_mode)
        why = matcher.why_ignored(path, is_dir)
        if why is not None:
            # The pattern names what it ignores: a credential it spells is redacted as a path's would be.
            self.exclude(_shown(rel_dir, name), REASON_IGNORED, redact_path(why))
            return
        problem = None if _plain_name(name) else name_problem(name)
        # A character is at most 4 UTF-8 bytes: only a path this long can pass the limit.
        if (
            problem is None
            and len(path) * _MAX_UTF8_BYTES > MAX_PATH_BYTES
            and len(path.encode("utf-8", "surrogateescape")) > MAX_PATH_BYTES
        ):
            problem = f"path longer than {MAX_PATH_BYTES} bytes"
        if problem is not None:
            self.exclude(_shown(rel_dir, name), REASON_PATH, problem)
        elif is_dir and st.st_dev != self.device:
            self.exclude(path, REASON_CROSS_DEVICE, "a mount point: another file system")
        elif is_dir:
            self.subdirectory(fd, name, path, matcher, depth + 1)
        else:
            self.file(path, st)

    def file(self, path: str, st: os.stat_result) -> None:
        if stat_module.S_ISLNK(st.st_mode):
            self.exclude(path, REASON_SYMLINK, "symbolic links are never followed")
        elif not stat_module.S_ISREG(st.st_mode):
            self.exclude(path, REASON_NOT_REGULAR, "not a regular file")
        elif st.st_size > self.config.max_file_bytes:
            self.exclude(path, REASON_SIZE, f"{st.st_size} bytes > limit {self.config.max_file_bytes}")
        else:
            self.result.stats.append(
                FileStat(path, st.st_size, st.st_mtime_ns, st.st_ino, st.st_nlink, st.st_ctime_ns)
            )

    def subdirectory(self, parent_fd: int, name: str, path: str, matcher: IgnoreMatcher, depth: int) -> None:
        if depth > MAX_WALK_DEPTH:
            self.exclude(path, REASON_PATH, f"nested deeper than {MAX_WALK_DEPTH} directories")
            return
        try:
            fd = open_dir_at(parent_fd, name)
        except Refusal as refusal:
            # A directory swapped for a symlink after the listing lands here as ELOOP -> "symlink".
            self.exclude(path, refusal.reason, refusal.detail)
            return
        try:
            self.directory(fd, path, matcher, depth)
        finally:
            os.close(fd)


def _apply_total_limit(result: WalkResult, max_total_bytes: int) -> None:
    adopted: list[FileStat] = []
    total = 0
    for stat in result.stats:
        if total + stat.size > max_total_bytes:
            detail = f"{stat.size} bytes would pass the total limit {max_total_bytes} (adopted {total})"
            result.excluded.append(Exclusion(stat.path, REASON_TOTAL_SIZE, detail))
            continue
        total += stat.size
        adopted.append(stat)
    result.stats = adopted


_ROOT_REMEDY = {REASON_IGNORE_INVALID: "; fix or remove that line"}
"""What would let the walk use the root's .gitignore, by the reason it cannot."""


def _finish(result: WalkResult, config: CorpusConfig) -> WalkResult:
    """Stats sorted by path, the total size limit applied, exclusions sorted by path then reason."""
    result.stats.sort(key=lambda stat: stat.path)
    _apply_total_limit(result, config.max_total_bytes)
    result.excluded.sort(key=lambda exclusion: (exclusion.path, exclusion.reason))
    return result


def walk(root: Path, config: CorpusConfig) -> WalkResult:
    """Candidates under ``root`` (sorted by path) and every exclusion (sorted by path, then reason).

    Raises :class:`RootMissingError` / :class:`RootNotDirectoryError` for a bad root and
    :class:`ConfigError` when the root's ignore files cannot be used.
    """
    root_fd = open_root(Path(root))
    result = WalkResult()
    try:
        matcher = root_matcher(root_fd, config.exclude)
        _Walker(config, result, os.fstat(root_fd).st_dev).directory(root_fd, "", matcher, 0)
    finally:
        os.close(root_fd)
    return _finish(result, config)


PATCH_KNOWN_REASONS = frozenset({REASON_IGNORED, REASON_SYMLINK, REASON_NOT_REGULAR})
"""Exclusions that an edit of the entry's content cannot change (its name and type stay as they were)."""
EVENT_CONTENT = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE
"""The entry is the same; its data or metadata moved."""


def patch(
    root: Path, config: CorpusConfig, previous: WalkResult, events: list[tuple[str, str, int]]
) -> WalkResult | None:
    """``previous`` brought up to date for watcher ``events`` (directory, name, mask) that only edited or
    deleted files it already listed; None when any event needs a real walk (a name that appeared or moved,
    an ignore file, a directory, a name it did not list, or a walk that hit the total size limit).

    Equal to a fresh walk for the events it accepts: the same classification rules, order and limits."""
    if any(e.reason == REASON_TOTAL_SIZE for e in previous.excluded):
        return None
    listed = set(previous.directories)
    stats = {s.path: s for s in previous.stats}
    excluded = {e.path: e for e in previous.excluded}
    for directory, name, mask in events:
        path = _join(directory, name)
        if directory not in listed or name == GITIGNORE or name_problem(name) is not None:
            return None
        if mask & ~(EVENT_CONTENT | IN_DELETE):
            return None
        known = excluded.get(path)
        if path not in stats and (known is None or known.reason not in (*PATCH_KNOWN_REASONS, REASON_SIZE)):
            return None
        if known is not None and known.reason in PATCH_KNOWN_REASONS:
            if mask & IN_DELETE:
                del excluded[path]
            continue
        stats.pop(path, None)
        excluded.pop(path, None)
        if not _restat(root, config, path, stats, excluded):
            return None
    result = WalkResult(
        stats=list(stats.values()), excluded=list(excluded.values()), directories=list(previous.directories)
    )
    return _finish(result, config)


def _restat(
    root: Path, config: CorpusConfig, path: str, stats: dict[str, FileStat], excluded: dict[str, Exclusion]
) -> bool:
    """Classify one listed file again from ``lstat``; False when it is no longer a plain file (a walk
    decides). A file that is gone stays out, as a walk would leave it."""
    try:
        st = os.lstat(root / path)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    if not stat_module.S_ISREG(st.st_mode):
        return False
    walker = _Walker(config, WalkResult(), st.st_dev)
    walker.file(path, st)
    for stat in walker.result.stats:
        stats[stat.path] = stat
    for exclusion in walker.result.excluded:
        excluded[exclusion.path] = exclusion
    return True
