"""Reading a verified line range: a path must be a portable relative path below the root, checked by the
corpus's one rule for paths; one that leaves the root is ``path_outside_root``."""

from __future__ import annotations

from pathlib import Path

import pytest

import prooftext
from prooftext.errors import PathOutsideRootError, RequestError


@pytest.mark.parametrize("path", ["../outside.py", "/etc/passwd", "", "a\\b.py", "modeling/../../x.py"])
def test_a_path_that_leaves_the_root_is_path_outside_root(sample_repo: Path, path: str) -> None:
    with prooftext.open(sample_repo) as index, pytest.raises(PathOutsideRootError) as info:
        prooftext.read_range(index, path)
    assert info.value.details["field"] == "path"


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("modeling//separable.py", "component ''"),
        ("./modeling/separable.py", "component '.'"),
        ("modeling/sep\x01arable.py", "control character"),
    ],
)
def test_a_path_that_is_not_portable_is_refused_saying_why(sample_repo: Path, path: str, why: str) -> None:
    with prooftext.open(sample_repo) as index, pytest.raises(RequestError, match=why) as info:
        prooftext.read_range(index, path)
    assert info.value.details["field"] == "path"


def test_a_portable_path_reads_its_lines(sample_repo: Path) -> None:
    with prooftext.open(sample_repo) as index:
        index.refresh()
        read = prooftext.read_range(index, "modeling/separable.py", 1, 1)
    assert read["lines"] == [1, 1] and read["text"]


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"path": None}, "path"),
        ({"start": None}, "start"),
        ({"end": 1.5}, "end"),
        ({"start": True}, "start"),
        ({"clearance": []}, "clearance"),
        ({"clearance": "top-secret"}, "clearance"),
    ],
)
def test_an_argument_of_the_wrong_type_is_refused_naming_it(
    sample_repo: Path, arguments: dict[str, object], field: str
) -> None:
    call = {"path": "modeling/separable.py", **arguments}
    with prooftext.open(sample_repo) as index, pytest.raises(RequestError) as info:
        prooftext.read_range(index, **call)  # type: ignore[arg-type]
    assert info.value.details["field"] == field
