"""The signing round trip on the command line: ``key init`` makes a key, ``pack --sign --json`` signs the
packet with it, ``verify --key`` reports it signed by that key, and an edit or a missing signature shows
in the exit status."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from prooftext.cli import main
from prooftext.pack.verify import BIT_FORGED, BIT_UNSIGNED

QUERY = "separability_matrix of a compound model"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    status = main(list(argv))
    return status, capsys.readouterr().out


def test_key_init_pack_sign_and_verify_key_round_trip(
    sample_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = tmp_path / "conf" / "signing.key"
    status, out = _run(capsys, "key", "init", "--key", str(key), "--json")
    assert status == 0 and json.loads(out)["path"] == str(key)
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    status, out = _run(
        capsys, "pack", QUERY, "--root", str(sample_repo), "--json", "--sign", "--key", str(key)
    )
    assert status == 0 and json.loads(out)["signature"]["alg"] == "blake3-keyed"
    saved = tmp_path / "packet.json"
    saved.write_text(out, encoding="utf-8")
    verify = ("verify", str(saved), "--root", str(sample_repo), "--key", str(key), "--json")
    status, out = _run(capsys, *verify)
    assert status == 0 and json.loads(out)["signature"] == "valid"

    edited = json.loads(saved.read_text(encoding="utf-8"))
    edited["omitted"] += 1
    saved.write_text(json.dumps(edited), encoding="utf-8")
    assert _run(capsys, *verify)[0] == BIT_FORGED

    del edited["signature"]
    saved.write_text(json.dumps(edited), encoding="utf-8")
    assert _run(capsys, *verify)[0] == BIT_UNSIGNED


def test_adaptive_pack_signs_its_json_result(
    sample_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = tmp_path / "signing.key"
    assert _run(capsys, "key", "init", "--key", str(key))[0] == 0
    args = ("adaptive-pack", QUERY, "--root", str(sample_repo), "--json", "--sign", "--key", str(key))
    status, out = _run(capsys, *args)
    assert status == 0
    saved = tmp_path / "result.json"
    saved.write_text(out, encoding="utf-8")
    status, out = _run(capsys, "verify", str(saved), "--root", str(sample_repo), "--key", str(key), "--json")
    assert status == 0 and json.loads(out)["signature"] == "valid"


def test_sign_without_json_is_refused_before_any_work(
    sample_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = tmp_path / "signing.key"
    _run(capsys, "key", "init", "--key", str(key))
    status, _ = _run(capsys, "pack", QUERY, "--root", str(sample_repo), "--sign", "--key", str(key))
    assert status == 1
    assert not (sample_repo / ".prooftext").exists()


def test_key_init_refuses_a_path_inside_the_root(
    sample_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = sample_repo / "signing.key"
    status, out = _run(capsys, "key", "init", "--key", str(key), "--root", str(sample_repo), "--json")
    assert status == 1 and json.loads(out)["error"]["code"] == "signing_key_invalid"
    assert not key.exists()


def test_key_init_without_root_keeps_the_key_out_of_the_working_directory(
    sample_repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(sample_repo)
    status, out = _run(capsys, "key", "init", "--key", "signing.key", "--json")
    assert status == 1 and json.loads(out)["error"]["code"] == "signing_key_invalid"
    assert not (sample_repo / "signing.key").exists()
