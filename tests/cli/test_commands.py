"""The command table: a one-shot call imports only its own command's module, the table says exactly which
module registers each top-level command, and the top-level help, rendered from the table with no command
module imported, is the one the full command group renders."""

from __future__ import annotations

import importlib
import subprocess
import sys

import typer
import typer.main
from typer.testing import CliRunner

from prooftext.cli import COMMANDS, command_modules, summary_app
from prooftext.cli.common import app


def _registered() -> dict[str, str]:
    for name in command_modules():
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
    assert _registered() == {name: module for name, (module, _) in COMMANDS.items()}


def _summaries(group: typer.Typer) -> dict[str, str]:
    commands = typer.main.get_command(group).commands  # type: ignore[attr-defined]  # a group's commands
    return {name: commands[name].get_short_help_str(limit=1000) for name in commands}


def test_the_top_level_help_from_the_table_is_the_full_groups_help() -> None:
    for name in command_modules():
        importlib.import_module(name)
    summaries = _summaries(summary_app())
    assert summaries == _summaries(app)
    assert list(summaries) == list(COMMANDS)
    shown = CliRunner().invoke(summary_app(), ["--help"], prog_name="prooftext", terminal_width=100)
    assert shown.exit_code == 0 and "Evaluate context compilation" in shown.output


def test_the_top_level_help_imports_no_command_module() -> None:
    code = (
        "import sys\nfrom prooftext.cli import main\n"
        "assert main(['--help']) == 0\n"
        "assert not [m for m in sys.modules if m.startswith('prooftext.cli.') and m != 'prooftext.cli.common']\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "Commands" in done.stdout and "eval" in done.stdout


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
