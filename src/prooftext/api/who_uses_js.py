"""Who-uses in JavaScript and TypeScript: what a file's imports, ``require`` calls and re-exports bind, and
the names a file exports a definition under."""

from __future__ import annotations

import re
import sqlite3

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
JS_SCRIPTS = (L.JAVASCRIPT, L.TYPESCRIPT, L.TSX)
DEFAULT_EXPORT = "default"
MAX_REEXPORT_FILES = 200
"""Files re-exporting a JavaScript definition followed per target (barrels of barrels)."""
_Binding = tuple[str, str]
"""A name a JavaScript file imports: (module as written, the name it has there: ``default``, ``*`` or a name)."""


def _js_specifiers(text: str, separator: str) -> list[tuple[str, str]]:
    """``(name there, name here)`` of ``{ a as b, c }`` (``separator`` ``as``) or ``{ a: b, c }`` (``:``)."""
    out = []
    for item in text.strip().strip("{}").split(","):
        words = item.replace(separator, f" {separator} ").split()
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
    ``export { name }``, ``exports.name =``), another (``export { name as other }``, ``exports.other =
    name``) and ``default`` (``export default name``, ``module.exports = name``, ``name as default``)."""
    word = re.escape(name)
    out: set[str] = set()
    declared = rf"\bexport\s+(?:declare\s+)?(?:async\s+)?(?:abstract\s+)?(?:function\s*\*?|class|const|let|var|enum|namespace|interface|type)\s+{word}(?![\w$])"
    if re.search(declared, text) or re.search(rf"(?<![\w$.])exports\.{word}\s*=(?!=)", text):
        out.add(name)
    default = rf"\bexport\s+default\s+(?:async\s+)?(?:(?:function\s*\*?|class)\s+)?{word}(?![\w$])"
    if re.search(default, text) or re.search(
        rf"\bmodule\.exports\s*=\s*(?:exports\s*=\s*)?{word}\s*;?\s*$", text, re.M
    ):
        out.add(DEFAULT_EXPORT)
    for listed in re.finditer(r"\bexport\s*\{([^}]*)\}(?!\s*from)", text):
        out.update(here for there, here in _js_specifiers(listed.group(1), "as") if there == name)
    out.update(re.findall(rf"(?<![\w$.])(?:module\.)?exports\.([\w$]+)\s*=\s*{word}\s*;?\s*$", text, re.M))
    return out


class JsModules:
    """JavaScript and TypeScript files' imports, read from their indexed text: the name a file binds for a
    definition of another file, directly or through files re-exporting it (``export { a as b } from``)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._bindings: dict[str, dict[str, _Binding]] = {}
        self._resolved: dict[str, dict[str, str | None]] = {}

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

    def reaches(self, path: str, local: str, exported: dict[str, set[str]]) -> bool | None:
        """Whether the name ``local`` in the file at ``path`` is the definition ``exported`` describes: True,
        False when it imports another file's or another name, None when the file does not import it."""
        binding = self.bindings(path).get(local)
        if binding is None:
            return None
        source = self.resolved(path, binding[0])
        return source is not None and binding[1] in exported.get(source, ())
