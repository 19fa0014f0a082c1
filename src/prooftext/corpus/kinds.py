"""Source kinds, by file name first, then by lowercase extension (anything else is ``text``):

=========  =====================================================================================
kind       names / extensions
=========  =====================================================================================
code       .py .pyi .pyx .js .mjs .cjs .jsx .ts .mts .cts .tsx .go .rs .java .kt .kts .scala .c .h
           .cc .cpp .cxx .hh .hpp .hxx .cs .swift .m .mm .rb .php .pl .pm .lua .r .jl .dart .ex .exs
           .erl .hs .ml .mli .clj .elm .zig .nim .sh .bash .zsh .fish .ps1 .sql .vue .svelte;
           ``Makefile``, ``GNUmakefile``, ``Rakefile``, ``Gemfile``, ``Justfile``, ``Dockerfile``
doc        .md .markdown .mdx .rst .adoc .asciidoc .org .tex .rtf .html .htm; ``README``, ``CHANGELOG``,
           ``CHANGES``, ``AUTHORS``, ``CONTRIBUTING``, ``LICENSE``, ``COPYING``, ``NOTICE``
config     .toml .ini .cfg .conf .yaml .yml .properties .env .editorconfig .gitignore .gitattributes
           .dockerignore .lock; ``CMakeLists.txt``, ``MANIFEST.in``
data       .json .jsonl .ndjson .csv .tsv .xml .svg .geojson
text       everything else (.txt, .log, no extension, ...)
=========  =====================================================================================

Case never changes a kind: ``Foo.PY``, ``.C`` and ``.H`` are code. The parser's
:func:`prooftext.graph.languages.language_for` compares extensions in lower case too, so every file it
parses with a grammar is ``code`` here (``doc`` for Markdown and RST); the one place case matters there,
``.C`` and ``.H`` read as C++ as GCC does, picks a language, not a kind.
"""

from __future__ import annotations

import posixpath

KIND_CODE = "code"
KIND_DOC = "doc"
KIND_CONFIG = "config"
KIND_DATA = "data"
KIND_TEXT = "text"
KINDS: tuple[str, ...] = (KIND_CODE, KIND_DOC, KIND_CONFIG, KIND_DATA, KIND_TEXT)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_CODE_EXTENSIONS = _words(
    ".py .pyi .pyx .js .mjs .cjs .jsx .ts .mts .cts .tsx .go .rs .java .kt .kts .scala .c .h .cc .cpp .cxx "
    ".hh .hpp .hxx .cs .swift .m .mm .rb .php .pl .pm .lua .r .jl .dart .ex .exs .erl .hs .ml .mli .clj "
    ".elm .zig .nim .sh .bash .zsh .fish .ps1 .sql .vue .svelte"
)
_DOC_EXTENSIONS = _words(".md .markdown .mdx .rst .adoc .asciidoc .org .tex .rtf .html .htm")
_CONFIG_EXTENSIONS = _words(
    ".toml .ini .cfg .conf .yaml .yml .properties .env .editorconfig .gitignore .gitattributes "
    ".dockerignore .lock"
)
_DATA_EXTENSIONS = _words(".json .jsonl .ndjson .csv .tsv .xml .svg .geojson")
_KIND_BY_EXTENSION: dict[str, str] = {
    **dict.fromkeys(_CODE_EXTENSIONS, KIND_CODE),
    **dict.fromkeys(_DOC_EXTENSIONS, KIND_DOC),
    **dict.fromkeys(_CONFIG_EXTENSIONS, KIND_CONFIG),
    **dict.fromkeys(_DATA_EXTENSIONS, KIND_DATA),
}
_KIND_BY_NAME: dict[str, str] = {
    **dict.fromkeys(("Makefile", "GNUmakefile", "Rakefile", "Gemfile", "Justfile", "Dockerfile"), KIND_CODE),
    **dict.fromkeys(
        ("README", "CHANGELOG", "CHANGES", "AUTHORS", "CONTRIBUTING", "LICENSE", "COPYING", "NOTICE"),
        KIND_DOC,
    ),
    **dict.fromkeys(("CMakeLists.txt", "MANIFEST.in"), KIND_CONFIG),
}


def kind_for(path: str) -> str:
    """``code`` | ``doc`` | ``config`` | ``data`` | ``text`` for a portable path (see the module table)."""
    name = posixpath.basename(path)
    by_name = _KIND_BY_NAME.get(name)
    if by_name is not None:
        return by_name
    # ".gitignore" has no stem: splitext would give no extension, but the whole name is the type.
    extension = name.lower() if name.startswith(".") and name.count(".") == 1 else posixpath.splitext(name)[1]
    return _KIND_BY_EXTENSION.get(extension.lower(), KIND_TEXT)
