"""Ignore rules with git's semantics, plus prooftext's own excludes.

* ``.gitignore`` files at every directory level, each relative to its own directory. For a path, the deepest
  ``.gitignore`` with a matching pattern decides, and inside one file the last matching pattern wins, so a
  ``!negation`` re-includes. As in git, nothing below an ignored directory can be re-included: the walk
  records the directory as one exclusion and does not descend. Like git, a symlinked ``.gitignore`` is
  not followed (and so not used).
* ``ROOT/.prooftext/ignore`` and the configured ``exclude`` patterns, relative to the root. These only add
  exclusions: a ``.gitignore`` negation written for git does not re-include what prooftext was told to skip.
* ``.git`` and ``.prooftext`` (at any depth) are always excluded with reason ``internal``.

Directories are matched git's way: a trailing-slash pattern (``build/``) matches only directories, while
``dir/**`` matches what is inside ``dir`` but not ``dir`` itself, so ``dir/**`` with ``!dir/keep.md``
keeps ``dir/keep.md`` exactly as git does.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from pathspec import GitIgnoreSpec

from prooftext.corpus.model import REASON_SYMLINK, REASON_UNREADABLE
from prooftext.corpus.safeio import Refusal, read_below, read_regular_at
from prooftext.errors import ConfigError

GIT_DIR = ".git"
PROOFTEXT_DIR = ".prooftext"
INTERNAL_NAMES = frozenset({GIT_DIR, PROOFTEXT_DIR})
INTERNAL_SHORT_NAMES = frozenset({"git~1", "prooft~1"})
"""8.3 short names under which Windows file systems also reach the internal directories."""
GITIGNORE = ".gitignore"
PROOFTEXT_IGNORE = f"{PROOFTEXT_DIR}/ignore"
MAX_IGNORE_BYTES = 1 << 20
"""An ignore file larger than this is refused (and its directory with it) rather than read unbounded."""

PATTERN_ERRORS: tuple[type[Exception], ...] = (ValueError, re.error)
"""What compiling an invalid pattern raises: pathspec rejects some patterns itself (a lone ``\\``) with a
ValueError, but lets ``re`` reject others (a reversed range such as ``[z-a]``), and ``re.error`` is not one."""

_ESCAPED_SPACE = "\\ "


def is_internal(name: str) -> bool:
    """The internal directories under every spelling git itself refuses (``verify_dotfile``): any case,
    trailing spaces or dots (dropped by NTFS), and 8.3 short names."""
    folded = name.rstrip(" .").lower()
    return folded in INTERNAL_NAMES or folded in INTERNAL_SHORT_NAMES


def _strip_trailing_spaces(line: str) -> str:
    # git drops trailing spaces unless the last one is escaped with a backslash.
    while line.endswith(" ") and not line.endswith(_ESCAPED_SPACE):
        line = line[:-1]
    return line


def _lines(text: str) -> list[str]:
    return [_strip_trailing_spaces(line.removesuffix("\r")) for line in text.split("\n")]


def _directory_form(line: str) -> str:
    """The pattern as asked about a directory path given without a trailing slash."""
    return line[:-1] if line.endswith("/") else line


@dataclass(frozen=True)
class PatternSet:
    """The patterns of one ignore source, compiled once for files and once for directories."""

    files: GitIgnoreSpec
    directories: GitIgnoreSpec
    files_any: re.Pattern[str] | None = None
    directories_any: re.Pattern[str] | None = None
    """One regex matching wherever any pattern matches: most paths match none, and then no per-pattern
    evaluation (last match wins, negations) is needed at all."""

    @classmethod
    def from_lines(cls, lines: Iterable[str]) -> PatternSet:
        patterns = list(lines)
        files = GitIgnoreSpec.from_lines(patterns)
        directories = GitIgnoreSpec.from_lines([_directory_form(line) for line in patterns])
        return cls(files, directories, _any_of(files), _any_of(directories))

    def check(self, rel_path: str, is_dir: bool) -> bool | None:
        """True ignored, False re-included by a negation, None when no pattern matches."""
        spec, prefilter = (self.directories, self.directories_any) if is_dir else (self.files, self.files_any)
        if prefilter is not None and prefilter.match(rel_path) is None:
            return None
        return spec.check_file(rel_path).include


def _any_of(spec: GitIgnoreSpec) -> re.Pattern[str] | None:
    """The alternation of every pattern's regex, or None when one cannot be combined safely."""
    parts: list[str] = []
    for pattern in spec.patterns:
        regex = getattr(pattern, "regex", None)
        if getattr(pattern, "include", None) is None:
            continue
        if not isinstance(regex, re.Pattern) or regex.flags & ~re.UNICODE:
            return None
        # Named groups would collide across alternatives; they only report what matched, so drop them.
        parts.append("(?:" + re.sub(r"\(\?P<[A-Za-z_][A-Za-z0-9_]*>", "(", regex.pattern) + ")")
    if not parts:
        return None
    try:
        return re.compile("|".join(parts))
    except re.error:
        return None


@dataclass(frozen=True)
class IgnoreMatcher:
    """Ignore state for one directory of the walk: prooftext's excludes plus the ``.gitignore`` chain."""

    extra: PatternSet | None = None
    frames: tuple[tuple[str, PatternSet], ...] = ()
    """(directory prefix ending in ``/`` or ``""`` for the root, its patterns), shallowest first."""

    def with_gitignore(self, directory: str, text: str) -> IgnoreMatcher:
        prefix = f"{directory}/" if directory else ""
        try:
            patterns = PatternSet.from_lines(_lines(text))
        except PATTERN_ERRORS as exc:
            raise Refusal(REASON_UNREADABLE, f"{prefix}{GITIGNORE}: invalid pattern: {exc}") from None
        return IgnoreMatcher(self.extra, (*self.frames, (prefix, patterns)))

    def is_ignored(self, path: str, is_dir: bool) -> bool:
        if self.extra is not None and self.extra.check(path, is_dir):
            return True
        for prefix, patterns in reversed(self.frames):
            decided = patterns.check(path[len(prefix) :], is_dir)
            if decided is not None:
                return decided
        return False


def load_gitignore(dir_fd: int, directory: str) -> str | None:
    """The text of ``directory/.gitignore`` read through ``dir_fd``; None when absent or a symlink.

    Any other failure raises :class:`Refusal`: adopting files that a ``.gitignore`` we could not read
    meant to hide (build output, local secrets) would fail open.
    """
    what = f"{directory}/{GITIGNORE}" if directory else GITIGNORE
    try:
        data = read_regular_at(dir_fd, GITIGNORE, MAX_IGNORE_BYTES)
    except Refusal as refusal:
        if refusal.missing or refusal.reason == REASON_SYMLINK:
            return None
        raise Refusal(refusal.reason, f"{what}: {refusal.detail}", refusal.errno) from None
    # Undecodable bytes stay as surrogate escapes, so they can match only the equally undecodable names.
    return data.decode("utf-8", "surrogateescape")


def _prooftext_ignore_lines(root_fd: int) -> list[str]:
    try:
        data = read_below(root_fd, PROOFTEXT_IGNORE, MAX_IGNORE_BYTES)
    except Refusal as refusal:
        if refusal.missing:
            return []
        raise ConfigError(
            f"{PROOFTEXT_IGNORE} cannot be read ({refusal.reason}): {refusal.detail}", file=PROOFTEXT_IGNORE
        ) from None
    return _lines(data.decode("utf-8", "surrogateescape"))


def root_matcher(root_fd: int, exclude: Iterable[str]) -> IgnoreMatcher:
    """The matcher for the root before its ``.gitignore``: ``.prooftext/ignore`` and configured excludes."""
    lines = [*_prooftext_ignore_lines(root_fd), *exclude]
    if not any(line.strip() for line in lines):
        return IgnoreMatcher()
    try:
        return IgnoreMatcher(extra=PatternSet.from_lines(lines))
    except PATTERN_ERRORS as exc:
        raise ConfigError(f"{PROOFTEXT_IGNORE}: invalid pattern: {exc}", file=PROOFTEXT_IGNORE) from None
