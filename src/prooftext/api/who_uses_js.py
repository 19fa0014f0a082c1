"""Who-uses in JavaScript and TypeScript: what a file's imports, ``require`` calls and re-exports bind, and
the names a file exports a definition under."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Collection

import prooftext.graph.languages as L
from prooftext.api.who_uses_model import Sym, nodes_by_id
from prooftext.store.risk_queries import file_imports, file_lines, importers

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
        lines = importers(self.conn, path)
        return sorted({n.path for n in nodes_by_id(self.conn, list(lines))} - {path})

    def reexported(self, path: str, source: str, names: set[str]) -> set[str]:
        """The names the file at ``path`` re-exports from ``source`` of those it exports as ``names``."""
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
            before = re.sub(r"\\.", "", line[: match.start()])
            quoted = any(before.count(q) % 2 for q in "'\"`")
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
