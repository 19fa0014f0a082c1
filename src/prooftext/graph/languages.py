"""Which language a path is, and how each tree-sitter grammar names its definitions, uses and imports.

Language by extension (the last suffix of the basename, compared in lower case):

========================================================  ==============
extensions                                                language
========================================================  ==============
``.py`` ``.pyi``                                          ``python``
``.js`` ``.mjs`` ``.cjs`` ``.jsx``                        ``javascript``
``.ts`` ``.mts`` ``.cts``                                 ``typescript``
``.tsx``                                                  ``tsx``
``.go``                                                   ``go``
``.rs``                                                   ``rust``
``.java``                                                 ``java``
``.c`` ``.h``                                             ``c``
``.cc`` ``.cpp`` ``.cxx`` ``.hpp`` ``.hh`` ``.hxx``       ``cpp``
``.rb``                                                   ``ruby``
``.php``                                                  ``php``
``.scala``                                                ``scala``
``.kt`` ``.kts``                                          ``kotlin``
``.lua``                                                  ``lua``
``.md`` ``.markdown``                                     ``markdown``
``.rst``                                                  ``rst``
========================================================  ==============

Anything else is plain text (``language_for`` returns None) and is cut into line-window chunks.

Case: ``Foo.PY`` is Python, as :func:`prooftext.corpus.kinds.kind_for` (which also lower-cases) calls it
code; a case-sensitive match read it as plain text. The exceptions are where case carries meaning by
convention (:data:`CASE_SENSITIVE_EXTENSIONS`): GCC reads ``.C`` as C++ source and ``.H`` as a C++ header,
so those two exact spellings are ``cpp`` (their kind stays ``code`` either way). Other upper-case spellings
(``.CC``, ``.CPP``, ``.HPP``) already name C++ in lower case.

``.h`` is C by its extension (its ``FileGraph.language``), but ``.h`` names C++ headers as often: a header
the C grammar reads with errors is read with the C++ grammar when that one reads it with fewer errors (a
class, a namespace, a template), so its classes and methods are symbols (see ``code.extract_code``).

Each code language has one tree-sitter query whose captures are ``@def`` (a definition node), ``@use`` (an
identifier that names something defined elsewhere: a called function, an attribute, a type) and
``@import`` (a node naming an imported module). One query means one traversal of the tree per file, which
matters: walking the tree costs about as much as a third of parsing it.

Uses are names in *calls*, *types*, decorators, base classes (a generic base ``Mixin[App]`` names both) and
exception clauses, not every attribute read: ``self.shape`` or ``obj.name`` name data far more often than a
definition, and would tie a function to every method called ``name``. Those plain-name uses feed ranking.
Who-uses needs more, and Python captures every identifier as ``@ref`` besides: code.py keeps each call, each
attribute with its receiver (``callback=self.run`` included) and each read of a name the file defines or
imports, as a spelled :class:`~prooftext.graph.model.Reference`. Other languages spell their ``@use`` captures
the same way.
"""

from __future__ import annotations

import importlib
import posixpath
import threading
from dataclasses import dataclass
from functools import cache

from tree_sitter import Language, Parser, Query

PYTHON = "python"
JAVASCRIPT = "javascript"
TYPESCRIPT = "typescript"
TSX = "tsx"
GO = "go"
RUST = "rust"
JAVA = "java"
C = "c"
CPP = "cpp"
RUBY = "ruby"
PHP = "php"
SCALA = "scala"
KOTLIN = "kotlin"
LUA = "lua"
MARKDOWN = "markdown"
RST = "rst"
TEXT = "text"
"""The ``FileGraph.language`` of a file no parser reads (``language_for`` returns None for it)."""

EXTENSIONS: dict[str, str] = {
    ".py": PYTHON,
    ".pyi": PYTHON,
    ".js": JAVASCRIPT,
    ".mjs": JAVASCRIPT,
    ".cjs": JAVASCRIPT,
    ".jsx": JAVASCRIPT,
    ".ts": TYPESCRIPT,
    ".mts": TYPESCRIPT,
    ".cts": TYPESCRIPT,
    ".tsx": TSX,
    ".go": GO,
    ".rs": RUST,
    ".java": JAVA,
    ".c": C,
    ".h": C,
    ".cc": CPP,
    ".cpp": CPP,
    ".cxx": CPP,
    ".hpp": CPP,
    ".hh": CPP,
    ".hxx": CPP,
    ".rb": RUBY,
    ".php": PHP,
    ".scala": SCALA,
    ".kt": KOTLIN,
    ".kts": KOTLIN,
    ".lua": LUA,
    ".md": MARKDOWN,
    ".markdown": MARKDOWN,
    ".rst": RST,
}

CASE_SENSITIVE_EXTENSIONS: dict[str, str] = {".C": CPP, ".H": CPP}
"""Spellings matched exactly, before the lower-case table: upper-case ``.C``/``.H`` are C++ for GCC."""

CODE_LANGUAGES: tuple[str, ...] = (
    PYTHON,
    JAVASCRIPT,
    TYPESCRIPT,
    TSX,
    GO,
    RUST,
    JAVA,
    C,
    CPP,
    RUBY,
    PHP,
    SCALA,
    KOTLIN,
    LUA,
)


def language_for(path: str) -> str | None:
    """The language of a portable relative path by its extension, or None for plain text (see the module
    docstring: lower case, except :data:`CASE_SENSITIVE_EXTENSIONS`)."""
    _, ext = posixpath.splitext(posixpath.basename(path))
    exact = CASE_SENSITIVE_EXTENSIONS.get(ext)
    return exact if exact is not None else EXTENSIONS.get(ext.lower())


# --- Queries -------------------------------------------------------------------------------------------
# Only *which* nodes are definitions is decided here; names, kinds and ranges are read in code.py, because
# several grammars need a small walk (C declarators, Go receivers, JS `const f = () => …`). A top-level
# `const Button = forwardRef((props, ref) => …)` (or `memo(function Row() …)`, one call deeper too) defines a
# function: React components are written so, with a capital. `const names = list.map((x) => …)` is a value,
# and so is a call with a callback inside a function.
#
# Python's `type Name[T] = …` is a definition; the grammar also reads the assignment `type(x).a = 1` as
# one, so only a plain or generic name counts (two patterns: an alternation of the two matched the attribute).

_PY_QUERY = """
(class_definition) @def
(function_definition) @def
(type_alias_statement left: (type (identifier))) @def
(type_alias_statement left: (type (generic_type))) @def
(call function: [(identifier) @use (attribute attribute: (identifier) @use)])
(type [(identifier) @use (attribute attribute: (identifier) @use)])
(generic_type [(identifier) @use (attribute attribute: (identifier) @use)])
(decorator [(identifier) @use (attribute attribute: (identifier) @use)])
(class_definition superclasses: (argument_list [(identifier) @use (attribute attribute: (identifier) @use)]))
(class_definition superclasses: (argument_list (subscript
  value: [(identifier) @use (attribute attribute: (identifier) @use)])))
(class_definition superclasses: (argument_list (subscript
  subscript: [(identifier) @use (attribute attribute: (identifier) @use)])))
(except_clause [(identifier) @use (attribute attribute: (identifier) @use)])
(except_clause (as_pattern . [(identifier) @use (attribute attribute: (identifier) @use)]))
(call function: (identifier) @_isa arguments: (argument_list (identifier) @use)
  (#any-of? @_isa "isinstance" "issubclass"))
(import_statement) @import
(import_from_statement) @import
(call function: (identifier) @ref.call)
(attribute attribute: (identifier) @ref.member)
(identifier) @ref
"""

_JS_COMMON = """
(class_declaration) @def
(function_declaration) @def
(generator_function_declaration) @def
(method_definition) @def
(variable_declarator name: (identifier) value: [(arrow_function) (function_expression) (generator_function) (class)]) @def
(program (lexical_declaration (variable_declarator name: (identifier) @_component value: (call_expression
  arguments: [
    (arguments [(arrow_function) (function_expression)])
    (arguments (call_expression arguments: (arguments [(arrow_function) (function_expression)])))])) @def)
  (#match? @_component "^[A-Z]"))
(program (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @_component
  value: (call_expression arguments: [
    (arguments [(arrow_function) (function_expression)])
    (arguments (call_expression arguments: (arguments [(arrow_function) (function_expression)])))])) @def))
  (#match? @_component "^[A-Z]"))
(assignment_expression
  left: (member_expression property: (property_identifier))
  right: [(arrow_function) (function_expression) (generator_function)]) @def
(call_expression function: [(identifier) @use (member_expression property: (property_identifier) @use)])
(call_expression function: (member_expression property: (private_property_identifier) @use))
(new_expression constructor: [(identifier) @use (member_expression property: (property_identifier) @use)])
(import_statement source: (string) @import)
(export_statement source: (string) @import)
(call_expression function: (identifier) @_req arguments: (arguments . (string) @import)
  (#eq? @_req "require"))
(call_expression function: (import) arguments: (arguments . (string) @import))
"""

_JS_QUERY = (
    _JS_COMMON
    + """
(field_definition property: [(property_identifier) (private_property_identifier)]
  value: [(arrow_function) (function_expression) (generator_function)]) @def
(class_heritage (identifier) @use)
(jsx_opening_element name: (identifier) @use)
(jsx_self_closing_element name: (identifier) @use)
"""
)

_TS_QUERY = (
    _JS_COMMON
    + """
(abstract_class_declaration) @def
(interface_declaration) @def
(enum_declaration) @def
(type_alias_declaration) @def
(function_signature) @def
(method_signature) @def
(abstract_method_signature) @def
(public_field_definition name: [(property_identifier) (private_property_identifier)]
  value: [(arrow_function) (function_expression) (generator_function)]) @def
(internal_module) @def
(module) @def
(type_identifier) @use
(extends_clause value: (identifier) @use)
"""
)

_TSX_QUERY = (
    _TS_QUERY
    + """
(jsx_opening_element name: (identifier) @use)
(jsx_self_closing_element name: (identifier) @use)
"""
)

_GO_QUERY = """
(function_declaration) @def
(method_declaration) @def
(type_spec) @def
(type_alias) @def
(method_elem) @def
(call_expression function: [(identifier) @use (selector_expression field: (field_identifier) @use)])
(type_identifier) @use
(import_spec path: (_) @import)
"""

_RUST_QUERY = """
(struct_item) @def
(enum_item) @def
(union_item) @def
(trait_item) @def
(impl_item) @def
(function_item) @def
(function_signature_item) @def
(mod_item body: (_)) @def
(type_item) @def
(macro_definition) @def
(call_expression function: [(identifier) @use (field_expression field: (field_identifier) @use)])
(scoped_identifier name: (identifier) @use)
(type_identifier) @use
(macro_invocation macro: (identifier) @use)
(use_declaration argument: (_) @import)
(mod_item) @import
"""

# Java: an annotation type's elements (`String value() default "";`) are its methods, as javac reads them. A
# method reference names a method (`Helper::convert`, `this::run`) or, before `::new`, a class: its last
# named child. `var` in `var x = …` reads as a type but names none.
_JAVA_QUERY = """
(class_declaration) @def
(interface_declaration) @def
(enum_declaration) @def
(record_declaration) @def
(annotation_type_declaration) @def
(method_declaration) @def
(constructor_declaration) @def
(compact_constructor_declaration) @def
(annotation_type_element_declaration) @def
(method_invocation name: (identifier) @use)
((type_identifier) @use (#not-eq? @use "var"))
(marker_annotation name: [(identifier) @use (scoped_identifier name: (identifier) @use)])
(annotation name: [(identifier) @use (scoped_identifier name: (identifier) @use)])
(method_reference (identifier) @use .)
(import_declaration) @import
"""

_C_DEFS = """
(function_definition) @def
(struct_specifier body: (_)) @def
(union_specifier body: (_)) @def
(enum_specifier body: (_)) @def
(type_definition) @def
(call_expression function: [(identifier) @use (field_expression field: (field_identifier) @use)])
(type_identifier) @use
(preproc_include path: (_) @import)
"""

_CPP_QUERY = (
    _C_DEFS
    + """
(class_specifier body: (_)) @def
(namespace_definition name: (_) body: (_)) @def
(alias_declaration) @def
(qualified_identifier name: (identifier) @use)
(template_function name: (identifier) @use)
(field_initializer (field_identifier) @use)
"""
)

_RUBY_QUERY = """
(class) @def
(module) @def
(method) @def
(singleton_method) @def
(call method: (identifier) @use)
(constant) @use
(call !receiver method: (identifier) @_req arguments: (argument_list . (string) @import)
  (#any-of? @_req "require" "require_relative" "load"))
"""

# PHP: a name is used by a call (of a function, a method, a static method), `new`, a type, a base class, an
# interface, a used trait, an attribute, a class constant (`Foo::BAR`, `Foo::class`) and `instanceof`; a
# namespace-qualified name (`\Foo\bar()`) by its last part; a method by a callable array (`[$this, 'run']`,
# `[Foo::class, 'make']`, `['App\Foo', 'make']`). Namespaces are not definitions (as Java's packages): a
# class is named without its namespace.
_PHP_NAMES = "[(name) @use (qualified_name (name) @use)]"
_PHP_QUERY = f"""
(class_declaration) @def
(interface_declaration) @def
(trait_declaration) @def
(enum_declaration) @def
(function_definition) @def
(method_declaration) @def
(function_call_expression function: {_PHP_NAMES})
(member_call_expression name: (name) @use)
(nullsafe_member_call_expression name: (name) @use)
(scoped_call_expression name: (name) @use)
(scoped_call_expression scope: {_PHP_NAMES})
(object_creation_expression {_PHP_NAMES})
(class_constant_access_expression . {_PHP_NAMES})
(named_type {_PHP_NAMES})
(base_clause {_PHP_NAMES})
(class_interface_clause {_PHP_NAMES})
(use_declaration {_PHP_NAMES})
(attribute {_PHP_NAMES})
(binary_expression operator: "instanceof" right: {_PHP_NAMES})
(array_creation_expression . (array_element_initializer [(variable_name) (class_constant_access_expression)])
  . (array_element_initializer [(string . (string_content) @use .) (encapsed_string . (string_content) @use .)]) .
  (#match? @use "^[A-Za-z_][A-Za-z0-9_]*$"))
(array_creation_expression . (array_element_initializer (string) @_class)
  . (array_element_initializer [(string . (string_content) @use .) (encapsed_string . (string_content) @use .)]) .
  (#match? @_class "^'.?[A-Z][^' ]*'$") (#match? @use "^[A-Za-z_][A-Za-z0-9_]*$"))
(namespace_use_declaration) @import
(include_expression) @import
(include_once_expression) @import
(require_expression) @import
(require_once_expression) @import
"""

# Scala: classes, traits, objects (package objects too), Scala 3 enums, `def`s (abstract ones and secondary
# constructors, named `this`, too), `type` members and aliases, and named givens are definitions; a member of
# a refinement or structural type (`Foo { type F = Int }`, `{ def app: App }`) is not (code.py skips it). A
# name is used by a call (`f(x)`, `a.f(x)`, `f[T](x)`), `new`, a type (base classes and traits included) and
# an annotation.
_SCALA_QUERY = """
(class_definition) @def
(trait_definition) @def
(object_definition) @def
(package_object) @def
(enum_definition) @def
(function_definition) @def
(function_declaration) @def
(type_definition) @def
(given_definition name: (_)) @def
(call_expression function: [(identifier) @use (field_expression field: (identifier) @use)])
(call_expression function: (generic_function function: [(identifier) @use (field_expression field: (identifier) @use)]))
(instance_expression [(type_identifier) @use (generic_type type: (type_identifier) @use)])
(type_identifier) @use
(import_declaration) @import
"""

# Kotlin: classes (interfaces, enum and annotation classes included), objects and companion objects, `fun`s,
# secondary constructors and type aliases are definitions; properties, enum entries, init blocks and object
# expressions are not (what an enum entry's or an object expression's body holds is the enclosing
# definition's). Where the grammar fails inside a class, it may wrap the whole class in an error node that
# starts with its header (`class A : B {`): code.py reads such a node as the class. A name is used by a call
# (`f(x)`, `a.f(x)`, `f { }`; the grammar reads `f<T>(x)` as two comparisons), a type (supertypes, a
# constructor call in a supertype list and annotations included) and a callable reference (`::f`, `A::f`).
_KOTLIN_QUERY = """
(class_declaration) @def
(object_declaration) @def
(companion_object) @def
(function_declaration) @def
(secondary_constructor) @def
(type_alias) @def
(ERROR) @def
(call_expression . [(identifier) @use (navigation_expression (identifier) @use .)])
(user_type (identifier) @use)
(callable_reference (identifier) @use .)
(navigation_expression "::" (identifier) @use .)
(import) @import
"""

# Lua: a definition is a `function` statement (`function f()`, `local function f()`, `function M.f()`,
# `function M:f()`) or a function value given one name: by an assignment of one name to one function
# (`M.f = function() end`, `local f = function() end`) or by a field of a table constructor
# (`return { setup = function() end }`). Anonymous functions (callbacks, `it("…", function() end)`) are not.
# A name is used by a call (`f(x)`, `a.f(x)`, `a:f(x)`, `f "s"`, `f { }`); `require("a.b")`,
# `require "a.b"` and `pcall(require, "a.b")` import module `a.b`.
_LUA_QUERY = """
(function_declaration) @def
(assignment_statement (variable_list . name: (_) .) (expression_list . value: (function_definition) .)) @def
(field name: (identifier) value: (function_definition)) @def
(function_call name: [(identifier) @use (dot_index_expression field: (identifier) @use)
  (method_index_expression method: (identifier) @use)])
(function_call name: (identifier) @_req arguments: (arguments . (string) @import .) (#eq? @_req "require"))
(function_call name: (identifier) @_pcall arguments: (arguments . (identifier) @_req . (string) @import)
  (#eq? @_pcall "pcall") (#eq? @_req "require"))
"""


@dataclass(frozen=True)
class CodeSpec:
    """How to read one grammar: its wheel and loader, its query, and which parent kinds make a method.

    The grammar wheel is imported lazily so that a missing or incompatible wheel degrades that language to
    line chunks instead of breaking the import of the whole package.
    """

    name: str
    module: str
    loader: str
    query: str
    method_parents: frozenset[str]


_JAVA_TYPES = frozenset({"class", "interface", "enum", "record", "annotation"})

SPECS: dict[str, CodeSpec] = {
    PYTHON: CodeSpec(PYTHON, "tree_sitter_python", "language", _PY_QUERY, frozenset({"class"})),
    JAVASCRIPT: CodeSpec(JAVASCRIPT, "tree_sitter_javascript", "language", _JS_QUERY, frozenset({"class"})),
    TYPESCRIPT: CodeSpec(
        TYPESCRIPT,
        "tree_sitter_typescript",
        "language_typescript",
        _TS_QUERY,
        frozenset({"class", "interface"}),
    ),
    TSX: CodeSpec(
        TSX, "tree_sitter_typescript", "language_tsx", _TSX_QUERY, frozenset({"class", "interface"})
    ),
    GO: CodeSpec(GO, "tree_sitter_go", "language", _GO_QUERY, frozenset({"interface"})),
    RUST: CodeSpec(RUST, "tree_sitter_rust", "language", _RUST_QUERY, frozenset({"impl", "trait"})),
    JAVA: CodeSpec(JAVA, "tree_sitter_java", "language", _JAVA_QUERY, _JAVA_TYPES),
    C: CodeSpec(C, "tree_sitter_c", "language", _C_DEFS, frozenset()),
    CPP: CodeSpec(CPP, "tree_sitter_cpp", "language", _CPP_QUERY, frozenset({"class", "struct", "union"})),
    RUBY: CodeSpec(RUBY, "tree_sitter_ruby", "language", _RUBY_QUERY, frozenset({"class", "module"})),
    PHP: CodeSpec(
        PHP, "tree_sitter_php", "language_php", _PHP_QUERY, frozenset({"class", "interface", "trait", "enum"})
    ),
    SCALA: CodeSpec(
        SCALA,
        "tree_sitter_scala",
        "language",
        _SCALA_QUERY,
        frozenset({"class", "trait", "object", "enum", "given"}),
    ),
    KOTLIN: CodeSpec(
        KOTLIN,
        "tree_sitter_kotlin",
        "language",
        _KOTLIN_QUERY,
        frozenset({"class", "interface", "enum", "annotation", "object"}),
    ),
    LUA: CodeSpec(LUA, "tree_sitter_lua", "language", _LUA_QUERY, frozenset()),
}


@cache
def grammar(language: str) -> tuple[Language, Query] | None:
    """The compiled grammar and query of a code language, or None when its grammar cannot be loaded.

    Compiled once per process; both objects are read-only and safe to share between threads.
    """
    spec = SPECS.get(language)
    if spec is None:
        return None
    try:
        module = importlib.import_module(spec.module)
        lang = Language(getattr(module, spec.loader)())
        return lang, Query(lang, spec.query)
    except (ImportError, AttributeError, ValueError, TypeError, OSError):
        # ValueError/TypeError: an ABI the binding does not support, or a query naming unknown node types.
        return None


_LOCAL = threading.local()


def parser(language: str, lang: Language) -> Parser:
    """A parser for ``language``, cached per thread: a tree-sitter Parser is not thread-safe."""
    parsers: dict[str, Parser] | None = getattr(_LOCAL, "parsers", None)
    if parsers is None:
        parsers = {}
        _LOCAL.parsers = parsers
    found = parsers.get(language)
    if found is None:
        found = Parser(lang)
        parsers[language] = found
    return found
