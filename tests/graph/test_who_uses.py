"""Who-uses: dependents resolved through imports, classes and receivers; unknown receivers are possible."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import prooftext
from prooftext.api.risk import risk_of_changing, who_uses
from prooftext.graph.extract import extract
from prooftext.graph.model import HOW_CALL, HOW_FROM, Reference, parse_reference


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))


PACKAGE = {
    "pkg/__init__.py": "from .helpers import url_for as url_for\n",
    "pkg/helpers.py": """
        def url_for(endpoint):
            return current_app.url_for(endpoint)

        def never_called():
            return 0
        """,
    "pkg/app.py": """
        class Base:
            def run(self):
                return self.push()

        class AppContext(Base):
            def push(self):
                return 1

            def __enter__(self):
                self.push()
                return self

        class RequestContext:
            def push(self):
                app_ctx = make()
                app_ctx.push()

        class Flask:
            def url_for(self, endpoint):
                return endpoint
        """,
    "pkg/views.py": """
        from . import helpers
        from .helpers import url_for as build
        import pkg

        def through_module():
            return helpers.url_for("a")

        def through_alias():
            return build("b")

        def through_package():
            return pkg.url_for("c")

        def on_an_app(app):
            return app.url_for("d")
        """,
    "docs/guide.md": """
        # Pushing

        Run git push after you commit.

        # Contexts

        Call AppContext.push to bind the context; url_for builds addresses.
        """,
}


def _dependents(root: Path, target: str) -> dict[str, dict[str, Any]]:
    with prooftext.open(root) as index:
        index.refresh()
        result = risk_of_changing(index, [target])
    return {f"{d['path']}:{d['qualname']}": d for d in result["dependents"]}


def _risk(root: Path, target: str) -> dict[str, Any]:
    with prooftext.open(root) as index:
        index.refresh()
        return risk_of_changing(index, [target])


def test_a_call_through_self_makes_the_calling_method_a_dependent_of_its_class_method(tmp_path: Path) -> None:
    _write(tmp_path, PACKAGE)
    found = _dependents(tmp_path, "AppContext.push")
    enter = found["pkg/app.py:AppContext.__enter__"]
    assert (enter["found_by"], enter["line"]) == ("call", 10)


def test_self_in_another_class_does_not_reach_a_same_named_method(tmp_path: Path) -> None:
    _write(tmp_path, PACKAGE)
    found = _dependents(tmp_path, "AppContext.push")
    assert "pkg/app.py:Flask.url_for" not in found
    assert "pkg/app.py:RequestContext.push" in found  # `app_ctx.push()`: an unknown receiver ...
    assert found["pkg/app.py:RequestContext.push"]["found_by"] == "possible"  # ... reported as possible


def test_a_base_class_calling_self_is_a_possible_dependent_of_the_subclass_override(tmp_path: Path) -> None:
    _write(tmp_path, PACKAGE)
    assert _dependents(tmp_path, "AppContext.push")["pkg/app.py:Base.run"]["found_by"] == "possible"


def test_a_call_through_the_helpers_module_depends_on_helpers_url_for_not_on_flask_url_for(
    tmp_path: Path,
) -> None:
    _write(tmp_path, PACKAGE)
    helpers = _dependents(tmp_path, "pkg/helpers.py")  # the file and its symbols
    assert helpers["pkg/views.py:through_module"]["found_by"] == "call"
    assert (
        helpers["pkg/views.py:through_alias"]["found_by"] == "call"
    )  # `from .helpers import url_for as build`
    assert helpers["pkg/views.py:through_package"]["found_by"] == "call"  # `pkg.url_for`, re-exported
    assert helpers["pkg/__init__.py:pkg/__init__.py"]["found_by"] == "import"
    flask = _dependents(tmp_path, "Flask.url_for")
    assert "pkg/views.py:through_module" not in flask
    assert "pkg/views.py:through_alias" not in flask
    assert "pkg/views.py:through_package" not in flask
    assert flask["pkg/views.py:on_an_app"]["found_by"] == "possible"
    assert flask["pkg/helpers.py:url_for"]["found_by"] == "possible"  # `current_app.url_for`


def test_a_method_named_like_a_common_word_keeps_its_callers(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "m.py": "class Stack:\n    def push(self):\n        pass\n    def pop(self):\n        self.push()\n"
        },
    )
    with prooftext.open(tmp_path) as index:
        index.refresh()
        push = index.conn.execute("SELECT id FROM nodes WHERE qualname = 'Stack.push'").fetchone()[0]
        assert [(d["qualname"], d["found_by"]) for d in who_uses(index, push)] == [("Stack.pop", "call")]


def test_documentation_is_matched_by_qualified_name_or_distinctive_identifier_not_a_bare_word(
    tmp_path: Path,
) -> None:
    _write(tmp_path, PACKAGE)
    push_docs = _risk(tmp_path, "AppContext.push")["docs"]
    assert [(d["title"] if "title" in d else d["qualname"], d["mentions"]) for d in push_docs] == [
        ("Contexts", ["AppContext.push"])
    ]
    assert all(d["found_by"] == "mention" for d in push_docs)
    url_docs = _risk(tmp_path, "pkg/helpers.py")["docs"]
    assert [d["mentions"] for d in url_docs] == [["url_for"]]


def test_references_are_spelled_with_their_receiver_and_read_back() -> None:
    graph = extract("v.py", "from .h import f as g\n\ndef a(x):\n    x.push()\n    return g\n")
    spelled = {u.reference for u in graph.uses if u.reference is not None}
    assert Reference("push", HOW_CALL, "x") in spelled
    assert Reference("f", HOW_FROM, ".h", "g") in spelled
    assert parse_reference("push") is None  # a plain-name use (ranking) is no reference
    for ref in spelled:
        assert parse_reference(ref.spelled()) == ref


def test_a_python_receiver_through_a_call_is_spelled_without_its_arguments() -> None:
    text = (
        "def view(app):\n"
        "    app.test_client().get('/')\n"
        "    make_session(1).config.load()\n"
        "    super().setup()\n"
        "    factory()().start()\n"
    )
    spelled = {u.reference for u in extract("v.py", text).uses if u.reference is not None}
    assert Reference("get", HOW_CALL, "app.test_client()") in spelled
    assert Reference("load", HOW_CALL, "make_session().config") in spelled
    assert Reference("setup", HOW_CALL, "super()") in spelled
    assert Reference("start", HOW_CALL, "?") in spelled  # a call of a call's result: no chain


def test_a_typescript_receiver_through_a_call_is_spelled_without_its_arguments() -> None:
    text = (
        "const s = z.string().min(5);\n"
        "const t = c.req\n  .header('x')\n  .trim();\n"
        "app?.route(1).build();\n"
        "new Foo().run();\n"
        "this.#req.param();\n"
    )
    graph = extract("v.ts", text)
    spelled = {u.reference for u in graph.uses if u.reference is not None}
    assert Reference("min", HOW_CALL, "z.string()") in spelled
    assert Reference("header", HOW_CALL, "c.req") in spelled  # a line break before `.` is no space
    assert Reference("trim", HOW_CALL, "c.req.header()") in spelled
    assert Reference("build", HOW_CALL, "app.route()") in spelled  # optional chaining read as plain
    assert Reference("run", HOW_CALL, "?") in spelled  # `new Foo()`: no receiver chain
    assert Reference("param", HOW_CALL, "this.#req") in spelled


def test_a_call_of_a_private_javascript_method_through_this_is_a_dependent(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "src/ky.ts": """
                export class Ky {
                  #handler = (n: number): number => n;
                  #retry(): number {
                    return this.#handler(1);
                  }
                  fetch(): number {
                    return this.#retry();
                  }
                }
                """
        },
    )
    found = _dependents(tmp_path, "Ky.#retry")
    assert (found["src/ky.ts:Ky.fetch"]["found_by"], found["src/ky.ts:Ky.fetch"]["line"]) == ("call", 7)
    handler = _dependents(tmp_path, "Ky.#handler")
    assert handler["src/ky.ts:Ky.#retry"]["found_by"] == "call"


GO_MODULE = {
    "go.mod": "module example.com/shop\n\ngo 1.22\n",
    "shop.go": """
        package shop

        import "example.com/shop/render"

        type Engine struct{ name string }

        func New() *Engine { return &Engine{} }

        func (engine *Engine) trusted() bool { return render.Ok() }

        func (engine *Engine) Serve() bool {
            return engine.trusted()
        }

        func Default() *Engine { return New() }
        """,
    "build.go": """
        package shop

        func Build() *Engine { return New() }
        """,
    "render/a.go": "package render\n\nfunc Ok() bool { return true }\n",
    "render/json.go": 'package render\n\nfunc JSON() string { return "{}" }\n',
    "cmd/main.go": """
        package main

        import (
            "errors"

            "example.com/shop"
        )

        func main() { shop.New() }

        func fail() error { return errors.New("x") }
        """,
}


def test_a_go_method_called_through_its_receiver_inside_another_method_of_its_type_is_a_call(
    tmp_path: Path,
) -> None:
    _write(tmp_path, GO_MODULE)
    found = _dependents(tmp_path, "Engine.trusted")
    assert (found["shop.go:Engine.Serve"]["found_by"], found["shop.go:Engine.Serve"]["line"]) == ("call", 12)


def test_a_go_function_is_called_by_name_from_its_package_and_through_its_import_from_another(
    tmp_path: Path,
) -> None:
    _write(tmp_path, GO_MODULE)
    found = _dependents(tmp_path, "New")
    assert found["build.go:Build"]["found_by"] == "call"  # another file of the same package
    assert found["cmd/main.go:main"]["found_by"] == "call"  # `shop.New()`: the module root, named in go.mod
    assert "cmd/main.go:fail" not in found  # `errors.New()`: another package's New


def test_a_go_file_is_imported_by_every_file_that_imports_its_package(tmp_path: Path) -> None:
    _write(tmp_path, GO_MODULE)
    assert _dependents(tmp_path, "render/json.go")["shop.go:shop.go"]["found_by"] == "import"
    assert _dependents(tmp_path, "build.go")["cmd/main.go:cmd/main.go"]["found_by"] == "import"


def test_a_name_re_exported_by_a_package_is_found_under_the_package_s_name(tmp_path: Path) -> None:
    _write(tmp_path, PACKAGE)
    result = _risk(tmp_path, "pkg.url_for")  # defined in pkg/helpers.py, imported by pkg/__init__.py
    assert [(m["path"], m["qualname"]) for t in result["targets"] for m in t["matches"]] == [
        ("pkg/helpers.py", "url_for")
    ]
    assert result["unresolved"] == []
    assert any(d["qualname"] == "through_package" for d in result["dependents"])


def test_a_method_named_through_a_subclass_that_inherits_it_is_the_base_class_s_method(
    tmp_path: Path,
) -> None:
    _write(tmp_path, PACKAGE)
    result = _risk(tmp_path, "AppContext.run")
    assert [m["qualname"] for t in result["targets"] for m in t["matches"]] == ["Base.run"]
    assert any("AppContext.run" in note and "Base.run" in note for note in result["notes"])


def test_a_definition_nothing_references_says_so_in_the_notes(tmp_path: Path) -> None:
    _write(tmp_path, PACKAGE)
    result = _risk(tmp_path, "never_called")
    assert result["dependents"] == []
    assert [n for n in result["notes"] if n.startswith("never_called:")] == [
        "never_called: no reference to it was found in the indexed files (the name never_called appears"
        " nowhere else); a use the index cannot see (another repository, a string, reflection) is not counted"
    ]


def test_a_name_that_matches_no_definition_is_unresolved_with_a_note(tmp_path: Path) -> None:
    _write(tmp_path, PACKAGE)
    result = _risk(tmp_path, "no_such_thing")
    assert result["unresolved"] == ["no_such_thing"]
    assert result["notes"] == [
        "no_such_thing: names no indexed definition (as a name, a qualified name, module.name or an"
        " inherited member)"
    ]


def test_constructing_a_class_depends_on_its_init(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "shapes.py": "class Point:\n    def __init__(self, x):\n        self.x = x\n",
            "use.py": "from shapes import Point\n\ndef origin():\n    return Point(0)\n\ndef kind():\n    return Point\n",
            "web/point.js": "class Dot {\n  constructor(x) { this.x = x; }\n}\nfunction make() { return new Dot(1); }\n",
        },
    )
    found = _dependents(tmp_path, "Point.__init__")
    assert (found["use.py:origin"]["found_by"], found["use.py:origin"]["line"]) == ("call", 4)
    assert "use.py:kind" not in found  # names the class without constructing it
    assert _dependents(tmp_path, "Dot.constructor")["web/point.js:make"]["found_by"] == "call"


def test_a_dependent_of_one_of_two_same_named_definitions_says_which_file_s_it_uses(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "a.py": "def _make(v):\n    return v\n",
            "b.py": "def _make(v):\n    return v\n\ndef build():\n    return _make(1)\n",
        },
    )
    result = _risk(tmp_path, "_make")
    assert [(d["qualname"], d["via"]) for d in result["dependents"]] == [
        ("build", "references _make in b.py")
    ]
    assert [n for n in result["notes"] if n.startswith("_make:")] == []  # one of the two is used


def test_a_javascript_function_exported_as_its_module_is_called_through_a_require_of_a_file_re_exporting_it(
    tmp_path: Path,
) -> None:
    _write(
        tmp_path,
        {
            "lib/express.js": "exports = module.exports = createApplication;\n\nfunction createApplication() {\n  return 1;\n}\n",
            "index.js": "module.exports = require('./lib/express');\n",
            "test/app.js": "var express = require('..');\n\nfunction start() {\n  return express();\n}\n",
        },
    )
    result = _risk(tmp_path, "createApplication")
    found = {f"{d['path']}:{d['qualname']}": d for d in result["dependents"]}
    assert (found["index.js:index.js"]["found_by"], found["index.js:index.js"]["line"]) == ("import", 1)
    assert found["test/app.js:start"]["found_by"] == "call"
    assert not [n for n in result["notes"] if n.startswith("createApplication:")]


def test_a_javascript_function_exported_in_a_way_not_followed_has_its_file_s_importers_as_possible(
    tmp_path: Path,
) -> None:
    _write(
        tmp_path,
        {
            "lib/express.js": "module.exports = { create: wrap(createApplication) };\n\nfunction createApplication() {\n  return 1;\n}\n",
            "index.js": "module.exports = require('./lib/express');\n",
        },
    )
    found = _dependents(tmp_path, "createApplication")
    assert (found["index.js:index.js"]["found_by"], found["index.js:index.js"]["line"]) == ("possible", 1)
    assert found["index.js:index.js"]["via"] == "may reference createApplication (imports lib/express.js)"


def test_a_dotted_name_that_matches_nothing_points_to_the_definitions_of_its_last_part(
    tmp_path: Path,
) -> None:
    _write(tmp_path, {"web/h.js": "const handlers = {\n  onClick() {\n    return 1;\n  },\n};\n"})
    result = _risk(tmp_path, "buttons.onClick")  # `onClick` is a method of another object
    assert result["unresolved"] == ["buttons.onClick"]
    assert result["notes"] == [
        "buttons.onClick: names no indexed definition (as a name, a qualified name, module.name or an"
        " inherited member); 1 definition is named onClick: onClick (web/h.js)"
    ]


def test_a_python_module_named_by_its_dotted_name_is_its_file(tmp_path: Path) -> None:
    _write(tmp_path, PACKAGE)
    result = _risk(tmp_path, "pkg.helpers")
    assert [(t["kind"], t["matches"][0]["path"]) for t in result["targets"]] == [("path", "pkg/helpers.py")]
    found = {f"{d['path']}:{d['qualname']}": d for d in result["dependents"]}
    assert found["pkg/views.py:through_module"]["found_by"] == "call"


def test_a_property_s_getter_and_setter_share_their_dependents_without_naming_their_file(
    tmp_path: Path,
) -> None:
    _write(
        tmp_path,
        {
            "m.py": """
                class C:
                    @property
                    def value(self):
                        return 1

                    @value.setter
                    def value(self, v):
                        pass

                    def show(self):
                        return self.value
                """
        },
    )
    result = _risk(tmp_path, "C.value")
    assert [(d["qualname"], d["via"]) for d in result["dependents"]] == [("C.show", "references C.value")]


def test_a_javascript_function_assigned_to_an_object_s_property_is_named_through_that_object(
    tmp_path: Path,
) -> None:
    _write(
        tmp_path,
        {
            "lib/response.js": """
                var res = {};
                res.contentType = res.type = function contentType(t) {
                  return t;
                };
                res.send = function send(body) {
                  return this.type(body);
                };
                """
        },
    )
    for target in ("res.send", "res.type", "res.contentType"):
        result = _risk(tmp_path, target)
        assert result["unresolved"] == [], target
        assert [m["path"] for t in result["targets"] for m in t["matches"]] == ["lib/response.js"]
    assert [d["qualname"] for d in _risk(tmp_path, "res.type")["dependents"]] == ["send"]


def test_a_bare_name_is_not_a_resolved_call_of_a_function_assigned_to_a_property_of_the_same_name(
    tmp_path: Path,
) -> None:
    _write(
        tmp_path,
        {
            "lib/response.js": """
                var send = require('send');
                var res = {};
                res.send = function send(body) {
                  return body;
                };
                res.sendFile = function sendFile(path) {
                  return send(path);
                };
                """
        },
    )
    found = _dependents(tmp_path, "res.send")
    assert found["lib/response.js:sendFile"]["found_by"] == "possible"  # `send` is the required module here


def test_a_go_function_passed_as_a_value_is_a_reference_and_a_one_letter_name_s_spellings_possible(
    tmp_path: Path,
) -> None:
    _write(
        tmp_path,
        {
            "recovery.go": """
                package gin

                type H map[string]any

                func Recovery() func() {
                    return wrap(defaultHandle)
                }

                func Reply() H {
                    return H{"a": 1}
                }

                func defaultHandle() {
                    defaultHandle()
                }
                """
        },
    )
    found = _dependents(tmp_path, "defaultHandle")  # passed as a value: read from the text
    assert found["recovery.go:Recovery"]["found_by"] == "reference"
    assert list(found) == ["recovery.go:Recovery"]  # not its own recursive call
    assert found["recovery.go:Recovery"]["line"] == 6
    assert "recovery.go:Reply" in _dependents(tmp_path, "H")  # a one-letter name's uses are not recorded


GO_EMBEDDED = {
    "go.mod": "module example.com/web\n\ngo 1.22\n",
    "group.go": """
        package web

        type RouterGroup struct {
            prefix string
        }

        func (group *RouterGroup) GET(path string) bool { return group.combine(path) }

        func (group *RouterGroup) combine(path string) bool { return path != "" }

        func (group *RouterGroup) Use() bool { return true }
        """,
    "engine.go": """
        package web

        import "sync"

        type Engine struct {
            RouterGroup
            *sync.Mutex
            trees []string // routes
        }

        func (engine *Engine) rebuild() bool {
            return engine.combine("x")
        }

        func (engine *Engine) Use() bool {
            return engine.RouterGroup.Use()
        }

        func (engine *Engine) serve() bool {
            return engine.Use()
        }
        """,
}


def test_a_go_method_promoted_through_an_embedded_struct_is_called_through_the_outer_type_s_receiver(
    tmp_path: Path,
) -> None:
    _write(tmp_path, GO_EMBEDDED)
    assert _dependents(tmp_path, "RouterGroup.combine")["engine.go:Engine.rebuild"]["found_by"] == "call"
    uses = _dependents(tmp_path, "RouterGroup.Use")
    assert uses["engine.go:Engine.Use"]["found_by"] == "call"  # `engine.RouterGroup.Use()`
    assert "engine.go:Engine.serve" not in uses  # `engine.Use()`: Engine's own Use


def test_a_go_method_named_through_a_struct_that_embeds_its_type_is_the_embedded_type_s_method(
    tmp_path: Path,
) -> None:
    _write(tmp_path, GO_EMBEDDED)
    result = _risk(tmp_path, "Engine.GET")
    assert [m["qualname"] for t in result["targets"] for m in t["matches"]] == ["RouterGroup.GET"]
    assert any(note.startswith("Engine.GET: reaches RouterGroup.GET") for note in result["notes"])


def test_a_go_call_through_an_import_alias_is_resolved_through_the_aliased_package(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            **GO_MODULE,
            "cmd/alias.go": """
                package main

                import (
                    e "errors"
                    s "example.com/shop"
                )

                func viaAlias() { s.New() }

                func stdAlias() error { return e.New("x") }
                """,
            "cmd/single.go": 'package main\n\nimport "example.com/shop"\n\nfunc single() { shop.New() }\n',
        },
    )
    found = _dependents(tmp_path, "New")
    assert found["cmd/alias.go:viaAlias"]["found_by"] == "call"
    assert found["cmd/single.go:single"]["found_by"] == "call"  # `import "…"` on one line binds its last part
    assert "cmd/alias.go:stdAlias" not in found  # `e.New()`: the errors package's New


JS_MODULES = {
    "src/utils/delay.ts": "export default async function delay(ms: number) {\n  return ms;\n}\n",
    "src/utils/merge.ts": "export function merge(a: number) {\n  return a;\n}\n",
    "src/index.ts": (
        "export { merge as deepMerge } from './utils/merge.js';\n"
        "export { default as wait } from './utils/delay.js';\n"
    ),
    "src/core.ts": """
        import delay from './utils/delay.js';
        import {
          merge as combine,
        } from './utils/merge.js';

        export function run() {
          return delay(1) + combine(2);
        }
        """,
    "test/main.ts": """
        import { deepMerge, wait } from '../src/index.js';
        import delay from 'delay';

        function viaIndex() {
          return deepMerge(1) + wait(2);
        }

        function other() {
          return delay(3);
        }
        """,
    "lib/cjs.js": "module.exports = start;\n\nfunction start() {\n  return 1;\n}\n",
    "lib/use.js": "const begin = require('./cjs');\n\nfunction go() {\n  return begin();\n}\n",
    "lib/ns.ts": "import * as merging from '../src/utils/merge.js';\n\nexport function viaNamespace() {\n  return merging.merge(1);\n}\n",
}


def test_a_javascript_call_through_an_import_of_the_definition_s_file_is_a_call(tmp_path: Path) -> None:
    _write(tmp_path, JS_MODULES)
    delay = _dependents(tmp_path, "delay")
    assert (delay["src/core.ts:run"]["found_by"], delay["src/core.ts:run"]["line"]) == ("call", 7)
    assert delay.get("test/main.ts:other", {}).get("found_by") != "call"  # the `delay` package's


def test_a_javascript_definition_imported_or_re_exported_under_another_name_keeps_its_callers(
    tmp_path: Path,
) -> None:
    _write(tmp_path, JS_MODULES)
    merge = _dependents(tmp_path, "merge")
    assert merge["src/core.ts:run"]["found_by"] == "call"  # `import { merge as combine }`
    assert merge["test/main.ts:viaIndex"]["found_by"] == "call"  # `export { merge as deepMerge } from`
    assert merge["lib/ns.ts:viaNamespace"]["found_by"] == "call"  # `import * as merging`
    assert _dependents(tmp_path, "delay")["test/main.ts:viaIndex"]["found_by"] == "call"  # `default as wait`
    assert _dependents(tmp_path, "start")["lib/use.js:go"]["found_by"] == "call"  # `module.exports = start`


def test_a_javascript_file_importing_other_names_of_the_definition_s_file_does_not_import_it(
    tmp_path: Path,
) -> None:
    _write(
        tmp_path,
        {
            "lib/utils.js": "exports.etag = function etag() {\n  return 1;\n};\n\nexports.other = function other() {\n  return 2;\n};\n",
            "lib/app.js": "var other = require('./utils').other;\n\nfunction run() {\n  return other();\n}\n",
        },
    )
    found = _dependents(tmp_path, "etag")
    assert found["lib/app.js:lib/app.js"]["found_by"] == "possible"  # it imports the file, not `etag`


OBJECT_LITERAL = {
    "web/h.js": """
        export const handlers = {
          onClick() {
            return 1;
          },
          onKey() {
            return handlers.onClick();
          },
        };
        """,
    "web/use.js": "import { handlers } from './h.js';\n\nfunction press() {\n  return handlers.onClick();\n}\n",
    "web/other.js": "const buttons = {\n  onClick() {\n    return 2;\n  },\n};\n",
}


def test_a_method_of_an_object_literal_is_named_and_called_through_the_object_it_is_assigned_to(
    tmp_path: Path,
) -> None:
    _write(tmp_path, OBJECT_LITERAL)
    result = _risk(tmp_path, "handlers.onClick")
    assert [(m["path"], m["qualname"]) for t in result["targets"] for m in t["matches"]] == [
        ("web/h.js", "onClick")
    ]
    found = {f"{d['path']}:{d['qualname']}": d["found_by"] for d in result["dependents"]}
    assert found["web/h.js:onKey"] == "call"
    assert found["web/use.js:press"] == "call"  # through `import { handlers }`
    assert _dependents(tmp_path, "buttons.onClick")["web/h.js:onKey"]["found_by"] == "possible"
