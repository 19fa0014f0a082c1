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
