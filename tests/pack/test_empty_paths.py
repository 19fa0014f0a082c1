"""The Python API reads an empty path as no file, as the command line does: ``Path("")`` is ``.``, which
would name the working directory instead."""

from __future__ import annotations

from pathlib import Path

import pytest

import prooftext
from prooftext.errors import NotFoundError, SigningKeyError


def test_verify_given_an_empty_packet_path_names_no_file(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError) as caught:
        prooftext.verify("", tmp_path)
    assert "empty" in str(caught.value) and caught.value.details["field"] == "packet"


def test_a_signing_key_given_an_empty_path_is_refused_as_empty(tmp_path: Path) -> None:
    with pytest.raises(SigningKeyError) as caught:
        prooftext.SigningKey.load("", root=tmp_path)
    assert "empty" in str(caught.value) and caught.value.details["field"] == "key"
