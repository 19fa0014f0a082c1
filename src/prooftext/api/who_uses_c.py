"""Who-uses in C: a call names a function by linkage, not by type. A file's own definition of the name is
the one it calls; a ``static`` function is callable only from its own file and the files that include it
(a header's ``static inline`` function, an amalgamation's ``#include "x.c"``); a function with external
linkage is the one definition of its name across the C and C++ files nearest the caller's directory (a
platform's variant in ``src/unix`` or ``src/win``, a vendored library's copy), and two as near leave which
one a call reaches to the build. A name a function-like macro defines where the call stands may expand to
something else; a function pointer parameter or a variable of the name, or a type (a prototype's name reads
as one), is no use. A function named without a call (a callback passed on, a table's entry, ``&f``) is a
reference under the same rules, read from the text of the files spelling it."""

from __future__ import annotations

import itertools
import posixpath
import re
import sqlite3
from collections import deque

import prooftext.graph.languages as L
from prooftext.api.who_uses_model import (
    FOUND_POSSIBLE,
    FOUND_REFERENCE,
    Found,
    Sym,
    WhoUsesStore,
)
from prooftext.graph.model import HOW_CALL, Reference
from prooftext.store.risk_queries import code_files_spelling, definitions_named, file_imports

C_FAMILY = frozenset({L.C, L.CPP})
MAX_INCLUDED_FILES = 400
"""Files followed through ``#include`` from one caller's file (its headers' headers too)."""
_MACRO = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\(", re.MULTILINE)
"""A function-like macro's name: ``#define luaM_new(L,t)``."""
_STATIC = re.compile(r"\bstatic\b")
_C_NOT_CODE = re.compile(
    r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|/\*(?s:.*?)\*/|//[^\n]*|^[ \t]*#(?:[^\n]*\\\n)*[^\n]*',
    re.MULTILINE,
)
"""What is not code in C: string and character literals, comments, preprocessor lines (continued ones too)."""
_DECLARED_BEFORE = re.compile(r"\s*(?:(?!(?:return|case|goto|else|sizeof|do)\b)[A-Za-z_]\w*[\s*]+)+")
"""What stands before a variable's name in its declaration: words and stars (``static const char``,
``uv_timer_cb *``), not a statement's keyword (``return after;``)."""
_NOT_BREAK = re.compile(r"[^\n]")
MAX_VALUE_FILES = 500
"""C and C++ files read per target for the places naming it without calling it."""


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
        self._c_blanked: dict[str, list[str]] = {}
        self._c_bodies: dict[str, str] = {}

    def _classify_c(self, target: Sym, ref: Reference, path: str, owner_id: str, exact: str) -> str | None:
        """How a call without a receiver in a C or C++ file depends on the C function ``target``."""
        if ref.how != HOW_CALL:
            return None  # C names types and functions alike: a type of the name is no function
        return self._c_linkage(target, path, owner_id, exact)

    def c_value_uses(self, target: Sym) -> list[Found]:
        """The code naming the C (or C++ free) function ``target`` without calling it (a callback passed on,
        an entry of a table of functions, ``&f``): a ``reference`` where linkage says the name is the
        target's, at the first such line of each holder, read from the text of the C and C++ files spelling it (not in
        comments, strings or preprocessor lines, nor after ``.`` or ``->``, where it names a field, nor
        before parameters: ``(lua_gettop) (lua_State *L)`` declares it)."""
        if target.language not in C_FAMILY or target.symbol_kind != "function":
            return []  # C's functions and C++'s free ones, whose extraction records no value either
        pattern = re.compile(rf"(?<![\w.>$]){re.escape(target.name)}(?![\w$])(?!\s*\)?\s*\()")
        found: dict[str, Found] = {}
        for path in code_files_spelling(self.conn, target.name, MAX_VALUE_FILES):
            if not is_c_family_file(path):
                continue
            for number, line in enumerate(self._c_code(path), start=1):
                if target.name not in line or not pattern.search(line):
                    continue
                holder = self.holder(path, number)
                if holder is None or holder.node_id in found or holder.node_id == target.node_id:
                    continue  # lines come in order: the first one of a holder is kept
                how = self._c_linkage(target, path, holder.node_id, FOUND_REFERENCE)
                if how is not None:
                    found[holder.node_id] = Found(holder, how, number, "")
        return sorted(found.values(), key=lambda f: f.node.order)

    def _c_linkage(self, target: Sym, path: str, owner_id: str, exact: str) -> str | None:
        """Whether the name of the C function ``target`` in ``owner_id`` (of ``path``) is the target's:
        ``exact``, possible, or None (see the module docstring)."""
        name = target.name
        if self._c_parameter(owner_id, name) or self._c_local(path, owner_id, name):
            return None  # a function pointer the caller takes, or a variable it declares
        own = [f for f in self._c_named(name) if f.path == path]
        if own:
            return (exact if len(own) == 1 else FOUND_POSSIBLE) if target in own else None
        named, included = self._c_named(name), self._c_includes(path)
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
        if self._c_macro_defined(name, path):
            return FOUND_POSSIBLE  # a function-like macro of the name may be what the call expands
        return exact

    def _c_named(self, name: str) -> list[Sym]:
        """The C and C++ functions named ``name`` (not methods), in every file."""
        if name not in self._c_functions:
            rows = definitions_named(self.conn, name, ("function",), sorted(C_FAMILY))
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

    def _c_macro_defined(self, name: str, path: str) -> bool:
        """Whether ``path`` or a file it includes defines a function-like macro ``name``."""
        return any(name in self._c_macros_of(included) for included in self._c_includes(path))

    def _c_macros_of(self, path: str) -> frozenset[str]:
        """The function-like macros the file ``path`` itself defines."""
        if path not in self._c_macros:
            self._c_macros[path] = frozenset(m.group(1) for m in _MACRO.finditer(self._c_text(path)))
        return self._c_macros[path]

    def _c_text(self, path: str) -> str:
        return "\n".join(self.lines(path))

    def _c_code(self, path: str) -> list[str]:
        """The file's lines with its comments, string and character literals and preprocessor lines blanked."""
        if path not in self._c_blanked:
            self._c_blanked[path] = _C_NOT_CODE.sub(_blank, self._c_text(path)).split("\n")
        return self._c_blanked[path]

    def _c_local(self, path: str, owner_id: str, name: str) -> bool:
        """Whether the code of ``owner_id`` (a function's body, or a file) declares a variable named
        ``name``: words (a type, qualifiers) and stars from a statement's start up to the name, then ``=``,
        ``;``, ``,`` or ``[`` (``uint64_t after;``, ``static const char fmt[] = …``, ``uv_timer_cb cb = …``)."""
        body = self._c_body(path, owner_id)
        for found in re.finditer(rf"(?<![\w$.>]){re.escape(name)}\s*[=;,\[]", body):
            line_start = body.rfind("\n", 0, found.start()) + 1
            start = max(line_start, *(body.rfind(c, line_start, found.start()) + 1 for c in ";{}"))
            if _DECLARED_BEFORE.fullmatch(body, start, found.start()):
                return True
        return False

    def _c_body(self, path: str, owner_id: str) -> str:
        """The code of the node ``owner_id`` of ``path`` (see :meth:`_c_code`), empty when it is no node there."""
        if owner_id not in self._c_bodies:
            owner = next((n for n in self.spans(path) if n.node_id == owner_id), None)
            lines = self._c_code(path)[owner.start_line - 1 : owner.end_line] if owner else []
            self._c_bodies[owner_id] = "\n".join(lines)
        return self._c_bodies[owner_id]

    def _c_parameter(self, owner_id: str, name: str) -> bool:
        """Whether the function ``owner_id`` takes a parameter named ``name``: a type and the name, or a
        function pointer (``int (*name)(void)``), not a bare word (``TEST_IMPL(name)``, a macro's argument)."""
        owner = self.sym(owner_id)
        if owner is None or "(" not in owner.signature:
            return False
        parameters = owner.signature[owner.signature.index("(") + 1 :]
        word = re.escape(name)
        return re.search(rf"(?:[\w*]\s*[\s*]|\(\s*\*\s*){word}\s*[,)\[]", parameters) is not None


def _blank(found: re.Match[str]) -> str:
    return _NOT_BREAK.sub(" ", found.group(0))


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
