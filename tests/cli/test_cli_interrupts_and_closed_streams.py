"""The CLI's one error place also covers Ctrl-C (the ``interrupted`` error object and exit status 130), a
standard stream closed before the process started (exit status 4, never a traceback; a closed standard
input reads as an empty one), a failure a task group wraps, and a path the user cannot read (the project's
coded error, not a usage error)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main
from typer.models import TyperPath

import prooftext
from prooftext.cli import command_modules, main
from prooftext.cli.common import EXIT_CLOSED_PIPE, EXIT_INTERRUPTED, EXIT_IO, EXIT_USAGE, app
from prooftext.errors import EmptyQueryError

HANG_GUARD_S = 300
"""Fails the test instead of hanging it should a process never exit; never reached when it works."""
INTERRUPTED_JSON = '{"error": {"code": "interrupted", "message": "interrupted"}}\n'
INTERRUPTED_TEXT = "prooftext: error [interrupted]: interrupted\n"
BAD_DESCRIPTOR = (
    "prooftext: error [output_unwritable]: cannot write to standard output: Bad file descriptor\n"
)

# Each command is interrupted at a fixed point of its own (no timing): the process sends itself SIGINT, as
# Ctrl-C at a terminal would, from a function the command calls.
SIGINT_BOOTSTRAP = """
import signal, sys
where = sys.argv.pop(1)
# A process started in the background by a shell without job control inherits SIGINT ignored, and Python
# then leaves it so: the test puts back the handler a terminal's Ctrl-C meets.
signal.signal(signal.SIGINT, signal.default_int_handler)

def interrupt(*args, **kwargs):
    signal.raise_signal(signal.SIGINT)
    raise AssertionError("SIGINT was not delivered")

async def interrupt_then(original, *args):
    signal.raise_signal(signal.SIGINT)
    await original(*args)

if where == "index":
    import prooftext
    prooftext.open = interrupt
elif where == "chat":
    import prooftext.cli.conversation as module
    module._line_reader = lambda as_json: interrupt
elif where == "serve":
    import prooftext.cli.serve
    from prooftext.server.stdio import StdioServer as server
    original = server.serve
    server.serve = lambda self: interrupt_then(original, self)
elif where == "mcp":
    import prooftext.cli.serve
    from prooftext.server.mcp_server import ProoftextMCP as server
    original = server.run_stdio_async
    server.run_stdio_async = lambda self: interrupt_then(original, self)
from prooftext.cli import main
main()
"""
INTERRUPTED_COMMANDS = {
    "index-json": ("index", ["index", "{root}", "--json"]),
    "index-text": ("index", ["index", "{root}"]),
    "serve-stdio-json": ("serve", ["serve", "--stdio", "--root", "{root}", "--no-warm", "--json"]),
    "mcp-json": ("mcp", ["mcp", "--root", "{root}", "--no-warm", "--json"]),
    "chat-json": ("chat", ["chat", "--root", "{root}", "--model", "m", "--json"]),
}


@pytest.mark.parametrize("case", INTERRUPTED_COMMANDS, ids=list(INTERRUPTED_COMMANDS))
def test_ctrl_c_is_the_interrupted_error_object_with_exit_status_130(sample_repo: Path, case: str) -> None:
    where, argv = INTERRUPTED_COMMANDS[case]
    args = [a.replace("{root}", str(sample_repo)) for a in argv]
    process = subprocess.Popen(
        [sys.executable, "-c", SIGINT_BOOTSTRAP, where, *args],
        stdin=subprocess.PIPE,  # held open: only the interrupt may end a server
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        status = process.wait(timeout=HANG_GUARD_S)
        stdout, stderr = process.communicate()
    finally:
        process.kill()
        process.wait()
    assert status == EXIT_INTERRUPTED
    if "--json" in args:
        assert (stdout, stderr) == (INTERRUPTED_JSON, "")
    else:
        assert (stdout, stderr) == ("", INTERRUPTED_TEXT)


def _closed(redirections: str, argv: list[str]) -> subprocess.CompletedProcess[str]:
    """Run the CLI with the shell's redirections applied (``>&-`` closes stdout, ``2>&-`` stderr)."""
    script = f'exec "$0" "$@" {redirections}'
    return subprocess.run(
        ["sh", "-c", script, sys.executable, "-m", "prooftext", *argv],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        check=False,
    )


@pytest.mark.parametrize(
    "argv",
    [["depth", "hi"], ["pack", "separability_matrix", "--root", "{root}", "--json"], ["--help"]],
    ids=["text", "json", "help"],
)
def test_a_closed_stdout_is_one_coded_io_error_on_stderr_with_exit_status_4(
    sample_repo: Path, argv: list[str]
) -> None:
    done = _closed(">&-", [a.replace("{root}", str(sample_repo)) for a in argv])
    assert done.returncode == EXIT_IO
    assert done.stderr == BAD_DESCRIPTOR


@pytest.mark.parametrize(
    "redirections", [">&- 2>&-", "2>&- >/dev/full"], ids=["both-closed", "stderr-closed-stdout-full"]
)
def test_with_stderr_closed_too_an_unwritable_stdout_is_told_by_exit_status_4_alone(
    redirections: str,
) -> None:
    if "/dev/full" in redirections and not Path("/dev/full").exists():
        pytest.skip("/dev/full does not exist on this system")
    done = _closed(redirections, ["depth", "hi", "--json"])
    assert done.returncode == EXIT_IO
    assert done.stdout == ""


@pytest.mark.parametrize("as_json", [True, False], ids=["json", "text"])
def test_a_coded_error_a_task_group_wraps_is_reported_as_that_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], as_json: bool
) -> None:
    import prooftext

    def failing(*args: object, **kwargs: object) -> None:
        raise ExceptionGroup("task group", [EmptyQueryError("the query is empty", field="query")])

    monkeypatch.setattr(prooftext, "depth_report", failing)
    status = main(["depth", "hi", *(["--json"] if as_json else [])])
    out, err = capsys.readouterr()
    assert status == 1
    if as_json:
        assert json.loads(out)["error"]["code"] == "query_empty"
    else:
        assert err == "prooftext: error [query_empty]: the query is empty\n"


def _path_parameters() -> list[tuple[str, TyperPath]]:
    for name in command_modules():
        __import__(name)
    found: list[tuple[str, TyperPath]] = []

    def walk(command: object, prefix: str) -> None:
        found.extend((f"{prefix} {p.name}", p.type) for p in command.params if isinstance(p.type, TyperPath))  # type: ignore[attr-defined]
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, f"{prefix} {name}")

    walk(typer.main.get_command(app), "prooftext")
    return found


def test_every_path_parameter_leaves_reading_it_to_the_project() -> None:
    paths = _path_parameters()
    assert paths  # the walk found the roots, artifacts and outputs
    assert [name for name, kind in paths if kind.readable] == []


def test_a_root_the_access_check_calls_unreadable_is_not_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, sample_repo: Path
) -> None:
    real_access = os.access

    def denied(path: object, mode: int, **kwargs: object) -> bool:
        return not (mode & os.R_OK and Path(str(path)) == sample_repo) and real_access(path, mode, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "access", denied)
    status = main(["index", "--status", str(sample_repo), "--json"])
    assert status != EXIT_USAGE
    assert status == 0  # the root is in fact readable: only click's own check called it unreadable


@pytest.mark.parametrize(
    "argv",
    [["depth", "hi"], ["pack", "separability_matrix", "--root", "{root}", "--json"], ["--help"]],
    ids=["text", "json", "help"],
)
def test_a_pipe_whose_reader_has_gone_ends_the_command_quietly_with_status_141(
    sample_repo: Path, argv: list[str]
) -> None:
    """``prooftext --help | head -2``: nobody is left to read a message, so none is written (as git does)."""
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the command writes anything
    try:
        done = subprocess.run(
            [sys.executable, "-m", "prooftext", *[a.replace("{root}", str(sample_repo)) for a in argv]],
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=HANG_GUARD_S,
            check=False,
        )
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (EXIT_CLOSED_PIPE, "")


def test_dash_h_is_help_and_version_prints_the_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["-h"]) == 0 and "Usage: prooftext" in capsys.readouterr().out
    assert main(["index", "-h"]) == 0 and "Usage: prooftext index" in capsys.readouterr().out
    assert main(["--version"]) == 0 and capsys.readouterr().out == f"prooftext {prooftext.__version__}\n"


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
    done = _closed("<&-", [*argv, "--root", str(frobnicate_root), *(["--json"] if as_json else [])])
    assert "internal_error" not in done.stdout + done.stderr
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
