"""C and C++ symbols and includes against an independent reader: libclang.

For every ``.c .h .cc .cpp .cxx .hpp .hh .hxx`` file of each tree, the symbols ``prooftext.graph.extract``
records (what the index stores) are compared with the definitions libclang finds when it parses that file
as its own translation unit (C for ``.c``/``.h`` as prooftext reads them, C++17 otherwise; every directory
of the tree holding a header is on the include path, and ``-fparse-all-comments`` lets clang attach any
comment to the declaration below it). Definitions read from clang: function, method, constructor,
destructor, conversion and function-template definitions (in or out of their class), structs, unions,
enums and classes with a body (templates and specializations too), typedefs (a typedef of a struct defined
in place is one symbol of that struct's kind, as prooftext reads it), ``using`` aliases and named
namespaces. Each is matched to ours by qualified name (enclosing namespaces and classes, ``::`` as ``.``)
and nearest first line; then its kind, first line (ours less its leading doc comment), last line and doc
comment (compared as words) are compared. Definitions that come out of a macro expansion are counted apart
(no syntax reader can see them). Also compared: ``#include`` lines (ours against clang's inclusion
directives), header prototypes (declarations that are not definitions: how many, how many carry a doc
comment, how many name a function the tree also defines), and calls (per function, the callees clang
resolves against the ``call`` references we keep).

Not a test: it needs libclang, which the ``dev`` extra installs (``pip install -e '.[dev]'``) and which
prooftext itself never imports; ``--clang-site`` points at another installation of it:

    .venv/bin/python bench/symbols_c_bench.py TREE [TREE ...] [--clang-site SITE_PACKAGES] [--verbose]

``--verbose`` lists every disagreement. System headers are taken from GCC's (``/usr/include``,
``/usr/include/c++/N``, GCC's own ``include``) when present; a file clang cannot read well (a missing
header) still yields what clang could parse, and the diagnostics are counted per tree.
"""

from __future__ import annotations

import argparse
import functools
import glob
import itertools
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prooftext.graph import NODE_SYMBOL
from prooftext.graph.extract import extract
from prooftext.graph.languages import CPP, language_for
from prooftext.graph.model import parse_reference

EXTENSIONS = (".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx")
Symbol = tuple[str, str, int, int, str]  # qualname, kind, first line, last line, doc comment


def _load_clang(site: str | None) -> Any:
    if site:
        sys.path.insert(0, site)
    import clang.cindex as ci

    return ci


@dataclass
class Tally:
    files: int = 0
    clang: int = 0
    ours: int = 0
    exact: int = 0
    missed: int = 0
    extra: int = 0
    other_range: int = 0
    kind: int = 0
    doc: int = 0
    macro: int = 0
    doc_elsewhere: int = 0
    cpp_headers: int = 0
    inactive: int = 0
    diagnostics: int = 0
    includes: int = 0
    includes_same: int = 0
    prototypes: int = 0
    prototypes_doc: int = 0
    prototypes_defined: int = 0
    calls: int = 0
    calls_found: int = 0
    notes: list[str] = field(default_factory=list)
    missed_by: Counter[str] = field(default_factory=Counter)
    extra_by: Counter[str] = field(default_factory=Counter)


def _words(text: str) -> list[str]:
    text = re.sub(r"/\*+!?|\*+/|^\s*\*|//+!?|<!|<", " ", text, flags=re.M)
    return re.findall(r"\w+", text)


class Clang:
    def __init__(self, ci: Any, tree: Path) -> None:
        self.ci = ci
        self.index = ci.Index.create()
        dirs = sorted({str(p.parent) for p in tree.rglob("*") if p.suffix in (".h", ".hpp", ".hh", ".hxx")})
        self.includes = [f"-I{d}" for d in dirs]
        self.system = [f"-isystem{d}" for d in sorted(glob.glob("/usr/lib/gcc/x86_64-linux-gnu/*/include"))]
        self.cxx = [f"-isystem{d}" for d in sorted(glob.glob("/usr/include/c++/*"))]
        self.cxx += [f"-isystem{d}" for d in sorted(glob.glob("/usr/include/x86_64-linux-gnu/c++/*"))]
        self.k = ci.CursorKind
        self.cpp_headers = 0

    def parse(self, path: Path, language: str) -> Any:
        """A translation unit of ``path``: C++ for a C++ file, C for ``.c``; a ``.h`` is read as C unless
        clang reads it as C++ with fewer errors (a C++ header), as a compiler including it would."""
        tu = self._parse(path, CPP if language == CPP else "c")
        if path.suffix == ".h" and self.errors(tu):
            other = self._parse(path, CPP)
            if self.errors(other) < self.errors(tu):
                self.cpp_headers += 1
                return other
        return tu

    def errors(self, tu: Any) -> int:
        return sum(1 for d in tu.diagnostics if d.severity >= 3)

    def _parse(self, path: Path, language: str) -> Any:
        lang = ["-x", "c++", "-std=c++17", *self.cxx] if language == CPP else ["-x", "c", "-std=c11"]
        args = [*lang, "-fparse-all-comments", *self.includes, *self.system, "-isystem/usr/include"]
        options = self.ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD
        return self.index.parse(str(path), args=args, options=options)

    def kinds(self) -> dict[Any, str]:
        k = self.k
        return {
            k.FUNCTION_DECL: "function",
            k.CXX_METHOD: "method",
            k.CONSTRUCTOR: "method",
            k.DESTRUCTOR: "method",
            k.CONVERSION_FUNCTION: "method",
            k.FUNCTION_TEMPLATE: "function",
            k.STRUCT_DECL: "struct",
            k.UNION_DECL: "union",
            k.ENUM_DECL: "enum",
            k.CLASS_DECL: "class",
            k.CLASS_TEMPLATE: "class",
            k.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION: "class",
            k.TYPEDEF_DECL: "type",
            k.TYPE_ALIAS_DECL: "type",
            k.TYPE_ALIAS_TEMPLATE_DECL: "type",
            k.NAMESPACE: "namespace",
        }


_RECORDS = ("struct", "union", "enum", "class")


def _skipped(ci: Any, tu: Any, path: str) -> list[tuple[int, int]]:
    """Line ranges the preprocessor skipped in ``path`` (inactive ``#if`` branches): clang reads no code there."""
    import ctypes

    class RangeList(ctypes.Structure):
        _fields_ = [("count", ctypes.c_uint), ("ranges", ctypes.POINTER(ci.SourceRange))]

    lib = ci.conf.lib
    lib.clang_getAllSkippedRanges.restype = ctypes.POINTER(RangeList)
    lib.clang_getAllSkippedRanges.argtypes = [ctypes.c_void_p]
    lib.clang_disposeSourceRangeList.argtypes = [ctypes.POINTER(RangeList)]
    found = lib.clang_getAllSkippedRanges(tu.obj)
    out = []
    for i in range(found.contents.count):
        r = found.contents.ranges[i]
        if r.start.file is not None and r.start.file.name == path:
            out.append((r.start.line, r.end.line))
    lib.clang_disposeSourceRangeList(found)
    return out


def _same_file(cursor: Any, path: str) -> bool:
    f = cursor.location.file
    return f is not None and f.name == path


def _clang_symbols(
    clang: Clang, tu: Any, path: str, lines: list[str], tally: Tally
) -> tuple[list[Symbol], list[tuple[str, int, bool]], list[tuple[str, str, int]]]:
    """Definitions (as Symbol), prototypes (name, line, has doc) and calls (owner qualname, callee, line)."""
    k = clang.k
    kinds = clang.kinds()
    out: list[Symbol] = []
    prototypes: list[tuple[str, int, bool]] = []
    calls: list[tuple[str, str, int]] = []
    functions = {k.FUNCTION_DECL, k.CXX_METHOD, k.CONSTRUCTOR, k.DESTRUCTOR, k.CONVERSION_FUNCTION}
    functions.add(k.FUNCTION_TEMPLATE)
    classy = {k.STRUCT_DECL, k.UNION_DECL, k.CLASS_DECL, k.CLASS_TEMPLATE}
    classy.add(k.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION)

    def qual(cursor: Any) -> list[str]:
        """Enclosing names; a friend function defined in its class is named in that class (its text is)."""
        parts: list[str] = []
        parent = cursor.semantic_parent
        if (
            cursor.kind in functions
            and cursor.lexical_parent is not None
            and cursor.lexical_parent.kind in classy
        ):
            parent = cursor.lexical_parent
        while parent is not None and parent.kind != k.TRANSLATION_UNIT:
            name = parent.spelling
            unnamed = not name or "unnamed" in name or "anonymous" in name
            if (parent.kind in classy or parent.kind == k.ENUM_DECL) and unnamed:
                name = _typedef_of(parent) or ""
            if parent.kind == k.NAMESPACE and not spelled_here(parent):
                name = ""  # anonymous, or opened by a macro (`FMT_BEGIN_NAMESPACE`): no text names it
            if name:
                parts.append(name)
            parent = parent.semantic_parent
        return list(reversed(parts))

    typedef_names: dict[int, str] = {}

    def spelled_here(namespace: Any) -> bool:
        name = namespace.spelling
        if not name:
            return False
        found = namespace.location.file
        if found is None:
            return False
        held = lines if found.name == path else _lines_of(found.name)
        line = namespace.location.line
        text = held[line - 1] if 0 < line <= len(held) else ""
        return "namespace" in text and name in text

    def _typedef_of(record: Any) -> str | None:
        return typedef_names.get(record.hash)

    def in_macro(cursor: Any) -> bool:
        line = cursor.location.line
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        name = cursor.spelling.split("<")[0].lstrip("~")
        return bool(name) and name not in text

    def doc(cursor: Any) -> str:
        """The comment clang attaches, when it stands right above this declaration: clang also gives a
        definition the comment of an earlier declaration (a header prototype), counted apart."""
        raw = cursor.raw_comment or ""
        first = next((line.strip() for line in raw.splitlines() if line.strip()), "")
        start = cursor.extent.start.line
        above = lines[max(start - 80, 0) : start - 1]
        if first and not any(first in line for line in above):
            tally.doc_elsewhere += 1
            return ""
        return " ".join(_words(raw))

    def walk(cursor: Any, owner: str) -> None:
        for child in cursor.get_children():
            if not _same_file(child, path):
                continue
            kind = kinds.get(child.kind)
            here = owner
            if kind is not None:
                here = record(child, kind, owner)
            if child.kind == k.CALL_EXPR and owner and child.spelling:
                calls.append((owner, child.spelling, child.location.line))
            walk(child, here)

    def record(child: Any, kind: str, owner: str) -> str:
        name = child.spelling
        defaulted = child.kind in functions and (child.is_default_method() or _deleted(child))
        if child.kind in functions and not child.is_definition() and not defaulted:
            if child.semantic_parent.kind in (k.TRANSLATION_UNIT, k.NAMESPACE, k.LINKAGE_SPEC):
                prototypes.append((name, child.location.line, bool(child.raw_comment)))
            return owner
        if kind in _RECORDS and not child.is_definition():
            return owner
        if kind == "namespace" and not spelled_here(child):
            return owner
        if kind == "type" and child.kind == k.TYPEDEF_DECL:
            inner = child.underlying_typedef_type.get_declaration()
            if (
                inner.kind in classy | {k.ENUM_DECL}
                and inner.is_definition()
                and _same_file(inner, path)
                and inner.extent.start.offset >= child.extent.start.offset
                and inner.extent.end.offset <= child.extent.end.offset
            ):
                typedef_names[inner.hash] = name
                kind = kinds.get(inner.kind, kind)
                if inner.kind == k.STRUCT_DECL:
                    kind = "struct"
        if child.kind != k.TYPEDEF_DECL and kind in _RECORDS and child.is_definition():
            parent = child.lexical_parent
            if parent is not None and parent.kind == k.TYPEDEF_DECL:
                return owner
            # a record defined inside a typedef is read from the typedef (clang lists it first)
            nxt = _enclosing_typedef(child)
            if nxt is not None:
                return owner
            if not name or "unnamed" in name or "anonymous" in name:
                return owner
            templated = (k.CLASS_TEMPLATE, k.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION)
            if child.kind in templated and _first_word(child, lines) == "struct":
                kind = "struct"
        if child.kind == k.FUNCTION_TEMPLATE and child.semantic_parent.kind in classy:
            kind = "method"
        if kind == "function" and child.kind == k.FUNCTION_DECL and child.lexical_parent.kind in classy:
            kind = "method"  # a friend defined in its class
        if in_macro(child):
            tally.macro += 1
            return owner
        qn = ".".join([*qual(child), name])
        start, end = child.extent.start.line, child.extent.end.line
        out.append((qn, kind, start, end, doc(child)))
        return qn

    spans: list[tuple[int, int, str]] = []

    def _enclosing_typedef(record_cursor: Any) -> Any:
        for s, e, _ in spans:
            if s <= record_cursor.extent.start.offset and record_cursor.extent.end.offset <= e:
                return True
        return None

    # typedef spans first: a record defined in place inside a typedef belongs to it
    for cursor in tu.cursor.walk_preorder():
        if cursor.kind == k.TYPEDEF_DECL and _same_file(cursor, path):
            spans.append((cursor.extent.start.offset, cursor.extent.end.offset, cursor.spelling))
            inner = cursor.underlying_typedef_type.get_declaration()
            if inner.is_definition():
                typedef_names.setdefault(inner.hash, cursor.spelling)
    walk(tu.cursor, "")
    tally.diagnostics += sum(1 for d in tu.diagnostics if d.severity >= 3)
    return out, prototypes, calls


@functools.cache
def _lines_of(path: str) -> list[str]:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace").split("\n")
    except OSError:
        return []


def _deleted(cursor: Any) -> bool:
    """``= delete``: a deleted definition (the binding has no call for it; the tokens tell)."""
    spelled = [t.spelling for t in cursor.get_tokens()]
    return spelled[-2:] == ["=", "delete"] or spelled[-3:-1] == ["=", "delete"]


def _first_word(cursor: Any, lines: list[str]) -> str:
    """The keyword right before a class template's name (``template <class T> struct S``: ``struct``)."""
    spelled = [t.spelling for t in cursor.get_tokens()]
    for keyword, name in itertools.pairwise(spelled):
        if keyword in ("struct", "class") and name == cursor.spelling:
            return str(keyword)
    return ""


def _code_start(node_start: int, docstring: str, lines: list[str]) -> int:
    """Our first line less the leading doc comment."""
    if not docstring:
        return node_start
    number = node_start
    in_block = False
    while number <= len(lines):
        text = lines[number - 1].strip()
        if in_block:
            in_block = "*/" not in text
            number += 1
            continue
        if text.startswith("//"):
            number += 1
            continue
        if text.startswith("/*"):
            in_block = "*/" not in text[2:]
            number += 1
            continue
        break
    return number


def _ours(path: str, text: str, lines: list[str]) -> tuple[list[Symbol], Any]:
    graph = extract(path, text)
    out = []
    for n in graph.nodes:
        if n.kind != NODE_SYMBOL:
            continue
        start = _code_start(n.start_line, n.docstring, lines)
        out.append((n.qualname, n.symbol_kind, start, n.end_line, " ".join(_words(n.docstring))))
    return out, graph


def _norm(qualname: str) -> str:
    return re.sub(r"\s+", "", qualname)


def _compare(
    rel: str,
    theirs: list[Symbol],
    ours: list[Symbol],
    skipped: list[tuple[int, int]],
    tally: Tally,
    verbose: bool,
) -> None:
    inactive = [s for s in ours if any(a <= s[2] <= b for a, b in skipped)]
    tally.inactive += len(inactive)
    ours = [s for s in ours if s not in inactive]
    pool: dict[str, list[Symbol]] = {}
    for sym in ours:
        pool.setdefault(_norm(sym[0]), []).append(sym)
    tally.clang += len(theirs)
    tally.ours += len(ours)
    for sym in sorted(theirs, key=lambda s: s[2]):
        candidates = pool.get(_norm(sym[0]), [])
        if not candidates:
            tally.missed += 1
            tally.missed_by[sym[1]] += 1
            if verbose:
                tally.notes.append(f"missed {rel}:{sym[2]}-{sym[3]} {sym[1]} {sym[0]}")
            continue
        best = min(candidates, key=lambda c: abs(c[2] - sym[2]))
        candidates.remove(best)
        if best[1] != sym[1]:
            tally.kind += 1
            if verbose:
                tally.notes.append(f"kind {rel}:{sym[2]} {sym[0]} clang {sym[1]} ours {best[1]}")
        if (best[2], best[3]) == (sym[2], sym[3]):
            tally.exact += 1
        else:
            tally.other_range += 1
            if verbose:
                tally.notes.append(f"range {rel} {sym[0]} clang {sym[2]}-{sym[3]} ours {best[2]}-{best[3]}")
        if sym[4] != best[4]:
            tally.doc += 1
            if verbose:
                tally.notes.append(f"doc {rel}:{sym[2]} {sym[0]} clang {sym[4][:80]!r} ours {best[4][:80]!r}")
    for rest in pool.values():
        for sym in rest:
            tally.extra += 1
            tally.extra_by[sym[1]] += 1
            if verbose:
                tally.notes.append(f"extra {rel}:{sym[2]}-{sym[3]} {sym[1]} {sym[0]}")


def _includes(clang: Clang, tu: Any, path: str, graph: Any, rel: str, tally: Tally, verbose: bool) -> None:
    theirs = Counter()
    for cursor in tu.cursor.get_children():
        if cursor.kind != clang.k.INCLUSION_DIRECTIVE or not _same_file(cursor, path):
            continue
        tokens = [t.spelling for t in cursor.get_tokens()]
        spelled = "".join(tokens[2:]) if len(tokens) > 2 else cursor.spelling
        module = spelled if spelled.startswith("<") else spelled.strip('"')
        theirs[(module, cursor.location.line)] += 1
    ours = Counter((i.module, i.line) for i in graph.imports)
    tally.includes += sum(theirs.values())
    tally.includes_same += sum((theirs & ours).values())
    if verbose:
        for item in (theirs - ours) + (ours - theirs):
            side = "clang" if item in theirs else "ours"
            tally.notes.append(f"include {rel}:{item[1]} only {side}: {item[0]}")


def _calls(
    graph: Any, calls: list[tuple[str, str, int]], lines: list[str], tally: Tally, verbose: bool, rel: str
) -> None:
    qual = {n.id: n.qualname for n in graph.nodes}
    ours: set[tuple[str, str]] = set()
    for use in graph.uses:
        ref = parse_reference(use.name)
        if ref is not None:
            ours.add((qual.get(use.node_id, ""), ref.name))
    for owner, callee, line in set(calls):
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        if callee.startswith("operator") or not re.search(rf"\b{re.escape(callee)}\s*(<[^;]*>)?\s*\(", text):
            continue  # an operator, an implicit constructor, or a call a macro expands to
        if len(callee) < 2:
            continue
        tally.calls += 1
        if (owner, callee) in ours:
            tally.calls_found += 1
        elif verbose:
            tally.notes.append(f"call {rel}:{line} {owner} -> {callee} not kept")


def run(
    tree: Path, ci: Any, verbose: bool, all_defined: set[str]
) -> tuple[Tally, list[tuple[str, int, bool]]]:
    clang = Clang(ci, tree)
    tally = Tally()
    protos: list[tuple[str, int, bool]] = []
    for file in sorted(tree.rglob("*")):
        if file.suffix.lower() not in EXTENSIONS or not file.is_file() or ".git" in file.parts:
            continue
        rel = file.relative_to(tree).as_posix()
        language = language_for(rel)
        if language is None:
            continue
        try:
            text = file.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        tally.files += 1
        lines = text.split("\n")
        tu = clang.parse(file, language)
        theirs, prototypes, calls = _clang_symbols(clang, tu, str(file), lines, tally)
        ours, graph = _ours(rel, text, lines)
        _compare(rel, theirs, ours, _skipped(ci, tu, str(file)), tally, verbose)
        _includes(clang, tu, str(file), graph, rel, tally, verbose)
        _calls(graph, calls, lines, tally, verbose, rel)
        tally.cpp_headers = clang.cpp_headers
        all_defined.update(s[0] for s in theirs if s[1] in ("function", "method"))
        protos.extend((f"{rel}:{line}:{name}", int(doc), False) for name, line, doc in prototypes)
    return tally, protos


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--clang-site", help="site-packages holding the libclang wheel")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    ci = _load_clang(args.clang_site)
    header = (
        "| tree | files | clang defs | ours | exact range | missed | extra | other range | kind differs"
        " | doc differs | in macros | ours in inactive #if | includes same | calls kept"
        " | prototypes (doc, defined) |"
    )
    print(header)
    print("|" + "---|" * 16)
    for tree in args.trees:
        defined: set[str] = set()
        tally, protos = run(tree.resolve(), ci, args.verbose, defined)
        names = [p[0].rsplit(":", 1)[1] for p in protos]
        tally.prototypes = len(protos)
        tally.prototypes_doc = sum(p[1] for p in protos)
        tally.prototypes_defined = sum(1 for n in names if n in defined)
        t = tally
        print(
            f"| {tree.name} | {t.files} | {t.clang} | {t.ours} | {t.exact} | {t.missed} | {t.extra} |"
            f" {t.other_range} | {t.kind} | {t.doc} | {t.macro} | {t.inactive} | {t.includes_same}/{t.includes} |"
            f" {t.calls_found}/{t.calls} | {t.prototypes} ({t.prototypes_doc}, {t.prototypes_defined}) |"
        )
        if args.verbose:
            print(
                f"  missed by kind {dict(t.missed_by)}, extra by kind {dict(t.extra_by)},"
                f" clang errors {t.diagnostics}, .h read as C++ {t.cpp_headers},"
                f" definitions whose doc is on another declaration {t.doc_elsewhere}"
            )
            for note in t.notes:
                print("  " + note)


if __name__ == "__main__":
    main()
