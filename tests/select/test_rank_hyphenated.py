"""A hyphenated name the query writes (a message id, an option, a configuration key) is searched as the run
of its words: code defines it as a string literal, which no identifier matches."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from helpers import write_tree
from prooftext.select.policy import DEFAULT_POLICY
from under_policy import ranked_under

TREE = {
    "checkers/design.py": (
        "MSGS = {\n"
        '    "R0913": ("Too many arguments (%s/%s)", "too-many-arguments", "Used when a function has too'
        ' many arguments."),\n'
        "}\n\n\n"
        "def visit_functiondef(node):\n"
        '    if len(node.args) > node.limit:\n        node.add_message("too-many-arguments")\n'
    ),
    "checkers/typecheck.py": (
        "def check_keyword_only(call):\n"
        '    """Count keyword-only arguments of a call against its keyword arguments."""\n'
        "    keyword_arguments = call.keyword_arguments\n"
        "    return count_arguments(keyword_arguments, only=True)\n\n\n"
        "def count_arguments(arguments, only):\n"
        '    """Count the arguments, keyword arguments only when ``only``."""\n'
        "    return len(arguments)\n"
    ),
}
QUESTION = "too-many-arguments should not count keyword-only arguments"
FILLER = 30
"""Modules that say none of the question's words, so that its words are rare as in a real tree."""


def test_a_message_id_written_with_hyphens_finds_the_code_that_defines_it(tmp_path: Path) -> None:
    filler = {f"pkg/m{n:02d}.py": f"def handle_{n}(value):\n    return value + {n}\n" for n in range(FILLER)}
    write_tree(tmp_path, {**TREE, **filler})
    hits = ranked_under(tmp_path, QUESTION, DEFAULT_POLICY)
    assert hits[0]["path"] == "checkers/design.py"
    assert hits[0]["reason"] == "phrase"
    assert {h["path"] for h in hits if h["reason"] == "phrase"} == {"checkers/design.py"}


USED_BEFORE = "used-before-assignment false positive in a try/finally block"
CHECKER = {
    "checkers/variables.py": (
        "MSGS = {\n"
        + "".join(f'    "W{n:04d}": ("Message {n}", "message-{n}", "Help {n}."),\n' for n in range(40))
        + '    "E0601": ("Using variable %r before assignment", "used-before-assignment", "Emitted when a'
        ' local variable is accessed before its assignment."),\n}\n\n\n'
        "def uncertain_nodes_in_try_blocks(node):\n"
        '    """Assignments in a try block are uncertain when its finally block runs."""\n'
        "    return node.try_assignments\n"
    ),
    "checkers/basic.py": (
        "def check_not_in_finally(node):\n"
        '    """A return in a finally block swallows the error of its try block."""\n'
        "    return node\n"
    ),
}


def test_a_message_id_that_hundreds_of_tests_quote_still_reaches_its_checker(tmp_path: Path) -> None:
    """Functional tests name the message they expect, one file each: they outnumber the checker that defines
    it, and each short test scores higher on the phrase than the checker's long messages table."""
    tests = {
        f"tests/functional/used_before_{n:03d}.py": f"def case_{n}():\n    print(x)  # [used-before-assignment]\n"
        for n in range(150)
    }
    write_tree(tmp_path, {**tests, **CHECKER})
    assert ranked_under(tmp_path, USED_BEFORE, DEFAULT_POLICY)[0]["path"] == "checkers/variables.py"
    narrow = ranked_under(tmp_path, USED_BEFORE, replace(DEFAULT_POLICY, phrase_limit=100))
    assert narrow[0]["path"] == "checkers/basic.py"
