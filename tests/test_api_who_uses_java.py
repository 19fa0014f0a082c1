"""Who-uses on Java: a call resolves through the class the code states for its receiver (a local, a
parameter, a field, a static call's class, a chain of calls' declared results), a constructor is used by
``new``, ``this(...)`` and ``super(...)``, and of overloads only those taking the call's number of arguments
are candidates, exact when no other overload takes as many."""

from __future__ import annotations

from pathlib import Path

import pytest

import prooftext
from helpers import indexed_tree
from prooftext.api.risk import who_uses

SHAPES = {
    "src/main/java/com/ex/Shape.java": """
        package com.ex;

        public abstract class Shape {
          protected final String name;
          protected Canvas owner;

          protected Shape(String name) {
            this.name = name;
          }

          public double area() {
            return 0;
          }

          public static Shape unit() {
            return new Square(1);
          }
        }
        """,
    "src/main/java/com/ex/Square.java": """
        package com.ex;

        /**
         * A {@link Shape} with four equal sides.
         */
        public class Square extends Shape implements Comparable<Square> {
          private final double side;

          public Square(double side) {
            this(side, "square");
          }

          Square(double side, String name) {
            super(name);
            this.side = side;
          }

          @Override
          public double area() {
            return side * side;
          }

          int drawn() {
            return owner.size();
          }

          @Override
          public int compareTo(Square other) {
            return 0;
          }
        }
        """,
    "src/main/java/com/ex/Canvas.java": """
        package com.ex;

        import java.util.ArrayList;
        import java.util.List;

        public final class Canvas {
          private final List<Shape> shapes = new ArrayList<>();

          public static Canvas.Builder builder() {
            return new Builder();
          }

          public Canvas add(Shape shape) {
            shapes.add(shape);
            return this;
          }

          public Canvas add(Shape shape, int times) {
            return this;
          }

          public Canvas add(String label, Shape shape) {
            return this;
          }

          public int size() {
            return shapes.size();
          }

          public static Canvas of(Class<?> kind) {
            return new Canvas();
          }

          public static Canvas of(Shape shape) {
            return new Canvas();
          }

          public static final class Builder {
            public Builder name(String name) {
              return this;
            }

            public Canvas build() {
              return new Canvas();
            }
          }
        }
        """,
    "src/test/java/com/ex/CanvasTest.java": """
        package com.ex;

        import java.util.List;

        class CanvasTest {
          private final Canvas canvas = new Canvas();

          void chained() {
            Canvas.builder()
                .name("x")
                .build()
                .size();
          }

          /** Measures the canvas, once. */
          int documented() {
            return canvas.size(); // the canvas, whole
          }

          double anonymous() {
            return new Square(3) {}.area();
          }

          void local() {
            Square square = new Square(2);
            square.area();
          }

          void viaBase(Shape shape) {
            shape.area();
          }

          void field() {
            canvas.add(new Square(1));
          }

          void twoArguments() {
            this.canvas.add(new Square(1), 2);
          }

          void ambiguous(java.util.function.Supplier<Square> made, int times) {
            canvas.add(made.get(), times);
          }

          void typed(Square square, int times) {
            canvas.add(square, times);
          }

          void mixed(List<Shape> list) {
            canvas.add(new Square(1), 2);
            list.add(null);
          }

          void library(List<String> names) {
            names.size();
          }

          void typeOnly() {
            Square none = null;
          }

          String literal() {
            return Square.class.getName();
          }

          int compare(Comparable<Square> any, Square square) {
            return any.compareTo(square);
          }
        }
        """,
    "src/main/java/com/ex/Palette.java": """
        package com.ex;

        public enum Palette {
          RED("r"),
          BLUE("b");

          private final String code;

          Palette(String code) {
            this.code = code;
          }

          public String paint() {
            return code;
          }
        }
        """,
    "src/main/java/com/ex/app/Main.java": """
        package com.ex.app;

        import com.ex.Canvas;
        import static com.ex.Shape.unit;

        public class Main {
          public static void main(String[] args) {
            Canvas made = Canvas.builder().build();
            made.size();
            unit().area();
          }

          static void qualified() {
            com.ex.Canvas.builder();
          }

          static Canvas kind() {
            return Canvas.of(com.ex.Square.class);
          }

          static String painted() {
            return com.ex.Palette.BLUE.paint();
          }
        }
        """,
}


@pytest.fixture(scope="module")
def shapes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_tree(tmp_path_factory.mktemp("shapes"), SHAPES)


def _dependents(root: Path, qualname: str, signature: str = "") -> dict[str, str]:
    """``caller qualname: found_by`` of who-uses of the definition so named (whose signature holds
    ``signature``, to pick one overload)."""
    with prooftext.open(root) as index:
        rows = index.conn.execute(
            "SELECT id, signature FROM nodes WHERE qualname = ? AND kind = 'symbol'", (qualname,)
        ).fetchall()
        chosen = [node_id for node_id, spelled in rows if signature in spelled]
        assert len(chosen) == 1, rows
        return {d["qualname"]: d["found_by"] for d in who_uses(index, chosen[0])}


def test_a_call_through_a_chain_of_declared_results_or_an_imported_class_is_a_call(shapes: Path) -> None:
    found = _dependents(shapes, "Canvas.size")
    assert found == {
        "CanvasTest.chained": "call",
        "Main.main": "call",
        "CanvasTest.documented": "call",
        "Square.drawn": "call",
    }


def test_a_field_a_superclass_declares_types_its_subclass_s_calls(shapes: Path) -> None:
    assert _dependents(shapes, "Canvas.size")["Square.drawn"] == "call"


def test_words_in_comments_declare_nothing(shapes: Path) -> None:
    assert _dependents(shapes, "Canvas.size")["CanvasTest.documented"] == "call"


def test_a_call_on_a_library_type_is_no_call_of_a_repository_method(shapes: Path) -> None:
    assert "CanvasTest.library" not in _dependents(shapes, "Canvas.size")


def test_a_call_through_the_stated_base_class_calls_it_and_may_dispatch_to_an_override(shapes: Path) -> None:
    base = _dependents(shapes, "Shape.area")
    override = _dependents(shapes, "Square.area")
    assert base["CanvasTest.viaBase"] == "call"
    assert "CanvasTest.local" not in base  # the local is a Square, whose own area runs
    assert override["CanvasTest.local"] == "call"
    assert override["CanvasTest.anonymous"] == "call"  # an anonymous class's instance: its base's method
    assert override["CanvasTest.viaBase"] == "possible"


def test_a_class_literal_argument_is_a_class_no_repository_type_takes(shapes: Path) -> None:
    assert _dependents(shapes, "Canvas.of", "Class<?> kind") == {"Main.kind": "call"}
    assert _dependents(shapes, "Canvas.of", "Shape shape") == {}


def test_an_enum_constant_is_an_instance_of_its_enum(shapes: Path) -> None:
    assert _dependents(shapes, "Palette.paint") == {"Main.painted": "call"}


def test_a_class_named_with_its_package_is_the_repository_s_class(shapes: Path) -> None:
    assert _dependents(shapes, "Canvas.builder")["Main.qualified"] == "call"


def test_a_static_import_s_declared_result_types_the_next_call(shapes: Path) -> None:
    assert _dependents(shapes, "Shape.area")["Main.main"] == "call"
    assert _dependents(shapes, "Square.area")["Main.main"] == "possible"


def test_a_constructor_is_used_by_new_this_and_super_not_by_a_read_of_its_class_or_its_class_literal(
    shapes: Path,
) -> None:
    one = _dependents(shapes, "Square.Square", "double side)")
    two = _dependents(shapes, "Square.Square", "String name")
    base = _dependents(shapes, "Shape.Shape")
    assert one == {"CanvasTest.local": "call", "CanvasTest.field": "call", "CanvasTest.twoArguments": "call",
                   "CanvasTest.mixed": "call", "CanvasTest.anonymous": "call", "Shape.unit": "call"}  # fmt: skip
    assert two == {"Square.Square": "call"}  # this(side, "square")
    assert set(base) == {"Square.Square"} and base["Square.Square"] == "call"  # super(name)


def test_an_overload_taking_another_number_of_arguments_is_not_called(shapes: Path) -> None:
    one = _dependents(shapes, "Canvas.add", "add(Shape shape)")
    assert one["CanvasTest.field"] == "call"
    assert "CanvasTest.twoArguments" not in one


def test_overloads_that_may_each_take_a_call_s_arguments_are_each_only_possibly_called(shapes: Path) -> None:
    counted = _dependents(shapes, "Canvas.add", "int times")
    labelled = _dependents(shapes, "Canvas.add", "String label")
    assert counted["CanvasTest.ambiguous"] == "possible"
    assert labelled == {"CanvasTest.ambiguous": "possible"}


def test_an_argument_whose_class_is_read_rules_out_an_overload_that_takes_no_such_class(shapes: Path) -> None:
    assert _dependents(shapes, "Canvas.add", "int times")["CanvasTest.typed"] == "call"
    assert "CanvasTest.typed" not in _dependents(shapes, "Canvas.add", "String label")


def test_a_literal_argument_rules_out_an_overload_whose_parameter_cannot_take_it(shapes: Path) -> None:
    counted = _dependents(shapes, "Canvas.add", "int times")  # add(new Square(1), 2): 2 is no String
    assert counted["CanvasTest.twoArguments"] == "call" and counted["CanvasTest.mixed"] == "call"
    assert "CanvasTest.twoArguments" not in _dependents(shapes, "Canvas.add", "String label")


def test_an_overload_is_told_by_the_calls_through_the_same_receiver_only(shapes: Path) -> None:
    assert "CanvasTest.mixed" not in _dependents(shapes, "Canvas.add", "add(Shape shape)")


def test_a_call_through_a_library_interface_may_dispatch_to_a_class_implementing_it_here(
    shapes: Path,
) -> None:
    assert _dependents(shapes, "Square.compareTo") == {"CanvasTest.compare": "possible"}
    assert "CanvasTest.compare" not in _dependents(shapes, "Shape.area")
