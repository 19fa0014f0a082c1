"""Code symbols, uses and imports from one tree-sitter parse and one query traversal per file.

Symbols: classes, structs, interfaces, enums, traits, impls, namespaces, type aliases, functions and
methods. A symbol's range covers its wrappers (Python decorators, ``export``, C++ ``template<…>``, TS
``declare``, Rust ``#[attributes]``) and, outside Python, its leading doc comment, which also becomes
``docstring``: an excerpt quotes a Go, Rust, Java or JSDoc comment with its definition, as a Python
docstring is quoted inside its function. A doc comment is the run of comments directly above the definition
(no blank line between, except one after a JSDoc ``/** … */`` block that is not the file's header), each on
its own line: a comment trailing code on the line above is not one. In Ruby the comment above the first
definition of a class, module, block, branch or loop body is read there too (the grammar hangs it on the
class or the ``if``, not the body), and so is the comment above ``private def x``. A Rust item's range and doc comment are what rustc attaches to it: every
outer attribute and ``///`` or ``/** */`` comment before it, in any order and across blank lines, with the
plain comments directly above them; a comment trailing an attribute is in the range but not the text, and
an inner ``//!`` documents the enclosing module, not the item below. A leading ``*`` is stripped as a block
comment's margin, except in Ruby and Rust line comments, where it starts a list item.
``qualname`` is the dotted chain of enclosing symbols plus any qualifier spelled in the definition itself
(a Go receiver ``(p *Point) Dist`` gives ``Point.Dist``, C++ ``void A::f()`` gives ``A.f``).

A function is a ``method`` when its nearest enclosing symbol is class-like for that language (see
``CodeSpec.method_parents``), when it is a Go method (it has a receiver), or when it is a C++ definition
qualified with a scope (``A::f``; namespace-qualified free functions are rare outside namespace blocks).

C and C++: a definition is a function with a body, a struct, union, enum or class with a body, a
``typedef``, a C++ ``using`` alias or a named namespace. A declaration without a body is not: a header
prototype (``int add(int a, int b);``) declares what its ``.c`` file defines, and a second symbol of that
name would only split who-uses between two targets and add files that include the header as possible
dependents (see ``bench/symbols_c_bench.py``). The grammars do not expand macros, so the macros they misread
are undone: a statement-like macro alone on its line (``FMT_BEGIN_NAMESPACE``) and a calling convention in a
function pointer (``(ZCALLBACK *f)(…)``) are blanked before parsing, and an export or calling convention
macro before a name (``struct API Name {``, ``API class Name {``, ``int CDECL main(void)``) leaves the
definition its own name and kind (see :func:`_c_misread`). Unbalanced braces across ``#if`` branches and
macros used as statements elsewhere still confuse the grammar there; the file's other definitions stay.
"""

from __future__ import annotations

import inspect
import operator
import re
import unicodedata
from dataclasses import dataclass

from tree_sitter import Node as TSNode
from tree_sitter import Query, QueryCursor, Tree

import prooftext.graph.languages as L
from prooftext.graph.draft import FILE, Draft, Drafts, Owners
from prooftext.graph.imports import python_bindings, read_imports
from prooftext.graph.model import (
    HOW_CALL,
    HOW_READ,
    NODE_SYMBOL,
    UNKNOWN_RECEIVER,
    backquoted_name,
    c_receiver,
    js_receiver,
    php_receiver,
    spell,
)

MAX_SIGNATURE_CHARS = 500
MAX_DOCSTRING_CHARS = 2000
MAX_SYMBOLS_PER_FILE = 10_000
"""Generated files can define tens of thousands of tiny functions; past this the file node suffices."""
MAX_IMPORTS_PER_FILE = 1_000
MIN_USE_CHARS = 2
"""Single-letter names (loop variables, type parameters) resolve to noise, never to a useful definition."""
MAX_RECEIVER_PARTS = 6
"""A receiver chain longer than this (``a.b.c.d.e.f.g``) is spelled as unknown: no resolution follows it."""

_BYTES_PER_CHAR = 4  # worst case of UTF-8: bound a byte slice before decoding it
_NAME_DEPTH = 16  # declarator / type nesting we follow to find a name

_COMMENTS = frozenset({"comment", "line_comment", "block_comment"})
# Nodes whose range belongs to the definition they wrap (decorators, `export`, `template<…>`, `declare`).
_RANGE_WRAPPERS = frozenset(
    {"decorated_definition", "export_statement", "template_declaration", "ambient_declaration"}
)
# Decorators are part of the range but not of the signature, which starts at `def` / `class`.
_SIGNATURE_WRAPPERS = _RANGE_WRAPPERS - {"decorated_definition"}
# The statement around a definition that is not itself a statement (`const f = () => …`, `a.b = function`,
# Go's `type X struct` inside `type_declaration`): its range is the definition's when it holds only that.
_STATEMENTS: dict[str, frozenset[str]] = {
    "variable_declarator": frozenset({"lexical_declaration", "variable_declaration"}),
    "assignment_expression": frozenset({"expression_statement"}),
    "type_spec": frozenset({"type_declaration"}),
    "assignment_statement": frozenset({"variable_declaration"}),  # Lua `local f = function() end`
}
_C_SPECIFIERS = frozenset({"struct_specifier", "union_specifier", "enum_specifier", "class_specifier"})
_C_NAMES = frozenset(
    {
        "identifier",
        "field_identifier",
        "type_identifier",
        "qualified_identifier",
        "destructor_name",
        "operator_name",
        "template_function",
        "operator_cast",
        "primitive_type",
    }
)
_C_KEYWORD_KINDS = {
    "class": "class",
    "struct": "struct",
    "union": "union",
    "enum": "enum",
    "namespace": "namespace",
}
"""Keywords the C++ grammar reads as a function's name after a macro it cannot expand (``API class A {``)."""
_C_STATEMENT_KEYWORDS = frozenset({"if", "else", "while", "for", "switch", "do", "return", "case"})
"""Never a C/C++ definition's name: what the grammar reads as one when a preprocessor branch cuts a statement."""
_ANNOTATIONS = frozenset({"marker_annotation", "annotation"})
_SIBLING_PREFIXES = frozenset({"attribute_item", "decorator"})
"""Nodes before a definition, outside it, that belong to its range: Rust attributes, class member decorators."""
_TYPE_NAMES = frozenset({"type_identifier", "identifier", "primitive_type", "constant"})
_FUNCTION = "function"
_METHOD = "method"

_KINDS: dict[str, str] = {
    "class_definition": "class",
    "function_definition": _FUNCTION,
    "class_declaration": "class",
    "abstract_class_declaration": "class",
    "function_declaration": _FUNCTION,
    "generator_function_declaration": _FUNCTION,
    "method_definition": _FUNCTION,
    "interface_declaration": "interface",
    "enum_declaration": "enum",
    "type_alias_declaration": "type",
    "type_alias_statement": "type",
    "function_signature": _FUNCTION,
    "method_signature": _FUNCTION,
    "abstract_method_signature": _FUNCTION,
    "internal_module": "namespace",
    "field_definition": _FUNCTION,
    "public_field_definition": _FUNCTION,
    "assignment_expression": _FUNCTION,
    "variable_declarator": _FUNCTION,
    "method_declaration": _METHOD,
    "method_elem": _FUNCTION,
    "type_spec": "type",
    "type_alias": "type",
    "struct_item": "struct",
    "enum_item": "enum",
    "union_item": "union",
    "trait_item": "trait",
    "impl_item": "impl",
    "function_item": _FUNCTION,
    "function_signature_item": _FUNCTION,
    "mod_item": "module",
    "type_item": "type",
    "macro_definition": "macro",
    "record_declaration": "record",
    "annotation_type_declaration": "annotation",
    "constructor_declaration": _METHOD,
    "compact_constructor_declaration": _METHOD,
    "annotation_type_element_declaration": _METHOD,
    "struct_specifier": "struct",
    "union_specifier": "union",
    "enum_specifier": "enum",
    "class_specifier": "class",
    "namespace_definition": "namespace",
    "type_definition": "type",
    "alias_declaration": "type",
    "class": "class",
    "module": "module",
    "method": _FUNCTION,
    "singleton_method": _FUNCTION,
    "trait_declaration": "trait",
    "trait_definition": "trait",
    "object_definition": "object",
    "package_object": "object",
    "enum_definition": "enum",
    "given_definition": "given",
    "object_declaration": "object",
    "companion_object": "object",
    "secondary_constructor": _FUNCTION,
}
_KIND_OVERRIDES: dict[str, dict[str, str]] = {
    L.TYPESCRIPT: {"module": "namespace"},
    L.TSX: {"module": "namespace"},
}
_GO_TYPE_KINDS = {"struct_type": "struct", "interface_type": "interface"}

# Names so common that a reference edge to a same-named definition would be noise. Cheap, not exhaustive:
# the fan-out cap in resolve.py catches the rest.
_COMMON = frozenset(
    {
        "self", "cls", "this", "super", "new", "init", "get", "set", "len", "str", "int", "float", "bool",
        "list", "dict", "tuple", "bytes", "object", "type", "print", "range", "isinstance", "issubclass",
        "getattr", "setattr", "hasattr", "enumerate", "zip", "map", "filter", "sorted", "min", "max", "sum",
        "any", "all", "abs", "iter", "next", "repr", "append", "items", "keys", "values", "pop",
        "update", "format", "join", "split", "strip", "startswith", "endswith", "replace", "lower", "upper",
        "Exception", "ValueError", "TypeError", "KeyError", "IndexError", "AttributeError", "RuntimeError",
        "NotImplementedError", "Any", "Optional", "Union", "List", "Dict", "Tuple", "Callable", "Iterable",
        "console", "log", "Object", "Array", "JSON", "Math", "Promise", "String", "Number", "Boolean",
        "Error", "push", "then", "catch", "length", "toString", "require", "make", "panic", "cap", "error",
        "string", "byte", "rune", "uint", "int64", "int32", "float64", "Some", "None", "Ok", "Err", "Vec",
        "Box", "Option", "Result", "Self", "println", "vec", "unwrap", "clone", "Integer", "System", "out",
        "printf", "malloc", "free", "memcpy", "memset", "strlen", "sizeof", "size_t", "puts", "attr_reader",
        "attr_accessor", "attr_writer", "raise", "property", "staticmethod", "classmethod", "require_relative", "load", "include", "extend", "private",
        "protected", "public", "pairs", "ipairs", "tostring", "tonumber", "pcall", "xpcall",
        "setmetatable", "getmetatable", "rawget", "rawset",
    }
)  # fmt: skip


_COMMON_BYTES = frozenset(name.encode() for name in _COMMON)


@dataclass
class _Def:
    """A definition node as read from the tree, before nesting is known."""

    outer: TSNode  # the byte range the symbol owns (wrappers included)
    first_line: int  # first line of the range (Rust attributes may precede ``outer``)
    name: str
    scope: tuple[str, ...]  # qualifiers spelled in the definition itself
    kind: str
    body: TSNode | None
    sig_start: int
    sig_limit: int
    sig_end: int | None  # Ruby: where the comments that open the body start, which end the signature
    doc_node: TSNode  # leading comments are the previous siblings of this node
    py_body: TSNode | None  # Python: the block whose first statement may be a docstring


def end_line(node: TSNode) -> int:
    """Last 1-based line of a node: a node that ends just after a newline ends on the line before."""
    row, column = node.end_point
    if column == 0 and row > node.start_point.row:
        return row
    return row + 1


def _scala_trailing(node: TSNode, column: int) -> TSNode | None:
    """Scala: the last of the comments an indented body of ``node`` ends with that stand at ``column`` or left
    of it, or None. The grammar ends an indented body (``def f =`` and the lines under it) where the next
    definition starts, so the comments above that one, its doc comment included, are the body's last
    children; a comment indented deeper is the body's own, as the language reads indentation."""
    current = node
    while current.child_count:
        current = current.children[-1]
        if current.type in _COMMENTS:
            return current if current.start_point.column <= column else None
        if not current.is_named:
            return None  # a closing brace, `end`: the body ends with it
    return None


def _scala_last_line(node: TSNode, data: bytes) -> int:
    """Scala: the line of a definition's last character that is neither space nor one of the comments after
    its body that belong to what follows (see :func:`_scala_trailing`)."""
    end = node.end_byte
    column = node.start_point.column
    trailing = _scala_trailing(node, column)
    while trailing is not None:
        end = trailing.start_byte
        before = trailing.prev_sibling
        comment = before is not None and before.type in _COMMENTS and before.start_point.column <= column
        trailing = before if comment else None
    text = data[node.start_byte : end]
    return node.start_point.row + 1 + text.rstrip().count(b"\n")


def _text(data: bytes, node: TSNode | None) -> str:
    if node is None:
        return ""
    return data[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _first_named(node: TSNode) -> TSNode | None:
    """The first named child, or None (``Node.named_child`` raises IndexError on a leaf)."""
    return node.named_child(0) if node.named_child_count else None


def _split_scope(text: str, separator: str) -> tuple[tuple[str, ...], str]:
    parts = [part.strip() for part in text.split(separator) if part.strip()]
    if not parts:
        return (), ""
    return tuple(parts[:-1]), parts[-1]


def _base_type(node: TSNode | None, data: bytes) -> str:
    """The plain type name inside ``*T``, ``&'a T``, ``T<U>``, ``pkg::T``: what a receiver or impl is for."""
    for _ in range(_NAME_DEPTH):
        if node is None:
            return ""
        if node.type in _TYPE_NAMES:
            return _text(data, node)
        inner = node.child_by_field_name("type") or node.child_by_field_name("name")
        node = inner if inner is not None else _first_named(node)
    return ""


def _c_declarator_name(node: TSNode) -> TSNode | None:
    """Follow C/C++ ``declarator`` fields (pointers, functions, parentheses) down to the declared name; an
    ``ERROR`` in parentheses is a macro the grammar cannot expand (``(ZCALLBACK *f)``): the name follows it.
    In ``LUA_API lua_CFunction lua_atpanic (…)`` (an export macro before a type's name) the grammar reads
    the macro as the type and the type as the name, and leaves the name in an ``ERROR`` before the
    parameters: the name is that."""
    current = node.child_by_field_name("declarator")
    for _ in range(_NAME_DEPTH):
        if current is None or current.type in _C_NAMES:
            return current
        misplaced = _name_in_error(current) or _name_in_parentheses(current)
        if misplaced is not None:
            return misplaced
        inner = current.child_by_field_name("declarator")
        if inner is None:
            inner = next((c for c in current.named_children if c.type != "ERROR"), None)
        current = inner
    return None


def _name_in_error(declarator: TSNode) -> TSNode | None:
    """The identifier an ``ERROR`` alone holds between a function declarator's name and its parameters."""
    if declarator.type != "function_declarator":
        return None
    named = declarator.named_children
    for before, error, after in zip(named, named[1:], named[2:], strict=False):
        if (
            before.type == "identifier"
            and error.type == "ERROR"
            and after.type == "parameter_list"
            and error.named_child_count == 1
            and error.named_children[0].type == "identifier"
        ):
            return error.named_children[0]
    return None


def _name_in_parentheses(declarator: TSNode) -> TSNode | None:
    """The name of ``LUALIB_API int (luaL_loadstring) (lua_State *L)`` (a definition's name in parentheses
    after an export macro): the grammar reads ``int (luaL_loadstring)`` as a function ``int`` declaring one
    parameter of type ``luaL_loadstring``, and that is the name."""
    inner = declarator.child_by_field_name("declarator") if declarator.type == "function_declarator" else None
    if inner is None or inner.type != "function_declarator":
        return None
    spelled, parameters = inner.child_by_field_name("declarator"), inner.child_by_field_name("parameters")
    if spelled is None or spelled.type != "identifier" or parameters is None:
        return None
    only = parameters.named_children
    if len(only) == 1 and only[0].type == "parameter_declaration" and only[0].named_child_count == 1:
        name = only[0].named_children[0]
        return name if name.type in ("type_identifier", "identifier") else None
    return None


def _c_declares_function(node: TSNode) -> bool:
    """Whether a C/C++ ``function_definition``'s declarator chain holds a function declarator, as every real
    one does (``f(void)``, ``*f(int)``, ``A::f()``); without it the grammar has misread macro-laden code."""
    current = node.child_by_field_name("declarator")
    for _ in range(_NAME_DEPTH):
        if current is None or current.type in _C_NAMES:
            return False
        if current.type in ("function_declarator", "abstract_function_declarator"):
            return True
        inner = current.child_by_field_name("declarator")
        current = inner if inner is not None else _first_named(current)
    return False


def _c_misread(node: TSNode, data: bytes) -> tuple[str, str, TSNode | None] | None:
    """(kind, name, node the range starts at) of what a C/C++ ``function_definition`` without a function
    declarator really is, or None when it is read right (or nothing better is known).

    ``struct EXPORT Name {…}`` / ``class API Name : public Base {…}`` (an export macro before the name) read
    as a function of type ``struct EXPORT`` named ``Name``: it is the struct or class ``Name`` (when a base
    follows, an ``ERROR`` before the declarator may hold the name). ``int CDECL main(void) {…}`` (a calling
    convention macro before the name) read as a declaration ``int CDECL`` missing its ``;`` and a function
    of type ``main`` declaring ``(void)``: it is the function ``main``, from the line of that declaration.
    ``GTEST_API_ class Foo {…}`` or ``FMT_BEGIN_NAMESPACE`` before ``namespace detail {…}`` (a macro before
    the keyword) read as a function named ``class`` or ``namespace``: it is that class or namespace."""
    if node.type != "function_definition" or _c_declares_function(node):
        return None
    spelled = node.child_by_field_name("type")
    declarator = node.child_by_field_name("declarator")
    if spelled is None or declarator is None:
        return None
    error = next((c for c in node.named_children if c.type == "ERROR"), None)
    keyword = _C_KEYWORD_KINDS.get(_text(data, declarator)) if declarator.type == "identifier" else None
    if keyword is not None:  # `MACRO class Name {…}`, `BEGIN_NAMESPACE namespace name {…}`
        named = (
            _first_named(error) if error is not None and error.start_byte > declarator.start_byte else None
        )
        return (
            (keyword, _text(data, named), None) if named is not None and named.type == "identifier" else None
        )
    if spelled.type in _C_SPECIFIERS and spelled.child_by_field_name("body") is None:
        named = (
            _first_named(error) if error is not None and error.start_byte < declarator.start_byte else None
        )
        if named is None or named.type != "identifier":
            named = declarator if declarator.type == "identifier" else None
        return (_KINDS[spelled.type], _text(data, named), None) if named is not None else None
    if declarator.type == "parenthesized_declarator" and spelled.type == "type_identifier":
        prev = node.prev_sibling
        glued = prev is not None and prev.type == "declaration" and prev.end_point.row == node.start_point.row
        return _FUNCTION, _text(data, spelled), prev if glued else None
    return None


def _c_function_name(declared: TSNode | None, data: bytes) -> tuple[tuple[str, ...], str]:
    """(scope, name) of a C/C++ declarator name; a conversion operator (``A::operator const T&() const``)
    is named ``operator const T&``: its parameters and qualifiers left out, its type never read as a scope."""
    cast = declared
    for _ in range(_NAME_DEPTH):
        if cast is None or cast.type != "qualified_identifier":
            break
        cast = cast.child_by_field_name("name")
    if declared is None or cast is None or cast.type != "operator_cast":
        return _split_scope(_strip_template(_text(data, declared)), "::")
    spelled = _text(data, cast).partition("(")[0]  # `operator T&() const` less its parameters and qualifiers
    prefix = data[declared.start_byte : cast.start_byte].decode("utf-8", "replace")
    scope, _ = _split_scope(_strip_template(prefix) + "_", "::")
    return scope, " ".join(spelled.split())


def _strip_template(text: str) -> str:
    if text.startswith("operator") or "<" not in text:
        return text
    return re.sub(r"<[^<>]*(?:<[^<>]*>[^<>]*)*>", "", text)


def _go_receiver(node: TSNode, data: bytes) -> tuple[str, ...]:
    receiver = node.child_by_field_name("receiver")
    if receiver is None:
        return ()
    for param in receiver.named_children:
        if param.type == "parameter_declaration":
            name = _base_type(param.child_by_field_name("type"), data)
            return (name,) if name else ()
    return ()


def _js_assignment_name(node: TSNode, data: bytes) -> tuple[tuple[str, ...], str]:
    left = node.child_by_field_name("left")
    prop = left.child_by_field_name("property") if left is not None else None
    obj = _text(data, left.child_by_field_name("object")) if left is not None else ""
    # `Foo.prototype.bar = function` defines a method of Foo; `module.exports.f = …` a plain function.
    scope = (obj.removesuffix(".prototype"),) if obj.endswith(".prototype") else ()
    if obj == "module" and _text(data, prop) == "exports":  # `module.exports = function createApp()`
        right = node.child_by_field_name("right")
        own = right.child_by_field_name("name") if right is not None else None
        if own is not None:
            return (), _text(data, own)
    return scope, _text(data, prop)


_SCOPED_NAMES = frozenset({"namespace_definition", "class_specifier", "struct_specifier", "union_specifier"})
"""C++ definitions whose name may carry its scope: ``namespace a::b {``, ``struct TableBuilder::Rep {``."""


_LUA_SCOPE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")


def _lua_target(node: TSNode) -> TSNode | None:
    """The name a Lua definition is given: a ``function`` statement's, the one variable of an assignment,
    a table constructor field's (``{ f = function() end }``; not ``{ [k] = function() end }``)."""
    if node.type == "assignment_statement":
        names = node.named_child(0)
        return names.child_by_field_name("name") if names is not None else None
    first = node.child(0)
    return None if first is None or first.type == "[" else node.child_by_field_name("name")


def _lua_function(node: TSNode) -> TSNode | None:
    """The function of a Lua definition: the statement itself, or the value assigned."""
    if node.type == "function_declaration":
        return node
    if node.type == "assignment_statement":
        values = node.named_child(1)
        return values.child_by_field_name("value") if values is not None else None
    return node.child_by_field_name("value")


def _lua_name(node: TSNode, data: bytes) -> tuple[tuple[str, ...], str]:
    """``f``, ``M.f`` and ``M:f`` give ``f`` in scope ``M`` (``a.b.c`` in scope ``a.b``); ``t[k]`` gives no
    name, and a table that is not a chain of names (``a[1].f``) or is ``self`` no scope."""
    target = _lua_target(node)
    if target is None:
        return (), ""
    if target.type == "identifier":
        return (), _text(data, target)
    if target.type not in ("dot_index_expression", "method_index_expression"):
        return (), ""  # `t[k] = function() end`
    own = target.child_by_field_name("method" if target.type == "method_index_expression" else "field")
    table = _text(data, target.child_by_field_name("table"))
    scope = tuple(table.split(".")) if _LUA_SCOPE.fullmatch(table) and table != "self" else ()
    return scope, _text(data, own)


def _lua_kind(node: TSNode) -> str:
    target = _lua_target(node)
    return _METHOD if target is not None and target.type == "method_index_expression" else _FUNCTION


def _lua_header_end(node: TSNode) -> int | None:
    """A Lua function's signature ends with its parameters."""
    function = _lua_function(node)
    parameters = function.child_by_field_name("parameters") if function is not None else None
    return parameters.end_byte if parameters is not None else None


def _name(node: TSNode, language: str, data: bytes) -> tuple[tuple[str, ...], str]:
    """(scope qualifiers, name) of a definition; an empty name means the definition is anonymous."""
    kind = node.type
    if language == L.LUA:
        return _lua_name(node, data)
    if kind == "assignment_expression":
        return _js_assignment_name(node, data)
    if kind == "field_definition":
        return (), _text(data, node.child_by_field_name("property"))
    if kind == "impl_item":
        return (), _base_type(node.child_by_field_name("type"), data)
    if kind == "type_alias_statement":  # Python `type Pairs[T] = list[tuple[T, T]]`
        return (), _base_type(node.child_by_field_name("left"), data)
    if kind == "method_declaration" and language == L.GO:
        return _go_receiver(node, data), _text(data, node.child_by_field_name("name"))
    if kind in ("function_definition", "type_definition") and language in (L.C, L.CPP):
        return _c_function_name(_c_declarator_name(node), data)
    name_node = node.child_by_field_name("name")
    if name_node is not None and name_node.type == "template_type":  # C++ `struct S<T, U>` specialization
        name_node = name_node.child_by_field_name("name")
    if language == L.RUBY or kind in _SCOPED_NAMES:
        return _split_scope(_text(data, name_node), "::")
    if kind == "module":  # TypeScript `declare module "foo"`
        return (), _text(data, name_node).strip("'\"")
    if language == L.KOTLIN:
        return (), _kotlin_name(node, name_node, data)
    return (), _text(data, name_node)


_BACKQUOTING = frozenset({L.SCALA, L.KOTLIN})
"""Languages where backquotes let any text be a name (``def `type` ``, ``fun `returns 404`()``)."""
_KOTLIN_CLASS_KINDS = {"interface": "interface", "enum": "enum", "annotation": "annotation"}
_KOTLIN_BODIES = frozenset({"class_body", "enum_class_body", "function_body", "block", "{"})
"""What starts a Kotlin definition's body (``{`` of a class the grammar failed to read)."""


_KOTLIN_CLASS_KEYWORDS = frozenset({"class", "interface", "object"})


def _kotlin_broken_class(node: TSNode) -> TSNode | None:
    """Kotlin: the name of the class an error node starts with (its modifiers, ``class``, ``interface`` or
    ``object``, a name), or None: where the grammar fails inside a class (``in1.skip()``, an annotated
    constructor), it may wrap the whole class, members and all, in one error node."""
    keyword = False
    for child in node.children:
        if child.type == "identifier":
            return child if keyword else None
        if child.type in _KOTLIN_CLASS_KEYWORDS:
            keyword = True
        elif child.type != "modifiers" and child.type not in _COMMENTS:
            return None
    return None


def _kotlin_name(node: TSNode, name_node: TSNode | None, data: bytes) -> str:
    """Kotlin: a definition's name as written; ``Companion`` for an unnamed companion object (as Kotlin names
    it), ``constructor`` for a secondary constructor, a type alias's from its ``type`` field, a class the
    grammar failed to read from the error node that holds it."""
    if node.type == "secondary_constructor":
        return "constructor"
    if node.type == "type_alias":
        name_node = node.child_by_field_name("type")
    if node.type == "ERROR":
        name_node = _kotlin_broken_class(node)
    if name_node is None:
        return "Companion" if node.type == "companion_object" else ""
    return _text(data, name_node)


def _kotlin_class_kind(node: TSNode) -> str:
    """Kotlin: ``interface`` (``fun interface`` too), ``enum`` or ``annotation`` by the keyword or class
    modifier that says so (``object`` for an error node that holds an object), else ``class`` (data, value,
    sealed, inner, abstract classes)."""
    for child in node.children:
        if child.type in ("interface", "object"):
            return child.type
        if child.type == "modifiers":
            for modifier in child.children:
                kind = _KOTLIN_CLASS_KINDS.get(modifier.text.decode()) if modifier.text else None
                if modifier.type == "class_modifier" and kind is not None:
                    return kind
    return "class"


def _kotlin_header_end(node: TSNode) -> int:
    """Kotlin: a header ends where a class's, object's or function's body starts (before a function's ``=``),
    else with the declaration (an abstract ``fun``, a class without a body, a type alias)."""
    body = next((child for child in node.children if child.type in _KOTLIN_BODIES), None)
    return body.start_byte if body is not None else node.end_byte


def _kind(node: TSNode, language: str) -> str:
    if language == L.LUA:
        return _lua_kind(node)
    if language == L.KOTLIN and node.type in ("class_declaration", "ERROR"):
        return _kotlin_class_kind(node)
    kind = _KIND_OVERRIDES.get(language, {}).get(node.type) or _KINDS.get(node.type, _FUNCTION)
    if node.type == "variable_declarator":
        value = node.child_by_field_name("value")
        return "class" if value is not None and value.type == "class" else _FUNCTION
    if node.type == "type_spec":
        inner = node.child_by_field_name("type")
        return _GO_TYPE_KINDS.get(inner.type, "type") if inner is not None else "type"
    if node.type == "type_definition":
        inner = node.child_by_field_name("type")
        if (
            inner is not None
            and inner.type in _C_SPECIFIERS
            and inner.child_by_field_name("body") is not None
        ):
            return _KINDS[inner.type]
    return kind


def _body(node: TSNode) -> TSNode | None:
    if node.type == "assignment_statement":  # Lua `M.f = function() … end`
        function = _lua_function(node)
        return function.child_by_field_name("body") if function is not None else None
    body = node.child_by_field_name("body")
    if body is not None:
        return body
    for field in ("value", "right"):  # JS: `const f = () => {…}`, `a.b = function () {…}`, class fields
        value = node.child_by_field_name(field)
        if value is not None:
            return value.child_by_field_name("body")
    return None


def _outer(node: TSNode) -> tuple[TSNode, TSNode]:
    """(range node, signature node): climb the single-definition statement and wrappers around ``node``."""
    outer = node
    parent = node.parent
    statements = _STATEMENTS.get(node.type)
    # `a.alias = a.f = function` : the whole chain is the statement of `f`.
    while (
        parent is not None
        and parent.type == "assignment_expression"
        and _same(parent.child_by_field_name("right"), outer)
    ):
        outer, parent = parent, parent.parent
    # `const a = 1, f = () => 0;` keeps the declarator's own range: the statement is not all `f`'s.
    if (
        parent is not None
        and statements is not None
        and parent.type in statements
        and parent.named_child_count == 1
    ):
        outer = parent
    signature = outer
    while outer.parent is not None and outer.parent.type in _RANGE_WRAPPERS:
        outer = outer.parent
        if outer.type in _SIGNATURE_WRAPPERS:
            signature = outer
    return outer, signature


def _first_node(outer: TSNode, language: str) -> TSNode:
    """First node of a symbol: Rust ``#[attributes]`` directly above an item belong to it, like decorators, and
    so do the decorators of a JavaScript / TypeScript class member (siblings of the member in the class body)
    and the Kotlin annotations the grammar reads as an expression of their own (see
    :func:`_kotlin_stray_annotation`)."""
    first = outer
    prev = first.prev_named_sibling
    while (
        prev is not None
        and (prev.type in _SIBLING_PREFIXES or (language == L.KOTLIN and _kotlin_stray_annotation(prev)))
        and end_line(prev) >= first.start_point.row
    ):
        first = prev
        prev = first.prev_named_sibling
    return first


_KOTLIN_ANNOTATION_PARTS = (
    frozenset({"annotation", "parenthesized_expression", "annotated_expression"}) | _COMMENTS
)


def _kotlin_stray_annotation(node: TSNode) -> bool:
    """Kotlin: an annotation with arguments above a declaration, which the grammar sometimes reads as an
    annotated parenthesized expression (``@OptIn(InternalAPI::class)``) standing before it."""
    return node.type == "annotated_expression" and all(
        child.type in _KOTLIN_ANNOTATION_PARTS
        and (child.type != "annotated_expression" or _kotlin_stray_annotation(child))
        for child in node.named_children
    )


def _after_annotations(node: TSNode, signature: TSNode) -> int:
    """Java and Kotlin: a signature starts after the annotations in ``modifiers`` (in the range, like
    decorators) and the comments among them (``@SuppressWarnings("unchecked") // safe``)."""
    modifiers = node.children[0] if node.child_count else None
    if modifiers is None or modifiers.type != "modifiers":
        return signature.start_byte
    for child in modifiers.children:
        if child.type not in _ANNOTATIONS and child.type not in _COMMENTS:
            return child.start_byte
    following = modifiers.next_sibling
    while following is not None and following.type in _COMMENTS:
        following = following.next_sibling
    return following.start_byte if following is not None else signature.start_byte


def _after_attributes(node: TSNode, signature: TSNode) -> int:
    """PHP: a signature starts after the attributes (``#[Route('/x')]``, in the range, like decorators) and
    the comments after them."""
    attributes = node.child_by_field_name("attributes")
    following = attributes.next_sibling if attributes is not None else None
    while following is not None and following.type in _COMMENTS:
        following = following.next_sibling
    return following.start_byte if following is not None else signature.start_byte


def _header_end(node: TSNode) -> int | None:
    """Java and PHP: where a declaration without a body (an abstract, interface or native method, an
    annotation type element) ends, before its ``;``: its signature is the whole header, however many lines
    it takes."""
    last = node.child(node.child_count - 1) if node.child_count else None
    if node.child_by_field_name("body") is not None or last is None or last.type != ";":
        return None
    return last.start_byte


_BODILESS = frozenset(
    {
        "method_signature",
        "abstract_method_signature",
        "function_signature",
        "function_signature_item",
        "method_elem",
        "method_spec",
    }
)
"""Declarations that never have a body: TypeScript interface methods, abstract methods and overloads, Rust
trait methods without a default, Go interface methods."""


def _bodiless_end(node: TSNode) -> int | None:
    """Where a declaration of :data:`_BODILESS` ends, before a closing ``;``: its signature is its whole
    header, however many lines it takes."""
    if node.type not in _BODILESS:
        return None
    last = node.child(node.child_count - 1) if node.child_count else None
    return last.start_byte if last is not None and last.type == ";" else node.end_byte


def _comment_before_body(node: TSNode, sig_start: int) -> int | None:
    """Where a comment between a definition's signature and its body starts (Ruby hangs the comments that
    open a body on the definition), or None."""
    body = node.child_by_field_name("body")
    for child in node.children:
        if body is not None and child.start_byte >= body.start_byte:
            break
        if child.type in _COMMENTS and child.start_byte > sig_start:
            return child.start_byte
    return None


def _macro_in_body(node: TSNode) -> bool:
    """Whether a C or C++ function definition stands in another function's body, not in a class defined
    there, and declares no function: C and C++ have no nested functions, so the grammar misread a macro,
    such as lua's ``vmcase(OP_MOVE) {…}`` case labels (a type ``vmcase`` and a parenthesized name). A GCC
    nested function declares one (``int inner(int x) {…}``) and is kept."""
    declarator = node.child_by_field_name("declarator")
    if node.type != "function_definition" or declarator is None or declarator.type == "function_declarator":
        return False
    current = node.parent
    while current is not None and current.type != "field_declaration_list":
        if current.type == "function_definition":
            return True
        current = current.parent
    return False


def _after_scala_annotations(node: TSNode) -> int:
    """Scala: a signature starts after the annotations (``@inline``, in the range, like decorators) and the
    comments among them."""
    return next(
        (
            child.start_byte
            for child in node.children
            if child.type != "annotation" and child.type not in _COMMENTS
        ),
        node.start_byte,
    )


_SCALA_BODY_MARKS = frozenset({"=", "with"})
_SCALA_TYPE_BODIES = frozenset({"refinement", "structural_type"})


def _scala_header_end(node: TSNode) -> int | None:
    """Scala: a header ends before the ``=`` of a ``def``'s or a given's body, or the ``with`` of a given's."""
    body = node.child_by_field_name("body")
    mark = body.prev_sibling if body is not None else None
    while mark is not None and mark.type in _COMMENTS:
        mark = mark.prev_sibling
    return mark.start_byte if mark is not None and mark.type in _SCALA_BODY_MARKS else None


def _signature_start(node: TSNode, signature: TSNode, language: str) -> int:
    if language in (L.JAVA, L.KOTLIN):
        return _after_annotations(node, signature)
    if language == L.PHP:
        return _after_attributes(node, signature)
    if language == L.SCALA:
        return _after_scala_annotations(node)
    return signature.start_byte


def _signature_end(node: TSNode, sig_start: int, language: str) -> int | None:
    if language in (L.JAVA, L.PHP):
        return _header_end(node)
    if language == L.SCALA:
        return _scala_header_end(node)
    if language == L.KOTLIN:
        return _kotlin_header_end(node)
    if language == L.RUBY:
        return _comment_before_body(node, sig_start)
    if language == L.LUA:
        return _lua_header_end(node)
    return _bodiless_end(node)


def _read_def(node: TSNode, language: str, data: bytes) -> _Def | None:
    if node.type in _C_SPECIFIERS and node.parent is not None and node.parent.type == "type_definition":
        return None  # `typedef struct {…} name;` is one symbol, read from the typedef
    if language in (L.C, L.CPP) and _macro_in_body(node):
        return None
    if language == L.SCALA and node.parent is not None and node.parent.type in _SCALA_TYPE_BODIES:
        return None  # `Foo { type F = Int }`, `{ def app: App }`: a member of a type, not a definition
    misread = _c_misread(node, data) if language in (L.C, L.CPP) else None
    scope, name = ((), misread[1]) if misread is not None else _name(node, language, data)
    if language in _BACKQUOTING:
        name = backquoted_name(name)
    if not name or (language in (L.C, L.CPP) and name in _C_STATEMENT_KEYWORDS):
        return None  # `else if (…) {…}` cut off by `#ifdef` reads as a function named `if`
    outer, signature = _outer(node)
    first = _first_node(outer, language)
    if misread is not None and misread[2] is not None:
        first = signature = misread[2]  # `int CDECL` of `int CDECL main(void)`
    sig_start = _signature_start(node, signature, language)
    return _Def(
        outer=outer,
        first_line=first.start_point.row + 1,
        name=name,
        scope=scope,
        kind=misread[0] if misread is not None else _kind(node, language),
        body=_body(node),
        sig_start=sig_start,
        sig_limit=outer.end_byte,
        sig_end=_signature_end(node, sig_start, language),
        doc_node=first,
        py_body=node.child_by_field_name("body") if language == L.PYTHON else None,
    )


# --- Docstrings and signatures -----------------------------------------------------------------------

_PY_STRING_START = re.compile(r"^([A-Za-z]*)(\"\"\"|'''|\"|')")
_PY_ESCAPE = re.compile(
    r"\\(\n|[\\'\"abfnrtv]|[0-7]{1,3}|x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|N\{[^}\n]*\})"
)
_PY_SIMPLE_ESCAPES = {
    "\n": "",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
}
_MAX_CODE_POINT = 0x10FFFF
_SURROGATES = range(0xD800, 0xE000)


def _bounded(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit]


def python_docstring(block: TSNode | None, data: bytes) -> str:
    """The docstring of a Python block (a body or the module) as ``ast.get_docstring`` gives it: its first
    statement, if string literals (concatenated, parenthesized) that are neither f-strings nor bytes, escapes
    decoded unless raw, cleaned."""
    child = _first_named(block) if block is not None else None
    while child is not None and child.type == "comment":
        child = child.next_named_sibling
    if child is None or child.type != "expression_statement" or child.named_child_count != 1:
        return ""
    value = _first_named(child)
    while value is not None and value.type == "parenthesized_expression" and value.named_child_count == 1:
        value = _first_named(value)
    if value is None or value.type not in ("string", "concatenated_string"):
        return ""
    parts = [value] if value.type == "string" else value.named_children
    texts: list[str] = []
    budget = MAX_DOCSTRING_CHARS * _BYTES_PER_CHAR
    for part in parts:
        text = _py_string(part, data, budget) if part.type == "string" else None
        if text is None:
            return ""  # an f-string or bytes literal is not a docstring
        texts.append(text)
        budget -= part.end_byte - part.start_byte
        if budget <= 0:
            break
    return _bounded(inspect.cleandoc("".join(texts)), MAX_DOCSTRING_CHARS)


def _py_string(string: TSNode, data: bytes, budget: int) -> str | None:
    """The value of one string literal, read from at most ``budget`` bytes; None for an f-string or bytes."""
    limit = string.start_byte + max(budget, 0)
    complete = string.end_byte <= limit
    text = data[string.start_byte : min(string.end_byte, limit)].decode("utf-8", "ignore")
    match = _PY_STRING_START.match(text)
    prefix = match.group(1).lower() if match is not None else ""
    if match is None or "f" in prefix or "b" in prefix:
        return None
    body = text[match.end() :].replace("\r\n", "\n")
    if complete:
        body = body.removesuffix(match.group(2))
    return body if "r" in prefix else _PY_ESCAPE.sub(_unescape, body)


def _unescape(match: re.Match[str]) -> str:
    """The character one escape sequence of a Python string stands for; an escape whose value no stored text
    can hold (a NUL, a lone surrogate) or that Python refuses (an unknown ``\\N{name}``) stays as written."""
    code = match.group(1)
    simple = _PY_SIMPLE_ESCAPES.get(code)
    if simple is not None:
        return simple
    if code.startswith("N"):
        try:
            return unicodedata.lookup(code[2:-1])
        except KeyError:
            return match.group(0)
    value = int(code[1:], 16) if code[0] in "xuU" else int(code, 8)
    if value == 0 or value > _MAX_CODE_POINT or value in _SURROGATES:
        return match.group(0)
    return chr(value)


_COMMENT_MARKERS = ("///", "//!", "//", "/**", "/*!", "/*", "#")
# A Java unicode escape: a backslash that an even number of backslashes precede, one or more `u`, four hex
# digits. javac translates these before reading anything else, so a Javadoc means the character.
_JAVA_UNICODE_ESCAPE = re.compile(r"(?<!\\)((?:\\\\)*)\\u+([0-9A-Fa-f]{4})")
_SURROGATE_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _java_unicode(text: str) -> str:
    """A Javadoc with its unicode escapes read as javac reads them (``\\u2192`` is ``→``; a surrogate pair is
    one character); an escape of NUL stays as written, and a lone surrogate, which no stored text can hold, is
    spelled ``\\uXXXX``."""
    if "\\u" not in text:
        return text

    def unit(match: re.Match[str]) -> str:
        value = int(match.group(2), 16)
        return match.group(1) + chr(value) if value else match.group(0)

    decoded = _JAVA_UNICODE_ESCAPE.sub(unit, text)
    decoded = _SURROGATE_PAIR.sub(
        lambda m: m.group(0).encode("utf-16-le", "surrogatepass").decode("utf-16-le"), decoded
    )
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group(0)):04X}", decoded)


_BULLET_LANGUAGES = frozenset({L.RUBY, L.RUST})
"""Languages whose line comments are RDoc or Markdown: a leading ``* `` there is a list item, not the margin
of a ``/* … */`` block, and is kept."""


def _clean_comment(text: str, bullets: bool = False) -> str:
    lines = []
    in_block = False
    for line in text.splitlines():
        stripped = line.strip()
        block = in_block or stripped.startswith("/*")
        in_block = block and not stripped.endswith("*/")
        for marker in _COMMENT_MARKERS:
            if stripped.startswith(marker):
                stripped = stripped[len(marker) :]
                break
        if stripped.endswith("*/"):  # `*/`, and the `**/` some close their doc comments with
            stripped = stripped[:-2].rstrip("*")
        stripped = stripped.strip()
        if (block or not bullets) and (stripped == "*" or stripped.startswith("* ")):
            stripped = stripped[1:].strip()
        lines.append(stripped)
    return "\n".join(lines).strip()


_LUA_OPEN = re.compile(r"--\[=*\[")
_LUA_CLOSE = re.compile(r"-*\]=*\]$")


def _clean_lua_comment(text: str) -> str:
    """A Lua doc comment's text: ``--``, ``---`` (LDoc, EmmyLua) and rules of dashes stripped from each line
    comment, a block comment's ``--[[`` and ``]]`` (any level; ``--]]`` too) from its first and last lines."""
    lines = []
    in_block = False
    for line in text.splitlines():
        stripped = line.strip()
        opened = _LUA_OPEN.match(stripped)
        if opened is not None:
            stripped, in_block = stripped[opened.end() :].lstrip("-"), True
        elif not in_block:
            stripped = stripped.lstrip("-")
        closed = _LUA_CLOSE.search(stripped) if in_block else None
        if closed is not None:
            stripped, in_block = stripped[: closed.start()], False
        lines.append(stripped.strip())
    return "\n".join(lines).strip()


_JSDOC_LANGUAGES = frozenset({L.JAVASCRIPT, L.TYPESCRIPT, L.TSX})


# Ruby nodes that hold the statements of a class, method, block, conditional or loop, and not the comments
# that open them: those are children of the class, block, `if`, `when` or `while` before the body node.
_RUBY_BODIES = frozenset({"body_statement", "block_body", "then", "do"})


def _previous(node: TSNode, language: str) -> TSNode | None:
    """The named node before ``node``; for the first definition of a Ruby body, the node before the body
    (the comments that open a class, block, branch or loop body are not children of the body), and for a
    Ruby method passed first to a call without a receiver (``private def x``), the node before the call;
    for the first statement of a Lua block, the node before the block, which holds the comments that open it."""
    prev = node.prev_named_sibling
    parent = node.parent
    if language == L.SCALA:
        return _scala_previous(node, prev)
    if language == L.LUA and prev is None and parent is not None and parent.type == "block":
        return parent.prev_named_sibling  # the comments that open a Lua block are before it, not in it
    if prev is not None or language != L.RUBY or parent is None:
        return prev
    if parent.type in _RUBY_BODIES:
        return parent.prev_named_sibling
    call = parent.parent
    if (
        parent.type == "argument_list"
        and call is not None
        and call.type == "call"
        and call.child_by_field_name("receiver") is None
    ):
        return _previous(call, language)
    return None


def _scala_previous(node: TSNode, prev: TSNode | None) -> TSNode | None:
    """Scala: the comment the body before ``node`` ends with (see :func:`_scala_trailing`); for the first
    statement of a body, a comment the grammar hung before the body (``def f =``, a comment, the lines of the
    body)."""
    if prev is None:
        before = node.parent.prev_named_sibling if node.parent is not None else None
        return before if before is not None and before.type in _COMMENTS else None
    if prev.type in _COMMENTS:
        return prev
    return _scala_trailing(prev, node.start_point.column) or prev


def _trails_code(comment: TSNode) -> bool:
    """Whether a comment ends a line that holds code (``f(); // note``, ``class A # :nodoc:``)."""
    before = comment.prev_sibling
    if before is None and comment.parent is not None and comment.parent.type == "body_statement":
        before = comment.parent.prev_sibling
    return before is not None and end_line(before) == comment.start_point.row + 1


def _after_lua_block(comment: TSNode, language: str) -> bool:
    """Whether a Lua comment follows a block comment on its line: the ``--`` of ``]]--``, with which many LDoc
    blocks close, is neither text nor a comment trailing code."""
    before = comment.prev_sibling
    return (
        language == L.LUA
        and before is not None
        and before.type in _COMMENTS
        and end_line(before) == comment.start_point.row + 1
    )


def _adjacent(comment: TSNode, line: int, language: str, closest: bool) -> bool:
    """Whether ``comment`` documents what starts on ``line``: it ends on the line above, or (the closest
    comment only) it is a JSDoc block one blank line above that is not the file's header."""
    last = end_line(comment)
    if last >= line - 1:
        return True
    return (
        closest
        and language in _JSDOC_LANGUAGES
        and last == line - 2
        and comment.prev_sibling is not None
        and comment.text is not None
        and comment.text.startswith(b"/**")
    )


def leading_comments(node: TSNode, data: bytes, first_line: int, language: str = "") -> tuple[str, int]:
    """(text, first line) of the doc comment directly above a definition (see the module docstring)."""
    if language == L.RUST:
        return _rust_leading(node, data)
    parts: list[str] = []
    line = first_line
    prev = _previous(node, language)
    while prev is not None and prev.type in _COMMENTS and _adjacent(prev, line, language, not parts):
        if not _after_lua_block(prev, language):
            if prev.start_point.row + 1 >= line or _trails_code(prev):
                break  # a trailing comment, on the definition's own line or on code above it
            parts.append(_text(data, prev).rstrip("\r\n"))  # a Rust line comment holds its newline
        line = prev.start_point.row + 1
        prev = _previous(prev, language)
    if not parts:
        return "", first_line
    joined = "\n".join(reversed(parts))
    if language == L.LUA:
        text = _clean_lua_comment(joined)
    else:
        text = _clean_comment(joined, language in _BULLET_LANGUAGES)
    return _bounded(text, MAX_DOCSTRING_CHARS), line


def _rust_marker(comment: TSNode, marker: str) -> bool:
    return any(child.type == marker for child in comment.children)


def _rust_leading(node: TSNode, data: bytes) -> tuple[str, int]:
    """(text, first line) of what rustc attaches to a Rust item: every outer attribute and ``///`` or
    ``/** */`` doc comment before it, in any order and across blank lines, plus the plain comments directly
    above one of them. A comment trailing an attribute (``#[test] // why``) is in the range, not the text; an
    inner doc comment (``//!``) documents the enclosing module and ends the run."""
    parts: list[str] = []
    line = node.start_point.row + 1
    prev = node.prev_named_sibling
    while prev is not None:
        if prev.type in _COMMENTS:
            if _rust_marker(prev, "inner_doc_comment_marker"):
                break
            before = prev.prev_sibling
            trailing = before is not None and end_line(before) == prev.start_point.row + 1
            if trailing and before is not None and before.type != "attribute_item":
                break  # a comment after code on the line above
            if (
                not trailing
                and end_line(prev) < line - 1
                and not _rust_marker(prev, "outer_doc_comment_marker")
            ):
                break  # a plain comment above a blank line
            if not trailing:
                parts.append(_text(data, prev).rstrip("\r\n"))  # a line comment holds its newline
        elif prev.type != "attribute_item":
            break
        line = prev.start_point.row + 1
        prev = prev.prev_named_sibling
    text = _clean_comment("\n".join(reversed(parts)), bullets=True)
    return _bounded(text, MAX_DOCSTRING_CHARS), line


def _signature(found: _Def, data: bytes) -> str:
    start = found.sig_start
    if found.sig_end is not None:
        end = found.sig_end
    elif found.body is not None and found.body.start_byte > start:
        end = found.body.start_byte
    else:  # no body (a declaration, a type alias): the first line
        newline = data.find(b"\n", start, found.sig_limit)
        end = found.sig_limit if newline < 0 else newline
    end = min(end, start + MAX_SIGNATURE_CHARS * _BYTES_PER_CHAR)
    text = data[start:end].decode("utf-8", "ignore").replace("\r\n", "\n")
    text = text.rstrip().removesuffix("{").rstrip()
    if found.body is not None and found.py_body is None:
        text = text.removesuffix(";").rstrip()  # Ruby `def f; 1 end`
    return _bounded(text, MAX_SIGNATURE_CHARS)


# --- Assembly -------------------------------------------------------------------------------------------


def _symbols(defs: list[_Def], spec: L.CodeSpec, data: bytes, drafts: Drafts) -> Owners:
    """Nest definitions by byte range (a stack sweep in document order) and append their drafts."""
    defs.sort(key=lambda d: (d.outer.start_byte, -d.outer.end_byte))
    stack: list[int] = []
    starts: list[int] = []
    ends: list[int] = []
    parents: list[int] = []
    for index, found in enumerate(defs):
        start, end = found.outer.start_byte, found.outer.end_byte
        while stack and ends[stack[-1]] <= start:
            stack.pop()
        parent = stack[-1] if stack else FILE
        starts.append(start)
        ends.append(end)
        parents.append(parent)
        stack.append(index)
        drafts.nodes.append(_draft(found, parent, drafts, spec, data))
    return Owners(starts, ends, parents)


def _draft(found: _Def, parent: int, drafts: Drafts, spec: L.CodeSpec, data: bytes) -> Draft:
    parent_draft = drafts.nodes[parent] if parent != FILE else None
    kind = found.kind
    if kind == _FUNCTION and (
        (parent_draft is not None and parent_draft.symbol_kind in spec.method_parents)
        or (found.scope and spec.name in (L.CPP, L.JAVASCRIPT, L.TYPESCRIPT, L.TSX))
    ):
        kind = _METHOD
    prefix = f"{parent_draft.qualname}." if parent_draft is not None else ""
    qualname = prefix + ".".join((*found.scope, found.name))
    if spec.name == L.PYTHON:
        docstring, doc_line = python_docstring(found.py_body, data), found.first_line
    else:
        docstring, doc_line = leading_comments(found.doc_node, data, found.first_line, spec.name)
    if spec.name == L.JAVA:
        docstring = _java_unicode(docstring)
    last = _scala_last_line(found.outer, data) if spec.name == L.SCALA else end_line(found.outer)
    if parent == FILE:
        drafts.covered.append((doc_line, last))
    return Draft(
        kind=NODE_SYMBOL,
        name=found.name,
        qualname=qualname,
        symbol_kind=kind,
        start_line=doc_line,
        end_line=max(last, found.first_line),
        parent=parent,
        signature=_signature(found, data),
        docstring=docstring,
    )


def _uses(nodes: list[TSNode], owner_of: Owners, drafts: Drafts, data: bytes) -> None:
    """Names used in each symbol, deduplicated per owner, each at its first occurrence, in file order.

    Query captures are not strictly in document order, so the earliest occurrence is kept explicitly.
    This loop runs for every captured identifier (hundreds per file): keep it lean.
    """
    own = [draft.name.encode("utf-8", "replace") for draft in drafts.nodes]
    first: dict[tuple[int, bytes], tuple[int, TSNode]] = {}
    for node in nodes:
        start = node.start_byte
        raw = data[start : node.end_byte]
        if len(raw) < MIN_USE_CHARS or raw in _COMMON_BYTES:
            continue
        owner = owner_of(start)
        if owner != FILE and own[owner] == raw:
            continue
        key = (owner, raw)
        seen = first.get(key)
        if seen is None or start < seen[0]:
            first[key] = (start, node)
    ordered = sorted(first.items(), key=lambda item: item[1][0])
    drafts.uses.extend(
        (owner, raw.decode("utf-8", "replace"), node.start_point.row + 1)
        for (owner, raw), (_, node) in ordered
    )


# --- References for who-uses ---------------------------------------------------------------------------

# Python identifiers that never reference a definition: parameters, names bound by imports (read apart).
_PY_BINDING_PARENTS = frozenset(
    {
        "parameters", "lambda_parameters", "typed_parameter", "list_splat_pattern",
        "dictionary_splat_pattern", "dotted_name", "aliased_import", "global_statement",
        "nonlocal_statement", "import_prefix", "relative_import",
    }
)  # fmt: skip
# Python nodes whose ``name`` field defines, not references, the identifier.
_PY_NAMING_PARENTS = frozenset(
    {
        "function_definition",
        "class_definition",
        "keyword_argument",
        "default_parameter",
        "typed_default_parameter",
    }
)
# Other grammars: the member node around a property/field name, and the field holding its object.
_RECEIVER_FIELDS = (
    "object",
    "operand",
    "value",
    "argument",
    "receiver",
    "path",
    "scope",
    "package",
    "module",
)
_LUA_RECEIVER_FIELDS = ("table",)
_CALL_TYPES = frozenset(
    {
        "call",
        "call_expression",
        "method_invocation",
        "new_expression",
        "object_creation_expression",  # Java's `new Foo(...)`: a call of Foo's constructor
        "macro_invocation",
        "field_initializer",  # C++'s `: Base(doc)` in a constructor: a call of Base's constructor
        "function_call",  # Lua
    }
)
_SIMPLE_RECEIVER = re.compile(r"[\w$]+(?:(?:\.|::)[\w$]+){0,5}")
_JS_LANGUAGES = frozenset({L.JAVASCRIPT, L.TYPESCRIPT, L.TSX})


def _same(a: TSNode | None, b: TSNode) -> bool:
    return a is not None and a.start_byte == b.start_byte and a.end_byte == b.end_byte


def _py_chain(node: TSNode | None, data: bytes) -> str:
    """A Python receiver as a dotted chain of names (``self.app``, ``super()``), a call spelled without its
    arguments (``app.test_client()``, ``make()``), else unknown."""
    parts: list[str] = []
    called = ""
    for _ in range(MAX_RECEIVER_PARTS):
        if node is None:
            break
        if node.type == "identifier":
            parts.append(_text(data, node) + called)
            return ".".join(reversed(parts))
        if node.type == "attribute":
            parts.append(_text(data, node.child_by_field_name("attribute")) + called)
            node, called = node.child_by_field_name("object"), ""
            continue
        function = node.child_by_field_name("function") if node.type == "call" else None
        if function is not None and function.type == "identifier" and _text(data, function) == "super":
            parts.append("super()")
            return ".".join(reversed(parts))
        if function is not None and function.type in ("identifier", "attribute") and not called:
            node, called = function, "()"
            continue
        break
    return UNKNOWN_RECEIVER


_Ref = tuple[str, str, str]
"""A reference as extraction keeps it: (name, how, spelled), see :class:`~prooftext.graph.model.Reference`."""


def _ref(name: str, how: str, receiver: str = "") -> _Ref:
    return name, how, spell(name, how, receiver)


def _py_member(node: TSNode, parent: TSNode, data: bytes) -> _Ref:
    """The member name ``node`` of the attribute ``parent``: called or read, through its receiver chain."""
    outer = parent.parent
    called = (
        outer is not None and outer.type == "call" and _same(outer.child_by_field_name("function"), parent)
    )
    receiver = _py_chain(parent.child_by_field_name("object"), data)
    return _ref(_text(data, node), HOW_CALL if called else HOW_READ, receiver)


def _names_type_alias(node: TSNode, parent: TSNode) -> bool:
    """Whether ``node`` is the name a ``type Name[T] = …`` statement defines."""
    left = parent.parent if parent.type == "generic_type" else parent
    if left is None or left.type != "type" or left.parent is None:
        return False
    statement = left.parent
    return (
        statement.type == "type_alias_statement"
        and _same(statement.child_by_field_name("left"), left)
        and _same(_first_named(parent), node)
    )


def _py_reference(node: TSNode, data: bytes, bound: frozenset[bytes]) -> _Ref | None:
    """What one Python identifier references, or None when it defines or binds a name, or is local."""
    parent = node.parent
    if parent is None or parent.type in _PY_BINDING_PARENTS:
        return None
    if parent.type in _PY_NAMING_PARENTS and _same(parent.child_by_field_name("name"), node):
        return None
    if _names_type_alias(node, parent):
        return None
    if parent.type == "attribute":
        if not _same(parent.child_by_field_name("attribute"), node):
            return None  # the receiver's first name: a module or variable, read as part of the chain
        return _py_member(node, parent, data)
    if parent.type == "call" and _same(parent.child_by_field_name("function"), node):
        return _ref(_text(data, node), HOW_CALL)
    raw = data[node.start_byte : node.end_byte]
    return _ref(_text(data, node), HOW_READ) if raw in bound else None


def _receiver_node(node: TSNode, parent: TSNode, language: str) -> TSNode | None:
    """The object a member ``node`` of ``parent`` is read through, or None: a field of ``parent`` (Lua's is
    its ``table``: ``a.f()``, ``a:f()``), or what a Java method reference (``Helper::convert``, which has no
    fields) spells before its ``::``."""
    if parent.type == "method_reference":
        target = _first_named(parent)
        return None if target is None or _same(target, node) else target
    for field in _LUA_RECEIVER_FIELDS if language == L.LUA else _RECEIVER_FIELDS:
        target = parent.child_by_field_name(field)
        if target is not None and not _same(target, node):
            return target
    return None


def _other_reference(node: TSNode, data: bytes, language: str) -> _Ref:
    """A ``@use`` capture of another grammar, with its receiver when it names a member."""
    name = _text(data, node)
    parent = node.parent
    receiver = ""
    target = _receiver_node(node, parent, language) if parent is not None else None
    while target is not None and target.type == "non_null_expression":  # TypeScript's `repo!.load()`
        target = target.named_child(0)
    if target is not None and language in (L.C, L.CPP):
        receiver = c_receiver(_text(data, target))
    elif target is not None and language in _JS_LANGUAGES:
        receiver = js_receiver(_text(data, target))
    elif language == L.PHP and node.type == "string_content":
        return _php_callable(node, data)
    elif language == L.PHP and parent is not None and parent.type == "qualified_name":
        receiver = _php_namespace(node, parent, data)  # `Command\ScriptAliasCommand`, `\Foo\helper()`
    elif target is not None and language == L.PHP:
        receiver = php_receiver(_text(data, target))
    elif target is not None:
        text = _text(data, target)
        receiver = text if _SIMPLE_RECEIVER.fullmatch(text) else UNKNOWN_RECEIVER
    while parent is not None and parent.type == "qualified_identifier" and parent.parent is not None:
        if parent.parent.type != "qualified_identifier":
            break
        parent = parent.parent  # C++'s `ns::Tracing::Reset()`: the call holds the outermost qualifier
    if language == L.PHP:
        called = _php_called(node, parent)
    else:
        called = any(
            n is not None and n.type in _CALL_TYPES for n in (parent, parent.parent if parent else None)
        )
    return _ref(name, HOW_CALL if called else HOW_READ, receiver)


def _php_callable(node: TSNode, data: bytes) -> _Ref:
    """A PHP method named by a callable array, read through the receiver its first element names:
    ``[$this, 'run']`` (``this``), ``[self::class, 'cmp']`` (``self``), ``[Foo::class, 'make']`` (``Foo``),
    ``['App\\Foo', 'make']`` (``App.Foo``)."""
    array = node.parent.parent.parent if node.parent and node.parent.parent else None
    first = array.named_children[0].named_children[0] if array is not None and array.named_children else None
    text = _text(data, first) if first is not None else ""
    if first is not None and first.type == "class_constant_access_expression":
        text = text.removesuffix("::class").strip() if text.endswith("::class") else ""
    elif first is not None and first.type == "string":
        text = text.strip("'").replace("\\\\", "\\")  # `'App\\Foo'` is `App\Foo`
    receiver = php_receiver(text) if text else UNKNOWN_RECEIVER
    return _ref(_text(data, node), HOW_READ, receiver)


def _php_namespace(node: TSNode, qualified: TSNode, data: bytes) -> str:
    """The namespace a PHP name is qualified with, as written, with a ``\\`` after it: ``Command\\`` of
    ``Command\\ScriptAliasCommand``, ``\\Foo\\`` of ``\\Foo\\helper()`` (a leading ``\\``: from the global
    namespace; without one, from an imported namespace or the file's own)."""
    return re.sub(r"\s", "", _text(data, qualified)[: node.start_byte - qualified.start_byte])


_PHP_MEMBER_CALLS = frozenset(
    {"member_call_expression", "nullsafe_member_call_expression", "scoped_call_expression"}
)


def _php_called(node: TSNode, parent: TSNode | None) -> bool:
    """Whether a PHP name is what a call calls: the function of a call, a method's name, or the class of
    ``new``; not the class a static method is called on (``Cache`` of ``Cache::get()``)."""
    named = parent if parent is not None and parent.type == "qualified_name" else node  # `\A\f()`
    outer = named.parent
    if outer is None:
        return False
    if outer.type == "object_creation_expression":
        return True
    if outer.type == "function_call_expression":
        return _same(outer.child_by_field_name("function"), named)
    return outer.type in _PHP_MEMBER_CALLS and _same(outer.child_by_field_name("name"), named)


def _references(
    language: str,
    captures: dict[str, list[TSNode]],
    owner_of: Owners,
    drafts: Drafts,
    data: bytes,
) -> None:
    """Spelled references for who-uses: one per (owner, reference) at its first line, common names kept.

    A reference too short to resolve is dropped before its owner is looked up, and the line of a
    reference is read from its node only when it is kept (most repeat an earlier one of the same owner)."""
    found: list[tuple[int, _Ref, TSNode]] = []  # (start byte, reference, node giving its line)
    if language == L.PYTHON:
        bound = {draft.name.encode("utf-8", "replace") for draft in drafts.nodes}
        for node in captures.get("import", []):
            start = node.start_byte
            for ref in python_bindings(node, data):
                found.append((start, (ref.name, ref.how, ref.spelled()), node))
                bound.add(ref.binding.encode("utf-8", "replace"))
        frozen = frozenset(bound)
        # Calls and members are captured apart; any other name is a reference only when the file defines or
        # imports it, which its bytes tell before any look at its tree (most names are local variables).
        refs = [(n, _ref(_text(data, n), HOW_CALL)) for n in captures.get("ref.call", [])]
        refs += [(n, _py_member(n, n.parent, data)) for n in captures.get("ref.member", []) if n.parent]
        for node in captures.get("ref", []):
            if data[node.start_byte : node.end_byte] in frozen and (
                py_ref := _py_reference(node, data, frozen)
            ):
                refs.append((node, py_ref))
        found.extend((node.start_byte, ref, node) for node, ref in refs)
    else:
        found.extend(
            (node.start_byte, _other_reference(node, data, language), node)
            for node in captures.get("use", [])
        )
    found.sort(key=_START)
    seen: set[tuple[int, str, int]] = set()
    short = (HOW_CALL, HOW_READ)
    scoped = language == L.GO
    for start, (name, how, spelled), node in found:
        if len(name) < MIN_USE_CHARS and how in short:
            continue
        owner = owner_of(start)
        key = (owner, spelled, _literal_scope(node) if scoped else -1)
        if key in seen:
            continue
        seen.add(key)
        drafts.uses.append((owner, spelled, node.start_point.row + 1))


_SCOPES = frozenset({"func_literal", "function_declaration", "method_declaration", "source_file"})


def _literal_scope(node: TSNode) -> int:
    """Go: where the innermost function literal holding ``node`` starts (-1 outside any). A name may hold
    another type there (``func(r chi.Router)`` inside a function whose ``r`` is a ``*Mux``), so a
    reference is kept once per literal, not once per function: who-uses types each at its own line."""
    current = node.parent
    while current is not None and current.type not in _SCOPES:
        current = current.parent
    return current.start_byte if current is not None and current.type == "func_literal" else -1


_START = operator.itemgetter(0)


def _errors(tree: Tree) -> int:
    """How many error and missing nodes a parse holds (only subtrees with an error are walked)."""
    count = 0
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        count += node.is_error or node.is_missing
        stack.extend(child for child in node.children if child.has_error or child.is_missing)
    return count


_C_STATEMENT_MACRO = re.compile(
    rb"^[ \t]*[A-Z][A-Z0-9]*_[A-Z0-9_]*(\([^();\n]*\))?[ \t]*(?://[^\n]*)?(?=\r?$)", re.MULTILINE
)
"""A line holding only an upper-case name with an underscore, perhaps with arguments (``FMT_BEGIN_NAMESPACE``,
``DOCTEST_MSVC_SUPPRESS_WARNING_WITH_PUSH(4866)``)."""
_C_STATEMENT_ENDS = (b";", b"{", b"}", b":", b"*/")


_C_CALLING_CONVENTION = re.compile(rb"\(\s*([A-Z][A-Z0-9_]+)\s*\*\s*\w+\s*\)\s*\(")
"""``(ZCALLBACK *name)(`` : a calling convention macro in a function pointer declarator."""


_CPP_EXPORT_MACRO = re.compile(
    rb"\b(?:class|struct|union)[ \t]+([A-Z][A-Z0-9_]*)[ \t]+(?=[A-Za-z_]\w*\s*(?::|\{|final\b))"
)
"""An export macro between ``class`` and the class's name: ``class TINYXML2_LIB XMLNode : public Base {``,
``class LEVELDB_EXPORT DB {``."""


def _blank_macros(data: bytes) -> bytes:
    """``data`` with the macros the C and C++ grammars misread blanked (same length, so every offset and line
    holds). A statement-like macro alone on its line: ``FMT_BEGIN_NAMESPACE`` opens a namespace the grammar
    cannot see, and read as a type it swallows the definition below; only after a line that ends a
    statement, a block, a label, a comment or a directive (an enumerator or an argument alone on its line
    follows a comma or an open bracket), and not with arguments above a ``{``. A calling convention in a
    function pointer declarator: ``typedef void (ZCALLBACK *free_func)(void *p)``. An export macro before
    a class's name (:data:`_CPP_EXPORT_MACRO`), which the C++ grammar reads as the name, and the real name
    as an error that breaks the class's body into pieces."""
    statements = _C_STATEMENT_MACRO.search(data) is not None
    conventions = _C_CALLING_CONVENTION.search(data) is not None
    exports = _CPP_EXPORT_MACRO.search(data) is not None
    if not statements and not conventions and not exports:
        return data
    out = bytearray(data)
    for pattern in (_C_CALLING_CONVENTION, _CPP_EXPORT_MACRO) if conventions or exports else ():
        for match in pattern.finditer(data):
            out[match.start(1) : match.end(1)] = b" " * (match.end(1) - match.start(1))
    for match in _C_STATEMENT_MACRO.finditer(data) if statements else ():
        before = data[: match.start()].rstrip()
        last_line = before[before.rfind(b"\n") + 1 :].lstrip()
        if before and not (last_line.startswith((b"#", b"//")) or before.endswith(_C_STATEMENT_ENDS)):
            continue
        if match.group(1) and data[match.end() :].lstrip().startswith(b"{"):
            continue  # `TEST_SETUP(group)` above `{`: the head of a function a macro names
        out[match.start() : match.end()] = b" " * (match.end() - match.start())
    return bytes(out)


_CPP_MARKER = re.compile(rb"\b(?:namespace|class|template)\b|::")
"""Words a C++ header holds and a C one almost never: only such a header is read a second time."""


_TS_CALL_SIGNATURE = re.compile(rb"^([ \t]*)[ \t](?=<)", re.MULTILINE)
"""An indented line that starts with ``<``: in TypeScript, a generic call signature of an interface or type
literal (``<I, R>(handler: H<I, R>): R``), which the grammar reads as a comparison with the line above when
no ``;`` ends that one (two such signatures in a row lose the rest of the file to one error)."""


def _ts_separated(data: bytes) -> bytes:
    """``data`` with a ``;`` in the last indentation character before each line starting ``<``: the same
    bytes at the same offsets, each call signature ended as TypeScript reads it."""
    return _TS_CALL_SIGNATURE.sub(rb"\1;", data)


def _parse(language: str, data: bytes, header: bool) -> tuple[str, Query, Tree] | None:
    """(language read in, its query, the tree) of a code file. A C header (``.h``) the C grammar reads with
    errors is read as C++ when that grammar reads it with fewer: ``.h`` is as common for C++ headers (a
    class, a namespace, a template) as for C ones, and the C grammar keeps little of those. A TypeScript file
    read with errors is read again with its call signatures ended (:func:`_ts_separated`), kept when that
    reading has fewer."""
    loaded = L.grammar(language)
    if loaded is None:
        return None
    lang, query = loaded
    source = _blank_macros(data) if language in (L.C, L.CPP) else data
    tree = L.parser(language, lang).parse(source)
    maybe_cpp = header and language == L.C and tree.root_node.has_error and _CPP_MARKER.search(data)
    cpp = L.grammar(L.CPP) if maybe_cpp else None
    if cpp is not None:
        other = L.parser(L.CPP, cpp[0]).parse(source)
        if _errors(other) < _errors(tree):
            return L.CPP, cpp[1], other
    if language == L.TYPESCRIPT and tree.root_node.has_error and _TS_CALL_SIGNATURE.search(data):
        other = L.parser(language, lang).parse(_ts_separated(data))
        if _errors(other) < _errors(tree):
            return language, query, other
    return language, query, tree


def extract_code(language: str, data: bytes, header: bool = False) -> Drafts | None:
    """Symbols, uses and imports of a code file; None when the language's grammar is unavailable.
    ``header``: the file is a C header (``.h``), which may be C++ (see :func:`_parse`)."""
    parsed = _parse(language, data, header)
    if parsed is None:
        return None
    language, query, tree = parsed
    captures = QueryCursor(query).captures(tree.root_node)
    drafts = Drafts()
    unique = {node.id: node for node in captures.get("def", [])}  # one node may match two patterns
    ordered = sorted(unique.values(), key=lambda n: (n.start_byte, -n.end_byte))[:MAX_SYMBOLS_PER_FILE]
    defs = [d for d in (_read_def(n, language, data) for n in ordered) if d is not None]
    owner_of = _symbols(defs, L.SPECS[language], data, drafts)
    _uses(captures.get("use", []), owner_of, drafts, data)
    _references(language, captures, owner_of, drafts, data)
    for node in sorted(captures.get("import", []), key=lambda n: n.start_byte)[:MAX_IMPORTS_PER_FILE]:
        for module, names in read_imports(language, node, data):
            drafts.imports.append((owner_of(node.start_byte), module, node.start_point.row + 1, names))
    if language == L.PYTHON:
        drafts.file_docstring = python_docstring(tree.root_node, data)
    return drafts
