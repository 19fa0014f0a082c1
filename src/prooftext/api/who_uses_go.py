"""Who-uses in Go: packages by import path (read from ``go.mod``), import aliases, and the types a struct
embeds, whose methods it promotes."""

from __future__ import annotations

import posixpath
import re
import sqlite3
from collections.abc import Sequence

import prooftext.graph.languages as L
from prooftext.api.who_uses_model import Node
from prooftext.store.risk_queries import file_imports, file_lines, go_module_files, symbol_row, symbols_named

_GO_MODULE = re.compile(r"^\s*module\s+\"?([^\s\"]+)", re.MULTILINE)
GO_RECEIVER = re.compile(r"^\s*func\s*\(\s*(\w+)\s")
"""The receiver's name in a Go method's signature: ``func (engine *Engine) Run()`` gives ``engine``."""
_GO_IMPORT_ALIAS = re.compile(r"^\s*(?:import\s+)?(?!import\s)(\w+|\.)\s+\"([^\"]+)\"")
"""A Go import that names its package (``e "errors"``, ``import e "errors"``): the alias and the path."""
_GO_EMBEDDED = re.compile(r"^\s*\*?([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?)\s*(?:`[^`]*`)?\s*(?://.*)?$")
"""A line of a Go struct's body that embeds a type (``RouterGroup``, ``*sync.Mutex``, a tag or comment after)."""


class GoPackages:
    """Go packages by import path: a directory is its nearest ``go.mod``'s module path plus the way down to
    it (``github.com/gin-gonic/gin`` is the module root, ``…/gin/render`` its ``render`` directory)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._modules: dict[str, str] | None = None
        self._imports: dict[str, list[tuple[str, str, str | None]]] = {}
        self._embedded: dict[tuple[str, str], list[str]] = {}

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
                bound = alias.group(1) if alias and alias.group(2) == module else module.rsplit("/", 1)[-1]
                found.append((bound, module, resolved))
            self._imports[path] = found
        return self._imports[path]

    def embedded(self, type_name: str, directory: str) -> list[str]:
        """The types the Go struct ``type_name`` of the package at ``directory`` embeds, as written (``T``,
        ``pkg.T``)."""
        key = (type_name, directory)
        if key in self._embedded:
            return self._embedded[key]
        out: list[str] = []
        for row in symbols_named(self.conn, type_name):
            node = Node(*row)
            row_sym = symbol_row(self.conn, node.node_id)
            if row_sym is None or posixpath.dirname(node.path) != directory or node.qualname != type_name:
                continue
            if row_sym[3] == "struct" and row_sym[7] == L.GO:
                body = file_lines(self.conn, node.path)[node.start_line : node.end_line - 1]
                out.extend(m.group(1) for line in body if (m := _GO_EMBEDDED.match(line)))
        self._embedded[key] = out
        return out

    def has_member(self, qualname: str, directory: str) -> bool:
        return any(posixpath.dirname(n[4]) == directory for n in symbols_named(self.conn, qualname))

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
