"""The lexical baseline (terms, bm25s ranking, whole-document packing) and the commit-by-commit work tree."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from prooftext.errors import NotFoundError, SourceUnreadableError
from prooftext.eval.gittree import WorkTree, commit_time
from prooftext.eval.lexical import Bm25Ranker, file_block, file_prompt, pack_whole, terms
from prooftext.tokens import get_counter

from .evaldata import ALPHA, BETA_2, GAMMA, MISSING_COMMIT, README, make_repo


def test_terms_split_identifiers_and_keep_them_whole() -> None:
    assert terms("separability_matrix of the CompoundModel x") == [
        "separability",
        "matrix",
        "separability_matrix",
        "compound",
        "model",
        "compoundmodel",
    ]


def test_bm25_ranks_only_matching_documents_best_first() -> None:
    docs = [terms("alpha beta"), terms("gamma"), terms("alpha alpha gamma delta")]
    ranker = Bm25Ranker(docs)
    assert ranker.rank("alpha", ["a", "b", "c"])[0] in (0, 2)
    assert set(ranker.rank("alpha", ["a", "b", "c"])) == {0, 2}
    assert ranker.rank("delta", ["a", "b", "c"]) == [2]
    assert ranker.rank("unknown words", ["a", "b", "c"]) == []


def test_whole_packing_skips_what_overflows_or_stops_there() -> None:
    counter = get_counter("bytes")
    blocks = ["a" * 10, "b" * 50, "c" * 20]

    def prompt(taken: list[int]) -> str:
        return "Q:" + "".join(blocks[i] for i in taken)  # frame 2 bytes

    cost = [len(b) for b in blocks]
    skipped = pack_whole([0, 1, 2], lambda i: cost[i], prompt, 40, counter)
    assert skipped.taken == [0, 2] and skipped.prompt_tokens == 32 and skipped.skipped == 1
    stopped = pack_whole([0, 1, 2], lambda i: cost[i], prompt, 40, counter, skip_overflow=False)
    assert stopped.taken == [0] and stopped.prompt_tokens == 12 and stopped.skipped == 2


def test_whole_packing_drops_blocks_when_the_exact_count_exceeds_the_sum() -> None:
    counter = get_counter("bytes")

    def prompt(taken: list[int]) -> str:  # a separator the per-block costs do not see
        return "|".join("x" * 10 for _ in taken)

    packed = pack_whole([0, 1, 2], lambda i: 10, prompt, 30, counter)
    assert packed.taken == [0, 1] and packed.prompt_tokens == 21


def test_file_blocks_have_the_swebench_shape() -> None:
    assert file_block("a.py", "x = 1") == "[start of a.py]\nx = 1\n[end of a.py]\n"
    assert file_prompt("bug", []) == "<issue>\nbug\n</issue>\n<code>\n</code>\n"


def test_work_tree_moves_commit_to_commit_keeping_unchanged_files(tmp_path: Path) -> None:
    git_dir, first, second = make_repo(tmp_path / "up")
    before = sorted((p.name, p.stat().st_mtime_ns) for p in git_dir.iterdir())
    tree = WorkTree(git_dir, tmp_path / "work" / "demo-0")
    tree.checkout(first)
    root = tree.root
    assert (root / "docs" / "notes.txt").exists() and (root / "pkg" / "alpha.py").read_text() == ALPHA
    (root / ".prooftext").mkdir()
    (root / ".prooftext" / "keep").write_text("index lives here")
    alpha = (root / "pkg" / "alpha.py").stat()
    tree.checkout(second)
    assert not (root / "docs" / "notes.txt").exists()
    assert (root / "pkg" / "beta.py").read_text() == BETA_2 and (
        root / "pkg" / "gamma.py"
    ).read_text() == GAMMA
    assert (root / "README.md").read_text() == README
    after_alpha = (root / "pkg" / "alpha.py").stat()
    assert (after_alpha.st_mtime_ns, after_alpha.st_ino) == (alpha.st_mtime_ns, alpha.st_ino)
    assert (root / ".prooftext" / "keep").exists()
    assert tree.index_file.exists() and tree.index_file.parent == root.parent
    assert sorted((p.name, p.stat().st_mtime_ns) for p in git_dir.iterdir()) == before
    assert commit_time(git_dir, first) < commit_time(git_dir, second)


def test_a_commit_the_git_directory_lacks_is_not_found_naming_the_commit_the_directory_and_the_entry(
    tmp_path: Path,
) -> None:
    git_dir, first, _ = make_repo(tmp_path / "up")
    tree = WorkTree(git_dir, tmp_path / "work" / "demo-0", "demo/demo")
    with pytest.raises(NotFoundError) as caught:
        tree.checkout(MISSING_COMMIT)
    error = caught.value
    assert error.code == "not_found"
    assert error.message == (
        f"commit {MISSING_COMMIT} is not in the git directory {git_dir} (repo map entry demo/demo)"
    )
    assert error.details == {"commit": MISSING_COMMIT, "git_dir": str(git_dir), "repo": "demo/demo"}
    tree.checkout(first)  # the tree is still usable afterwards
    assert (tree.root / "pkg" / "alpha.py").read_text() == ALPHA


def test_an_object_that_is_not_a_commit_is_not_found_and_a_malformed_id_stays_unreadable(
    tmp_path: Path,
) -> None:
    git_dir, _, _ = make_repo(tmp_path / "up")
    tree = WorkTree(git_dir, tmp_path / "work" / "demo-0")
    blob = hashlib.sha1(f"blob {len(ALPHA)}\0{ALPHA}".encode()).hexdigest()
    with pytest.raises(NotFoundError) as caught:
        tree.checkout(blob)
    assert caught.value.message == f"commit {blob} is not in the git directory {git_dir}"
    with pytest.raises(SourceUnreadableError):
        tree.checkout("HEAD")
