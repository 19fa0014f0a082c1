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


def _key_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str) -> Path:
    """Where the key is looked for when no --key is given: ``$PROOFTEXT_KEY`` or the default path."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    if source == "$PROOFTEXT_KEY":
        monkeypatch.setenv("PROOFTEXT_KEY", str(tmp_path / "env" / "signing.key"))
        return tmp_path / "env" / "signing.key"
    monkeypatch.delenv("PROOFTEXT_KEY", raising=False)
    return tmp_path / "config" / "prooftext" / "signing.key"


@pytest.mark.parametrize("source", ["$PROOFTEXT_KEY", "default key path"])
def test_a_key_that_no_option_named_is_reported_by_its_source_not_as_the_key_option(
    sample_repo: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    source: str,
) -> None:
    _key_source(tmp_path, monkeypatch, source)
    status, out = _run(capsys, "pack", QUERY, "--root", str(sample_repo), "--sign", "--json")
    error = json.loads(out)["error"]
    assert status == 1 and error["code"] == "signing_key_invalid"
    assert error["details"] == {"source": source} and source in error["message"]


@pytest.mark.parametrize("source", ["$PROOFTEXT_KEY", "default key path"])
def test_key_init_over_a_key_that_no_option_named_says_its_source_not_the_key_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, source: str
) -> None:
    path = _key_source(tmp_path, monkeypatch, source)
    monkeypatch.chdir(tmp_path)
    root = tmp_path / "elsewhere"
    root.mkdir()
    assert main(["key", "init", "--root", str(root)]) == 0 and path.is_file()
    capsys.readouterr()
    assert main(["key", "init", "--root", str(root)]) == 1
    err = capsys.readouterr().err
    assert "output_exists" in err and "--key" not in err and source in err


def test_a_key_loaded_from_the_environment_names_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from prooftext import SigningKey
    from prooftext.errors import SigningKeyError

    (tmp_path / "short.key").write_bytes(b"12345")
    (tmp_path / "short.key").chmod(0o600)
    monkeypatch.setenv("PROOFTEXT_KEY", str(tmp_path / "short.key"))
    with pytest.raises(SigningKeyError) as caught:
        SigningKey.load()
    assert caught.value.details == {"source": "$PROOFTEXT_KEY"}
    assert "from $PROOFTEXT_KEY" in caught.value.message and "5 bytes" in caught.value.message
    with pytest.raises(SigningKeyError) as given:
        SigningKey.load(tmp_path / "short.key")
    assert given.value.details == {"field": "key"}
    with pytest.raises(SigningKeyError) as wrong_type:
        SigningKey.load(5)  # type: ignore[arg-type]
    assert wrong_type.value.details == {"field": "key"}


@pytest.mark.parametrize(
    "command", [("pack", QUERY), ("adaptive-pack", QUERY), ("map",)], ids=["pack", "adaptive-pack", "map"]
)
def test_a_key_without_sign_is_refused_before_any_work_not_left_unused(
    sample_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], command: tuple[str, ...]
) -> None:
    """Else the result comes out unsigned, and only a later ``verify --key`` says so."""
    key = tmp_path / "signing.key"
    _run(capsys, "key", "init", "--key", str(key))
    status, out = _run(capsys, *command, "--root", str(sample_repo), "--json", "--key", str(key))
    assert status == 1
    error = json.loads(out)["error"]
    assert error["code"] == "invalid_request"
    assert error["details"] == {"field": "key", "option": "--key"}
    assert "--sign" in error["message"]
    assert not (sample_repo / ".prooftext").exists()
