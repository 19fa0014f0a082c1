"""Who-uses in C: a call names a function by linkage, not by type. A file's own definition of the name is
the one it calls; a ``static`` function is callable only from its own file and the files that include it
(a header's ``static inline`` function, an amalgamation's ``#include "x.c"``); a function with external
linkage is the one definition of its name across the C and C++ files nearest the caller's directory (a
platform's variant in ``src/unix`` or ``src/win``, a vendored library's copy), and two as near leave which
one a call reaches to the build. A name a function-like macro defines where the call stands may expand to
something else; a function pointer parameter of the name, or a type (a prototype's name reads as one), is
no use."""

from __future__ import annotations

import itertools
import posixpath
import re
import sqlite3
from collections import deque

import prooftext.graph.languages as L
from prooftext.api.who_uses_model import FOUND_POSSIBLE, Sym, WhoUsesStore
from prooftext.graph.model import HOW_CALL, Reference
from prooftext.store.risk_queries import file_imports, functions_named

C_FAMILY = frozenset({L.C, L.CPP})
MAX_INCLUDED_FILES = 400
"""Files followed through ``#include`` from one caller's file (its headers' headers too)."""
_MACRO = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\(", re.MULTILINE)
"""A function-like macro's name: ``#define luaM_new(L,t)``."""
_STATIC = re.compile(r"\bstatic\b")


def is_c_function(target: Sym) -> bool:
    """Whether who-uses reads ``target`` as a C function (see the module docstring)."""
    return target.language == L.C and target.symbol_kind == "function"


def is_c_family_file(path: str) -> bool:
    return L.language_for(path) in C_FAMILY


class CWhoUses(WhoUsesStore):
    """C's classification, over the store reads of :class:`WhoUsesStore`, cached for one request."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        super().__init__(conn)
        self._c_functions: dict[str, list[Sym]] = {}
        self._c_included: dict[str, frozenset[str]] = {}
        self._c_macros: dict[str, frozenset[str]] = {}

    def _classify_c(self, target: Sym, ref: Reference, path: str, owner_id: str, exact: str) -> str | None:
        """How a call without a receiver in a C or C++ file depends on the C function ``target``."""
        if ref.how != HOW_CALL:
            return None  # C names types and functions alike: a type of the name is no function
        if self._c_parameter(owner_id, ref.name):
            return None  # a function pointer the caller takes
        own = [f for f in self._c_named(ref.name) if f.path == path]
        if own:
            return (exact if len(own) == 1 else FOUND_POSSIBLE) if target in own else None
        named, included = self._c_named(ref.name), self._c_includes(path)
        if _is_static(target):
            if target.path not in included:
                return None  # file-local elsewhere
        elif any(_is_static(f) and f.path in included for f in named):
            return None  # a header's `static inline` function of the name is the one called
        else:
            nearest = _nearest(path, [f for f in named if not _is_static(f)])
            if target not in nearest:
                return None  # another platform's or program's definition is nearer the caller
            if len(nearest) > 1:
                return FOUND_POSSIBLE  # as near as each other: the build picks one
        if ref.name in self._c_macros_seen(path):
            return FOUND_POSSIBLE  # a function-like macro of the name may be what the call expands
        return exact

    def _c_named(self, name: str) -> list[Sym]:
        """The C and C++ functions named ``name`` (not methods), in every file."""
        if name not in self._c_functions:
            rows = functions_named(self.conn, name, sorted(C_FAMILY))
            self._c_functions[name] = [Sym(*row) for row in rows]
        return self._c_functions[name]

    def _c_includes(self, path: str) -> frozenset[str]:
        """The file and every indexed file it includes, directly or through its headers."""
        if path not in self._c_included:
            seen = {path}
            queue = deque([path])
            while queue and len(seen) < MAX_INCLUDED_FILES:
                for _, resolved, _ in file_imports(self.conn, queue.popleft()):
                    if resolved is not None and resolved not in seen:
                        seen.add(resolved)
                        queue.append(resolved)
            self._c_included[path] = frozenset(seen)
        return self._c_included[path]

    def _c_macros_seen(self, path: str) -> frozenset[str]:
        """The function-like macros ``path`` and the files it includes define."""
        if path not in self._c_macros:
            names = {m.group(1) for p in self._c_includes(path) for m in _MACRO.finditer(self._c_text(p))}
            self._c_macros[path] = frozenset(names)
        return self._c_macros[path]

    def _c_text(self, path: str) -> str:
        return "\n".join(self.lines(path))

    def _c_parameter(self, owner_id: str, name: str) -> bool:
        """Whether the function ``owner_id`` takes a parameter named ``name``: a type and the name, or a
        function pointer (``int (*name)(void)``), not a bare word (``TEST_IMPL(name)``, a macro's argument)."""
        owner = self.sym(owner_id)
        if owner is None or "(" not in owner.signature:
            return False
        parameters = owner.signature[owner.signature.index("(") + 1 :]
        word = re.escape(name)
        return re.search(rf"(?:[\w*]\s*[\s*]|\(\s*\*\s*){word}\s*[,)\[]", parameters) is not None


def _nearest(path: str, found: list[Sym]) -> list[Sym]:
    """The definitions of ``found`` whose directories are nearest the file ``path``'s, counted in the
    directories between them: a file of ``src/unix`` is built with ``src/unix/tcp.c``, not ``src/win/tcp.c``,
    and a program's ``src/sds.c`` is not its vendored library's ``deps/hiredis/sds.c``."""
    here = _directories(path)

    def distance(other: Sym) -> int:
        there = _directories(other.path)
        shared = sum(
            1 for _ in itertools.takewhile(lambda pair: pair[0] == pair[1], zip(here, there, strict=False))
        )
        return len(here) + len(there) - 2 * shared

    least = min((distance(f) for f in found), default=0)
    return [f for f in found if distance(f) == least]


def _directories(path: str) -> list[str]:
    directory = posixpath.dirname(path)
    return directory.split("/") if directory else []


def _is_static(found: Sym) -> bool:
    """Whether a C function's signature declares it ``static`` before its name (file-local)."""
    at = found.signature.find(found.name)
    return _STATIC.search(found.signature[:at] if at >= 0 else found.signature) is not None
