"""``context manifest`` options name repository paths as a shell spells them, and a bad one is blamed on the
option that gave it, not on a configuration key the caller never wrote."""

from __future__ import annotations

from pathlib import Path

import pytest

from prooftext.artifacts import lifecycle as lc
from prooftext.artifacts.limits import MAX_TEXT_CHARS
from prooftext.errors import ProoftextError


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "README.md").write_text("# Spec\n\nRetries are configured in src/config.py.\n", encoding="utf-8")
    (root / "src" / "config.py").write_text("RETRY_LIMIT = 3\n", encoding="utf-8")
    (root / ".prooftext" / "context").mkdir(parents=True)
    return root


def _out(repo: Path, name: str) -> Path:
    return repo / ".prooftext" / "context" / f"{name}.json"


def test_a_leading_dot_slash_names_the_same_paths(repo: Path) -> None:
    lc.run_manifest(repo, _out(repo, "plain"), "README.md", ["src/config.py"])
    lc.run_manifest(repo, _out(repo, "dotted"), "./README.md", ["./src/config.py"])
    assert _out(repo, "plain").read_bytes() == _out(repo, "dotted").read_bytes()


@pytest.mark.parametrize(
    ("specification", "code"),
    [("../README.md", "invalid_request"), ("/README.md", "invalid_request"), ("NOPE.md", "source_missing")],
)
def test_a_bad_specification_option_is_blamed_on_the_option(
    repo: Path, specification: str, code: str
) -> None:
    with pytest.raises(ProoftextError) as info:
        lc.run_manifest(repo, _out(repo, "m"), specification, [])
    assert info.value.code == code and "--specification" in info.value.message
    assert "scan.specification" not in str(info.value.to_dict())
    assert not _out(repo, "m").exists()


def test_a_manifest_root_that_is_a_file_is_named_as_the_root_the_caller_gave(repo: Path) -> None:
    with pytest.raises(ProoftextError) as info:
        lc.run_manifest(repo / "README.md", _out(repo, "m"), "README.md", [])
    assert info.value.code == "root_not_directory" and "--repository-root" not in info.value.message


def test_a_specification_over_the_node_text_cap_fails_index_naming_its_size_and_the_cap(repo: Path) -> None:
    text = "# Spec\n\n" + "Retries are configured here.\n" * 2400
    (repo / "README.md").write_text(text, encoding="utf-8")
    lc.run_manifest(repo, _out(repo, "m"), "README.md", [])
    with pytest.raises(ProoftextError) as info:
        lc.run_index(_out(repo, "m"), repo, None, _out(repo, "g"))
    error = info.value
    assert error.code == "limit_exceeded" and error.details["reason"] == "text_cap"
    assert str(len(text)) in error.message and str(MAX_TEXT_CHARS) in error.message
    assert not _out(repo, "g").exists()


@pytest.mark.parametrize("field", ["required", "owner_sources"])
def test_a_lone_string_of_paths_is_refused_not_read_as_its_letters(repo: Path, field: str) -> None:
    required, owner = ("src/config.py", []) if field == "required" else ([], "notes.md")
    with pytest.raises(ProoftextError) as info:
        lc.run_manifest(repo, _out(repo, "m"), "README.md", required, repo, owner)  # type: ignore[arg-type]
    assert info.value.code == "invalid_request" and info.value.details["field"] == field
