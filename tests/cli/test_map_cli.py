"""``prooftext map``: the map on stdout (a summary on stderr), or its artifact with --json, which verify checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prooftext.cli import main


def test_map_prints_the_map_and_a_summary(sample_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["map", "--root", str(sample_repo), "--max-tokens", "600"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("# Repository map") and "modeling/separable.py" in out
    assert err.startswith("map: ") and "o200k_base" in err


def test_a_saved_map_passes_verify_and_fails_once_its_source_changes(
    sample_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["map", "--root", str(sample_repo), "--max-tokens", "700", "--query", "compound model", "--json"]
    assert main([*args, "--path", "modeling", "--identifier", "CompoundModel"]) == 0
    saved = tmp_path / "map.json"
    saved.write_text(capsys.readouterr().out, encoding="utf-8")
    assert json.loads(saved.read_text())["settings"]["paths"] == ["modeling"]
    assert main(["verify", str(saved), "--root", str(sample_repo)]) == 0
    assert capsys.readouterr().out == "ok\n"
    (sample_repo / "modeling" / "core.py").write_text("x = 1\n", encoding="utf-8")
    assert main(["verify", str(saved), "--root", str(sample_repo)]) == 2


def test_a_budget_the_empty_map_exceeds_fails_with_its_code(
    sample_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["map", "--root", str(sample_repo), "--max-tokens", "5", "--json"]) != 0
    assert json.loads(capsys.readouterr().out)["error"]["code"] == "budget_exceeded"


def test_a_path_or_identifier_matching_nothing_is_said_on_stderr(
    sample_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["map", "--root", str(sample_repo), "--max-tokens", "600", "--path", "nowhere.py"]
    assert main(args) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[1:] == [
        "--path naming no indexed file or directory (ranked nothing): nowhere.py",
        "nothing given matched: the map is ranked by centrality alone",
    ]
    assert main([*args, "--identifier", "NoSuchName", "--identifier", "CompoundModel"]) == 0
    assert capsys.readouterr().err.splitlines()[1:] == [
        "--path naming no indexed file or directory (ranked nothing): nowhere.py",
        "--identifier naming no indexed symbol (ranked nothing): NoSuchName",
    ]


def test_with_json_too_what_matched_nothing_is_said_on_stderr_and_stdout_stays_json(
    sample_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["map", "--root", str(sample_repo), "--max-tokens", "600", "--path", "nowhere.py", "--json"]
    assert main(args) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["trace"]["unmatched_paths"] == ["nowhere.py"]
    assert captured.err.splitlines() == [
        "--path naming no indexed file or directory (ranked nothing): nowhere.py",
        "nothing given matched: the map is ranked by centrality alone",
    ]


def test_map_sign_signs_the_json_map_and_verify_key_checks_it(
    sample_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As ``pack --json --sign`` does: a map is an artifact ``verify --key`` checks, and the command line had
    no way to sign one."""
    key = tmp_path / "signing.key"
    assert main(["key", "init", "--key", str(key)]) == 0
    capsys.readouterr()
    args = ["map", "--root", str(sample_repo), "--max-tokens", "600", "--json", "--sign", "--key", str(key)]
    assert main(args) == 0
    saved = tmp_path / "map.json"
    saved.write_text(capsys.readouterr().out, encoding="utf-8")
    assert json.loads(saved.read_text())["signature"]["alg"] == "blake3-keyed"
    assert main(["verify", str(saved), "--root", str(sample_repo), "--key", str(key), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["signature"] == "valid"


def test_map_sign_without_json_is_refused_before_any_work(
    sample_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["map", "--root", str(sample_repo), "--sign", "--key", str(tmp_path / "none.key")]) == 1
    assert "add --json" in capsys.readouterr().err
    assert not (sample_repo / ".prooftext").exists()


def test_a_damaged_store_is_store_corrupt_not_an_internal_error(
    sample_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["index", str(sample_repo)]) == 0
    with (sample_repo / ".prooftext" / "index.sqlite").open("r+b") as handle:
        handle.seek(4096)
        handle.write(b"\xff" * 8192)
    capsys.readouterr()
    assert main(["map", "--root", str(sample_repo), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["error"]["code"] == "store_corrupt"
