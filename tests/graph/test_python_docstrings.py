"""A Python symbol's docstring is the value Python gives it (``ast.get_docstring``), read from the tree."""

from __future__ import annotations

import ast
import textwrap
import warnings

import pytest

from prooftext.graph import NODE_SYMBOL
from prooftext.graph.extract import extract


def _docstrings(source: str) -> dict[str, str]:
    graph = extract("m.py", source)
    return {node.qualname: node.docstring for node in graph.nodes if node.kind == NODE_SYMBOL}


def _python_docstrings(source: str) -> dict[str, str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # `\\d` in a docstring, kept as written
        tree = ast.parse(source)
    return {
        node.name: ast.get_docstring(node) or ""
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    }


FORMATTED_AND_BYTES = textwrap.dedent(
    '''\
    def formatted():
        f"""Hello {name}."""

    def upper_formatted():
        F"""Hello."""

    def raw_formatted():
        rf"""Hello {name}."""

    def in_bytes():
        b"""Bytes."""

    def raw_bytes():
        Rb"""Bytes."""

    def unicode_prefix():
        u"""Text."""
    '''
)


def test_a_formatted_or_bytes_string_first_is_not_a_docstring_as_in_python() -> None:
    assert _docstrings(FORMATTED_AND_BYTES) == _python_docstrings(FORMATTED_AND_BYTES)
    assert _docstrings(FORMATTED_AND_BYTES)["unicode_prefix"] == "Text."


ESCAPES = textwrap.dedent(
    '''\
    def quotes():
        """Says \\"hi\\" and \\'bye\\'."""

    def backslashes():
        """Renders ``\\\\left(A\\\\right)`` and \\\\n literally."""

    def control():
        """One\\ttab, a\\nnew line."""

    def numeric():
        """\\x41\\101\\u00e9\\U0001F600 \\N{BULLET} \\N{EM DASH}."""

    def continued():
        """First \\
        same line."""

    def unknown():
        """Keeps \\d+ and \\w as written."""

    def raw():
        r"""Keeps \\n and \\"q\\" as written."""

    class Doc:
        """Class \\"doc\\"."""
    '''
)


def test_escape_sequences_of_a_docstring_are_decoded_as_python_decodes_them() -> None:
    found = _docstrings(ESCAPES)
    assert found == _python_docstrings(ESCAPES)
    assert found["backslashes"] == "Renders ``\\left(A\\right)`` and \\n literally."
    assert found["raw"] == 'Keeps \\n and \\"q\\" as written.'


@pytest.mark.parametrize(
    ("escape", "kept"),
    [
        ("\\ud800", "\\ud800"),  # a lone surrogate: no stored text can hold it
        ("\\x00", "\\x00"),  # a NUL: SQLite functions stop at it
        ("\\U00110000", "\\U00110000"),  # past the last code point: Python refuses the file
        ("\\N{NO SUCH NAME}", "\\N{NO SUCH NAME}"),
    ],
)
def test_an_escape_no_text_field_can_hold_stays_as_written(escape: str, kept: str) -> None:
    source = f'def f():\n    """A {escape} b."""\n'
    assert _docstrings(source)["f"] == f"A {kept} b."


def test_escapes_of_a_docstring_in_a_crlf_file_are_decoded() -> None:
    source = 'def f():\r\n    """Say \\"x\\" \\\r\n    here."""\r\n'
    assert _docstrings(source) == _python_docstrings(source) == {"f": 'Say "x"     here.'}


CONCATENATED = textwrap.dedent(
    """\
    def adjacent():
        "One, " 'two.'

    def parenthesized():
        ("Wrapped "
         r"\\raw.")

    def in_parentheses():
        ("Alone.")

    def with_formatted_part():
        "One, " f"{two}."
    """
)


def test_a_concatenated_or_parenthesized_string_first_is_a_docstring_as_in_python() -> None:
    found = _docstrings(CONCATENATED)
    assert found == _python_docstrings(CONCATENATED)
    assert found["parenthesized"] == "Wrapped \\raw."
