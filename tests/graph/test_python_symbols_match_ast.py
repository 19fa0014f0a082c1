"""Python symbols agree with Python's own parser (``ast``): every class, function and method, nested or
conditional, with its qualified name, kind, first line (its first decorator), last line and docstring.

The one documented difference: comments indented inside a body after its last statement belong to the
body (its excerpt quotes them), while ``ast`` ends a definition at its last statement.
"""

from __future__ import annotations

import ast
import textwrap
import warnings
from collections import Counter
from pathlib import Path

from prooftext.graph import NODE_SYMBOL
from prooftext.graph.code import MAX_DOCSTRING_CHARS
from prooftext.graph.extract import extract

SRC = Path(__file__).resolve().parents[2] / "src" / "prooftext"

Symbol = tuple[str, str, int, int]
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _python_symbols(source: str) -> list[tuple[Symbol, str]]:
    """(qualname, kind, first line, last line) and docstring of each definition, as ``ast`` reads them."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        tree = ast.parse(source)
    found: list[tuple[Symbol, str]] = []

    def walk(node: ast.AST, prefix: str, in_class: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, _DEFS):
                walk(child, prefix, in_class)
                continue
            is_class = isinstance(child, ast.ClassDef)
            kind = "class" if is_class else "method" if in_class else "function"
            first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
            docstring = (ast.get_docstring(child) or "")[:MAX_DOCSTRING_CHARS]
            found.append(((prefix + child.name, kind, first, child.end_lineno or first), docstring))
            walk(child, f"{prefix}{child.name}.", is_class)

    walk(tree, "", False)
    return found


def _symbols(path: str, source: str) -> list[tuple[Symbol, str]]:
    graph = extract(path, source)
    return [
        ((n.qualname, n.symbol_kind, n.start_line, n.end_line), n.docstring)
        for n in graph.nodes
        if n.kind == NODE_SYMBOL
    ]


def _disagreements(path: str, source: str) -> list[str]:
    """What extraction says that ``ast`` does not, allowing a body's trailing comment lines."""
    lines = source.split("\n")  # not splitlines(), which also breaks at a form feed
    expected = Counter(_python_symbols(source))
    problems = []
    for found, docstring in _symbols(path, source):
        qualname, kind, start, end = found
        ends = [end, *range(end - 1, 0, -1)]
        for last in ends:
            if expected[((qualname, kind, start, last), docstring)]:
                expected[((qualname, kind, start, last), docstring)] -= 1
                break
            text = lines[last - 1].strip()
            if text and not text.startswith("#"):
                problems.append(f"{path}: {found} {docstring[:40]!r}")
                break
    problems += [f"{path}: missed {symbol}" for symbol, count in expected.items() for _ in range(count)]
    return problems


ODD = textwrap.dedent(
    '''\
    """Module."""
    from __future__ import annotations

    import os, sys as system
    from . import sibling
    from ..pkg.sub import (a,
        b as bee)
    from .m import *

    if TYPE_CHECKING:
        from typing import Sequence
        def checked(x: Sequence) -> None: ...

    match command:
        case [x, y]:
            def in_match(): pass
        case {"k": _}:
            class InMatch: ...

    if (n := 10) > 5:
        def after_walrus(): return n

    @decorator(lambda x: x + 1, key=[i for i in range(3)])
    @a.b[1].c(
        arg=1,
    )
    def complex_decorators():
        """Decorated."""

    @(lambda f: f)
    def lambda_decorator(): pass

    try:
        def in_try(): pass
    except* ValueError:
        def in_try(): return 2
    finally:
        pass

    @overload
    def over(x: int) -> int: ...
    @overload
    def over(x: str) -> str: ...
    def over(x): return x

    class Prop:
        """Properties."""
        @property
        # a comment between decorator and def
        def value(self): return self._v
        @value.setter
        def value(self, v): self._v = v

        if sys.version_info >= (3, 12):
            def conditional(self): pass
        else:
            @staticmethod
            def conditional(): pass

    class Empty: ...
    class Empty2:
        ...

    def one_line(): return 1
    async def coroutine(): await other()
    class Semi: x = 1; y = 2
    def spread(a,
               b) \\
            -> int:
        """Spread over lines."""
        return a

    class \\
      Continued:
        pass

    def outer():
        class Local:
            def method(self):
                def innermost():
                    async def deeper(): pass
        return Local

    def trailing():
        return 1
        # a comment inside the body, after its last statement

    # a comment at module level
    for item in items:
        class InLoop:
            def m(self): pass
    with ctx() as c:
        def in_with(): pass
    '''
)


def test_odd_python_definitions_match_what_python_parses() -> None:
    assert _disagreements("odd.py", ODD) == []
    assert len(_symbols("odd.py", ODD)) == len(_python_symbols(ODD)) == 32


def test_line_endings_tabs_and_form_feeds_keep_every_range() -> None:
    expected = _symbols("odd.py", ODD)
    assert _symbols("odd.py", ODD.replace("\n", "\r\n")) == expected
    tabbed = ODD.replace("        ", "\t\t").replace("    ", "\t")
    assert _disagreements("tabs.py", tabbed) == []
    fed = ODD.replace("\nclass Empty:", "\n\f\nclass Empty:").replace("\ndef outer", "\n\fdef outer")
    assert _disagreements("feed.py", fed) == []


def test_python_imports_match_what_python_parses_except_future_directives() -> None:
    tree = ast.parse(ODD)
    expected = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            expected += [(alias.name, (), node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
            module = "." * node.level + (node.module or "")
            expected.append((module, tuple(alias.name for alias in node.names), node.lineno))
    found = [(i.module, i.names, i.line) for i in extract("odd.py", ODD).imports]
    assert sorted(found) == sorted(expected)


def test_a_syntax_error_leaves_the_definitions_before_it_as_python_reads_them() -> None:
    valid, rest = ODD.split("def outer():\n", 1)
    broken = valid + "def broken(:\n    pass\n\ndef outer():\n" + rest
    before = [symbol for symbol in _symbols("odd.py", ODD) if symbol[0][3] < valid.count("\n")]
    assert [symbol for symbol in _symbols("broken.py", broken) if symbol in before] == before


def test_every_definition_of_the_projects_own_source_matches_what_python_parses() -> None:
    problems = []
    for path in sorted(SRC.rglob("*.py")):
        problems += _disagreements(path.name, path.read_text(encoding="utf-8"))
    assert problems == []


PEP_695 = textwrap.dedent(
    '''\
    type Point = tuple[float, float]
    type ListOrSet[T] = list[T] | set[T]

    def first[T](xs: list[T]) -> T:
        """First."""
        return xs[0]

    class Box[T: (int, str), *Ts, **P](Base[T]):
        type Inner = int
        def get[U](self, u: U) -> T | U:
            return self.value

    def user(p: Point, s: ListOrSet[int]) -> None:
        type(p).origin = None
        type(s)[0] = 1
    '''
)


def test_type_parameters_and_type_alias_statements_are_read_as_definitions() -> None:
    graph = extract("generic.py", PEP_695)
    assert [symbol for symbol, _ in _symbols("generic.py", PEP_695)] == [
        ("Point", "type", 1, 1),
        ("ListOrSet", "type", 2, 2),
        ("first", "function", 4, 6),
        ("Box", "class", 8, 11),
        ("Box.Inner", "type", 9, 9),
        ("Box.get", "method", 10, 11),
        ("user", "function", 13, 15),  # `type(p).origin = None` assigns: it defines no alias
    ]
    signatures = {n.qualname: n.signature for n in graph.nodes if n.kind == NODE_SYMBOL}
    assert signatures["ListOrSet"] == "type ListOrSet[T] = list[T] | set[T]"
    assert signatures["first"] == "def first[T](xs: list[T]) -> T:"
    ids = {n.id: n.qualname for n in graph.nodes}
    uses = {(ids[u.node_id], u.name) for u in graph.uses}
    assert {("user", "Point"), ("user", "ListOrSet")} <= uses
    assert not any(owner == name.split(" ")[0] for owner, name in uses)  # a definition never uses itself
