"""Who-uses in PHP: calls resolved through the class the code states for their receiver (checked against
what the Intelephense language server resolves, ``bench/who_uses_php_bench.py``)."""

from __future__ import annotations

from pathlib import Path

from helpers import found_by
from prooftext.graph.extract import extract

REPOSITORY = {
    "src/Repository.php": """
        <?php
        namespace App;

        class Repository
        {
            public function find(int $id): ?User { return null; }

            public function create(): self { return new self(); }

            public function all(): array { return $this->find(1) ? [] : []; }
        }
    """,
    "src/User.php": """
        <?php
        namespace App;

        class User
        {
            public function __construct(private string $name) {}

            public function find(): string { return $this->name; }
        }
    """,
    "src/Service.php": """
        <?php
        namespace App;

        use App\\Repository as Store;
        use Psr\\Log\\LoggerInterface;

        class Service
        {
            private Store $store;

            public function __construct(private LoggerInterface $logger, Store $store)
            {
                $this->store = $store;
            }

            public function byField(): ?User
            {
                return $this->store->find(1);
            }

            public function byParameter(Store $repository): ?User
            {
                return $repository->find(2);
            }

            public function byNew(): ?User
            {
                $repository = new Store();
                return $repository->find(3);
            }

            public function byResult(): ?User
            {
                $repository = Store::make()->create();
                $made = $this->store->create();
                return $made->find(4);
            }

            public function onLibrary(): void
            {
                $this->logger->find('x');
            }

            public function unknown($thing): void
            {
                $thing->find(5);
            }

            public function user(): User
            {
                return new User('ada');
            }
        }
    """,
}


def test_a_php_call_is_its_receivers_class_method_when_the_code_states_that_class(tmp_path: Path) -> None:
    found = found_by(tmp_path, REPOSITORY, "Repository.find")
    assert found["src/Repository.php:Repository.all"] == "call"  # $this
    assert found["src/Service.php:Service.byField"] == "call"  # a typed property, through a use alias
    assert found["src/Service.php:Service.byParameter"] == "call"  # a typed parameter
    assert found["src/Service.php:Service.byNew"] == "call"  # $x = new Foo()
    assert found["src/Service.php:Service.byResult"] == "call"  # what the method called declares it returns
    assert found["src/Service.php:Service.unknown"] == "possible"  # a parameter of no stated class
    assert "src/Service.php:Service.onLibrary" not in found  # a package's interface, not this class
    assert "src/User.php:User.find" not in found  # the same name on another class


def test_a_php_constructor_is_used_by_new_of_its_class_not_by_its_name_as_a_type(tmp_path: Path) -> None:
    found = found_by(tmp_path, REPOSITORY, "User.__construct")
    assert found == {"src/Service.php:Service.user": "call"}


def test_a_php_static_call_on_a_class_is_no_construction_of_it() -> None:
    graph = extract("a.php", "<?php\nfunction f() { Cache::get(); new Cache(); \\A\\B\\Store::make(); }\n")
    spelled = sorted(u.name for u in graph.uses if " " in u.name)
    assert spelled == [
        "Cache call",
        "Cache read",
        "Store read \\A\\B\\",
        "get call Cache",
        "make call A.B.Store",
    ]


def test_a_php_call_through_parent_runs_the_parents_member_and_no_override(tmp_path: Path) -> None:
    files = {
        "src/Base.php": """
            <?php
            namespace App;
            abstract class Base
            {
                public function __construct(int $level) {}
                public function handle(): bool { return $this->write(); }
                protected function write(): bool { return true; }
            }
        """,
        "src/Middle.php": "<?php\nnamespace App;\nabstract class Middle extends Base {}\n",
        "src/Leaf.php": """
            <?php
            namespace App;
            final class Leaf extends Middle
            {
                public function __construct() { parent::__construct(1); }
                protected function write(): bool { return parent::write(); }
            }
        """,
    }
    assert found_by(tmp_path, files, "Base.__construct") == {"src/Leaf.php:Leaf.__construct": "call"}
    # `$this->write()` in Base may run Leaf's override; `parent::write()` runs Base's alone
    assert found_by(tmp_path, files, "Leaf.write") == {"src/Base.php:Base.handle": "possible"}


def test_a_php_class_named_through_an_imported_namespace_is_found(tmp_path: Path) -> None:
    files = {
        "src/Command/AliasCommand.php": """
            <?php
            namespace Vendor\\Command;
            class AliasCommand { public function __construct(string $name) {} }
        """,
        "src/Console/Application.php": """
            <?php
            namespace Vendor\\Console;
            use Vendor\\Command;
            class Application
            {
                public function add(): object { return new Command\\AliasCommand('x'); }
                public function other(): object { return new \\Other\\AliasCommand('y'); }
            }
        """,
    }
    found = found_by(tmp_path, files, "AliasCommand.__construct")
    assert found == {"src/Console/Application.php:Application.add": "call"}


def test_a_php_constructor_is_used_through_an_alias_and_by_new_static_in_its_class(tmp_path: Path) -> None:
    files = {
        "src/Script/Event.php": """
            <?php
            namespace Vendor\\Script;
            class Event
            {
                public function __construct(string $name) {}
                public static function named(string $name): static { return new static($name); }
            }
        """,
        "src/Dispatcher.php": """
            <?php
            namespace Vendor;
            use Vendor\\Script\\Event as ScriptEvent;
            class Dispatcher
            {
                public function dispatch(): object { return new ScriptEvent('post-install'); }
                public function other(): object { return new static(); }
            }
        """,
    }
    assert found_by(tmp_path, files, "Event.__construct") == {
        "src/Dispatcher.php:Dispatcher.dispatch": "call",
        "src/Script/Event.php:Event.named": "call",
    }


def test_a_php_class_of_a_namespace_split_over_directories_is_the_one_file_defining_it(
    tmp_path: Path,
) -> None:
    """Under PSR-4 a namespace may map to several directories (laravel's ``Illuminate\\Support\\`` to
    ``Collections/`` too): the import's path names a file of another directory, which defines no such class."""
    files = {
        "src/Illuminate/Collections/Arr.php": """
            <?php
            namespace Illuminate\\Support;
            class Arr { public static function get(array $a, string $k): mixed { return $a[$k]; } }
        """,
        "types/Support/Arr.php": "<?php\nuse Illuminate\\Support\\Arr;\nassertType('mixed', Arr::get([], 'k'));\n",
        "src/Illuminate/Auth/Gate.php": """
            <?php
            namespace Illuminate\\Auth;
            use Illuminate\\Support\\Arr;
            class Gate { public function raw(): mixed { return Arr::get([], 'x'); } }
        """,
        "src/Illuminate/Auth/Other.php": """
            <?php
            namespace Illuminate\\Auth;
            use Vendor\\Support\\Arr;
            class Other { public function raw(): mixed { return Arr::get([], 'x'); } }
        """,
    }
    found = found_by(tmp_path, files, "Arr.get")
    assert found["src/Illuminate/Auth/Gate.php:Gate.raw"] == "call"
    assert "src/Illuminate/Auth/Other.php:Other.raw" not in found  # another vendor's Arr


def test_a_php_method_named_by_a_callable_array_is_referenced(tmp_path: Path) -> None:
    files = {
        "src/Console.php": """
            <?php
            namespace App;
            class Console
            {
                public static function send(): void {}
                public function register(): void { register_shutdown_function(['App\\\\Console', 'send']); }
                public function each(array $xs): array { return array_map([$this, 'send'], $xs); }
                public function sorted(array $xs): array { usort($xs, [self::class, 'send']); return $xs; }
                public function pairs(): array { return ['name', 'send']; }
            }
        """,
        "src/Other.php": """
            <?php
            namespace App;
            class Other { public function hook(): array { return [Console::class, 'send']; } }
        """,
    }
    assert found_by(tmp_path, files, "Console.send") == {
        "src/Console.php:Console.register": "reference",
        "src/Console.php:Console.each": "reference",
        "src/Console.php:Console.sorted": "reference",
        "src/Other.php:Other.hook": "reference",
    }
