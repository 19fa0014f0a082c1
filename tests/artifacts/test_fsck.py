"""``fsck``: stored artifacts recomputed, store integrity, indexed sources re-hashed; bitmask 1/2/4."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gates import fixture
from gates.context import Run
from helpers import cantopen, read_only_file_system
from prooftext import canonical
from prooftext.artifacts import fsck as fsck_module
from prooftext.artifacts import lifecycle as lc
from prooftext.artifacts.fsck import BIT_DIGEST, BIT_IO, BIT_SOURCE, FsckReport, fsck
from prooftext.artifacts.limits import MAX_ARTIFACT_BYTES
from prooftext.corpus.stores import INDEX_FILE, STORE_DIR
from prooftext.index import open_index

from .helpers import rewrite


def test_a_clean_root_passes(run: Run) -> None:
    report = fsck(run.repo)
    assert report.status == 0 and report.artifacts_checked == 4 and report.store == "absent"


def test_an_edited_artifact_sets_bit_1(run: Run) -> None:
    value = run.value("query")
    value["text"] = "edited"
    run.out("query").write_bytes(canonical.encode(value))
    report = fsck(run.repo)
    assert report.status == BIT_DIGEST
    assert report.problems[0]["code"] == "artifact_id_mismatch"


def _indexed(run: Run) -> Path:
    with open_index(run.repo) as index:
        index.refresh()
    return run.repo / STORE_DIR / INDEX_FILE


def test_indexed_sources_are_rehashed(run: Run) -> None:
    _indexed(run)
    report = fsck(run.repo)
    assert (
        report.status == 0
        and report.store == "ok"
        and report.sources_checked == len(fixture.REPOSITORY_FILES)
    )
    (run.repo / fixture.LEDGER).write_text("changed\n", encoding="utf-8")
    (run.repo / fixture.DRAFT).unlink()
    report = fsck(run.repo)
    assert report.status == BIT_SOURCE
    assert {(p["kind"], p["path"]) for p in report.problems if "artifact" not in p} == {
        ("source_drift", fixture.LEDGER),
        ("source_missing", fixture.DRAFT),
    }


def _named(report: FsckReport) -> set[tuple[str, str, str]]:
    """(kind, source path, artifact) of every problem found re-hashing the sources stored artifacts name."""
    return {(p["kind"], p["path"], p["artifact"]) for p in report.problems if "artifact" in p}


def test_a_changed_or_missing_source_of_a_stored_artifact_sets_bit_2_without_an_index_store(run: Run) -> None:
    (run.repo / fixture.LEDGER).write_text("changed\n", encoding="utf-8")
    (run.repo / fixture.DRAFT).unlink()
    report = fsck(run.repo)
    assert report.status == BIT_SOURCE and report.store == "absent"
    assert _named(report) == {
        (kind, path, f".prooftext/context/{name}.json")
        for kind, path in (("source_drift", fixture.LEDGER), ("source_missing", fixture.DRAFT))
        for name in ("manifest", "graph")
    }
    drift = next(p for p in report.problems if p["kind"] == "source_drift")
    recorded = canonical.sha256_hex(fixture.REPOSITORY_FILES[fixture.LEDGER].encode("utf-8"))
    assert drift["detail"].startswith(f"named by {drift['artifact']}: digest is now ")
    assert drift["detail"].endswith(f"the artifact records {recorded}")


def _to_symlink(path: Path) -> None:
    path.unlink()
    path.symlink_to(path.parent / "elsewhere.md")


def _to_directory(path: Path) -> None:
    path.unlink()
    path.mkdir()


def _hard_linked(path: Path) -> None:
    os.link(path, path.parent / "second-name.md")


@pytest.mark.parametrize("replace", [_to_symlink, _to_directory, _hard_linked])
def test_a_source_replaced_by_what_no_read_adopts_is_a_stale_source_not_an_io_error(
    run: Run, replace: Callable[[Path], None]
) -> None:
    replace(run.repo / fixture.DRAFT)
    report = fsck(run.repo)
    assert report.status == BIT_SOURCE
    assert {(kind, path) for kind, path, _ in _named(report)} == {("source_unreadable", fixture.DRAFT)}


def test_every_repository_source_a_stored_artifact_names_is_rehashed_and_owner_sources_are_noted(
    run: Run,
) -> None:
    report = fsck(run.repo)
    manifest, graph = run.value("manifest"), run.value("graph")
    repository = [
        s for a in (manifest, graph) for s in a["sources"] if s["locator"]["root_scope"] == "repository"
    ]
    assert report.status == 0 and report.artifact_sources_checked == len(repository)
    assert {(n["kind"], n["path"]) for n in report.notices} == {
        ("owner_sources", ".prooftext/context/manifest.json"),
        ("owner_sources", ".prooftext/context/graph.json"),
    }


def _altered_extract(value: dict[str, Any]) -> None:
    extract = next(e for e in value["extracts"] if e["path"] == fixture.LEDGER)
    extract["text"] = extract["text"].replace("never truncate", "always truncate")
    extract["text_sha256"] = canonical.sha256_hex(extract["text"].encode("utf-8"))


def test_an_extract_altered_and_reidentified_is_a_damaged_artifact_though_its_source_holds(
    run: Run,
) -> None:
    run.snapshot()
    rewrite(run, "snapshot", "snapshot", _altered_extract)
    assert lc.run_validate(run.out("snapshot"))["valid"]  # sound in itself: only its source tells
    report = fsck(run.repo)
    assert report.status == BIT_DIGEST
    assert _named(report) == {("source_drift", fixture.LEDGER, ".prooftext/context/snapshot.json")}
    assert "do not hash to the text_sha256 recorded for node" in report.problems[0]["detail"]


def test_a_compaction_digest_moved_to_other_lines_is_a_damaged_artifact(run: Run) -> None:
    run.snapshot()
    lc.run_compact(run.out("snapshot"), run.repo, run.owner, run.out("compaction"), None)

    def shorten(value: dict[str, Any]) -> None:
        digest = next(d for d in value["digests"] if d["line_range"][1] > d["line_range"][0])
        digest["line_range"][1] -= 1

    rewrite(run, "compaction", "compaction", shorten)
    report = fsck(run.repo)
    assert report.status == BIT_DIGEST
    assert {artifact for _kind, _path, artifact in _named(report)} == {".prooftext/context/compaction.json"}


def test_a_corrupt_store_sets_bit_1(run: Run) -> None:
    store = _indexed(run)
    for suffix in ("-wal", "-shm"):
        Path(f"{store}{suffix}").unlink(missing_ok=True)
    store.write_bytes(b"this is not a database" * 100)
    report = fsck(run.repo)
    assert report.status & BIT_DIGEST and report.store == "corrupt"


def test_a_store_missing_its_fts_table_sets_bit_1(run: Run) -> None:
    store = _indexed(run)
    with sqlite3.connect(store) as conn:
        conn.execute("DROP TABLE nodes_fts")
    report = fsck(run.repo)
    assert report.status == BIT_DIGEST and report.store == "corrupt"
    assert report.sources_checked == len(fixture.REPOSITORY_FILES)
    assert [p["kind"] for p in report.problems] == ["store"]
    assert report.problems[0]["detail"].startswith("missing tables: nodes_fts")


def test_an_intact_store_on_a_read_only_file_system_checks_clean(
    run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    _indexed(run)
    read_only_file_system(monkeypatch, run.repo / STORE_DIR)
    report = fsck(run.repo)
    assert report.status == 0 and report.store == "ok"
    assert report.sources_checked == len(fixture.REPOSITORY_FILES)


def test_a_store_that_cannot_be_opened_is_an_io_problem_naming_why_not_corruption(
    run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _indexed(run)
    Path(f"{store}-wal").write_bytes(b"frames the file does not hold")
    read_only_file_system(monkeypatch, run.repo / STORE_DIR)
    report = fsck(run.repo)
    assert report.status == BIT_IO and report.store == "unreadable"
    assert report.problems == [
        {
            "kind": "store",
            "path": f"{STORE_DIR}/{INDEX_FILE}",
            "detail": "unable to open database file (the file system is read-only)",
        }
    ]


def test_a_store_that_fails_to_open_at_its_first_read_is_unreadable_with_no_rebuild_advised(
    run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    _indexed(run)

    class Unopenable(sqlite3.Connection):
        def execute(self, *args: Any, **kwargs: Any) -> sqlite3.Cursor:
            raise cantopen()

    monkeypatch.setattr(
        fsck_module, "open_read_only", lambda path: sqlite3.connect(":memory:", factory=Unopenable)
    )
    report = fsck(run.repo)
    assert report.status == BIT_IO and report.store == "unreadable"
    assert [(p["kind"], p["detail"], "repair" in p) for p in report.problems] == [
        ("store", "unable to open database file", False)
    ]


def _retyped(path: Path) -> None:
    value = canonical.load(path.read_bytes())
    value["artifact_type"] = "Query"
    path.write_bytes(canonical.encode(canonical.with_artifact_id(value)))


def _symlinked(path: Path) -> None:
    path.unlink()
    path.symlink_to(path.parent / "manifest.json")


def _padded(path: Path) -> None:
    os.truncate(path, MAX_ARTIFACT_BYTES + 1)  # sparse: no 64 MiB is written


TAMPERED: dict[str, Callable[[Path], None]] = {
    "an unknown artifact_type": _retyped,
    "a BOM prefix": lambda p: p.write_bytes(b"\xef\xbb\xbf" + p.read_bytes()),
    "truncated to 40 bytes": lambda p: p.write_bytes(p.read_bytes()[:40]),
    "truncated to 9 bytes": lambda p: p.write_bytes(p.read_bytes()[:9]),
    "wrapped in a list": lambda p: p.write_bytes(b"[" + p.read_bytes() + b"]"),
    "padded past the largest artifact": _padded,
    "replaced by a symlink": _symlinked,
}


@pytest.mark.parametrize("case", sorted(TAMPERED))
def test_a_tampered_artifact_is_a_problem_never_passed_over(run: Run, case: str) -> None:
    TAMPERED[case](run.out("query"))
    report = fsck(run.repo)
    assert report.status & BIT_DIGEST and not report.to_dict()["ok"]
    assert ".prooftext/context/query.json" in {p.get("path") for p in report.problems}


def test_other_json_is_passed_over_with_a_notice(run: Run) -> None:
    (run.repo / ".prooftext" / "claims.json").write_text('[{"text": "x", "links": []}]', encoding="utf-8")
    report = fsck(run.repo)
    assert report.status == 0 and report.artifacts_checked == 4
    assert [n for n in report.to_dict()["notices"] if n["kind"] != "owner_sources"] == [
        {
            "kind": "not_an_artifact",
            "path": ".prooftext/claims.json",
            "detail": "JSON without artifact_id or artifact_type",
        }
    ]


def test_the_artifact_file_cap_is_reported(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fsck_module, "MAX_ARTIFACT_FILES", 2)
    report = fsck(run.repo)
    assert report.artifacts_checked == 2
    assert [n["kind"] for n in report.notices if n["kind"] != "owner_sources"] == ["artifact_cap"]


@pytest.mark.parametrize("name", ["q?x", "h#x"])
def test_a_root_whose_path_holds_uri_characters_is_read_in_place(tmp_path: Path, name: str) -> None:
    run = Run.fresh(tmp_path / name, "fsck")
    _indexed(run)
    before = sorted(p.name for p in tmp_path.iterdir())
    report = fsck(run.repo)
    assert report.status == 0 and report.store == "ok"
    assert report.sources_checked == len(fixture.REPOSITORY_FILES)
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no store opened beside the root


def test_a_symlinked_store_directory_is_noted_not_passed_over_silently(run: Run, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    os.rename(run.repo / STORE_DIR, elsewhere)
    (run.repo / STORE_DIR).symlink_to(elsewhere)
    report = fsck(run.repo)
    assert report.artifacts_checked == 0
    assert {(n["kind"], n["path"]) for n in report.notices} == {("symlinked_directory", STORE_DIR)}


def test_a_stored_file_name_that_is_not_utf8_is_reported_as_the_index_reports_one(tmp_path: Path) -> None:
    """``\\xNN`` for each undecodable byte, as ``index --excluded --json`` spells such a name: never a lone
    surrogate, which strict UTF-8 JSON cannot carry."""
    (tmp_path / "notes.md").write_text("Basil wants sun.\n", encoding="utf-8")
    with open_index(tmp_path) as index:
        index.refresh()
    store = os.fsencode(tmp_path / STORE_DIR)
    try:
        with open(os.path.join(store, b"bad\xff.json"), "wb") as handle:
            handle.write(b'{"artifact_id": 1}')
        os.mkdir(os.path.join(store, b"elsewhere"))
        os.symlink(os.path.join(store, b"elsewhere"), os.path.join(store, b"link\xfe"))
    except OSError as exc:
        pytest.skip(f"this file system refuses a name that is not UTF-8: {exc.strerror}")
    report = fsck(tmp_path).to_dict()
    paths = {entry["path"] for entry in [*report["problems"], *report["notices"]]}
    assert {".prooftext/bad\\xff.json", ".prooftext/link\\xfe"} <= paths
    canonical.encode(report)  # strict JSON: no lone surrogate
