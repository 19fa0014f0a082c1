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


COMMANDS: dict[str, str] = {
    "index": "prooftext.cli.index",
    "pack": "prooftext.cli.pack",
    "adaptive-pack": "prooftext.cli.pack",
    "verify": "prooftext.cli.pack",
    "key": "prooftext.cli.pack",
    "memory": "prooftext.cli.conversation",
    "depth": "prooftext.cli.conversation",
    "turn": "prooftext.cli.conversation",
    "chat": "prooftext.cli.conversation",
    "context": "prooftext.cli.context",
    "fsck": "prooftext.cli.context",
    "serve": "prooftext.cli.serve",
    "mcp": "prooftext.cli.serve",
    "eval": "prooftext.cli.eval",
}
"""Which module registers each top-level command (a test keeps it equal to what the modules register)."""


def _register(argv: list[str] | None = None) -> None:
    """Import the module of the command ``argv`` names, or every module (for help and unknown names).

    A one-shot call then pays only for its own command's imports (the evaluation's plotting stack alone
    costs a second of start-up)."""
    first = next((a for a in argv or [] if not a.startswith("-")), None)
    names = (COMMANDS[first],) if first in COMMANDS else _COMMAND_MODULES
    for name in names:
        importlib.import_module(name)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``prooftext`` script; returns (and exits with) the process status."""
    args = list(sys.argv[1:] if argv is None else argv)
    _register(args)
    status = run_app(args)
    if argv is None:
        sys.exit(status)
    return status


__all__ = ["app", "main"]
