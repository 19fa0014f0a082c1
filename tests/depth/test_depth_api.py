"""The Python API of depth and turns: every bad argument is a coded error naming the caller's own field."""

from __future__ import annotations

from pathlib import Path

import pytest

import prooftext
from prooftext import TurnRequest
from prooftext.errors import ProoftextError, RequestError


@pytest.mark.parametrize("bad", [2.5, "100"])
def test_depth_report_names_active_files_for_anything_but_a_count_or_a_list(bad: object) -> None:
    with pytest.raises(ProoftextError) as caught:
        prooftext.depth_report("hi", active_files=bad)  # type: ignore[arg-type]
    assert caught.value.details["field"] == "active_files"
    files: object = ["a.py", "b.py"]  # a list of files is still counted
    assert prooftext.depth_report("hi", active_files=files).to_dict()["decision"]["tier"] == "deep"  # type: ignore[arg-type]


@pytest.mark.parametrize("window", [5, 0, -5, True])
def test_turn_plan_window_errors_name_window_tokens(tmp_path: Path, window: int) -> None:
    with pytest.raises(ProoftextError) as caught:
        prooftext.turn_plan(tmp_path, TurnRequest("main", "hi", window_tokens=window))
    assert caught.value.code == "value_out_of_range" and caught.value.details["field"] == "window_tokens"


def test_turn_plan_on_a_missing_root_is_root_missing(tmp_path: Path) -> None:
    with pytest.raises(ProoftextError) as caught:
        prooftext.turn_plan(tmp_path / "absent", TurnRequest("main", "what is the retry config?"))
    assert caught.value.code == "root_missing"
    (tmp_path / "file").write_text("x")
    with pytest.raises(ProoftextError) as not_dir:
        prooftext.turn_plan(tmp_path / "file", TurnRequest("main", "what is the retry config?"))
    assert not_dir.value.code == "root_not_directory"


def test_turn_plan_over_the_prompt_budget_is_budget_exceeded(tmp_path: Path) -> None:
    with pytest.raises(ProoftextError) as caught:
        prooftext.turn_plan(tmp_path, TurnRequest("main", "word " * 20000))
    assert caught.value.code == "budget_exceeded"


def test_depth_report_refuses_text_with_an_undecodable_byte_as_a_turn_does() -> None:
    undecodable = b"hi \xff".decode("utf-8", errors="surrogateescape")
    with pytest.raises(RequestError) as caught:
        prooftext.depth_report(undecodable)
    assert caught.value.field == "text"
