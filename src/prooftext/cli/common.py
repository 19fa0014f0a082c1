"""The typer app and the one place where errors become CLI output."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import sys
from typing import Any

import click
import typer
from typer.exceptions import TyperException

from prooftext.errors import OutputUnwritableError, ProoftextError

app = typer.Typer(
    name="prooftext",
    help="Compile just enough, provably genuine context for LLM applications.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _group() -> None:
    """Compile just enough, provably genuine context for LLM applications."""
    # A callback keeps ``prooftext`` a command group even when only one command's module is loaded.


EXIT_ERROR = 1
EXIT_USAGE = 64
EXIT_INTERNAL = 70
EXIT_IO = 4
"""Standard output could not be written: the I/O bit of the exit status of ``verify`` and ``fsck``."""


OUTPUT_ERRNOS = frozenset({errno.EPIPE, errno.ENOSPC, errno.EIO, errno.EFBIG, errno.EDQUOT})
"""Errors of a device that cannot take more output (a closed pipe, a full disk, a failing device)."""


class _StdoutFailed(Exception):
    """Writing standard output failed (a full disk, a closed pipe): told apart from other ``OSError``s."""

    def __init__(self, cause: OSError) -> None:
        super().__init__(cause)
        self.cause = cause


def wants_json(argv: list[str]) -> bool:
    return "--json" in argv


def write_out(text: str = "") -> None:
    """Write ``text`` on stdout and flush it now; a failure is reported as an I/O error by :func:`run_app`."""
    try:
        if text:  # an unbuffered stdout passes even an empty write to the device, which a full one refuses
            sys.stdout.write(text)
        sys.stdout.flush()
    except OSError as exc:
        raise _StdoutFailed(exc) from None


def echo(message: str = "", *, nl: bool = True, err: bool = False) -> None:
    """A line of a command's text output (``err``: on stderr); a failing stdout is reported once, as an I/O
    error, by :func:`run_app`."""
    if err:
        typer.echo(message, nl=nl, err=True)
    else:
        write_out(message + "\n" if nl else message)


def emit_json(obj: Any) -> None:
    """Print one JSON document on stdout (sorted keys, so output is deterministic). A NaN or infinity is a
    failure before anything is printed: JSON has no such numbers, and a reader would refuse the line."""
    write_out(json.dumps(obj, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n")


def _report(error: dict[str, Any], as_json: bool) -> None:
    if as_json:
        emit_json({"error": error})
    else:
        sys.stderr.write(f"prooftext: error [{error['code']}]: {error['message']}\n")


def _silence_stdout() -> None:
    """Point the failed stdout at the null device: the interpreter flushes stdout once more at exit, and
    that flush would otherwise fail again and print a traceback."""
    try:
        fd = sys.stdout.fileno()
    except (OSError, ValueError):  # not backed by a file descriptor (an in-process capture): nothing to flush
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, fd)
    finally:
        os.close(null)


def _stdout_failed(exc: _StdoutFailed) -> int:
    _silence_stdout()
    reason = exc.cause.strerror or type(exc.cause).__name__
    error = OutputUnwritableError(f"cannot write to standard output: {reason}")
    # On stderr even with --json, since stdout is what failed; when stderr is gone too, the exit status is
    # all that is left to tell.
    with contextlib.suppress(OSError):
        _report(error.to_dict(), as_json=False)
    return EXIT_IO


def run_app(argv: list[str]) -> int:
    """Run the CLI; map every error to a stable code and exit status, never a traceback."""
    as_json = wants_json(argv)
    try:
        status = _run(argv, as_json)
        write_out()  # what a command left buffered fails here, not in the interpreter's flush at exit
    except _StdoutFailed as exc:  # also raised while reporting another error as JSON
        return _stdout_failed(exc)
    return status


def _run(argv: list[str], as_json: bool) -> int:
    try:
        result = app(args=argv, prog_name="prooftext", standalone_mode=False)
    except _StdoutFailed:
        raise
    except ProoftextError as exc:
        _report(exc.to_dict(), as_json)
        return getattr(exc, "exit_status", EXIT_ERROR)
    except (click.exceptions.Exit, typer.Exit) as exc:
        return int(exc.exit_code)
    except (click.ClickException, TyperException) as exc:
        # typer >= 0.29 bundles its own click; its usage errors derive from TyperException.
        format_message = getattr(exc, "format_message", None)
        message = format_message() if callable(format_message) else str(exc)
        if not message:  # bare ``prooftext``: the help was printed, nothing failed
            return 0
        _report({"code": "usage", "message": str(message)}, as_json)
        return EXIT_USAGE
    except (click.exceptions.Abort, typer.Abort):
        _report({"code": "aborted", "message": "aborted"}, as_json)
        return EXIT_ERROR
    except KeyboardInterrupt:
        _report({"code": "interrupted", "message": "interrupted"}, as_json)
        return 130
    except OSError as exc:
        # Help and usage text are written by the CLI framework, not through write_out: a failing stdout
        # surfaces here as a bare OSError. The core raises no bare OSError (its I/O errors are coded), so
        # an output device's errors here are the output's.
        if exc.errno in OUTPUT_ERRNOS:
            raise _StdoutFailed(exc) from None
        _report({"code": "internal_error", "message": f"internal error: {type(exc).__name__}"}, as_json)
        return EXIT_INTERNAL
    except Exception as exc:  # the last line of defence: a bug is reported by code, never as a traceback
        _report({"code": "internal_error", "message": f"internal error: {type(exc).__name__}"}, as_json)
        return EXIT_INTERNAL
    return int(result) if isinstance(result, int) else 0
