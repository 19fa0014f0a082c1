from __future__ import annotations

import os
from pathlib import Path

import pytest

from prooftext.corpus.config import CorpusConfig
from prooftext.corpus.manifest import build_manifest
from prooftext.corpus.model import SourceFile
from prooftext.corpus.scan import excluded_reasons, scan
from prooftext.errors import ConfigError, RootMissingError, RootNotDirectoryError

from .conftest import MakeTree, Tree

MIXED: Tree = {
    "SPEC.md": "# Spec\n\nMust do things.\n",
    "src/app.py": "def main():\n    return 1\n",
    "docs/adr/0001-use-sqlite.md": "# Use SQLite\n",
    "data.bin": b"\x00\x01\x02",
    "latin.txt": "caf\xe9".encode("latin-1"),
    ".gitignore": "*.log\n",
    "debug.log": "noise\n",
    ".prooftext/store.sqlite": "db",
    "prooftext.toml": (
        '[scan]\nspecification = "SPEC.md"\n'
        '[[labels]]\nglob = "docs/adr/**"\nauthority = "accepted-public-contract"\nsensitivity = "public"\n'
    ),
}


@pytest.fixture
def mixed_root(make_tree: MakeTree) -> Path:
    root = make_tree(dict(MIXED))
    os.symlink("src/app.py", root / "link.py")
    os.mkfifo(root / "pipe")
    return root


def by_path(sources: list[SourceFile]) -> dict[str, SourceFile]:
    return {source.path: source for source in sources}


def test_a_scan_adopts_safe_sources_and_gives_every_other_path_a_reason(mixed_root: Path) -> None:
    result = scan(mixed_root)
    assert sorted(by_path(result.sources)) == [
        ".gitignore",
        "SPEC.md",
        "docs/adr/0001-use-sqlite.md",
        "prooftext.toml",
        "src/app.py",
    ]
    assert {(e.path, e.reason) for e in result.excluded} == {
        (".prooftext", "internal"),
        ("data.bin", "binary"),
        ("debug.log", "ignored"),
        ("latin.txt", "encoding"),
        ("link.py", "symlink"),
        ("pipe", "not_regular"),
    }
    assert excluded_reasons(result.excluded) == {
        "binary": 1,
        "encoding": 1,
        "ignored": 1,
        "internal": 1,
        "not_regular": 1,
        "symlink": 1,
    }


def test_a_scan_labels_sources_and_binds_the_declared_specification(mixed_root: Path) -> None:
    result = scan(mixed_root)
    sources = by_path(result.sources)
    assert sources["SPEC.md"].labels.authority == "canonical-specification"
    assert result.candidate.source_spec_sha256 == sources["SPEC.md"].sha256
    adr = sources["docs/adr/0001-use-sqlite.md"]
    assert (adr.labels.authority, adr.labels.sensitivity, adr.kind) == (
        "accepted-public-contract",
        "public",
        "doc",
    )
    assert sources["src/app.py"].labels.authority == "repository-record"


def test_two_scans_of_the_same_tree_are_equal_and_give_the_same_manifest_id(mixed_root: Path) -> None:
    first, second = scan(mixed_root), scan(mixed_root)
    assert first == second
    ids = [build_manifest(r.sources, r.excluded, r.candidate)["artifact_id"] for r in (first, second)]
    assert ids[0] == ids[1]


def test_a_content_change_changes_the_repository_digest_and_manifest_id(mixed_root: Path) -> None:
    before = scan(mixed_root)
    (mixed_root / "src" / "app.py").write_text("def main():\n    return 2\n")
    after = scan(mixed_root)
    assert before.candidate.repository_sha256 != after.candidate.repository_sha256
    manifest_ids = {
        build_manifest(r.sources, r.excluded, r.candidate)["artifact_id"] for r in (before, after)
    }
    assert len(manifest_ids) == 2


def test_progress_is_reported_once_per_candidate_through_the_callback(mixed_root: Path) -> None:
    calls: list[tuple[int, int]] = []
    scan(mixed_root, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(n, 7) for n in range(1, 8)]


def test_a_declared_specification_that_is_not_adopted_fails_closed(make_tree: MakeTree) -> None:
    root = make_tree({"SPEC.md": b"\xff\xfe", "a.py": ""})
    with pytest.raises(ConfigError, match=r"excluded \(encoding: not UTF-8 at byte 0\)") as info:
        scan(root, CorpusConfig(specification="SPEC.md"))
    assert info.value.details["key"] == "scan.specification"
    with pytest.raises(ConfigError, match="not found"):
        scan(root, CorpusConfig(specification="MISSING.md"))


def test_a_specification_inside_an_ignored_directory_fails_closed_naming_that_directory(
    make_tree: MakeTree,
) -> None:
    root = make_tree({".gitignore": "docs/\n", "docs/SPEC.md": "# Spec\n", "a.py": ""})
    with pytest.raises(
        ConfigError, match=r"excluded \(ignored via its directory 'docs': \.gitignore line 1: docs/\)"
    ):
        scan(root, CorpusConfig(specification="docs/SPEC.md"))


def test_a_corrupt_config_file_stops_the_scan_with_a_config_error(make_tree: MakeTree) -> None:
    root = make_tree({"prooftext.toml": "[scan]\nmax_file_bytes = -1\n", "a.py": ""})
    with pytest.raises(ConfigError) as info:
        scan(root)
    assert info.value.details == {"key": "scan.max_file_bytes", "file": "prooftext.toml"}


def test_scanning_a_missing_root_or_a_file_is_a_root_error(tmp_path: Path) -> None:
    with pytest.raises(RootMissingError):
        scan(tmp_path / "absent")
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(RootNotDirectoryError):
        scan(str(tmp_path / "file.txt"), CorpusConfig())
