"""Java symbols agree with the JDK's own parser: every class, interface, enum, record, annotation type,
method, constructor and annotation type element, with its qualified name, kind, first and last line and
Javadoc, as ``bench/java_oracle/JavaOracle.java`` (javac's ``com.sun.source`` tree) reads them.

The expected lists below are that program's output for the module, recorded (a test needs no JDK). Where
the index's rules differ from javac's on purpose, the module says so: a symbol starts at the run of
comments directly above it (a ``/* */`` or ``//`` comment too, as in every language but Python), and a
Javadoc separated from its declaration by a blank line is not its doc comment. A method of an anonymous
class (an enum constant's body too) is named inside its enclosing method or type, as javac names none.
"""

from __future__ import annotations

from helpers import dedented, symbol_rows
from prooftext.graph import NODE_SYMBOL, FileGraph
from prooftext.graph.extract import extract


def _node(graph: FileGraph, qualname: str, ordinal: int = 0) -> tuple[str, str]:
    found = [n for n in graph.nodes if n.kind == NODE_SYMBOL and n.qualname == qualname]
    return found[ordinal].signature, found[ordinal].docstring


ODD = dedented("""
    package p;

    import static java.util.Collections.emptyList;
    import static java.util.Collections.*;
    import java.util.*;
    import java.util.function.Function;

    /** Odd things. */
    @SuppressWarnings("unused")
    public class Odd<T extends Comparable<T>> {
      /** Op doc. */
      enum Op {
        PLUS {
          @Override int apply(int a, int b) { return a + b; }
        },
        MINUS {
          int apply(int a, int b) { return a - b; }
        };

        abstract int apply(int a, int b);

        Op() {}
      }

      /** A point. */
      record Point(int x, int y) {
        /** Compact. */
        Point {
          if (x < 0) throw new IllegalArgumentException();
        }

        Point(int x) { this(x, 0); }

        static Point origin() { return new Point(0, 0); }
      }

      interface Shape {
        /** Area. */
        double area();

        default String describe() { return "shape"; }

        static Shape unit() { return () -> 1.0; }
      }

      /** Marks. */
      @interface Mark {
        /** The value. */
        String value() default "";
        int[] counts() default {};
        Class<?> type();
      }

      /** Generic. */
      public <R> R map(Function<? super T, ? extends R> f, T t) {
        Runnable r = new Runnable() {
          @Override
          public void run() {
            class Local {
              void inner() {}
            }
          }
        };
        return f.apply(t);
      }

      @Deprecated
      /** Doc after annotation. */
      void late() {}

      /* plain block */
      void block() {}

      /**
       * Spaced.
       */

      void spaced() {}

      @SafeVarargs
      @SuppressWarnings({"a",
          "b"})
      final void multi(T... ts) {}

      public Odd() {}

      static { int x = 1; }

      sealed interface S permits A, B {}
      final class A implements S {}
      non-sealed class B implements S {}
    }

    enum Top { ONE, TWO; void m() {} }

    @FunctionalInterface
    interface Fn { int f(int x); }
""")

# (qualname, kind, first line, last line): javac's, the first line moved to the Javadoc directly above.
JAVAC = [
    ("Odd", "class", 8, 92),
    ("Odd.Op", "enum", 11, 23),
    ("Odd.Op.apply", "method", 14, 14),
    ("Odd.Op.apply", "method", 17, 17),
    ("Odd.Op.apply", "method", 20, 20),
    ("Odd.Op.Op", "method", 22, 22),
    ("Odd.Point", "record", 25, 35),
    ("Odd.Point.Point", "method", 27, 30),
    ("Odd.Point.Point", "method", 32, 32),
    ("Odd.Point.origin", "method", 34, 34),
    ("Odd.Shape", "interface", 37, 44),
    ("Odd.Shape.area", "method", 38, 39),
    ("Odd.Shape.describe", "method", 41, 41),
    ("Odd.Shape.unit", "method", 43, 43),
    ("Odd.Mark", "annotation", 46, 52),
    ("Odd.Mark.value", "method", 48, 49),
    ("Odd.Mark.counts", "method", 50, 50),
    ("Odd.Mark.type", "method", 51, 51),
    ("Odd.map", "method", 54, 65),
    ("Odd.map.run", "method", 57, 62),
    ("Odd.map.run.Local", "class", 59, 61),
    ("Odd.map.run.Local.inner", "method", 60, 60),
    ("Odd.late", "method", 67, 69),
    ("Odd.block", "method", 71, 72),  # javac: 72, no Javadoc; the index: the comment directly above
    ("Odd.spaced", "method", 78, 78),  # javac: Javadoc at 74; the index: none across a blank line
    ("Odd.multi", "method", 80, 83),
    ("Odd.Odd", "method", 85, 85),
    ("Odd.S", "interface", 89, 89),
    ("Odd.A", "class", 90, 90),
    ("Odd.B", "class", 91, 91),
    ("Top", "enum", 94, 94),
    ("Top.m", "method", 94, 94),
    ("Fn", "interface", 96, 97),
    ("Fn.f", "method", 97, 97),
]
JAVADOC = {
    "Odd": "Odd things.",
    "Odd.Op": "Op doc.",
    "Odd.Point": "A point.",
    "Odd.Point.Point": "Compact.",
    "Odd.Shape.area": "Area.",
    "Odd.Mark": "Marks.",
    "Odd.Mark.value": "The value.",
    "Odd.map": "Generic.",
    "Odd.block": "plain block",  # not Javadoc for javac; a doc comment by the index's rule
}
JAVAC_IMPORTS = [
    ("java.util.Collections.emptyList", 3),
    ("java.util.Collections.*", 4),
    ("java.util.*", 5),
    ("java.util.function.Function", 6),
]


def test_java_symbols_match_javac_on_nested_anonymous_local_enum_record_and_annotation_types() -> None:
    graph = extract("src/p/Odd.java", ODD)
    assert symbol_rows(graph) == JAVAC
    docs = {n.qualname: n.docstring for n in graph.nodes if n.kind == NODE_SYMBOL and n.docstring}
    assert docs == JAVADOC
    assert [(i.module, i.line) for i in graph.imports] == JAVAC_IMPORTS


def test_annotation_type_elements_are_methods_of_their_annotation_type_with_their_javadoc() -> None:
    text = dedented("""
        public @interface Expose {
          /**
           * If true, the field is serialized.
           */
          public boolean serialize() default true;

          Class<?>[] groups()
              default {};
        }
    """)
    graph = extract("Expose.java", text)
    assert symbol_rows(graph) == [
        ("Expose", "annotation", 1, 9),
        ("Expose.serialize", "method", 2, 5),
        ("Expose.groups", "method", 7, 8),
    ]
    assert _node(graph, "Expose.serialize") == (
        "public boolean serialize() default true",
        "If true, the field is serialized.",
    )
    assert _node(graph, "Expose.groups")[0] == "Class<?>[] groups()\n      default {}"


def test_a_java_signature_leaves_out_comments_among_the_annotations_before_the_declaration() -> None:
    text = dedented("""
        class A {
          /** Makes one. */
          @SuppressWarnings("unchecked") // OK, because the array is of type T
          public static <T> T[] newInstance(Class<T> type) { return null; }

          @Deprecated
          /* kept for old callers */
          void old() {}
        }
    """)
    graph = extract("A.java", text)
    assert _node(graph, "A.newInstance") == ("public static <T> T[] newInstance(Class<T> type)", "Makes one.")
    assert _node(graph, "A.old")[0] == "void old()"
    assert symbol_rows(graph)[1:] == [("A.newInstance", "method", 2, 4), ("A.old", "method", 6, 8)]


def test_a_java_declaration_without_a_body_has_its_whole_header_as_signature() -> None:
    text = dedented("""
        abstract class Strategy {
          public abstract boolean isStateTransition(Breaker breaker,
              State current, State next);

          native int peek();
        }

        interface Visitor<R> {
          <T extends Node> R visit(T node,
                                   Context context)
              throws VisitException;
        }
    """)
    graph = extract("Strategy.java", text)
    assert _node(graph, "Strategy.isStateTransition")[0] == (
        "public abstract boolean isStateTransition(Breaker breaker,\n      State current, State next)"
    )
    assert _node(graph, "Strategy.peek")[0] == "native int peek()"
    assert _node(graph, "Visitor.visit")[0] == (
        "<T extends Node> R visit(T node,\n                           Context context)\n      throws VisitException"
    )


def test_a_qualified_java_annotation_is_a_use_of_the_annotation_type() -> None:
    text = dedented("""
        @javax.annotation.Nullable
        @com.example.Marker(value = 1)
        public class U {}
    """)
    names = [u.name for u in extract("U.java", text).uses]
    assert "Nullable" in names and "Marker" in names
    assert "Nullable read javax.annotation" in names
    assert "Marker read com.example" in names


def test_a_java_method_reference_is_a_use_of_the_method_or_constructor_it_names() -> None:
    text = dedented("""
        class U {
          void f() {
            list.stream().map(Helper::convert).map(Widget::new).forEach(this::accept);
          }
        }
    """)
    names = [u.name for u in extract("U.java", text).uses]
    assert {"convert", "Widget", "accept"} <= set(names)
    assert {"convert read Helper", "Widget read", "accept read this"} <= set(names)


def test_unicode_escapes_in_a_javadoc_are_read_as_the_characters_javac_reads() -> None:
    text = dedented("""
        class A {
          /**
           * Maps {@code a} \\u2192 {@code b}; {@code isNumeric("\\u0967")} is true, as for
           * {@code "\\uuu0041"}. A smiley: \\uD83D\\uDE00. Not escapes: \\\\u0041, \\u00 and \\uD800 alone.
           */
          void f() {}
        }
    """)
    doc = _node(extract("A.java", text), "A.f")[1]
    assert doc == (
        'Maps {@code a} \u2192 {@code b}; {@code isNumeric("\u0967")} is true, as for\n'
        '{@code "A"}. A smiley: \U0001f600. Not escapes: \\\\u0041, \\u00 and \\uD800 alone.'
    )


def test_a_local_variable_declared_with_var_is_no_use_of_a_type_named_var() -> None:
    text = dedented("""
        class U {
          void f() {
            var reader = new JsonReader(in);
            for (var entry : map.entrySet()) {}
          }
        }
    """)
    names = {u.name.split(" ")[0] for u in extract("U.java", text).uses}
    assert "JsonReader" in names
    assert "var" not in names
