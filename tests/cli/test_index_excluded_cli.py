"""``prooftext index --excluded``: every path left out, with its reason, its line and what would change it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import prooftext
from prooftext.cli import main

KEY_BODY = "A1b2C3d4E5f6G7h8" * 4
PRIVATE_KEY = (
    "-----BEGIN RSA PRIV" + "ATE KEY-----\n" + (KEY_BODY + "\n") * 3 + "-----END RSA PRIV" + "ATE KEY-----\n"
)
PASSWORD = "Wq7" + "zK2#vN9" + "pL4"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text(f'def connect():\n    password = "{PASSWORD}"\n    return password\n')
    (tmp_path / "deploy.pem").write_text(PRIVATE_KEY)
    (tmp_path / "logo.png").write_bytes(b"\x89PNG\x00\x01")
    (tmp_path / ".gitignore").write_text("build/\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "out.py").write_text("x = 1\n")
    return tmp_path


def test_the_index_summary_names_each_reason_and_how_to_list_the_paths(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = _run(capsys, "index", str(tree))
    assert status == 0
    assert "left out: 1 binary, 1 ignored, 1 internal, 1 secret" in out
    assert "prooftext index --excluded" in out


def test_excluded_lists_every_path_with_its_reason_detail_and_remedy(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = _run(capsys, "index", str(tree), "--excluded", "--json")
    assert status == 0
    rows = {row["path"]: row for row in json.loads(out)["excluded"]}
    assert {path: row["reason"] for path, row in rows.items()} == {
        ".prooftext": "internal",
        "build": "ignored",
        "deploy.pem": "secret",
        "logo.png": "binary",
    }
    assert rows["deploy.pem"]["detail"] == "credential: private-key at line 1"
    assert "max_file_bytes" not in rows["deploy.pem"]["remedy"] and "secrets" in rows["deploy.pem"]["remedy"]
    assert all(row["remedy"] for row in rows.values())
    assert PASSWORD not in out


def test_a_file_holding_a_password_is_indexed_redacted_not_left_out(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _run(capsys, "index", str(tree))
    status, out, _ = _run(capsys, "pack", "connect password", "--root", str(tree))
    assert status == 0
    assert 'password = "[REDACTED:password-assignment]"' in out and PASSWORD not in out


def test_excluded_with_a_reason_keeps_that_reason_and_prints_it_grouped(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = _run(capsys, "index", str(tree), "--excluded", "--reason", "secret")
    assert status == 0
    assert out.splitlines()[0].startswith("secret (1): ")
    assert out.splitlines()[1:] == ["  deploy.pem  [credential: private-key at line 1]"]


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["--excluded", "--reason", "nonsense"], "unknown_name"),
        (["--reason", "secret"], "invalid_request"),
        (["--status", "--excluded"], "invalid_request"),
    ],
)
def test_a_bad_listing_request_is_one_coded_error(
    tree: Path, capsys: pytest.CaptureFixture[str], argv: list[str], code: str
) -> None:
    status, out, _ = _run(capsys, "index", str(tree), *argv, "--json")
    assert status != 0
    assert json.loads(out)["error"]["code"] == code


def test_requiring_a_file_that_was_left_out_names_the_reason_and_the_setting(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _run(capsys, "index", str(tree))
    status, out, _ = _run(capsys, "pack", "deploy", "--root", str(tree), "--require", "deploy.pem", "--json")
    error = json.loads(out)["error"]
    assert status != 0 and error["code"] == "source_missing"
    assert "left out (secret: credential: private-key at line 1)" in error["message"]
    assert error["details"]["reason"] == "secret"
    status, out, _ = _run(capsys, "pack", "out", "--root", str(tree), "--require", "build/out.py", "--json")
    assert "left out (ignored" in json.loads(out)["error"]["message"]


def test_an_unknown_reason_is_refused_before_anything_is_indexed(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A typo in ``--reason`` used to cost a whole refresh of the root before it was refused."""
    status, out, _ = _run(capsys, "index", str(tree), "--excluded", "--reason", "secrets", "--json")
    assert status == 1
    assert json.loads(out)["error"]["code"] == "unknown_name"
    assert prooftext.Index.status_of(tree).indexed_files == 0


def test_an_empty_listing_for_one_reason_says_that_reason_not_that_nothing_was_left_out(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = _run(capsys, "index", str(tree), "--excluded", "--reason", "symlink")
    assert status == 0
    assert out == "nothing was left out with reason symlink\n"


def test_a_rebuild_with_an_unknown_reason_is_refused_before_the_store_is_emptied(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(capsys, "index", str(tree))[0] == 0
    indexed = prooftext.Index.status_of(tree).indexed_files
    status, out, _ = _run(
        capsys, "index", str(tree), "--rebuild", "--excluded", "--reason", "secrets", "--json"
    )
    assert status == 1 and json.loads(out)["error"]["code"] == "unknown_name"
    assert indexed > 0 and prooftext.Index.status_of(tree).indexed_files == indexed
