"""The typer app and the one place where errors become CLI output."""

from __future__ import annotations

import contextlib
import errno
import io
import json
import os
import re
import select
import signal
import sys
from pathlib import Path
from typing import Annotated, Any

import click
import typer
import typer.main
from typer.exceptions import TyperException

import prooftext
from prooftext.errors import (
    NotFoundError,
    OutputUnwritableError,
    ProoftextError,
    RequestError,
    RootError,
    SigningKeyError,
    bounded,
)


def _print_version(value: bool) -> None:
    if value:
        write_out(f"{PROG_NAME} {prooftext.__version__}\n")
        raise typer.Exit()


def new_app() -> typer.Typer:
    """The top-level command group, with no commands yet: ``app`` below, and the summary that renders the
    top-level help without importing any command's module."""
    group = typer.Typer(
        name=PROG_NAME,
        help=APP_HELP,
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        context_settings={"help_option_names": ["-h", "--help"]},
    )

    @group.callback()
    def _group(
        version: Annotated[
            bool,
            typer.Option(
                "--version", help="Print the version and exit.", callback=_print_version, is_eager=True
            ),
        ] = False,
    ) -> None:
        # A callback keeps ``prooftext`` a command group even when only one command's module is loaded.
        pass

    return group


PROG_NAME = "prooftext"
EXIT_ERROR = 1
EXIT_USAGE = 64
EXIT_INTERNAL = 70
EXIT_INTERRUPTED = 130
"""128 + SIGINT, as a shell reports a process that Ctrl-C ended."""
EXIT_PARTIAL = 3
"""The command finished, but part of its input could not be read: ``index`` (files, listed as
``unreadable``) and ``memory export`` (rows on damaged pages); or ``chat`` went on past messages that got no
reply."""
EXIT_IO = 4
"""Standard output could not be written: the I/O bit of the exit status of ``verify`` and ``fsck``."""
EXIT_CLOSED_PIPE = 128 + signal.SIGPIPE
"""The reader of standard output went away (``prooftext --help | head -2``): ended quietly with the status
a shell reports for SIGPIPE, as git and grep do; nobody is left to read a message. A server (``serve``,
``mcp``) whose client closed the pipe still says so on stderr, where its operator's log reads it."""
CLI_CODES: dict[str, int] = {
    "usage": EXIT_USAGE,
    "aborted": EXIT_ERROR,
    "interrupted": EXIT_INTERRUPTED,
    "internal_error": EXIT_INTERNAL,
}
"""The codes the command line reports of its own (no class of the error tree has them), with their exit
statuses: a malformed command line, an aborted prompt, Ctrl-C, and a bug."""
SERVER_COMMANDS = frozenset({"serve", "mcp"})
APP_HELP = "Compile just enough, provably genuine context for LLM applications."

app = new_app()
"""The command line: each command's module registers its commands here when imported."""


OUTPUT_ERRNOS = frozenset({errno.EPIPE, errno.ENOSPC, errno.EIO, errno.EFBIG, errno.EDQUOT, errno.EBADF})
"""Errors of a device that cannot take more output (a closed pipe or descriptor, a full disk, a failing
device)."""
STDIN_FD = 0
STDOUT_FD = 1
STDERR_FD = 2


class _StdoutFailed(Exception):
    """Writing standard output failed (a full disk, a closed pipe): told apart from other ``OSError``s."""

    def __init__(self, cause: OSError) -> None:
        super().__init__(cause)
        self.cause = cause


class _ClosedStdout(io.TextIOBase):
    """Stands for a standard output whose descriptor was closed when the process started (Python then sets
    ``sys.stdout`` to None): every write fails as on a closed descriptor, so it is reported like any other
    output that cannot be written."""

    encoding = "utf-8"

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))

    def flush(self) -> None:
        pass  # nothing is ever buffered, so nothing is lost (the interpreter flushes once more at exit)


class _ClosedStderr(io.TextIOBase):
    """Stands for a closed standard error: diagnostics have nowhere to go, and a command's own output on
    stdout is still valid, so they are dropped."""

    encoding = "utf-8"

    def write(self, text: str) -> int:
        return len(text)


def _hold_closed_descriptor(fd: int) -> None:
    """Open the null device on ``fd`` when it is closed: otherwise the next file opened (the index store)
    would take it, and a child process would inherit that file as its stdout or stderr."""
    try:
        os.fstat(fd)
    except OSError:
        null = os.open(os.devnull, os.O_RDWR)
        if null != fd:  # a lower descriptor was closed too and took the null device first
            os.dup2(null, fd)
            os.close(null)


def _stand_in_for_closed_streams() -> None:
    if sys.stdin is None:  # a closed stdin reads as an empty one: the servers and ``chat`` end at once
        _hold_closed_descriptor(STDIN_FD)
        sys.stdin = open(STDIN_FD, encoding="utf-8", closefd=False)  # noqa: SIM115 - kept for the process
    if sys.stdout is None:
        _hold_closed_descriptor(STDOUT_FD)
        sys.stdout = _ClosedStdout()
    if sys.stderr is None:
        _hold_closed_descriptor(STDERR_FD)
        sys.stderr = _ClosedStderr()


def wants_json(argv: list[str]) -> bool:
    return "--json" in argv


def write_out(text: str = "") -> None:
    """Write ``text`` on stdout and flush it now; a failure is reported as an I/O error by :func:`run_app`."""
    try:
        if text:  # an unbuffered stdout passes even an empty write to the device, which a full one refuses
            _write_all(sys.stdout, text)
        sys.stdout.flush()
    except OSError as exc:
        raise _StdoutFailed(exc) from None


def _write_all(out: Any, text: str) -> None:
    """Every byte of ``text`` on ``out``. An unbuffered stdout (``PYTHONUNBUFFERED``, ``python -u``) hands
    the text layer's write to the descriptor once and drops what a pipe did not take; the bytes go down here
    until all are taken (a gone reader then fails the next write), waiting while a non-blocking pipe is
    full."""
    binary = getattr(out, "buffer", None)
    if binary is None:  # a text-only stream (an embedding's replacement) keeps its own write
        out.write(text)
        return
    out.flush()
    # UTF-8 whatever the locale says: a packet's digest and counts are of its UTF-8 bytes, and another
    # encoding would fail on the first character it cannot hold.
    data = memoryview(text.encode("utf-8", out.errors or "strict"))
    while data:
        try:
            written = binary.write(data)
        except BlockingIOError as exc:
            written = exc.characters_written
        if not written:
            select.select([], [out.fileno()], [])
        data = data[written or 0 :]
    binary.flush()


def echo(message: str = "", *, nl: bool = True, err: bool = False) -> None:
    """A line of a command's text output (``err``: on stderr); a failing stdout is reported once, as an I/O
    error, by :func:`run_app`."""
    if err:
        typer.echo(prooftext.visible_text(message), nl=nl, err=True)
    else:
        write_out(message + "\n" if nl else message)


def shown(text: str) -> str:
    """``text`` as one line that a terminal shows as written: control, bidirectional and invisible characters
    in their visible form, as packets print them, and a line break as ``␤``, so that a quoted name can
    neither drive the terminal nor forge another line."""
    visible: str = prooftext.visible_text(text.replace("\r\n", "\n"))
    return visible.replace("\n", "\u2424")


def counted(count: int, noun: str) -> str:
    """``1 excerpt``, ``2 excerpts``: a count with its noun in the number it takes."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def note(text: str) -> None:
    """One line on stderr, written as :func:`shown` gives it."""
    sys.stderr.write(shown(text) + "\n")


def emit_json(obj: Any) -> None:
    """Print one JSON document on stdout (sorted keys, so output is deterministic). A NaN or infinity is a
    failure before anything is printed: JSON has no such numbers, and a reader would refuse the line."""
    write_out(json.dumps(obj, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n")


def _report(error: dict[str, Any], as_json: bool) -> None:
    if as_json:
        emit_json({"error": error})
    else:
        note(f"prooftext: error [{error['code']}]: {error['message']}")


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


def _stdout_failed(exc: _StdoutFailed, *, quiet_pipe: bool) -> int:
    _silence_stdout()
    if quiet_pipe and exc.cause.errno == errno.EPIPE:
        return EXIT_CLOSED_PIPE
    reason = exc.cause.strerror or type(exc.cause).__name__
    error = OutputUnwritableError(f"cannot write to standard output: {reason}")
    # On stderr even with --json, since stdout is what failed; when stderr is gone too, the exit status is
    # all that is left to tell.
    with contextlib.suppress(OSError):
        _report(error.to_dict(), as_json=False)
    return EXIT_IO


def run_app(argv: list[str], group: typer.Typer | None = None) -> int:
    """Run the CLI (``group``, by default ``app``); map every error to a stable code and exit status, never a
    traceback."""
    _stand_in_for_closed_streams()
    as_json = wants_json(argv)
    try:
        status = _run(argv, as_json, group or app)
        write_out()  # what a command left buffered fails here, not in the interpreter's flush at exit
    except _StdoutFailed as exc:  # also raised while reporting another error as JSON
        return _stdout_failed(exc, quiet_pipe=not SERVER_COMMANDS.intersection(argv[:1]))
    return status


def _invoke(argv: list[str], group: typer.Typer) -> Any:
    """Run the command ``argv`` names, and let whatever it raises reach :func:`_run`.

    Not through typer's ``main``: it turns Ctrl-C into a bare status 130 and a closed pipe into
    ``sys.exit(1)``, so neither could be reported by code."""
    command = typer.main.get_command(group)
    with command.make_context(PROG_NAME, list(argv)) as ctx:
        return command.invoke(ctx)


def _run(argv: list[str], as_json: bool, group: typer.Typer) -> int:
    try:
        result = _invoke(argv, group)
    except (Exception, KeyboardInterrupt, BaseExceptionGroup, SystemExit) as exc:
        return _failure(_leaf(exc), as_json, _long_options(argv, group))
    return int(result) if isinstance(result, int) else 0


def _failure(exc: BaseException, as_json: bool, options: frozenset[str] = frozenset()) -> int:
    """Report what a command raised, once, and give its exit status; a failed stdout goes to :func:`run_app`.
    ``options`` are the long options of the command, by which a request's field is named."""
    output = _output_error(exc)
    if output is not None:
        raise _StdoutFailed(output) from None
    if isinstance(exc, SystemExit):  # a deliberate exit, not a failure
        raise exc
    error, status = _classify(exc)
    if error is not None:
        _report(_name_option(error, options, as_json), as_json)
    return status


FIELD_OPTIONS: dict[str, tuple[str, ...]] = {
    "path_seeds": ("--seed",),
    "paths": ("--path",),
    "identifiers": ("--identifier",),
    "required": ("--require", "--required"),
    "attachments": ("--attach",),
    "active_files": ("--active-file", "--active-files"),
    "key": ("--key", "--sign-key"),
    "max_workers": ("--workers",),
}
"""A request field whose option is not its own name spelled with dashes (``max_tokens`` is ``--max-tokens``),
with every spelling a command may give it; the first the command has names it."""


def _long_options(argv: list[str], group: typer.Typer) -> frozenset[str]:
    """The long options of the command ``argv`` names (of the deepest group it reaches, when it names none)."""
    command: Any = typer.main.get_command(group)
    for word in argv:
        sub = getattr(command, "commands", {}).get(word)
        if sub is None:
            break
        command = sub
    return frozenset(o for p in command.params for o in getattr(p, "opts", ()) if o.startswith("--"))


def _name_option(error: dict[str, Any], options: frozenset[str], as_json: bool) -> dict[str, Any]:
    """``error`` naming the option the user typed for its ``field``, when the command has one: the
    message says the option instead of the field (or before it), and with ``--json`` the details add it as
    ``option`` (``field`` stays the request's own name, as every interface reports it)."""
    details = error.get("details") or {}
    field = details.get("field")
    if not isinstance(field, str) or "input" in details:  # a field of an input file: no option names it
        return error
    option = _option_of(field, options)
    if option is None:
        return error
    if as_json:
        return {**error, "details": {**details, "option": option}}
    message = _FIELD_WORD.sub(lambda m: _option_of(m[0], options) or m[0], str(error["message"]))
    if option in message:
        return {**error, "message": message}
    if message.startswith(field + " "):
        message = option + message.removeprefix(field)
    else:
        message = f"{option}: {message}"
    return {**error, "message": message}


_FIELD_WORD = re.compile(r"(?<![\w/'\"`-])(?<!\w\.)[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w/'\"`-]|\.\w)")
"""A field name a message mentions besides its own (``max_nodes``): a word with an underscore, not part of
a path, a file name or a quoted value."""


def _option_of(field: str, options: frozenset[str]) -> str | None:
    """The option of this command that gives ``field``, if any."""
    spellings = FIELD_OPTIONS.get(field, ("--" + field.replace("_", "-"),))
    return next((o for o in spellings if o in options), None)


def _leaf(exc: BaseException) -> BaseException:
    """The one failure an exception group stands for, when it stands for one: a task group (the MCP
    server's, the stdio server's) wraps what failed in its tasks, often with the same failure of others."""
    if not isinstance(exc, BaseExceptionGroup):
        return exc
    leaves = _leaves(exc)
    if all(_output_error(leaf) is not None for leaf in leaves):
        return leaves[0]
    interrupted = [leaf for leaf in leaves if isinstance(leaf, KeyboardInterrupt)]
    coded = [leaf for leaf in leaves if isinstance(leaf, ProoftextError)]
    if interrupted:  # Ctrl-C cancels the other tasks, whose errors say nothing more
        return interrupted[0]
    if len(coded) == 1:
        return coded[0]
    return leaves[0] if len(leaves) == 1 else exc


def _leaves(group: BaseExceptionGroup[BaseException]) -> list[BaseException]:
    out: list[BaseException] = []
    for exc in group.exceptions:
        out.extend(_leaves(exc) if isinstance(exc, BaseExceptionGroup) else [exc])
    return out


def _output_error(exc: BaseException) -> OSError | None:
    """``exc`` when it is an output device's error (the CLI's own writes are wrapped in :class:`_StdoutFailed`).

    Help and usage text are written by the CLI framework, and the servers write their own responses: a
    failing stdout surfaces from them as a bare OSError. The core raises no bare OSError (its I/O errors
    are coded), so an output device's errors here are the output's."""
    if isinstance(exc, _StdoutFailed):
        return exc.cause
    if isinstance(exc, SystemExit) and isinstance(exc.__context__, OSError):
        return _output_error(exc.__context__)  # rich's help answers a closed pipe with ``SystemExit(1)``
    return exc if isinstance(exc, OSError) and exc.errno in OUTPUT_ERRNOS else None


def _classify(exc: BaseException) -> tuple[dict[str, Any] | None, int]:
    """The error object to report (None when nothing is to be said) and the exit status, for what a
    command raised."""
    if isinstance(exc, click.exceptions.Exit | typer.Exit):
        return None, int(exc.exit_code)
    if isinstance(exc, ProoftextError):
        return exc.to_dict(), getattr(exc, "exit_status", EXIT_ERROR)
    if isinstance(exc, click.ClickException | TyperException):
        return _usage(exc)
    if isinstance(exc, click.exceptions.Abort | typer.Abort | EOFError):  # EOFError: as typer's main had it
        return _cli_error("aborted", "aborted")
    if isinstance(exc, KeyboardInterrupt):
        return _cli_error("interrupted", "interrupted")
    # The last line of defence: a bug is reported by code, never as a traceback.
    return _cli_error("internal_error", f"internal error: {type(exc).__name__}")


def _cli_error(code: str, message: str) -> tuple[dict[str, Any], int]:
    return {"code": code, "message": bounded(message)}, CLI_CODES[code]


EXTRA_ARGUMENT = "unexpected extra argument"
"""Words of the command-line framework's error for an argument a command does not take."""


def _usage(exc: click.ClickException | TyperException) -> tuple[dict[str, Any] | None, int]:
    # typer >= 0.29 bundles its own click; its usage errors derive from TyperException.
    format_message = getattr(exc, "format_message", None)
    message = str(format_message() if callable(format_message) else exc)
    if not message:  # bare ``prooftext``: the help was printed, nothing failed
        return None, 0
    return _cli_error("usage", message + _root_hint(exc, message))


def _root_hint(exc: click.ClickException | TyperException, message: str) -> str:
    """For a command that takes its root only as ``--root``: a word on it when an extra argument was given
    (``map .``, as ``index .`` takes it)."""
    params = getattr(getattr(getattr(exc, "ctx", None), "command", None), "params", ())
    option = any("--root" in getattr(p, "opts", ()) for p in params)
    argument = any(getattr(p, "param_type_name", "") == "argument" and p.name == "root" for p in params)
    return (
        " (a root directory is given as --root DIR)"
        if option and not argument and EXTRA_ARGUMENT in message
        else ""
    )


def root_path(value: str | Path) -> Path:
    """A root as the command line gives it (ROOT, ``--root``, ``--repository-root``, ``--owner-root``). An empty one is refused: a path reads ``''``
    as ``.``, so a script whose ``$ROOT`` is empty would otherwise work on its working directory."""
    if isinstance(value, str) and not value:
        raise RootError("root is empty: give a directory (. for the working directory)", root="")
    return Path(value)


root_path.__name__ = "path"  # the help shows ``<path>``, as for every other path


def packet_path(value: str | Path) -> Path:
    """A packet file as ``verify`` takes it: an empty path names no file (a path reads ``''`` as ``.``)."""
    if isinstance(value, str) and not value:
        raise NotFoundError("packet path is empty: give a packet file", field="packet")
    return Path(value)


def key_path(value: str | Path) -> Path:
    """A signing key file (``--key``, ``--sign-key``): an empty path is refused, not read as ``.``."""
    if isinstance(value, str) and not value:
        raise SigningKeyError("key is empty: give a key file", field="key")
    return Path(value)


packet_path.__name__ = key_path.__name__ = "path"


def root_option(help_text: str) -> Any:
    """The ``--root`` option of a command, with ``help_text``: an empty root is ``root_invalid``."""
    return typer.Option("--root", help=help_text, parser=root_path)


def root_argument(help_text: str) -> Any:
    """The ROOT argument of a command, with ``help_text``: an empty root is ``root_invalid``."""
    return typer.Argument(help=help_text, parser=root_path)


RootOpt = Annotated[Path | None, root_option("The same as ROOT, spelled as the other commands take it.")]
"""``--root`` beside a command's ROOT argument (``index``, ``fsck``, ``context manifest``), so that both spellings
work everywhere (see :func:`one_root`)."""


def one_root(argument: Path | None, option: Path | None) -> Path:
    """The root given as ROOT or as ``--root``; the working directory when neither is given."""
    if argument is not None and option is not None:
        raise RequestError("the root is given twice: give ROOT or --root, not both", field="root")
    return argument or option or Path(".")
