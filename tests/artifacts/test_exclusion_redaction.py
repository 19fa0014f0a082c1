"""Exclusion records in artifacts name a path that spells a credential redacted, and keep their reason."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest

from gates import fixture
from gates.context import Run
from prooftext import canonical
from prooftext.artifacts import lifecycle as lc
from prooftext.corpus import read as corpus_read
from prooftext.corpus.model import REASON_UNREADABLE
from prooftext.corpus.safeio import Refusal
from prooftext.corpus.secrets import REDACTED_PREFIX, redact_path

from .helpers import rewrite

KEY_ID = "AKIA" + "ABCDEFGHIJKLMNOP"  # an access-key-id shape, built at test time (never a literal secret)
SECRET_DIR = f"keys/{KEY_ID}"
OVERSIZED_BYTES = (1 << 20) + 1  # one byte past the default [scan] max_file_bytes
UNREADABLE = f"{SECRET_DIR}/denied.md"
EXPECTED_REASONS = {
    f"{SECRET_DIR}/dangling.md": "symlink",
    f"{SECRET_DIR}/fifo.md": "not_regular",
    f"{SECRET_DIR}/oversized.md": "size",
    f"{SECRET_DIR}/out": "ignored",  # the fixture's .gitignore ignores out/
    UNREADABLE: REASON_UNREADABLE,
}


def _plant_unreadable_files(repo: Path) -> None:
    folder = repo / SECRET_DIR
    (folder / "out").mkdir(parents=True)
    (folder / "out" / "note.md").write_text("ignored\n", encoding="utf-8")
    (folder / "dangling.md").symlink_to(repo / "nowhere.md")
    os.mkfifo(folder / "fifo.md")
    (folder / "oversized.md").write_bytes(b"a" * OVERSIZED_BYTES)
    (repo / UNREADABLE).write_text("# Denied\n", encoding="utf-8")


def _deny(path: str) -> Any:
    """A read that fails for ``path`` as permission denied does (root would read a chmod 000 file)."""
    original = corpus_read.read_below

    def read_below(root_fd: int, rel_path: str, *args: Any, **kwargs: Any) -> bytes:
        if rel_path == path:
            raise Refusal(REASON_UNREADABLE, os.strerror(errno.EACCES), errno.EACCES)
        return original(root_fd, rel_path, *args, **kwargs)

    return read_below


def test_the_manifest_names_an_unadoptable_credential_path_redacted_with_its_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = Run.fresh(tmp_path, "secret-paths")
    _plant_unreadable_files(run.repo)
    monkeypatch.setattr(corpus_read, "read_below", _deny(UNREADABLE))
    run.manifest()
    excluded = {(x["path"], x["reason"]) for x in run.value("manifest")["excluded"]}
    assert {(redact_path(path), reason) for path, reason in EXPECTED_REASONS.items()} <= excluded
    assert KEY_ID.encode() not in run.out("manifest").read_bytes()


def _credential_source(run: Run) -> dict[str, Any]:
    """A manifest source for a readable file whose path spells a credential (the scan never adopts one)."""
    path = f"{SECRET_DIR}/notes.md"
    data = b"# Notes\n\nPlain text.\n"
    (run.repo / path).parent.mkdir(parents=True, exist_ok=True)
    (run.repo / path).write_bytes(data)
    digest = canonical.sha256_hex(data)
    return {
        "locator": {"root_scope": "repository", "path": path, "sha256": digest, "line_range": [1, 3]},
        "kind": "doc",
        "authority": "repository-record",
        "freshness": "candidate-bound",
        "sensitivity": "repository-private",
        "provenance": [{"type": "scan", "locator_path": path, "sha256": digest}],
        "bytes": len(data),
    }


def test_the_index_excludes_a_manifest_source_whose_path_spells_a_credential_redacted(
    tmp_path: Path,
) -> None:
    run = Run.fresh(tmp_path, "secret-source")
    source = _credential_source(run)
    run.manifest()

    def add(value: dict[str, Any]) -> None:
        value["sources"].append(source)
        value["sources"].sort(key=lambda s: (s["locator"]["root_scope"], s["locator"]["path"]))

    lc.run_index(rewrite(run, "manifest", "m", add), run.repo, run.owner, run.out("g"))
    graph = run.value("g")
    shown = redact_path(source["locator"]["path"])
    (record,) = [x for x in graph["excluded_sources"] if x["path"].startswith("keys/")]
    assert (record["path"], record["reason"]) == (shown, "sensitivity_violation")
    assert REDACTED_PREFIX in record["detail"]
    assert KEY_ID.encode() not in run.out("g").read_bytes()
    assert fixture.SPECIFICATION in {s["locator"]["path"] for s in graph["sources"]}
