"""The README's table of error codes: every code of the error tree and of the command line is in it, once,
with the JSON-RPC code a server answers with and the exit status of the command line, and nothing else is."""

from __future__ import annotations

import re
from pathlib import Path

from prooftext import errors
from prooftext.cli.common import CLI_CODES, EXIT_ERROR
from prooftext.errors import ProoftextError, RequestError
from prooftext.server.dispatcher import CODE_INVALID, CODE_NOT_FOUND, CODE_PARSE, INTERNAL_ERROR, error_object

README = Path(__file__).resolve().parents[1] / "README.md"
HEADER = "| code | JSON-RPC | exit status | meaning |"
PROTOCOL_CODES = frozenset({CODE_PARSE, CODE_INVALID, CODE_NOT_FOUND})
"""Codes of the JSON-RPC protocol itself: the table may list them, the command line never reports them."""
NONE = "—"


def _classes() -> dict[str, type[ProoftextError]]:
    """Each code of the error tree, read from its classes (every subclass of ``ProoftextError``)."""
    return {cls.code: cls for cls in errors.all_error_classes()}


def _table() -> list[list[str]]:
    text = README.read_text(encoding="utf-8")
    lines = text[text.index(HEADER) :].splitlines()
    rows = []
    for line in lines[2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
    return rows


def _rows() -> dict[str, list[str]]:
    rows = _table()
    codes = [re.fullmatch(r"`([a-z_]+)`", row[0]) for row in rows]
    assert all(codes), [row[0] for row, code in zip(rows, codes, strict=True) if not code]
    names = [code.group(1) for code in codes if code]
    assert len(names) == len(set(names)), sorted({n for n in names if names.count(n) > 1})
    return dict(zip(names, rows, strict=True))


def _leading(cell: str) -> int | str:
    match = re.match(r"-?\d+", cell)
    return int(match.group()) if match else cell


def test_the_table_follows_the_promise_of_a_stable_code_in_the_command_line_section() -> None:
    text = README.read_text(encoding="utf-8")
    promise = text.index("Every error has a stable code")
    assert text.index("## Command line") < promise < text.index(HEADER) < text.index("## Context artifacts")


def test_every_code_of_the_error_tree_and_of_the_command_line_is_in_the_table() -> None:
    missing = (set(_classes()) | set(CLI_CODES)) - set(_rows())
    assert missing == set()


def test_the_table_names_no_code_that_does_not_exist() -> None:
    unknown = set(_rows()) - set(_classes()) - set(CLI_CODES) - PROTOCOL_CODES
    assert unknown == set()


def test_each_code_has_the_json_rpc_code_a_server_answers_with() -> None:
    rows = _rows()
    for code, cls in _classes().items():
        error = cls("m", field="f") if issubclass(cls, RequestError) else cls("m")
        assert _leading(rows[code][1]) == error_object(error)["code"], code
    for code in CLI_CODES:
        assert _leading(rows[code][1]) == (INTERNAL_ERROR if code == "internal_error" else NONE), code


def test_each_code_has_the_exit_status_of_the_command_line_and_a_meaning() -> None:
    rows = _rows()
    for code, cls in _classes().items():
        assert _leading(rows[code][2]) == getattr(cls, "exit_status", EXIT_ERROR), code
    for code, status in CLI_CODES.items():
        assert _leading(rows[code][2]) == status, code
    for code in PROTOCOL_CODES & set(rows):
        assert rows[code][2] == NONE, code
    assert [code for code, row in rows.items() if len(row) != 4 or not row[3].endswith(".")] == []
