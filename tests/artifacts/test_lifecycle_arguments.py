"""The ``prooftext.context_*`` lifecycle functions refuse a path argument of the wrong type with
``invalid_request`` naming the argument, as the other public functions do, never a bare ``TypeError`` or
``AttributeError``; a path given as a string works like a ``Path``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import prooftext
from prooftext.errors import RequestError

CALLS: list[tuple[str, Any, str]] = [
    ("manifest-output", lambda t: prooftext.context_manifest(t, 5, None, []), "output"),
    ("index-manifest", lambda t: prooftext.context_index(5, t, None, t / "o.json"), "manifest_path"),
    ("index-output", lambda t: prooftext.context_index(t / "m.json", t, None, 5), "output"),
    ("query-graph", lambda t: prooftext.context_query(5, None, t / "o.json"), "graph_path"),
    ("select-graph", lambda t: prooftext.context_select(5, t / "q.json", t / "o.json"), "graph_path"),
    ("select-query", lambda t: prooftext.context_select(t / "g.json", [1], t / "o.json"), "query_path"),
    ("snapshot-graph", lambda t: prooftext.context_snapshot(5, t, t, None, t / "o.json"), "graph_path"),
    ("propose-claims", lambda t: prooftext.context_propose(t / "s.json", 5.0, t / "o.json"), "claims_path"),
    (
        "compact-snapshot",
        lambda t: prooftext.context_compact(5, t, None, t / "o.json", None),
        "snapshot_path",
    ),
    ("compact-proposal", lambda t: prooftext.context_compact(t / "s", t, None, t / "o", 5), "proposal_path"),
    (
        "quality-snapshot",
        lambda t: prooftext.context_quality(t / "g.json", b"x", t / "o.json"),
        "snapshot_path",
    ),
    ("compare-base", lambda t: prooftext.context_compare(5, t / "c.json"), "base_path"),
    ("compare-current", lambda t: prooftext.context_compare(t / "b.json", None), "current_path"),
    ("validate-path", lambda t: prooftext.context_validate(5), "path"),
    ("validate-none", lambda t: prooftext.context_validate(None), "path"),
]


@pytest.mark.parametrize(("call", "field"), [(c, f) for _, c, f in CALLS], ids=[i for i, _, _ in CALLS])
def test_a_path_argument_of_the_wrong_type_is_a_request_error_naming_it(
    tmp_path: Path, call: Any, field: str
) -> None:
    with pytest.raises(RequestError) as caught:
        call(tmp_path)
    assert caught.value.details["field"] == field
    assert field in str(caught.value)
    assert list(tmp_path.iterdir()) == []


def test_a_path_given_as_a_string_is_taken_like_a_path(tmp_path: Path) -> None:
    with pytest.raises(prooftext.errors.NotFoundError):
        prooftext.context_validate(str(tmp_path / "missing.json"))


def test_an_optional_file_argument_may_be_none(tmp_path: Path) -> None:
    (tmp_path / "repo").mkdir()
    with pytest.raises(prooftext.errors.NotFoundError):
        prooftext.context_compact(
            tmp_path / "missing.json", tmp_path / "repo", None, tmp_path / "o.json", None
        )
