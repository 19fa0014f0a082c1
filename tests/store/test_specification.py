"""A declared ``[scan] specification`` the refresh cannot index fails it, naming why; never a silent pass."""

from __future__ import annotations

from pathlib import Path

import pytest

import prooftext
from prooftext.errors import ConfigError

SPEC = "# Specification\n\nThe ledger must balance.\n"


def _declare(root: Path, specification: str, scan: str = "") -> None:
    (root / "prooftext.toml").write_text(f'[scan]\nspecification = "{specification}"\n{scan}')


def _refusal(root: Path) -> str:
    with prooftext.open(root) as index, pytest.raises(ConfigError) as info:
        index.refresh()
    assert info.value.details["key"] == "scan.specification"
    return info.value.message


@pytest.mark.parametrize(
    ("setup", "reason"),
    [
        ({".gitignore": "SPEC.md\n"}, "excluded (ignored: .gitignore line 1: SPEC.md)"),
        ({".gitignore": "docs/\n"}, "excluded (ignored via its directory 'docs': .gitignore line 1: docs/)"),
        ({"scan": 'exclude = ["*.md"]\n'}, "excluded (ignored: [scan] exclude: *.md)"),
        ({"scan": "max_file_bytes = 8\n"}, "excluded (size: "),
        ({"content": "\0binary"}, "excluded (binary: "),
        ({"content": None}, "not found"),
    ],
    ids=["gitignored", "in-an-ignored-directory", "scan-exclude", "too-large", "binary", "missing"],
)
def test_a_declared_specification_the_refresh_leaves_out_fails_it_with_the_reason(
    sample_repo: Path, setup: dict[str, str | None], reason: str
) -> None:
    path = "docs/SPEC.md" if setup.get(".gitignore") == "docs/\n" else "SPEC.md"
    content = setup.get("content", SPEC)
    if content is not None:
        (sample_repo / path).parent.mkdir(exist_ok=True)
        (sample_repo / path).write_text(content)
    if ".gitignore" in setup:
        (sample_repo / ".gitignore").write_text(str(setup[".gitignore"]))
    _declare(sample_repo, path, str(setup.get("scan", "")))
    assert f"the declared specification {path!r} is {reason}" in _refusal(sample_repo)


def test_packs_keep_failing_until_the_specification_is_indexed_again(sample_repo: Path) -> None:
    (sample_repo / "SPEC.md").write_text(SPEC)
    _declare(sample_repo, "SPEC.md")
    with prooftext.open(sample_repo) as index:
        index.refresh()
        (sample_repo / ".gitignore").write_text("SPEC.md\n")
        for _ in range(2):  # the second pack finds the store in line with the files, and still refuses
            with pytest.raises(
                ConfigError, match=r"'SPEC.md' is excluded \(ignored: \.gitignore line 1: SPEC\.md\)"
            ):
                index.pack("ledger")
        (sample_repo / ".gitignore").write_text("")
        assert "The ledger must balance." in index.pack("ledger").prompt
        spec_sha = index.conn.execute("SELECT sha256 FROM files WHERE path = 'SPEC.md'").fetchone()[0]
        candidate = index.conn.execute("SELECT value FROM meta WHERE key = 'candidate'").fetchone()[0]
    assert spec_sha in candidate


def test_index_status_is_not_fresh_while_the_last_refresh_failed_closed(sample_repo: Path) -> None:
    (sample_repo / "SPEC.md").write_text(SPEC)
    (sample_repo / ".gitignore").write_text("SPEC.md\n")
    _declare(sample_repo, "SPEC.md")
    _refusal(sample_repo)
    with prooftext.open(sample_repo) as index:
        status = index.status().to_dict()
        assert status["files_changed_since_index"] == 0
        assert status["complete"] is False and status["fresh"] is False
        (sample_repo / ".gitignore").unlink()
        index.refresh()
        assert index.status().to_dict()["complete"] is True and index.status().fresh
