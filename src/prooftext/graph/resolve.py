"""Cross-file resolution: imports, links and declared contradictions to files; names to definitions.

Pure functions over the set of repository paths and the per-file graphs. Resolution is best effort and
never guesses wildly: when a spelling is ambiguous, the candidate closest to the importer wins (longest
common directory prefix, then the shallowest path, then the lexicographically first), so the result is
deterministic.

Import rules by language:

- Python: relative imports climb ``level - 1`` packages from the importer's directory. Absolute imports try,
  in order, the canonical module name (computed from ``__init__.py`` chains, which finds ``src/`` and other
  layouts), the path from the repository root, and — for dotted names of two or more parts only, since a
  bare ``import os`` would otherwise match any ``os.py`` — any path ending in the dotted path.
  ``from m import x`` also links ``m.x`` when that is a module.
- JavaScript / TypeScript: relative specifiers (and ``@/`` / ``~/`` as ``src/``), probing extensions and
  ``index`` files (``..`` from a top-level directory is the root's ``index``), and TypeScript sources for
  ``.js`` specifiers; bare package names are external.
- Go: the package directory whose path ends the import path (every non-test file of it, up to
  ``MAX_PACKAGE_FILES``); for module paths without a domain (the standard library) only two or more parts.
- Rust: ``crate::``, ``self::``, ``super::`` paths and ``mod`` declarations to ``x.rs`` / ``x/mod.rs``; an
  item of the crate root or of a parent module (``crate::Error``, ``super::Walker``) to that module's file
  (``lib.rs`` / ``main.rs``, ``x.rs`` / ``x/mod.rs``).
- Java: the class file ending in the dotted path (members of static imports and nested classes dropped).
- C / C++: quoted includes next to the importer, then from the root, then by path suffix; ``<…>`` by suffix.
- Ruby: ``require_relative`` next to the importer; ``require`` by path suffix.
- Scala: the file ending in the dotted path, ``.scala`` or (a Java class) ``.java``, or the package object
  of that path (``a/b/package.scala``), else a Scala file in a directory ending in the package's path that
  defines the name at its top level (``sttp.client4.GenericRequest`` in ``sttp/client4/request.scala``);
  else the same for the path without its last part, down to two parts (a member of an object,
  ``a.b.C.apply``, is in ``a/b/C.scala``; a name a package object defines is in its ``package.scala``). A
  name of a top-level package's object (``cats.Eq``, an alias in ``cats/package.scala``) is not linked: a path
  of one part ends too many paths (``impl/cats/package.scala`` is another package's object).
- Kotlin: as Scala, the file ending in the dotted path being ``.kt`` or (a Java class) ``.java``: a Kotlin
  file too may define any names at its top level (``kotlinx.coroutines.launch`` in ``Builders.common.kt``).
  Kotlin's conventions let a project's directories omit its root package, so where no directory ends in
  the package's path, one ending in the path without its leading parts defines the name (the longest
  first: ``kotlinx.coroutines.flow.flowOf`` in ``common/src/flow/Builders.kt``), and the root package's
  own names are in a source root (``src``, ``kotlin``, ``java``) under a directory named with the package's
  last part (``kotlinx-coroutines-core/common/src``); a source root under no such name holds none of them,
  or ``java.lang.Runnable`` would name a project's own ``Runnable``.
- PHP: a ``use`` by the class file its name maps to under PSR-4 (a namespace prefix maps to a directory, the
  rest of the name to the path below it). Where the repository's ``composer.json`` files declare their
  prefixes (``autoload`` and ``autoload-dev``), as Composer does: the longest prefix of the name first, each
  of its directories in turn; a name under none of them is another package's and names no file. Without
  them (or when no declared directory holds the file): the file ending in the longest trailing run of two
  or more of the name's parts (``GuzzleHttp\\Handler\\CurlHandler`` to ``src/Handler/CurlHandler.php``),
  else, for the last part alone, a file in the importer's directory or one above it
  (``GuzzleHttp\\Client`` to ``src/Client.php``). A path of ``include`` / ``require`` next to the importer (``./`` relative to it
  only), then from the root, then by path suffix.
- Lua: a module ``a.b`` by path suffix, ``a/b.lua`` then ``a/b/init.lua``, as ``package.path``'s default
  templates (``?.lua``, ``?/init.lua``) order them, the shallowest such path first (``kong/db.lua``, not
  ``spec/fixtures/kong/db.lua``); a module of one part (``require("util")``) only in a directory of the
  importer's: its ``lua``, ``src`` or ``lib`` directories (the deepest first), the repository's root, then its
  other directories, the nearest first; not by suffix, or a library's name (``cjson``) would name a file of
  the project's elsewhere (``kong/tools/cjson.lua``).
"""

from __future__ import annotations

import json
import posixpath
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from functools import cached_property
from urllib.parse import unquote

import prooftext.graph.languages as L
from prooftext.graph.model import (
    EDGE_CONTRADICTS,
    EDGE_IMPORTS,
    EDGE_LINKS,
    EDGE_REFERENCES,
    NODE_FILE,
    NODE_SYMBOL,
    Edge,
    FileGraph,
    make_edge,
)

MAX_REFERENCE_FANOUT = 20
"""A name defined more than this many times (``get``, ``run``, ``__init__``) links nothing: it is noise."""
MAX_PACKAGE_FILES = 64
"""A Go package import links to at most this many files of the package."""

_PY_SUFFIXES = (".py", ".pyi")
_PY_INITS = ("/__init__.py", "/__init__.pyi")
_JS_EXTENSIONS = (".ts", ".tsx", ".d.ts", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".json")
_JS_TO_TS = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}
_LUA_ENDS = (".lua", "/init.lua")
"""``package.path``'s default templates, ``?.lua`` and ``?/init.lua``, in their order."""
_LUA_ROOTS = frozenset({"lua", "src", "lib"})
"""Directories that hold a Lua project's modules by convention (Neovim's ``lua/``, LuaRocks' ``src/``)."""
_DOC_PROBES = ("", ".md", ".rst", "/README.md", "/index.md", "/index.rst", "/README.rst")
_RUST_ROOTS = ("lib.rs", "main.rs", "mod.rs")
_DECLARED_FILES = {L.SCALA: (".scala", ".java", "/package.scala"), L.KOTLIN: (".kt", ".java")}
"""What an import ``a.b.C`` of a language whose files declare any names names first: ``a/b/C`` and these."""
_SOURCE_ROOTS = frozenset({"src", "kotlin", "java"})
"""Directories that hold a Kotlin project's root package when its directories omit it (``common/src``,
``src/main/kotlin``)."""
DECLARING_LANGUAGES = frozenset(_DECLARED_FILES)
"""Languages whose files may define any number of top-level names under any name (a Scala or Kotlin file):
an import resolves to the file that defines its name."""


_PATH_WORDS = re.compile(r"[^/._-]+")


def _root_package_file(path: str, last: str) -> bool:
    """Kotlin: whether ``path`` may hold a project's root package (``kotlinx.coroutines``) that its directories
    omit: it stands directly in a source root, and a directory above it is named with the package's last part
    (``kotlinx-coroutines-core/common/src/Builders.common.kt``)."""
    directory = posixpath.dirname(path)
    return posixpath.basename(directory) in _SOURCE_ROOTS and last in _PATH_WORDS.findall(directory)


def _lua_roots(importer: str) -> list[str]:
    """Where a top-level Lua module may be: the importer's source roots (its ``lua``, ``src`` or ``lib``
    directories, the deepest first), the repository's root, then the importer's other directories, the nearest
    first (a program may put any of them on ``package.path``: koreader's ``frontend/``)."""
    parts = importer.split("/")[:-1]
    above = [("/".join(parts[: i + 1]) + "/", parts[i]) for i in reversed(range(len(parts)))]
    named = [directory for directory, name in above if name in _LUA_ROOTS]
    others = [directory for directory, name in above if name not in _LUA_ROOTS]
    return [*named, "", *others]


def _join(directory: str, relative: str) -> str | None:
    """Normalized ``directory/relative``, or None when it climbs out of the repository."""
    joined = posixpath.normpath(posixpath.join(directory, relative)) if relative else directory
    if joined in (".", ""):
        return ""
    if joined == ".." or joined.startswith(("../", "/")):
        return None
    return joined


def _shared_depth(a: str, b: str) -> int:
    depth = 0
    for left, right in zip(a.split("/")[:-1], b.split("/")[:-1], strict=False):
        if left != right:
            break
        depth += 1
    return depth


def _closest(importer: str, candidates: Iterable[str]) -> str | None:
    ranked = sorted(candidates, key=lambda p: (-_shared_depth(importer, p), p.count("/"), p))
    return ranked[0] if ranked else None


COMPOSER_MANIFEST = "composer.json"
"""The file a PHP package declares its autoloading in."""
Psr4 = Mapping[str, tuple[str, ...]]
"""PSR-4 namespace prefixes (``Illuminate\\``) to the repository directories they map to."""


def psr4_prefixes(manifests: Mapping[str, str]) -> dict[str, tuple[str, ...]]:
    """The PSR-4 prefixes the ``composer.json`` files (path: text) declare under ``autoload`` and
    ``autoload-dev``, each directory relative to its manifest's; a manifest that is no JSON object, or a
    value of the wrong shape, declares nothing."""
    found: dict[str, list[str]] = defaultdict(list)
    for path in sorted(manifests):
        home = posixpath.dirname(path)
        for prefix, directory in _declared_psr4(manifests[path]):
            joined = _join(home, directory)
            if joined is not None and joined not in found[prefix]:
                found[prefix].append(joined)
    return {prefix: tuple(dirs) for prefix, dirs in found.items()}


def _declared_psr4(text: str) -> list[tuple[str, str]]:
    """(prefix without its ``\\``, directory) of each PSR-4 entry a manifest's text declares."""
    try:
        manifest = json.loads(text)
    except ValueError:
        return []
    out: list[tuple[str, str]] = []
    for section in ("autoload", "autoload-dev"):
        declared = manifest.get(section) if isinstance(manifest, dict) else None
        prefixes = declared.get("psr-4") if isinstance(declared, dict) else None
        for prefix, dirs in prefixes.items() if isinstance(prefixes, dict) else ():
            listed = [dirs] if isinstance(dirs, str) else dirs if isinstance(dirs, list) else []
            out.extend((prefix.strip("\\"), d) for d in listed if isinstance(d, str))
    return out


class PathIndex:
    """Repository paths with the lookups resolution needs (built lazily, once per set of paths), and the
    PSR-4 prefixes PHP names resolve through (:func:`psr4_prefixes`)."""

    def __init__(
        self, paths: Iterable[str], psr4: Psr4 | None = None, declared: Iterable[tuple[str, str]] = ()
    ) -> None:
        self.paths = frozenset(paths)
        self.psr4 = dict(psr4 or {})
        self._declared: dict[str, list[str]] = defaultdict(list)
        """Scala and Kotlin: the files that define each name at their top level, from (path, name) pairs."""
        for path, name in declared:
            self._declared[name].append(path)
        self._prefixes = sorted(self.psr4, key=len, reverse=True)  # the longest first, as Composer tries them

    @cached_property
    def _by_suffix(self) -> dict[str, list[str]]:
        """Every trailing run of path components (``b.py``, ``a/b.py``, …) to the paths that end with it."""
        index: dict[str, list[str]] = defaultdict(list)
        for path in self.paths:
            parts = path.split("/")
            for start in range(len(parts)):
                index["/".join(parts[start:])].append(path)
        return index

    @cached_property
    def _python_modules(self) -> dict[str, list[str]]:
        """Canonical dotted module names: a module's package chain is its run of ``__init__`` directories."""
        packages = {
            posixpath.dirname(p)
            for p in self.paths
            if posixpath.basename(p) in ("__init__.py", "__init__.pyi")
        }
        index: dict[str, list[str]] = defaultdict(list)
        for path in self.paths:
            stem, ext = posixpath.splitext(path)
            if ext not in _PY_SUFFIXES:
                continue
            directory, name = posixpath.split(stem)
            parts = [] if name == "__init__" else [name]
            while directory in packages and directory:
                directory, package = posixpath.split(directory)
                parts.insert(0, package)
            if parts:
                index[".".join(parts)].append(path)
        return index

    @cached_property
    def _go_packages(self) -> dict[str, list[str]]:
        index: dict[str, list[str]] = defaultdict(list)
        for path in sorted(self.paths):
            if path.endswith(".go") and not path.endswith("_test.go"):
                index[posixpath.dirname(path)].append(path)
        return index

    def _suffix(self, importer: str, suffix: str) -> list[str]:
        best = _closest(importer, self._by_suffix.get(suffix, ()))
        return [best] if best is not None else []

    def _first(self, candidates: Iterable[str]) -> list[str]:
        for candidate in candidates:
            if candidate in self.paths:
                return [candidate]
        return []

    # --- per language ---------------------------------------------------------------------------------

    def _python_files(self, base: str) -> list[str]:
        return [base + s for s in _PY_SUFFIXES] + [base + s for s in _PY_INITS]

    def _python(self, importer: str, module: str) -> list[str]:
        level = len(module) - len(module.lstrip("."))
        parts = [part for part in module[level:].split(".") if part]
        if level:
            directory: str | None = posixpath.dirname(importer)
            for _ in range(level - 1):
                directory = _join(directory, "..") if directory else None
            if directory is None:
                return []
            if not parts:
                return self._first(
                    [f"{directory}/{init[1:]}" if directory else init[1:] for init in _PY_INITS]
                )
            base = _join(directory, "/".join(parts))
            return self._first(self._python_files(base)) if base else []
        if not parts:
            return []
        canonical = _closest(importer, self._python_modules.get(".".join(parts), ()))
        if canonical is not None:
            return [canonical]
        found = self._first(self._python_files("/".join(parts)))
        if found or len(parts) < 2:
            return found
        for candidate in self._python_files("/".join(parts)):
            found = self._suffix(importer, candidate)
            if found:
                return found
        return []

    def _javascript(self, importer: str, spec: str) -> list[str]:
        if spec.startswith(("./", "../")) or spec in (".", ".."):
            base = _join(posixpath.dirname(importer), spec)
        elif spec.startswith(("@/", "~/")):
            base = _join("src", spec[2:])
        else:
            return []  # a package name: outside the repository
        if base is None:
            return []
        if not base:  # `require('..')` from a top-level directory: the repository root's index file
            return self._first(f"index{e}" for e in _JS_EXTENSIONS)
        stem, ext = posixpath.splitext(base)
        candidates = [
            base,
            *(base + e for e in _JS_EXTENSIONS),
            *(f"{base}/index{e}" for e in _JS_EXTENSIONS),
        ]
        candidates.extend(stem + alternative for alternative in _JS_TO_TS.get(ext, ()))
        return self._first(c for c in candidates if c)

    def _go(self, importer: str, spec: str) -> list[str]:
        if spec.startswith("."):
            directory = _join(posixpath.dirname(importer), spec)
            return self._go_packages.get(directory, [])[:MAX_PACKAGE_FILES] if directory is not None else []
        parts = spec.split("/")
        remote = "." in parts[0]  # github.com/...: any tail may be this repository's package directory
        shortest = 1 if remote else 2
        for start in range(1 if remote else 0, len(parts) - shortest + 1):
            files = self._go_packages.get("/".join(parts[start:]))
            if files:
                return files[:MAX_PACKAGE_FILES]
        return []

    def _rust(self, importer: str, spec: str) -> list[str]:
        parts = [part for part in spec.split("::") if part]
        if not parts:
            return []
        directory, name = posixpath.split(importer)
        module_dir = directory if name in _RUST_ROOTS else posixpath.join(directory, name.removesuffix(".rs"))
        segments = importer.split("/")[:-1]
        crate = (
            "/".join(segments[: len(segments) - segments[::-1].index("src")])
            if "src" in segments
            else directory
        )
        head, rest = parts[0], parts[1:]
        if head == "self":
            base: str | None = module_dir
        elif head == "super":
            base = posixpath.dirname(module_dir)
            while rest and rest[0] == "super":
                base, rest = posixpath.dirname(base), rest[1:]
        else:
            base, rest = crate, (rest if head == "crate" else parts)
        for end in range(len(rest), 0, -1):
            stem = _join(base or "", "/".join(rest[:end]))
            found = self._first([f"{stem}.rs", f"{stem}/mod.rs"]) if stem else []
            if found:
                return found
        # `crate::Item`, `super::Item`: an item (or a re-export) of that module, defined in its own file.
        if head not in ("crate", "super"):
            return []
        return [path for path in self._rust_module_file(base or "", crate) if path != importer]

    def _rust_module_file(self, directory: str, crate: str) -> list[str]:
        """The file of the module whose children live in ``directory``: the crate root's ``lib.rs`` or
        ``main.rs``, else ``directory.rs`` or ``directory/mod.rs`` (nothing outside the crate)."""
        if directory == crate:
            return self._first(posixpath.join(crate, root) for root in ("lib.rs", "main.rs"))
        if not directory.startswith(f"{crate}/" if crate else ""):
            return []
        return self._first([f"{directory}.rs", f"{directory}/mod.rs"])

    def _java(self, importer: str, spec: str) -> list[str]:
        parts = spec.removesuffix(".*").split(".")
        while len(parts) >= 2:
            found = self._suffix(importer, "/".join(parts) + ".java")
            if found:
                return found
            parts = parts[:-1]  # a static import's member, or a nested class
        return []

    def _declaring(self, importer: str, spec: str, language: str) -> list[str]:
        parts = spec.split(".")
        while len(parts) >= 2:
            path = "/".join(parts)
            for suffix in _DECLARED_FILES[language]:
                found = self._suffix(importer, path + suffix)
                if found:
                    return found
            best = self._defining(importer, parts, language)
            if best is not None:
                return [best]
            parts = parts[:-1]  # a member of an object, or a name its package object defines
        return []

    def _defining(self, importer: str, parts: list[str], language: str) -> str | None:
        """The file closest to ``importer`` that defines ``parts[-1]`` at its top level in a directory ending
        in the package's path; for Kotlin, else in one ending in the package's path without its leading
        parts (Kotlin's convention omits a project's common root package from its directories:
        ``kotlinx.coroutines.flow`` in ``common/src/flow``), the longest such path first."""
        package = parts[:-1]
        declared = self._declared.get(parts[-1], ())
        omitted = range(len(package) + 1) if language == L.KOTLIN else range(1)
        for start in omitted:
            if start < len(package):
                tail = "/" + "/".join(package[start:])
                defining = (p for p in declared if f"/{posixpath.dirname(p)}".endswith(tail))
            else:  # the root package: a file in a source root of a module named for it
                defining = (p for p in declared if _root_package_file(p, package[-1]))
            best = _closest(importer, defining)
            if best is not None:
                return best
        return None

    def _c(self, importer: str, spec: str) -> list[str]:
        if spec.startswith("<"):
            return self._suffix(importer, spec.strip("<>").strip())
        local = _join(posixpath.dirname(importer), spec)
        found = self._first(c for c in (local, _join("", spec)) if c)
        return found or self._suffix(importer, posixpath.normpath(spec).lstrip("./"))

    def _ruby(self, importer: str, spec: str) -> list[str]:
        with_ext = spec if spec.endswith(".rb") else spec + ".rb"
        if spec.startswith("."):
            local = _join(posixpath.dirname(importer), with_ext)
            return [local] if local in self.paths else []
        return self._suffix(importer, with_ext)

    def _lua(self, importer: str, spec: str) -> list[str]:
        path = spec.replace(".", "/")
        if "/" not in path:  # a top-level module: in a directory of the importer's, not any `x/util.lua`
            return self._first(f"{root}{path}{end}" for root in _lua_roots(importer) for end in _LUA_ENDS)
        for end in _LUA_ENDS:
            found = self._by_suffix.get(path + end, ())
            if found:  # the shallowest root first: a test fixture's copy of a module is not the module
                depth = min(p.count("/") for p in found)
                best = _closest(importer, (p for p in found if p.count("/") == depth))
                return [best] if best is not None else []
        return []

    def _php(self, importer: str, spec: str) -> list[str]:
        if "/" in spec or "." in spec:  # a path; a namespaced name holds neither
            if spec.startswith("."):
                local = _join(posixpath.dirname(importer), spec)
                return [local] if local in self.paths else []
            return self._c(importer, spec)
        parts = [part for part in spec.split("\\") if part]
        if not parts:
            return []
        if self.psr4:
            declared = self._psr4(parts)
            if declared is not None:
                return declared
        for start in range(len(parts) - 1):
            found = self._suffix(importer, "/".join(parts[start:]) + ".php")
            if found:
                return found
        above = [
            path
            for path in self._by_suffix.get(parts[-1] + ".php", ())
            if importer.startswith(posixpath.dirname(path) + "/") or "/" not in path
        ]
        best = _closest(importer, above)
        return [best] if best is not None else []

    def _psr4(self, parts: list[str]) -> list[str] | None:
        """The file the declared PSR-4 prefixes map a name to ([] for another package's name), or None when
        a prefix of the repository's own holds it but no declared directory has its file."""
        name = "\\".join(parts)
        matched = False
        for prefix in self._prefixes:
            if prefix and not name.startswith(prefix + "\\"):
                continue
            matched = True
            rest = name[len(prefix) :].lstrip("\\").replace("\\", "/") + ".php"
            for directory in self.psr4[prefix]:
                candidate = _join(directory, rest)
                if candidate in self.paths:
                    return [candidate]
        return None if matched else []

    # --- public ---------------------------------------------------------------------------------------

    def resolve_import_all(self, importer: str, module: str, language: str) -> list[str]:
        """Every repository file an import names (several only for a Go package)."""
        if not module:
            return []
        if language == L.PYTHON:
            return self._python(importer, module)
        if language in (L.JAVASCRIPT, L.TYPESCRIPT, L.TSX):
            return self._javascript(importer, module)
        if language == L.GO:
            return self._go(importer, module)
        if language == L.RUST:
            return self._rust(importer, module)
        if language == L.JAVA:
            return self._java(importer, module)
        if language in (L.C, L.CPP):
            return self._c(importer, module)
        if language == L.RUBY:
            return self._ruby(importer, module)
        if language == L.PHP:
            return self._php(importer, module)
        if language == L.LUA:
            return self._lua(importer, module)
        if language in DECLARING_LANGUAGES:
            return self._declaring(importer, module, language)
        return []

    def go_package(self, directory: str) -> list[str]:
        """The non-test Go files of the package in ``directory``, in path order (an import names the first)."""
        return list(self._go_packages.get(directory, ()))

    def resolve_import(self, importer: str, module: str, language: str) -> str | None:
        found = self.resolve_import_all(importer, module, language)
        return found[0] if found else None

    def resolve_link(self, source: str, target: str) -> str | None:
        """The file a relative document link names (fragment and query dropped, ``%xx`` decoded)."""
        target = unquote(target.split("#", 1)[0].split("?", 1)[0]).strip()
        if not target:
            return None
        base = (
            _join("", target.lstrip("/"))
            if target.startswith("/")
            else _join(posixpath.dirname(source), target)
        )
        if base is None:
            return None
        found = self._first(base + probe for probe in _DOC_PROBES if base + probe)
        return found[0] if found else None

    def resolve_declared(self, source: str, target: str) -> str | None:
        """A path declared in front matter: from the repository root first, then next to the file."""
        root = _join("", target.strip().lstrip("/"))
        if root and root in self.paths:
            return root
        return self.resolve_link(source, target)


def resolve_import(importer_path: str, module: str, language: str, paths: set[str]) -> str | None:
    """The repository file an import names, or None. Builds an index: for many lookups use ``PathIndex``."""
    return PathIndex(paths).resolve_import(importer_path, module, language)


def resolve_link(source_path: str, target: str, paths: set[str]) -> str | None:
    """The repository file a document link names, or None."""
    return PathIndex(paths).resolve_link(source_path, target)


def _python_modules(module: str, names: tuple[str, ...]) -> list[str]:
    """``from m import x`` may import the submodule ``m.x``: try it as well as ``m``."""
    joiner = "" if module.endswith(".") else "."
    return [module, *(module + joiner + name for name in names if name != "*")]


class _EdgeSet:
    def __init__(self) -> None:
        self.edges: dict[str, Edge] = {}

    def add(self, edge_type: str, source: str, target: str) -> None:
        if source != target:
            edge = make_edge(edge_type, source, target)
            self.edges[edge.id] = edge


def _file_edges(graph: FileGraph, index: PathIndex, files: dict[str, str], out: _EdgeSet) -> None:
    source = files[graph.path]
    for ref in graph.imports:
        modules = _python_modules(ref.module, ref.names) if graph.language == L.PYTHON else [ref.module]
        for module in modules:
            for path in index.resolve_import_all(graph.path, module, graph.language):
                out.add(EDGE_IMPORTS, source, files[path])
    for link in graph.links:
        linked = index.resolve_link(graph.path, link.target)
        if linked is not None:
            out.add(EDGE_LINKS, link.node_id, files[linked])
    for declared in graph.contradicts:
        other = index.resolve_declared(graph.path, declared)
        if other is not None:
            out.add(EDGE_CONTRADICTS, source, files[other])


def _reference_edges(graphs: list[FileGraph], out: _EdgeSet) -> None:
    definitions: dict[str, list[str]] = defaultdict(list)
    for graph in graphs:
        for node in graph.nodes:
            if node.kind == NODE_SYMBOL:
                definitions[node.name].append(node.id)
    for graph in graphs:
        for use in graph.uses:
            if " " in use.name:  # a spelled reference (who-uses), not a ranking use
                continue
            targets = definitions.get(use.name, ())
            if len(targets) <= MAX_REFERENCE_FANOUT:
                for target in targets:
                    out.add(EDGE_REFERENCES, use.node_id, target)


def top_level_declared(graphs: Iterable[FileGraph]) -> list[tuple[str, str]]:
    """(path, name) of every definition at the top level of a Scala or Kotlin file: what their imports
    resolve to."""
    return [
        (graph.path, node.name)
        for graph in graphs
        if graph.language in DECLARING_LANGUAGES
        for node in graph.nodes
        if node.kind == NODE_SYMBOL and node.qualname == node.name
    ]


def build_edges(graphs: list[FileGraph], manifests: Mapping[str, str] | None = None) -> list[Edge]:
    """Cross-file edges — imports, references, links, contradicts — sorted by edge id; ``manifests``, the
    text of each ``composer.json``, declares the PSR-4 prefixes PHP imports resolve through.

    Intra-file ``contains`` edges stay in each ``FileGraph.edges``. Self-edges are dropped.
    """
    files = {node.path: node.id for graph in graphs for node in graph.nodes if node.kind == NODE_FILE}
    index = PathIndex(files, psr4_prefixes(manifests or {}), top_level_declared(graphs))
    out = _EdgeSet()
    for graph in graphs:
        if graph.path in files:
            _file_edges(graph, index, files, out)
    _reference_edges(graphs, out)
    return sorted(out.edges.values(), key=lambda edge: edge.id)
