"""Import statements as written, per language: the module text a resolver can map to a repository file.

Spelling conventions (what ``ImportRef.module`` holds):

- Python: the dotted module with its relative prefix as written (``a.b``, ``..x``, ``.``); ``import a, b``
  gives one reference per module; ``from m import x, y`` gives module ``m`` with names ``("x", "y")``.
  ``from __future__ import …`` is a compiler directive, not an import of a module: it is not read.
- JavaScript / TypeScript: the specifier string (``./x``, ``react``), from ``import``, ``export … from``,
  ``require("…")`` and ``import("…")``.
- Go: the import path. Java: the imported name (``a.b.C``, ``a.b.*``; ``static`` dropped).
- Rust: the ``use`` path without whitespace (``crate::a::b``; ``use a::{b, c as d}`` gives module ``a``
  with names ``("b", "c")``; ``as`` renames and ``::*`` are dropped). A path or group inside a group is its own
  import, read the same way: ``use a::{b::C, d::{e, f}}`` gives ``a::b::C`` and ``a::d`` with names
  ``("e", "f")``, and ``use {a::B, c::D}`` gives ``a::B`` and ``c::D``. ``mod foo;`` is spelled ``self::foo``
  because that is the path that names the module file it declares.
- C / C++: ``"x.h"`` includes as the bare path ``x.h``, ``<x.h>`` includes with their angle brackets.
- Ruby: ``require "a/b"`` as ``a/b``; ``require_relative "b"`` as ``./b`` so it resolves relatively; only
  calls without a receiver (``YAML.load("…")`` reads data, it loads no file).
- PHP: a ``use`` names a class, function or constant by its fully qualified name, without its leading
  backslash (``use A\\B\\C as D`` gives ``A\\B\\C``; a group ``use A\\{B, C\\D}`` gives ``A\\B`` and
  ``A\\C\\D``); ``include`` and ``require`` (``_once`` too) a path: a literal as written, one joined to
  ``__DIR__`` or ``dirname(__FILE__)`` relative to the file (``__DIR__ . '/x.php'`` gives ``./x.php``), one
  joined to ``dirname(__DIR__)`` relative to its directory's parent (``./../x.php``). A path computed
  otherwise, or a string with variables in it, names no file we can know.
- Lua: the module a ``require`` call names with a quoted string (``require("a.b")``, ``require "a.b"``,
  ``pcall(require, "a.b")``) as written: ``a.b``.
"""

from __future__ import annotations

import re

from tree_sitter import Node as TSNode

import prooftext.graph.languages as L
from prooftext.graph.model import HOW_FROM, HOW_IMPORT, Reference, backquoted_name

_SPACE = re.compile(r"\s+")
Import = tuple[str, tuple[str, ...]]


def _text(data: bytes, node: TSNode | None) -> str:
    if node is None:
        return ""
    return data[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _compact(text: str) -> str:
    return _SPACE.sub("", text)


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] in "'\"`" and text[-1] == text[0]:
        return text[1:-1]
    return text


def _python_name(node: TSNode, data: bytes) -> str:
    if node.type == "aliased_import":
        return _compact(_text(data, node.child_by_field_name("name")))
    return _compact(_text(data, node))


def _python(node: TSNode, data: bytes) -> list[Import]:
    names = [_python_name(child, data) for child in node.children_by_field_name("name")]
    if node.type == "import_statement":
        return [(name, ()) for name in names if name]
    if any(child.type == "wildcard_import" for child in node.named_children):
        names.append("*")
    module = _compact(_text(data, node.child_by_field_name("module_name")))
    return [(module, tuple(name for name in names if name))] if module else []


def python_bindings(node: TSNode, data: bytes) -> list[Reference]:
    """The names one Python import statement binds, as references: ``import a.b as c`` binds ``c`` to
    module ``a.b``; ``from m import x as y`` binds ``y`` to ``x`` of ``m`` (``*`` for a star import)."""
    out: list[Reference] = []
    module = ""
    if node.type == "import_from_statement":
        module = _compact(_text(data, node.child_by_field_name("module_name")))
        if not module:
            return []
        if any(child.type == "wildcard_import" for child in node.named_children):
            out.append(Reference("*", HOW_FROM, module))
    for child in node.children_by_field_name("name"):
        alias = ""
        if child.type == "aliased_import":
            alias = _compact(_text(data, child.child_by_field_name("alias")))
            child = child.child_by_field_name("name") or child
        name = _compact(_text(data, child))
        if not name:
            continue
        if module:
            out.append(Reference(name, HOW_FROM, module, alias))
        else:
            out.append(Reference(name, HOW_IMPORT, "", alias))
    return out


def _ruby(node: TSNode, data: bytes) -> list[Import]:
    target = _unquote(_text(data, node))
    call = node.parent.parent if node.parent is not None else None
    method = _text(data, call.child_by_field_name("method")) if call is not None else ""
    if not target or "#{" in target:  # interpolated: not a static path
        return []
    if method == "require_relative" and not target.startswith("."):
        target = "./" + target
    return [(target, ())]


_USE_DEPTH = 8  # nesting of `use a::{b::{c::{…}}}` groups read
_COMMENTS = frozenset({"comment", "line_comment", "block_comment"})
"""Comment nodes inside an import (Rust's and Scala's grammars name them so)."""


def _rust(node: TSNode, data: bytes) -> list[Import]:
    if node.type == "mod_item":
        if node.child_by_field_name("body") is not None:
            return []  # an inline module is a symbol, not a file
        name = _text(data, node.child_by_field_name("name"))
        return [(f"self::{name}", ())] if name else []
    return _rust_use(node, data, "", _USE_DEPTH)


def _rust_join(prefix: str, path: str) -> str:
    return f"{prefix}::{path}" if prefix and path else prefix or path


def _rust_use(node: TSNode, data: bytes, prefix: str, depth: int) -> list[Import]:
    """The imports of one ``use`` tree under ``prefix``: a path alone is its own module; a group's paths and
    groups are read the same way, and its plain names are the names of the group's module."""
    if node.type == "use_as_clause":  # `use a::b as c`: the path is what names a module
        return [(_rust_join(prefix, _compact(_text(data, node.child_by_field_name("path")))), ())]
    if node.type == "use_wildcard":  # `use a::b::*`
        return [(_rust_join(prefix, _compact(_text(data, node)).removesuffix("*").removesuffix("::")), ())]
    if node.type not in ("scoped_use_list", "use_list"):
        return [(_rust_join(prefix, _compact(_text(data, node))), ())]
    items = node.child_by_field_name("list") if node.type == "scoped_use_list" else node
    module = _rust_join(prefix, _compact(_text(data, node.child_by_field_name("path"))))
    if items is None or depth <= 0:
        return [(module, ())] if module else []
    names: list[str] = []
    nested: list[Import] = []
    for item in items.named_children:
        plain = item.child_by_field_name("path") if item.type == "use_as_clause" else item
        if module and plain is not None and plain.type in ("identifier", "self", "super", "crate"):
            names.append(_text(data, plain))  # `c` and `c as d` of `use a::{c, c as d}`
        elif item.type not in _COMMENTS:
            nested += _rust_use(item, data, module, depth - 1)
    return ([(module, tuple(names))] if names else []) + nested


def _java(node: TSNode, data: bytes) -> list[Import]:
    names = [child for child in node.named_children if child.type in ("scoped_identifier", "identifier")]
    if not names:
        return []
    wildcard = any(child.type == "asterisk" for child in node.named_children)
    return [(_compact(_text(data, names[0])) + (".*" if wildcard else ""), ())]


def _c(node: TSNode, data: bytes) -> list[Import]:
    if node.type == "system_lib_string":
        return [(_text(data, node).strip(), ())]
    if node.type == "string_literal":
        return [(_unquote(_text(data, node)), ())]
    return []  # a macro-computed include


_PHP_USE_NAMES = frozenset({"name", "qualified_name"})
_PHP_STRINGS = frozenset({"string", "encapsed_string"})
_PHP_PLAIN = frozenset({"string_content", "escape_sequence"})
_PHP_HERE = frozenset({"__DIR__", "dirname(__FILE__)"})
_PHP_PARENT = frozenset({"dirname(__DIR__)", "dirname(dirname(__FILE__))"})


def _php_uses(node: TSNode, data: bytes) -> list[Import]:
    group = next((child for child in node.named_children if child.type == "namespace_use_group"), None)
    clauses = group.named_children if group is not None else node.named_children
    prefix = ""
    if group is not None:
        named = node.named_children[0] if node.named_children else None
        prefix = _compact(_text(data, named)).strip("\\") + "\\" if named is not None else ""
    out: list[Import] = []
    for clause in clauses:
        name = next((child for child in clause.named_children if child.type in _PHP_USE_NAMES), None)
        if clause.type == "namespace_use_clause" and name is not None:
            out.append((prefix + _compact(_text(data, name)).lstrip("\\"), ()))
    return out


def _php_literal(node: TSNode | None, data: bytes) -> str:
    """The text of a PHP string without variables in it, else ''."""
    if node is None or node.type not in _PHP_STRINGS:
        return ""
    if any(child.type not in _PHP_PLAIN for child in node.named_children):
        return ""
    return _unquote(_text(data, node))


def _php_include(node: TSNode, data: bytes) -> list[Import]:
    argument = node.named_children[0] if node.named_children else None
    while argument is not None and argument.type == "parenthesized_expression" and argument.named_children:
        argument = argument.named_children[0]  # `require('x.php')`
    path = _php_literal(argument, data)
    if argument is not None and argument.type == "binary_expression":
        base = _compact(_text(data, argument.child_by_field_name("left")))
        tail = _php_literal(argument.child_by_field_name("right"), data)
        directory = "." if base in _PHP_HERE else "./.." if base in _PHP_PARENT else ""
        path = directory + tail if directory and tail.startswith("/") else ""
    return [(path, ())] if path else []


def _php(node: TSNode, data: bytes) -> list[Import]:
    if node.type == "namespace_use_declaration":
        return _php_uses(node, data)
    return _php_include(node, data)


_SCALA_RENAMES = frozenset({"arrow_renamed_identifier", "as_renamed_identifier"})
_SCALA_ROOT = "_root_."
_SCALA_NAMES = frozenset({"identifier", "operator_identifier"})


def _scala_selectors(path: str, selectors: TSNode, data: bytes) -> list[str]:
    """The modules of ``{C, D => E, F => _, _, given}`` after ``path``: a name's, a renamed one's, the path's
    for a wildcard or a given; nothing for a hidden name."""
    out: list[str] = []
    for child in selectors.named_children:
        if child.type in _SCALA_NAMES:
            out.append(f"{path}.{backquoted_name(_text(data, child))}")
        elif child.type in _SCALA_RENAMES:
            alias = child.child_by_field_name("alias")
            if alias is None or alias.type != "wildcard":
                out.append(f"{path}.{backquoted_name(_text(data, child.child_by_field_name('name')))}")
        elif child.type not in _COMMENTS:
            out.append(path)  # `_`, `*`, `given`, `given Ord[?]`
    return out


def _scala(node: TSNode, data: bytes) -> list[Import]:
    """Every importer of one ``import``, each module once: ``a.b.C``; one per selector of ``a.b.{C, D}``; the
    path alone for a wildcard or a given (``a.b._``, ``a.b.given`` give ``a.b``); ``_root_.`` dropped."""
    modules: list[str] = []
    parts: list[str] = []
    for child in node.children:
        if child.type in _SCALA_NAMES:
            parts.append(backquoted_name(_text(data, child)))
            continue
        path = ".".join(parts)
        if child.type == "namespace_selectors":
            modules += _scala_selectors(path, child, data)
        elif child.type == "namespace_wildcard":
            modules.append(path)
        elif child.type in _SCALA_RENAMES:  # `import a.b.C as D`
            modules.append(
                ".".join((*parts, backquoted_name(_text(data, child.child_by_field_name("name")))))
            )
        elif child.type == "," and parts:  # `import a.B, c.D`: the importer before the comma
            modules.append(path)
        else:
            continue  # `import`, a dot
        parts = []
    modules += [".".join(parts)] if parts else []
    return [(module.removeprefix(_SCALA_ROOT), ()) for module in dict.fromkeys(modules) if module]


def _kotlin(node: TSNode, data: bytes) -> list[Import]:
    """``import a.b.C`` and ``import a.b.C as D`` import ``a.b.C``; ``import a.b.*`` imports ``a.b``."""
    path = next((child for child in node.children if child.type == "qualified_identifier"), None)
    if path is None:
        return []
    module = ".".join(backquoted_name(_text(data, part)) for part in path.named_children)
    return [(module, ())] if module else []


def _lua(node: TSNode, data: bytes) -> list[Import]:
    """``require("a.b")``: module ``a.b``; a long string (``[[a.b]]``) or one with escapes names none we read."""
    content = next((child for child in node.named_children if child.type == "string_content"), None)
    module = _text(data, content)
    if not module or "\\" in module or _text(data, node)[:1] not in ("'", '"'):
        return []
    return [(module, ())]


def read_imports(language: str, node: TSNode, data: bytes) -> list[Import]:
    """The (module, names) pairs one captured import node stands for."""
    if language == L.PYTHON:
        return _python(node, data)
    if language == L.RUBY:
        return _ruby(node, data)
    if language == L.RUST:
        return _rust(node, data)
    if language == L.JAVA:
        return _java(node, data)
    if language in (L.C, L.CPP):
        return _c(node, data)
    if language == L.PHP:
        return _php(node, data)
    if language == L.SCALA:
        return _scala(node, data)
    if language == L.KOTLIN:
        return _kotlin(node, data)
    if language == L.LUA:
        return _lua(node, data)
    target = _unquote(_text(data, node))  # JS / TS / Go: a string literal
    return [(target, ())] if target else []
