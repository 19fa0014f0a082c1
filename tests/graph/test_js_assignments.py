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


def test_a_top_level_component_wrapped_in_a_call_is_a_function_and_a_local_value_is_not() -> None:
    text = (
        "export const Button = React.forwardRef<HTMLButtonElement, Props>((props, ref) => {\n"
        "  const onClick = useCallback(() => go(), []);\n"
        "  return <button ref={ref} onClick={onClick} />;\n"
        "});\n"
        "const Row = memo(function Row({ item }) {\n"
        "  return <li>{item}</li>;\n"
        "});\n"
        "const Card = memo(forwardRef((props, ref) => <div ref={ref} />));\n"
        "const router = express.Router();\n"
    )
    graph = extract("ui/button.tsx", text)
    assert [
        (n.qualname, n.symbol_kind, n.start_line, n.end_line) for n in graph.nodes if n.kind == NODE_SYMBOL
    ] == [
        ("Button", "function", 1, 4),
        ("Row", "function", 5, 7),
        ("Card", "function", 8, 8),
    ]


def test_a_top_level_value_computed_with_a_callback_is_no_function() -> None:
    text = "const names = list.map((x) => x.name);\nexport const total = sum(items, (a) => a.n);\n"
    assert [n for n in extract("a.js", text).nodes if n.kind == NODE_SYMBOL] == []


def test_a_generator_function_assigned_or_stored_as_a_value_is_a_function() -> None:
    """``const walk = function* () {}`` was no symbol (hono's ``fetchRoutesContent``), where ``function*
    walk() {}`` and ``const walk = function () {}`` were."""
    text = "const walk = function* (tree) {\n  yield tree;\n};\nclass Tree {\n  nodes = function* () {};\n}\nx.each = function* () {};\n"
    for path in ("src/walk.js", "src/walk.ts"):
        graph = extract(path, text)
        assert [
            (n.qualname, n.symbol_kind, n.start_line, n.end_line)
            for n in graph.nodes
            if n.kind == NODE_SYMBOL
        ] == [
            ("walk", "function", 1, 3),
            ("Tree", "class", 4, 6),
            ("Tree.nodes", "method", 5, 5),
            ("each", "function", 7, 7),
        ]
