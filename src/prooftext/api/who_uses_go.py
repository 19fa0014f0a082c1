"""Who-uses in Go: packages by import path (read from ``go.mod``), import aliases, the types a struct
embeds, whose methods it promotes, and the types of a function's variables (:class:`GoLocals`)."""

from __future__ import annotations

import posixpath
import re
import sqlite3
from collections.abc import Sequence
from typing import Protocol

import prooftext.graph.languages as L
from prooftext.api.who_uses_go_types import Scoped, declarations, in_scope, signature_parts, type_name
from prooftext.api.who_uses_model import FOUND_POSSIBLE, FOUND_REFERENCE, Found, Node, Sym, WhoUsesStore
from prooftext.graph.model import Reference
from prooftext.store.risk_queries import (
    code_files_spelling,
    file_imports,
    file_lines,
    go_module_files,
    go_package_clause,
    symbol_row,
    symbols_named,
)

_GO_MODULE = re.compile(r"^\s*module\s+\"?([^\s\"]+)", re.MULTILINE)
GO_RECEIVER = re.compile(r"^\s*func\s*\(\s*(\w+)\s")
"""The receiver's name in a Go method's signature: ``func (engine *Engine) Run()`` gives ``engine``."""
_GO_IMPORT_ALIAS = re.compile(r"^\s*(?:import\s+)?(?!import\s)(\w+|\.)\s+\"([^\"]+)\"")
"""A Go import that names its package (``e "errors"``, ``import e "errors"``): the alias and the path."""
_GO_EMBEDDED = re.compile(r"^\s*\*?([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?)\s*(?:`[^`]*`)?\s*(?://.*)?$")
"""A line of a Go struct's body that embeds a type (``RouterGroup``, ``*sync.Mutex``, a tag or comment after)."""

_GO_MAJOR_VERSION = re.compile(r"(?:/v\d+|\.v\d+)$")

GoType = tuple[str, str]
"""A Go type: the directory of its package and its name (``("render", "JSON")``); the directory is
:data:`OUTSIDE` for a package the index does not hold (the standard library, a dependency)."""
OUTSIDE = "\0outside"
_MAX_CALL_DEPTH = 2
"""How many calls deep a variable's type is followed (``cp := c.Copy()`` where ``c, _ := New()``)."""


MAX_VALUE_FILES = 500
"""Go files read per target for the places passing it on as a value."""


class GoReader(Protocol):
    """What :meth:`GoLocals.value_uses` reads of the index through who-uses' caches."""

    def lines(self, path: str) -> list[str]: ...

    def holder(self, path: str, line: int) -> Node | None: ...

    def sym(self, node_id: str) -> Sym | None: ...

    def file_id(self, path: str) -> str | None: ...


class GoPackages:
    """Go packages by import path: a directory is its nearest ``go.mod``'s module path plus the way down to
    it (``github.com/gin-gonic/gin`` is the module root, ``…/gin/render`` its ``render`` directory)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._modules: dict[str, str] | None = None
        self._imports: dict[str, list[tuple[str, str, str | None]]] = {}
        self._embedded: dict[tuple[str, str], list[str]] = {}
        self._clauses: dict[str, str | None] = {}
        self._symbols: dict[tuple[str, str], list[tuple[Node, Sym]]] = {}

    def modules(self) -> dict[str, str]:
        """The module path each indexed ``go.mod`` declares, by its directory."""
        if self._modules is None:
            self._modules = {}
            for path, text in go_module_files(self.conn):
                found = _GO_MODULE.search(text)
                if found:
                    self._modules[posixpath.dirname(path)] = found.group(1)
        return self._modules

    def import_path(self, path: str) -> str | None:
        """The import path of the package holding the file at ``path``, or None without a ``go.mod`` above."""
        directory = posixpath.dirname(path)
        owners = [d for d in self.modules() if not d or directory == d or directory.startswith(d + "/")]
        if not owners:
            return None
        root = max(owners, key=len)
        below = directory[len(root) :].lstrip("/")
        return f"{self.modules()[root]}/{below}" if below else self.modules()[root]

    def imports(self, path: str) -> list[tuple[str, str, str | None]]:
        """``(name it binds, import path, resolved path or None)`` of each import of the Go file at ``path``:
        its alias (``e "errors"``) as its line in the file spells it, else its path's last part."""
        if path not in self._imports:
            lines = file_lines(self.conn, path)
            found = []
            for module, resolved, line in file_imports(self.conn, path):
                alias = _GO_IMPORT_ALIAS.match(lines[line - 1]) if 0 < line <= len(lines) else None
                bound = (
                    alias.group(1)
                    if alias and alias.group(2) == module
                    else self.package_name(module, resolved)
                )
                found.append((bound, module, resolved))
            self._imports[path] = found
        return self._imports[path]

    def package_name(self, import_path: str, resolved: str | None) -> str:
        """The name an import of ``import_path`` binds without an alias: the ``package`` clause of the
        indexed package, else the path's last element without its major version (``/v5``, ``.v3``) and a
        ``go-`` prefix, as Go's tools guess it."""
        directory = self.module_directory(import_path)
        if directory is None and resolved:
            directory = posixpath.dirname(resolved)
        if directory is not None:
            if directory not in self._clauses:
                self._clauses[directory] = go_package_clause(self.conn, directory)
            if self._clauses[directory]:
                return str(self._clauses[directory])
        return _GO_MAJOR_VERSION.sub("", import_path).rsplit("/", 1)[-1].removeprefix("go-")

    def embedded(self, type_name: str, directory: str) -> list[str]:
        """The types the Go struct ``type_name`` of the package at ``directory`` embeds, as written (``T``,
        ``pkg.T``)."""
        key = (type_name, directory)
        if key in self._embedded:
            return self._embedded[key]
        out: list[str] = []
        for node, found in self.package_symbols(type_name, directory):
            if found.symbol_kind == "struct" and found.language == L.GO:
                body = file_lines(self.conn, node.path)[node.start_line : node.end_line - 1]
                out.extend(m.group(1) for line in body if (m := _GO_EMBEDDED.match(line)))
        self._embedded[key] = out
        return out

    def package_symbols(self, qualname: str, directory: str) -> list[tuple[Node, Sym]]:
        """The definitions of ``qualname`` in the package at ``directory`` (several under build tags), with
        their nodes, read once per request."""
        key = (qualname, directory)
        if key not in self._symbols:
            found = []
            for row in symbols_named(self.conn, qualname):
                node = Node(*row)
                held = (
                    symbol_row(self.conn, node.node_id) if posixpath.dirname(node.path) == directory else None
                )
                if held is not None and node.qualname == qualname:
                    found.append((node, Sym(*held)))
            self._symbols[key] = found
        return self._symbols[key]

    def has_member(self, qualname: str, directory: str) -> bool:
        return bool(self.package_symbols(qualname, directory))

    def promoted(self, type_name: str, name: str, directory: str) -> list[str]:
        """The qualified names of the definitions ``name`` finds on the Go type ``type_name`` (of the package
        at ``directory``): its own member, else those of the shallowest types it embeds from that package."""
        level, seen = [type_name], {type_name}
        while level:
            found = [f"{t}.{name}" for t in level if self.has_member(f"{t}.{name}", directory)]
            if found:
                return found
            inner = [e for t in level for e in self.embedded(t, directory) if "." not in e and e not in seen]
            seen.update(inner)
            level = list(dict.fromkeys(inner))
        return []

    def field_type(self, type_name: str, fields: Sequence[str], directory: str) -> str | None:
        """The type reached from ``type_name`` through fields that name embedded types of the package
        (``engine.RouterGroup``), None through any other field."""
        current = type_name
        for field in fields:
            if field not in self.embedded(current, directory):
                return None
            current = field
        return current

    def has_dot_import(self, path: str) -> bool:
        """Whether the Go file at ``path`` imports a package with ``.`` (its names then read bare)."""
        return any(bound == "." for bound, _, _ in self.imports(path))

    def module_directory(self, import_path: str) -> str | None:
        """The directory of the indexed package with this import path, None when no ``go.mod`` holds it."""
        for directory, module in self.modules().items():
            if import_path == module or import_path.startswith(module + "/"):
                return posixpath.join(directory, import_path[len(module) :].lstrip("/")).rstrip("/")
        return None

    def package_dir(self, path: str, bound: str) -> str | None:
        """The directory of the package the file at ``path`` imports as ``bound``: :data:`OUTSIDE` for a
        package the index does not hold, None when the file imports nothing under that name."""
        for name, module, resolved in self.imports(path):
            if name == bound:
                local = self.module_directory(module)
                if local is not None:
                    return local
                return posixpath.dirname(resolved) if resolved else OUTSIDE
        return None

    def names_target(self, path: str, receiver: str, target_path: str) -> bool | None:
        """Whether ``receiver`` in the file at ``path`` is the package of ``target_path`` as one of the file's
        imports (by its alias, else its path's last part): True, False when it is another package, None when
        not known."""
        want = self.import_path(target_path)
        verdicts: set[bool | None] = set()
        for bound, module, resolved in self.imports(path):
            if bound != receiver:
                continue
            if module == want or (resolved and posixpath.dirname(resolved) == posixpath.dirname(target_path)):
                return True
            verdicts.add(False if want is not None or resolved else None)
        return False if verdicts == {False} else None


class GoLocals:
    """The types of the variables of Go functions (see :mod:`prooftext.api.who_uses_go_types`), resolved
    against the index: a type named in a file is of that file's package, or of the package it imports
    under the qualifier; a call's type is its function's or method's declared result."""

    def __init__(self, packages: GoPackages) -> None:
        self.packages = packages
        self.conn = packages.conn
        self._declared: dict[str, dict[str, list[Scoped]]] = {}

    def variable_type(
        self, function: Sym, body: list[str], name: str, at: int, depth: int = 0
    ) -> GoType | None:
        """The type of the variable or parameter ``name`` of ``function`` (whose lines are ``body``) at its
        line ``at`` (an index into ``body``), None when the declaration holding there is not read, or two
        declarations holding there disagree."""
        scoped = self.declared(function, body).get(name)
        if not scoped or depth > _MAX_CALL_DEPTH:
            return None
        kinds = {self._declared_type(function, body, found, depth) for found in in_scope(scoped, at)}
        return kinds.pop() if len(kinds) == 1 and None not in kinds else None

    def one_type(self, function: Sym, body: list[str], name: str) -> bool:
        """Whether every declaration of ``name`` in ``function`` gives it the same type: only then is one
        spelled use (who-uses keeps a function's first of each spelling) every use of that name in it."""
        scoped = self.declared(function, body).get(name, [])
        return len({self._declared_type(function, body, found, 0) for found in scoped}) == 1

    def declared(self, function: Sym, body: list[str]) -> dict[str, list[Scoped]]:
        """The declarations of ``function`` (whose lines are ``body``), read once per request."""
        if function.node_id not in self._declared:
            self._declared[function.node_id] = declarations(function.signature, body)
        return self._declared[function.node_id]

    def _declared_type(self, function: Sym, body: list[str], scoped: Scoped, depth: int) -> GoType | None:
        declared = scoped.declared
        if declared.type_text:
            return self.resolve(function.path, declared.type_text)
        if not declared.head:
            return None
        if not declared.member:
            return self._result(posixpath.dirname(function.path), [declared.head], declared.index)
        if declared.head in self._declared[function.node_id]:
            held = self.variable_type(function, body, declared.head, scoped.first, depth + 1)
            if held is None or held[0] == OUTSIDE:
                return None
            return self._result(
                held[0], self.packages.promoted(held[1], declared.member, held[0]), declared.index
            )
        directory = self.packages.package_dir(function.path, declared.head)
        if directory is None or directory == OUTSIDE:
            return None
        return self._result(directory, [declared.member], declared.index)

    def resolve(self, path: str, text: str) -> GoType | None:
        """The type that the type ``text`` written in the file at ``path`` names."""
        name = type_name(text)
        if name is None:
            return None
        qualifier, _, short = name.rpartition(".")
        if not qualifier:
            return posixpath.dirname(path), short
        directory = self.packages.package_dir(path, qualifier)
        return None if directory is None else (directory, short)

    def _result(self, directory: str, qualnames: Sequence[str], index: int) -> GoType | None:
        """The ``index``-th result type of the functions or methods ``qualnames`` of the package at
        ``directory``, when they all declare the same one."""
        kinds: set[GoType | None] = set()
        for qualname in qualnames:
            for node, found in self.packages.package_symbols(qualname, directory):
                results = signature_parts(found.signature)[1]
                kinds.add(self.resolve(node.path, results[index][1]) if index < len(results) else None)
        return kinds.pop() if len(kinds) == 1 else None

    def value_uses(self, target: Sym, reader: GoReader) -> list[tuple[Node, int]]:
        """The code passing the Go function or method ``target`` on as a value (see
        :func:`go_value_spellings`), with the first line of each: a bare name in its package, ``pkg.Name``
        through an import of its package, ``x.Method`` where the function states ``x``'s type."""
        if target.language != L.GO or target.symbol_kind not in ("function", "method"):
            return []
        if target.symbol_kind == "function" and target.parent_id != reader.file_id(target.path):
            return []  # a function literal's or a nested declaration's name is not reached from outside
        found: dict[str, tuple[Node, int]] = {}
        for path in code_files_spelling(self.conn, target.name, MAX_VALUE_FILES):
            if not path.endswith(".go"):
                continue
            for number, qualifier in go_value_spellings(reader.lines(path), target.name):
                holder = reader.holder(path, number)
                if holder is None or holder.node_id == target.node_id or holder.node_id in found:
                    continue  # lines come in order: the first one of a holder is kept
                if self._passes(target, (path, number, qualifier), holder, reader):
                    found[holder.node_id] = (holder, number)
        return sorted(found.values(), key=lambda pair: pair[0].order)

    def _passes(self, target: Sym, where: tuple[str, int, str], holder: Node, reader: GoReader) -> bool:
        """Whether the spelling at ``where`` (path, line, qualifier) inside ``holder`` names ``target``."""
        path, number, qualifier = where
        function = reader.sym(holder.node_id)
        if function is not None and function.symbol_kind not in ("function", "method"):
            return False  # a type's declaration: a field named like the target holds no value
        body = reader.lines(path)[holder.start_line - 1 : holder.end_line]
        declared = self.declared(function, body) if function is not None else {}
        at = number - holder.start_line
        directory = posixpath.dirname(target.path)
        if target.symbol_kind == "method":
            if not qualifier or function is None:
                return False
            kind = self.variable_type(function, body, qualifier, at)
            return (
                kind is not None
                and kind[0] == directory
                and target.qualname in self.packages.promoted(kind[1], target.name, directory)
            )
        if not qualifier:  # a bare name: the package's own, unless a local of that name holds there
            return posixpath.dirname(path) == directory and not in_scope(declared.get(target.name, []), at)
        if in_scope(declared.get(qualifier, []), at):
            return False  # a variable, not the package
        return self.packages.names_target(path, qualifier, target.path) is True

    def is_interface(self, kind: GoType) -> bool:
        """Whether the type is an interface (a call through it may run any implementation)."""
        return any(
            found.symbol_kind == "interface" for _, found in self.packages.package_symbols(kind[1], kind[0])
        )


_GO_NOT_A_VALUE = re.compile(r"\s*(?:\(|:(?!=)|=(?!=)|\[)")
"""What follows a name that is not passed on as a value: a call (recorded as a reference already), a key of
a composite literal, an assignment to it, or type arguments."""
_GO_DECLARING = re.compile(r"\bfunc\s*(?:\([^()]*\)\s*)?$")
"""What precedes a name that a ``func`` declaration declares (``func Name``, ``func (r *T) Name``)."""


def go_value_spellings(lines: Sequence[str], name: str) -> list[tuple[int, str]]:
    """``(line number, qualifier)`` of each line spelling the Go name ``name`` as a value passed on
    (``getCommand(NoDuplicateArgs)``, ``ValidArgsFunction: validArgsFunc``, ``r.Get("/", rs.List)``), its
    first such spelling on the line: the qualifier is ``""`` for a bare name, else the package or variable
    before it. Comment lines, ``package`` and ``import`` lines, strings (raw ones over several lines too),
    calls and declarations are left out, and so are chains (``a.b.Name``), whose holder is not known."""
    pattern = re.compile(rf"(?<![\w.])(?:([A-Za-z_]\w*)\.)?{re.escape(name)}(?!\w)")
    found: list[tuple[int, str]] = []
    raw = False  # inside a raw string that an earlier line opened
    for number, line in enumerate(lines, start=1):
        start = line.find("`") + 1 if raw else 0
        if raw and not start:
            continue
        raw = line.count("`", start) % 2 == 1
        if name not in line or line.lstrip().startswith(("//", "package ", "import ")):
            continue
        qualifier = _value_spelled(line, start, pattern)
        if qualifier is not None:
            found.append((number, qualifier))
    return found


def _value_spelled(line: str, start: int, pattern: re.Pattern[str]) -> str | None:
    """The qualifier of the first spelling of a value in ``line`` from ``start`` (``""`` when bare), None
    when it holds none."""
    for match in pattern.finditer(line, start):
        before = line[start : match.start()]
        quoted = before.count('"') % 2 or before.count("`") % 2
        if (
            "//" in before
            or quoted
            or _GO_DECLARING.search(before)
            or _GO_NOT_A_VALUE.match(line, match.end())
        ):
            continue
        return match.group(1) or ""
    return None


class GoWhoUses(WhoUsesStore):
    """Who-uses in Go: packages, receivers, embedded types, variables' stated types and values passed on."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        super().__init__(conn)
        self.go = GoPackages(conn)
        self.go_locals = GoLocals(self.go)

    def _classify_go(
        self, target: Sym, ref: Reference, path: str, where: tuple[str, int], exact: str
    ) -> str | None:
        """Go: a bare name in the target's package (or in a file importing it with ``.``), ``pkg.Name``
        through the file's import of the target's package, and ``recv.m()`` inside a method of the target's
        type with that receiver are exact; a bare name in another package, or ``pkg.Name`` through another
        package's import, names something else; the rest is possible."""
        owner_id = where[0]
        same_package = posixpath.dirname(path) == posixpath.dirname(target.path)
        top_level = target.parent_id == self.file_id(target.path) and target.symbol_kind != "method"
        if not ref.receiver:
            if same_package:
                return exact if top_level else FOUND_POSSIBLE
            dotted = self.go.names_target(path, ".", target.path)  # `import . "pkg"` binds its names bare
            if dotted is True:
                return exact if top_level else FOUND_POSSIBLE
            return FOUND_POSSIBLE if dotted is None and self.go.has_dot_import(path) else None
        method = self.go_method(owner_id)
        parts = ref.receiver.split(".")
        if method is not None and parts[0] == method[0] and same_package:
            directory = posixpath.dirname(path)
            held = self.go.field_type(method[1], parts[1:], directory)
            found = self.go.promoted(held, ref.name, directory) if held is not None else []
            if found:  # the receiver's type's own member, or one promoted from a type it embeds
                return exact if target.qualname in found else None
            return FOUND_POSSIBLE  # a field, or a member of a type from another package
        typed = self._go_variable_type(where, parts[0])
        if typed is not None:
            how = self._classify_go_typed(target, typed, parts[1:], exact)
            return FOUND_POSSIBLE if how is None and not self._go_one_type(where[0], parts[0]) else how
        names = self.go.names_target(path, ref.receiver, target.path)
        if names is True:
            return exact if top_level else None
        return None if names is False else FOUND_POSSIBLE

    def _go_function(self, owner_id: str) -> tuple[Sym, Node, list[str]] | None:
        """The definition holding a reference, its node and its lines."""
        function = self.sym(owner_id)
        node = self.node(function) if function is not None else None
        if function is None or node is None:
            return None
        return function, node, self.lines(function.path)[node.start_line - 1 : node.end_line]

    def _go_variable_type(self, where: tuple[str, int], name: str) -> GoType | None:
        """The type of the variable ``name`` where a reference is (owner node id, line; line 0 unknown)."""
        held = self._go_function(where[0])
        if held is None or not held[1].start_line <= where[1] <= held[1].end_line:
            return None
        return self.go_locals.variable_type(held[0], held[2], name, where[1] - held[1].start_line)

    def _go_one_type(self, owner_id: str, name: str) -> bool:
        held = self._go_function(owner_id)
        return held is not None and self.go_locals.one_type(held[0], held[2], name)

    def _classify_go_typed(self, target: Sym, kind: GoType, fields: Sequence[str], exact: str) -> str | None:
        """``x.f.name()`` where the function declares ``x``'s type: exact when ``name`` on the type reached
        is the target (its own or promoted), possible through an interface (any implementation may run) or
        a field or member the package cannot tell, else something else."""
        if target.symbol_kind != "method" or kind[0] == OUTSIDE:
            return None  # a method call is no call of a function, and a type not indexed has no target
        held = self.go.field_type(kind[1], fields, kind[0])
        if held is None:
            return FOUND_POSSIBLE
        found = self.go.promoted(held, target.name, kind[0])
        if kind[0] == posixpath.dirname(target.path) and target.qualname in found:
            return exact
        if self.go_locals.is_interface((kind[0], held)):
            return FOUND_POSSIBLE
        return None if found else FOUND_POSSIBLE

    def go_method(self, owner_id: str) -> tuple[str, str] | None:
        """(receiver name, receiver type) of the Go method holding ``owner_id``, if any."""
        current = self.sym(owner_id)
        while current is not None:
            found = GO_RECEIVER.match(current.signature) if current.symbol_kind == "method" else None
            if found and "." in current.qualname:
                return found.group(1), current.qualname.rsplit(".", 1)[0]
            current = self.sym(current.parent_id) if current.parent_id else None
        return None

    def go_value_uses(self, target: Sym) -> list[Found]:
        """The code passing the Go function or method ``target`` on as a value (``getCommand(NoDuplicateArgs)``,
        ``r.Get("/", rs.List)``): a ``reference``, at the first such line of each."""
        return [
            Found(node, FOUND_REFERENCE, line, "") for node, line in self.go_locals.value_uses(target, self)
        ]
