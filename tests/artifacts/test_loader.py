"""Reading artifacts back: canonical bytes only, strict JSON, the right type, ids that recompute."""

from __future__ import annotations

import pytest

from gates.context import Run
from prooftext import canonical
from prooftext.artifacts import lifecycle as lc
from prooftext.artifacts import loader
from prooftext.errors import ProoftextError

from .helpers import code_of, rewrite


def test_every_lifecycle_artifact_validates(run: Run) -> None:
    for name in ("manifest", "graph", "query", "selection"):
        report = lc.run_validate(run.out(name))
        assert report["valid"] and report["artifact_id"] == run.value(name)["artifact_id"]
        assert report["reobserved"] is False


def test_pretty_printed_bytes_are_not_canonical(run: Run) -> None:
    data = run.out("query").read_bytes()
    pretty = canonical.encode(canonical.load(data)).replace(b",", b", ")
    assert code_of(lambda: loader.parse_artifact(pretty)) == "artifact_invalid"


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b'{"a":1,"a":2}', "json_duplicate_key"),
        (b'{"a":1.5}', "json_float"),
        (b'{"a":NaN}', "json_nonfinite"),
        (b"[1]", "schema_violation"),
        (b'{"artifact_type":"poem"}', "schema_violation"),
    ],
)
def test_strict_json_and_envelope_errors(data: bytes, code: str) -> None:
    assert code_of(lambda: loader.parse_artifact(data)) == code


def test_the_expected_type_is_enforced(run: Run) -> None:
    assert (
        code_of(lambda: loader.parse_artifact(run.out("query").read_bytes(), "graph")) == "artifact_invalid"
    )


def test_a_recorded_id_must_recompute(run: Run) -> None:
    value = run.value("query")
    value["text"] = value["text"] + " (edited)"
    assert code_of(lambda: loader.parse_artifact(canonical.encode(value))) == "artifact_id_mismatch"


def test_a_rehashed_graph_still_fails_its_nested_ids(run: Run) -> None:
    path = rewrite(run, "graph", "g", lambda v: v["nodes"][0].update(text=v["nodes"][0]["text"] + "x"))
    assert code_of(lambda: lc.run_validate(path)) == "artifact_id_mismatch"


def test_unknown_fields_are_rejected(run: Run) -> None:
    path = rewrite(run, "query", "q", lambda v: v.update(note="hello"))
    assert code_of(lambda: lc.run_validate(path)) == "schema_violation"


def test_artifact_byte_ceilings_are_enforced(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(loader.ARTIFACT_MAX_BYTES, "query", 100)
    assert code_of(lambda: lc.run_validate(run.out("query"))) == "limit_exceeded"


def test_a_missing_file_is_not_found_and_named_by_its_whole_path(run: Run) -> None:
    missing = run.out("nothing")
    with pytest.raises(ProoftextError) as info:
        lc.run_validate(missing)
    assert info.value.code == "not_found"
    assert info.value.message == f"artifact file not found: {missing}"


def test_a_directory_given_as_an_artifact_is_a_bounded_error_naming_it(run: Run) -> None:
    with pytest.raises(ProoftextError) as info:
        lc.run_validate(run.repo)
    assert info.value.code == "artifact_invalid" and str(run.repo) in info.value.message
