"""Every refusal of an evaluation input file says which kind of file it is (``details.input``), not only the
refusals of one field: a file that cannot be read, is not UTF-8 or JSON, has the wrong shape or holds
nothing to evaluate names its input as a field error does; and a JSON syntax error reads as one sentence."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from prooftext.errors import ArtifactError, ConfigError, NotFoundError, ProoftextError
from prooftext.eval.declare import load_declaration
from prooftext.eval.depth import load_clinc
from prooftext.eval.locomo_data import load_locomo
from prooftext.eval.swebench import load_repo_map, load_tasks

Loader = Callable[[Path], Any]

LOADERS: dict[str, tuple[Loader, type[ProoftextError]]] = {
    "tasks": (load_tasks, ArtifactError),
    "repo map": (load_repo_map, ConfigError),
    "declaration": (load_declaration, ConfigError),
    "LoCoMo data": (load_locomo, ArtifactError),
    "CLINC150 data": (load_clinc, ArtifactError),
}
CONTENTS = {
    "missing": None,
    "not-utf8": b"\xff\xfe\n",
    "not-json": b'{"bad json\n',
    "duplicate-key": b'{"a": 1, "a": 2}\n',
}


def _refusal(tmp_path: Path, kind: str, content: bytes | None) -> ProoftextError:
    loader, error = LOADERS[kind]
    path = tmp_path / "input.json"
    if content is None:
        error = NotFoundError  # a missing file is not_found, whatever the kind
    else:
        path.write_bytes(content)
    with pytest.raises(error) as caught:
        loader(path)
    return caught.value


@pytest.mark.parametrize("case", list(CONTENTS))
@pytest.mark.parametrize("kind", list(LOADERS))
def test_a_file_that_is_not_readable_json_names_its_input(tmp_path: Path, kind: str, case: str) -> None:
    refused = _refusal(tmp_path, kind, CONTENTS[case])
    assert refused.details["input"] == kind and refused.details["path"] == str(tmp_path / "input.json")


@pytest.mark.parametrize(
    ("kind", "content"),
    [
        ("tasks", b"\n \n"),
        ("repo map", b"[]"),
        ("LoCoMo data", b"{}"),
        ("LoCoMo data", b"[]"),
        ("CLINC150 data", b"[]"),
        ("CLINC150 data", b'{"train": []}'),
        ("CLINC150 data", b'{"test": [["hi"]]}'),
        ("CLINC150 data", b'{"test": []}'),
    ],
    ids=[
        "no-tasks",
        "map-list",
        "locomo-object",
        "no-questions",
        "clinc-list",
        "no-test",
        "bad-pair",
        "empty",
    ],
)
def test_a_file_of_the_wrong_shape_or_with_nothing_to_evaluate_names_its_input(
    tmp_path: Path, kind: str, content: bytes
) -> None:
    assert _refusal(tmp_path, kind, content).details["input"] == kind


def test_a_malformed_task_line_names_its_input_line_and_file(tmp_path: Path) -> None:
    path = tmp_path / "tasks.jsonl"
    path.write_text('{"bad json\n', encoding="utf-8")
    with pytest.raises(ArtifactError) as caught:
        load_tasks(path)
    assert caught.value.details == {"path": str(path), "line": 1, "input": "tasks"}


def test_a_json_syntax_error_says_where_once(tmp_path: Path) -> None:
    message = _refusal(tmp_path, "tasks", b'{"bad json\n').message
    assert message.endswith("not JSON (Unterminated string starting at column 2)")
    message = _refusal(tmp_path, "repo map", json.dumps({"a": "b\tc"}).replace("\\t", "\t").encode()).message
    assert "Invalid control character at column" in message and " at at " not in message
