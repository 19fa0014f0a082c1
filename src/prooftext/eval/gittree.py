"""A work tree materialized at one commit from a git directory, moved from commit to commit in place.

Only the tree of the requested commit is read (``git read-tree``), never later history. The git index of
the work tree lives beside it (``GIT_INDEX_FILE``), so nothing is ever written into the git directory.
``read-tree -u --reset`` rewrites only the files whose blob changed and deletes the files the new commit
lacks; unchanged files keep their mtime and inode, so a prooftext index over the tree refreshes
incrementally. Untracked files (the ``.prooftext/`` index) are left alone.

A git directory that lacks some blobs (a partial clone, or a snapshot without its largest files) still gives
a tree: when ``read-tree`` cannot read a blob, the tree is written without the files whose blobs are absent,
and :attr:`WorkTree.missing` names them. Git never fetches a missing object here (``GIT_NO_LAZY_FETCH``).
A commit the git directory does not hold is ``not_found``, naming the commit and the git directory.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from prooftext.errors import NotFoundError, RootError, RootMissingError, SourceUnreadableError

GIT_TIMEOUT_S = 600
INDEX_SUFFIX = ".gitindex"
COMMIT_CHARS = frozenset("0123456789abcdef")
COMMIT_ID = "a commit id (4 to 64 lowercase hexadecimal digits)"


def is_commit_id(text: str) -> bool:
    """Whether ``text`` is a full or abbreviated commit id as the work trees take it (never a ref name)."""
    return 4 <= len(text) <= 64 and set(text) <= COMMIT_CHARS


def _check_commit(commit: str) -> str:
    if not is_commit_id(commit):
        raise SourceUnreadableError(f"not a commit id: {commit[:80]!r}", commit=commit[:80])
    return commit


def git_dir_of(path: Path, entry: str | None = None) -> Path:
    """The git directory of ``path``: itself when bare-like, else its ``.git``. A path that does not exist
    is ``root_missing``, one that git does not read as a repository ``root_invalid``; ``entry`` (the repo
    map's name for it) is named in both."""
    named, field = (f"repo map entry {entry}: ", {"field": entry}) if entry else ("", {})
    if not path.is_dir():
        raise RootMissingError(f"{named}git directory does not exist: {path}", root=str(path), **field)
    dotgit = path / ".git"
    git_dir = dotgit if dotgit.is_dir() else path
    try:
        run_git(git_dir, ["rev-parse", "--git-dir"])
    except SourceUnreadableError:
        raise RootError(
            f"{named}{path} is not a git directory, nor a clone holding one", root=str(path), **field
        ) from None
    return git_dir


def run_git(
    git_dir: Path, args: list[str], env: dict[str, str] | None = None, stdin: str | None = None
) -> str:
    """Run one git command against ``git_dir``; a failure is a :class:`SourceUnreadableError`."""
    full_env = {
        **os.environ,
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_NO_LAZY_FETCH": "1",
        **(env or {}),
    }
    try:
        done = subprocess.run(
            ["git", f"--git-dir={git_dir}", *args],
            env=full_env,
            input=stdin,
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

    def __init__(self, git_dir: Path, root: Path, entry: str | None = None) -> None:
        self.git_dir = git_dir_of(git_dir, entry)
        self.entry = entry
        """The repo map's name for the git directory, named in its errors."""
        self.root = root
        self.index_file = root.with_name(root.name + INDEX_SUFFIX)
        self.commit: str | None = None
        self.missing: tuple[str, ...] = ()
        """Paths of the current commit's tree left out because the git directory lacks their blobs."""

    def _git(self, args: list[str], index: Path | None = None, stdin: str | None = None) -> str:
        env = {"GIT_INDEX_FILE": str(index or self.index_file)}
        return run_git(self.git_dir, [f"--work-tree={self.root}", *args], env, stdin)

    def checkout(self, commit: str) -> None:
        """Make the directory hold exactly the tree of ``commit`` (plus untracked files), less any file whose
        blob the git directory lacks (named in :attr:`missing`)."""
        self.root.mkdir(parents=True, exist_ok=True)
        try:
            self._git(["read-tree", "-u", "--reset", _check_commit(commit)])
            self.missing = ()
        except SourceUnreadableError:
            self._require_commit(commit)
            entries = self._tree(commit)  # a commit git cannot read fails here, as before
            absent = self._absent({sha for _, sha, _ in entries})
            if not absent:
                raise
            self._checkout_present(entries, absent)
            self.missing = tuple(sorted(path for _, sha, path in entries if sha in absent))
        self.commit = commit

    def _require_commit(self, commit: str) -> None:
        """A :class:`NotFoundError` when the git directory holds no commit ``commit`` (a missing object, or
        one that is not a commit); any other failure of git is left to the commands that follow."""
        out = run_git(
            self.git_dir, ["cat-file", "--batch-check"], stdin=f"{_check_commit(commit)}^{{commit}}\n"
        )
        if not out.rstrip("\n").endswith(" missing"):
            return
        entry = f" (repo map entry {self.entry})" if self.entry else ""
        raise NotFoundError(
            f"commit {commit} is not in the git directory {self.git_dir}{entry}",
            commit=commit,
            git_dir=str(self.git_dir),
            **({"repo": self.entry} if self.entry else {}),
        )

    def _tree(self, commit: str) -> list[tuple[str, str, str]]:
        """``(mode, blob sha, path)`` of every file of the commit's tree (submodules left out)."""
        out = run_git(self.git_dir, ["ls-tree", "-r", "-z", "--full-tree", _check_commit(commit)])
        entries = []
        for record in out.split("\0"):
            if not record:
                continue
            meta, _, path = record.partition("\t")
            mode, kind, sha = meta.split(" ")
            if kind == "blob":
                entries.append((mode, sha, path))
        return entries

    def _absent(self, shas: set[str]) -> set[str]:
        ordered = sorted(shas)
        out = run_git(self.git_dir, ["cat-file", "--batch-check"], stdin="".join(f"{s}\n" for s in ordered))
        return {line.split(" ")[0] for line in out.splitlines() if line.endswith(" missing")}

    def _staged(self) -> dict[str, str]:
        """Path → blob sha of the work tree's current index (empty before the first checkout)."""
        if not self.index_file.exists():
            return {}
        out = self._git(["ls-files", "-s", "-z"])
        staged = {}
        for record in out.split("\0"):
            if record:
                meta, _, path = record.partition("\t")
                staged[path] = meta.split(" ")[1]
        return staged

    def _checkout_present(self, entries: list[tuple[str, str, str]], absent: set[str]) -> None:
        """Write the tree without the absent blobs: only files whose blob changed are rewritten, files the
        new tree lacks (or whose blob is absent) are deleted, and the index records the rest."""
        present = [(mode, sha, path) for mode, sha, path in entries if sha not in absent]
        staging = self.index_file.with_name(self.index_file.name + ".new")
        staging.unlink(missing_ok=True)
        records = "".join(f"{mode} {sha}\t{path}\0" for mode, sha, path in present)
        self._git(["update-index", "-z", "--index-info"], staging, records)
        old = self._staged()
        wanted = {path: sha for _, sha, path in present}
        write = [p for p, sha in wanted.items() if old.get(p) != sha or not (self.root / p).is_file()]
        if write:
            self._git(["checkout-index", "-f", "-z", "--stdin"], staging, "".join(f"{p}\0" for p in write))
        for path in sorted(set(old) - set(wanted)) + [p for _, sha, p in entries if sha in absent]:
            _remove(self.root, path)
        self._git(["update-index", "-q", "--refresh"], staging)
        os.replace(staging, self.index_file)


def _remove(root: Path, path: str) -> None:
    """Delete a file of the tree and the directories it leaves empty (never ``root`` itself)."""
    target = root / path
    target.unlink(missing_ok=True)
    parent = target.parent
    while parent != root and parent.is_dir() and not any(parent.iterdir()):
        parent.rmdir()
        parent = parent.parent
