"""Source kinds by file name, then by extension, whatever the case."""

from __future__ import annotations

import pytest

from prooftext.corpus.kinds import kind_for


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("src/app.py", "code"),
        ("web/App.TSX", "code"),
        ("Makefile", "code"),
        ("docs/guide.md", "doc"),
        ("README", "doc"),
        ("pyproject.toml", "config"),
        (".gitignore", "config"),
        ("sub/.editorconfig", "config"),
        ("CMakeLists.txt", "config"),
        ("data/rows.csv", "data"),
        ("package.json", "data"),
        ("notes.txt", "text"),
        ("bin/tool", "text"),
        (".bashrc", "text"),
    ],
)
def test_kind_follows_the_documented_name_and_extension_table(path: str, kind: str) -> None:
    assert kind_for(path) == kind
