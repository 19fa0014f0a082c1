"""What Java text states to who-uses: declared classes of variables, supertypes, declared results, receiver
chains and argument counts, read from the text alone."""

from __future__ import annotations

import pytest

from prooftext.api.who_uses_java_types import (
    accepts,
    agreed,
    call_arguments,
    chained_receiver,
    construction_arguments,
    declared_names,
    enum_constants,
    is_chain,
    literal_kind,
    parameter_types,
    return_type,
    supertypes,
    without_comments,
)

METHOD = """void run(List<String> items, final Map<String, List<Foo>> byName, int count, Bar[] bars,
        Baz... rest, a.b.Outer.Inner inner) {
  Helper local = new Helper();
  var built = new Helper<>();
  var made = make();
  for (Item item : items) {}
  try { } catch (IOException error) {}
  if (a < b && c > quiet) {}
  if (shape instanceof Square square) {}
  items.forEach(each -> each.run());
  return local;
}"""


@pytest.mark.parametrize(
    ("name", "stated"),
    [
        ("items", ["List"]),
        ("byName", ["Map"]),
        ("count", [None]),
        ("bars", [None]),
        ("rest", [None]),
        ("inner", ["a.b.Outer.Inner"]),
        ("local", ["Helper"]),
        ("built", ["Helper"]),
        ("made", [None]),
        ("item", ["Item"]),
        ("error", ["IOException"]),
        ("quiet", []),
        ("square", ["Square"]),
        ("each", [None]),
        ("absent", []),
    ],
)
def test_each_declaration_of_a_name_states_its_class_or_none(name: str, stated: list[str | None]) -> None:
    assert declared_names(METHOD).get(name, []) == stated


def test_a_long_run_of_white_space_before_a_name_is_read_in_linear_time() -> None:
    text = "Foo" + " " * 200_000 + "x;"
    assert declared_names(text)["x"] == ["Foo"]


def test_a_name_declared_with_two_classes_has_none() -> None:
    assert agreed(["Foo", "Foo"]) == "Foo"
    assert agreed(["Foo", "Bar"]) is None
    assert agreed(["Foo", None]) is None
    assert agreed([]) is None


def test_supertypes_are_the_extended_class_then_the_interfaces_without_type_arguments() -> None:
    header = "public final class ClassName extends TypeName implements Comparable<ClassName>, a.b.Foo<X<Y>> {"
    assert supertypes(header) == ["TypeName", "Comparable", "Foo"]
    assert supertypes("interface A<T extends B> extends C<T>, D {") == ["C", "D"]
    assert supertypes("sealed interface S permits P, Q {") == []


@pytest.mark.parametrize(
    ("signature", "name", "returned"),
    [
        ("public static Builder builder()", "builder", "Builder"),
        ("public <T> CodeBlock.Builder<T> toBuilder(int x)", "toBuilder", "CodeBlock.Builder"),
        ("@Override public @Nullable Node parent()", "parent", "Node"),
        ("@Override public void run()", "run", None),
        ("int[] counts()", "counts", None),
        ("public T get()", "get", "T"),
        ("private Foo(String name)", "Foo", None),
    ],
)
def test_a_signature_states_the_class_its_method_returns(
    signature: str, name: str, returned: str | None
) -> None:
    assert return_type(signature, name) == returned


@pytest.mark.parametrize(
    ("text", "steps"),
    [
        (
            'CodeBlock.builder().add("x(", y).addNamed(',
            [("name", "CodeBlock"), ("call", "builder"), ("call", "add")],
        ),
        (
            "new CodeBlock.Builder()\n    .add(a)\n    .build(",
            [("new", "CodeBlock.Builder"), ("call", "add")],
        ),
        ("this.builder.add(", [("name", "this.builder")]),
        ("make(1).add(", [("bare", "make")]),
        ("new TypeToken<List<Integer>>() {}.getType(", [("new", "TypeToken")]),
        ("new Foo() { void run() { go(); } }\n  .run(", [("new", "Foo")]),
        ("{ x(); }.run(", None),
        ("return builder . build(", [("name", "builder")]),
        ("((Foo) x).add(", None),
        ("items[0].add(", None),
        ("make().field.add(", None),
    ],
)
def test_a_receiver_chain_is_read_back_from_the_dot_before_the_called_name(
    text: str, steps: list[tuple[str, str]] | None
) -> None:
    assert chained_receiver(text, text.rfind(".")) == steps


def test_arguments_are_split_at_the_top_level_of_each_call() -> None:
    text = (
        'parse(html); Jsoup.parse("a,b", base, new HashMap<String, String>()); parse( ); x.parse(f(a, b), c)'
    )
    assert call_arguments(text, "parse") == {
        ("html",),
        ('"a,b"', "base", "new HashMap<String, String>()"),
        (),
        ("f(a, b)", "c"),
    }
    assert call_arguments("reparse(a, b)", "parse") == set()


def test_arguments_are_read_for_the_calls_through_one_receiver_or_none() -> None:
    text = "canvas.add(a, 2); list.add(b); this.canvas .add(c); add(); x.add(d, e, f)"
    assert call_arguments(text, "add", "canvas") == {("a", "2")}
    assert call_arguments(text, "add", "this.canvas") == {("c",)}
    assert call_arguments(text, "add", "") == {()}
    assert construction_arguments("new Square(1); new a.b.Square<>(1, 2); Square(3)", "Square") == {
        ("1",),
        ("1", "2"),
    }


def test_a_signature_s_parameters_are_their_simple_types() -> None:
    signature = "Document parse(final @Nullable Map<String, List<X>> byName, a.b.Item... rest, int[] counts)"
    assert parameter_types(signature, "parse") == ("Map", "Item...", "int[]")
    assert parameter_types("Document parse()", "parse") == ()
    assert parameter_types("void g(String a,", "g") is None


@pytest.mark.parametrize(
    ("argument", "kind"),
    [
        ('"x, y"', "string"),
        ("'c'", "char"),
        ("'\\n'", "char"),
        ("12", "int"),
        ("0xFF", "int"),
        ("12L", "long"),
        ("1.5f", "float"),
        ("2.0", "double"),
        ("1e3", "double"),
        ("true", "boolean"),
        ("null", "null"),
        ("String.class", "class"),
        ("int[].class", "class"),
        ("name", None),
        ('"a" + b', None),
    ],
)
def test_a_literal_argument_has_its_kind(argument: str, kind: str | None) -> None:
    assert literal_kind(argument) == kind


def test_an_overload_is_invoked_only_by_calls_of_its_arity_whose_literals_it_takes() -> None:
    assert accepts(("String", "Number"), ('"a"', "1"))
    assert not accepts(("String", "Boolean"), ('"a"', "1"))
    assert not accepts(("int",), ('"x"',))
    assert not accepts(("byte",), ("1",))  # a call does not narrow a constant
    assert accepts(("T",), ('"x"',)) and accepts(("Object",), ("1",))
    assert not accepts(("int",), ("null",)) and accepts(("JsonElement",), ("null",))
    assert accepts(("JsonElement",), ("element",)) and not accepts(("JsonElement",), ('"x"',))
    assert accepts(("String...",), ()) and accepts(("String", "Object..."), ('"a"', "1", "2"))
    assert accepts(("Class",), ("Foo.class",)) and accepts(("Type",), ("Foo.class",))
    assert not accepts(("TypeElement",), ("Foo.class",))
    assert not accepts(("String", "int"), ('"a"',))


def test_comments_are_blanked_and_literals_kept() -> None:
    text = 'a = "http://x"; // the canvas, once\n/** {@link X}\n * y */ b(\'/\'); s = """\n// kept\n""";'
    blanked = without_comments(text)
    assert blanked.splitlines()[0] == 'a = "http://x";' + " " * 20
    assert "{@link" not in blanked and "// kept" in blanked and "b('/')" in blanked
    assert blanked.count("\n") == text.count("\n")


def test_an_enum_s_constants_are_read_before_its_first_semicolon() -> None:
    text = 'public enum DateType {\n  DATE, SQL_DATE(1, "x"), @Deprecated OLD;\n  int count;\n}'
    assert enum_constants(text) == {"DATE", "SQL_DATE", "OLD"}
    assert enum_constants("class Plain { int count; }") == set()


@pytest.mark.parametrize(
    ("expression", "chain"),
    [
        ("element", True),
        ("this.field", True),
        ('Canvas.builder().name("x").build()', True),
        ("new Foo<Bar>(1, 2)", True),
        ("new TypeToken<List<T>>() {}.getType()", True),
        ('"id " + id', False),
        ("(Type) cls", False),
        ("items[0]", False),
        ("ready ? a : b", False),
        ("-count", False),
    ],
)
def test_an_argument_is_typed_only_when_it_is_a_name_a_new_or_a_chain(expression: str, chain: bool) -> None:
    assert is_chain(expression) is chain


def test_an_argument_whose_class_is_told_is_taken_by_a_parameter_naming_it_or_a_supertype() -> None:
    def typed(argument: str) -> frozenset[str] | None:
        return frozenset({"Square", "Shape"}) if argument == "square" else None

    assert accepts(("Shape", "int"), ("square", "2"), typed)
    assert not accepts(("String", "Shape"), ("square", "2"), typed)
    assert accepts(("Object",), ("square",), typed) and accepts(("T",), ("square",), typed)
    assert accepts(("Canvas",), ("other",), typed)  # an argument whose class is not told
