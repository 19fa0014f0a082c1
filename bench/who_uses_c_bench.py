"""Who-uses on C against an independent oracle: the uses clang resolves to functions drawn at random.

For each tree, 400 C functions (seed 27) are drawn from the index; libclang (the ``libclang`` package of the
``dev`` extra) parses every ``.c`` file of the tree, with every directory of the tree that holds a header on
the include path (but a shim of a standard header's), and lists, for each function definition, the calls
written in the tree's text that resolve to it and the places naming it without a call (a callback passed on,
``{"assert", luaB_assert}`` in a table, ``&f``). A function with external linkage is one across the files
(clang's USR), a ``static`` one its file's own; a file that includes another ``.c`` file (an amalgamation
such as lua's ``onelua.c``) may make a function ``static`` there, and its uses count for the one
definition. A name that two files define with external linkage (a platform's variant, another program of
the tree) is one function to the oracle: each definition gets every use. A call a macro's body makes is not
written where the macro is used (the macro's name is), so only uses whose text names the function where
they are written count (a call in a macro's argument, ``ASSERT(f())``, does). Both sides are reduced to
callers, the innermost indexed node enclosing a use, as in ``bench/who_uses_bench.py``.

The compiler's own headers (``stddef.h``, ``float.h``) come from the installed GCC, which the libclang
wheel does not ship. A ``.c`` file clang cannot read whole (a fatal error, such as a missing header: a
platform's variant, such as libuv's ``src/win``) is reported and judged on neither side: neither who-uses'
callers there nor clang's; nor are callers in the lines a file's preprocessor skips (an ``#if`` branch of
another configuration, such as lua's ``ltests.c`` without ``LUA_DEBUG``).

With ``--cpp``, the same for C++: every ``.cc``, ``.cpp`` and ``.cxx`` file is parsed as C++17, and the
drawn definitions are the index's C++ functions and methods (constructors and destructors too); a use is a
call, a member call (``plan_.AddTarget(...)``, ``this->Cleanup()``, an unqualified call of the class's own
member) or a function named without a call, resolved by clang to the definition (an overload is its own
definition; a virtual call counts for the method it names, not for its overrides).

Headers outside the tree (a test framework's, ``gtest/gtest.h``) come from ``CPATH``, as for clang;
compiler arguments for a tree's configuration (``-DLEVELDB_PLATFORM_POSIX``) from ``CLANG_ARGS``.

Usage: python bench/who_uses_c_bench.py TREE [TREE ...] [--cpp] [--n 400] [--seed 27] [--verbose]
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from ctypes import POINTER, Structure, byref, c_uint, c_void_p
from pathlib import Path
from typing import Any

from who_uses_bench import listed_arguments, listed_bench

SKIPPED_DIRS = frozenset({".git", ".prooftext", "node_modules"})
STANDARD_HEADERS = frozenset(
    {
        "stdint.h",
        "stdbool.h",
        "inttypes.h",
        "stddef.h",
        "stdio.h",
        "stdlib.h",
        "string.h",
        "strings.h",
        "unistd.h",
    }
)
"""A directory holding its own copy of one (another compiler's shim, such as jemalloc's ``msvc_compat``) is
left off the include path: it would stand in for the system's."""


def _files(tree: Path, suffix: str) -> list[Path]:
    return sorted(
        p for p in tree.rglob(f"*{suffix}") if p.is_file() and not SKIPPED_DIRS.intersection(p.parts)
    )


def _builtin_headers() -> list[str]:
    """``-isystem`` for the C compiler's own headers (``stddef.h``, ``float.h``): the libclang wheel ships
    none, so the installed GCC's are used."""
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        return []
    found = subprocess.run(
        [compiler, "-print-file-name=include"], capture_output=True, text=True
    ).stdout.strip()
    return ["-isystem", found] if Path(found).is_dir() else []


def _walk(cursor: Any, tree: str) -> Iterator[Any]:
    """Every cursor under ``cursor`` that lies in the tree (a system header's declarations are skipped)."""
    for child in cursor.get_children():
        where = child.location.file
        if where is not None and not str(where.name).startswith(tree):
            continue
        yield child
        yield from _walk(child, tree)


def _written(clang: Any, where: Any) -> tuple[int, int]:
    """(line, column) where a location's text is written: a macro's argument where it stands in the call
    of the macro (``ASSERT(got_eagain())``), a macro's body where the macro is expanded."""
    line, column, offset, named = c_uint(), c_uint(), c_uint(), c_void_p()
    clang.conf.lib.clang_getFileLocation(where, byref(named), byref(line), byref(column), byref(offset))
    return line.value, column.value


def _skipped(clang: Any, unit: Any, source: Path, tree: Path) -> list[dict[str, object]]:
    """The lines of ``source`` that its translation unit's preprocessor skips (an ``#if`` branch of
    another configuration), as unread entries."""

    class RangeList(Structure):
        _fields_ = [("count", c_uint), ("ranges", POINTER(clang.SourceRange))]

    skipped_ranges = clang.conf.lib.clang_getSkippedRanges
    skipped_ranges.restype = POINTER(RangeList)
    skipped_ranges.argtypes = [clang.TranslationUnit, clang.File]
    found = skipped_ranges(unit, clang.File.from_name(unit, str(source.resolve())))
    path = str(source.relative_to(tree))
    entries: list[dict[str, object]] = [
        {"unread": path, "lines": [found.contents.ranges[i].start.line, found.contents.ranges[i].end.line]}
        for i in range(found.contents.count)
    ]
    clang.conf.lib.clang_disposeSourceRangeList(found)
    return entries


class _Lines:
    def __init__(self) -> None:
        self.cache: dict[str, list[bytes]] = {}

    def spells(self, path: str, line: int, column: int, name: str) -> bool:
        """Whether the text at ``line``, ``column`` (1-based, in bytes) of ``path`` starts with the word
        ``name`` (``save_and_next(ls)``, a macro calling ``save``, does not)."""
        if path not in self.cache:
            self.cache[path] = Path(path).read_bytes().split(b"\n")
        lines = self.cache[path]
        if not 0 < line <= len(lines):
            return False
        text = lines[line - 1][column - 1 :]
        return re.match(rb"%s(?![A-Za-z0-9_])" % re.escape(name.encode()), text) is not None


C_SOURCES = (".c",)
CPP_SOURCES = (".cc", ".cpp", ".cxx")
HEADERS = (".h", ".hh", ".hpp", ".hxx")


def _cpp_headers() -> list[str]:
    """``-isystem`` for the installed GCC's C++ standard library (the libclang wheel ships none)."""
    compiler = shutil.which("g++")
    if compiler is None:
        return []
    found = subprocess.run(
        [compiler, "-E", "-x", "c++", "-", "-v"], input="", capture_output=True, text=True
    ).stderr
    listed = found.split("#include <...> search starts here:")[-1].split("End of search list.")[0]
    return [flag for d in listed.split() if "c++" in d for flag in ("-isystem", d)]


def oracle(tree: Path, cpp: bool = False) -> list[dict[str, object]]:
    """Each function definition of ``tree`` (``path``, ``name``, ``line`` of its name) with the calls and
    other references (``refs``: ``path`` and ``line``) clang resolves to it; with ``cpp``, of its C++
    files, methods included."""
    import clang.cindex as clang  # the dev extra's libclang: only this bench needs it

    root = str(tree.resolve())
    headers = [h for suffix in HEADERS for h in _files(tree, suffix)]
    shims = {h.parent for h in headers if h.name in STANDARD_HEADERS}
    directories = {h.parent for h in headers if h.parent not in shims}
    if cpp:  # `#include "db/dbformat.h"`, `"leveldb/db.h"`: the directories above a header's too
        directories |= {d for h in directories for d in h.parents if d.is_relative_to(tree)}
    include = sorted({str(d.resolve()) for d in directories})
    # GCC's intrinsics headers (`xmmintrin.h`) use builtins clang does not declare: errors in them, not a
    # fatal stop after twenty, leave the rest of the file read
    standard = ["-x", "c++", "-std=gnu++17", "-ferror-limit=0", *_cpp_headers()] if cpp else ["-std=gnu11"]
    extra = shlex.split(
        os.environ.get("CLANG_ARGS", "")
    )  # a tree's configuration: `-DLEVELDB_PLATFORM_POSIX`
    args = [*standard, *extra, *_builtin_headers(), *(f"-I{d}" for d in include)]
    functions = {clang.CursorKind.FUNCTION_DECL}
    if cpp:
        functions |= {
            clang.CursorKind.CXX_METHOD,
            clang.CursorKind.CONSTRUCTOR,
            clang.CursorKind.DESTRUCTOR,
            clang.CursorKind.FUNCTION_TEMPLATE,
        }
    uses = (clang.CursorKind.CALL_EXPR, clang.CursorKind.DECL_REF_EXPR, clang.CursorKind.MEMBER_REF_EXPR)
    index = clang.Index.create()
    definitions: dict[tuple[str, int], dict[str, Any]] = {}  # by where the name stands
    usrs: dict[tuple[str, int], set[str]] = {}
    calls: dict[str, set[tuple[str, int]]] = {}
    lines = _Lines()
    unread: set[str] = set()
    called: set[tuple[str, int, int]] = set()
    skipped: list[dict[str, object]] = []
    sources = sorted(p for suffix in (CPP_SOURCES if cpp else C_SOURCES) for p in _files(tree, suffix))
    for source in sources:
        unit = index.parse(
            str(source.resolve()), args=args, options=clang.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD
        )
        skipped.extend(_skipped(clang, unit, source, tree))
        fatal = [p for p in unit.diagnostics if p.severity >= clang.Diagnostic.Fatal]
        if fatal:  # a missing header: what clang read of the file is not all of it
            unread.add(str(source.relative_to(tree)))
            print(f"who_uses_c_bench: {fatal[0]}", file=sys.stderr)
        for cursor in _walk(unit.cursor, root):
            kind = cursor.kind
            if kind in functions and cursor.is_definition():
                path = str(Path(cursor.location.file.name).relative_to(root))
                at = (path, cursor.location.line)
                definitions[at] = {"path": path, "name": cursor.spelling, "line": at[1]}
                usrs.setdefault(at, set()).add(cursor.canonical.get_usr())
            elif kind in uses:
                callee = cursor.referenced
                where = cursor.location
                if callee is None or callee.kind not in functions or where.file is None:
                    continue
                path = str(where.file.name)
                line, column = _written(clang, where)
                if kind == clang.CursorKind.CALL_EXPR:
                    called.add(
                        (path, line, column)
                    )  # its callee's DECL_REF_EXPR comes next, at the same place
                elif (path, line, column) in called:
                    continue
                if lines.spells(path, line, column, callee.spelling):
                    calls.setdefault(callee.canonical.get_usr(), set()).add((path, line))
    listed = []
    for at, entry in sorted(definitions.items()):
        found = sorted({call for usr in usrs[at] for call in calls.get(usr, ())})
        listed.append(
            {**entry, "refs": [{"path": str(Path(p).relative_to(root)), "line": n} for p, n in found]}
        )
    other = sorted(p for suffix in (C_SOURCES if cpp else CPP_SOURCES) for p in _files(tree, suffix))
    unread.update(str(p.relative_to(tree)) for p in other)  # the other language's sources: not parsed here
    return [*listed, *({"unread": path} for path in sorted(unread)), *skipped]


def main(argv: list[str] | None = None) -> int:
    args = listed_arguments(__doc__.splitlines()[0], argv, "TREE", {"--cpp": "C++ files and methods"})
    try:
        import clang.cindex  # noqa: F401
    except ImportError:
        print("who_uses_c_bench: needs libclang (`pip install -e '.[dev]'`)", file=sys.stderr)
        return 2
    language = "cpp" if args.cpp else "c"
    listed_bench(args, lambda tree: oracle(tree, args.cpp), language, "clang")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
