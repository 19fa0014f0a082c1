"""A watched index patches its last walk for edits and deletions of files it listed, and the patched walk
is always what a fresh walk would say; anything else (new names, renames, ignore files, directories) walks."""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

import pytest

import prooftext
from prooftext import index as index_module
from prooftext.corpus.config import CorpusConfig
from prooftext.corpus.model import REASON_SIZE
from prooftext.corpus.walk import walk
from prooftext.corpus.watch import MAX_LOGGED_EVENTS

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux only")

LIMIT = 64
"""A small per-file limit, so that edits can move a file across it."""


class Walks:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        real = index_module.walk

        def counting(*args: object, **kwargs: object) -> object:
            self.count += 1
            return real(*args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(index_module, "walk", counting)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / ".gitignore").write_text("*.log\n", encoding="utf-8")
    for name in ("a.py", "pkg/b.py", "pkg/sub/c.md", "pkg/skip.log"):
        (root / name).write_text(f"# {name}\n", encoding="utf-8")
    (root / "pkg" / "big.txt").write_text("x" * (LIMIT * 2), encoding="utf-8")
    os.symlink("a.py", root / "link.py")
    return root


@pytest.fixture
def watched(tree: Path) -> prooftext.Index:
    index = prooftext.Index(tree, CorpusConfig(max_file_bytes=LIMIT))
    assert index.watch()
    index.status()
    index.status()
    yield index
    index.close()


def _same_as_a_fresh_walk(index: prooftext.Index) -> None:
    assert index._walk() == walk(index.root, index.config)


PATCHED = {
    "edit": lambda root: (root / "pkg" / "b.py").write_text("# edited\n", encoding="utf-8"),
    "delete": lambda root: (root / "pkg" / "b.py").unlink(),
    "grow-past-limit": lambda root: (root / "pkg" / "b.py").write_text("y" * (LIMIT + 1), encoding="utf-8"),
    "shrink-below-limit": lambda root: (root / "pkg" / "big.txt").write_text("small\n", encoding="utf-8"),
    "edit-ignored": lambda root: (root / "pkg" / "skip.log").write_text("still ignored\n", encoding="utf-8"),
    "chmod": lambda root: os.chmod(root / "a.py", 0o600),
}
"""Edits and deletions of listed files: patched without a walk."""
WALKED = {
    "create": lambda root: (root / "pkg" / "new.py").write_text("NEW = 1\n", encoding="utf-8"),
    "rename": lambda root: (root / "pkg" / "b.py").rename(root / "pkg" / "b2.py"),
    "gitignore": lambda root: (root / ".gitignore").write_text("*.md\n", encoding="utf-8"),
    "mkdir": lambda root: (root / "pkg" / "fresh").mkdir(),
    "rmdir": lambda root: (root / "pkg" / "sub" / "c.md").unlink() or (root / "pkg" / "sub").rmdir(),
}
"""Anything else: one walk."""


@pytest.mark.parametrize(("name", "walks_expected"), [(n, 0) for n in PATCHED] + [(n, 1) for n in WALKED])
def test_only_edits_and_deletions_of_listed_files_are_patched_and_every_result_is_a_fresh_walks(
    watched: prooftext.Index, tree: Path, monkeypatch: pytest.MonkeyPatch, name: str, walks_expected: int
) -> None:
    walks = Walks(monkeypatch)
    {**PATCHED, **WALKED}[name](tree)
    watched.status()
    assert walks.count == walks_expected
    _same_as_a_fresh_walk(watched)


def test_a_file_grown_past_the_limit_is_excluded_for_its_size(watched: prooftext.Index, tree: Path) -> None:
    (tree / "a.py").write_text("z" * (LIMIT + 5), encoding="utf-8")
    walked = watched._walk()
    assert [e.reason for e in walked.excluded if e.path == "a.py"] == [REASON_SIZE]
    assert "a.py" not in {s.path for s in walked.stats}


def test_a_log_grown_past_its_bound_walks_again(
    watched: prooftext.Index, tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    walks = Walks(monkeypatch)
    target = tree / "pkg" / "b.py"
    for step in range(MAX_LOGGED_EVENTS):
        target.write_text(f"# {step}\n", encoding="utf-8")
        if step % 64 == 0:
            watched._watcher.epoch()  # type: ignore[union-attr]
    watched.status()
    assert walks.count == 1
    _same_as_a_fresh_walk(watched)


def test_random_edits_deletions_and_creations_always_match_a_fresh_walk(
    watched: prooftext.Index, tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    walks = Walks(monkeypatch)
    checks = 0
    rng = random.Random(20261130)
    names = ["a.py", "pkg/b.py", "pkg/sub/c.md", "pkg/d.py", "pkg/sub/e.txt", "pkg/skip.log", "pkg/big.txt"]
    for _step in range(60):
        path = tree / rng.choice(names)
        action = rng.random()
        if action < 0.2 and path.exists():
            path.unlink()
        elif action < 0.3:
            os.utime(path) if path.exists() else None
        else:
            path.write_text("w" * rng.randrange(1, LIMIT * 2), encoding="utf-8")
        if rng.random() < 0.7:
            _same_as_a_fresh_walk(watched)
            checks += 1
    _same_as_a_fresh_walk(watched)
    assert 0 < walks.count < checks / 2  # creations walked; most steps were patched
