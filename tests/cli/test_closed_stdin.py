"""A standard input closed before the process started reads as an empty one: the commands that read it (the
servers on stdio, ``chat``) end at once as at the end of their input, never with an internal error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HANG_GUARD_S = 300
"""Fails the test instead of hanging it should a process never exit; never reached when it works."""


def _stdin_closed(argv: list[str]) -> subprocess.CompletedProcess[str]:
    """Run the CLI with its standard input closed (the shell's ``<&-``)."""
    return subprocess.run(
        ["sh", "-c", 'exec "$0" "$@" <&-', sys.executable, "-m", "prooftext", *argv],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        check=False,
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["serve", "--stdio", "--no-warm", "--no-watch"],
        ["mcp", "--no-warm", "--no-watch"],
        ["chat", "--model", "m", "--endpoint", "http://127.0.0.1:9"],
    ],
    ids=["serve", "mcp", "chat"],
)
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_a_closed_stdin_ends_a_command_that_reads_it_as_an_empty_input_does(
    frobnicate_root: Path, argv: list[str], as_json: bool
) -> None:
    done = _stdin_closed([*argv, "--root", str(frobnicate_root), *(["--json"] if as_json else [])])
    assert "internal_error" not in done.stdout + done.stderr
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
