"""An empty packet path (``verify ''``) or key path (``--key ''``: what a script whose ``$PACKET`` or ``$KEY``
is empty passes) is refused as empty, never read as the working directory ``.``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prooftext.cli import main


def test_an_empty_packet_path_is_refused_as_empty(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["verify", ""]) == 1
    assert (
        capsys.readouterr().err == "prooftext: error [not_found]: packet path is empty: give a packet file\n"
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["verify", "packet.json", "--key", ""],
        ["pack", "hello", "--sign", "--key", ""],
        ["adaptive-pack", "hello", "--sign", "--key", ""],
        ["key", "init", "--key", ""],
        ["serve", "--stdio", "--sign-key", ""],
    ],
)
def test_an_empty_key_path_is_refused_as_empty(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    (tmp_path / "packet.json").write_text("{}")
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 1
    err = capsys.readouterr().err
    option = argv[argv.index("") - 1]
    assert err == f"prooftext: error [signing_key_invalid]: {option} is empty: give a key file\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["packet.json"]


def test_an_empty_key_path_is_refused_in_json_naming_the_field_and_the_option(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["verify", "packet.json", "--key", "", "--json"]) == 1
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["code"] == "signing_key_invalid"
    assert (error["details"]["field"], error["details"]["option"]) == ("key", "--key")
