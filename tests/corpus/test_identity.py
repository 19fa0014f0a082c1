from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from prooftext.canonical import encode
from prooftext.corpus.identity import candidate_identity, git_head, repository_sha256

from .conftest import MakeTree

GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="git is not installed")
COMMIT_A = "a" * 40
COMMIT_B = "b" * 40


def git(root: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }
    done = subprocess.run([GIT or "git", "-C", str(root), *args], check=True, env=env, capture_output=True)
    return done.stdout.decode().strip()


def committed_repo(root: Path) -> str:
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "first")
    return git(root, "rev-parse", "HEAD")


def test_the_repository_digest_is_sha256_of_canonical_sorted_pairs() -> None:
    pairs = [("b.py", "2" * 64), ("a.py", "1" * 64)]
    expected = hashlib.sha256(encode([["a.py", "1" * 64], ["b.py", "2" * 64]])).hexdigest()
    assert repository_sha256(pairs) == expected
    assert repository_sha256(list(reversed(pairs))) == expected
    assert expected == expected.lower()


def test_a_directory_that_is_not_a_work_tree_has_no_git_head(make_tree: MakeTree) -> None:
    root = make_tree({"a.py": ""})
    identity = candidate_identity(root, [("a.py", "0" * 64)], None)
    assert identity.git_head is None
    assert identity.source_spec_sha256 is None


@needs_git
def test_git_head_is_read_from_a_loose_branch_ref(make_tree: MakeTree) -> None:
    root = make_tree({"a.py": "x\n"})
    head = committed_repo(root)
    assert git_head(root) == head


@needs_git
def test_git_head_is_read_from_packed_refs(make_tree: MakeTree) -> None:
    root = make_tree({"a.py": "x\n"})
    head = committed_repo(root)
    git(root, "pack-refs", "--all", "--prune")
    assert not (root / ".git" / "refs" / "heads" / "main").exists()
    assert git_head(root) == head


@needs_git
def test_git_head_of_a_linked_worktree_is_its_own_head(make_tree: MakeTree, tmp_path: Path) -> None:
    root = make_tree({"a.py": "x\n"})
    first = committed_repo(root)
    (root / "a.py").write_text("y\n")
    git(root, "commit", "-q", "-am", "second")
    git(root, "worktree", "add", "-q", "--detach", str(tmp_path / "wt"), first)
    assert (tmp_path / "wt" / ".git").is_file()
    assert git_head(tmp_path / "wt") == first
    assert git_head(root) == git(root, "rev-parse", "HEAD") != first


@needs_git
def test_an_unborn_branch_has_no_git_head(make_tree: MakeTree) -> None:
    root = make_tree({"a.py": ""})
    git(root, "init", "-q", "-b", "main")
    assert git_head(root) is None


def test_a_detached_head_is_its_commit(make_tree: MakeTree) -> None:
    root = make_tree({".git/HEAD": COMMIT_A + "\n"})
    assert git_head(root) == COMMIT_A


def test_symbolic_refs_are_followed_to_a_bounded_depth(make_tree: MakeTree) -> None:
    root = make_tree(
        {
            ".git/HEAD": "ref: refs/heads/alias\n",
            ".git/refs/heads/alias": "ref: refs/heads/main\n",
            ".git/refs/heads/main": COMMIT_B + "\n",
            ".git/packed-refs": f"# pack-refs with: peeled\n{COMMIT_A} refs/heads/main\n",
        }
    )
    assert git_head(root) == COMMIT_B
    (root / ".git/refs/heads/main").write_text("ref: refs/heads/alias\n")
    assert git_head(root) is None


@pytest.mark.parametrize(
    "head", ["ref: refs/../../outside", "ref: HEAD", "ref: refs/heads/a b", "garbage", ""]
)
def test_a_malformed_or_escaping_head_has_no_git_head(make_tree: MakeTree, tmp_path: Path, head: str) -> None:
    (tmp_path / "outside").write_text(COMMIT_A)
    root = make_tree({".git/HEAD": head + "\n"})
    assert git_head(root) is None


def test_a_fifo_in_place_of_head_does_not_block(make_tree: MakeTree) -> None:
    root = make_tree({".git/config": ""})
    os.mkfifo(root / ".git" / "HEAD")
    assert git_head(root) is None
