"""The index store under ``ROOT/.prooftext/``: git never lists it, and ``index --status`` creates nothing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import SAMPLE_FILES, write_tree
from prooftext.cli import main

GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="git is not installed")


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def _git(repo: Path, *argv: str) -> str:
    assert GIT is not None
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run([GIT, *argv], cwd=repo, env=env, capture_output=True, text=True, check=True)
    return done.stdout


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


@needs_git
def test_git_status_of_an_indexed_repository_lists_nothing_under_the_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = write_tree(tmp_path / "repo", SAMPLE_FILES)
    _git(repo, "init", "-q")
    before = _git(repo, "status", "--porcelain", "--untracked-files=all")
    status, _, _ = _run(capsys, "index", str(repo))
    assert status == 0 and (repo / ".prooftext" / "index.sqlite").is_file()
    after = _git(repo, "status", "--porcelain", "--untracked-files=all")
    assert ".prooftext" not in after and after == before
    assert (repo / ".prooftext" / ".gitignore").read_text().splitlines()[-1] == "*"


@needs_git
def test_git_status_lists_nothing_when_memory_is_the_first_store_under_the_root(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = write_tree(tmp_path / "repo", SAMPLE_FILES)
    _git(repo, "init", "-q")
    before = _git(repo, "status", "--porcelain", "--untracked-files=all")
    status, _, _ = _run(capsys, "memory", "add", "decision", "Use SQLite.", "--root", str(repo))
    assert status == 0 and (repo / ".prooftext" / "memory.sqlite").is_file()
    assert _git(repo, "status", "--porcelain", "--untracked-files=all") == before


def test_a_root_that_is_a_file_is_named_as_a_file_by_the_memory_commands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "notes.txt"
    file.write_text("x\n")
    status, _, err = _run(capsys, "memory", "list", "--root", str(file))
    assert status == 1 and "[root_not_directory]" in err and "is a file, not a directory" in err


def test_the_store_ignore_file_is_not_indexed_and_a_removed_one_stays_removed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = write_tree(tmp_path / "repo", SAMPLE_FILES)
    _run(capsys, "index", str(repo), "--json")
    ignore = repo / ".prooftext" / ".gitignore"
    ignore.unlink()
    status, out, _ = _run(capsys, "index", str(repo), "--json")
    assert status == 0 and json.loads(out)["files_indexed"] == 0  # nothing new: the store is not a source
    assert not ignore.exists()


def test_index_status_of_a_never_indexed_root_creates_nothing_and_says_it_is_not_indexed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = write_tree(tmp_path / "repo", SAMPLE_FILES)
    before = _tree(repo)
    status, out, _ = _run(capsys, "index", "--status", str(repo), "--json")
    assert status == 0 and _tree(repo) == before and not (repo / ".prooftext").exists()
    report = json.loads(out)
    assert report["indexed"] is False and report["complete"] is False and report["fresh"] is False
    assert report["added"] == report["files_changed_since_index"] == len(SAMPLE_FILES)
    assert report["indexed_files"] == report["unchanged"] == report["changed"] == report["removed"] == 0
    status, text, _ = _run(capsys, "index", "--status", str(repo))
    assert (
        status == 0
        and text
        == f"not indexed yet: {len(SAMPLE_FILES)} files to index, 1 left out with a reason (run index)\n"
    )
    assert _tree(repo) == before


def test_index_status_after_indexing_says_the_root_is_indexed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = write_tree(tmp_path / "repo", SAMPLE_FILES)
    _run(capsys, "index", str(repo), "--json")
    status, out, _ = _run(capsys, "index", "--status", str(repo), "--json")
    report = json.loads(out)
    assert status == 0 and report["indexed"] is True and report["fresh"] is True
    assert report["unchanged"] == report["indexed_files"] == len(SAMPLE_FILES)


def test_index_status_of_a_never_indexed_root_leaves_out_what_the_first_refresh_leaves_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = write_tree(tmp_path / "repo", {**SAMPLE_FILES, ".git/HEAD": "ref: refs/heads/main\n"})
    _, out, _ = _run(capsys, "index", "--status", str(repo), "--json")
    before = json.loads(out)
    _, out, _ = _run(capsys, "index", str(repo), "--json")
    first = json.loads(out)
    assert first["files_skipped"] == {"internal": 2}  # .git and the store the refresh created
    assert before["excluded"] == sum(first["files_skipped"].values())
    assert before["added"] == first["files_indexed"]


def test_index_status_counts_a_changed_file_the_index_left_out_as_binary_as_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = write_tree(tmp_path / "repo", {**SAMPLE_FILES, "blob.dat": b"\x00\x01binary"})
    _, out, _ = _run(capsys, "index", str(repo), "--json")
    assert json.loads(out)["files_skipped"]["binary"] == 1
    (repo / "blob.dat").write_bytes(b"\x00\x01binary, and longer")
    _, out, _ = _run(capsys, "index", "--status", str(repo), "--json")
    report = json.loads(out)
    assert (report["changed"], report["added"], report["files_changed_since_index"]) == (1, 0, 1)
    _, out, _ = _run(capsys, "index", str(repo), "--json")
    again = json.loads(out)
    assert again["files_skipped"]["binary"] == 1 and again["files_unchanged"] == len(SAMPLE_FILES)
    _, out, _ = _run(capsys, "index", "--status", str(repo), "--json")
    assert json.loads(out)["fresh"] is True
