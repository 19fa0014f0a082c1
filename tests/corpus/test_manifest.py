from __future__ import annotations

from pathlib import Path

from prooftext.canonical import content_id, encode, load
from prooftext.corpus.config import CorpusConfig
from prooftext.corpus.manifest import build_manifest
from prooftext.corpus.model import CandidateIdentity, Exclusion, Labels, SourceFile
from prooftext.corpus.scan import scan

from .conftest import MakeTree

DIGEST = "ab" * 32
CANDIDATE = CandidateIdentity(git_head=None, repository_sha256="cd" * 32, source_spec_sha256=None)


def source(path: str, line_count: int = 2) -> SourceFile:
    return SourceFile(path, 10, 1, 1, DIGEST, "a\nb\n", "code", Labels(), line_count)


def test_a_manifest_lists_sources_with_locator_labels_provenance_and_bytes() -> None:
    manifest = build_manifest([source("b.py"), source("a.py")], [], CANDIDATE)
    assert [s["locator"]["path"] for s in manifest["sources"]] == ["a.py", "b.py"]
    assert manifest["sources"][0] == {
        "locator": {"root_scope": "repository", "path": "a.py", "sha256": DIGEST, "line_range": [1, 2]},
        "kind": "code",
        "authority": "repository-record",
        "freshness": "candidate-bound",
        "sensitivity": "repository-private",
        "provenance": [{"type": "scan", "locator_path": "a.py", "sha256": DIGEST}],
        "bytes": 10,
    }
    assert (manifest["schema_version"], manifest["artifact_type"]) == ("1.0", "manifest")
    assert manifest["candidate"] == CANDIDATE.to_dict()


def test_an_empty_source_has_the_empty_line_range() -> None:
    manifest = build_manifest([source("empty.py", line_count=0)], [], CANDIDATE)
    assert manifest["sources"][0]["locator"]["line_range"] == [1, 0]


def test_exclusions_are_sorted_by_path_then_reason() -> None:
    excluded = [Exclusion("b", "size", "x"), Exclusion("a", "symlink"), Exclusion("a", "binary")]
    manifest = build_manifest([], excluded, CANDIDATE)
    assert [(e["path"], e["reason"]) for e in manifest["excluded"]] == [
        ("a", "binary"),
        ("a", "symlink"),
        ("b", "size"),
    ]


def test_the_manifest_id_is_the_content_id_of_its_body_and_survives_a_canonical_round_trip() -> None:
    manifest = build_manifest([source("a.py")], [Exclusion("z", "ignored")], CANDIDATE)
    body = {k: v for k, v in manifest.items() if k != "artifact_id"}
    assert manifest["artifact_id"] == content_id(body)
    assert len(manifest["artifact_id"]) == 64 and manifest["artifact_id"].isupper()
    assert load(encode(manifest)) == manifest


def test_a_scanned_manifest_never_serializes_the_absolute_root(make_tree: MakeTree, tmp_path: Path) -> None:
    root = make_tree({"a.py": "x\n", "big.txt": "y" * 20})
    result = scan(root, CorpusConfig(max_file_bytes=10))
    data = encode(build_manifest(result.sources, result.excluded, result.candidate))
    assert str(tmp_path).encode() not in data
    assert b'"reason":"size"' in data
