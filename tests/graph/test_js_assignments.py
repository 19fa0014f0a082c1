"""JavaScript functions defined by assignment: their names and the statement their excerpt covers."""

from __future__ import annotations

from prooftext.graph import NODE_CHUNK, NODE_SYMBOL
from prooftext.graph.extract import extract


def test_a_chained_assignment_of_a_function_covers_its_whole_statement() -> None:
    text = (
        "/** Sets the type. */\nres.contentType =\nres.type = function contentType(type) {\n  return 1;\n};\n"
    )
    graph = extract("lib/response.js", text)
    [node] = [n for n in graph.nodes if n.kind == NODE_SYMBOL]
    assert (node.name, node.start_line, node.end_line) == ("type", 1, 5)
    assert [n for n in graph.nodes if n.kind == NODE_CHUNK] == []


def test_a_function_assigned_to_module_exports_is_named_by_its_own_name() -> None:
    text = (
        "module.exports = function createApp(options) {\n  return 1;\n};\nexports.parse = function (s) {};\n"
    )
    graph = extract("index.js", text)
    assert [(n.name, n.qualname) for n in graph.nodes if n.kind == NODE_SYMBOL] == [
        ("createApp", "createApp"),
        ("parse", "parse"),
    ]
