"""Candidate identity: what exactly the corpus is (git HEAD, repository digest, specification digest).

``git_head`` is read straight from git's files with bounded reads, no subprocess: ``ROOT/.git`` (a
directory, or a ``gitdir:`` file for worktrees and submodules), then ``HEAD``, following symbolic refs
through loose ref files and ``packed-refs`` (in the common directory for linked worktrees). It is None when
the root is not the top of a work tree, HEAD is unborn, or the refs live in a format this reader does not
parse (reftable). ``repository_sha256`` is the lowercase SHA-256 of the canonical JSON of the sorted
``[[path, sha256], ...]`` list of adopted sources.
"""

from __future__ import annotations

import re
from pathlib import Path

from prooftext.canonical import encode, sha256_hex
from prooftext.corpus.ignore import GIT_DIR
from prooftext.corpus.model import CandidateIdentity
from prooftext.corpus.safeio import read_small_file

MAX_GIT_FILE_BYTES = 1 << 16
"""HEAD, a loose ref, a ``gitdir:`` or ``commondir`` file: a few dozen bytes in practice."""
MAX_PACKED_REFS_BYTES = 64 << 20
MAX_SYMREF_DEPTH = 5
"""git itself stops following symbolic refs after five levels."""

_OBJECT_ID = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")
"""SHA-1 (40 hex) or SHA-256 (64 hex) object ids."""
_REF_NAME = re.compile(r"refs/[A-Za-z0-9._/+-]+")
_SYMREF_PREFIX = "ref: "
_GITDIR_PREFIX = "gitdir: "
_PER_WORKTREE_PREFIXES = ("refs/worktree/", "refs/bisect/", "refs/rewritten/")


def _text(path: Path, limit: int = MAX_GIT_FILE_BYTES) -> str | None:
    data = read_small_file(path, limit)
    if data is None:
        return None
    try:
        return data.decode("utf-8").strip()
    except UnicodeDecodeError:
        return None


def _git_dir(root: Path) -> Path | None:
    dot_git = root / GIT_DIR
    if dot_git.is_dir() and not dot_git.is_symlink():
        return dot_git
    text = _text(dot_git)
    if text is None or not text.startswith(_GITDIR_PREFIX):
        return None
    return (root / text[len(_GITDIR_PREFIX) :]).resolve()


def _common_dir(git_dir: Path) -> Path:
    text = _text(git_dir / "commondir")
    return (git_dir / text).resolve() if text else git_dir


def _valid_ref(name: str) -> bool:
    # A ref name becomes a path below the git directory: never let it climb out of it.
    return _REF_NAME.fullmatch(name) is not None and ".." not in name.split("/")


def _packed_ref(common: Path, name: str) -> str | None:
    text = _text(common / "packed-refs", MAX_PACKED_REFS_BYTES)
    if text is None:
        return None
    for line in text.splitlines():
        value, _, ref = line.partition(" ")
        if ref == name and _OBJECT_ID.fullmatch(value):
            return value
    return None


def _ref_value(git_dir: Path, common: Path, name: str) -> str | None:
    home = git_dir if name.startswith(_PER_WORKTREE_PREFIXES) else common
    loose = _text(home / name)
    return loose if loose is not None else _packed_ref(common, name)


def git_head(root: Path) -> str | None:
    """The commit HEAD names when ``root`` is the top of a git work tree; None otherwise."""
    git_dir = _git_dir(Path(root))
    if git_dir is None:
        return None
    common = _common_dir(git_dir)
    value = _text(git_dir / "HEAD")
    for _ in range(MAX_SYMREF_DEPTH):
        if value is None:
            return None
        if _OBJECT_ID.fullmatch(value):
            return value
        name = value.removeprefix(_SYMREF_PREFIX)
        if name == value or not _valid_ref(name):
            return None
        value = _ref_value(git_dir, common, name)
    return None


def repository_sha256(pairs: list[tuple[str, str]]) -> str:
    """Lowercase SHA-256 over the canonical JSON of the sorted ``[[path, sha256], ...]`` list."""
    return sha256_hex(encode(sorted([path, digest] for path, digest in pairs)))


def candidate_identity(
    root: Path, pairs: list[tuple[str, str]], spec_sha256: str | None
) -> CandidateIdentity:
    """The CandidateIdentity of the adopted ``(path, sha256)`` sources under ``root``."""
    return CandidateIdentity(
        git_head=git_head(root),
        repository_sha256=repository_sha256(pairs),
        source_spec_sha256=spec_sha256,
    )
