"""What the command line writes on stderr quotes the user's and the data's text as a terminal shows it: a
control character (an escape sequence, a carriage return, a line break in one error line) is written in its
visible form, as packets print it, so a quoted name can neither drive the terminal nor forge another line."""

from __future__ import annotations

from pathlib import Path

import pytest

from prooftext.cli import main

ESC = "\x1b"


def _root(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "login.py").write_text("def login(token):\n    return token\n")
    return root


def test_an_error_line_shows_an_escape_sequence_it_quotes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _root(tmp_path)
    assert main(["pack", "login", "--root", str(root), "--require", f"x{ESC}[2J.py"]) != 0
    err = capsys.readouterr().err
    assert ESC not in err
    assert "x\u241b[2J.py" in err
    assert err.count("\n") == 1


def test_an_error_line_stays_one_line_when_its_quote_holds_a_line_break(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _root(tmp_path)
    assert main(["pack", "login", "--root", str(root), "--require", "a\nprooftext: ok\r.py"]) != 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "\r" not in err
    assert err.startswith("prooftext: error [") and "a\u2424prooftext: ok\u240d.py" in err


@pytest.mark.parametrize("command", ["pack", "map"])
def test_a_note_naming_what_matched_nothing_shows_its_control_characters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    root = _root(tmp_path)
    option = "--seed" if command == "pack" else "--path"
    argv = [command, "login", "--root", str(root), option, f"x{ESC}]0;title\a.py"]
    if command == "map":
        argv[1:2] = ["--query", "login"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert ESC not in err and "\a" not in err
    assert "x\u241b]0;title\u2407.py" in err
