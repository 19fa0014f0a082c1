"""``prooftext key init`` run from the home directory: the default key path lies below it, and is kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prooftext.cli import main


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    status = main(list(argv))
    return status, capsys.readouterr().out


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.delenv("PROOFTEXT_KEY", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(folder / ".config"))
    monkeypatch.chdir(folder)
    return folder


def test_key_init_from_the_home_directory_writes_the_default_key(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A new terminal starts in the home directory, above the default key path: that used to be refused as
    a key "inside the root being indexed", though no root was named."""
    status, out = _run(capsys, "key", "init", "--json")
    assert status == 0
    assert json.loads(out)["path"] == str(home / ".config" / "prooftext" / "signing.key")


def test_a_key_named_in_the_working_directory_is_still_refused(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = _run(capsys, "key", "init", "--key", "signing.key", "--json")
    assert status == 1 and json.loads(out)["error"]["code"] == "signing_key_invalid"
    assert not (home / "signing.key").exists()


def test_a_default_key_inside_a_root_named_with_root_is_still_refused(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = _run(capsys, "key", "init", "--root", str(home), "--json")
    assert status == 1 and json.loads(out)["error"]["code"] == "signing_key_invalid"


def test_a_key_path_from_the_environment_in_the_working_directory_is_still_refused(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PROOFTEXT_KEY", "signing.key")
    status, out = _run(capsys, "key", "init", "--json")
    assert status == 1 and json.loads(out)["error"]["code"] == "signing_key_invalid"


def test_key_init_writes_a_control_character_of_its_path_in_visible_form(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The line that names the new key is printed as the notes on stderr are: a line feed or an escape in
    the path cannot forge a second line or drive the terminal."""
    keys = tmp_path / "keys"
    status, out = _run(capsys, "key", "init", "--key", str(keys / "a\nb\x1b[2J.key"))
    assert status == 0
    assert out.count("\n") == 1 and "\x1b" not in out
    assert out.endswith("a\u2424b\u241b[2J.key\n")


@pytest.mark.parametrize(("make", "code"), [(False, "root_missing"), (True, "root_not_directory")])
def test_a_root_that_is_no_directory_is_refused_before_the_key_is_written(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], make: bool, code: str
) -> None:
    """A mistyped --root would otherwise check the key against nothing, as every other command refuses it."""
    root = tmp_path / "proj"
    if make:
        root.write_text("a file\n")
    key = tmp_path / "keys" / "signing.key"
    status, out = _run(capsys, "key", "init", "--key", str(key), "--root", str(root), "--json")
    assert status == 1 and json.loads(out)["error"]["code"] == code
    assert not key.exists()
