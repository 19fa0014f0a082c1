"""The typer app and the one place where errors become CLI output."""

from __future__ import annotations

import json
import sys
from typing import Any

import click
import typer
from typer.exceptions import TyperException

from prooftext.errors import ProoftextError

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


def wants_json(argv: list[str]) -> bool:
    return "--json" in argv


def emit_json(obj: Any) -> None:
    """Print one JSON document on stdout (sorted keys, so output is deterministic)."""
    sys.stdout.write(json.dumps(obj, sort_keys=True, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def _report(error: dict[str, Any], as_json: bool) -> None:
    if as_json:
        emit_json({"error": error})
    else:
        sys.stderr.write(f"prooftext: error [{error['code']}]: {error['message']}\n")


def run_app(argv: list[str]) -> int:
    """Run the CLI; map every error to a stable code and exit status, never a traceback."""
    as_json = wants_json(argv)
    try:
        result = app(args=argv, prog_name="prooftext", standalone_mode=False)
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
    except Exception as exc:  # the last line of defence: a bug is reported by code, never as a traceback
        _report({"code": "internal_error", "message": f"internal error: {type(exc).__name__}"}, as_json)
        return EXIT_INTERNAL
    return int(result) if isinstance(result, int) else 0
