"""A file the query names is a whole mention shared among the files it fits."""

from __future__ import annotations

from pathlib import Path

from helpers import write_tree
from prooftext.select.candidates import SCALE
from prooftext.select.policy import DEFAULT_POLICY
from under_policy import ranked_under

READER = '''"""Read the project's settings."""


def read_pyproject_toml(path):
    """Load the tool table of pyproject.toml; extend-exclude must be a string."""
    return path
'''


def _file_parts(root: Path, query: str) -> dict[str, dict[str, int]]:
    parts: dict[str, dict[str, int]] = {}
    for hit in ranked_under(root, query, DEFAULT_POLICY):
        parts.setdefault(hit["path"], hit["components"])
    return parts


def test_a_file_name_that_fits_several_files_gives_each_a_share_of_one_mention(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "pyproject.toml": "[tool.black]\nline-length = 88\n",
            "docs/isort/pyproject.toml": "[tool.isort]\nprofile = 'black'\n",
            "docs/pylint/pyproject.toml": "[tool.pylint]\nmax-line-length = 88\n",
            "src/black/config.py": READER,
        },
    )
    parts = _file_parts(tmp_path, "extend-exclude in pyproject.toml is a list, not a string")
    assert parts["pyproject.toml"]["path"] == round(SCALE / 3)
    assert parts["docs/isort/pyproject.toml"]["path"] == round(SCALE / 3)


def test_a_file_named_outright_gets_the_whole_path_signal(tmp_path: Path) -> None:
    write_tree(tmp_path, {"pyproject.toml": "[tool.black]\n", "src/black/config.py": READER})
    assert _file_parts(tmp_path, "what does pyproject.toml hold?")["pyproject.toml"]["path"] == SCALE
