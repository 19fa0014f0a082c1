"""C# symbols, doc comments, signatures, uses and imports as the language's grammar reads them (values checked
with the parser of Mono's C# compiler, ``bench/csharp_oracle``)."""

from __future__ import annotations

import pytest

from helpers import dedented, documented_rows
from prooftext.graph.extract import extract
from prooftext.graph.model import NODE_SYMBOL

STORE = dedented("""
    using System;
    using static System.Math;
    using Items = App.Model.Items;

    namespace App.Core
    {
        /// <summary>
        /// Keeps items.
        /// </summary>
        [Serializable]
        public partial class Store<T> : Base, IStore where T : class
        {
            public Store(int size) : base(size) { }

            // Puts one.
            public void Put(T item) => items.Add(item);

            /// <summary>Reads one.</summary>
            /// <param name="id">Which.</param>
    #pragma warning disable CS0618
            [Obsolete("use Find")]
            public T Get(int id)
            {
                return Find<T>(id);
            }

            public abstract int Count();

            public int Size { get { return 1; } }

            private class Cursor
            {
                internal void Next() { }
            }
        }

        public interface IStore
        {
            void Put(object item);
        }

        public struct Point { public int X; }

        public enum Color { Red, Green }

        public delegate void Changed(object sender);
    }
""")


def test_csharp_types_methods_constructors_and_delegates_are_symbols() -> None:
    assert documented_rows(extract("src/Store.cs", STORE)) == [
        ("Store", "class", 7, 35, "<summary>\nKeeps items.\n</summary>"),  # named without its namespace
        ("Store.Store", "method", 13, 13, ""),  # a constructor, named as its class
        ("Store.Put", "method", 15, 16, "Puts one."),
        # the doc comment above a `#pragma` is the method's, as the compiler reads it
        ("Store.Get", "method", 18, 25, '<summary>Reads one.</summary>\n<param name="id">Which.</param>'),
        ("Store.Count", "method", 27, 27, ""),  # a property is not a symbol
        ("Store.Cursor", "class", 31, 34, ""),
        ("Store.Cursor.Next", "method", 33, 33, ""),
        ("IStore", "interface", 37, 40, ""),
        ("IStore.Put", "method", 39, 39, ""),
        ("Point", "struct", 42, 42, ""),
        ("Color", "enum", 44, 44, ""),
        ("Changed", "type", 46, 46, ""),  # a delegate
    ]


def test_a_csharp_signature_starts_after_its_attributes_and_ends_before_the_body() -> None:
    graph = extract("src/Store.cs", STORE)
    signatures = {n.qualname: n.signature for n in graph.nodes if n.kind == NODE_SYMBOL}
    assert signatures["Store"] == "public partial class Store<T> : Base, IStore where T : class"
    assert signatures["Store.Store"] == "public Store(int size) : base(size)"
    assert signatures["Store.Put"] == "public void Put(T item)"
    assert signatures["Store.Get"] == "public T Get(int id)"
    assert signatures["Store.Count"] == "public abstract int Count()"
    assert signatures["Changed"] == "public delegate void Changed(object sender)"


def test_modern_csharp_records_file_scoped_namespaces_and_local_functions_are_read() -> None:
    text = dedented("""
        namespace App;

        public record Person(string Name, int Age);

        public class Greeter
        {
            public string Greet(Person p)
            {
                string Title(string n) => n.ToUpperInvariant();
                return p switch { { Age: > 17 } => Title(p.Name), _ => p.Name };
            }
        }
    """)
    assert documented_rows(extract("Greeter.cs", text)) == [
        ("Person", "record", 3, 3, ""),
        ("Greeter", "class", 5, 12, ""),
        ("Greeter.Greet", "method", 7, 11, ""),
        ("Greeter.Greet.Title", "function", 9, 9, ""),  # a local function
    ]


def test_csharp_uses_name_calls_types_bases_and_attributes_with_their_receivers() -> None:
    graph = extract("src/Store.cs", STORE)
    uses = {u.name for u in graph.uses if " " not in u.name}
    assert {"Base", "IStore", "Serializable", "Obsolete", "Add", "Find"} <= uses
    spelled = {u.name for u in graph.uses if " " in u.name}
    assert {"Add call items", "Find call"} <= spelled


@pytest.mark.parametrize(
    ("statement", "module"),
    [
        ("using System.Text;", "System.Text"),
        ("using static System.Math;", "System.Math"),
        ("using Json = Newtonsoft.Json;", "Newtonsoft.Json"),
        ("global using System.Linq;", "System.Linq"),
    ],
)
def test_csharp_imports_are_the_names_using_directives_name(statement: str, module: str) -> None:
    graph = extract("src/A.cs", f"{statement}\nclass A {{ }}\n")
    assert [(i.module, i.line) for i in graph.imports] == [(module, 1)]


def test_an_else_if_after_a_preprocessor_directive_is_not_a_local_function() -> None:
    text = dedented("""
        class A
        {
            bool Unique(object items)
            {
                if (items is string)
                {
                    return true;
                }
        #if !NET35
                else if (items is int)
                {
                    return true;
                }
        #endif
                return false;
            }
        }
    """)
    assert [row[0] for row in documented_rows(extract("A.cs", text))] == ["A", "A.Unique"]
