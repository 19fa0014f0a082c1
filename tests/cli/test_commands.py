"""The command table: a one-shot call imports only its own command's module, and the table says exactly
which module registers each top-level command."""

from __future__ import annotations

import importlib
import subprocess
import sys

from prooftext.cli import _COMMAND_MODULES, COMMANDS
from prooftext.cli.common import app


def _registered() -> dict[str, str]:
    for name in _COMMAND_MODULES:
        importlib.import_module(name)
    found = {str(c.name): c.callback.__module__ for c in app.registered_commands if c.callback is not None}
    for group in app.registered_groups:
        instance = group.typer_instance
        assert instance is not None
        found[str(group.name)] = next(
            c.callback.__module__ for c in instance.registered_commands if c.callback is not None
        )
    return found


def test_the_command_table_names_every_command_and_the_module_that_registers_it() -> None:
    assert _registered() == COMMANDS


def test_a_one_shot_command_does_not_load_the_plotting_stack() -> None:
    code = (
        "import sys\nfrom prooftext.cli import main\n"
        "main(['index', '--help'])\n"
        "assert 'matplotlib' not in sys.modules and 'prooftext.cli.eval' not in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "prooftext index" in done.stdout and "--status" in done.stdout


def test_help_without_a_command_lists_every_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "prooftext", "--help"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0
    for name in COMMANDS:
        assert name in done.stdout
