"""The CLI's one error place: a standard output that cannot be written is a coded I/O error on stderr, with
exit status 4, and never a traceback (neither when the command writes nor in the interpreter's final flush)."""

from __future__ import annotations

import errno
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from prooftext.cli import main
from prooftext.cli.common import EXIT_IO, write_out
from prooftext.errors import MAX_MESSAGE_CHARS

WRITABLE_FD = 1
"""What a full pipe is waited on for: the test's stdout, writable at once."""
EXPECTED = "prooftext: error [output_unwritable]: cannot write to standard output: No space left on device\n"


class FullStdout(io.StringIO):
    """A stdout on a full disk: every write and flush fails, as it does on /dev/full."""

    def write(self, text: str) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def flush(self) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize(
    "argv",
    [
        ["pack", "separability_matrix", "--root", "{root}", "--json"],
        ["pack", "separability_matrix", "--root", "{root}"],
        ["adaptive-pack", "separability_matrix", "--root", "{root}"],
        ["index", "{root}", "--json"],
        ["index", "{root}"],
        ["index", "--status", "{root}"],
        ["verify", "{packet}", "--root", "{root}", "--json"],
        ["verify", "{packet}", "--root", "{root}"],
        ["pack", "", "--root", "{root}", "--json"],  # the failure happens while reporting another error
        ["depth", "what did we decide about the retry policy"],
        ["fsck", "{root}"],
    ],
)
def test_a_stdout_that_cannot_be_written_is_one_coded_io_error_on_stderr(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    sample_repo: Path,
    tmp_path: Path,
    argv: list[str],
) -> None:
    packet = tmp_path / "packet.json"
    assert main(["pack", "separability_matrix", "--root", str(sample_repo), "--json"]) == 0
    packet.write_text(capsys.readouterr().out)
    monkeypatch.setattr(sys, "stdout", FullStdout())
    status = main([a.replace("{root}", str(sample_repo)).replace("{packet}", str(packet)) for a in argv])
    assert status == EXIT_IO == 4
    assert capsys.readouterr().err.endswith(EXPECTED)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="/dev/full does not exist on this system")
@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize("json_flag", [["--json"], []], ids=["json", "text"])
def test_a_command_writing_to_a_full_device_exits_4_with_one_line_on_stderr(
    sample_repo: Path, buffered: bool, json_flag: list[str]
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if not buffered:
        env["PYTHONUNBUFFERED"] = "1"
    argv = [sys.executable, "-m", "prooftext", "pack", "separability_matrix", "--root", str(sample_repo)]
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [*argv, *json_flag], stdout=full, stderr=subprocess.PIPE, text=True, env=env, check=False
        )
    assert done.returncode == 4
    assert done.stderr == EXPECTED


@pytest.mark.parametrize("argv", [["--help"], ["index", "--help"]], ids=["top", "command"])
def test_help_written_to_a_full_device_exits_4_with_one_line_on_stderr(argv: list[str]) -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "prooftext", *argv],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
    assert done.returncode == 4
    assert done.stderr == EXPECTED


def test_a_json_document_holding_nan_is_refused_before_anything_is_printed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from prooftext.cli.common import emit_json

    with pytest.raises(ValueError, match="JSON compliant"):
        emit_json({"ratio": float("nan")})
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (["map", "."], True),
        (["pack", "a question", "."], True),
        (["index", ".", "extra"], False),  # index takes its root as an argument
        (["map", "--max-tokens", "many"], False),  # another usage error
    ],
)
def test_an_extra_argument_to_a_command_that_takes_root_as_an_option_says_how_a_root_is_given(
    capsys: pytest.CaptureFixture[str], argv: list[str], hint: bool
) -> None:
    assert main(argv) == 64
    err = capsys.readouterr().err
    assert err.startswith("prooftext: error [usage]: ")
    assert ("(a root directory is given as --root DIR)" in err) is hint


class ShortWrites(io.RawIOBase):
    """A pipe that takes at most ``step`` bytes a write, and none every other write (a full non-blocking
    pipe), as an unbuffered stdout meets them."""

    def __init__(self, step: int) -> None:
        self.step, self.taken, self.calls = step, bytearray(), 0

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int | None:
        self.calls += 1
        if self.calls % 2 == 0:
            return None
        chunk = bytes(memoryview(data))[: self.step]
        self.taken += chunk
        return len(chunk)

    def fileno(self) -> int:
        return WRITABLE_FD


def test_output_on_an_unbuffered_stdout_arrives_whole_when_the_pipe_takes_it_in_parts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``PYTHONUNBUFFERED=1 prooftext map | reader``: a pipe that takes part of a larger write keeps the rest
    coming, instead of the text layer dropping it and the command exiting 0."""
    raw = ShortWrites(step=1000)
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(raw, encoding="utf-8", write_through=True))
    text = "".join(f"line {n} é\n" for n in range(2000))
    write_out(text)
    assert bytes(raw.taken) == text.encode("utf-8")


@pytest.mark.parametrize(
    ("argv", "option", "field"),
    [
        (["map", "--path", ""], "--path", "paths"),
        (["map", "--identifier", ""], "--identifier", "identifiers"),
        (["map", "--max-tokens", "0"], "--max-tokens", "max_tokens"),
        (["pack", "q", "--seed", ""], "--seed", "path_seeds"),
        (["pack", "q", "--require", ""], "--require", "required"),
        (["pack", "q", "--max-nodes", "0"], "--max-nodes", "max_nodes"),
        (["pack", "q", "--tokenizer", "nope"], "--tokenizer", "tokenizer"),
        (["adaptive-pack", "q", "--min-coverage-bps", "20000"], "--min-coverage-bps", "min_coverage_bps"),
    ],
)
def test_a_bad_option_value_is_reported_by_the_option_the_user_typed(
    sample_repo: Path, capsys: pytest.CaptureFixture[str], argv: list[str], option: str, field: str
) -> None:
    argv = [*argv, "--root", str(sample_repo)]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("prooftext: error [") and f"]: {option}" in err
    assert f"]: {field}" not in err and "tuple" not in err
    assert main([*argv, "--json"]) == 1
    details = json.loads(capsys.readouterr().out)["error"]["details"]
    assert details["field"] == field and details["option"] == option


def test_a_field_the_command_has_no_option_for_is_left_as_it_is(
    sample_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["pack", "the", "--root", str(sample_repo), "--json"]) == 1
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["code"] == "query_empty" and "option" not in error["details"]
    assert main(["pack", "q", "--root", str(sample_repo), "--sign"]) == 1
    assert capsys.readouterr().err.count("--sign") == 1  # the message names the option already


@pytest.mark.parametrize("as_json", [True, False], ids=["json", "text"])
def test_a_usage_error_quoting_a_huge_value_is_bounded_as_every_error_message_is(
    capsys: pytest.CaptureFixture[str], as_json: bool
) -> None:
    huge = "9" * 100_000
    assert main(["pack", "q", "--max-tokens", huge, *(["--json"] if as_json else [])]) == 64
    out, err = capsys.readouterr()
    if as_json:
        error = json.loads(out)["error"]
        assert error["code"] == "usage" and "--max-tokens" in error["message"]
        assert len(error["message"]) <= MAX_MESSAGE_CHARS
    else:
        assert err.startswith("prooftext: error [usage]: ") and len(err) <= MAX_MESSAGE_CHARS + 100


def test_a_usage_error_quoting_a_credential_redacts_it_as_every_error_message_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    token = "gh" + "p_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC2dF4gH6"  # split so no scanner takes this file for a leak
    assert main(["pack", "q", "--max-tokens", token, "--json"]) == 64
    message = json.loads(capsys.readouterr().out)["error"]["message"]
    assert token not in message and "REDACTED" in message


def test_a_field_two_commands_give_by_options_spelled_apart_is_named_by_the_one_typed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``active_files``: ``depth --active-files`` (a count) and ``turn --active-file`` (a file, repeated)."""
    assert main(["depth", "hi", "--active-files", "-5", "--json"]) == 1
    details = json.loads(capsys.readouterr().out)["error"]["details"]
    assert details == {"field": "active_files", "option": "--active-files"}
    assert main(["depth", "hi", "--active-files", "-5"]) == 1
    assert capsys.readouterr().err.startswith("prooftext: error [value_out_of_range]: --active-files ")
