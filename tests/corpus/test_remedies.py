"""Each exclusion's remedy says what would change it, whatever the detail the walk recorded."""

from __future__ import annotations

import importlib
import os
from pathlib import Path

import pytest

from prooftext.corpus.config import CorpusConfig
from prooftext.corpus.model import Exclusion
from prooftext.corpus.read import adopt
from prooftext.corpus.walk import MAX_PATH_BYTES, MAX_WALK_DEPTH, walk

from .conftest import MakeTree

walk_module = importlib.import_module("prooftext.corpus.walk")


def test_the_remedy_of_a_path_too_deep_or_too_long_names_both_limits(
    make_tree: MakeTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(walk_module, "MAX_WALK_DEPTH", 2)
    monkeypatch.setattr(walk_module, "MAX_PATH_BYTES", 40)
    root = make_tree({"a/b/c/d.md": "x", f"{'n' * 41}.md": "x", "ok.md": "x"})
    result = walk(root, CorpusConfig())
    assert sorted(e.detail for e in result.excluded) == [
        "nested deeper than 2 directories",
        "path longer than 40 bytes",
    ]
    for exclusion in result.excluded:
        assert exclusion.reason == "path_not_portable"
        assert f"{MAX_PATH_BYTES} bytes" in exclusion.remedy
        assert f"{MAX_WALK_DEPTH} directories" in exclusion.remedy
        assert "control characters" in exclusion.remedy and "UTF-8" in exclusion.remedy


def test_the_remedy_of_a_directory_left_out_for_its_unusable_gitignore_names_the_gitignore(
    make_tree: MakeTree,
) -> None:
    root = make_tree({"pkg/a.py": "", "top.py": ""})
    os.mkfifo(Path(root) / "pkg" / ".gitignore")
    [exclusion] = walk(root, CorpusConfig()).excluded
    assert exclusion.reason == "unreadable" and exclusion.detail == "pkg/.gitignore: not a regular file"
    assert ".gitignore" in exclusion.remedy


def test_the_secret_remedy_fits_a_private_key_left_out_under_the_default_redact_policy(
    make_tree: MakeTree,
) -> None:
    body = "MIIEowIBAAKCAQEAxyz1234567890abcdefABCDEFabcdefABCDEF1234567890abcdef"
    key = f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----\n"
    root = make_tree({"id_rsa.pem": key})
    [stat] = walk(root, CorpusConfig()).stats
    exclusion = adopt(stat, key.encode(), CorpusConfig())
    assert isinstance(exclusion, Exclusion)
    assert exclusion.reason == "secret" and "private-key" in exclusion.detail
    first = exclusion.remedy.split(";")[0]
    assert first == "a private key or a credential in the path is always left out"
    assert 'secrets = "exclude"' in exclusion.remedy and 'secrets = "redact"' in exclusion.remedy
