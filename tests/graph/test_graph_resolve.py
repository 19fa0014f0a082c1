"""Cross-file resolution: imports per language, links, contradictions, references with a fan-out cap."""

from __future__ import annotations

import pytest

from prooftext.graph import (
    EDGE_CONTRADICTS,
    EDGE_IMPORTS,
    EDGE_LINKS,
    EDGE_REFERENCES,
    MAX_REFERENCE_FANOUT,
    FileGraph,
    PathIndex,
    build_edges,
    resolve_import,
    resolve_link,
)
from prooftext.graph.extract import extract
from prooftext.graph.resolve import psr4_prefixes, top_level_declared

PY_TREE = {
    "pkg/__init__.py",
    "pkg/a.py",
    "pkg/sub/__init__.py",
    "pkg/sub/b.py",
    "src/mylib/__init__.py",
    "src/mylib/core.py",
    "src/ns/inner/__init__.py",
    "src/ns/inner/m.py",
    "tests/test_core.py",
}


@pytest.mark.parametrize(
    ("importer", "module", "expected"),
    [
        ("pkg/sub/b.py", "pkg.a", "pkg/a.py"),
        ("pkg/sub/b.py", "pkg.sub", "pkg/sub/__init__.py"),
        ("pkg/sub/b.py", "pkg", "pkg/__init__.py"),
        ("pkg/sub/b.py", ".", "pkg/sub/__init__.py"),
        ("pkg/sub/b.py", ".b", "pkg/sub/b.py"),
        ("pkg/sub/b.py", "..", "pkg/__init__.py"),
        ("pkg/sub/b.py", "..a", "pkg/a.py"),
        ("pkg/sub/b.py", "....a", None),  # climbs out of the repository
        ("tests/test_core.py", "mylib.core", "src/mylib/core.py"),  # src/ layout via __init__ chains
        ("tests/test_core.py", "mylib", "src/mylib/__init__.py"),
        ("tests/test_core.py", "ns.inner.m", "src/ns/inner/m.py"),  # namespace package: path suffix
        ("tests/test_core.py", "numpy", None),
        ("tests/test_core.py", "mylib.missing", None),
    ],
)
def test_python_imports(importer: str, module: str, expected: str | None) -> None:
    assert resolve_import(importer, module, "python", PY_TREE) == expected


JS_TREE = {"web/app.js", "web/util.ts", "web/lib/index.js", "web/comp/Button.tsx", "src/shared/x.ts"}


@pytest.mark.parametrize(
    ("module", "expected"),
    [
        ("./util", "web/util.ts"),
        ("./util.js", "web/util.ts"),  # TypeScript ESM spelling
        ("./lib", "web/lib/index.js"),
        ("./comp/Button", "web/comp/Button.tsx"),
        ("../src/shared/x", "src/shared/x.ts"),
        ("@/shared/x", "src/shared/x.ts"),
        ("react", None),
        ("../../outside", None),
    ],
)
def test_javascript_relative_specifiers(module: str, expected: str | None) -> None:
    assert resolve_import("web/app.js", module, "javascript", JS_TREE) == expected


@pytest.mark.parametrize(
    ("importer", "module"), [("test/app.js", ".."), ("test/app.js", "../"), ("test/a/b.js", "../..")]
)
def test_a_javascript_specifier_naming_the_repository_root_is_its_index_file(
    importer: str, module: str
) -> None:
    assert resolve_import(importer, module, "javascript", {"index.js", importer}) == "index.js"


def test_other_languages() -> None:
    go = PathIndex({"pkg/math/sqrt.go", "pkg/math/pow.go", "pkg/math/sqrt_test.go", "cmd/main.go"})
    assert go.resolve_import_all("cmd/main.go", "github.com/x/y/pkg/math", "go") == [
        "pkg/math/pow.go",
        "pkg/math/sqrt.go",
    ]
    assert go.resolve_import_all("cmd/main.go", "fmt", "go") == []
    rust = PathIndex({"src/lib.rs", "src/inner.rs", "src/util/mod.rs", "src/util/helper.rs"})
    assert rust.resolve_import("src/lib.rs", "self::inner", "rust") == "src/inner.rs"
    assert rust.resolve_import("src/lib.rs", "crate::util::helper::f", "rust") == "src/util/helper.rs"
    assert rust.resolve_import("src/util/helper.rs", "super::super::inner", "rust") == "src/inner.rs"
    assert rust.resolve_import("src/lib.rs", "std::io", "rust") is None
    java = PathIndex({"src/main/java/a/b/C.java"})
    assert java.resolve_import("x/Y.java", "a.b.C", "java") == "src/main/java/a/b/C.java"
    assert java.resolve_import("x/Y.java", "a.b.C.member", "java") == "src/main/java/a/b/C.java"
    c = PathIndex({"src/util.h", "include/lib/api.h", "src/a.c"})
    assert c.resolve_import("src/a.c", "util.h", "c") == "src/util.h"
    assert c.resolve_import("src/a.c", "<lib/api.h>", "c") == "include/lib/api.h"
    assert c.resolve_import("src/a.c", "<stdio.h>", "c") is None
    ruby = PathIndex({"lib/outer.rb", "lib/util.rb", "lib/a/b.rb"})
    assert ruby.resolve_import("lib/outer.rb", "./util", "ruby") == "lib/util.rb"
    assert ruby.resolve_import("bin/run.rb", "a/b", "ruby") == "lib/a/b.rb"


PHP_TREE = PathIndex(
    {
        "src/Client.php",
        "src/Handler/CurlHandler.php",
        "src/Handler/Proxy.php",
        "tests/Client.php",
        "lib/helpers.php",
        "vendor/autoload.php",
        "bootstrap.php",
    }
)


@pytest.mark.parametrize(
    ("importer", "module", "expected"),
    [
        ("src/Client.php", "GuzzleHttp\\Handler\\CurlHandler", "src/Handler/CurlHandler.php"),
        ("src/Handler/Proxy.php", "GuzzleHttp\\Client", "src/Client.php"),
        ("src/Handler/Proxy.php", "Psr\\Http\\Message\\RequestInterface", None),
        ("lib/helpers.php", "GuzzleHttp\\Client", None),
        ("src/Handler/Proxy.php", "./../Client.php", "src/Client.php"),
        ("src/Client.php", "./missing.php", None),
        ("bootstrap.php", "./vendor/autoload.php", "vendor/autoload.php"),
        ("src/Client.php", "lib/helpers.php", "lib/helpers.php"),
        ("src/Client.php", "helpers.php", "lib/helpers.php"),
    ],
)
def test_a_php_use_names_its_psr4_class_file_and_an_include_its_path(
    importer: str, module: str, expected: str | None
) -> None:
    """A use's name by its longest trailing run of two or more parts, or its last part alone in the importer's
    directory or above (a namespace prefix maps to a directory under PSR-4); a class elsewhere (a test's
    ``Client.php``) is not the import, nor is a package outside the tree."""
    assert PHP_TREE.resolve_import(importer, module, "php") == expected


def test_document_links() -> None:
    paths = {"docs/guide.md", "api/README.md", "docs/sub/index.md", "README.md"}
    assert resolve_link("docs/design.md", "guide.md#setup", paths) == "docs/guide.md"
    assert resolve_link("docs/design.md", "../api/", paths) == "api/README.md"
    assert resolve_link("docs/design.md", "sub", paths) == "docs/sub/index.md"
    assert resolve_link("docs/design.md", "/README.md", paths) == "README.md"
    assert resolve_link("docs/design.md", "gu%69de.md", paths) == "docs/guide.md"
    assert resolve_link("docs/design.md", "../../x.md", paths) is None


def _graphs(files: dict[str, str]) -> list[FileGraph]:
    return [extract(path, text) for path, text in sorted(files.items())]


def _named(graphs: list[FileGraph]) -> dict[str, str]:
    return {n.id: f"{n.path}:{n.qualname}" for g in graphs for n in g.nodes}


def test_build_edges_imports_references_links_contradicts() -> None:
    graphs = _graphs(
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "class Foo:\n    pass\n\ndef helper():\n    return Foo()\n",
            "pkg/b.py": "from .a import Foo\nfrom . import a\n\ndef run():\n    return Foo(a.helper())\n",
            "docs/x.md": "---\ncontradicts: [docs/y.md]\n---\n# X\nSee [a](../pkg/a.py).\n",
            "docs/y.md": "---\ncontradicts:\n  - x.md\n---\n# Y\n",
        }
    )
    edges = build_edges(graphs)
    named = _named(graphs)
    found = {(e.type, named[e.source], named[e.target]) for e in edges}
    assert (EDGE_IMPORTS, "pkg/b.py:pkg/b.py", "pkg/a.py:pkg/a.py") in found
    assert (EDGE_IMPORTS, "pkg/b.py:pkg/b.py", "pkg/__init__.py:pkg/__init__.py") in found
    assert (EDGE_REFERENCES, "pkg/b.py:run", "pkg/a.py:Foo") in found
    assert (EDGE_REFERENCES, "pkg/b.py:run", "pkg/a.py:helper") in found
    assert (EDGE_REFERENCES, "pkg/a.py:helper", "pkg/a.py:Foo") in found
    assert (EDGE_LINKS, "docs/x.md:X", "pkg/a.py:pkg/a.py") in found
    contradicts = [e for e in edges if e.type == EDGE_CONTRADICTS]
    assert len(contradicts) == 1  # declared from both sides, one undirected edge
    assert contradicts[0].source < contradicts[0].target
    assert [e.id for e in edges] == sorted(e.id for e in edges)
    assert all(e.source != e.target for e in edges)


def test_reference_fanout_cap() -> None:
    def tree(defining: int) -> dict[str, str]:
        files = {f"m{i:02}.py": "def run():\n    pass\n" for i in range(defining)}
        files["user.py"] = "def main():\n    run()\n"
        return files

    at_cap = build_edges(_graphs(tree(MAX_REFERENCE_FANOUT)))
    assert sum(e.type == EDGE_REFERENCES for e in at_cap) == MAX_REFERENCE_FANOUT
    over_cap = build_edges(_graphs(tree(MAX_REFERENCE_FANOUT + 1)))
    assert not any(e.type == EDGE_REFERENCES for e in over_cap)


@pytest.mark.parametrize(
    ("importer", "module", "expected"),
    [
        ("src/dent.rs", "crate::Result", "src/lib.rs"),
        ("src/tests/util.rs", "crate", "src/lib.rs"),
        ("src/util/helper.rs", "super::Walker", "src/util/mod.rs"),
        ("src/inner.rs", "super::helper_fn", "src/lib.rs"),
        ("src/lib.rs", "self::Thing", None),
        ("src/lib.rs", "std::io::Read", None),
    ],
)
def test_a_rust_use_of_an_item_names_the_file_of_the_module_that_holds_it(
    importer: str, module: str, expected: str | None
) -> None:
    rust = PathIndex({"src/lib.rs", "src/dent.rs", "src/inner.rs", "src/util/mod.rs", "src/util/helper.rs"})
    assert rust.resolve_import(importer, module, "rust") == expected


def test_a_rust_use_of_an_item_of_a_binary_crate_names_its_main_file() -> None:
    rust = PathIndex({"src/main.rs", "src/cli.rs"})
    assert rust.resolve_import("src/cli.rs", "crate::Config", "rust") == "src/main.rs"


LARAVEL_MANIFEST = """{
  "autoload": {"psr-4": {"Illuminate\\\\": "src/Illuminate/",
                         "Illuminate\\\\Support\\\\": ["src/Illuminate/Macroable/", "src/Illuminate/Collections/"]}},
  "autoload-dev": {"psr-4": {"Illuminate\\\\Tests\\\\": "tests/"}}
}"""
PSR4_TREE = {
    "src/Illuminate/Auth/Gate.php",
    "src/Illuminate/Collections/Arr.php",
    "src/Illuminate/Support/Str.php",
    "types/Support/Arr.php",
    "tests/Auth/GateTest.php",
    "src/Illuminate/Console/Application.php",
    "packages/kit/lib/Tool.php",
}


def test_psr4_prefixes_are_read_from_every_composer_manifest_relative_to_its_directory() -> None:
    prefixes = psr4_prefixes(
        {
            "composer.json": LARAVEL_MANIFEST,
            "packages/kit/composer.json": '{"autoload": {"psr-4": {"Kit\\\\": "lib"}}}',
            "broken/composer.json": "{not json",
            "odd/composer.json": '{"autoload": {"psr-4": ["src"]}}',
        }
    )
    assert prefixes == {
        "Illuminate": ("src/Illuminate",),
        "Illuminate\\Support": ("src/Illuminate/Macroable", "src/Illuminate/Collections"),
        "Illuminate\\Tests": ("tests",),
        "Kit": ("packages/kit/lib",),
    }


@pytest.mark.parametrize(
    ("module", "expected"),
    [
        (
            "Illuminate\\Support\\Arr",
            "src/Illuminate/Collections/Arr.php",
        ),  # the longest prefix, each of its directories
        ("Illuminate\\Support\\Str", "src/Illuminate/Support/Str.php"),  # a shorter prefix holds it
        ("Illuminate\\Tests\\Auth\\GateTest", "tests/Auth/GateTest.php"),
        ("Kit\\Tool", "packages/kit/lib/Tool.php"),
        ("Symfony\\Component\\Console\\Application", None),  # another package's, whatever its path tail
    ],
)
def test_a_php_use_resolves_through_the_declared_psr4_prefixes(module: str, expected: str | None) -> None:
    manifests = {
        "composer.json": LARAVEL_MANIFEST,
        "packages/kit/composer.json": '{"autoload": {"psr-4": {"Kit\\\\": "lib/"}}}',
    }
    index = PathIndex(PSR4_TREE, psr4_prefixes(manifests))
    assert index.resolve_import("src/Illuminate/Auth/Gate.php", module, "php") == expected
    # without the manifests, path tails alone: `types/Support/Arr.php`, a same-named file of another package
    assert PathIndex(PSR4_TREE).resolve_import(
        "src/Illuminate/Auth/Gate.php", "Illuminate\\Support\\Arr", "php"
    ) == ("types/Support/Arr.php")


def test_build_edges_link_a_php_import_to_the_file_the_composer_manifest_maps_it_to() -> None:
    files = {
        "src/Gate.php": "<?php\nnamespace Acme;\nuse Acme\\Support\\Arr;\nclass Gate {}\n",
        "packages/support/src/Arr.php": "<?php\nnamespace Acme\\Support;\nclass Arr {}\n",
        "types/Support/Arr.php": "<?php\nassert(true);\n",
    }
    graphs = _graphs(files)
    named = _named(graphs)
    manifest = '{"autoload": {"psr-4": {"Acme\\\\": "src/", "Acme\\\\Support\\\\": "packages/support/src/"}}}'

    def imported(manifests: dict[str, str] | None) -> set[str]:
        edges = build_edges(graphs, manifests)
        return {
            named[e.target] for e in edges if e.type == EDGE_IMPORTS and named[e.source].startswith("src/")
        }

    assert imported({"composer.json": manifest}) == {
        "packages/support/src/Arr.php:packages/support/src/Arr.php"
    }
    assert imported(None) == {"types/Support/Arr.php:types/Support/Arr.php"}  # the path's tail alone


SCALA_TREE = {
    "core/src/main/scala/app/client/Backend.scala": "package app.client\ntrait Backend\nobject Backend\n",
    "core/src/main/scala/app/client/request.scala": (
        "package app.client\ncase class Request(uri: String)\nclass StreamRequest\n"
    ),
    "core/src/main/scala/app/client/package.scala": "package app\npackage object client { type Id[A] = A }\n",
    "core/src/main/java/app/client/Native.java": "package app.client;\npublic class Native {}\n",
    "other/src/main/scala/app/other/Request.scala": "package app.other\nclass Request\n",
    "impl/src/main/scala/app/client/impl/cats/package.scala": "package app.client.impl\npackage object cats\n",
}


@pytest.mark.parametrize(
    ("module", "expected"),
    [
        ("app.client.Backend", "core/src/main/scala/app/client/Backend.scala"),  # the file named for it
        ("app.client.Backend.apply", "core/src/main/scala/app/client/Backend.scala"),  # a member of an object
        ("app.client.Request", "core/src/main/scala/app/client/request.scala"),  # the file that defines it
        ("app.client.StreamRequest", "core/src/main/scala/app/client/request.scala"),
        ("app.client.Id", "core/src/main/scala/app/client/package.scala"),  # its package object's
        ("app.client", "core/src/main/scala/app/client/package.scala"),  # `import app.client._`
        ("app.client.Native", "core/src/main/java/app/client/Native.java"),  # a Java class
        ("app.other.Request", "other/src/main/scala/app/other/Request.scala"),
        ("cats.effect.IO", None),  # another project's: `impl/cats/package.scala` is not the package `cats`
        ("cats.Eq", None),
        ("scala.concurrent.Future", None),
    ],
)
def test_a_scala_import_resolves_to_the_file_named_for_it_or_the_file_of_its_package_that_defines_it(
    module: str, expected: str | None
) -> None:
    graphs = _graphs(SCALA_TREE)
    index = PathIndex(SCALA_TREE, None, top_level_declared(graphs))
    assert index.resolve_import("other/src/main/scala/app/other/Main.scala", module, "scala") == expected


def test_build_edges_link_a_scala_import_to_the_file_that_defines_the_name() -> None:
    files = {**SCALA_TREE, "app/Main.scala": "import app.client.{Request, Id}\nobject Main\n"}
    graphs = _graphs(files)
    named = _named(graphs)
    edges = build_edges(graphs)
    assert {
        named[e.target] for e in edges if e.type == EDGE_IMPORTS and named[e.source].startswith("app/")
    } == {
        "core/src/main/scala/app/client/request.scala:core/src/main/scala/app/client/request.scala",
        "core/src/main/scala/app/client/package.scala:core/src/main/scala/app/client/package.scala",
    }


KOTLIN_TREE = {
    "okhttp/src/main/kotlin/okhttp3/internal/http/StatusLine.kt": "package okhttp3.internal.http\nclass StatusLine\n",
    "okhttp/src/main/kotlin/okhttp3/internal/-UtilCommon.kt": "package okhttp3.internal\nfun closeQuietly() {}\n",
    "okhttp/src/main/java/okhttp3/Legacy.java": "package okhttp3;\npublic class Legacy {}\n",
    "coroutines-core/common/src/Builders.common.kt": "package kotlinx.coroutines\nfun launch() {}\n",
    "coroutines-core/common/src/flow/Builders.kt": "package kotlinx.coroutines.flow\nfun flowOf() {}\n",
    "coroutines-core/jvm/src/Runnable.kt": "package kotlinx.coroutines\ntypealias Runnable = java.lang.Runnable\n",
    "tools/src/Publish.kt": "package tools\nfun publish() {}\n",
}


@pytest.mark.parametrize(
    ("module", "expected"),
    [
        ("okhttp3.internal.http.StatusLine", "okhttp/src/main/kotlin/okhttp3/internal/http/StatusLine.kt"),
        (  # a member of a class's companion object
            "okhttp3.internal.http.StatusLine.Companion.HTTP_CONTINUE",
            "okhttp/src/main/kotlin/okhttp3/internal/http/StatusLine.kt",
        ),
        ("okhttp3.internal.closeQuietly", "okhttp/src/main/kotlin/okhttp3/internal/-UtilCommon.kt"),
        ("okhttp3.Legacy", "okhttp/src/main/java/okhttp3/Legacy.java"),  # a Java class
        (
            "kotlinx.coroutines.flow.flowOf",
            "coroutines-core/common/src/flow/Builders.kt",
        ),  # root package omitted
        (
            "kotlinx.coroutines.launch",
            "coroutines-core/common/src/Builders.common.kt",
        ),  # the root package's file
        ("java.lang.Runnable", None),  # a source root's `Runnable`, but no directory named for `lang`
        ("org.gradle.api.publish.PublishingExtension", None),  # nor `publish` for `api`
        ("kotlin.collections.List", None),
    ],
)
def test_a_kotlin_import_resolves_to_the_file_of_its_package_that_defines_it_even_when_directories_omit_the_root(
    module: str, expected: str | None
) -> None:
    graphs = _graphs(KOTLIN_TREE)
    index = PathIndex(KOTLIN_TREE, None, top_level_declared(graphs))
    assert index.resolve_import("app/src/main/kotlin/app/Main.kt", module, "kotlin") == expected


LUA_TREE = {
    "kong/db/init.lua",
    "kong/db/dao.lua",
    "kong/tools/utils.lua",
    "spec/fixtures/kong/db/dao.lua",
    "lua/telescope/builtin/init.lua",
    "lua/telescope/config.lua",
    "lua/telescope/util.lua",
    "src/luarocks/core/cfg.lua",
    "util.lua",
}


@pytest.mark.parametrize(
    ("importer", "module", "expected"),
    [
        ("kong/init.lua", "kong.db.dao", "kong/db/dao.lua"),
        ("kong/init.lua", "kong.db", "kong/db/init.lua"),  # `?/init.lua`
        ("spec/02-integration/x_spec.lua", "kong.db.dao", "kong/db/dao.lua"),  # not the fixture's copy
        ("spec/fixtures/kong/helper.lua", "kong.db.dao", "kong/db/dao.lua"),  # the shallowest path
        ("lua/telescope/pickers.lua", "telescope.builtin", "lua/telescope/builtin/init.lua"),
        ("src/luarocks/cmd.lua", "luarocks.core.cfg", "src/luarocks/core/cfg.lua"),
        ("lua/telescope/pickers.lua", "telescope.missing", None),
        ("lua/telescope/pickers.lua", "util", "util.lua"),  # a top-level module: the root's file
        ("lua/telescope/pickers.lua", "config", "lua/telescope/config.lua"),  # the importer's directory
        ("kong/init.lua", "util", "util.lua"),  # the repository root
        ("kong/tools/x.lua", "config", None),  # not `lua/telescope/config.lua`: no directory of the importer
        ("kong/init.lua", "cjson", None),  # a library
    ],
)
def test_a_lua_require_resolves_as_package_path_finds_the_module(
    importer: str, module: str, expected: str | None
) -> None:
    assert resolve_import(importer, module, "lua", LUA_TREE) == expected


def test_a_top_level_lua_module_is_found_in_the_importers_source_root_first() -> None:
    paths = {"lua/util.lua", "util.lua", "lua/plugin/init.lua"}
    assert resolve_import("lua/plugin/init.lua", "util", "lua", paths) == "lua/util.lua"
    assert resolve_import("plugin/x.lua", "util", "lua", paths) == "util.lua"


def test_a_top_level_lua_module_is_found_in_a_directory_above_the_importer_before_its_own() -> None:
    paths = {"frontend/device.lua", "lib/wibox/init.lua", "lib/awful/wibox.lua", "lib/awful/button.lua"}
    assert resolve_import("frontend/ui/widget/button.lua", "device", "lua", paths) == "frontend/device.lua"
    # a source root's package before the importer's own `awful/wibox.lua`, which is `awful.wibox`
    assert resolve_import("lib/awful/button.lua", "wibox", "lua", paths) == "lib/wibox/init.lua"
    assert resolve_import("frontend/ui/widget/button.lua", "wibox", "lua", paths) is None
