"""One source of the context lifecycle is at most ``MAX_SOURCE_BYTES``: a larger one is past a limit
(``limit_exceeded``, as the total is), not unreadable; optional, it is excluded with that reason, required,
it blocks. The strict read every command shares (fsck, validate, provenance, owner records) says the same."""

from __future__ import annotations

from pathlib import Path

import pytest

from gates.context import Run
from gates.fixture import DRAFT, LEDGER, OWNER_RECORD
from prooftext.artifacts import lifecycle as lc
from prooftext.artifacts.fsck import BIT_SOURCE, fsck
from prooftext.artifacts.fsck import MAX_SOURCE_BYTES as FSCK_READ_LIMIT
from prooftext.artifacts.limits import MAX_SOURCE_BYTES
from prooftext.artifacts.observe import read_strict
from prooftext.artifacts.recheck import READ_LIMIT
from prooftext.errors import LimitError
from prooftext.index import open_index

from .helpers import code_of, rewrite, source_of

BIG = "notes/big.md"


def _over(limit: int) -> str:
    line = "A line of plain notes, long enough to fill the file quickly.\n"
    return line * (limit // len(line) + 1)


def _plant_big_source(run: Run) -> None:
    text = _over(MAX_SOURCE_BYTES)
    assert MAX_SOURCE_BYTES < len(text) < 1 << 20  # over the lifecycle's limit, under the scan's
    (run.repo / BIG).parent.mkdir(parents=True, exist_ok=True)
    (run.repo / BIG).write_text(text, encoding="utf-8")


def test_an_optional_source_over_the_limit_is_excluded_as_past_a_limit_not_unreadable(tmp_path: Path) -> None:
    run = Run.fresh(tmp_path, "big")
    _plant_big_source(run)
    run.manifest()
    run.graph()
    graph = run.value("graph")
    excluded = [x for x in graph["excluded_sources"] if x["path"] == BIG]
    assert [x["reason"] for x in excluded] == ["limit_exceeded"]
    assert str(MAX_SOURCE_BYTES) in excluded[0]["detail"]
    assert graph["limits"]["max_source_bytes"] == MAX_SOURCE_BYTES


def test_a_required_source_over_the_limit_blocks_the_graph_with_limit_exceeded(tmp_path: Path) -> None:
    run = Run.fresh(tmp_path, "big-required")
    _plant_big_source(run)
    run.manifest(required=(BIG,))
    assert code_of(run.graph) == "limit_exceeded"
    assert not run.out("graph").exists()


def test_the_strict_read_reports_a_file_over_the_limit_as_past_it_naming_its_size_and_the_limit(
    tmp_path: Path,
) -> None:
    (tmp_path / "big.md").write_text(_over(MAX_SOURCE_BYTES), encoding="utf-8")
    size = (tmp_path / "big.md").stat().st_size
    with pytest.raises(LimitError) as caught:
        read_strict(tmp_path, "big.md")
    error = caught.value
    assert error.code == "limit_exceeded" and error.details["path"] == "big.md"
    assert f"{size} bytes" in error.message and f"limit of {MAX_SOURCE_BYTES} bytes" in error.message


def test_fsck_and_validate_report_a_named_source_grown_past_the_read_limit_as_past_it(
    origin: Run, tmp_path: Path
) -> None:
    run = origin.clone(tmp_path, "grown")
    (run.repo / LEDGER).write_text(_over(READ_LIMIT), encoding="utf-8")
    report = fsck(run.repo)
    grown = [p for p in report.problems if p["path"] == LEDGER]
    assert report.status == BIT_SOURCE and {p["kind"] for p in grown} == {"limit_exceeded"}
    assert all(f"limit of {READ_LIMIT} bytes" in p["detail"] for p in grown)
    assert code_of(lambda: lc.run_validate(run.out("graph"), run.repo)) == "limit_exceeded"


def test_an_owner_record_over_the_limit_blocks_the_manifest_with_limit_exceeded(tmp_path: Path) -> None:
    run = Run.fresh(tmp_path, "big-owner")
    (run.owner / OWNER_RECORD).write_text(_over(MAX_SOURCE_BYTES), encoding="utf-8")
    assert code_of(run.manifest) == "limit_exceeded"


def test_a_provenance_reference_over_the_limit_excludes_its_source_as_past_a_limit(tmp_path: Path) -> None:
    run = Run.fresh(tmp_path, "big-provenance")
    _plant_big_source(run)
    run.manifest()
    ref = {"type": "record", "locator_path": BIG, "sha256": "0" * 64}
    rewrite(run, "manifest", "m", lambda v: source_of(v, LEDGER)["provenance"].append(ref))
    run.graph(manifest="m")
    excluded = {x["path"]: x for x in run.value("graph")["excluded_sources"]}
    assert excluded[LEDGER]["reason"] == "limit_exceeded"
    assert f"provenance repository:{BIG}" in excluded[LEDGER]["detail"]


def test_fsck_reports_an_indexed_file_grown_past_its_read_limit_as_past_it_naming_its_size_and_the_limit(
    run: Run,
) -> None:
    with open_index(run.repo) as index:
        index.refresh()
    (run.repo / DRAFT).write_text(_over(FSCK_READ_LIMIT), encoding="utf-8")
    size = (run.repo / DRAFT).stat().st_size
    report = fsck(run.repo)
    stored = [p for p in report.problems if p["path"] == DRAFT and "artifact" not in p]
    assert report.status == BIT_SOURCE and [p["kind"] for p in stored] == ["limit_exceeded"]
    assert f"{size} bytes" in stored[0]["detail"]
    assert f"limit of {FSCK_READ_LIMIT} bytes" in stored[0]["detail"]
