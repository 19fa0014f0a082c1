"""An empty root (``--root ''``, ``index ''``: what a script whose ``$ROOT`` is empty passes) is refused as
``root_invalid`` by every command that takes a root, never read as the working directory."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import pytest
import typer.main

from prooftext.cli import COMMANDS, main
from prooftext.cli.common import app
from prooftext.errors import RootError

EXPECTED = "prooftext: error [root_invalid]: root is empty: give a directory (. for the working directory)\n"


@pytest.mark.parametrize(
    "argv",
    [
        ["index", ""],
        ["index", "--root", ""],
        ["index", "--root="],
        ["index", "", "--status"],
        ["fsck", ""],
        ["fsck", "--root", ""],
        ["pack", "hello", "--root", ""],
        ["adaptive-pack", "hello", "--root", ""],
        ["map", "--root", ""],
        ["memory", "list", "--root", ""],
        ["turn", "hello", "--root", "", "--dry-run"],
        ["serve", "--root", ""],
        ["mcp", "--root", ""],
        ["context", "manifest", "", "--output", "m.json"],
        ["context", "manifest", "--root", "", "--output", "m.json"],
    ],
)
def test_an_empty_root_is_refused_with_its_code_and_the_working_directory_is_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    (tmp_path / "app.py").write_text("def hello():\n    return 1\n")
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 1
    assert capsys.readouterr().err == EXPECTED
    assert sorted(p.name for p in tmp_path.iterdir()) == ["app.py"]


def test_an_empty_root_is_refused_in_json_naming_the_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["pack", "hello", "--root", "", "--json"]) == 1
    assert '"code": "root_invalid"' in capsys.readouterr().out


def _root_parameters(command: Any, name: str) -> list[tuple[str, Any]]:
    found = [(name, p) for p in command.params if p.name == "root" or "--root" in getattr(p, "opts", ())]
    for sub_name, sub in getattr(command, "commands", {}).items():
        found.extend(_root_parameters(sub, f"{name} {sub_name}"))
    return found


def test_every_root_parameter_refuses_an_empty_root() -> None:
    for module, _ in COMMANDS.values():
        importlib.import_module(module)
    found = _root_parameters(typer.main.get_command(app), "prooftext")
    assert len(found) > 15
    assert [name for name, param in found if not _refuses_empty(param)] == []


def _refuses_empty(param: Any) -> bool:
    try:
        param.type.convert("", param, None)
    except RootError as exc:
        return "root is empty" in str(exc)
    return False


@pytest.mark.parametrize("roots", [["--repository-root", ""], ["--repository-root", ".", "--owner-root", ""]])
def test_an_empty_repository_or_owner_root_of_a_context_command_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], roots: list[str]
) -> None:
    (tmp_path / "manifest.json").write_text("{}")
    monkeypatch.chdir(tmp_path)
    assert main(["context", "index", "manifest.json", *roots, "--output", "g.json"]) == 1
    assert "[root_invalid]: root is empty" in capsys.readouterr().err
    assert not (tmp_path / "g.json").exists()


@pytest.mark.parametrize("root", ["", b""])
def test_the_python_api_refuses_an_empty_root_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, root: Any
) -> None:
    import prooftext

    monkeypatch.chdir(tmp_path)
    with pytest.raises(RootError) as caught:
        prooftext.open(root)
    assert caught.value.code == "root_invalid"
    assert list(tmp_path.iterdir()) == []
