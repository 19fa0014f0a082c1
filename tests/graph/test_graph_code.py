"""Code symbols per language: names, qualnames, kinds, exact 1-based inclusive line ranges."""

from __future__ import annotations

import textwrap
from collections import Counter
from pathlib import Path

import pytest

from prooftext.corpus.kinds import kind_for
from prooftext.graph import (
    MAX_USES_PER_FILE,
    NODE_FILE,
    NODE_SYMBOL,
    FileGraph,
    Node,
    language_for,
)
from prooftext.graph.extract import extract
from prooftext.graph.languages import CODE_LANGUAGES, EXTENSIONS

REPO = Path(__file__).resolve().parents[2]


def _code(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def symbols(graph: FileGraph) -> list[tuple[str, str, int, int]]:
    return [
        (n.qualname, n.symbol_kind, n.start_line, n.end_line) for n in graph.nodes if n.kind == NODE_SYMBOL
    ]


def by_qualname(graph: FileGraph, qualname: str) -> Node:
    return next(n for n in graph.nodes if n.qualname == qualname and n.kind == NODE_SYMBOL)


PYTHON = _code('''
    """Module doc."""
    import os

    @decorator
    @other(1)
    class Outer(Base):
        """Outer doc."""

        class Inner:
            def method(self) -> Foo:
                return helper(self.x)

        @property
        def prop(self):
            def nested():
                pass
            return nested

    async def top(a: int) -> Bar:
        raise MyError()
''')


def test_python_symbols_nesting_decorators_and_ranges() -> None:
    graph = extract("pkg/mod.py", PYTHON)
    assert graph.language == "python"
    assert symbols(graph) == [
        ("Outer", "class", 4, 17),
        ("Outer.Inner", "class", 9, 11),
        ("Outer.Inner.method", "method", 10, 11),
        ("Outer.prop", "method", 13, 17),
        ("Outer.prop.nested", "function", 15, 16),
        ("top", "function", 19, 20),
    ]
    outer = by_qualname(graph, "Outer")
    assert outer.signature == "class Outer(Base):"
    assert outer.docstring == "Outer doc."
    assert by_qualname(graph, "top").signature == "async def top(a: int) -> Bar:"
    assert graph.nodes[0].docstring == "Module doc."


def test_parents_and_contains_edges_follow_nesting() -> None:
    graph = extract("pkg/mod.py", PYTHON)
    ids = {n.qualname: n.id for n in graph.nodes}
    file_id = graph.nodes[0].id
    assert graph.nodes[0].kind == NODE_FILE and graph.nodes[0].parent_id is None
    assert by_qualname(graph, "Outer").parent_id == file_id
    assert by_qualname(graph, "Outer.Inner.method").parent_id == ids["Outer.Inner"]
    contains = {(e.source, e.target) for e in graph.edges if e.type == "contains"}
    assert (ids["Outer"], ids["Outer.Inner"]) in contains
    assert (file_id, ids["top"]) in contains
    assert len(contains) == len(graph.nodes) - 1


def test_python_uses_are_attributed_to_the_innermost_symbol() -> None:
    graph = extract("pkg/mod.py", PYTHON)
    ids = {n.id: n.qualname for n in graph.nodes}
    uses = {(ids[u.node_id], u.name, u.line) for u in graph.uses if u.reference is None}
    assert ("Outer.Inner.method", "helper", 11) in uses
    assert ("Outer.Inner.method", "Foo", 10) in uses
    assert ("Outer", "Base", 6) in uses
    assert ("Outer", "decorator", 4) in uses
    assert ("top", "MyError", 20) in uses
    assert not any(name == "property" for _, name, _ in uses)  # common builtins are skipped
    assert not any(q == n for q, n, _ in uses)  # never a symbol's own name


def test_python_generic_base_classes_are_uses_of_the_class_they_name() -> None:
    text = _code("""
        class Proxy(Mixin[Flask], base.Model[int], Plain, metaclass=Meta):
            pass
    """)
    graph = extract("pkg/mod.py", text)
    uses = {u.name for u in graph.uses if u.reference is None}
    assert {"Mixin", "Model", "Plain", "Flask"} <= uses


def test_python_imports_keep_relative_levels() -> None:
    text = "import a.b as ab, c\nfrom ..pkg import x, y as z\nfrom . import mod\nfrom .m import *\n"
    graph = extract("p/q/r.py", text)
    assert [(i.module, i.names, i.line) for i in graph.imports] == [
        ("a.b", (), 1),
        ("c", (), 1),
        ("..pkg", ("x", "y"), 2),
        (".", ("mod",), 3),
        (".m", ("*",), 4),
    ]


JAVASCRIPT = _code("""
    import x from './util';
    const fs = require('fs');
    /** Adds two numbers. */
    export function add(a, b) {
      return helper(a) + b;
    }
    export const mul = (a, b) => a * b;
    class Shape extends Base {
      handler = () => { this.go(); };
      area() {
        return 0;
      }
    }
    export { y } from "../lib/y.js";
""")


def test_javascript_functions_arrows_classes_and_imports() -> None:
    graph = extract("web/app.js", JAVASCRIPT)
    assert symbols(graph) == [
        ("add", "function", 3, 6),  # from its JSDoc comment
        ("mul", "function", 7, 7),
        ("Shape", "class", 8, 13),
        ("Shape.handler", "method", 9, 9),
        ("Shape.area", "method", 10, 12),
    ]
    assert by_qualname(graph, "add").docstring == "Adds two numbers."
    assert by_qualname(graph, "mul").signature == "export const mul = (a, b) =>"
    assert [i.module for i in graph.imports] == ["./util", "fs", "../lib/y.js"]


TYPESCRIPT = _code("""
    export interface Shape {
      area(): number;
    }
    export type Id = string;
    enum Color { Red }
    export abstract class Base<T> implements Shape {
      abstract area(): number;
      run = (x: T): void => {};
    }
    function over(a: string): void;
    function over(a: number): void;
    function over(a: any): void {}
    namespace NS { export function inner() {} }
""")


def test_typescript_interfaces_types_enums_overloads() -> None:
    graph = extract("src/a.ts", TYPESCRIPT)
    assert symbols(graph) == [
        ("Shape", "interface", 1, 3),
        ("Shape.area", "method", 2, 2),
        ("Id", "type", 4, 4),
        ("Color", "enum", 5, 5),
        ("Base", "class", 6, 9),
        ("Base.area", "method", 7, 7),
        ("Base.run", "method", 8, 8),
        ("over", "function", 10, 10),
        ("over", "function", 11, 11),
        ("over", "function", 12, 12),
        ("NS", "namespace", 13, 13),
        ("NS.inner", "function", 13, 13),
    ]
    overloads = [n for n in graph.nodes if n.qualname == "over"]
    assert [n.ordinal for n in overloads] == [0, 1, 2]
    assert len({n.id for n in overloads}) == 3


def test_tsx_components() -> None:
    text = "export function App() {\n  return <Button label='x' />;\n}\n"
    graph = extract("ui/App.tsx", text)
    assert graph.language == "tsx"
    assert symbols(graph) == [("App", "function", 1, 3)]
    assert [u.name for u in graph.uses if u.reference is None] == ["Button"]


GO = _code("""
    package main

    import (
    \t"fmt"
    \tm "github.com/x/y/pkg/math"
    )

    // Point is a point.
    type Point struct {
    \tX, Y int
    }

    type Shape interface {
    \tArea() float64
    }

    // Dist computes a distance.
    func (p *Point) Dist(q Point) float64 {
    \treturn m.Sqrt(fmt.Sprint(q.X))
    }

    func main() {}
""")


def test_go_types_and_methods_with_receivers() -> None:
    graph = extract("cmd/main.go", GO)
    assert symbols(graph) == [
        ("Point", "struct", 8, 11),  # from its doc comment
        ("Shape", "interface", 13, 15),
        ("Shape.Area", "method", 14, 14),
        ("Point.Dist", "method", 17, 20),
        ("main", "function", 22, 22),
    ]
    assert by_qualname(graph, "Point").docstring == "Point is a point."
    assert by_qualname(graph, "Point.Dist").signature == "func (p *Point) Dist(q Point) float64"
    assert [i.module for i in graph.imports] == ["fmt", "github.com/x/y/pkg/math"]


RUST = _code("""
    use std::io::{self, Read};
    mod inner;

    /// A point.
    #[derive(Debug)]
    pub struct Point {
        x: i32,
    }

    pub trait Shape {
        fn area(&self) -> f64;
    }

    impl Shape for Point {
        fn area(&self) -> f64 {
            helper(self.x)
        }
    }

    enum E { A }
    fn main() {}
""")


def test_rust_items_impls_and_attributes() -> None:
    graph = extract("src/lib.rs", RUST)
    assert symbols(graph) == [
        ("Point", "struct", 4, 8),  # its doc comment, then its attribute
        ("Shape", "trait", 10, 12),
        ("Shape.area", "method", 11, 11),
        ("Point", "impl", 14, 18),
        ("Point.area", "method", 15, 17),
        ("E", "enum", 20, 20),
        ("main", "function", 21, 21),
    ]
    assert by_qualname(graph, "Shape").signature == "pub trait Shape"
    point = next(n for n in graph.nodes if n.qualname == "Point" and n.symbol_kind == "struct")
    assert point.docstring == "A point."
    assert [(i.module, i.names) for i in graph.imports] == [
        ("std::io", ("self", "Read")),
        ("self::inner", ()),
    ]


JAVA = _code("""
    package a.b;
    import java.util.List;

    /** A thing. */
    @Deprecated
    public class A {
        public A() {}

        @Override
        public int foo(List<Integer> l) {
            return bar(l.size());
        }

        interface Inner { void go(); }
        enum E { X }
    }
""")


def test_java_classes_methods_constructors_annotations() -> None:
    graph = extract("src/a/b/A.java", JAVA)
    assert symbols(graph) == [
        ("A", "class", 4, 16),  # from its Javadoc
        ("A.A", "method", 7, 7),
        ("A.foo", "method", 9, 12),
        ("A.Inner", "interface", 14, 14),
        ("A.Inner.go", "method", 14, 14),
        ("A.E", "enum", 15, 15),
    ]
    assert by_qualname(graph, "A").docstring == "A thing."
    assert by_qualname(graph, "A.foo").signature == "public int foo(List<Integer> l)"
    assert [i.module for i in graph.imports] == ["java.util.List"]


C_SOURCE = _code("""
    #include <stdio.h>
    #include "util.h"

    /* A point. */
    struct point {
        int x;
    };
    typedef struct { int y; } pt_t;
    static int *make(int a) {
        return helper(a);
    }
    int proto(int);
""")


def test_c_structs_typedefs_functions() -> None:
    graph = extract("src/a.c", C_SOURCE)
    assert symbols(graph) == [
        ("point", "struct", 4, 7),  # from its comment
        ("pt_t", "struct", 8, 8),
        ("make", "function", 9, 11),
    ]
    assert by_qualname(graph, "point").docstring == "A point."
    assert [i.module for i in graph.imports] == ["<stdio.h>", "util.h"]
    assert language_for("include/a.h") == "c"


def test_an_upper_case_extension_is_read_in_the_language_its_code_kind_promises() -> None:
    graph = extract("pkg/Mod.PY", PYTHON)
    assert graph.language == "python"
    assert ("top", "function", 19, 20) in symbols(graph)
    assert [language_for(p) for p in ("a.Rs", "a.MD", "a.CPP", "a.HPP")] == ["rust", "markdown", "cpp", "cpp"]


def test_upper_case_c_and_h_are_cpp_as_gcc_reads_them_while_lower_case_stays_c() -> None:
    assert [language_for(p) for p in ("a.C", "a.H", "a.c", "a.h")] == ["cpp", "cpp", "c", "c"]


@pytest.mark.parametrize("extension", sorted(EXTENSIONS))
def test_every_parsed_extension_in_any_case_has_a_kind_that_agrees_with_its_language(extension: str) -> None:
    for spelling in (extension, extension.upper(), "." + extension[1:].capitalize()):
        language = language_for(f"dir/file{spelling}")
        assert language is not None, spelling
        expected = "code" if language in CODE_LANGUAGES else "doc"
        assert kind_for(f"dir/file{spelling}") == expected, spelling


CPP = _code("""
    #include "shape.hpp"
    namespace geo {
    class Shape : public Base {
     public:
      int width() { return 1; }
    };
    template <typename T>
    struct Box {
      T get() const { return v; }
    };
    }
    double geo::Shape::area() const { return helper(); }
""")


def test_cpp_namespaces_classes_templates_out_of_line_methods() -> None:
    graph = extract("src/shape.cpp", CPP)
    assert symbols(graph) == [
        ("geo", "namespace", 2, 11),
        ("geo.Shape", "class", 3, 6),
        ("geo.Shape.width", "method", 5, 5),
        ("geo.Box", "struct", 7, 10),
        ("geo.Box.get", "method", 9, 9),
        ("geo.Shape.area", "method", 12, 12),
    ]
    assert by_qualname(graph, "geo.Box").signature == "template <typename T>\nstruct Box"


RUBY = _code("""
    require 'json'
    require_relative 'lib/util'

    # A module.
    module Outer
      class Inner < Base
        def self.build
          new(1)
        end

        def run(a)
          helper(a).go
        end
      end
    end
""")


def test_ruby_modules_classes_methods() -> None:
    graph = extract("lib/outer.rb", RUBY)
    assert symbols(graph) == [
        ("Outer", "module", 4, 15),  # from its comment
        ("Outer.Inner", "class", 6, 14),
        ("Outer.Inner.build", "method", 7, 9),
        ("Outer.Inner.run", "method", 11, 13),
    ]
    assert by_qualname(graph, "Outer").docstring == "A module."
    assert [i.module for i in graph.imports] == ["json", "./lib/util"]


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("broken.py", "def ok():\n    return 1\n\ndef broken(:\n    pass\nclass Fine:\n    x = (\n"),
        ("broken.js", "function ok() { return 1 }\nfunction broken( {\nclass A { m() {} \n"),
        ("broken.go", "package x\nfunc ok() {}\nfunc broken( {\n"),
        ("broken.rs", "fn ok() {}\nfn broken( {\nstruct S {\n"),
    ],
)
def test_syntax_errors_still_yield_nodes(path: str, text: str) -> None:
    graph = extract(path, text)
    assert graph.nodes[0].kind == NODE_FILE
    assert "ok" in {n.name for n in graph.nodes}


def test_own_source_canonical_py_content_id_range() -> None:
    path = REPO / "src" / "prooftext" / "canonical.py"
    text = path.read_text(encoding="utf-8")
    graph = extract("src/prooftext/canonical.py", text)
    node = next(n for n in graph.nodes if n.qualname == "content_id")
    lines = text.split("\n")
    start = lines.index("def content_id(value: Any) -> str:") + 1
    end = start
    while end < len(lines) and (lines[end].startswith("    ") or not lines[end].strip()):
        end += 1
    while not lines[end - 1].strip():
        end -= 1
    assert (node.kind, node.symbol_kind, node.start_line, node.end_line) == ("symbol", "function", start, end)
    assert node.signature == "def content_id(value: Any) -> str:"
    assert node.docstring.startswith("The id of a node, edge or artifact")


def test_missing_grammar_degrades_to_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    from prooftext.graph import languages

    monkeypatch.setattr(languages, "grammar", lambda language: None)
    graph = extract("m.py", "def f():\n    pass\n" * 40)
    assert [n.kind for n in graph.nodes] == ["file", "chunk", "chunk"]
    assert graph.language == "python"


def test_uses_are_capped_fairly_per_file() -> None:
    functions = [f"def f{i}():\n" + "".join(f"    call_{i}_{j}()\n" for j in range(50)) for i in range(100)]
    graph = extract("many.py", "\n".join(functions))
    plain = [u for u in graph.uses if u.reference is None]
    assert len(plain) == MAX_USES_PER_FILE
    assert len(graph.uses) - len(plain) == 100 * 50  # who-uses keeps every call, under its own bound
    per_owner = Counter(u.node_id for u in plain)
    assert len(per_owner) == 100  # the last function keeps evidence too
    assert set(per_owner.values()) == {MAX_USES_PER_FILE // 100}


@pytest.mark.parametrize(
    ("path", "text", "spelled"),
    [
        (
            "cmd/main.go",
            'package main\n\nimport "example.com/web"\n\nfunc handle(c *web.Context) {}\n',
            "Context read web",
        ),
        ("a.ts", 'import { Kind } from "./k";\nfunction f(x: Kind.ZodSet): void {}\n', "ZodSet read Kind"),
    ],
    ids=["go qualified type", "typescript nested type"],
)
def test_a_type_read_through_a_package_or_namespace_records_the_qualifier_as_its_receiver(
    path: str, text: str, spelled: str
) -> None:
    uses = {use.name for use in extract(path, text).uses}
    assert spelled in uses
    assert spelled.split(" ")[0] in uses  # the plain name the ranking's edges read stays
