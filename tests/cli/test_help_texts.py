"""Every option and argument of every command says in its help what it means (and its unit)."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from typing import Any

import pytest
import typer.main

from prooftext.cli import command_modules, main
from prooftext.cli.common import app


def _parameters() -> Iterator[tuple[str, Any]]:
    """(command path, parameter) for every parameter of every command in the app's command tree."""
    for name in command_modules():
        importlib.import_module(name)

    def walk(command: Any, path: str) -> Iterator[tuple[str, Any]]:
        for param in command.params:
            yield path, param
        for name, sub in sorted(getattr(command, "commands", {}).items()):
            yield from walk(sub, f"{path} {name}")

    yield from walk(typer.main.get_command(app), "prooftext")


def test_every_option_and_argument_of_every_command_has_a_help_text() -> None:
    found = list(_parameters())
    missing = [
        f"{path} {'/'.join(getattr(p, 'opts', [])) or p.name}"
        for path, p in found
        if "--help" not in getattr(p, "opts", []) and not (getattr(p, "help", None) or "").strip()
    ]
    assert missing == []
    assert {"prooftext adaptive-pack", "prooftext context query", "prooftext fsck"} <= {p for p, _ in found}


def test_every_basis_point_option_says_what_a_basis_point_is() -> None:
    bps = [(path, p) for path, p in _parameters() if any(o.endswith("-bps") for o in getattr(p, "opts", []))]
    assert {"--min-coverage-bps", "--strong-share-bps"} <= {o for _, p in bps for o in p.opts}
    assert all("basis points: 10000 = 100%" in p.help for _, p in bps)


def test_every_ceiling_of_the_packing_and_query_commands_names_its_unit() -> None:
    units = ("in tokens", "in bytes", "a count", "in edges")
    commands = {"prooftext pack", "prooftext adaptive-pack", "prooftext context query"}
    ceilings = [
        (path, p)
        for path, p in _parameters()
        if path in commands
        and any(o.startswith(("--min-", "--max-")) or o.endswith("-step") for o in getattr(p, "opts", []))
        and not any(o.endswith("-bps") for o in p.opts)
    ]
    assert len(ceilings) >= 10
    assert [f"{path} {p.opts[0]}" for path, p in ceilings if not any(u in p.help for u in units)] == []


def test_adaptive_pack_help_shows_the_ladder_options_with_their_meaning(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = main(["adaptive-pack", "--help"])
    out = capsys.readouterr().out
    assert status == 0
    assert "basis points" in out and "first rung" in out


def _help(path: str, flag: str) -> str:
    return next(p.help for where, p in _parameters() if where == path and flag in getattr(p, "opts", ()))


def test_the_json_option_of_verify_and_key_init_says_what_it_prints() -> None:
    assert "verification report" in _help("prooftext verify", "--json")
    assert "key id and path" in _help("prooftext key init", "--json")
    assert "artifact" not in _help("prooftext verify", "--json") + _help("prooftext key init", "--json")


def test_verify_help_counts_an_excluded_source_in_bit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.replace("│", " ").split())
    assert "2 missing, stale or excluded source" in out


def test_the_verify_argument_says_it_takes_a_saved_map_too() -> None:
    packet = next(p for where, p in _parameters() if where == "prooftext verify" and p.name == "packet")
    assert "map --json" in packet.help
