"""Doc comments of languages other than Python: read as the docstring and quoted with their definition."""

from __future__ import annotations

import textwrap

import pytest

from prooftext.graph import NODE_CHUNK, NODE_SYMBOL, FileGraph, Node
from prooftext.graph.extract import extract


def _code(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def _symbol(graph: FileGraph, qualname: str) -> Node:
    return next(n for n in graph.nodes if n.kind == NODE_SYMBOL and n.qualname == qualname)


def _chunks(graph: FileGraph) -> list[tuple[int, int]]:
    return [(n.start_line, n.end_line) for n in graph.nodes if n.kind == NODE_CHUNK]


DOCUMENTED = {
    "cmd/main.go": (
        "package main\n\n// A point.\n// It is exact.\nfunc (p *Point) Dist() int {\n\treturn 0\n}\n",
        "Point.Dist",
    ),
    "src/lib.rs": (
        "use a::b;\n\n/// A point.\n/// It is exact.\n#[derive(Debug)]\npub struct Point {\n    x: i32,\n}\n",
        "Point",
    ),
    "src/A.java": (
        "package a;\n\n/**\n * A point.\n * It is exact.\n */\n@Deprecated\npublic class A {\n}\n",
        "A",
    ),
    "web/app.ts": (
        "import x from 'x';\n\n/** A point. */\n// It is exact.\nexport function add() {\n  return 1;\n}\n",
        "add",
    ),
    "src/a.c": (
        "#include <a.h>\n\n/* A point.\n   It is exact. */\nint make(void) {\n  return 1;\n}\n",
        "make",
    ),
    "lib/a.rb": ("require 'x'\n\n# A point.\n# It is exact.\ndef hi\n  1\nend\n", "hi"),
}


@pytest.mark.parametrize("path", sorted(DOCUMENTED))
def test_a_doc_comment_above_a_definition_starts_its_range_so_an_excerpt_quotes_it(path: str) -> None:
    text, qualname = DOCUMENTED[path]
    graph = extract(path, text)
    node = _symbol(graph, qualname)
    assert (node.start_line, node.end_line) == (3, text.count("\n"))
    assert node.docstring == "A point.\nIt is exact."
    assert _chunks(graph) == [(1, 1)]  # the opening line; the comment is no chunk of its own


def test_a_method_doc_comment_is_in_the_methods_range_not_only_its_classes() -> None:
    text = _code("""
        public class A {
            /** Runs it. */
            @Override
            public void run() {}
        }
    """)
    graph = extract("A.java", text)
    run = _symbol(graph, "A.run")
    assert (run.start_line, run.end_line, run.docstring) == (2, 4, "Runs it.")
    assert run.signature == "public void run()"


def test_a_jsdoc_block_one_blank_line_above_a_definition_is_its_doc_comment() -> None:
    text = _code("""
        'use strict';

        /**
         * Initialize the server.
         * @private
         */

        app.init = function init() {
          return 1;
        };
    """)
    node = _symbol(extract("lib/application.js", text), "init")
    assert node.docstring == "Initialize the server.\n@private"
    assert node.start_line == 3


def test_a_header_comment_or_a_line_comment_above_a_blank_line_is_no_doc_comment() -> None:
    header = "/**\n * @license MIT\n */\n\nfunction first() {}\n"
    node = _symbol(extract("a.js", header), "first")
    assert (node.start_line, node.docstring) == (5, "")
    spaced = "let a = 1;\n// about a\n\nfunction second() {}\n"
    node = _symbol(extract("b.js", spaced), "second")
    assert (node.start_line, node.docstring) == (4, "")


def test_a_comment_trailing_code_on_the_line_above_is_not_the_next_definitions_doc_comment() -> None:
    js = _code("""
        setup(); // prepares the table
        function run() {}
    """)
    node = _symbol(extract("a.js", js), "run")
    assert (node.start_line, node.docstring) == (2, "")
    ruby = _code("""
        class BadRequest < Error # :nodoc:
          def http_status; 400 end
        end
    """)
    node = _symbol(extract("a.rb", ruby), "BadRequest.http_status")
    assert (node.start_line, node.docstring) == (2, "")


def test_ruby_the_first_definition_of_a_class_or_module_keeps_its_doc_comment() -> None:
    text = _code("""
        module Sinatra
          # The request object.
          class Request
            # Returns the accepted types.
            def accept
              1
            end
          end
        end
    """)
    graph = extract("lib/base.rb", text)
    request = _symbol(graph, "Sinatra.Request")
    assert (request.start_line, request.docstring) == (2, "The request object.")
    accept = _symbol(graph, "Sinatra.Request.accept")
    assert (accept.start_line, accept.docstring) == (4, "Returns the accepted types.")


def test_a_ruby_signature_stops_before_a_comment_or_a_semicolon_that_opens_the_body() -> None:
    text = _code("""
        module Helpers
          # Set the status.
          def status(value = nil)
            # read it
            response.status
          end

          def code; 400 end
        end
    """)
    graph = extract("lib/helpers.rb", text)
    assert _symbol(graph, "Helpers").signature == "module Helpers"
    assert _symbol(graph, "Helpers.status").signature == "def status(value = nil)"
    assert _symbol(graph, "Helpers.code").signature == "def code"


def test_a_cpp_template_specialization_is_named_without_its_arguments() -> None:
    text = _code("""
        template <typename T, typename = void>
        struct HasTraits : std::false_type {};

        template <typename T>
        struct HasTraits<
            T, std::void_t<typename T::value_type>> : std::true_type {};

        template <class T> struct parse_number<T, radix_2> {
          auto operator()(int s) -> T { return s; }
        };
    """)
    graph = extract("include/a.hpp", text)
    names = [(n.name, n.qualname) for n in graph.nodes if n.kind == NODE_SYMBOL]
    assert names == [
        ("HasTraits", "HasTraits"),
        ("HasTraits", "HasTraits"),
        ("parse_number", "parse_number"),
        ("operator()", "parse_number.operator()"),
    ]


def test_a_typescript_method_range_holds_its_decorators_and_the_doc_comment_above_them() -> None:
    text = _code("""
        export class Panel {
          /** Closes on escape. */
          @HostListener("keydown.escape")
          @Other()
          onEscape() {
            return 1;
          }
        }
    """)
    node = _symbol(extract("src/panel.ts", text), "Panel.onEscape")
    assert (node.start_line, node.end_line, node.docstring) == (2, 7, "Closes on escape.")
    assert node.signature == "onEscape()"


def test_a_cpp_conversion_operator_is_named_operator_and_its_type() -> None:
    text = _code("""
        struct A {
          operator bool() const { return true; }
          explicit operator const std::string&() const { return s; }
        };
        A::operator int() const { return 1; }
    """)
    graph = extract("src/a.cpp", text)
    assert [(n.name, n.qualname) for n in graph.nodes if n.kind == NODE_SYMBOL] == [
        ("A", "A"),
        ("operator bool", "A.operator bool"),
        ("operator const std::string&", "A.operator const std::string&"),
        ("operator int", "A.operator int"),
    ]
