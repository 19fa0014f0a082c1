"""Reading a Go function's text for the types of its variables: signatures, declarations and their scopes."""

from __future__ import annotations

import pytest

from prooftext.api.who_uses_go_types import declarations, fields, in_scope, signature_parts, type_name


@pytest.mark.parametrize(
    ("signature", "params", "results"),
    [
        ("func (c *Context) Copy() *Context", [("c", "*Context")], [("", "*Context")]),
        (
            "func CreateTestContext(w http.ResponseWriter) (c *Context, r *Engine)",
            [("w", "http.ResponseWriter")],
            [("c", "*Context"), ("r", "*Engine")],
        ),
        ("GET(string, ...HandlerFunc) IRoutes", [("", "string"), ("", "...HandlerFunc")], [("", "IRoutes")]),
        (
            "func Map[K comparable, V any](m map[K]V, f func(K) V) (out []V, err error) {",
            [("m", "map[K]V"), ("f", "func(K) V")],
            [("out", "[]V"), ("err", "error")],
        ),
        ("func Wait(a, b int, done chan int)", [("a", "int"), ("b", "int"), ("done", "chan int")], []),
        (
            "func Unnamed(chan int, func(int) bool) error",
            [("", "chan int"), ("", "func(int) bool")],
            [("", "error")],
        ),
        ("type Engine struct", [], []),
    ],
)
def test_a_signature_gives_its_parameters_receiver_first_and_its_results(
    signature: str, params: list[tuple[str, str]], results: list[tuple[str, str]]
) -> None:
    assert signature_parts(signature) == (params, results)


def test_only_a_named_type_is_a_type_a_method_can_be_called_on() -> None:
    assert [type_name(t) for t in ("*gin.Context", "Engine", "Tree[int]", "[]Engine", "map[string]T")] == [
        "gin.Context",
        "Engine",
        "Tree",
        None,
        None,
    ]
    assert fields("a, b int, c *T") == [("a", "int"), ("b", "int"), ("c", "*T")]


BODY = """func TestX(t *testing.T) {
	r := NewRouter()
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		w.Write(nil) // r := Ignored{}
	})
	s := "{ not a brace"
	for i, v := range xs {
		a, b := T{}, new(U)
	}
	p := gin.New()
}""".splitlines()


def _types_at(name: str, index: int) -> list[str]:
    found = declarations("func TestX(t *testing.T)", BODY)[name]
    return [
        s.declared.type_text or f"{s.declared.head}.{s.declared.member}#{s.declared.index}"
        for s in in_scope(found, index)
    ]


def test_a_declaration_holds_from_its_line_to_the_end_of_its_block_and_a_literal_s_parameter_inside_it() -> (
    None
):
    assert _types_at("r", 2) == ["NewRouter.#0"]  # the line opening the literal is the outer r's
    assert _types_at("r", 3) == ["*http.Request"]  # inside the literal; a comment declares nothing
    assert _types_at("r", 5) == ["NewRouter.#0"]  # after it, with a brace in a string skipped
    assert _types_at("a", 7) == ["T"] and _types_at("b", 7) == ["U"]
    assert _types_at("a", 9) == []  # after the loop's block
    assert _types_at("p", 9) == ["gin.New#0"]


def test_a_name_declared_by_a_statement_it_does_not_read_has_no_type() -> None:
    found = declarations("func f()", ["\tfor i, v := range xs {", "\t\tv.Run()", "\t}"])
    assert [s.declared.known for s in found["v"]] == [False]
