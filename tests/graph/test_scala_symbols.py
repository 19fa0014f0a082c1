"""Scala symbols, doc comments, signatures and imports as scalameta reads them (values checked with
scalameta's parser, ``bench/scala_oracle/symbols.js``)."""

from __future__ import annotations

import pytest

from helpers import dedented, documented_rows, symbol_signatures
from prooftext.graph.extract import extract

STORE = dedented("""
    package app.store

    import app.model.{Item, Order => O, _}

    /** Keeps items.
      *
      * @param size how many
      */
    @deprecated("use Cache")
    final case class Store(size: Int) extends Base with Logging {
      def this() = this(1)

      // Puts one.
      override def put(item: Item): Unit =
        items.add(item)

      /** Reads one. */
      def get(id: Int): Option[Item]
      type Key = Int
      def `type`: String = "store"
    }

    object Store:
      given ordering: Ordering[Store] with
        def compare(a: Store, b: Store): Int = a.size - b.size
      given Ordering[Int] = Ordering.Int
      extension (s: Store) def isEmpty: Boolean = s.size == 0

      def make(n: Int): Store =
        val s = new Store(n)
        s

      // Builds a runner.
      def runner: Runnable = new Runnable { def run(): Unit = () }
    end Store

    enum Color:
      case Red, Green
      def isRed: Boolean = this == Red

    trait Shape { type Aux = Store { type K = Int }; def area: Double }
    type HasSize = { def size: Int }
""")


def _signatures(text: str) -> dict[tuple[str, str], str]:
    return symbol_signatures(extract("src/Store.scala", text))


def test_scala_classes_traits_objects_enums_defs_types_and_named_givens_are_symbols() -> None:
    assert documented_rows(extract("src/Store.scala", STORE)) == [
        ("Store", "class", 5, 21, "Keeps items.\n\n@param size how many"),
        ("Store.this", "method", 11, 11, ""),
        ("Store.put", "method", 13, 15, "Puts one."),
        ("Store.get", "method", 17, 18, "Reads one."),
        ("Store.Key", "type", 19, 19, ""),
        ("Store.type", "method", 20, 20, ""),  # a backquoted name is the name it quotes
        ("Store", "object", 23, 35, ""),  # its `end Store` included
        ("Store.ordering", "given", 24, 25, ""),
        ("Store.ordering.compare", "method", 25, 25, ""),
        ("Store.isEmpty", "method", 27, 27, ""),  # an extension's def is a member of the object
        ("Store.make", "method", 29, 31, ""),
        ("Store.runner", "method", 33, 34, "Builds a runner."),
        ("Store.runner.run", "function", 34, 34, ""),  # an anonymous class's member
        ("Color", "enum", 37, 39, ""),
        ("Color.isRed", "method", 39, 39, ""),
        ("Shape", "trait", 41, 41, ""),
        ("Shape.Aux", "type", 41, 41, ""),  # and not `K`, a member of the refined type
        ("Shape.area", "method", 41, 41, ""),
        ("HasSize", "type", 42, 42, ""),  # and not `size`, a member of the structural type
    ]


def test_an_indented_scala_body_ends_at_its_last_line_of_code_and_the_comment_after_it_documents_the_next() -> (
    None
):
    text = dedented("""
        object A:
          def limit(x: Int) =
            x + 1

          /** Decodes. */
          def decode(y: Int) = y
            // A's last line: deeper than A

        def top(): Unit =
          // data
          case class Row(a: Int)
    """)
    assert documented_rows(extract("A.scala", text)) == [
        ("A", "object", 1, 7, ""),
        ("A.limit", "method", 2, 3, ""),
        ("A.decode", "method", 5, 6, "Decodes."),
        ("top", "function", 9, 11, ""),
        ("top.Row", "class", 10, 11, "data"),
    ]


def test_a_scala_signature_starts_after_its_annotations_and_ends_before_the_body() -> None:
    signatures = _signatures(STORE)
    assert signatures["Store", "class"] == "final case class Store(size: Int) extends Base with Logging"
    assert signatures["Store", "object"] == "object Store"
    assert signatures["Store.put", "method"] == "override def put(item: Item): Unit"
    assert signatures["Store.get", "method"] == "def get(id: Int): Option[Item]"
    assert signatures["Store.ordering", "given"] == "given ordering: Ordering[Store]"


def test_scala_uses_name_calls_types_bases_and_new() -> None:
    uses = {u.name for u in extract("src/Store.scala", STORE).uses if " " not in u.name}
    assert {"Base", "Logging", "Item", "Ordering", "Runnable", "add", "deprecated"} <= uses
    assert "items" not in uses  # a value read, not a definition's use


@pytest.mark.parametrize(
    ("statement", "modules"),
    [
        ("import a.b.C", ["a.b.C"]),
        ("import a.b.C, d.E", ["a.b.C", "d.E"]),
        ("import a.b.{C, D => E, F => _}", ["a.b.C", "a.b.D"]),
        ("import a.b._", ["a.b"]),
        ("import a.b.*", ["a.b"]),
        ("import a.b.{given, *}", ["a.b"]),
        ("import a.b.{given Ord[?], C}", ["a.b", "a.b.C"]),
        ("import _root_.a.b.C", ["a.b.C"]),
        ("import a.b.C as D", ["a.b.C"]),
        ("import a.{b as c}", ["a.b"]),
        ("import a.`type`.C", ["a.type.C"]),
        ("import cats.{~>, Eq}", ["cats.~>", "cats.Eq"]),
    ],
)
def test_scala_imports_are_each_imported_path_with_a_wildcard_or_given_as_its_package(
    statement: str, modules: list[str]
) -> None:
    graph = extract("src/a.scala", f"package x\n{statement}\n")
    assert [(i.module, i.line) for i in graph.imports] == [(m, 2) for m in modules]
