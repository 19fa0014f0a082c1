"""A work tree materialized at one commit from a git directory, moved from commit to commit in place.

Only the tree of the requested commit is read (``git read-tree``), never later history. The git index of
the work tree lives beside it (``GIT_INDEX_FILE``), so nothing is ever written into the git directory.
``read-tree -u --reset`` rewrites only the files whose blob changed and deletes the files the new commit
lacks; unchanged files keep their mtime and inode, so a prooftext index over the tree refreshes
incrementally. Untracked files (the ``.prooftext/`` index) are left alone.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from prooftext.errors import RootMissingError, SourceUnreadableError

GIT_TIMEOUT_S = 600
INDEX_SUFFIX = ".gitindex"
COMMIT_CHARS = frozenset("0123456789abcdef")


def _check_commit(commit: str) -> str:
    if not 4 <= len(commit) <= 64 or not set(commit) <= COMMIT_CHARS:
        raise SourceUnreadableError(f"not a commit id: {commit[:80]!r}", commit=commit[:80])
    return commit


def git_dir_of(path: Path) -> Path:
    """The git directory of ``path``: itself when bare-like, else its ``.git``."""
    if not path.is_dir():
        raise RootMissingError(f"git directory does not exist: {path}", root=str(path))
    dotgit = path / ".git"
    return dotgit if dotgit.is_dir() else path


def run_git(git_dir: Path, args: list[str], env: dict[str, str] | None = None) -> str:
    """Run one git command against ``git_dir``; a failure is a :class:`SourceUnreadableError`."""
    full_env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0", **(env or {})}
    try:
        done = subprocess.run(
            ["git", f"--git-dir={git_dir}", *args],
            env=full_env,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise SourceUnreadableError(f"git {args[0]} failed: {exc}", git_dir=str(git_dir)) from None
    if done.returncode != 0:
        raise SourceUnreadableError(
            f"git {args[0]} failed: {done.stderr.strip()[:500]}", git_dir=str(git_dir), args=args
        )
    return done.stdout


def commit_time(git_dir: Path, commit: str) -> int:
    """The committer timestamp of ``commit`` (its own metadata only)."""
    out = run_git(git_dir, ["show", "-s", "--format=%ct", _check_commit(commit)])
    return int(out.strip())


class WorkTree:
    """One directory holding the tree of one commit at a time."""

    def __init__(self, git_dir: Path, root: Path) -> None:
        self.git_dir = git_dir_of(git_dir)
        self.root = root
        self.index_file = root.with_name(root.name + INDEX_SUFFIX)
        self.commit: str | None = None

    def checkout(self, commit: str) -> None:
        """Make the directory hold exactly the tree of ``commit`` (plus untracked files)."""
        self.root.mkdir(parents=True, exist_ok=True)
        run_git(
            self.git_dir,
            [f"--work-tree={self.root}", "read-tree", "-u", "--reset", _check_commit(commit)],
            {"GIT_INDEX_FILE": str(self.index_file)},
        )
        self.commit = commit
