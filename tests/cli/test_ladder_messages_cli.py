"""The adaptive ladder's refusals on the command line name what the user typed, in the command's own terms:
every ladder field a message mentions is spelled as its option (``--max-nodes``), and a limit the user never
set is said to be the default, not to have been lowered. ``--json`` keeps the request's field in
``details.field`` and adds the option."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prooftext.cli import main


def _argv(root: Path, *options: str) -> list[str]:
    return ["adaptive-pack", "frobnicate", "--root", str(root), *options]


def _err(capsys: pytest.CaptureFixture[str], root: Path, *options: str) -> str:
    assert main(_argv(root, *options)) == 1
    return capsys.readouterr().err


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            ["--min-evidence", "1000"],
            "--min-evidence (1000) must not exceed --max-nodes (64, its default): raise --max-nodes too",
        ),
        (
            ["--max-nodes", "8"],
            "--min-nodes (16, its default) must not exceed --max-nodes (8): set --min-nodes too when lowering"
            " --max-nodes",
        ),
        (
            ["--min-tokens", "9000", "--max-tokens", "8500"],
            "--min-tokens (9000) must not exceed --max-tokens (8500)",
        ),
        (
            ["--token-step", "1"],
            "a ladder climbs at most 256 rungs; --token-step 1 from --min-tokens 2000 to --max-tokens 8000 would"
            " climb 6001 rungs: raise --token-step to at least 24, or narrow --min-tokens..--max-tokens",
        ),
    ],
)
def test_a_ladder_refusal_names_every_field_as_its_option(
    frobnicate_root: Path, capsys: pytest.CaptureFixture[str], options: list[str], message: str
) -> None:
    assert _err(capsys, frobnicate_root, *options) == f"prooftext: error [value_out_of_range]: {message}\n"


def test_with_json_the_message_keeps_the_field_names_and_the_details_add_the_option(
    frobnicate_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_argv(frobnicate_root, "--min-evidence", "1000", "--json")) == 1
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["code"] == "value_out_of_range"
    assert (error["details"]["field"], error["details"]["option"]) == ("min_evidence", "--min-evidence")
    assert (
        error["message"]
        == "min_evidence (1000) must not exceed max_nodes (64, its default): raise max_nodes too"
    )


def test_a_byte_ladder_whose_first_rung_is_below_the_byte_floor_is_refused(
    frobnicate_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``pack --tokenizer bytes --max-tokens 500`` is refused; so is a ladder's first rung of 500 bytes."""
    err = _err(capsys, frobnicate_root, "--tokenizer", "bytes", "--min-tokens", "500")
    assert (
        err
        == "prooftext: error [value_out_of_range]: --min-tokens must be between 1024 and 8388608 bytes, got 500\n"
    )


def test_a_byte_ladder_from_the_byte_floor_is_accepted(
    frobnicate_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_argv(frobnicate_root, "--tokenizer", "bytes", "--min-tokens", "1024")) == 0
