"""PHP symbols, doc comments, signatures and imports as PHP itself reads them (values checked with php-ast,
``bench/php_oracle/symbols.php``)."""

from __future__ import annotations

import pytest

from helpers import dedented, documented_rows
from prooftext.graph.extract import extract
from prooftext.graph.model import NODE_SYMBOL

KERNEL = dedented("""
    <?php
    namespace App\\Http;

    use Foo\\Bar as Baz;

    /**
     * Handles requests.
     *
     * @api
     */
    #[Attr]
    final class Kernel extends Base implements Handler
    {
        /** Not a definition: a property. */
        private int $x = 1;

        /**
         * Builds it.
         */
        public function __construct(private Baz $baz) {}

        // Handles one.
        #[Route('/x')]
        public static function handle(Request $r): Response
        {
            return new Response($this->baz->run($r));
        }

        abstract protected function limit(int $a,
            string $b): ?int;

        public function anonymous(): object
        {
            return new class () implements Handler {
                public function run() {}
            };
        }
    }

    interface Handler { public function run(): void; }
    trait Greets { function greet() { return hello(1); } }
    enum Suit: string { case Hearts = "H"; public function label(): string { return ""; } }
    function top($x) { return \\Foo\\helper($x); }
    ?>
    <p><?= top(1) ?></p>
""")


def _symbols(text: str) -> dict[str, tuple[str, int, int, str, str]]:
    graph = extract("src/Http/Kernel.php", text)
    return {
        n.qualname: (n.symbol_kind, n.start_line, n.end_line, n.signature, n.docstring)
        for n in graph.nodes
        if n.kind == NODE_SYMBOL
    }


def test_php_classes_interfaces_traits_enums_functions_and_methods_are_symbols_named_without_namespace() -> (
    None
):
    assert documented_rows(extract("src/Http/Kernel.php", KERNEL)) == [
        ("Kernel", "class", 6, 38, "Handles requests.\n\n@api"),
        ("Kernel.__construct", "method", 17, 20, "Builds it."),
        ("Kernel.handle", "method", 22, 27, "Handles one."),
        ("Kernel.limit", "method", 29, 30, ""),
        ("Kernel.anonymous", "method", 32, 37, ""),
        ("Kernel.anonymous.run", "method", 35, 35, ""),
        ("Handler", "interface", 40, 40, ""),
        ("Handler.run", "method", 40, 40, ""),
        ("Greets", "trait", 41, 41, ""),
        ("Greets.greet", "method", 41, 41, ""),
        ("Suit", "enum", 42, 42, ""),
        ("Suit.label", "method", 42, 42, ""),
        ("top", "function", 43, 43, ""),
    ]


def test_a_php_signature_starts_after_its_attributes_and_a_bodiless_one_is_its_whole_header() -> None:
    symbols = _symbols(KERNEL)
    assert symbols["Kernel"][3] == "final class Kernel extends Base implements Handler"
    assert symbols["Kernel.handle"][3] == "public static function handle(Request $r): Response"
    assert symbols["Kernel.limit"][3] == "abstract protected function limit(int $a,\n        string $b): ?int"
    assert symbols["Handler.run"][3] == "public function run(): void"


def test_php_uses_name_calls_types_bases_attributes_and_a_qualified_call_by_its_last_part() -> None:
    uses = {u.name for u in extract("src/Http/Kernel.php", KERNEL).uses if " " not in u.name}
    assert {
        "Attr",
        "Base",
        "Handler",
        "Route",
        "Request",
        "Response",
        "Baz",
        "run",
        "hello",
        "helper",
    } <= uses
    assert "Foo" not in uses  # a namespace, not a definition


@pytest.mark.parametrize(
    ("statement", "modules"),
    [
        ("use Foo\\Bar;", ["Foo\\Bar"]),
        ("use \\Foo\\Bar as Baz, Qux\\Quux;", ["Foo\\Bar", "Qux\\Quux"]),
        ("use Foo\\{Bar, Baz\\Qux as Q};", ["Foo\\Bar", "Foo\\Baz\\Qux"]),
        ("use function Foo\\helper;", ["Foo\\helper"]),
        ("require 'lib/x.php';", ["lib/x.php"]),
        ('include_once "x.php";', ["x.php"]),
        ("require_once __DIR__ . '/x.php';", ["./x.php"]),
        ("require dirname(__FILE__) . '/../y.php';", ["./../y.php"]),
        ("require_once dirname(__DIR__) . '/vendor/autoload.php';", ["./../vendor/autoload.php"]),
        ("require('x.php');", ["x.php"]),
        ('include "$dir/x.php";', []),
        ("require $path;", []),
        ("require __DIR__ . $name;", []),
    ],
)
def test_php_imports_are_use_names_and_the_paths_include_and_require_can_be_known(
    statement: str, modules: list[str]
) -> None:
    graph = extract("src/a.php", f"<?php\n{statement}\n")
    assert [(i.module, i.line) for i in graph.imports] == [(m, 2) for m in modules]
