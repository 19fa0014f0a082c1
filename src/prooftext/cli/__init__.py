"""The ``prooftext`` command line: a thin adapter over the Python API.

Errors reach the terminal in exactly one place, :func:`main`: a :class:`ProoftextError` becomes one bounded
JSON error object on stdout (with ``--json``) or one line on stderr, and a non-zero exit status.
"""

from __future__ import annotations

import importlib
import sys

from prooftext.cli.common import app, run_app

# Each command group lives in its own module and registers itself on ``app`` when imported.
_COMMAND_MODULES: tuple[str, ...] = (
    "prooftext.cli.index",
    "prooftext.cli.pack",
    "prooftext.cli.conversation",
    "prooftext.cli.context",
    "prooftext.cli.serve",
    "prooftext.cli.eval",
)


def _register() -> None:
    for name in _COMMAND_MODULES:
        importlib.import_module(name)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``prooftext`` script; returns (and exits with) the process status."""
    _register()
    status = run_app(list(sys.argv[1:] if argv is None else argv))
    if argv is None:
        sys.exit(status)
    return status


__all__ = ["app", "main"]
