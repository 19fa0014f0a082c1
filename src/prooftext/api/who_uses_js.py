"""Who-uses in JavaScript and TypeScript: what a file's imports, ``require`` calls and re-exports bind, and
the names a file exports a definition under."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Collection, Sequence

import prooftext.graph.languages as L
from prooftext.api.who_uses_js_types import (
    AWAITED,
    Binding,
    Contextual,
    annotation_name,
    binds_name,
    declared_result,
    field_class_name,
    first_parameter_type,
    function_type_parameter,
    is_call,
    local_bindings,
    stated_class,
)
from prooftext.api.who_uses_model import (
    CLASS_KINDS,
    FOUND_IMPORT,
    FOUND_POSSIBLE,
    FOUND_REFERENCE,
    MAX_IMPORT_HOPS,
    SELF_NAMES,
    Found,
    Node,
    Sym,
    WhoUsesStore,
    importing_paths,
    nodes_by_id,
)
from prooftext.graph.model import HOW_READ, Reference, js_receiver
from prooftext.store.risk_queries import (
    code_files_spelling,
    file_imports,
    file_lines,
    symbols_named,
)

PROPERTY_ASSIGNED = re.compile(r"^[\w$.]+\.[\w$]+\s*=(?!=)")
"""A definition assigned to a property (``res.send = function send()``, ``Foo.prototype.bar = …``)."""
_JS_IMPORT = re.compile(
    r"^[ \t]*import\s+(?:type\s+)?([\w$*{}\s,]+?)\s*from\s*['\"]([^'\"]+)['\"]", re.MULTILINE
)
"""A JavaScript import statement: its clause (``D, { a as b }``, ``* as ns``) and its module."""
_JS_REQUIRE = re.compile(
    r"\b(?:const|let|var)\s+([\w$]+|\{[^}]*\})\s*=\s*require\(\s*['\"]([^'\"]+)['\"]\s*\)(?:\.([\w$]+))?"
)
"""``const D = require('m')``, ``const { a, b: c } = require('m')``, ``const a = require('m').a``."""
_JS_REEXPORT = re.compile(
    r"^[ \t]*export\s+(?:type\s+)?(\*|\{[^}]*\})\s*from\s*['\"]([^'\"]+)['\"]", re.MULTILINE
)
"""``export { a as b } from 'm'``, ``export * from 'm'``."""
_JS_REEXPORT_ALL = re.compile(
    r"^\s*(?:exports\s*=\s*)?module\.exports\s*=\s*(?:exports\s*=\s*)?require\(\s*['\"]([^'\"]+)['\"]\s*\)\s*;?\s*$",
    re.MULTILINE,
)
"""``module.exports = require('./lib/express')``: a CommonJS file exporting another's exports as its own."""
_JS_EXPORTS_OBJECT = re.compile(r"\bmodule\.exports\s*=\s*(\{[^{}]*\})")
"""``module.exports = { create: createApplication, helper }``: a CommonJS file exporting names of its own."""
_JS_EXPORT_NAMESPACE = re.compile(
    r"^[ \t]*export\s+(?:type\s+)?\*\s*as\s+([\w$]+)\s+from\s*['\"]([^'\"]+)['\"]", re.MULTILINE
)
"""``export * as z from './external'``: a file exporting another's namespace under a name."""
MAX_NAMESPACE_HOPS = 4
"""Files followed for a namespace exported by name (``export { z }`` of ``import * as z``, then re-exported)."""
JS_SCRIPTS = (L.JAVASCRIPT, L.TYPESCRIPT, L.TSX)
JS_FUNCTION_KINDS = frozenset({"function"})
JS_TYPE_KINDS = frozenset({"type"})
JS_GLOBAL_TYPES = frozenset(
    {
        "string",
        "number",
        "boolean",
        "bigint",
        "symbol",
        "Array",
        "ReadonlyArray",
        "Map",
        "ReadonlyMap",
        "Set",
        "ReadonlySet",
        "WeakMap",
        "WeakSet",
        "Promise",
        "Date",
        "RegExp",
        "Error",
        "URL",
        "URLSearchParams",
        "Headers",
        "Request",
        "Response",
        "FormData",
        "Blob",
        "File",
        "ReadableStream",
        "WritableStream",
        "TextEncoder",
        "TextDecoder",
        "ArrayBuffer",
        "Uint8Array",
        "DataView",
    }
)
"""The types JavaScript and its runtimes define: a value of one holds none of the repository's members,
unless the repository declares a type of that name (an import, or a global augmentation)."""
_JS_WRAPPERS = {
    "string": "String",
    "number": "Number",
    "boolean": "Boolean",
    "bigint": "BigInt",
    "symbol": "Symbol",
}
"""The interface a primitive type's members are declared on (a repository augmenting ``String`` declares
members of every ``string``)."""
OUTSIDE_CLASS = "outside"
"""What :meth:`JsWhoUses.js_receiver_class` gives for a receiver of one of :data:`JS_GLOBAL_TYPES`."""
MAX_CHAIN_DEPTH = 3
"""Variables followed through the calls assigned to them (``const a = f(); const b = a.g(); b.h()``)."""
JS_HOISTED = re.compile(r"^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\b")
"""A function declaration: its name is bound in its whole block, before it too."""
JS_DECLARES = re.compile(
    r"^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:async\s+)?(?:abstract\s+)?"
    r"(?:function\b|class\b|const\b|let\b|var\b|interface\b|type\b|enum\b|namespace\b)"
)
"""A definition that binds its name in its scope (``function f``, ``const f = () =>``, ``class C``), unlike a
method or a function assigned to a property."""
_JS_BINDING_STATEMENT = re.compile(
    r"^[ \t]*(?:import\b[^;]*?\bfrom\s*['\"][^'\"]*['\"]|export\s+(?:type\s+)?(?:\*|\{[^}]*\})\s*from\s*"
    r"['\"][^'\"]*['\"])|\b(?:const|let|var)\s+(?:[\w$]+|\{[^}]*\})\s*=\s*require\([^)]*\)(?:\.[\w$]+)?",
    re.MULTILINE,
)
"""An import, a re-export or a ``require`` binding: the names in it are bound there, not used."""
_NOT_A_VALUE = re.compile(
    r"\s*(?:\(|=(?!=)|\?*:(?!:))"
    r"|\s+(?!(?:as|in|instanceof|satisfies|of|extends|implements)\b)[\w$\[]"
)
"""What follows a name that is no value passed on: a call (a recorded reference), an assignment to it, an
object key or a type annotation's parameter (``{ name: 1 }``, ``name?: T``), or a word (a keyword spelled
like it: ``readonly string[]``), unless an operator (``logger as Handler``, ``x instanceof Type``)."""
DEFAULT_EXPORT = "default"
MAX_REEXPORT_FILES = 200
"""Files re-exporting a JavaScript definition followed per target (barrels of barrels)."""
JS_ACCESSOR = re.compile(
    r"^\s*(?:(?:static|public|private|protected|override|abstract|declare)\s+)*(get|set)\s+[#\w$]+\s*\("
)
"""A getter's or setter's signature (``get res(): Response``, ``static set level(value)``)."""
MAX_ACCESSOR_FILES = 500
"""Code files read for the reads of a getter or setter (those whose text spells its name, in path order)."""
_Binding = tuple[str, str]
"""A name a JavaScript file imports: (module as written, the name it has there: ``default``, ``*`` or a name)."""


def _js_specifiers(text: str, separator: str) -> list[tuple[str, str]]:
    """``(name there, name here)`` of ``{ a as b, c }`` (``separator`` ``as``) or ``{ a: b, c }`` (``:``)."""
    out = []
    around = r"\s+as\s+" if separator == "as" else rf"\s*{re.escape(separator)}\s*"
    for item in text.strip().strip("{}").split(","):
        words = re.sub(around, f" {separator} ", item.strip()).split()
        words = [w for w in words if w != "type"] if len(words) not in (1, 3) else words
        if len(words) == 1:
            out.append((words[0], words[0]))
        elif len(words) == 3 and words[1] == separator:
            out.append((words[0], words[2]))
    return out


def _js_import_clause(clause: str) -> list[tuple[str, str]]:
    """``(name there, name here)`` of an import clause: ``D`` is the default, ``* as ns`` the namespace."""
    named = re.search(r"\{[^}]*\}", clause)
    rest = clause.replace(named.group(0), "") if named else clause
    out = _js_specifiers(named.group(0), "as") if named else []
    for part in (p.strip() for p in rest.split(",")):
        star = re.fullmatch(r"\*\s*as\s+([\w$]+)", part)
        if star:
            out.append(("*", star.group(1)))
        elif re.fullmatch(r"[\w$]+", part):
            out.append((DEFAULT_EXPORT, part))
    return out


def _js_bindings(text: str) -> dict[str, _Binding]:
    """The names a JavaScript file's imports and ``require`` calls bind, each with its module and the name
    it has there (a ``require`` of a whole module binds its default, ``module.exports``)."""
    out: dict[str, _Binding] = {}
    for found in _JS_IMPORT.finditer(text):
        for there, here in _js_import_clause(found.group(1)):
            out.setdefault(here, (found.group(2), there))
    for found in _JS_REQUIRE.finditer(text):
        target, module, member = found.groups()
        if target.startswith("{"):
            out.update((here, (module, there)) for there, here in _js_specifiers(target, ":"))
        else:
            out.setdefault(target, (module, member or DEFAULT_EXPORT))
    return out


def js_exports_of(text: str, name: str) -> set[str]:
    """The names a JavaScript file exports its top-level ``name`` under: its own (``export function name``,
    ``export { name }``, ``exports.name =``, ``module.exports = { name }``), another (``export { name as
    other }``, ``exports.other = name``, ``module.exports = { other: name }``) and ``default`` (``export
    default name``, ``module.exports = name``, ``name as default``)."""
    word = re.escape(name)
    out: set[str] = set()
    spelled = "\n".join(line for line in text.split("\n") if name in line)  # what one-line forms can match
    declared = rf"\bexport\s+(?:declare\s+)?(?:async\s+)?(?:abstract\s+)?(?:function\s*\*?|class|const|let|var|enum|namespace|interface|type)\s+{word}(?![\w$])"
    if re.search(declared, spelled) or re.search(
        rf"(?<![\w$.])(?:module\.)?exports\.{word}\s*=(?!=)", spelled
    ):
        out.add(name)
    default = rf"\bexport\s+default\s+(?:async\s+)?(?:(?:function\s*\*?|class)\s+)?{word}(?![\w$])"
    assigned = (
        rf"\bmodule\.exports\s*=\s*(?:exports\s*=\s*)?(?:(?:async\s+)?(?:function\s*\*?|class)\s+)?{word}"
    )
    if re.search(default, spelled) or re.search(rf"{assigned}\s*;?\s*$|{assigned}\s*\(", spelled, re.M):
        out.add(DEFAULT_EXPORT)
    for listed in re.finditer(r"\bexport\s*\{([^}]*)\}(?!\s*from)", text):
        out.update(here for there, here in _js_specifiers(listed.group(1), "as") if there == name)
    out.update(re.findall(rf"(?<![\w$.])(?:module\.)?exports\.([\w$]+)\s*=\s*{word}\s*;?\s*$", spelled, re.M))
    for literal in _JS_EXPORTS_OBJECT.finditer(text):
        out.update(key for key, value in _js_specifiers(literal.group(1), ":") if value == name)
    return out


class JsModules:
    """JavaScript and TypeScript files' imports, read from their indexed text: the name a file binds for a
    definition of another file, directly or through files re-exporting it (``export { a as b } from``)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._bindings: dict[str, dict[str, _Binding]] = {}
        self._resolved: dict[str, dict[str, str | None]] = {}
        self._namespaces: dict[str, dict[str, tuple[str, str, str]]] = {}

    def resolved(self, path: str, module: str) -> str | None:
        if path not in self._resolved:
            self._resolved[path] = {m: r for m, r, _ in file_imports(self.conn, path)}
        return self._resolved[path].get(module)

    def bindings(self, path: str) -> dict[str, _Binding]:
        if path not in self._bindings:
            self._bindings[path] = _js_bindings("\n".join(file_lines(self.conn, path)))
        return self._bindings[path]

    def exported(self, target: Sym, top_level: bool) -> dict[str, set[str]]:
        """The names each file exports ``target`` under: its own file (when it is at the top level), and every
        file re-exporting it (followed breadth-first)."""
        names: dict[str, set[str]] = {}
        if top_level:
            names[target.path] = js_exports_of("\n".join(file_lines(self.conn, target.path)), target.name)
        pending = [target.path] if names.get(target.path) else []
        while pending and len(names) <= MAX_REEXPORT_FILES:
            source = pending.pop(0)
            for path in self.importing_paths(source):
                added = self.reexported(path, source, names[source]) - names.get(path, set())
                if added:
                    names[path] = names.get(path, set()) | added
                    pending.append(path)
        return {path: found for path, found in names.items() if found}

    def importing_paths(self, path: str) -> list[str]:
        return importing_paths(self.conn, path)

    def reexported(self, path: str, source: str, names: set[str]) -> set[str]:
        """The names the file at ``path`` re-exports from ``source`` of those it exports as ``names``: with
        ``export … from``, or by exporting what it imports (``export { local }``, ``export default local``)."""
        out: set[str] = set()
        text = "\n".join(file_lines(self.conn, path))
        for whole in _JS_REEXPORT_ALL.finditer(text):
            if self.resolved(path, whole.group(1)) == source:
                out |= names
        for found in _JS_REEXPORT.finditer(text):
            if self.resolved(path, found.group(2)) != source:
                continue
            if found.group(1) == "*":
                out |= names - {DEFAULT_EXPORT}
            else:
                out |= {here for there, here in _js_specifiers(found.group(1), "as") if there in names}
        for here, (kind, local, _) in self.namespace_exports(path).items():
            binding = self.bindings(path).get(local) if kind == "local" else None
            if binding is not None and binding[1] in names and self.resolved(path, binding[0]) == source:
                out.add(here)  # `import { Hono } from './hono'` then `export { Hono }`
        return out

    def namespace(self, path: str, local: str, hops: int = 0) -> str | None:
        """The file whose whole module the name ``local`` is in the file at ``path``: ``import * as ns``, a
        ``require`` of a module, ``import ns from`` (its default), or a name another file exports a namespace
        under (``import { z } from`` a file with ``import * as z`` and ``export { z }``, or ``export * as z
        from``)."""
        binding = self.bindings(path).get(local)
        source = self.resolved(path, binding[0]) if binding is not None else None
        if binding is None or source is None:
            return None
        if binding[1] in ("*", DEFAULT_EXPORT):
            return source
        return self.exported_namespace(source, binding[1], hops + 1) if hops < MAX_NAMESPACE_HOPS else None

    def exported_namespace(self, path: str, name: str, hops: int) -> str | None:
        """The file whose namespace the file at ``path`` exports as ``name``, if it does."""
        entry = self.namespace_exports(path).get(name)
        if entry is None or hops > MAX_NAMESPACE_HOPS:
            return None
        kind, module, there = entry
        if kind == "local":
            return self.namespace(path, module, hops)
        source = self.resolved(path, module)
        if kind == "module" or source is None:
            return source
        return self.exported_namespace(source, there, hops + 1)

    def namespace_exports(self, path: str) -> dict[str, tuple[str, str, str]]:
        """What each name a file exports may be a namespace of, read once per file: ``("module", m, "")`` for
        ``export * as name from m``, ``("reexport", m, there)`` for ``export { there as name } from m``,
        ``("local", local, "")`` for ``export { local as name }`` and ``export default local``."""
        if path not in self._namespaces:
            text = "\n".join(file_lines(self.conn, path))
            out: dict[str, tuple[str, str, str]] = {}
            for found in _JS_EXPORT_NAMESPACE.finditer(text):
                out.setdefault(found.group(1), ("module", found.group(2), ""))
            for found in _JS_REEXPORT.finditer(text):
                if found.group(1) != "*":
                    for there, here in _js_specifiers(found.group(1), "as"):
                        out.setdefault(here, ("reexport", found.group(2), there))
            for listed in re.finditer(r"\bexport\s*\{([^}]*)\}(?!\s*from)", text):
                for there, here in _js_specifiers(listed.group(1), "as"):
                    out.setdefault(here, ("local", there, ""))
            for found in re.finditer(r"\bexport\s+default\s+([\w$]+)\s*;?\s*$", text, re.M):
                out.setdefault(DEFAULT_EXPORT, ("local", found.group(1), ""))
            self._namespaces[path] = out
        return self._namespaces[path]

    def reaches(self, path: str, local: str, exported: dict[str, set[str]]) -> bool | None:
        """Whether the name ``local`` in the file at ``path`` is the definition ``exported`` describes: True,
        False when it imports another file's or another name, None when the file does not import it."""
        binding = self.bindings(path).get(local)
        if binding is None:
            return None
        source = self.resolved(path, binding[0])
        return source is not None and binding[1] in exported.get(source, ())


def value_pattern(name: str, exported: bool = False, receiver: str = "") -> re.Pattern[str]:
    """A name read as a value: bare (``app.use(logger)``, ``{ logger }``), with ``exported`` as the property
    of its own module's exports (``exports.helper``), or as a member of ``receiver`` (``this.retry``)."""
    head = r"(?<![\w$.])(?:module\.)?exports\." if exported else r"(?<![\w$.#])"
    head = rf"(?<![\w$.]){re.escape(receiver)}\." if receiver else head
    return re.compile(rf"{head}{re.escape(name)}(?![\w$])")


def member_accesses(line: str, name: str) -> list[tuple[str, str]]:
    """Where a line reads or assigns the member ``name`` through a receiver (``c.res.status``, ``c.res =
    x``, ``this.#req?.url``), not in a string and not called: ``(receiver as who-uses spells it, "get" or
    "set")``, a compound assignment (``+=``) giving both."""
    out: list[tuple[str, str]] = []
    for found in re.finditer(rf"\??\.\s*{re.escape(name)}(?![\w$])", line):
        if _in_string(_text_before(line, found.start())) or re.match(r"\s*\(", line[found.end() :]):
            continue
        spelled = js_receiver(_receiver_before(line, found.start()))
        after = line[found.end() :]
        if re.match(r"\s*=(?![=>])", after):
            out.append((spelled, "set"))
        elif re.match(r"\s*(?:[-+*/%&|^]|\*\*|<<|>>>?|&&|\|\||\?\?)=", after):
            out.extend([(spelled, "get"), (spelled, "set")])
        else:
            out.append((spelled, "get"))
    return out


def _text_before(line: str, at: int) -> str:
    """A line up to column ``at``, its escaped characters (``\\'``) left out."""
    return re.sub(r"\\.", "", line[:at])


def _in_string(before: str) -> bool:
    """Whether the text a line holds before a place (:func:`_text_before`) leaves a string literal open."""
    return any(before.count(quote) % 2 for quote in "'\"`")


def _receiver_before(line: str, end: int) -> str:
    """The receiver expression that ends at ``end`` of ``line``: names, ``.``, ``#`` and balanced calls."""
    at = end
    while at > 0:
        char = line[at - 1]
        if char.isalnum() or char in "_$#.?":
            at -= 1
        elif char == ")":
            depth = 0
            while at > 0:
                at -= 1
                depth += {")": 1, "(": -1}.get(line[at], 0)
                if depth == 0:
                    break
        else:
            break
    return line[at:end].lstrip(".?")


def _is_getter(found: Sym) -> bool:
    accessor = JS_ACCESSOR.match(found.signature)
    return accessor is not None and accessor.group(1) == "get"


def binding_lines(text: str) -> set[int]:
    """The lines of a JavaScript file's import, re-export and ``require`` statements."""
    lines: set[int] = set()
    for found in _JS_BINDING_STATEMENT.finditer(text):
        first = text.count("\n", 0, found.start()) + 1
        lines.update(range(first, first + found.group(0).count("\n") + 1))
    return lines


def value_lines(
    lines: list[str], name: str, pattern: re.Pattern[str], span: tuple[int, int], skip: Collection[int]
) -> list[int]:
    """The lines of ``span`` (outside ``skip``) where ``pattern``, spelling ``name``, names a value: not in a
    comment line or a string, not called, assigned, or an object's key."""
    found = []
    first, last = span
    for number in range(max(first, 1), min(last, len(lines)) + 1):
        line = lines[number - 1]
        if name not in line or number in skip or line.lstrip().startswith(("//", "/*", "*")):
            continue
        for match in pattern.finditer(line):
            before = _text_before(line, match.start())
            quoted = _in_string(before)
            key = _NOT_A_VALUE.match(line, match.end())
            ternary = key is not None and key.group(0).endswith(":") and before.rstrip().endswith("?")
            declared = re.search(r"\b(?:function\s*\*?|class)\s*$", before)
            if quoted or declared or (key is not None and not ternary):
                continue
            if not _destructured(lines, number, match.end()):
                found.append(number)
                break
    return found


MAX_PATTERN_LINES = 40
"""Lines read on from a name for the end of the braces around it (a destructuring pattern's ``} =``)."""


def _destructured(lines: list[str], number: int, column: int) -> bool:
    """Whether the name ending at ``column`` of line ``number`` is bound by a destructuring pattern
    (``const { timeout, hooks } = options``), not a shorthand property passed on (``{ timeout }``)."""
    depth = 0
    text = lines[number - 1][column:]
    for more in range(number, min(number + MAX_PATTERN_LINES, len(lines) + 1)):
        for index, char in enumerate(text):
            if char in "{[":
                depth += 1
            elif char in "}]" and depth:
                depth -= 1
            elif char in "}]":
                return re.match(r"\s*(?::[^=;]*)?=(?![=>])", text[index + 1 :]) is not None
            elif char in ";(":
                return False
        text = lines[more] if more < len(lines) else ""
    return False


def block_closes(lines: list[str], after: int, before: int) -> int | None:
    """The last line between two lines where a block closes (``});`` ending one test case before the next),
    None when none does: definitions on either side of one are in different scopes, unlike overloads declared
    one after another."""
    depth = lowest = 0
    closes = None
    for number in range(after + 1, before):
        for char in lines[number - 1] if number <= len(lines) else "":
            depth += {"{": 1, "}": -1}.get(char, 0)
            if depth < lowest:
                lowest, closes = depth, number
    return closes


_ASSIGNED_TO = re.compile(r"^\s*([\w$]+(?:\.[\w$]+)*)\.[\w$]+\s*=(?!=)")
_CONSTRUCTOR_FUNCTION = re.compile(r"^\s*(?:export\s+)?function\s+([A-Z][\w$]*)\s*\(")


def this_object(found: Sym) -> str | None:
    """What ``this`` is inside a JavaScript function, as written: the object a function assigned to a property
    is assigned to (``res`` for ``res.send = function``, ``View.prototype`` for ``View.prototype.lookup =
    function``), or the prototype of a constructor function (``function View``); None otherwise."""
    assigned = _ASSIGNED_TO.match(found.signature)
    if assigned:
        return assigned.group(1)
    constructor = _CONSTRUCTOR_FUNCTION.match(found.signature)
    return f"{constructor.group(1)}.prototype" if constructor else None


_TS_TYPE_WORDS = frozenset(
    {"any", "bigint", "boolean", "never", "null", "number", "object", "string", "symbol", "undefined",
     "unknown", "void"}
)  # fmt: skip
"""Words TypeScript spells in types: in a TypeScript file, a bare one is no value of a function so named."""


def spelled_as_value(path: str, name: str) -> bool:
    """Whether a bare ``name`` in the file at ``path`` can be read as a value where its text spells it (not
    ``string`` in a TypeScript file, where it is mostly the type)."""
    return name not in _TS_TYPE_WORDS or L.language_for(path) == L.JAVASCRIPT


MAX_LITERAL_LINES = 500
"""Lines read back from a method for the opening of the object literal holding it."""
_LITERAL_OWNER = re.compile(
    r"(?:^|[\s;(,])(?:(?:export\s+)?(?:const|let|var)\s+)?([\w$]+(?:\.[\w$]+)*)\s*(?::[^=]+)?=\s*$"
)
"""What an object literal is assigned to, read before its ``{``: ``const handlers =``, ``app.hooks =``."""


def object_literal_name(lines: Sequence[str], start_line: int) -> str | None:
    """The name the JavaScript object literal holding the method that starts at ``start_line`` is assigned to
    (``const handlers = { onClick() {} }`` gives ``handlers``), None when it is held by no such literal."""
    depth = 0
    for number in range(start_line - 1, max(start_line - 1 - MAX_LITERAL_LINES, 0), -1):
        line = lines[number - 1] if number <= len(lines) else ""
        for column in range(len(line) - 1, -1, -1):
            if line[column] == "}":
                depth += 1
            elif line[column] == "{" and depth:
                depth -= 1
            elif line[column] == "{":
                owner = _LITERAL_OWNER.search(line[:column])
                return owner.group(1) if owner else None
    return None


_JS_EXTENDS = re.compile(r"\bextends\s+([\w$]+)\s*(?:<|\{|\bimplements\b|$)")
"""The base a JavaScript or TypeScript class extends, when it is a plain name (``class A extends B``)."""


class JsWhoUses(WhoUsesStore):
    """Who-uses in JavaScript and TypeScript: imports and re-exports under any name, CommonJS exports,
    ``this`` in classes, prototypes and property-assigned functions, definitions passed on as values,
    receivers typed along their chain by what the code declares (:meth:`js_receiver_class`), and the
    readers of getters (:meth:`js_accessor_uses`)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        super().__init__(conn)
        self.js = JsModules(conn)
        self._exported: dict[str, dict[str, set[str]]] = {}
        self._literals: dict[str, str | None] = {}
        self._binding_lines: dict[str, set[int]] = {}
        self._js_locals: dict[str, tuple[str, dict[str, list[Binding]]]] = {}
        self._exports_of: dict[tuple[str, str], set[str]] = {}
        self._declared_globals: dict[str, bool] = {}
        self._exports_named: dict[tuple[str, str, tuple[str, ...]], Sym | None] = {}

    def _classify_other(
        self, target: Sym, ref: Reference, path: str, owner_id: str, exact: str
    ) -> str | None:
        """Other languages: a receiver naming the enclosing class, or a bare name in the target's file, is
        exact; in JavaScript, a bare name another file imports from elsewhere or defines itself names
        something else; anything else is possible."""
        if ref.receiver in SELF_NAMES:
            cls = self.enclosing_class(owner_id)
            if cls is not None and target.parent_id == cls.node_id:
                return exact
            if cls is not None and target.language in JS_SCRIPTS and cls.language in JS_SCRIPTS:
                how = self.js_through_this(target, cls, ref.name, exact)
                if how != FOUND_POSSIBLE:
                    return how
            owner = self.sym(owner_id) if target.language in JS_SCRIPTS else None
            held = this_object(target) if owner is not None else None
            if held is not None and owner is not None and this_object(owner) == held:
                return exact  # `this.send()` in `res.json = function`, `this.lookup()` in `function View`
        if target.name.startswith("#") and target.language in JS_SCRIPTS:
            cls = self.enclosing_class(owner_id) if path == target.path else None
            return exact if cls is not None and cls.node_id == target.parent_id else None  # `ky.#retry()`
        if not ref.receiver and path == target.path and target.language in JS_SCRIPTS:
            return exact if self.js_region(target) is not None else None  # not a method, nor `res.send = …`
        if not ref.receiver and path == target.path and not PROPERTY_ASSIGNED.search(target.signature):
            return exact  # not `res.send = function send()`: that name is bound inside the function only
        if target.language in JS_SCRIPTS and path != target.path and self.js_imports(target, ref, path):
            return exact
        if (
            target.language in JS_SCRIPTS
            and ref.receiver
            and self.js_object_named(target, ref.receiver, path)
        ):
            return exact
        if (
            target.language in JS_SCRIPTS
            and not ref.receiver
            and path != target.path
            and self.js_binds_other(target, ref.name, path)
        ):
            return None
        stated = (
            self.js_receiver_class(owner_id, ref.receiver, path) if target.language in JS_SCRIPTS else None
        )
        if stated == OUTSIDE_CLASS:
            return None  # `text: string`, `f(): Promise<void>`: the runtime's member
        if isinstance(stated, Sym):  # `const repo = new Repo(); repo.find()`, `this.repo.find()`
            return self.js_typed_call(target, stated, ref.name, exact)
        return FOUND_POSSIBLE

    def js_receiver_class(self, owner_id: str, receiver: str, path: str) -> Sym | str | None:
        """The class a JavaScript or TypeScript receiver holds where the code states it, along its chain
        (``repo``, ``this.repo``, ``c.req``, ``z.string().min()``): its first name (:meth:`js_head_class`),
        then each field's declared class and each call's declared result (:meth:`js_member_class`);
        :data:`OUTSIDE_CLASS` when the receiver is one of the runtime's types (what its members give is not
        followed: ``Map<K, Repo>``'s ``get`` gives a ``Repo``); None where it is not known."""
        if L.language_for(path) not in JS_SCRIPTS or not receiver:
            return None
        return self.js_chain_class(owner_id, path, receiver.split("."), 0)

    def js_chain_class(self, owner_id: str, path: str, parts: list[str], depth: int) -> Sym | str | None:
        head = self.js_head_class(owner_id, path, parts, depth)
        if head is None:
            return None
        cls, used = head
        for part in parts[used:]:
            found = self.js_member_class(cls, part) if isinstance(cls, Sym) else None
            if found is None:
                return None
            cls = found
        return cls

    def js_head_class(
        self, owner_id: str, path: str, parts: list[str], depth: int
    ) -> tuple[Sym | str, int] | None:
        """The class a receiver's chain starts from, and how many of its ``parts`` that takes: ``this`` (the
        enclosing class), a call of a function the file defines or imports (its declared result), a
        variable of the function ``owner_id`` (or of the file, outside any function) whose bindings agree
        (:func:`local_class_name`), or a call through a module's namespace (``z.string()``)."""
        head = parts[0]
        found: Sym | str | None
        if head in SELF_NAMES:
            found = self.enclosing_class(owner_id)
        elif is_call(head):
            found = self.js_result_class(self.js_bound(path, head[:-2], JS_FUNCTION_KINDS), None)
        else:
            stated = self.js_local_class(owner_id, path, head)
            if isinstance(stated, Sym):
                found = stated
            elif stated is not None and stated.startswith(AWAITED):
                deeper = depth < MAX_CHAIN_DEPTH
                awaited = stated[len(AWAITED) :].split(".")
                found = self.js_awaited_class(owner_id, path, awaited, depth + 1) if deeper else None
            elif stated is not None and is_call(stated):
                deeper = depth < MAX_CHAIN_DEPTH
                found = self.js_chain_class(owner_id, path, stated.split("."), depth + 1) if deeper else None
            elif stated is not None:
                found = self.js_type(path, stated)
            else:
                source = self.js.namespace(path, head)
                called = len(parts) > 1 and is_call(parts[1])
                function = (
                    self.js_export_named(source, parts[1][:-2], JS_FUNCTION_KINDS)
                    if source and called
                    else None
                )
                found = self.js_result_class(function, None)
                return (found, 2) if found is not None else None
        return (found, 1) if found is not None else None

    def js_local_class(self, owner_id: str, path: str, name: str) -> Sym | str | None:
        """What the bindings of the variable ``name`` state in the function ``owner_id``, or in the file's
        text when the reference is outside any function (see :func:`local_class_name`); for a parameter
        typed by its context, the class the function type states (:meth:`js_contextual_class`)."""
        if owner_id not in self._js_locals:
            owner = self.sym(owner_id)
            signature, text = (
                (owner.signature, self.text_of(owner)) if owner else ("", "\n".join(self.lines(path)))
            )
            self._js_locals[owner_id] = (text, local_bindings(signature, text))
        text, bindings = self._js_locals[owner_id]
        found = bindings.get(name, [])
        contextual = [b for b in found if isinstance(b, Contextual)]
        stated = stated_class(text, [b for b in found if not isinstance(b, Contextual)])
        if not contextual:
            return stated
        if (stated is not None and is_call(stated)) or (stated is None and len(contextual) < len(found)):
            return None
        classes = [self.js_contextual_class(path, binding) for binding in contextual]
        if stated is not None:
            classes.append(self.js_class(path, stated))
        return classes[0] if classes[0] is not None and all(c == classes[0] for c in classes) else None

    def js_contextual_class(self, path: str, binding: Contextual) -> Sym | None:
        """The class the function type ``binding.via`` (a type alias the file at ``path`` defines or
        imports) states for the parameter at ``binding.position``."""
        via, where = binding.via, path
        if binding.called:  # the annotation of the first parameter of the function called
            function = self.js_bound(path, via, JS_FUNCTION_KINDS)
            annotation = first_parameter_type(function.signature) if function else None
            if function is None or annotation is None:
                return None
            if annotation.lstrip().startswith("("):  # the function type written out
                return self._repository_class(
                    function.path, function_type_parameter(annotation, binding.position)
                )
            via, where = annotation_name(annotation) or "", function.path
        alias = self.js_bound(where, via, JS_TYPE_KINDS) if via else None
        if alias is None:
            return None
        return self._repository_class(
            alias.path, function_type_parameter(self.text_of(alias), binding.position)
        )

    def _repository_class(self, path: str, name: str | None) -> Sym | None:
        """The repository's class ``name`` names in the file at ``path`` (not one of the runtime's types)."""
        found = self.js_type(path, name) if name else None
        return found if isinstance(found, Sym) else None

    def js_awaited_class(self, owner_id: str, path: str, parts: list[str], depth: int) -> Sym | str | None:
        """The class a call's result holds once awaited (``await app.request()``: a ``Response``), the call
        the last of ``parts``: of a function the file defines or imports, or of a method of the class the
        chain before it holds."""
        name = parts[-1][:-2]
        if len(parts) == 1:
            return self.js_result_class(self.js_bound(path, name, JS_FUNCTION_KINDS), None, awaited=True)
        receiver = self.js_chain_class(owner_id, path, parts[:-1], depth)
        return self.js_member_class(receiver, parts[-1], awaited=True) if isinstance(receiver, Sym) else None

    def js_member_class(self, cls: Sym, part: str, awaited: bool = False) -> Sym | str | None:
        """The class that ``part`` of a chain holds on an instance of ``cls``: a method call's declared
        result (``this`` is ``cls``; once ``awaited``, what its promise holds), or a field's declared class
        or a getter's result, looked up in the class and its bases (an interface's too)."""
        name = part[:-2] if is_call(part) else part
        for current in [cls, *(self.js_bases(cls) or [])]:
            members = [m for m in map(self.sym, self.children(current.node_id).get(name, ())) if m]
            if is_call(part) or any(_is_getter(m) for m in members):
                if members:
                    return self.js_result_class(self._first(members), cls, awaited)
                continue
            stated = field_class_name(self.text_of(current), name)
            if stated is not None:
                return self.js_type(current.path, stated)
        return None

    def _first(self, found: list[Sym]) -> Sym:
        """The first of a name's definitions in its file (TypeScript tries overloads in order)."""
        return min(found, key=lambda s: (getattr(self.node(s), "start_line", 0), s.node_id))

    def js_result_class(
        self, function: Sym | None, receiver: Sym | None, awaited: bool = False
    ) -> Sym | str | None:
        """The class ``function`` declares it returns (:func:`declared_result`), or its result holds once
        ``awaited``; ``this`` is ``receiver``."""
        stated = declared_result(function.signature, awaited) if function is not None else None
        if stated == "this" or function is None or stated is None:
            return receiver if stated == "this" else None
        return self.js_type(function.path, stated)

    def js_typed_call(self, target: Sym, cls: Sym, name: str, exact: str) -> str | None:
        """How calling ``name`` on an instance of ``cls`` depends on ``target``: through the class and its
        bases (:meth:`js_through_this`); on an interface, exact for the member it or its bases declare and
        possible for any other (a class implementing it)."""
        if cls.symbol_kind == "interface":
            for current in [cls, *(self.js_bases(cls) or [])]:
                found = self.children(current.node_id).get(name)
                if found:
                    return exact if target.node_id in found else FOUND_POSSIBLE
            return FOUND_POSSIBLE
        return self.js_through_this(target, cls, name, exact)

    def js_through_this(self, target: Sym, cls: Sym, name: str, exact: str) -> str | None:
        """How ``this.name`` inside the JavaScript class ``cls`` depends on ``target``: exact when the member
        it finds (its own, else the nearest base's) is the target, possible when a base cannot be found here
        or when the target overrides it in a subclass (dispatch), else None."""
        bases = self.js_bases(cls)
        for current in [cls, *(bases or [])]:
            found = self.children(current.node_id).get(name)
            if found:
                if target.node_id in found:
                    return exact
                owner = self.sym(target.parent_id) if target.parent_id else None
                below = self.js_bases(owner) if owner is not None else None
                return FOUND_POSSIBLE if below is None or cls.node_id in {b.node_id for b in below} else None
        return FOUND_POSSIBLE

    def js_bases(self, cls: Sym) -> list[Sym] | None:
        """The repository classes a JavaScript class extends, nearest first (``class A extends B``, ``B`` in
        its file or imported from the file defining it); None when one of them is not found here."""
        order: list[Sym] = []
        current = cls
        for _ in range(MAX_IMPORT_HOPS):
            extends = _JS_EXTENDS.search(current.signature)
            if extends is None:
                return order
            base = self.js_class(current.path, extends.group(1))
            if base is None or base in order or base == cls:
                return None
            order.append(base)
            current = base
        return None

    def js_type(self, path: str, name: str) -> Sym | str | None:
        """The class ``name`` names in the file at ``path`` (:meth:`js_class`), or :data:`OUTSIDE_CLASS` for
        one of the runtime's types that the repository declares no type of that name for."""
        found = self.js_class(path, name)
        if found is not None or name not in JS_GLOBAL_TYPES:
            return found
        declared = _JS_WRAPPERS.get(name, name)  # `string`'s members are declared on `String`
        if declared not in self._declared_globals:
            rows = symbols_named(self.conn, declared)
            self._declared_globals[declared] = any(L.language_for(str(r[4])) in JS_SCRIPTS for r in rows)
        return None if self._declared_globals[declared] else OUTSIDE_CLASS

    def js_class(self, path: str, name: str) -> Sym | None:
        """The class (or interface) ``name`` names in the JavaScript file at ``path``: its own, or one it
        imports (through the files re-exporting it)."""
        return self.js_bound(path, name, CLASS_KINDS)

    def js_bound(self, path: str, name: str, kinds: Collection[str]) -> Sym | None:
        """The definition of one of ``kinds`` that ``name`` names at the top of the file at ``path``: its
        own, or the one its import of that name reaches (see :meth:`js_export_named`)."""
        top = self.file_id(path)
        local = [d for d in self.defs(path).get(name, ()) if d.symbol_kind in kinds and d.parent_id == top]
        if local:
            return self._first(local)
        binding = self.js.bindings(path).get(name)
        source = self.js.resolved(path, binding[0]) if binding is not None else None
        return self.js_export_named(source, binding[1], kinds) if binding is not None and source else None

    def js_export_named(self, source: str, name: str, kinds: Collection[str], hops: int = 0) -> Sym | None:
        """The definition of one of ``kinds`` that the file at ``source`` exports as ``name``: its own
        (under its name, another or ``default``), or one it re-exports (``export { a as name } from``,
        ``export * from``), followed through at most :data:`MAX_IMPORT_HOPS` files."""
        key = (source, name, tuple(sorted(kinds)))
        if key not in self._exports_named:
            self._exports_named[key] = None  # a file re-exporting itself ends here
            self._exports_named[key] = self._js_export_named(source, name, kinds, hops)
        return self._exports_named[key]

    def _js_export_named(self, source: str, name: str, kinds: Collection[str], hops: int) -> Sym | None:
        text = "\n".join(self.lines(source))
        top = self.file_id(source)
        entry = self.js.namespace_exports(source).get(name)
        local = entry[1] if entry is not None and entry[0] == "local" else name
        defs = self.defs(source)  # a top-level definition's qualified name is its name
        every = name == DEFAULT_EXPORT  # `export default Foo`: any of them may be it
        candidates = (
            [d for f in defs.values() for d in f] if every else [*defs.get(name, ()), *defs.get(local, ())]
        )
        named = {d.node_id: d for d in candidates if d.parent_id == top and d.symbol_kind in kinds}
        found = [d for d in named.values() if name in js_exports_of(text, d.name)]
        if found or hops >= MAX_IMPORT_HOPS:
            return self._first(found) if found else None
        imported = self.js.bindings(source).get(local) if entry is not None and entry[0] == "local" else None
        module = self.js.resolved(source, imported[0]) if imported is not None else None
        if imported is not None and module is not None:  # `import { Hono } from './hono'; export { Hono }`
            return self.js_export_named(module, imported[1], kinds, hops + 1)
        for reexport in _JS_REEXPORT.finditer(text):
            module = self.js.resolved(source, reexport.group(2))
            if module is None:
                continue
            if reexport.group(1) == "*":
                names = [name] if name != DEFAULT_EXPORT else []
            else:
                names = [there for there, here in _js_specifiers(reexport.group(1), "as") if here == name]
            for there in names:
                definition = self.js_export_named(module, there, kinds, hops + 1)
                if definition is not None:
                    return definition
        return None

    def js_binds_other(self, target: Sym, name: str, path: str) -> bool:
        """Whether the JavaScript file at ``path`` binds ``name`` itself, to something other than ``target``
        (not reached through its imports): an import of an indexed file other than the target's and those
        importing it, or of Node's (``node:…``), or a definition of its own (a package's name may be this
        repository's own: not known here)."""
        if L.language_for(path) not in JS_SCRIPTS:
            return False
        for node in self.spans(path):
            found = self.sym(node.node_id) if node.name == name else None
            if found is not None and JS_DECLARES.match(found.signature):
                return True
        binding = self.js.bindings(path).get(name)
        source = self.js.resolved(path, binding[0]) if binding is not None else None
        if source is not None:  # unless it is the target's file, or one importing it (an export not followed)
            return source != target.path and source not in self.js.importing_paths(target.path)
        return binding is not None and binding[0].startswith("node:")

    def js_object_named(self, target: Sym, receiver: str, path: str) -> bool:
        """Whether ``receiver`` in the file at ``path`` is the object literal holding the method ``target``:
        its name in its own file, or a name another file imports it under."""
        if target.node_id not in self._literals:
            node = self.node(target)
            found = (
                object_literal_name(self.lines(target.path), node.start_line) if node is not None else None
            )
            self._literals[target.node_id] = found
        owner = self._literals[target.node_id]
        if owner is None:
            return False
        if path == target.path:
            return receiver == owner
        binding = self.js.bindings(path).get(receiver)
        if binding is None:
            return False
        key = (target.path, owner)
        if key not in self._exports_of:
            self._exports_of[key] = js_exports_of("\n".join(self.lines(target.path)), owner)
        exported = self._exports_of[key]
        return self.js.resolved(path, binding[0]) == target.path and binding[1] in exported

    def js_exported(self, target: Sym) -> dict[str, set[str]]:
        """The names each file exports the JavaScript definition ``target`` under (see :class:`JsModules`)."""
        if target.node_id not in self._exported:
            top_level = target.parent_id == self.file_id(target.path)
            self._exported[target.node_id] = self.js.exported(target, top_level)
        return self._exported[target.node_id]

    def js_imports(self, target: Sym, ref: Reference, path: str) -> bool:
        """Whether ``ref`` in the file at ``path`` names ``target`` through one of the file's imports: a bare
        name it imports (``import delay from``, ``import { a as b }``, ``require``), or ``ns.name`` through
        a whole module (``import * as ns``, ``const ns = require(m)``)."""
        exported = self.js_exported(target)
        if not ref.receiver:
            return self.js.reaches(path, ref.name, exported) is True
        source = self.js.namespace(path, ref.receiver)  # `import * as ns`, `require(m)`, `import { z }`
        return source is not None and ref.name in exported.get(source, ())

    def js_importing_files(self, target: Sym) -> list[Found]:
        """The files importing ``target`` by a name their imports bind, or re-exporting it (``import``), at
        the line of that import."""
        if target.language not in JS_SCRIPTS:
            return []
        exported = self.js_exported(target)
        found: list[Found] = []
        for path in sorted({p for source in exported for p in self.js.importing_paths(source)}):
            lines = [
                line
                for module, resolved, line in file_imports(self.conn, path)
                if resolved in exported and resolved != path
            ]
            binds = path in exported or any(
                self.js.reaches(path, local, exported) for local in self.js.bindings(path)
            )
            node = self.file_id(path)
            if binds and lines and node is not None:
                found.extend(Found(n, FOUND_IMPORT, min(lines), "") for n in nodes_by_id(self.conn, [node]))
        return found

    def js_region(self, target: Sym) -> tuple[int, int] | None:
        """The lines where a bare name in the JavaScript definition's own file names it: its scope (the file,
        or the function holding it), cut at the definitions of the same name beside it (tests redefining
        ``customFetch`` case after case: a name is the nearest one before it); None when a bare name does not
        bind it (a method, a function assigned to a property)."""
        own = self.node(target)
        if own is None or not JS_DECLARES.match(target.signature):
            return None
        parent = self.sym(target.parent_id) if target.parent_id else None
        if parent is not None and parent.symbol_kind in CLASS_KINDS:
            return None
        scope = self.node(parent) if parent is not None else None
        first, last = (scope.start_line, scope.end_line) if scope else (1, len(self.lines(target.path)))
        lines = self.lines(target.path)
        for node in self.spans(target.path):
            other = self.sym(node.node_id) if node.name == target.name else None
            if other is None or other.parent_id != target.parent_id or not JS_DECLARES.match(other.signature):
                continue
            closes = (
                block_closes(lines, node.end_line, own.start_line) if node.end_line < own.start_line else None
            )
            if closes is not None:  # a function declaration is bound in its whole block, before it too
                first = max(first, closes + 1 if JS_HOISTED.match(target.signature) else own.start_line)
            closes = (
                block_closes(lines, own.end_line, node.start_line) if node.start_line > own.end_line else None
            )
            if closes is not None:
                last = min(last, closes if JS_HOISTED.match(other.signature) else node.start_line - 1)
        return first, last

    def js_in_region(self, target: Sym, ref: Reference, path: str, line: int) -> bool:
        """False for a bare name in a JavaScript definition's own file outside the lines where it names that
        definition (see :meth:`js_region`)."""
        if target.language not in JS_SCRIPTS or ref.receiver or path != target.path:
            return True
        region = self.js_region(target)
        return region is None or region[0] <= line <= region[1]

    def js_value_uses(self, target: Sym) -> list[Found]:
        """The code passing the JavaScript definition ``target`` on as a value (``app.use(logger)``, ``{
        logger }``, ``exports.logger = logger``, ``[exports.helper]``), in its own scope and in the files whose
        imports bind it: a ``reference``, at the first such line of each."""
        if target.language not in JS_SCRIPTS:
            return []
        own = self.node(target)
        exported = self.js_exported(target)
        places: list[tuple[str, str, re.Pattern[str], tuple[int, int]]] = []
        region = self.js_region(target)
        if region is not None and spelled_as_value(target.path, target.name):
            places.append((target.path, target.name, value_pattern(target.name), region))
        cls = self.sym(target.parent_id) if target.parent_id else None
        scope = self.node(cls) if cls is not None and cls.symbol_kind in CLASS_KINDS else None
        if scope is not None:  # `this.retry` passed on inside its class
            this = value_pattern(target.name, receiver="this")
            places.append((target.path, target.name, this, (scope.start_line, scope.end_line)))
        whole = (1, len(self.lines(target.path)))
        for name in sorted(exported.get(target.path, set()) - {DEFAULT_EXPORT}):
            places.append((target.path, name, value_pattern(name, exported=True), whole))
        paths = sorted({p for source in exported for p in self.js.importing_paths(source)})
        for path in paths[:MAX_REEXPORT_FILES]:
            whole = (1, len(self.lines(path)))
            for local in self.js.bindings(path):
                if self.js.reaches(path, local, exported) and spelled_as_value(path, local):
                    places.append((path, local, value_pattern(local), whole))
                module = self.js.namespace(path, local)  # `app.get('/users', user.list)`
                for name in sorted(exported.get(module, set()) - {DEFAULT_EXPORT}) if module else ():
                    places.append((path, name, value_pattern(name, receiver=local), whole))
        found: dict[str, Found] = {}
        span = range(own.start_line, own.end_line + 1) if own is not None else range(0)
        for path, name, pattern, lines in places:
            skip = self.js_binding_lines(path)
            for number in value_lines(self.lines(path), name, pattern, lines, skip):
                holder = self.holder(path, number)
                if holder is None or (path == target.path and number in span):
                    continue
                if pattern.pattern == value_pattern(name).pattern and self.js_shadows(holder, name, target):
                    continue  # `function f(logger) { app.use(logger) }`: its own parameter
                if holder.node_id not in found or number < found[holder.node_id].line:
                    found[holder.node_id] = Found(holder, FOUND_REFERENCE, number, "")
        return list(found.values())

    def js_shadows(self, holder: Node, name: str, target: Sym) -> bool:
        """Whether the function ``holder`` has a parameter ``name``, so that the name there is not the
        definition ``target`` (unless ``holder`` encloses it: :func:`~prooftext.api.who_uses_js_types.binds_name`)."""
        found = self.sym(holder.node_id)
        if found is None or found.symbol_kind not in ("function", "method"):
            return False
        own = self.node(target)
        inside = (
            own is not None
            and holder.path == target.path
            and holder.start_line <= own.start_line <= holder.end_line
        )
        return not inside and binds_name(found.signature, name)

    def js_exported_unseen(self, target: Sym) -> bool:
        """Whether the JavaScript definition ``target`` may be exported in a way not followed: no export of it
        is read, yet a line of its file spelling its name also spells ``export`` (``module.exports = { create:
        wrap(createApplication) }``, ``Object.assign(module.exports, { pick })``)."""
        if self.js_exported(target):
            return False
        word = value_pattern(target.name)
        return any("export" in line and word.search(line) for line in self.lines(target.path))

    def js_accessor_uses(self, target: Sym) -> list[Found]:
        """For a getter or setter (``get res()``), the code reading (or, for a setter, assigning) its name
        through a receiver, each classified as a call there would be (a ``reference`` where the receiver's
        class is known to hold it, else ``possible``): the index records members' calls, not their reads,
        so the code files spelling the name are read here."""
        accessor = JS_ACCESSOR.match(target.signature) if target.language in JS_SCRIPTS else None
        if accessor is None or target.parent_id is None:
            return []
        own = self.node(target)
        span = range(own.start_line, own.end_line + 1) if own is not None else range(0)
        found: dict[str, Found] = {}
        rank = {FOUND_REFERENCE: 0, FOUND_POSSIBLE: 1}
        for path in code_files_spelling(self.conn, target.name, MAX_ACCESSOR_FILES):
            if L.language_for(path) not in JS_SCRIPTS:
                continue
            for number, line in enumerate(self.lines(path), start=1):
                if target.name not in line or line.lstrip().startswith(("//", "/*", "*")):
                    continue
                holder = self.holder(path, number)
                if holder is None or (path == target.path and number in span):
                    continue
                for receiver, kind in member_accesses(line, target.name):
                    ref = Reference(target.name, HOW_READ, receiver)
                    how = self._classify_other(target, ref, path, holder.node_id, FOUND_REFERENCE)
                    if kind != accessor.group(1) or how not in rank:
                        continue
                    known = found.get(holder.node_id)
                    if known is None or (rank[how], number) < (rank[known.found_by], known.line):
                        found[holder.node_id] = Found(holder, how, number, ref.spelled())
        return list(found.values())

    def js_binding_lines(self, path: str) -> set[int]:
        """The lines of a JavaScript file's import, re-export and ``require`` statements."""
        if path not in self._binding_lines:
            self._binding_lines[path] = binding_lines("\n".join(self.lines(path)))
        return self._binding_lines[path]

    def js_alias_rows(self, target: Sym) -> list[tuple[str, str, int, str]]:
        """The spelled uses of the other names files import ``target`` under (``import { a as b }``, a
        default import, a name a file re-exports it as), in those files, and of the other names it is
        exported under as members of a whole module, anywhere (``express.create()`` through ``const express =
        require(…)`` of a file exporting ``{ create: createApplication }``, ``z.enum()`` through ``import { z }``
        of a file with ``export * as z from`` one exporting ``{ _enum as enum }``)."""
        if target.language not in JS_SCRIPTS:
            return []
        exported = self.js_exported(target)
        rows: list[tuple[str, str, int, str]] = []
        paths = sorted({p for source in exported for p in self.js.importing_paths(source)})
        for path in paths[:MAX_REEXPORT_FILES]:
            for local in self.js.bindings(path):
                if local != target.name and self.js.reaches(path, local, exported):
                    rows.extend(r for r in self.spelled_uses(local, path) if len(r[1].split(" ")) == 2)
        for name in sorted({n for names in exported.values() for n in names} - {target.name, DEFAULT_EXPORT}):
            for row in self.spelled_uses(name):  # `z.enum()`: a namespace, imported under any name
                receiver = row[1].split(" ")[2:]
                source = self.js.namespace(row[3], receiver[0]) if len(receiver) == 1 else None
                if source is not None and name in exported.get(source, ()):
                    rows.append(row)
        return rows
