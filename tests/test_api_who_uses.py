"""Who-uses on Python: references resolved at query time reach the definition they name."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import prooftext
from prooftext.api.risk import risk_of_changing, who_uses


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))


def _dependents(root: Path, target: str) -> dict[str, str]:
    with prooftext.open(root) as index:
        index.refresh()
        result: dict[str, Any] = risk_of_changing(index, [target])
    return {f"{d['path']}:{d['qualname']}": d["found_by"] for d in result["dependents"]}


OVERLOADED = {
    "pkg/__init__.py": "",
    "pkg/utils.py": """
        from typing import overload

        @overload
        def to_pairs(value: None) -> None: ...
        @overload
        def to_pairs(value: dict) -> list: ...
        def to_pairs(value):
            return list(value.items()) if value else None
        """,
    "pkg/models.py": """
        from .utils import to_pairs
        from . import utils

        def encode(data):
            return to_pairs(data)

        def through_module(data):
            return utils.to_pairs(data)
        """,
}


def test_an_overloaded_function_imported_elsewhere_keeps_its_callers(tmp_path: Path) -> None:
    """Its ``@overload`` stubs share its name: an import of it used to name nothing, so no caller was found."""
    _write(tmp_path, OVERLOADED)
    found = _dependents(tmp_path, "pkg.utils.to_pairs")
    assert found["pkg/models.py:encode"] == "call"
    assert found["pkg/models.py:through_module"] == "call"
    assert found["pkg/models.py:pkg/models.py"] == "import"


def test_a_class_attribute_assigned_a_method_is_a_reference_from_the_class(tmp_path: Path) -> None:
    """``tag = to_json`` in a class body names the class's own method: it used to be looked up at the top
    level of the file only, and was lost."""
    _write(
        tmp_path,
        {
            "tags.py": """
                def to_json(value):
                    return value

                class PassList:
                    def to_json(self, value):
                        return list(value)

                    tag = to_json
                """
        },
    )
    assert _dependents(tmp_path, "PassList.to_json") == {"tags.py:PassList": "reference"}
    assert "tags.py:PassList" not in _dependents(tmp_path, "tags.to_json")


SHADOWED = {
    "views.py": """
        def result(task_id):
            return task_id

        def add(a, b):
            result = a + b
            return {"id": result}

        def show(result):
            return result

        def nested(items):
            def bar(bar):
                return str(bar)

            def foo(bar, baz):
                return f"{bar}/{baz}"

            return bar(items), foo(1, 2)

        def uses(task_id):
            return result(task_id)
        """
}


def test_a_parameter_or_local_variable_named_like_a_function_does_not_use_it(tmp_path: Path) -> None:
    """A name a function binds itself (a parameter, an assignment) is local there: ``result = a + b`` and
    ``def show(result)`` used to make ``add`` and ``show`` callers of the top-level ``result``."""
    _write(tmp_path, SHADOWED)
    assert _dependents(tmp_path, "views.result") == {"views.py:uses": "call"}
    assert _dependents(tmp_path, "nested.bar") == {"views.py:nested": "call"}


FIXTURES = {
    "tests/conftest.py": """
        import pytest

        @pytest.fixture
        def app():
            return object()

        @pytest.fixture
        def client(app):
            return app

        def helper(app):
            return app
        """,
    "tests/sub/test_views.py": """
        def test_index(client, app):
            # a comment the indexed signature keeps
            assert app is client

        class TestViews:
            def test_method(self, app):
                assert app
        """,
    "tests/other/test_override.py": """
        from pytest import fixture

        @fixture
        def app():
            return 1

        def test_own(app):
            assert app == 1
        """,
    "tests/test_classes.py": """
        import pytest

        class TestRoutes:
            @pytest.fixture
            def app(self):
                return 2

            def test_in_class(self, app):
                assert app == 2

        def test_at_top(app):
            assert app
        """,
    "elsewhere/test_outside.py": """
        def test_outside(app):
            assert app
        """,
}


def test_a_pytest_fixture_is_used_by_the_tests_and_fixtures_that_request_it(tmp_path: Path) -> None:
    """A fixture is requested by a parameter of its name, never called: its users used to be none, so
    changing a conftest fixture looked safe. A nearer fixture of the name overrides it."""
    _write(tmp_path, FIXTURES)
    found = _dependents(tmp_path, "tests.conftest.app")
    assert found == {
        "tests/conftest.py:client": "reference",
        "tests/sub/test_views.py:test_index": "reference",
        "tests/sub/test_views.py:TestViews.test_method": "reference",
        "tests/test_classes.py:test_at_top": "reference",
    }
    assert _dependents(tmp_path, "TestRoutes.app") == {
        "tests/test_classes.py:TestRoutes.test_in_class": "reference"
    }
    assert _dependents(tmp_path, "test_override.app") == {
        "tests/other/test_override.py:test_own": "reference"
    }


def test_a_fixture_renamed_by_its_decorator_is_used_under_that_name(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "tests/conftest.py": """
                import pytest

                @pytest.fixture(name="app")
                def make_app():
                    return object()
                """,
            "tests/test_views.py": "def test_index(app):\n    assert app\n",
        },
    )
    assert _dependents(tmp_path, "make_app") == {"tests/test_views.py:test_index": "reference"}


def test_a_fixture_requested_by_a_usefixtures_mark_is_used_by_the_marked_test_or_class(
    tmp_path: Path,
) -> None:
    """``@pytest.mark.usefixtures("db")`` requests a fixture by a string, not a parameter: the marked tests
    and classes used to be no users of it."""
    _write(
        tmp_path,
        {
            "tests/conftest.py": """
                import pytest

                @pytest.fixture
                def db():
                    return object()

                @pytest.fixture
                def cache():
                    return {}
                """,
            "tests/test_marks.py": """
                import pytest

                @pytest.mark.usefixtures("db")
                def test_marked():
                    assert True

                @pytest.mark.usefixtures(
                    "cache",
                    'db',
                )
                class TestMarked:
                    def test_inside(self):
                        assert True

                @pytest.mark.usefixtures("dbx")
                def test_other_name():
                    assert "db"
                """,
        },
    )
    assert _dependents(tmp_path, "tests.conftest.db") == {
        "tests/test_marks.py:test_marked": "reference",
        "tests/test_marks.py:TestMarked": "reference",
    }
    assert _dependents(tmp_path, "tests.conftest.cache") == {"tests/test_marks.py:TestMarked": "reference"}


RECEIVERS = {
    "cli.py": """
        import click

        @click.command("run")
        def run_command():
            pass

        run_command.params.insert(0, None)

        def make_group():
            @click.group()
            def subgroup():
                pass

            @subgroup.command()
            def test2():
                pass

            return test2
        """,
    "test_cli.py": """
        from cli import run_command

        def test_run():
            run_command.make_context("run", [])

        def test_other(run_command):
            run_command.make_context("run", [])
        """,
}


def test_a_definition_used_as_the_receiver_of_an_attribute_has_that_code_as_a_dependent(
    tmp_path: Path,
) -> None:
    """``run_command.make_context()`` and ``@subgroup.command()`` read the definition: they used to be found
    only as a reference to ``make_context`` or ``command``, so the definition looked unused."""
    _write(tmp_path, RECEIVERS)
    assert _dependents(tmp_path, "cli.run_command") == {
        "cli.py:cli.py": "reference",
        "test_cli.py:test_run": "reference",
        "test_cli.py:test_cli.py": "import",
    }
    assert _dependents(tmp_path, "make_group.subgroup") == {"cli.py:make_group.test2": "reference"}


def test_a_plugin_s_fixture_is_possibly_used_by_every_test_requesting_its_name(tmp_path: Path) -> None:
    """A fixture outside any ``conftest.py`` or test module comes from a plugin (``pytest_plugins``, an
    entry point) that may be loaded for any test: its requests used to be dropped, as if nothing used it."""
    _write(
        tmp_path,
        {
            "src/plug/tmpdir.py": """
                import pytest

                @pytest.fixture
                def tmp_dir():
                    return "/tmp"
                """,
            "testing/test_paths.py": "def test_write(tmp_dir):\n    assert tmp_dir\n",
            "testing/test_own.py": """
                import pytest

                @pytest.fixture
                def tmp_dir():
                    return "."

                def test_local(tmp_dir):
                    assert tmp_dir
                """,
        },
    )
    assert _dependents(tmp_path, "plug.tmpdir.tmp_dir") == {"testing/test_paths.py:test_write": "possible"}


STATED = {
    "pkg/__init__.py": "",
    "pkg/sessions.py": """
        class Session:
            def get(self, url):
                return url

        class Other:
            def get(self, url):
                return None

        class Cached(Session):
            def get(self, url):
                return url
        """,
    "pkg/api.py": """
        from pkg import sessions
        from pkg.sessions import Other, Session

        def fetch(url):
            s = sessions.Session()
            return s.get(url)

        def managed(url):
            with Session() as w:
                return w.get(url)

        def annotated(session: Session, url):
            return session.get(url)

        def elsewhere(url):
            o = Other()
            return o.get(url)

        def rebound(url, flag):
            s = Session()
            if flag:
                s = Other()
            return s.get(url)
        """,
}


def test_a_method_called_on_a_local_the_function_constructs_or_annotates_resolves_through_its_class(
    tmp_path: Path,
) -> None:
    _write(tmp_path, STATED)
    found = _dependents(tmp_path, "Session.get")
    assert found["pkg/api.py:fetch"] == "call"  # s = sessions.Session()
    assert found["pkg/api.py:managed"] == "call"  # with Session() as w
    assert found["pkg/api.py:annotated"] == "call"  # session: Session
    assert "pkg/api.py:elsewhere" not in found  # o = Other(): Other's get
    assert found["pkg/api.py:rebound"] == "possible"  # two classes: not known
    assert _dependents(tmp_path, "Cached.get")["pkg/api.py:fetch"] == "possible"  # a subclass may override


FACTORIES = {
    "pkg/__init__.py": "from .sessions import Session, session\n",
    "pkg/sessions.py": """
        from typing import Optional

        class Session:
            def get(self, url):
                return url

            @classmethod
            def from_env(cls) -> "Session":
                return cls()

        class Other:
            def get(self, url):
                return None

        def session():
            \"\"\"A new session.\"\"\"
            return Session()

        def annotated(url) -> Session:
            return make(url)

        def maybe(flag):
            if flag:
                return Session()
            return None

        def either(flag):
            return Session() if flag else Other()

        def wrapped():
            return session()

        def optional(url) -> Optional[Session]:
            return lookup(url)

        def spelled(url) -> "Session | None":
            return lookup(url)
        """,
    "app.py": """
        import pkg
        from pkg.sessions import Session, annotated, either, maybe, optional, spelled, wrapped

        def by_factory():
            s = pkg.session()
            return s.get("/")

        def by_annotation():
            s = annotated("/")
            return s.get("/")

        def by_classmethod():
            s = Session.from_env()
            return s.get("/")

        def by_maybe():
            s = maybe(True)
            return s.get("/")

        def by_either():
            s = either(True)
            return s.get("/")

        def by_wrapped():
            s = wrapped()
            return s.get("/")

        def by_optional():
            s = None
            s = optional("/")
            return s.get("/")

        def by_spelled():
            return spelled("/").get("/")
        """,
}


def test_a_local_bound_to_a_function_s_result_has_the_class_the_function_states_or_returns(
    tmp_path: Path,
) -> None:
    """``s = requests.session(); s.get()``: the factory returns a ``Session`` (its annotation says so, or
    every ``return`` constructs one), so the call is ``Session.get``'s; it used to be only possible."""
    _write(tmp_path, FACTORIES)
    found = _dependents(tmp_path, "Session.get")
    assert found["app.py:by_factory"] == "call"  # every return constructs a Session
    assert found["app.py:by_annotation"] == "call"  # -> Session
    assert found["app.py:by_classmethod"] == "call"  # -> "Session", a string annotation
    assert found["app.py:by_maybe"] == "call"  # a Session, or None (which has no get)
    assert found["app.py:by_either"] == "possible"  # two classes
    assert found["app.py:by_wrapped"] == "call"  # a factory returning a factory's result
    assert found["app.py:by_optional"] == "call"  # -> Optional[Session], after s = None
    assert found["app.py:by_spelled"] == "call"  # a call's result, no local: `spelled("/").get()`
    assert "app.py:by_factory" not in _dependents(tmp_path, "Other.get")


ATTRIBUTES = {
    "pkg/__init__.py": "",
    "pkg/config.py": """
        class Config(dict):
            def from_pyfile(self, name):
                return name

        class Other:
            def from_pyfile(self, name):
                return None
        """,
    "pkg/app.py": """
        from pkg.config import Config, Other

        class Base:
            def __init__(self):
                self.config = self.make_config()

            def make_config(self) -> Config:
                return Config()

            def set_debug(self):
                self.config["DEBUG"] = True  # changes what it holds, binds nothing

        class App(Base):
            settings: Config

            def __init__(self, extra: Other):
                super().__init__()
                self.extra = extra
                self.mixed = Config()

            def rebind(self):
                self.mixed = Other()

            @property
            def current(self) -> Config:
                return self.config

            def load(self):
                self.config.from_pyfile("a.cfg")
                self.extra.from_pyfile("b.cfg")

        def create():
            app = App(Other())
            app.config.from_pyfile("c.cfg")
            app.settings.from_pyfile("d.cfg")
            app.current.from_pyfile("e.cfg")
            app.mixed.from_pyfile("f.cfg")
        """,
}


def test_a_submodule_read_through_its_package_names_its_definitions_though_the_package_does_not_import_it(
    tmp_path: Path,
) -> None:
    """``requests.cookies.RequestsCookieJar()``: importing ``requests.cookies`` anywhere binds it on the
    package, so the name is the submodule's class; it used to name nothing here, and ``jar.values()`` was only
    possible."""
    _write(
        tmp_path,
        {
            "pkg/__init__.py": "from .api import get\n",
            "pkg/api.py": "def get():\n    return 1\n",
            "pkg/cookies.py": "class Jar:\n    def values(self):\n        return []\n",
            "tests/test_jar.py": """
                import pkg

                def test_values():
                    jar = pkg.cookies.Jar()
                    assert jar.values() == []

                def test_missing():
                    return pkg.nothing.Jar().values()
                """,
        },
    )
    assert _dependents(tmp_path, "Jar.values") == {
        "tests/test_jar.py:test_values": "call",
        "tests/test_jar.py:test_missing": "possible",
    }


FIXTURE_VALUES = {
    "web/__init__.py": "",
    "web/app.py": """
        class Client:
            def open(self, path) -> "Response":
                return Response()

        class Response:
            def json(self):
                return {}

        class App:
            def test_client(self) -> Client:
                return Client()
        """,
    "tests/conftest.py": """
        import pytest
        from web.app import App

        @pytest.fixture
        def app():
            app = App()
            return app

        @pytest.fixture
        def client(app):
            return app.test_client()

        @pytest.fixture
        def served(app):
            yield app.test_client()
        """,
    "tests/test_views.py": """
        def test_index(client):
            assert client.open("/")

        def test_served(served):
            assert served.open("/")

        def test_json(client):
            response = client.open("/")
            assert response.json() == {}

        def helper(client):
            return client.open("/")

        def test_rebound(client):
            client = make_other()
            return client.open("/")

        def test_nested(client):
            @client.open
            def inner():
                return client.open("/")

            return inner()
        """,
}


def test_a_test_s_parameter_has_the_class_its_fixture_returns_or_yields(tmp_path: Path) -> None:
    """``client.open()`` in a test whose ``client`` fixture returns ``app.test_client()``: pytest fills the
    parameter from the fixture, whose value the code states, so the call is ``Client.open``'s; it was only
    possible. A function that is no test or fixture gets nothing from pytest."""
    _write(tmp_path, FIXTURE_VALUES)
    assert _dependents(tmp_path, "Client.open") == {
        "tests/test_views.py:test_index": "call",
        "tests/test_views.py:test_served": "call",  # a fixture that yields
        "tests/test_views.py:test_json": "call",
        "tests/test_views.py:helper": "possible",
        "tests/test_views.py:test_rebound": "possible",  # the fixture's value, then another
        "tests/test_views.py:test_nested.inner": "call",  # the enclosing test's client, as a closure reads it
    }
    assert _dependents(tmp_path, "Response.json") == {"tests/test_views.py:test_json": "call"}


GLOBALS = {
    "app/__init__.py": "",
    "app/database.py": """
        class Database:
            def query(self, sql):
                return sql

        class Other:
            def query(self, sql):
                return None

        db = Database()
        db.timeout = 5  # changes what it holds, binds nothing
        other: Other = make_other()
        cursor = None
        if cursor is None:
            cursor = Database()
        pool = Database() if cursor else None
        if pool is None:
            pool = Other()

        def reset():
            global legacy
            legacy = Other()

        legacy = Database()
        """,
    "app/views.py": """
        from app import database
        from app.database import cursor, db, legacy, pool

        def index():
            return db.query("select 1")

        def through_module():
            return database.db.query("select 2")

        def annotated():
            return database.other.query("select 3")

        def shadowed(db):
            return db.query("select 4")

        def rebound():
            return cursor.query("select 5")

        def two_classes():
            return pool.query("select 7")

        def declared_global():
            return legacy.query("select 6")
        """,
}


def test_a_method_called_on_a_module_level_variable_resolves_through_the_class_it_is_bound_to(
    tmp_path: Path,
) -> None:
    """``db = Database()`` at a module's top level, imported and used as ``db.query()``: a singleton was
    only a possible user of ``Database.query``."""
    _write(tmp_path, GLOBALS)
    found = _dependents(tmp_path, "Database.query")
    assert found["app/views.py:index"] == "call"  # from app.database import db
    assert found["app/views.py:through_module"] == "call"  # database.db
    assert found["app/views.py:shadowed"] == "possible"  # a parameter of that name: its type is not known
    assert found["app/views.py:rebound"] == "call"  # None until it is set up, then a Database
    assert found["app/views.py:two_classes"] == "possible"  # an expression, then an Other
    assert found["app/views.py:declared_global"] == "possible"  # a function rebinds it
    assert "app/views.py:annotated" not in found  # other: Other
    assert _dependents(tmp_path, "Other.query")["app/views.py:annotated"] == "call"


def test_a_method_called_on_an_instance_attribute_resolves_through_the_class_the_attribute_is_bound_to(
    tmp_path: Path,
) -> None:
    """``app.config.from_pyfile()``: ``config`` is bound in ``__init__`` to a method's stated result, a
    class annotation states ``settings``, a property states ``current``: each call was only possible."""
    _write(tmp_path, ATTRIBUTES)
    found = _dependents(tmp_path, "Config.from_pyfile")
    assert found["pkg/app.py:App.load"] == "call"  # self.config, bound in a base class's __init__
    assert found["pkg/app.py:create"] == "call"  # app.config, app.settings, app.current
    assert _dependents(tmp_path, "Other.from_pyfile") == {
        "pkg/app.py:App.load": "call",  # self.extra = extra, where extra: Other
        "pkg/app.py:create": "possible",  # app.mixed: bound to a Config and to an Other
    }


def test_a_call_of_an_overloaded_method_through_a_stated_class_is_a_call_of_each_overload(
    tmp_path: Path,
) -> None:
    """``@overload`` stubs and their implementation share the method's name: a call found through the
    class was a use of the one definition looked up, and none of the others."""
    _write(
        tmp_path,
        {
            "app.py": """
                from typing import overload

                class App:
                    @overload
                    def template_filter(self, name: str) -> str: ...
                    @overload
                    def template_filter(self) -> None: ...
                    def template_filter(self, name=None):
                        return name

                def register():
                    app = App()
                    app.template_filter("x")
                """,
        },
    )
    with prooftext.open(tmp_path) as index:
        index.refresh()
        (target,) = risk_of_changing(index, ["App.template_filter"])["targets"]
        found = [
            {d["qualname"]: d["found_by"] for d in who_uses(index, match["node_id"])}
            for match in target["matches"]
        ]
    assert found == [{"register": "call"}] * 3


MODULE_VARIABLES = {
    "web/__init__.py": """
        from .globals import session as session
        from .globals import fetch as fetch
        from .globals import current as current
        from .globals import get as get
        """,
    "web/globals.py": """
        from .proxy import LocalProxy

        session: "LocalProxy" = LocalProxy("session")

        def _fetch(url):
            return url

        fetch = _fetch

        class Client:
            def get(self, url):
                return url

        _client = Client()
        get = _client.get

        def setup():
            global current
            current = None

        current = None
        """,
    "web/proxy.py": """
        class LocalProxy:
            def __init__(self, name):
                self.name = name
        """,
    "web/ctx.py": """
        class AppContext:
            @property
            def session(self):
                return {}

            def fetch(self, url):
                return url

            def current(self):
                return self
        """,
    "tests/test_app.py": """
        import web

        def test_reads_the_proxy():
            return web.session["user"]

        def test_fetches():
            return web.fetch("/")

        def test_current():
            return web.current

        def test_gets():
            return web.get("/")
        """,
}


def test_a_module_variable_assigned_a_value_is_no_member_of_the_same_name(tmp_path: Path) -> None:
    """``flask.session`` is the module variable ``session = LocalProxy(…)``, which the index holds no
    definition for: it was a possible use of every ``session``, ``AppContext.session`` included."""
    _write(tmp_path, MODULE_VARIABLES)
    assert "tests/test_app.py:test_reads_the_proxy" not in _dependents(tmp_path, "AppContext.session")
    assert "tests/test_app.py:test_fetches" not in _dependents(tmp_path, "AppContext.fetch")  # `_fetch`
    assert _dependents(tmp_path, "_fetch")["tests/test_app.py:test_fetches"] == "call"  # `fetch = _fetch`
    # an alias of what a variable holds: the member it names is not known here
    assert _dependents(tmp_path, "Client.get")["tests/test_app.py:test_gets"] == "possible"
    # a variable a function rebinds through `global` may hold anything
    assert _dependents(tmp_path, "AppContext.current")["tests/test_app.py:test_current"] == "possible"


OUTSIDE_MODULES = {
    "app/__init__.py": "",
    "app/store.py": """
        class Store:
            def get(self, key):
                return key
        """,
    "app/settings.py": """
        import os
        import sys as system
        from os import environ
        import requests
        import tools

        def debug():
            return os.environ.get("DEBUG")

        def loaded(name):
            return system.modules.get(name)

        def variable():
            return environ.get("HOME")

        def fetched(url):
            return requests.get(url)

        def tooled(key):
            return tools.get(key)

        def unknown(store):
            return store.get("x")
        """,
    "tools/run.py": "",
}


def test_a_call_through_a_module_from_outside_the_repository_is_no_use_of_its_member(tmp_path: Path) -> None:
    """``os.environ.get("DEBUG")`` was a possible call of every ``get``: the standard library's ``os``
    holds nothing of the repository, nor does ``requests`` when the repository has no module or directory
    of that name. A name the repository has a directory of (``tools``) may be its own, so its calls stay
    possible."""
    _write(tmp_path, OUTSIDE_MODULES)
    found = _dependents(tmp_path, "Store.get")
    assert "app/settings.py:debug" not in found
    assert "app/settings.py:loaded" not in found  # `import sys as system`
    assert "app/settings.py:variable" not in found  # `from os import environ`
    assert "app/settings.py:fetched" not in found
    assert found["app/settings.py:tooled"] == "possible"
    assert found["app/settings.py:unknown"] == "possible"


BUILT_IN_HOLDERS = {
    "app/__init__.py": "",
    "app/store.py": """
        from typing import Generic, TypeVar

        T = TypeVar("T")

        class Store(Generic[T]):
            def pop(self, key):
                return key

            def get(self, key):
                return key
        """,
    "app/views.py": """
        import typing as t
        from .store import Store

        def options_of(**options):
            return options.pop("endpoint", None)

        def values_of(values: dict[str, t.Any] | None):
            return values.pop("lang")

        def mapping_of(values: t.Dict[str, int]):
            return values.get("x")

        def literal():
            cache = {}
            return cache.get("x")

        def joined(name):
            text = f"{name}!"
            return text.get()

        def generic(store: Store[int]):
            return store.get("x")

        def unknown(values):
            return values.pop("x")
        """,
}


def test_a_local_holding_a_built_in_container_calls_no_member_of_the_repository(tmp_path: Path) -> None:
    """``options.pop("endpoint")`` on ``**options`` was a possible call of every ``pop``: a ``**`` parameter
    is a dict, as is a variable annotated ``dict[…]`` or ``Dict[…]`` or assigned ``{}``; a generic class of
    the repository (``Store[int]``) is that class."""
    _write(tmp_path, BUILT_IN_HOLDERS)
    pops = _dependents(tmp_path, "Store.pop")
    assert "app/views.py:options_of" not in pops
    assert "app/views.py:values_of" not in pops
    assert pops["app/views.py:unknown"] == "possible"
    gets = _dependents(tmp_path, "Store.get")
    assert "app/views.py:mapping_of" not in gets
    assert "app/views.py:literal" not in gets
    assert "app/views.py:joined" not in gets
    assert gets["app/views.py:generic"] == "call"


CALL_RESULTS = {
    "web/__init__.py": "",
    "web/client.py": """
        class Client:
            def get(self, url):
                return url

        class Other:
            def get(self, url):
                return None
        """,
    "web/app.py": """
        from .client import Client, Other

        class App:
            def test_client(self) -> Client:
                return Client()

            def other(self) -> Other:
                return Other()
        """,
    "tests/test_views.py": """
        from web.app import App
        from web.client import Client

        def test_index(app: App):
            return app.test_client().get("/")

        def test_other(app: App):
            return app.other().get("/")

        def test_made():
            return Client().get("/")
        """,
}


def test_a_method_called_on_a_call_s_result_resolves_through_the_class_the_call_returns(
    tmp_path: Path,
) -> None:
    """``app.test_client().get("/")`` was a possible call of every ``get``: the receiver through a call is
    spelled (``app.test_client()``), and ``test_client`` states it returns a ``Client``."""
    _write(tmp_path, CALL_RESULTS)
    found = _dependents(tmp_path, "Client.get")
    assert found["tests/test_views.py:test_index"] == "call"
    assert found["tests/test_views.py:test_made"] == "call"  # a class called: its instance
    assert "tests/test_views.py:test_other" not in found
