"""A credential spelled by a path the walk cannot adopt as it is (a control character or a byte that is not
UTF-8 beside it) is recorded redacted, never in the escaped form that hid it from redaction."""

from __future__ import annotations

import json
import os
import secrets as random_source
import string
import sys
from pathlib import Path

import pytest

from prooftext.cli import main
from prooftext.corpus.config import CorpusConfig
from prooftext.corpus.walk import walk


def _token() -> str:
    alphabet = string.ascii_letters + string.digits
    return "gh" + "p_" + "".join(random_source.choice(alphabet) for _ in range(36))


def _names(token: str) -> list[bytes]:
    raw = token.encode()
    return [b"nl\n" + raw, b"\xff" + raw + b".md", b"esc\x1b" + raw + b"\x1b.txt", b"dir\t" + raw]


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, str]:
    if sys.getfilesystemencoding().lower() not in ("utf-8", "utf8"):
        pytest.skip("file names are not UTF-8 here")
    token = _token()
    root = tmp_path / "repo"
    root.mkdir()
    (root / "ok.md").write_text("ok\n")
    for name in _names(token):
        path = os.path.join(os.fsencode(root), name)
        if name.startswith(b"dir"):
            os.mkdir(path)
        else:
            with open(path, "wb") as handle:
                handle.write(b"x\n")
    return root, token


def test_a_credential_in_a_non_portable_name_is_redacted_in_the_walk_exclusion(
    tree: tuple[Path, str],
) -> None:
    root, token = tree
    excluded = walk(root, CorpusConfig()).excluded
    assert len(excluded) == 4 and {e.reason for e in excluded} == {"path_not_portable"}
    for exclusion in excluded:
        assert token not in exclusion.path and "[REDACTED:github-token#" in exclusion.path


def test_index_excluded_and_the_store_never_hold_a_credential_spelled_by_a_non_portable_name(
    tree: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    root, token = tree
    assert main(["index", str(root), "--excluded", "--json"]) == 0
    out = capsys.readouterr().out
    rows = json.loads(out)["excluded"]
    assert sum(row["reason"] == "path_not_portable" for row in rows) == 4
    assert token not in out
    store = root / ".prooftext"
    assert all(token.encode() not in p.read_bytes() for p in store.iterdir() if p.is_file())
