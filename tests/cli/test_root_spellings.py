"""Every command that takes a root takes it as ``--root`` too: the commands whose root is an argument (``index``,
``fsck``, ``context manifest``) accept the option the others take, give the same result with either spelling,
and refuse a root given twice."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gates import fixture
from prooftext.cli import main


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, object]:
    assert main(argv) == 0
    out: dict[str, object] = json.loads(capsys.readouterr().out)
    return out


def _without_timing(report: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in report.items() if k != "seconds"}


def test_index_takes_its_root_as_an_option_with_the_same_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one = fixture.write_repository(tmp_path / "one")
    two = fixture.write_repository(tmp_path / "two")
    by_argument = _json(capsys, ["index", str(one), "--json"])
    by_option = _json(capsys, ["index", "--root", str(two), "--json"])
    assert by_option["files_indexed"] == by_argument["files_indexed"] != 0
    assert _without_timing(by_option) == _without_timing(by_argument)
    assert (two / ".prooftext").is_dir()


def test_fsck_takes_its_root_as_an_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = fixture.write_repository(tmp_path / "repo")
    _json(capsys, ["index", "--root", str(root), "--json"])
    assert _json(capsys, ["fsck", "--root", str(root), "--json"]) == _json(
        capsys, ["fsck", str(root), "--json"]
    )


def test_a_manifest_is_the_same_whichever_way_its_root_is_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = fixture.write_repository(tmp_path / "repo")
    owner = fixture.write_owner(tmp_path / "owner")
    sources = [x for p in sorted(fixture.OWNER_FILES) for x in ("--owner-source", p)]
    common = ["--owner-root", str(owner), *sources, "--json"]
    argument = tmp_path / "argument.json"
    option = tmp_path / "option.json"
    _json(capsys, ["context", "manifest", str(root), "--output", str(argument), *common])
    _json(capsys, ["context", "manifest", "--root", str(root), "--output", str(option), *common])
    assert option.read_bytes() == argument.read_bytes()


@pytest.mark.parametrize(
    "command", [["index"], ["fsck"], ["context", "manifest", "--output", "{tmp}/m.json"]]
)
def test_a_root_given_both_ways_is_refused_with_its_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    root = fixture.write_repository(tmp_path / "repo")
    argv = [part.replace("{tmp}", str(tmp_path)) for part in command]
    assert main([*argv, str(root), "--root", str(root)]) == 1
    err = capsys.readouterr().err
    assert (
        err == "prooftext: error [invalid_request]: the root is given twice: give ROOT or --root, not both\n"
    )
    assert not (root / ".prooftext").exists()
