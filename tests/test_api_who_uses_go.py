"""Who-uses on Go: a method called through a variable is resolved through the type the function declares for
it (a parameter, a literal, a call's declared result), in the scope the call is in."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import prooftext
from helpers import write_tree
from prooftext.api.risk import risk_of_changing, who_uses

WEB = {
    "go.mod": "module example.com/web\n\ngo 1.22\n",
    "context.go": """
        package web

        type Context struct{ Keys map[string]any }

        func (c *Context) GetInt32(key string) int32 { return 0 }

        func (c *Context) Copy() *Context { return c }

        func (c *Context) Reset() {}

        type Recorder struct{}

        func (r *Recorder) Reset() {}

        type Resetter interface{ Reset() }

        func CreateTestContext(w any) (c *Context, r *Engine) { return &Context{}, nil }
        """,
    "engine.go": """
        package web

        type Engine struct{}

        func (engine *Engine) Handle(path string, handler func(*Context)) {}

        func New() *Engine { return &Engine{} }
        """,
    "context_test.go": """
        package web

        func TestGetInt32() {
            c, _ := CreateTestContext(nil)
            c.GetInt32("key")
        }

        func TestCopy() {
            c, _ := CreateTestContext(nil)
            cp := c.Copy()
            cp.GetInt32("key")
        }

        func TestLiteral() {
            var plain Context
            plain.Reset()
        }

        func TestOtherType() {
            rec := &Recorder{}
            rec.Reset()
        }

        func TestInterface(r Resetter) {
            r.Reset()
        }

        func TestHandler() {
            engine := New()
            engine.Handle("/", func(c *Context) {
                c.Reset()
            })
        }

        func TestShadowed() {
            r := New()
            r.Handle("/", func(r *Recorder) {
                r.Reset()
            })
        }

        func TestTwoScopes() {
            r := &Recorder{}
            r.Reset()
            apply(func(r *Context) {
                r.Reset()
            })
        }
        """,
    "cmd/main.go": """
        package main

        import "example.com/web"

        func main() {
            engine := web.New()
            engine.Handle("/", func(c *web.Context) {
                c.GetInt32("n")
            })
        }
        """,
}


def _write(root: Path, files: dict[str, str]) -> None:
    write_tree(root, {name: textwrap.dedent(text).lstrip("\n") for name, text in files.items()})


def _dependents(root: Path, target: str) -> dict[str, str]:
    with prooftext.open(root) as index:
        index.refresh()
        result: dict[str, Any] = risk_of_changing(index, [target])
    return {f"{d['path']}:{d['qualname']}": d["found_by"] for d in result["dependents"]}


def test_a_method_called_through_a_variable_a_function_s_declared_result_types_is_a_call(
    tmp_path: Path,
) -> None:
    _write(tmp_path, WEB)
    found = _dependents(tmp_path, "Context.GetInt32")
    assert found["context_test.go:TestGetInt32"] == "call"  # c, _ := CreateTestContext(nil)
    assert found["context_test.go:TestCopy"] == "call"  # cp := c.Copy(), a method's declared result


def test_a_function_literal_s_parameter_types_the_calls_inside_it_in_its_package_and_through_an_import(
    tmp_path: Path,
) -> None:
    _write(tmp_path, WEB)
    assert _dependents(tmp_path, "Context.GetInt32")["cmd/main.go:main"] == "call"  # func(c *web.Context)
    assert _dependents(tmp_path, "Context.Reset")["context_test.go:TestHandler"] == "call"


def test_a_variable_declared_with_a_type_calls_that_type_s_method_and_not_another_s(tmp_path: Path) -> None:
    _write(tmp_path, WEB)
    context_reset = _dependents(tmp_path, "Context.Reset")
    assert context_reset["context_test.go:TestLiteral"] == "call"  # var plain Context
    assert "context_test.go:TestOtherType" not in context_reset  # rec := &Recorder{}: Recorder's Reset
    assert _dependents(tmp_path, "Recorder.Reset")["context_test.go:TestOtherType"] == "call"


def test_a_call_through_an_interface_is_the_interface_s_method_and_possibly_any_implementation(
    tmp_path: Path,
) -> None:
    _write(tmp_path, WEB)
    assert _dependents(tmp_path, "Resetter.Reset")["context_test.go:TestInterface"] == "call"
    assert _dependents(tmp_path, "Context.Reset")["context_test.go:TestInterface"] == "possible"


def test_a_parameter_of_a_function_literal_shadows_a_variable_of_its_name_only_inside_the_literal(
    tmp_path: Path,
) -> None:
    _write(tmp_path, WEB)
    assert _dependents(tmp_path, "Engine.Handle")["context_test.go:TestShadowed"] == "call"  # r := New()
    assert (
        _dependents(tmp_path, "Recorder.Reset")["context_test.go:TestShadowed"] == "call"
    )  # func(r *Recorder)
    assert _dependents(tmp_path, "Resetter.Reset")["context_test.go:TestShadowed"] == "possible"


def test_a_call_spelled_alike_in_a_function_and_in_a_literal_inside_it_is_typed_in_each_scope(
    tmp_path: Path,
) -> None:
    """``r.Reset()`` on a ``*Recorder``, then inside ``func(r *Context)``: a reference was kept once per
    function, at its first line, so the literal's call of ``Context.Reset`` was lost."""
    _write(tmp_path, WEB)
    assert _dependents(tmp_path, "Recorder.Reset")["context_test.go:TestTwoScopes"] == "call"
    assert _dependents(tmp_path, "Context.Reset")["context_test.go:TestTwoScopes"] == "call"


VERSIONED = {
    "go.mod": "module example.com/shop/v2\n\ngo 1.22\n",
    "shop.go": "package shop\n\nfunc New() int { return 1 }\n",
    "internal/jsonx/codec.go": "package json\n\nfunc Marshal() int { return 2 }\n",
    "cmd/main.go": """
        package main

        import (
            "example.com/shop/v2"
            "example.com/shop/v2/internal/jsonx"
        )

        func main() { shop.New(); json.Marshal() }
        """,
    "cmd/config.go": """
        package main

        import "gopkg.in/yaml.v3"

        func save() { yaml.Marshal() }
        """,
}


def test_an_import_binds_its_package_s_own_name_not_a_major_version_or_its_directory(tmp_path: Path) -> None:
    """``example.com/shop/v2`` binds ``shop``; a package in ``jsonx/`` declaring ``package json`` binds ``json``."""
    _write(tmp_path, VERSIONED)
    assert _dependents(tmp_path, "New")["cmd/main.go:main"] == "call"
    marshal = _dependents(tmp_path, "Marshal")
    assert marshal["cmd/main.go:main"] == "call"
    assert "cmd/config.go:save" not in marshal  # gopkg.in/yaml.v3 binds yaml: another package's Marshal


VALUES = {
    "go.mod": "module example.com/cli\n\ngo 1.22\n",
    "args.go": """
        package cli

        type Command struct {
            Args        func([]string) error
            NoArgs      int
        }

        func NoArgs(args []string) error { return nil }

        type resource struct{}

        func (rs resource) List() {}

        func Route(handler func()) {}
        """,
    "command.go": """
        package cli

        func build() *Command {
            return &Command{Args: NoArgs}
        }

        func routes(rs resource) {
            Route(rs.List)
        }

        func unrelated() string {
            // NoArgs in a comment
            help := `usage:
        NoArgs is spelled in this raw string
        `
            return help + "NoArgs"
        }

        func shadowed(NoArgs func([]string) error) {
            run(NoArgs)
        }
        """,
    "cmd/main.go": """
        package main

        import "example.com/cli"

        func main() {
            use(cli.NoArgs)
        }
        """,
}


def test_a_go_function_or_method_passed_on_as_a_value_is_a_reference(tmp_path: Path) -> None:
    _write(tmp_path, VALUES)
    no_args = _dependents(tmp_path, "NoArgs")
    assert no_args["command.go:build"] == "reference"  # Command{Args: NoArgs}
    assert no_args["cmd/main.go:main"] == "reference"  # cli.NoArgs through the package's import
    assert _dependents(tmp_path, "resource.List")["command.go:routes"] == "reference"  # rs.List, rs typed


def test_a_go_name_in_a_comment_a_string_a_field_or_a_shadowing_parameter_is_no_use(tmp_path: Path) -> None:
    _write(tmp_path, VALUES)
    no_args = _dependents(tmp_path, "NoArgs")
    assert "command.go:unrelated" not in no_args
    assert "command.go:shadowed" not in no_args
    assert "args.go:Command" not in no_args  # the field NoArgs


TYPES = {
    "go.mod": "module example.com/web\n\ngo 1.22\n",
    "context.go": "package web\n\ntype Context struct{}\n",
    "other/context.go": "package other\n\ntype Context struct{}\n",
    "cmd/main.go": """
        package main

        import (
            "example.com/web"
            "example.com/web/other"
        )

        func handle(c *web.Context) {}

        func elsewhere(c *other.Context) {}
        """,
    "cmd/dot.go": 'package main\n\nimport . "example.com/web"\n\nfunc dotted(c *Context) {}\n',
}


def test_a_go_type_read_through_its_package_is_a_reference_and_another_package_s_type_is_none(
    tmp_path: Path,
) -> None:
    _write(tmp_path, TYPES)
    with prooftext.open(tmp_path) as index:
        index.refresh()
        ids = dict(
            index.conn.execute(
                "SELECT f.path, n.id FROM nodes n JOIN files f ON f.id = n.file_id WHERE n.qualname = 'Context'"
            ).fetchall()
        )
        web = {d["qualname"]: d["found_by"] for d in who_uses(index, ids["context.go"])}
        other = {d["qualname"]: d["found_by"] for d in who_uses(index, ids["other/context.go"])}
    # *web.Context, and a bare Context where the file imports web with "."; not *other.Context, nor the
    # other package's own declaration
    assert web == {"handle": "reference", "dotted": "reference"}
    assert other == {"elsewhere": "reference"}
