"""The ``prooftext`` command line: a thin adapter over the Python API.

Errors reach the terminal in exactly one place, :func:`main`: a :class:`ProoftextError` becomes one bounded
JSON error object on stdout (with ``--json``) or one line on stderr, and a non-zero exit status.

A call pays only for the module of the command it names; the top-level help imports none: it is rendered
from :data:`COMMANDS`, which a test keeps equal to what the modules register.
"""

from __future__ import annotations

import importlib
import sys

import typer

from prooftext.cli.common import app, new_app, run_app

COMMANDS: dict[str, tuple[str, str]] = {
    "index": (
        "prooftext.cli.index",
        "Index ROOT incrementally (unchanged files are skipped), or with --status report what changed.",
    ),
    "pack": (
        "prooftext.cli.pack",
        "Compile a packet for QUERY at a fixed budget (the index is refreshed first if stale).",
    ),
    "adaptive-pack": (
        "prooftext.cli.pack",
        "Compile adaptively: expand along the token/node ladder until the evidence estimator passes.",
    ),
    "verify": (
        "prooftext.cli.pack",
        "Re-check a saved packet; exit bitmask: 1 digest, content, nonce or label mismatch, 2 missing, "
        "stale or excluded source, 4 I/O, 8 unsigned, 16 forged or signed by another key (8 and 16 only with --key).",
    ),
    "map": (
        "prooftext.cli.map",
        "A ranked outline of the repository (files, classes, functions, sections) within an exact token "
        "budget; personalized by --query, --path or --identifier, by graph centrality without them.",
    ),
    "depth": (
        "prooftext.cli.conversation",
        "Classify a message as surface, standard or deep, and show its policy under smart mode.",
    ),
    "turn": (
        "prooftext.cli.conversation",
        "Plan one turn (and, without --dry-run, send it to the model and record it in the thread).",
    ),
    "chat": (
        "prooftext.cli.conversation",
        "Interactive terminal chat; history, threads and each thread's identity persist in ROOT/.prooftext/memory.sqlite.",
    ),
    "fsck": (
        "prooftext.cli.context",
        "Recompute stored artifacts, check the index and memory stores, re-hash sources; exit bitmask: "
        "1 damage, 2 missing or stale source, 4 I/O, 8 damaged memory store.",
    ),
    "serve": (
        "prooftext.cli.serve",
        "Serve JSON-RPC 2.0 for ROOT: context.adaptive, context.pack, index.status, memory.*, turn.plan, ...",
    ),
    "mcp": (
        "prooftext.cli.serve",
        "Serve ROOT to coding agents over MCP (stdio by default): context, search, map, read, who_uses, verify.",
    ),
    "key": ("prooftext.cli.pack", "The packet signing key."),
    "memory": (
        "prooftext.cli.conversation",
        "Typed memory: decisions, constraints, discoveries and failures.",
    ),
    "context": (
        "prooftext.cli.context",
        "Context artifacts: manifest → index → query → select → snapshot → compact, compare, quality.",
    ),
    "eval": ("prooftext.cli.eval", "Evaluate context compilation: SWE-bench, LoCoMo and depth tiers."),
}
"""Each top-level command, in the order the help lists it: the module that registers it, and its summary."""


def command_modules() -> tuple[str, ...]:
    """Every module that registers commands, each once, in the order of :data:`COMMANDS`."""
    return tuple(dict.fromkeys(module for module, _ in COMMANDS.values()))


def _not_loaded() -> None:
    """Stands for a command in the top-level help; never run, since naming a command loads its module."""


def summary_app() -> typer.Typer:
    """The top-level group with every command's name and summary, and no command module imported."""
    summary = new_app()
    for name, (_, text) in COMMANDS.items():
        summary.command(name, help=text)(_not_loaded)
    return summary


def _group_for(argv: list[str]) -> typer.Typer:
    """``app`` with the module of the command ``argv`` names; the summary when it names none (help, version,
    a usage error), which lists every command with its summary as the full group would."""
    first = next((a for a in argv if not a.startswith("-")), None)
    if first not in COMMANDS:
        return summary_app()
    importlib.import_module(COMMANDS[first][0])
    return app


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``prooftext`` script; returns (and exits with) the process status."""
    args = list(sys.argv[1:] if argv is None else argv)
    status = run_app(args, _group_for(args))
    if argv is None:
        sys.exit(status)
    return status


__all__ = ["COMMANDS", "app", "main"]
