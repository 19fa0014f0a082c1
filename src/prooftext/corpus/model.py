"""Value types of the corpus scan, shared by the scan, the store and the graph."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, get_args

from prooftext.errors import UnknownNameError

# Reason codes for every path the scan does not adopt. Stable: they reach users and artifacts.
REASON_IGNORED = "ignored"  # matched .gitignore, .prooftext/ignore or configured excludes
REASON_INTERNAL = "internal"  # the .prooftext/ directory (and .git/)
REASON_SYMLINK = "symlink"  # symlinks are never followed
REASON_NOT_REGULAR = "not_regular"  # FIFO, socket, device
REASON_BINARY = "binary"  # a NUL byte in the first BINARY_SNIFF_BYTES bytes
REASON_ENCODING = "encoding"  # not strict UTF-8
REASON_SIZE = "size"  # larger than the per-file limit
REASON_TOTAL_SIZE = "total_size"  # adopting it would pass the total limit
REASON_UNREADABLE = "unreadable"  # permission denied, EIO, vanished
REASON_CHANGED = "changed"  # stat differed before and after the read
REASON_PATH = "path_not_portable"  # not representable as a portable relative path
REASON_SECRET = (
    "secret"  # a credential in the path, a private key, or any credential under [scan] secrets = "exclude"
)
REASON_CROSS_DEVICE = "cross_device"  # a directory on another file system (a mount point inside the root)
REASON_IGNORE_INVALID = "ignore_invalid"  # a directory whose .gitignore holds a pattern that does not compile

BINARY_SNIFF_BYTES = 8000
"""A NUL byte within this many leading bytes marks a file binary (git's own heuristic uses this window)."""

REASONS: tuple[str, ...] = (
    REASON_BINARY,
    REASON_CHANGED,
    REASON_CROSS_DEVICE,
    REASON_ENCODING,
    REASON_IGNORED,
    REASON_IGNORE_INVALID,
    REASON_INTERNAL,
    REASON_NOT_REGULAR,
    REASON_PATH,
    REASON_SECRET,
    REASON_SIZE,
    REASON_SYMLINK,
    REASON_TOTAL_SIZE,
    REASON_UNREADABLE,
)

REMEDIES: dict[str, str] = {
    REASON_BINARY: "binary data is never indexed",
    REASON_CHANGED: "the file changed while it was read, and again when it was read once more; run index again",
    REASON_CROSS_DEVICE: "a directory on another file system is not walked; index it as a root of its own",
    REASON_ENCODING: "only UTF-8 text is indexed; convert the file to UTF-8",
    REASON_IGNORED: "a .gitignore, .prooftext/ignore or [scan] exclude pattern matches it; remove the pattern",
    REASON_IGNORE_INVALID: (
        "fix or remove the pattern the detail names in that .gitignore: the directory is left out rather than "
        "indexed against what the file meant to hide"
    ),
    REASON_INTERNAL: "prooftext's own store and .git are never indexed",
    REASON_NOT_REGULAR: "only regular files are indexed",
    REASON_PATH: (
        "rename or move it to a portable path: UTF-8, no control characters or backslashes, at most 4096 bytes"
        " and 128 directories deep"
    ),
    REASON_SECRET: (
        "a private key or a credential in the path is always left out; any other credential leaves its file "
        'out only under [scan] secrets = "exclude": set secrets = "redact" to index it with each value redacted'
    ),
    REASON_SIZE: "raise [scan] max_file_bytes (at most 8 MiB)",
    REASON_SYMLINK: "symbolic links are never followed; index the target where it lives",
    REASON_TOTAL_SIZE: "raise [scan] max_total_bytes",
    REASON_UNREADABLE: (
        "make the file or directory readable (for a directory the detail names, its .gitignore a regular"
        " file of at most 1 MiB), then run index"
    ),
}
"""What would change each reason: the setting, or that nothing does."""


Authority = Literal[
    "owner-approved",
    "canonical-specification",
    "accepted-public-contract",
    "verified-evidence",
    "repository-record",
    "untrusted-observation",
    "untrusted-proposal",
]
"""Authority labels, strongest first (seed: context framework); the artifact models' field type too."""
AUTHORITIES: tuple[str, ...] = get_args(Authority)

Sensitivity = Literal["public", "repository-private", "owner-private", "secret-or-prohibited"]
"""Sensitivity labels, least sensitive first."""
SENSITIVITIES: tuple[str, ...] = get_args(Sensitivity)

Freshness = Literal["immutable", "candidate-bound", "expires-at"]
FRESHNESS: tuple[str, ...] = get_args(Freshness)


@dataclass(frozen=True)
class Exclusion:
    """A path the scan did not adopt, with its reason code: nothing is dropped silently."""

    path: str
    reason: str
    detail: str = ""

    def to_dict(self) -> dict[str, str]:
        return {"path": self.path, "reason": self.reason, "detail": self.detail}

    @property
    def remedy(self) -> str:
        """What would change this reason (:data:`REMEDIES`)."""
        return REMEDIES.get(self.reason, "")

    @staticmethod
    def known_reason(reason: str) -> str:
        """``reason`` when it is a reason code (:data:`REASONS`); an unknown name is refused, listing them."""
        if reason not in REASONS:
            raise UnknownNameError(
                f"unknown reason {str(reason)[:40]!r}; known: {', '.join(REASONS)}",
                field="reason",
                name=reason,
            )
        return reason


@dataclass(frozen=True)
class Labels:
    authority: str = "repository-record"
    freshness: str = "candidate-bound"
    sensitivity: str = "repository-private"


@dataclass(frozen=True)
class FileStat:
    """A walk entry: a regular file under the root, by portable POSIX relative path, not yet read."""

    path: str
    size: int
    mtime_ns: int
    inode: int
    links: int = 1
    """Hard links to the file: above 1, the same content is reachable under another name (maybe outside
    the root), so its path alone cannot say where the content came from."""
    ctime_ns: int = 0
    """When the inode last changed. A copy that keeps size and mtime (``cp -p``, ``rsync -t``, a restored
    mtime) or a chmod still moves it, so it joins size, mtime and inode in telling a changed file."""


@dataclass(frozen=True)
class SourceFile:
    """An adopted source: read safely, strict UTF-8, with its digest and labels."""

    path: str
    size: int
    mtime_ns: int
    inode: int
    sha256: str
    text: str
    kind: str
    labels: Labels
    line_count: int
    links: int = 1
    ctime_ns: int = 0


@dataclass(frozen=True)
class CandidateIdentity:
    """What the corpus is: git HEAD (if a work tree), repository digest, and declared specification digest."""

    git_head: str | None
    repository_sha256: str
    source_spec_sha256: str | None

    def to_dict(self) -> dict[str, str | None]:
        return {
            "git_head": self.git_head,
            "repository_sha256": self.repository_sha256,
            "source_spec_sha256": self.source_spec_sha256,
        }


@dataclass
class WalkResult:
    stats: list[FileStat] = field(default_factory=list)
    excluded: list[Exclusion] = field(default_factory=list)
    directories: list[str] = field(default_factory=list)
    """Every directory the walk listed (``""`` is the root), in walk order: what a watcher must watch."""
