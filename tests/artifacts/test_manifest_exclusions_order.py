"""A Manifest lists its scan exclusions once each, in order of path, reason and detail."""

from __future__ import annotations

from typing import Any

from gates.context import Run
from prooftext.artifacts import lifecycle as lc

from .helpers import code_of, rewrite


def _key(entry: dict[str, Any]) -> tuple[str, str, str]:
    return (entry["path"], entry["reason"], entry["detail"])


def _with_exclusions(run: Run) -> None:
    """A manifest of a root holding files the scan leaves out (not text)."""
    for name in ("b.bin", "a.bin"):
        (run.repo / name).write_bytes(bytes(range(256)))
    run.manifest("m")


def test_the_manifest_lists_its_exclusions_in_order(run: Run) -> None:
    _with_exclusions(run)
    excluded = run.value("m")["excluded"]
    assert len(excluded) >= 2
    assert excluded and [_key(e) for e in excluded] == sorted({_key(e) for e in excluded})


def test_a_manifest_listing_an_exclusion_twice_is_invalid(run: Run) -> None:
    _with_exclusions(run)
    edited = rewrite(run, "m", "m-twice", lambda v: v["excluded"].append(dict(v["excluded"][0])))
    assert code_of(lambda: lc.run_validate(edited)) == "schema_violation"


def test_a_manifest_listing_exclusions_out_of_order_is_invalid(run: Run) -> None:
    def edit(value: dict[str, Any]) -> None:
        later = dict(value["excluded"][0], path="zz-later")
        value["excluded"].insert(0, later)

    _with_exclusions(run)
    edited = rewrite(run, "m", "m-order", edit)
    assert code_of(lambda: lc.run_validate(edited)) == "schema_violation"
